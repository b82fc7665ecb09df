/* clnorm-bench — float64 reference LayerNorm on the host, one row at a time, used to check the
 * device results of the benchmarked calls. The formulas are the ones clnorm.h documents. */
#ifndef CLNORM_BENCH_REFERENCE_H
#define CLNORM_BENCH_REFERENCE_H

#include <clnorm.h>
#include <stddef.h>

/* Forward of one row: y = (x - mean) * rstd * w + b, biased variance, rstd = 1/sqrt(var + eps).
 * w, b may be NULL (1 and 0). *scale receives max_c(|xhat*w| + |b|): the magnitude the fp32
 * error of the device result is relative to. */
void ref_forward_row(size_t cols, double eps, const double *x, const double *w, const double *b,
    double *y, double *mean, double *rstd, double *scale);

/* dx of one row given the saved mean and rstd (the device's own float values, so the backward is
 * checked independently of the forward): dx = rstd*(g - mean(g) - xhat*mean(g*xhat)), g = dy*w
 * (dy when w is NULL). *scale receives the largest term magnitude rstd*(|g|+|mean g|+|xhat*mean(g*xhat)|). */
void ref_backward_row(size_t cols, const double *dy, const double *x, const double *w, double mean,
    double rstd, double *dx, double *scale);

/* dweight = sum_rows(dy*xhat), dbias = sum_rows(dy) over the whole tensors (dense, host storage
 * in dtype dt), with the device's per-row mean/rstd. abs_dw/abs_db receive the sums of the
 * absolute terms, the scale of fp32 summation error. Returns 0, or -1 on allocation failure. */
int ref_param_grads(size_t rows, size_t cols, clnorm_dtype dt, const void *x, const void *dy,
    const float *mean, const float *rstd, double *dw, double *db, double *abs_dw, double *abs_db);

#endif
