"""float64 references and tolerances for the tests (independent of the package's own helpers)."""
import numpy as np

F32, BF16, F16 = "f32", "bf16", "f16"


def bf16_round(v):
    """float64 values -> the nearest bf16 values (round half to even), as float64. Normal range only."""
    v = np.asarray(v, dtype=np.float64)
    m, e = np.frexp(v)                    # v = m * 2**e, 0.5 <= |m| < 1
    q = np.ldexp(np.round(np.ldexp(m, 8)), e - 8)  # 8 significant bits; np.round: half to even
    return np.where(v == 0, v, q)


def to_bits(v64):
    """bf16-representable float64 values -> uint16 bit patterns."""
    return (np.asarray(v64, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def from_bits(u16):
    return (np.asarray(u16, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def store(v64, dtype):
    """What the device holds for float64 values v64 stored as dtype: (host array, exact float64 values)."""
    if dtype == F32:
        a = v64.astype(np.float32)
        return a, a.astype(np.float64)
    if dtype == F16:
        a = v64.astype(np.float16)
        return a, a.astype(np.float64)
    r = bf16_round(v64)
    return to_bits(r), r


def load(a, dtype):
    a = np.asarray(a)
    return from_bits(a) if dtype == BF16 else a.astype(np.float64)


def forward(x, w, b, eps):
    mean = x.mean(axis=1)
    var = ((x - mean[:, None]) ** 2).mean(axis=1)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x - mean[:, None]) * rstd[:, None]
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y, mean, rstd


def backward(dy, x, w, mean, rstd, dres):
    xhat = (x - mean[:, None]) * rstd[:, None]
    g = dy * w if w is not None else dy
    dx = rstd[:, None] * (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True))
    if dres is not None:
        dx = dx + dres
    # scale of the terms, for absolute tolerances
    dx_scale = rstd[:, None] * np.abs(g).max(axis=1, keepdims=True) * 4 + (np.abs(dres) if dres is not None else 0)
    return dx, (dy * xhat).sum(axis=0), dy.sum(axis=0), dx_scale, np.abs(dy * xhat).sum(axis=0), np.abs(dy).sum(axis=0)


RTOL = {F32: 2e-6, F16: 2.0**-11, BF16: 2.0**-8}


def assert_close(got, ref, dtype, scale, what, atol_factor=2e-5):
    """got (as stored, dtype) against float64 ref: within half an ulp of the stored type plus an
    fp32-rounding allowance of atol_factor * scale (scale: the size of the terms behind ref)."""
    g = load(got, dtype)
    tol = RTOL[dtype] * np.abs(ref) * 1.001 + atol_factor * np.asarray(scale) + 1e-30
    err = np.abs(g - ref)
    bad = ~(err <= tol)
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, err / tol, 0)), np.shape(err))
        raise AssertionError(f"{what} ({dtype}): {int(bad.sum())} of {bad.size} values off; worst at {i}: "
                             f"got {g[i]!r}, expected {ref[i]!r} (tolerance {tol[i]:.3g})")
