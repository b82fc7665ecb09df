import numpy as np
import pyopencl as cl
import clnorm

device = clnorm.select_device()  # as the C library picks: CLNORM_DEVICE, else the first GPU, else a CPU
queue = cl.CommandQueue(cl.Context([device]))
rng = np.random.default_rng(0)
x, dy, dres = (rng.standard_normal((64, 768)).astype(np.float32) for _ in range(3))
w, b = (rng.standard_normal(768).astype(np.float32) for _ in range(2))

y, mean, rstd = clnorm.layer_norm_forward(queue, x, w, b, eps=1e-5)  # numpy in, numpy out
dx, dw, db = clnorm.layer_norm_backward(queue, dy, x, mean, rstd, w, dresidual=dres)

x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
r = 1 / np.sqrt(x64.var(1, keepdims=True) + 1e-5)
xhat, g = (x64 - x64.mean(1, keepdims=True)) * r, dy64 * w
ref_dx = r * (g - g.mean(1, keepdims=True) - xhat * (g * xhat).mean(1, keepdims=True)) + dres
print(f"{device.name}: max |y - ref| = {np.abs(y - (xhat * w + b)).max():.2e}, "
      f"max |dx - ref| = {np.abs(dx - ref_dx).max():.2e}, max |dw - ref| = {np.abs(dw - (dy64 * xhat).sum(0)).max():.2e}")
