/* LayerNorm in float64 on the CPU: the expected values of every device result.
 * All matrices are dense rows x cols arrays of the values actually stored in the device buffers
 * (already rounded to their dtype); weight, bias, dweight, dbias have cols elements, mean and
 * rstd rows elements. A NULL weight means 1, a NULL bias 0, a NULL dresidual 0. */
#ifndef CLNORM_TEST_REFERENCE_H
#define CLNORM_TEST_REFERENCE_H

#include <stddef.h>

/* mean (two passes), biased variance, rstd = 1/sqrt(var + eps), y = (x - mean) * rstd * w + b.
 * y, mean, rstd may each be NULL. */
void ref_forward(size_t rows, size_t cols, double eps, const double *x, const double *w, const double *b,
                 double *y, double *mean, double *rstd);

/* xhat = (x - mean) * rstd, g = dy * w,
 * dx = rstd * (g - mean_c(g) - xhat * mean_c(g * xhat)) + dres  (the residual added in float64
 * after the backward, i.e. "backward without residual, then add dres"),
 * dw = sum_rows(dy * xhat), db = sum_rows(dy) (zeros when rows == 0).
 * mean and rstd are the fp32 values the device is given. dx, dw, db may each be NULL. */
void ref_backward(size_t rows, size_t cols, const double *dy, const double *x, const double *w,
                  const double *mean, const double *rstd, const double *dres,
                  double *dx, double *dw, double *db);

#endif
