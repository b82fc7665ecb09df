#include "reference.h"

#include <math.h>
#include <stdlib.h>

void ref_forward(size_t rows, size_t cols, double eps, const double *x, const double *w, const double *b,
                 double *y, double *mean, double *rstd)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double sum = 0.0;
        for (size_t c = 0; c < cols; c++)
            sum += xr[c];
        double m = sum / (double)cols;
        double sq = 0.0;
        for (size_t c = 0; c < cols; c++)
            sq += (xr[c] - m) * (xr[c] - m);
        double rs = 1.0 / sqrt(sq / (double)cols + eps);
        if (mean)
            mean[r] = m;
        if (rstd)
            rstd[r] = rs;
        if (y)
            for (size_t c = 0; c < cols; c++)
                y[r * cols + c] = (xr[c] - m) * rs * (w ? w[c] : 1.0) + (b ? b[c] : 0.0);
    }
}

void ref_backward(size_t rows, size_t cols, const double *dy, const double *x, const double *w,
                  const double *mean, const double *rstd, const double *dres,
                  double *dx, double *dw, double *db)
{
    for (size_t c = 0; c < cols; c++) {
        if (dw)
            dw[c] = 0.0;
        if (db)
            db[c] = 0.0;
    }
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols, *dyr = dy + r * cols;
        double m = mean[r], rs = rstd[r];
        double sum_g = 0.0, sum_gx = 0.0;
        for (size_t c = 0; c < cols; c++) {
            double xhat = (xr[c] - m) * rs;
            double g = dyr[c] * (w ? w[c] : 1.0);
            sum_g += g;
            sum_gx += g * xhat;
            if (dw)
                dw[c] += dyr[c] * xhat;
            if (db)
                db[c] += dyr[c];
        }
        double mg = sum_g / (double)cols, mgx = sum_gx / (double)cols;
        if (dx)
            for (size_t c = 0; c < cols; c++) {
                double xhat = (xr[c] - m) * rs;
                double g = dyr[c] * (w ? w[c] : 1.0);
                double v = rs * (g - mg - xhat * mgx);
                dx[r * cols + c] = v + (dres ? dres[r * cols + c] : 0.0);
            }
    }
}
