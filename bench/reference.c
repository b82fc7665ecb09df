/* clnorm-bench — float64 reference LayerNorm (forward, dx, dweight/dbias). */
#include "reference.h"

#include "dtype.h"

#include <math.h>
#include <stdlib.h>

void ref_forward_row(size_t cols, double eps, const double *x, const double *w, const double *b,
    double *y, double *mean, double *rstd, double *scale)
{
    double sum = 0.0, var = 0.0, m, r, s = 0.0;
    size_t c;
    for (c = 0; c < cols; ++c)
        sum += x[c];
    m = sum / (double)cols;
    for (c = 0; c < cols; ++c) /* two passes, like the library: no cancellation in E[x^2]-E[x]^2 */
        var += (x[c] - m) * (x[c] - m);
    var /= (double)cols;
    r = 1.0 / sqrt(var + eps);
    for (c = 0; c < cols; ++c) {
        double xhat_w = (x[c] - m) * r * (w ? w[c] : 1.0);
        double bc = b ? b[c] : 0.0;
        double mag = fabs(xhat_w) + fabs(bc);
        y[c] = xhat_w + bc;
        if (mag > s)
            s = mag;
    }
    *mean = m;
    *rstd = r;
    *scale = s;
}

void ref_backward_row(size_t cols, const double *dy, const double *x, const double *w, double mean,
    double rstd, double *dx, double *scale)
{
    double sum_g = 0.0, sum_gx = 0.0, mg, mgx, s = 0.0;
    size_t c;
    for (c = 0; c < cols; ++c) {
        double g = dy[c] * (w ? w[c] : 1.0);
        double xhat = (x[c] - mean) * rstd;
        sum_g += g;
        sum_gx += g * xhat;
    }
    mg = sum_g / (double)cols;
    mgx = sum_gx / (double)cols;
    for (c = 0; c < cols; ++c) {
        double g = dy[c] * (w ? w[c] : 1.0);
        double xhat = (x[c] - mean) * rstd;
        double mag = rstd * (fabs(g) + fabs(mg) + fabs(xhat * mgx));
        dx[c] = rstd * (g - mg - xhat * mgx);
        if (mag > s)
            s = mag;
    }
    *scale = s;
}

int ref_param_grads(size_t rows, size_t cols, clnorm_dtype dt, const void *x, const void *dy,
    const float *mean, const float *rstd, double *dw, double *db, double *abs_dw, double *abs_db)
{
    double *xr = malloc(cols * sizeof *xr);
    double *dyr = malloc(cols * sizeof *dyr);
    size_t r, c;
    if (!xr || !dyr) {
        free(xr);
        free(dyr);
        return -1;
    }
    for (c = 0; c < cols; ++c)
        dw[c] = db[c] = abs_dw[c] = abs_db[c] = 0.0;
    for (r = 0; r < rows; ++r) {
        double m = mean[r], s = rstd[r];
        dtype_load_row(dt, x, r * cols, cols, xr);
        dtype_load_row(dt, dy, r * cols, cols, dyr);
        for (c = 0; c < cols; ++c) {
            double t = dyr[c] * ((xr[c] - m) * s);
            dw[c] += t;
            abs_dw[c] += fabs(t);
            db[c] += dyr[c];
            abs_db[c] += fabs(dyr[c]);
        }
    }
    free(xr);
    free(dyr);
    return 0;
}
