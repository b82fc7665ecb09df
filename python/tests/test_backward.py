import numpy as np
import pyopencl.array as cl_array
import pytest

import clnorm
from clnorm_ref import BF16, F16, F32, assert_close, backward, forward, load, store


def problem(rng, rows, cols, dtype, weight=True, residual=True, wdtype=F32):
    """Inputs as the device holds them: dict name -> (host array, float64 values)."""
    p = {}
    p["x"] = store(rng.standard_normal((rows, cols)) * 2 - 0.3, dtype)
    p["dy"] = store(rng.standard_normal((rows, cols)), dtype)
    p["w"] = store(rng.standard_normal(cols) + 1, wdtype) if weight else (None, None)
    p["dres"] = store(rng.standard_normal((rows, cols)), dtype) if residual else (None, None)
    _, mean, rstd = forward(p["x"][1], None, None, 1e-5)
    p["mean"] = store(mean, F32)
    p["rstd"] = store(rstd, F32)
    return p


def check(p, dx, dw, db, dtype, wdtype=F32):
    rdx, rdw, rdb, sdx, sdw, sdb = backward(p["dy"][1], p["x"][1], p["w"][1], p["mean"][1], p["rstd"][1],
                                             p["dres"][1])
    assert_close(dx, rdx, dtype, sdx, "dx")
    if dw is not None:
        assert_close(dw, rdw, wdtype, sdw, "dweight")
    if db is not None:
        assert_close(db, rdb, wdtype, sdb, "dbias")


def h(p, name):
    return p[name][0]


@pytest.mark.parametrize("rows,cols", [(1, 1), (9, 33), (70, 256), (4, 1000)])
@pytest.mark.parametrize("residual", [False, True])
def test_numpy_f32(queue, rng, rows, cols, residual):
    p = problem(rng, rows, cols, F32, residual=residual)
    r = clnorm.layer_norm_backward(queue, h(p, "dy"), h(p, "x"), h(p, "mean"), h(p, "rstd"), h(p, "w"),
                                   dresidual=h(p, "dres"))
    dx, dw, db = r
    assert dx.shape == (rows, cols) and dw.shape == (cols,) and db.shape == (cols,)
    assert dx.dtype == dw.dtype == db.dtype == np.float32
    check(p, dx, dw, db, F32)


def test_numpy_no_weight(queue, rng):
    p = problem(rng, 11, 77, F32, weight=False, residual=False)
    dx, dw, db = clnorm.layer_norm_backward(queue, h(p, "dy"), h(p, "x"), h(p, "mean"), h(p, "rstd"))
    assert dw.dtype == np.float32  # dweight is computed without weight too
    check(p, dx, dw, db, F32)


@pytest.mark.parametrize("dtype", [BF16, F16])
def test_numpy_16bit_residual(queue, rng, dtype):
    p = problem(rng, 48, 384, dtype)
    dx, dw, db = clnorm.layer_norm_backward(queue, h(p, "dy"), h(p, "x"), h(p, "mean"), h(p, "rstd"), h(p, "w"),
                                            dresidual=h(p, "dres"), dtype=dtype)
    assert dx.dtype == h(p, "x").dtype
    check(p, dx, dw, db, dtype)


def test_numpy_bf16_weight_gives_bf16_grads(queue, rng):
    p = problem(rng, 16, 64, BF16, wdtype=BF16)
    dx, dw, db = clnorm.layer_norm_backward(queue, h(p, "dy"), h(p, "x"), h(p, "mean"), h(p, "rstd"), h(p, "w"),
                                            dtype="bf16")
    assert dw.dtype == db.dtype == np.uint16
    p["dres"] = (None, None)
    check(p, dx, dw, db, BF16, wdtype=BF16)


def test_numpy_residual_accumulated_in_place(queue, rng):
    p = problem(rng, 8, 200, F32)
    acc = h(p, "dres").copy()
    r = clnorm.layer_norm_backward(queue, h(p, "dy"), h(p, "x"), h(p, "mean"), h(p, "rstd"), h(p, "w"),
                                   dresidual=acc, dx=acc, dweight=False, dbias=False)
    assert r.dx is acc and r.dweight is None and r.dbias is None
    check(p, acc, None, None, F32)


def padded(queue, host, ld, fill, col0=0):
    rows, cols = host.shape
    big_host = np.full((rows, ld), fill, dtype=host.dtype)
    big_host[:, col0:col0 + cols] = host
    big = cl_array.to_device(queue, big_host)
    return big_host, big, big[:, col0:col0 + cols]


def bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32}[a.itemsize])


@pytest.mark.parametrize("dtype", [F32, BF16])
@pytest.mark.parametrize("in_place", [False, True])
def test_device_padded_views_residual(queue, rng, dtype, in_place):
    """dy, x, dresidual, dx each a padded view with its own row stride and offset; with in_place,
    dx is exactly the dresidual view (accumulation)."""
    rows, cols = 37, 160
    p = problem(rng, rows, cols, dtype)
    poison = np.uint16(0x7FC1) if dtype == BF16 else np.float32(np.nan)
    _, _, dy = padded(queue, h(p, "dy"), 192, poison, 16)
    _, _, x = padded(queue, h(p, "x"), 161, poison)
    dr_host, dr_big, dres = padded(queue, h(p, "dres"), 170, poison, 7)
    if in_place:
        dx_host, dx_big, dx = dr_host, dr_big, dres
    else:
        dx_host, dx_big, dx = padded(queue, np.zeros_like(h(p, "x")), 175, poison, 9)
    mean, rstd, w = (cl_array.to_device(queue, h(p, k)) for k in ("mean", "rstd", "w"))
    dw = cl_array.zeros(queue, cols, np.float32)
    r = clnorm.layer_norm_backward(queue, dy, x, mean, rstd, w, dresidual=dres, dx=dx, dweight=dw,
                                   dtype=dtype)
    assert r.dx is dx and r.dweight is dw and isinstance(r.dbias, cl_array.Array)
    queue.finish()
    out = dx_big.get()
    c0 = dx.offset // dx.dtype.itemsize
    check(p, out[:, c0:c0 + cols], dw.get(), r.dbias.get(), dtype)
    dx_host[:, c0:c0 + cols] = out[:, c0:c0 + cols]
    assert (bits(out) == bits(dx_host)).all(), "padding of dx was written"
    if not in_place:
        assert (bits(dr_big.get()) == bits(dr_host)).all(), "dresidual was written"


def test_device_forward_then_backward(queue, rng):
    """The usual chain on device Arrays: the forward's mean and rstd feed the backward."""
    rows, cols = 24, 512
    x_host = rng.standard_normal((rows, cols)).astype(np.float32)
    w_host = rng.standard_normal(cols).astype(np.float32)
    dy_host = rng.standard_normal((rows, cols)).astype(np.float32)
    x, w = cl_array.to_device(queue, x_host), cl_array.to_device(queue, w_host)
    y, mean, rstd = clnorm.layer_norm_forward(queue, x, w)
    dx, dw, db = clnorm.layer_norm_backward(queue, cl_array.to_device(queue, dy_host), x, mean, rstd, w,
                                            dresidual=y)  # any (rows, cols) tensor will do as residual
    p = {"x": (x_host, x_host.astype(np.float64)), "dy": (dy_host, dy_host.astype(np.float64)),
         "w": (w_host, w_host.astype(np.float64)), "mean": (None, load(mean.get(), F32)),
         "rstd": (None, load(rstd.get(), F32)), "dres": (None, load(y.get(), F32))}
    check(p, dx.get(), dw.get(), db.get(), F32)


def test_rows_zero_gives_zero_gradients(queue):
    z = np.zeros((0, 40), np.float32)
    e = np.zeros(0, np.float32)
    dw_poison = np.full(40, np.nan, np.float32)
    dx, dw, db = clnorm.layer_norm_backward(queue, z, z, e, e, np.ones(40, np.float32), dweight=dw_poison)
    assert dx.shape == (0, 40) and dw is dw_poison
    assert (dw == 0).all() and (db == 0).all()


def test_bf16_views_allocate_bf16_grads(queue, context, rng):
    """bf16 Views without a dtype argument: dx takes x's dtype, dweight / dbias the weight's (bf16),
    allocated as uint16 Arrays."""
    import pyopencl as cl

    rows, cols = 12, 72
    p = problem(rng, rows, cols, BF16, residual=False, wdtype=BF16)
    mf = cl.mem_flags

    def view(name, dtype):
        return clnorm.View(cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=h(p, name)), dtype=dtype)

    dx, dw, db = clnorm.layer_norm_backward(queue, view("dy", "bf16"), view("x", "bf16"), view("mean", "f32"),
                                            view("rstd", "f32"), view("w", "bf16"), shape=(rows, cols))
    for a, shape in ((dx, (rows, cols)), (dw, (cols,)), (db, (cols,))):
        assert isinstance(a, cl_array.Array) and a.dtype == np.uint16 and a.shape == shape
    check(p, dx.get(), dw.get(), db.get(), BF16, wdtype=BF16)
