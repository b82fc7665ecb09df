import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest

import clnorm
from clnorm_ref import BF16, F16, F32, assert_close, forward, load, store

EPS = 1e-5


def make_inputs(rng, rows, cols, dtype, affine=True, wdtype=F32):
    x_host, x = store(rng.standard_normal((rows, cols)) * 3 + 0.5, dtype)
    if not affine:
        return x_host, x, None, None, None, None
    w_host, w = store(rng.standard_normal(cols), wdtype)
    b_host, b = store(rng.standard_normal(cols), wdtype)
    return x_host, x, w_host, w, b_host, b


def check_forward(y, mean, rstd, x, w, b, dtype, eps=EPS):
    ry, rm, rr = forward(x, w, b, eps)
    scale = np.abs(x).max() * rr.max() * (np.abs(w).max() if w is not None else 1) + (
        np.abs(b).max() if b is not None else 0)
    assert_close(y, ry, dtype, scale, "y")
    if mean is not None:
        assert mean.dtype == np.float32
        assert_close(mean, rm, F32, np.abs(x).max(), "mean")
    if rstd is not None:
        assert_close(rstd, rr, F32, rr, "rstd")


@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 33), (64, 256), (5, 1000)])
@pytest.mark.parametrize("affine", [True, False])
def test_numpy_f32(queue, rng, rows, cols, affine):
    x_host, x, w_host, w, b_host, b = make_inputs(rng, rows, cols, F32, affine)
    r = clnorm.layer_norm_forward(queue, x_host, w_host, b_host, eps=EPS)
    assert isinstance(r.y, np.ndarray) and r.y.dtype == np.float32 and r.y.shape == (rows, cols)
    assert r.mean.shape == (rows,) and r.rstd.shape == (rows,)
    y, mean, rstd = r  # unpacks like a tuple
    check_forward(y, mean, rstd, x, w, b, F32)


@pytest.mark.parametrize("dtype", [BF16, F16])
def test_numpy_16bit(queue, rng, dtype):
    x_host, x, w_host, w, b_host, b = make_inputs(rng, 40, 384, dtype)
    y, mean, rstd = clnorm.layer_norm_forward(queue, x_host, w_host, b_host, eps=EPS, dtype=dtype)
    assert y.dtype == x_host.dtype
    check_forward(y, mean, rstd, x, w, b, dtype)


def test_numpy_bf16_weights_and_output_dtypes(queue, rng):
    """Every tensor has its own dtype: bf16 x and weights, f32 output given by the caller."""
    x_host, x, w_host, w, b_host, b = make_inputs(rng, 9, 130, BF16, wdtype=BF16)
    out = np.full((9, 130), np.nan, np.float32)
    r = clnorm.layer_norm_forward(queue, x_host, w_host, b_host, out=out, dtype="bf16")
    assert r.y is out
    check_forward(out, r.mean, r.rstd, x, w, b, F32)


def test_numpy_outputs_given_and_skipped(queue, rng):
    x_host, x, w_host, w, b_host, b = make_inputs(rng, 6, 100, F32)
    mean = np.full(6, np.nan, np.float32)
    r = clnorm.layer_norm_forward(queue, x_host, w_host, b_host, mean=mean, rstd=False)
    assert r.mean is mean and r.rstd is None
    check_forward(r.y, mean, None, x, w, b, F32)


def test_numpy_in_place(queue, rng):
    x_host, x, w_host, w, b_host, b = make_inputs(rng, 5, 64, F32)
    r = clnorm.layer_norm_forward(queue, x_host, w_host, b_host, out=x_host)
    assert r.y is x_host
    check_forward(x_host, r.mean, r.rstd, x, w, b, F32)


def test_numpy_strided_host_views(queue, rng):
    """numpy views (padded rows) in and out: copied densely, written back into the view only."""
    rows, cols, ld = 7, 50, 64
    big_x = rng.standard_normal((rows, ld)).astype(np.float32)
    big_y = np.full((rows, ld), -7.0, np.float32)
    r = clnorm.layer_norm_forward(queue, big_x[:, :cols], out=big_y[:, 3:3 + cols], mean=False, rstd=False)
    check_forward(big_y[:, 3:3 + cols], None, None, big_x[:, :cols].astype(np.float64), None, None, F32)
    assert (big_y[:, :3] == -7).all() and (big_y[:, 3 + cols:] == -7).all()
    assert r.mean is None and r.rstd is None


def padded(queue, host, ld, fill, col0=0):
    """host placed at column col0 of a (rows, ld) array filled with fill, on the device:
    (host copy of the big array, device big array, device view of host's shape)."""
    rows, cols = host.shape
    big_host = np.full((rows, ld), fill, dtype=host.dtype)
    big_host[:, col0:col0 + cols] = host
    big = cl_array.to_device(queue, big_host)
    return big_host, big, big[:, col0:col0 + cols]


def bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32}[a.itemsize])


@pytest.mark.parametrize("dtype", [F32, BF16])
def test_device_padded_views(queue, rng, dtype):
    rows, cols = 33, 200
    x_host, x, w_host, w, b_host, b = make_inputs(rng, rows, cols, dtype)
    poison = np.uint16(0x7FC1) if dtype == BF16 else np.float32(np.nan)
    bx_host, big_x, vx = padded(queue, x_host, 256, poison)
    by_host, big_y, vy = padded(queue, np.zeros_like(x_host), 211, poison, col0=5)  # other stride and offset
    assert vx.strides[0] == 256 * x_host.itemsize and vy.offset == 5 * x_host.itemsize
    wd, bd = cl_array.to_device(queue, w_host), cl_array.to_device(queue, b_host)
    r = clnorm.layer_norm_forward(queue, vx, wd, bd, eps=EPS, out=vy, dtype=dtype)
    assert r.y is vy and isinstance(r.mean, cl_array.Array) and r.mean.dtype == np.float32
    assert r.event is not None and r.event in vy.events
    queue.finish()
    y_all = big_y.get()
    check_forward(y_all[:, 5:5 + cols], r.mean.get(), r.rstd.get(), x, w, b, dtype)
    by_host[:, 5:5 + cols] = y_all[:, 5:5 + cols]
    assert (bits(y_all) == bits(by_host)).all(), "padding of y was written"
    assert (bits(big_x.get()) == bits(bx_host)).all(), "x was written"


def test_device_allocates_outputs_and_in_place(queue, rng):
    x_host, x, w_host, w, b_host, b = make_inputs(rng, 12, 96, F32)
    xd = cl_array.to_device(queue, x_host)
    y, mean, rstd = clnorm.layer_norm_forward(queue, xd, cl_array.to_device(queue, w_host),
                                              cl_array.to_device(queue, b_host))
    assert isinstance(y, cl_array.Array) and y.shape == (12, 96) and y.dtype == np.float32
    check_forward(y.get(), mean.get(), rstd.get(), x, w, b, F32)
    r = clnorm.layer_norm_forward(queue, xd, out=xd, mean=False, rstd=False)  # y = x, in place
    assert r.y is xd
    check_forward(xd.get(), None, None, x, None, None, F32)


def test_buffers_and_views(queue, context, rng):
    """Raw Buffers: x and y in one buffer at element offsets, mean and rstd in another."""
    rows, cols, ld = 10, 48, 56
    x_host, x, w_host, w, b_host, b = make_inputs(rng, rows, cols, BF16)
    mf = cl.mem_flags
    data = np.full(2 * rows * ld + 8, 0x7FC1, np.uint16)
    data[3:3 + rows * ld].reshape(rows, ld)[:, :cols] = x_host
    buf = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
    wb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=w_host)
    bb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b_host)
    stats = cl.Buffer(context, mf.READ_WRITE, 4 * 2 * rows)
    y_off = 3 + rows * ld
    r = clnorm.layer_norm_forward(
        queue, clnorm.View(buf, offset=3, row_stride=ld), clnorm.View(wb, dtype="f32"), clnorm.View(bb, dtype="f32"),
        out=clnorm.View(buf, offset=y_off, row_stride=ld), mean=clnorm.View(stats), rstd=clnorm.View(stats, rows),
        shape=(rows, cols), dtype="bf16")
    r.event.wait()
    out = np.empty_like(data)
    cl.enqueue_copy(queue, out, buf)
    st = np.empty(2 * rows, np.float32)
    cl.enqueue_copy(queue, st, stats)
    check_forward(out[y_off:y_off + rows * ld].reshape(rows, ld)[:, :cols], st[:rows], st[rows:], x, w, b, BF16)
    untouched = np.ones(out.size, bool)
    untouched[y_off:y_off + rows * ld].reshape(rows, ld)[:, :cols] = False
    untouched[3:3 + rows * ld].reshape(rows, ld)[:, :cols] = False
    assert (out[untouched] == 0x7FC1).all()


def aligned_host(nbytes, skew):
    """A uint8 array of nbytes starting skew bytes past a 4096-byte boundary (kept alive by its base)."""
    base = np.zeros(nbytes + skew + 4096, np.uint8)
    start = (-base.ctypes.data) % 4096 + skew
    return base[start:start + nbytes]


@pytest.mark.parametrize("skew", [4, 36])
def test_use_host_ptr_at_a_skew(queue, context, rng, skew):
    """Buffers in the caller's memory (USE_HOST_PTR) at 4-byte but not 64-byte alignment: a CPU
    device works in that memory, and the library must count the skew in its vector width."""
    rows, cols = 64, 1024
    x_host, x, w_host, w, b_host, b = make_inputs(rng, rows, cols, F32)
    mf = cl.mem_flags
    xm = aligned_host(x_host.nbytes, skew)
    xm[:] = x_host.view(np.uint8).ravel()
    ym = aligned_host(x_host.nbytes, 2 * skew)
    ym[:] = 0xFF
    xb = cl.Buffer(context, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=xm)
    yb = cl.Buffer(context, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=ym)
    wb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=w_host)
    bb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b_host)
    r = clnorm.layer_norm_forward(queue, clnorm.View(xb), clnorm.View(wb), clnorm.View(bb), out=clnorm.View(yb),
                                  mean=False, rstd=False, shape=(rows, cols))
    r.event.wait()
    y = np.empty((rows, cols), np.float32)
    cl.enqueue_copy(queue, y, yb)
    check_forward(y, None, None, x, w, b, F32)


def test_use_host_ptr_not_element_aligned(queue, context):
    mf = cl.mem_flags
    xm = aligned_host(4 * 64, 2)
    xb = cl.Buffer(context, mf.READ_WRITE | mf.USE_HOST_PTR, hostbuf=xm)
    with pytest.raises(clnorm.ClnormError) as info:
        clnorm.layer_norm_forward(queue, clnorm.View(xb), shape=(4, 16))
    assert info.value.name == "CLNORM_MISALIGNED_HOST_PTR" and "2 bytes past" in info.value.message


def test_rows_zero(queue):
    r = clnorm.layer_norm_forward(queue, np.zeros((0, 16), np.float32), np.ones(16, np.float32))
    assert r.y.shape == (0, 16) and r.mean.shape == (0,)
    d = clnorm.layer_norm_forward(queue, cl_array.empty(queue, (0, 16), np.float32))
    assert d.y.shape == (0, 16)
    d.event.wait()


def test_eps(queue, rng):
    x_host = rng.standard_normal((4, 32)).astype(np.float32) * 1e-3
    for eps in (0.0, 1e-5, 0.5):
        y, mean, rstd = clnorm.layer_norm_forward(queue, x_host, eps=eps)
        check_forward(y, mean, rstd, x_host.astype(np.float64), None, None, F32, eps=eps)


def test_out_of_order_queue(context, rng):
    """Forward then backward on an out-of-order queue: ordered only by the Arrays' events."""
    props = cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
    try:
        q = cl.CommandQueue(context, properties=props)
    except cl.Error as e:
        pytest.skip(f"no out-of-order queue on this device: {e}")
    x_host, x, w_host, w, b_host, b = make_inputs(rng, 20, 128, F32)
    xd = cl_array.to_device(q, x_host)
    wd = cl_array.to_device(q, w_host)
    y, mean, rstd = clnorm.layer_norm_forward(q, xd, wd)
    dy_host = rng.standard_normal((20, 128)).astype(np.float32)
    dx, dw, db = clnorm.layer_norm_backward(q, cl_array.to_device(q, dy_host), xd, mean, rstd, wd)
    rm, rr = load(mean.get(), F32), load(rstd.get(), F32)
    check_forward(y.get(), mean.get(), rstd.get(), x, w, None, F32)
    from clnorm_ref import backward
    rdx, rdw, rdb, sdx, sdw, sdb = backward(dy_host.astype(np.float64), x, w, rm, rr, None)
    assert_close(dx.get(), rdx, F32, sdx, "dx")
    assert_close(dw.get(), rdw, F32, sdw, "dweight")
    assert_close(db.get(), rdb, F32, sdb, "dbias")
    q.finish()
    clnorm.release_context(q)


def test_memory_pool_arrays(queue, rng):
    """Arrays from a pyopencl.tools.MemoryPool (PooledBuffer); outputs come from the same pool."""
    import pyopencl.tools as cl_tools
    pool = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(queue))
    x_host, x, w_host, w, b_host, b = make_inputs(rng, 8, 96, F32)
    xd = cl_array.to_device(queue, x_host, allocator=pool)
    y, mean, rstd = clnorm.layer_norm_forward(queue, xd, cl_array.to_device(queue, w_host, allocator=pool),
                                              cl_array.to_device(queue, b_host, allocator=pool))
    assert y.allocator is pool and mean.allocator is pool
    check_forward(y.get(), mean.get(), rstd.get(), x, w, b, F32)
    r = clnorm.layer_norm_forward(queue, clnorm.View(xd.base_data), shape=(8, 96), mean=False, rstd=False)
    check_forward(r.y.get(), None, None, x, None, None, F32)


def test_bf16_view_allocates_bf16_outputs(queue, context, rng):
    """A View's own dtype is enough: outputs allocated for a bf16 View are bf16 (uint16) Arrays,
    with no dtype argument to the call."""
    rows, cols = 6, 80
    x_host, x, w_host, w, b_host, b = make_inputs(rng, rows, cols, BF16, wdtype=BF16)
    mf = cl.mem_flags
    xb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x_host)
    wb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=w_host)
    bb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b_host)
    y, mean, rstd = clnorm.layer_norm_forward(queue, clnorm.View(xb, dtype="bf16"), clnorm.View(wb, dtype="bf16"),
                                              clnorm.View(bb, dtype="bf16"), shape=(rows, cols))
    assert isinstance(y, cl_array.Array) and y.dtype == np.uint16 and y.shape == (rows, cols)
    assert mean.dtype == rstd.dtype == np.float32
    check_forward(y.get(), mean.get(), rstd.get(), x, w, b, BF16)
