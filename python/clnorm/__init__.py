"""clnorm: LayerNorm forward and backward (OpenCL) for PyOpenCL users.

A thin ctypes layer over libclnorm.so (see clnorm._library for how the library is found:
CLNORM_LIBRARY first). Every function takes the caller's pyopencl.CommandQueue; clnorm creates
one library context per queue (clnorm_context_create_from_queue), caches it, and releases it at
exit or on release_context(queue).
"""

from ._core import (
    BackwardResult,
    ClnormError,
    ForwardResult,
    View,
    bf16_to_float,
    device_name,
    float_to_bf16,
    layer_norm_backward,
    layer_norm_forward,
    library_path,
    library_version,
    release_context,
    release_contexts,
    select_device,
)

from ._version import __version__

__all__ = [
    "BackwardResult",
    "ClnormError",
    "ForwardResult",
    "View",
    "bf16_to_float",
    "device_name",
    "float_to_bf16",
    "layer_norm_backward",
    "layer_norm_forward",
    "library_path",
    "library_version",
    "release_context",
    "release_contexts",
    "select_device",
]
