"""Finding and loading libclnorm.so, and the ctypes declarations of the C API (include/clnorm.h).

Search order (the first hit wins):

1. ``CLNORM_LIBRARY``: the path of the shared library (or of a directory holding libclnorm.so).
   When it is set, nothing else is tried: a wrong value is an error, never a silent fallback.
2. Next to this package: ``clnorm/libclnorm.so*`` (a library copied into the installed package).
3. The system: ``ctypes.util.find_library("clnorm")`` (the ld.so cache, e.g. after
   ``cmake --install`` and ``ldconfig``), then ``dlopen`` of the soname (``libclnorm.so.0.MINOR`` while the version is 0.y) and
   ``libclnorm.so`` (LD_LIBRARY_PATH, the ld.so cache, the default directories).
4. The repository's ``build/`` directory, when the package is imported from a source checkout
   (``<repo>/python/clnorm`` next to ``<repo>/build/libclnorm.so``).
"""

import ctypes
import ctypes.util
import glob
import os
import threading

from ._version import __version__

ENV_VAR = "CLNORM_LIBRARY"
# the soname: libclnorm.so.MAJOR.MINOR while MAJOR is 0 (each 0.y may change the ABI), else
# libclnorm.so.MAJOR (CMakeLists.txt)
_MAJOR, _MINOR = __version__.split(".")[:2]
_SONAME = "libclnorm.so." + (_MAJOR + "." + _MINOR if _MAJOR == "0" else _MAJOR)
_NAMES = ("libclnorm.so", _SONAME)

# The status codes of include/clnorm.h (CLNORM_STATUS_TABLE).
SUCCESS = 0


class Matrix(ctypes.Structure):
    """clnorm_matrix: rows x cols elements, element (r, c) at buffer[offset + r*row_stride + c]."""

    _fields_ = [
        ("buffer", ctypes.c_void_p),  # cl_mem
        ("offset", ctypes.c_size_t),
        ("row_stride", ctypes.c_size_t),
        ("dtype", ctypes.c_int),  # clnorm_dtype (a C enum: int)
    ]


class Vector(ctypes.Structure):
    """clnorm_vector: elements at buffer[offset ...]."""

    _fields_ = [
        ("buffer", ctypes.c_void_p),
        ("offset", ctypes.c_size_t),
        ("dtype", ctypes.c_int),
    ]


_lock = threading.Lock()
_lib = None
_path = None


def _candidates():
    """Yields (description, path or name) in search order, after CLNORM_LIBRARY."""
    here = os.path.dirname(os.path.abspath(__file__))
    for p in sorted(glob.glob(os.path.join(here, "libclnorm.so*"))):
        yield "next to the package", p
    found = ctypes.util.find_library("clnorm")
    if found:
        yield "ctypes.util.find_library", found
    for name in reversed(_NAMES):  # the versioned name first: that is what is installed at run time
        yield "dlopen by name", name
    repo = os.path.dirname(os.path.dirname(here))
    if os.path.isfile(os.path.join(repo, "include", "clnorm.h")):
        for name in _NAMES:
            yield "the repository's build directory", os.path.join(repo, "build", name)


def _declare(lib):
    c_status = ctypes.c_int
    ctx_p = ctypes.c_void_p
    mat_p = ctypes.POINTER(Matrix)
    vec_p = ctypes.POINTER(Vector)
    ev_list = ctypes.POINTER(ctypes.c_void_p)

    lib.clnorm_status_string.argtypes = [c_status]
    lib.clnorm_status_string.restype = ctypes.c_char_p
    lib.clnorm_version.argtypes = []
    lib.clnorm_version.restype = ctypes.c_uint
    lib.clnorm_select_device.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
    lib.clnorm_select_device.restype = c_status
    lib.clnorm_context_create_from_queue.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctx_p)]
    lib.clnorm_context_create_from_queue.restype = c_status
    lib.clnorm_context_release.argtypes = [ctx_p]
    lib.clnorm_context_release.restype = None
    lib.clnorm_context_last_error.argtypes = [ctx_p]
    lib.clnorm_context_last_error.restype = ctypes.c_char_p
    lib.clnorm_context_device_name.argtypes = [ctx_p]
    lib.clnorm_context_device_name.restype = ctypes.c_char_p
    lib.clnorm_layer_norm_forward.argtypes = [
        ctx_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_float,
        mat_p, vec_p, vec_p,  # x, weight, bias
        mat_p, vec_p, vec_p,  # y, mean, rstd
        ctypes.c_uint, ev_list, ctypes.POINTER(ctypes.c_void_p),
    ]
    lib.clnorm_layer_norm_forward.restype = c_status
    lib.clnorm_layer_norm_backward.argtypes = [
        ctx_p, ctypes.c_size_t, ctypes.c_size_t,
        mat_p, mat_p, vec_p,  # dy, x, weight
        vec_p, vec_p,  # mean, rstd
        mat_p,  # dresidual
        mat_p, vec_p, vec_p,  # dx, dweight, dbias
        ctypes.c_uint, ev_list, ctypes.POINTER(ctypes.c_void_p),
    ]
    lib.clnorm_layer_norm_backward.restype = c_status
    return lib


def load():
    """The loaded library (ctypes.CDLL), loading it on first use. Raises OSError when not found."""
    global _lib, _path
    with _lock:
        if _lib is not None:
            return _lib
        env = os.environ.get(ENV_VAR)
        if env:
            path = env
            if os.path.isdir(path):
                path = os.path.join(path, "libclnorm.so")
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                raise OSError(f"clnorm: {ENV_VAR}={env!r} cannot be loaded: {e}") from None
            _lib, _path = _declare(lib), path
            return _lib
        errors = []
        for how, path in _candidates():
            if os.sep in path and not os.path.exists(path):
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                errors.append(f"{path} ({how}): {e}")
                continue
            if not hasattr(lib, "clnorm_layer_norm_forward"):
                errors.append(f"{path} ({how}): not a clnorm library")
                continue
            _lib, _path = _declare(lib), path
            return _lib
        detail = "; ".join(errors) if errors else "no candidate found"
        raise OSError(
            f"clnorm: libclnorm.so not found ({detail}). Set {ENV_VAR} to the library's path "
            "(e.g. build/libclnorm.so), install it where the dynamic loader finds it, or build it in "
            "the repository's build/ directory.")


def path():
    """Path (or name) the library was loaded from; loads it if needed."""
    load()
    return _path
