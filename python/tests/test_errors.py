"""Status codes of the C library surface as ClnormError with the status, its name and the
library's one-line message; outputs are left untouched. Python-side misuse raises TypeError or
ValueError before anything reaches the library."""
import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

import clnorm

# include/clnorm.h
CODES = {
    "CLNORM_NULL_ARGUMENT": -10001, "CLNORM_INVALID_SHAPE": -10003, "CLNORM_INVALID_STRIDE": -10004,
    "CLNORM_OUT_OF_BOUNDS": -10005, "CLNORM_INVALID_STATS_DTYPE": -10006, "CLNORM_INVALID_EPS": -10008,
    "CLNORM_OVERLAP": -10009, "CLNORM_DEVICE_NOT_FOUND": -10010, "CLNORM_INVALID_BUFFER": -10013,
}


def expect(name, fn, *args, match=None, **kwargs):
    with pytest.raises(clnorm.ClnormError) as info:
        fn(*args, **kwargs)
    e = info.value
    assert e.name == name and e.status == CODES[name], (e.name, e.status)
    assert e.message and e.description, "message (last error) and description must not be empty"
    assert name in str(e) and e.message in str(e)
    if match:
        assert match in e.message, e.message
    return e


def test_cols_zero(queue):
    x = np.zeros((4, 0), np.float32)
    e = expect("CLNORM_INVALID_SHAPE", clnorm.layer_norm_forward, queue, x, match="cols = 0")
    assert e.function == "clnorm_layer_norm_forward"
    z = np.zeros(4, np.float32)
    expect("CLNORM_INVALID_SHAPE", clnorm.layer_norm_backward, queue, x, x, z, z)


@pytest.mark.parametrize("eps", [-1e-5, float("nan"), float("inf"), 1e39])  # 1e39 is inf in float32
def test_bad_eps(queue, eps):
    expect("CLNORM_INVALID_EPS", clnorm.layer_norm_forward, queue, np.ones((2, 8), np.float32), eps=eps)


def test_outputs_untouched_on_error(queue):
    out = np.full((3, 8), 5.0, np.float32)
    mean = np.full(3, 6.0, np.float32)
    expect("CLNORM_INVALID_EPS", clnorm.layer_norm_forward, queue, np.ones((3, 8), np.float32), eps=-1.0,
           out=out, mean=mean)
    assert (out == 5).all() and (mean == 6).all()
    yd = cl_array.to_device(queue, out)
    expect("CLNORM_INVALID_EPS", clnorm.layer_norm_forward, queue, cl_array.to_device(queue, out), eps=-1.0, out=yd)
    assert (yd.get() == 5).all()


def test_missing_statistics(queue):
    x = np.ones((2, 8), np.float32)
    expect("CLNORM_NULL_ARGUMENT", clnorm.layer_norm_backward, queue, x, x, None, np.ones(2, np.float32),
           match="mean")


def test_stats_dtype(queue):
    x = cl_array.to_device(queue, np.ones((2, 8), np.float32))
    expect("CLNORM_INVALID_STATS_DTYPE", clnorm.layer_norm_forward, queue, x,
           mean=cl_array.empty(queue, 2, np.float16))


def test_views_in_one_buffer(queue, context):
    """Overlap, bounds and stride errors come from the library's own checks of Views."""
    buf = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 100)
    shape = dict(shape=(4, 10))
    expect("CLNORM_OVERLAP", clnorm.layer_norm_forward, queue, clnorm.View(buf), out=clnorm.View(buf, offset=5),
           mean=False, rstd=False, **shape)
    expect("CLNORM_OUT_OF_BOUNDS", clnorm.layer_norm_forward, queue, clnorm.View(buf, offset=61),
           out=clnorm.View(buf, 0), mean=False, rstd=False, **shape)
    expect("CLNORM_INVALID_STRIDE", clnorm.layer_norm_forward, queue, clnorm.View(buf, row_stride=9),
           mean=False, rstd=False, **shape)
    # the exact same view is allowed: in place
    r = clnorm.layer_norm_forward(queue, clnorm.View(buf), out=clnorm.View(buf), mean=False, rstd=False, **shape)
    r.event.wait()


def test_buffer_of_another_context(queue, device):
    other = cl.Context([device])
    x = cl_array.to_device(cl.CommandQueue(other), np.ones((2, 8), np.float32))
    expect("CLNORM_INVALID_BUFFER", clnorm.layer_norm_forward, queue, x, match="another cl_context")


def test_wait_for_entry_named_in_the_callers_terms(queue, device):
    # the C library sees the Array arguments' events first, then wait_for: its message names the
    # entry of wait_for (or the Array's event) the caller gave, not an index into the merged list
    x = cl_array.to_device(queue, np.random.default_rng(7).standard_normal((2, 8)).astype(np.float32))
    x.add_event(cl.enqueue_marker(queue))
    foreign = cl.enqueue_marker(cl.CommandQueue(cl.Context([device])))
    with pytest.raises(clnorm.ClnormError) as info:
        clnorm.layer_norm_forward(queue, x, wait_for=[cl.enqueue_marker(queue), foreign])
    e = info.value
    assert e.name == "CL_INVALID_CONTEXT" and e.status == -34, (e.name, e.status)
    assert "wait_for[1] belongs to another cl_context" in e.message, e.message
    assert "event_wait_list" not in e.message, e.message


def test_device_not_found():
    e = expect("CLNORM_DEVICE_NOT_FOUND", clnorm.select_device, "no-such-device-xyz")
    assert e.function == "clnorm_select_device"


def test_python_side_errors(queue):
    x16 = np.zeros((2, 8), np.uint16)
    with pytest.raises(TypeError, match="dtype='bf16'"):
        clnorm.layer_norm_forward(queue, x16)
    with pytest.raises(TypeError, match="unsupported"):
        clnorm.layer_norm_forward(queue, np.zeros((2, 8)))  # float64
    with pytest.raises(TypeError, match="mix"):
        clnorm.layer_norm_forward(queue, np.zeros((2, 8), np.float32),
                                  out=cl_array.empty(queue, (2, 8), np.float32))
    xd = cl_array.to_device(queue, np.zeros((8, 8), np.float32))
    with pytest.raises(ValueError, match="unit column stride"):
        clnorm.layer_norm_forward(queue, xd.T)
    with pytest.raises(ValueError, match="shape"):
        clnorm.layer_norm_forward(queue, xd, cl_array.empty(queue, 7, np.float32))
    with pytest.raises(ValueError, match="2-D"):
        clnorm.layer_norm_forward(queue, np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="shape=\\(rows, cols\\)"):
        clnorm.layer_norm_forward(queue, xd.base_data)
    with pytest.raises(ValueError, match="unknown dtype"):
        clnorm.layer_norm_forward(queue, xd, dtype="f64")
    with pytest.raises(TypeError, match="CommandQueue"):
        clnorm.layer_norm_forward(None, xd)


def test_sizes_checked_before_the_library(queue, context):
    """Sizes reach the C library's size_t whole or not at all: ctypes would wrap 2**64 + 8 to 8,
    int() would cut 4.5 to 4, and a row stride of 0 means "dense" there, not one row repeated."""
    buf = cl.Buffer(context, cl.mem_flags.READ_WRITE, 4 * 8 * 4)
    with pytest.raises(ValueError, match="size_t"):
        clnorm.View(buf, offset=2**64 + 8)
    with pytest.raises(ValueError, match="size_t"):
        clnorm.View(buf, row_stride=2**65)
    with pytest.raises(ValueError, match=">= 0"):
        clnorm.View(buf, offset=-1)
    with pytest.raises(TypeError, match="integer"):
        clnorm.View(buf, offset=1.5)
    assert clnorm.View(buf, offset=np.int64(3)).offset == 3
    with pytest.raises(ValueError, match="size_t"):
        clnorm.layer_norm_forward(queue, buf, shape=(2**64 + 4, 8))
    with pytest.raises(TypeError, match="integer"):
        clnorm.layer_norm_forward(queue, buf, shape=(4.5, 8))
    with pytest.raises(ValueError, match=r"\(rows, cols\)"):
        clnorm.layer_norm_forward(queue, buf, shape=(4, 8, 1))
    broadcast = cl_array.Array(queue, (4, 8), np.float32, strides=(0, 4), data=buf)
    with pytest.raises(ValueError, match="broadcast"):
        clnorm.layer_norm_forward(queue, broadcast)
    with pytest.raises(ValueError, match="rounds to 0"):
        clnorm.layer_norm_forward(queue, np.ones((2, 8), np.float32), eps=1e-50)
    with pytest.raises(ValueError, match=">= 0"):
        clnorm.layer_norm_forward(queue, np.ones((2, 8), np.float32), eps=-1e-50)  # -0 in float32
    r = clnorm.layer_norm_forward(queue, np.ones((2, 8), np.float32), shape=iter((2, 8)))  # read once
    assert r.y.shape == (2, 8)
