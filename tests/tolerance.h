/* Error bounds for comparing device results with the float64 reference (see tolerance.c for the
 * reasoning). A bound is per element: tol_* arrays have the shape of the output they bound. */
#ifndef CLNORM_TEST_TOLERANCE_H
#define CLNORM_TEST_TOLERANCE_H

#include <clnorm.h>
#include <stddef.h>

/* Relative error allowed to fp32 math, about 84 fp32 epsilons (2^-23 = 1.19e-7). */
#define TOL_REL 1e-5
/* Absolute floor, only so that a bound is never exactly 0 (e.g. dbias of rows == 0). */
#define TOL_FLOOR 1e-30

/* Bounds of the forward's y, mean and rstd (any may be NULL). mean/rstd: the float64 reference. */
void tol_forward(size_t rows, size_t cols, const double *x, const double *w, const double *b,
                 const double *mean, const double *rstd, double *tol_y, double *tol_mean, double *tol_rstd);

/* Bounds of the backward's dx, dw, db (any may be NULL), for the given mean/rstd. */
void tol_backward(size_t rows, size_t cols, const double *dy, const double *x, const double *w,
                  const double *mean, const double *rstd, const double *dres,
                  double *tol_dx, double *tol_dw, double *tol_db);

/* 1 when |got - ref| <= tol_f32 + half an ulp of dt at max(|got|, |ref|); NaN anywhere gives 0. */
int tol_within(clnorm_dtype dt, double got, double ref, double tol_f32);

#endif
