"""LayerNorm forward and backward on a PyOpenCL queue, through libclnorm (ctypes)."""

import atexit
import collections
import ctypes
import operator
import re
import threading

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array

from . import _library

F32, BF16, F16 = 0, 1, 2
_NAMES = {F32: "f32", BF16: "bf16", F16: "f16"}
_HOST_DTYPE = {F32: np.dtype(np.float32), BF16: np.dtype(np.uint16), F16: np.dtype(np.float16)}
_SPELLINGS = {
    "f32": F32, "fp32": F32, "float32": F32, "float": F32,
    "bf16": BF16, "bfloat16": BF16,
    "f16": F16, "fp16": F16, "float16": F16, "half": F16,
}


class ClnormError(RuntimeError):
    """A clnorm call returned a status other than CLNORM_SUCCESS.

    status:      the clnorm_status (int): a library code (<= -10000) or an OpenCL error code.
    name:        its name, e.g. "CLNORM_INVALID_SHAPE" or "CL_OUT_OF_RESOURCES"
                 (clnorm_status_string up to the first ": ").
    description: the status's generic description ("" for OpenCL codes).
    message:     clnorm_context_last_error: the one-line explanation of this failure.
    function:    the C function that failed.
    """

    def __init__(self, status, name, description, message, function):
        self.status = status
        self.name = name
        self.description = description
        self.message = message
        self.function = function
        super().__init__(f"{function}: {name}: {message or description}")


def _raise_status(lib, status, ctx_ptr, function, rename=None):
    full = (lib.clnorm_status_string(status) or b"").decode("utf-8", "replace")
    name, _, description = full.partition(": ")
    message = (lib.clnorm_context_last_error(ctx_ptr) or b"").decode("utf-8", "replace")
    if rename:
        message = rename(message)
    raise ClnormError(status, name, description, message, function)


_WAIT_ENTRY = re.compile(r"event_wait_list\[(\d+)\]")


def _wait_list_namer(n_array_events):
    """The C library names an entry of the wait list it was given: the Array arguments' events
    first, then wait_for. Say which of the caller's that was."""
    def name(m):
        i = int(m.group(1))
        if i < n_array_events:
            return f"an Array argument's event (event_wait_list[{i}])"
        return f"wait_for[{i - n_array_events}]"
    return lambda message: _WAIT_ENTRY.sub(name, message)


# ---- one clnorm context per queue ------------------------------------------------------------

class _Context:
    __slots__ = ("ptr", "queue", "dummy")

    def __init__(self, ptr, queue, dummy):
        self.ptr = ptr        # clnorm_context *
        self.queue = queue    # the pyopencl queue (kept for finish() at release)
        self.dummy = dummy    # a small buffer standing in for empty tensors (no size-0 buffers in OpenCL)


_contexts = {}  # queue.int_ptr -> _Context
_contexts_lock = threading.Lock()
_atexit_registered = False


def _context(queue):
    global _atexit_registered
    key = queue.int_ptr
    with _contexts_lock:
        c = _contexts.get(key)
        if c is not None:
            return c
        lib = _library.load()
        ptr = ctypes.c_void_p()
        status = lib.clnorm_context_create_from_queue(ctypes.c_void_p(key), ctypes.byref(ptr))
        if status != _library.SUCCESS:
            _raise_status(lib, status, None, "clnorm_context_create_from_queue")
        c = _Context(ptr.value, queue, cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 64))
        _contexts[key] = c
        if not _atexit_registered:
            atexit.register(release_contexts)
            _atexit_registered = True
        return c


def _release(c):
    try:
        c.queue.finish()  # nothing of ours may still run when the context goes (PoCL crashes at exit otherwise)
    except cl.Error:
        pass
    c.dummy.release()
    _library.load().clnorm_context_release(c.ptr)


def release_context(queue):
    """Finishes queue and releases the clnorm context cached for it (if any). The next call on
    that queue creates a new one. Returns True if there was one."""
    with _contexts_lock:
        c = _contexts.pop(queue.int_ptr, None)
    if c is None:
        return False
    _release(c)
    return True


def release_contexts():
    """Finishes the queues of all cached clnorm contexts and releases the contexts (run at exit)."""
    with _contexts_lock:
        items = list(_contexts.values())
        _contexts.clear()
    for c in items:
        _release(c)


def device_name(queue):
    """Name of the device clnorm runs on for this queue (creates the cached context if needed)."""
    c = _context(queue)
    return _library.load().clnorm_context_device_name(c.ptr).decode("utf-8", "replace")


def select_device(spec=None):
    """The pyopencl.Device that clnorm_context_create(spec) would use (clnorm_select_device).

    spec None: the CLNORM_DEVICE environment variable, else the default policy (first GPU of any
    platform, else first accelerator, else first CPU); "": the default policy alone; otherwise
    a device spec such as "gpu", "cpu", "pocl", "nvidia", "0:1" (see include/clnorm.h).
    No match raises ClnormError CLNORM_DEVICE_NOT_FOUND whose message lists the devices."""
    lib = _library.load()
    platform, device = ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.clnorm_select_device(None if spec is None else spec.encode(), ctypes.byref(platform),
                                      ctypes.byref(device))
    if status != _library.SUCCESS:
        _raise_status(lib, status, None, "clnorm_select_device")
    return cl.Device.from_int_ptr(device.value)


def library_version():
    """Version of the loaded libclnorm, "major.minor.patch"."""
    v = _library.load().clnorm_version()
    return f"{v // 10000}.{v // 100 % 100}.{v % 100}"


def library_path():
    """Where libclnorm was loaded from (see the search order in clnorm._library)."""
    return _library.path()


# ---- bf16 on the host --------------------------------------------------------------------------

def float_to_bf16(a):
    """float32 values -> bf16 bit patterns (uint16), rounding to nearest even; NaN stays NaN."""
    f = np.ascontiguousarray(a, dtype=np.float32)
    u = f.view(np.uint32)
    rounded = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    quiet_nan = (u >> np.uint32(16)) | np.uint32(0x0040)
    return np.where(np.isnan(f), quiet_nan, rounded).astype(np.uint16)


def bf16_to_float(a):
    """bf16 bit patterns (uint16) -> float32 (exact)."""
    u = np.ascontiguousarray(a, dtype=np.uint16).astype(np.uint32) << np.uint32(16)
    return u.view(np.float32)


# ---- arguments -----------------------------------------------------------------------------------

_SIZE_LIMIT = 1 << 64


def _size(value, what):
    """A size, offset or stride for the C library's size_t: a whole number (int or numpy integer;
    not a float, whose fraction int() would drop) in 0 .. 2**64 - 1 (ctypes would wrap a larger one
    modulo 2**64 without a word)."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__} ({value!r})") from None
    if v < 0:
        raise ValueError(f"{what} = {v} must be >= 0")
    if v >= _SIZE_LIMIT:
        raise ValueError(f"{what} = {v} does not fit the C library's size_t (64 bits)")
    return v


class View:
    """A tensor in a raw pyopencl Buffer: element offset, row stride in elements (matrices; 0 means
    dense, i.e. cols) and storage dtype ("f32", "bf16", "f16"; None: the call's dtype argument,
    or f32 for mean and rstd). A plain Buffer passed to a function means View(buffer)."""

    __slots__ = ("buffer", "offset", "row_stride", "dtype")

    def __init__(self, buffer, offset=0, row_stride=0, dtype=None):
        if not isinstance(buffer, cl.MemoryObjectHolder):
            raise TypeError(f"View: buffer must be a pyopencl.Buffer, not {type(buffer).__name__}")
        self.buffer = buffer
        self.offset = _size(offset, "View: offset")
        self.row_stride = _size(row_stride, "View: row_stride")
        self.dtype = None if dtype is None else _dtype_code(dtype, "View")

    def __repr__(self):
        dt = "None" if self.dtype is None else repr(_NAMES[self.dtype])
        return f"clnorm.View(<Buffer {self.buffer.int_ptr:#x}>, offset={self.offset}, row_stride={self.row_stride}, dtype={dt})"


def _dtype_code(spec, where="dtype"):
    if spec is None:
        return None
    if isinstance(spec, str):
        code = _SPELLINGS.get(spec.lower())
        if code is None:
            raise ValueError(f"{where}: unknown dtype {spec!r} (use 'f32', 'bf16' or 'f16')")
        return code
    dt = np.dtype(spec)
    if dt == np.float32:
        return F32
    if dt == np.float16:
        return F16
    if dt.name == "bfloat16" and dt.itemsize == 2:
        return BF16
    raise ValueError(f"{where}: unsupported dtype {dt} (use 'f32', 'bf16' or 'f16')")


def _array_code(arr, name, call_code):
    """Storage dtype of a numpy / PyOpenCL array argument."""
    dt = np.dtype(arr.dtype)
    if dt == np.float32:
        return F32
    if dt == np.float16:
        return F16
    if dt == np.uint16:
        if call_code == BF16:
            return BF16
        raise TypeError(f"{name}: uint16 arrays carry bf16 data: pass dtype='bf16'")
    if dt.name == "bfloat16" and dt.itemsize == 2:  # e.g. ml_dtypes.bfloat16 (numpy inputs)
        return BF16
    raise TypeError(f"{name}: unsupported array dtype {dt} (float32, float16, or uint16 with dtype='bf16')")


def _is_device(obj):
    # MemoryObjectHolder: Buffer, and the PooledBuffer of pyopencl.tools.MemoryPool
    return isinstance(obj, (cl_array.Array, cl.MemoryObjectHolder, View))


_ForwardBase = collections.namedtuple("ForwardResult", "y mean rstd")
_BackwardBase = collections.namedtuple("BackwardResult", "dx dweight dbias")


class ForwardResult(_ForwardBase):
    """(y, mean, rstd); .event is the pyopencl Event of the call's last command."""
    event = None


class BackwardResult(_BackwardBase):
    """(dx, dweight, dbias); .event is the pyopencl Event of the call's last command."""
    event = None


class _Call:
    """Turns the Python arguments of one call into clnorm_matrix / clnorm_vector structures.

    Device mode: PyOpenCL Arrays, Buffers and Views are used in place; missing outputs are
    allocated as PyOpenCL Arrays. Host mode: numpy inputs are copied into temporary buffers,
    outputs computed into temporary buffers and copied back after the call has finished."""

    def __init__(self, queue, function, dtype, args):
        if not hasattr(queue, "int_ptr") or not hasattr(queue, "context"):
            raise TypeError(f"{function}: queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
        self.queue = queue
        self.function = function
        self.call_code = _dtype_code(dtype)
        self.ctx = _context(queue)
        kinds = {("numpy" if isinstance(v, np.ndarray) else "device" if _is_device(v) else "other")
                 for v in args.values() if v is not None and v is not False}
        for name, v in args.items():
            if v is not None and v is not False and not isinstance(v, np.ndarray) and not _is_device(v):
                raise TypeError(f"{function}: {name} must be a numpy array, a pyopencl Array, Buffer or "
                                f"clnorm.View, not {type(v).__name__}")
        if kinds == {"numpy", "device"}:
            raise TypeError(f"{function}: mix of numpy arrays and device objects; pass all tensors as numpy "
                            "arrays (copied to the device and back) or all as device objects")
        self.host = kinds == {"numpy"}
        # outputs are allocated like the first Array argument (e.g. from its memory pool)
        self.allocator = next((v.allocator for v in args.values() if isinstance(v, cl_array.Array)), None)
        self.keep = []          # temporaries that must outlive the call
        self.wait = []          # events of PyOpenCL Array arguments
        self.device_outputs = []  # PyOpenCL Arrays written by the call (they get its event)
        self.copy_back = []     # (device buffer, host result array, user array or None)

    # -- shapes --
    def shape(self, candidates, shape):
        for name, a in candidates:
            if isinstance(a, (np.ndarray, cl_array.Array)):
                if a.ndim != 2:
                    raise ValueError(f"{self.function}: {name} must be 2-D (rows, cols), not of shape {a.shape}")
                if shape is not None and tuple(shape) != tuple(a.shape):
                    raise ValueError(f"{self.function}: shape={tuple(shape)} but {name}.shape = {a.shape}")
                return int(a.shape[0]), int(a.shape[1])
        if shape is None:
            raise ValueError(f"{self.function}: with Buffers or Views, pass shape=(rows, cols)")
        shape = tuple(shape)  # (an iterator is read once)
        if len(shape) != 2:
            raise ValueError(f"{self.function}: shape={shape} must be (rows, cols)")
        rows, cols = (_size(s, f"{self.function}: shape={shape}: each entry") for s in shape)
        return rows, cols

    def _check_shape(self, name, a, want):
        if tuple(a.shape) != want:
            raise ValueError(f"{self.function}: {name} has shape {tuple(a.shape)}, expected {want}")

    def _struct(self, matrix, mem, offset, row_stride, code):
        if matrix:
            return _library.Matrix(mem, offset, row_stride, code)
        return _library.Vector(mem, offset, code)

    # -- one argument --
    def arg(self, name, obj, dims, matrix, stats=False, output=False, default_code=None):
        """dims: (rows, cols) or (n,). Returns (struct or None, the object to return)."""
        if (obj is None and not output) or obj is False:
            return None, None
        allocated = None  # the storage code of an output allocated here (a uint16 array is bf16 then)
        if obj is None:  # an output to allocate
            code = allocated = F32 if stats else default_code
            dtype = _HOST_DTYPE[code]
            if self.host:
                result = np.empty(dims, dtype)
                mem = self._host_buffer(result.nbytes, None)
                self.copy_back.append((mem, result, None))
                return self._struct(matrix, mem.int_ptr if mem is not None else self.ctx.dummy.int_ptr,
                                    0, 0, code), result
            obj = cl_array.empty(self.queue, dims, dtype, allocator=self.allocator)
        if isinstance(obj, np.ndarray):
            self._check_shape(name, obj, dims)
            code = _array_code(obj, name, self.call_code)
            if output:
                result = np.empty(dims, obj.dtype)
                mem = self._host_buffer(result.nbytes, None)
                self.copy_back.append((mem, result, obj))
            else:
                src = np.ascontiguousarray(obj)
                mem = self._host_buffer(src.nbytes, src)
            return self._struct(matrix, mem.int_ptr if mem is not None else self.ctx.dummy.int_ptr,
                                0, 0, code), obj
        if isinstance(obj, cl_array.Array):
            self._check_shape(name, obj, dims)
            # (allocated: its code is the one it was made for, whatever the call's dtype argument)
            code = allocated if allocated is not None else _array_code(obj, name, self.call_code)
            item = obj.dtype.itemsize
            if obj.offset % item:
                raise ValueError(f"{self.function}: {name}.offset = {obj.offset} bytes is not a multiple of "
                                 f"the element size {item}")
            row_stride = 0
            if matrix:
                rows, cols = dims
                if cols > 1 and obj.strides[1] != item:
                    raise ValueError(f"{self.function}: {name} must have unit column stride "
                                     f"(strides {obj.strides} for {item}-byte elements)")
                if rows > 1:
                    if obj.strides[0] % item or obj.strides[0] < 0:
                        raise ValueError(f"{self.function}: {name}.strides[0] = {obj.strides[0]} is not a "
                                         f"non-negative multiple of the element size {item}")
                    if obj.strides[0] == 0:
                        # the C library reads row stride 0 as "dense" (cols), not as one row repeated
                        raise ValueError(f"{self.function}: {name}.strides[0] = 0 (a broadcast row) is not "
                                         f"supported: pass the rows as a real array")
                    row_stride = obj.strides[0] // item
            elif dims[0] > 1 and obj.strides[0] != item:
                raise ValueError(f"{self.function}: {name} must be contiguous (strides {obj.strides})")
            self.wait.extend(obj.events)
            if output:
                self.device_outputs.append(obj)
            mem = obj.base_data if obj.base_data is not None else self.ctx.dummy
            return self._struct(matrix, mem.int_ptr, obj.offset // item, row_stride, code), obj
        if isinstance(obj, cl.MemoryObjectHolder):
            obj_view = View(obj)
        else:
            obj_view = obj
        code = obj_view.dtype
        if code is None:
            code = F32 if stats else (self.call_code if self.call_code is not None else F32)
        if matrix:
            return self._struct(True, obj_view.buffer.int_ptr, obj_view.offset, obj_view.row_stride, code), obj
        if obj_view.row_stride:
            raise ValueError(f"{self.function}: {name} is a vector: its View has no row_stride")
        return self._struct(False, obj_view.buffer.int_ptr, obj_view.offset, 0, code), obj

    def _host_buffer(self, nbytes, src):
        if nbytes == 0:
            return None
        mf = cl.mem_flags
        if src is None:
            buf = cl.Buffer(self.queue.context, mf.READ_WRITE, nbytes)
        else:
            buf = cl.Buffer(self.queue.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=src)
        self.keep.append(buf)
        return buf

    # -- the C call --
    def run(self, cfunc, *args, wait_for=None):
        events = list(self.wait) + list(wait_for or [])
        n = len(events)
        wait_list = (ctypes.c_void_p * n)(*[e.int_ptr for e in events]) if n else None
        ev = ctypes.c_void_p()
        lib = _library.load()
        status = cfunc(self.ctx.ptr, *args, n, wait_list, ctypes.byref(ev))
        if status != _library.SUCCESS:
            _raise_status(lib, status, self.ctx.ptr, cfunc.__name__, _wait_list_namer(len(self.wait)))
        event = cl.Event.from_int_ptr(ev.value, retain=False)
        if self.host:
            for mem, result, _ in self.copy_back:
                if mem is not None:
                    cl.enqueue_copy(self.queue, result, mem, wait_for=[event], is_blocking=True)
            event.wait()
            for _, result, user in self.copy_back:
                if user is not None:
                    np.copyto(user, result)
        else:
            for a in self.device_outputs:
                a.add_event(event)
        return event


def _ptr(struct):
    return None if struct is None else ctypes.byref(struct)


def layer_norm_forward(queue, x, weight=None, bias=None, eps=1e-5, out=None, mean=None, rstd=None, *,
                       dtype=None, shape=None, wait_for=None):
    """y = (x - mean) * rstd * weight + bias over the rows of x (rows, cols), on queue.

    x, out: (rows, cols); weight, bias: (cols,); mean, rstd: (rows,) float32.
    Tensors are either all numpy arrays (copied to the device and back; the call waits and
    returns numpy arrays, filling the given outputs in place) or all device objects: PyOpenCL
    Arrays (2-D with unit column stride; padded views such as big[:, :cols] are fine), Buffers
    or clnorm.View (then shape=(rows, cols) is needed when x is not an Array). A device call
    returns once enqueued; its event is added to the output Arrays' .events and returned as
    result.event. The events of Array arguments and wait_for are waited for.

    out None: allocated with x's dtype (out may be x: in place). mean/rstd None: allocated
    (float32); False: not computed (None is returned in their place).
    dtype: the storage type of uint16 arrays (must be "bf16") and of Buffers/Views without one
    ("f32" when not given); float32 and float16 arrays speak for themselves.
    Returns ForwardResult(y, mean, rstd). Raises ClnormError for a status from the library."""
    eps32 = ctypes.c_float(eps)
    if eps != 0 and eps32.value == 0:
        # the C library takes a float: an eps below float32's range would become (-)0 and pass its
        # check (checked before any argument is converted or copied)
        raise ValueError(f"layer_norm_forward: eps = {eps!r} " +
                         ("rounds to 0 in float32" if eps > 0 else "must be >= 0"))
    call = _Call(queue, "layer_norm_forward", dtype,
                 {"x": x, "weight": weight, "bias": bias, "out": out, "mean": mean, "rstd": rstd})
    rows, cols = call.shape([("x", x), ("out", out)], shape)
    sx, _ = call.arg("x", x, (rows, cols), True)
    sw, _ = call.arg("weight", weight, (cols,), False)
    sb, _ = call.arg("bias", bias, (cols,), False)
    sy, out_obj = call.arg("out", out, (rows, cols), True, output=True, default_code=sx.dtype)
    sm, mean_obj = call.arg("mean", mean, (rows,), False, stats=True, output=True)
    sr, rstd_obj = call.arg("rstd", rstd, (rows,), False, stats=True, output=True)
    lib = _library.load()
    event = call.run(lib.clnorm_layer_norm_forward, rows, cols, eps32,
                     _ptr(sx), _ptr(sw), _ptr(sb), _ptr(sy), _ptr(sm), _ptr(sr), wait_for=wait_for)
    result = ForwardResult(out_obj, mean_obj, rstd_obj)
    result.event = event
    return result


def layer_norm_backward(queue, dy, x, mean, rstd, weight=None, dresidual=None, dx=None, dweight=None,
                        dbias=None, *, dtype=None, shape=None, wait_for=None):
    """dx = LayerNorm'(dy) [+ dresidual], dweight = sum_rows(dy * xhat), dbias = sum_rows(dy).

    dy, x, dresidual, dx: (rows, cols); mean, rstd: (rows,) float32 as the forward saved them;
    weight, dweight, dbias: (cols,). Same argument conventions as layer_norm_forward.
    dx None: allocated with x's dtype (dx may be dresidual: accumulation in place).
    dweight/dbias None: allocated with weight's dtype (float32 without weight); False: not
    computed. Returns BackwardResult(dx, dweight, dbias)."""
    call = _Call(queue, "layer_norm_backward", dtype,
                 {"dy": dy, "x": x, "mean": mean, "rstd": rstd, "weight": weight, "dresidual": dresidual,
                  "dx": dx, "dweight": dweight, "dbias": dbias})
    rows, cols = call.shape([("dy", dy), ("x", x), ("dx", dx)], shape)
    sdy, _ = call.arg("dy", dy, (rows, cols), True)
    sx, _ = call.arg("x", x, (rows, cols), True)
    sw, _ = call.arg("weight", weight, (cols,), False)
    sm, _ = call.arg("mean", mean, (rows,), False, stats=True)
    sr, _ = call.arg("rstd", rstd, (rows,), False, stats=True)
    sdr, _ = call.arg("dresidual", dresidual, (rows, cols), True)
    sdx, dx_obj = call.arg("dx", dx, (rows, cols), True, output=True, default_code=sx.dtype)
    grad_code = sw.dtype if sw is not None else F32
    sdw, dw_obj = call.arg("dweight", dweight, (cols,), False, output=True, default_code=grad_code)
    sdb, db_obj = call.arg("dbias", dbias, (cols,), False, output=True, default_code=grad_code)
    lib = _library.load()
    event = call.run(lib.clnorm_layer_norm_backward, rows, cols, _ptr(sdy), _ptr(sx), _ptr(sw), _ptr(sm),
                     _ptr(sr), _ptr(sdr), _ptr(sdx), _ptr(sdw), _ptr(sdb), wait_for=wait_for)
    result = BackwardResult(dx_obj, dw_obj, db_obj)
    result.event = event
    return result
