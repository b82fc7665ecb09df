/*
 * How close a device result must be to the float64 reference.
 *
 * The library computes in fp32 and rounds once to the output dtype. So every bound has two parts:
 *
 *  1. the fp32 part, TOL_REL (1e-5, ~84 fp32 epsilons) times the magnitude of the terms the result
 *     is computed from. That leaves room for any summation order (sequential chunks, trees,
 *     16-lane accumulators) yet catches real bugs: a wrong or missing term (a missing residual, a
 *     dropped or doubled element) changes the result by O(1) of these magnitudes, and the
 *     one-pass variance E[x^2] - E[x]^2 on rows with mean 1e4 and std 1 loses all its digits
 *     (rstd must be within 1e-5 relative, and y with it).
 *
 *  2. the storage part, half an ulp of the output dtype (tol_within). The device rounds its fp32
 *     result y32 once, to nearest: |got - y32| <= ulp(y32)/2, and ulp(y32) <= ulp(got) because
 *     rounding is monotonic and binade boundaries are representable. So a correct output obeys
 *     |got - ref| <= ulp(max(|got|, |ref|))/2 + (fp32 part): stricter than "within one ulp of
 *     the correctly rounded value" (which it implies) and tight enough to reject truncation
 *     instead of round-to-nearest-even. The fp32 part matters for bf16/f16 only next to zero,
 *     where the ulp gets smaller than fp32's error on the row's scale. For F32 outputs the half
 *     ulp is ~6e-8 relative and changes nothing.
 *
 * Magnitudes used by the fp32 part:
 *  - mean: max_c |x|. An fp32 sum of n values is off by a few epsilons of the largest partial
 *    sums, i.e. of max |x| per element, not of the (possibly tiny) mean itself.
 *  - rstd: rstd itself (two-pass variance: the squares are positive, no cancellation), plus the
 *    bias the mean's error d adds to a two-pass variance: sum((x - mean - d)^2)/n = var + d^2,
 *    i.e. rstd * (rstd * d)^2 / 2 with d = TOL_REL * max|x|. Negligible for ordinary rows
 *    (d * rstd ~ 1e-4), it is 5e-3 relative on rows with mean 1e4 and std 1, where a plain fp32
 *    sum of 70000 elements may legitimately be off by 1e-2; the one-pass E[x^2] - E[x]^2 is off
 *    there by far more (its fp32 E[x^2] ~ 1e8 has an ulp of 8, the variance is 1).
 *  - y = (x - mean) * rstd * w + b: the mean's error (on the scale of max |x|) times rstd * |w|,
 *    plus |x - mean| * rstd * |w| for the products, plus |b|. The max |x| term is what makes rows
 *    with a large mean and a small spread (mean 1e4, std 1) legitimately less accurate in y.
 *  - dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) + dres: mean and rstd are given exactly,
 *    and x - mean is one correctly rounded fp32 subtraction (relative error <= 2^-24), so xhat
 *    is accurate relative to itself. The terms are rstd*|g|, rstd*mean|g|,
 *    rstd*|xhat|*mean|g*xhat| and |dres|.
 *  - dw = sum_rows(dy * xhat), db = sum_rows(dy): the sums of the absolute values of the terms.
 */
#include "tolerance.h"

#include "dtype.h"

#include <math.h>

void tol_forward(size_t rows, size_t cols, const double *x, const double *w, const double *b,
                 const double *mean, const double *rstd, double *tol_y, double *tol_mean, double *tol_rstd)
{
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols;
        double maxabs = 0.0;
        for (size_t c = 0; c < cols; c++)
            maxabs = fmax(maxabs, fabs(xr[c]));
        if (tol_mean)
            tol_mean[r] = TOL_REL * maxabs + TOL_FLOOR;
        if (tol_rstd) {
            double d = TOL_REL * maxabs * rstd[r];
            tol_rstd[r] = (TOL_REL + 0.5 * d * d) * rstd[r] + TOL_FLOOR;
        }
        if (tol_y)
            for (size_t c = 0; c < cols; c++) {
                double aw = w ? fabs(w[c]) : 1.0, ab = b ? fabs(b[c]) : 0.0;
                double t = rstd[r] * aw * (maxabs + fabs(xr[c] - mean[r])) + ab;
                tol_y[r * cols + c] = TOL_REL * t + TOL_FLOOR;
            }
    }
}

void tol_backward(size_t rows, size_t cols, const double *dy, const double *x, const double *w,
                  const double *mean, const double *rstd, const double *dres,
                  double *tol_dx, double *tol_dw, double *tol_db)
{
    for (size_t c = 0; c < cols; c++) {
        if (tol_dw)
            tol_dw[c] = 0.0;
        if (tol_db)
            tol_db[c] = 0.0;
    }
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * cols, *dyr = dy + r * cols;
        double rs = fabs(rstd[r]); /* a magnitude (the fuzzer also feeds negative rstd) */
        double sum_g = 0.0, sum_gx = 0.0;
        for (size_t c = 0; c < cols; c++) {
            double axhat = fabs((xr[c] - mean[r]) * rs);
            double ag = fabs(dyr[c] * (w ? w[c] : 1.0));
            sum_g += ag;
            sum_gx += ag * axhat;
            if (tol_dw)
                tol_dw[c] += fabs(dyr[c]) * axhat;
            if (tol_db)
                tol_db[c] += fabs(dyr[c]);
        }
        if (tol_dx) {
            double mg = sum_g / (double)cols, mgx = sum_gx / (double)cols;
            for (size_t c = 0; c < cols; c++) {
                double axhat = fabs((xr[c] - mean[r]) * rs);
                double ag = fabs(dyr[c] * (w ? w[c] : 1.0));
                double t = rs * (ag + mg + axhat * mgx) + (dres ? fabs(dres[r * cols + c]) : 0.0);
                tol_dx[r * cols + c] = TOL_REL * t + TOL_FLOOR;
            }
        }
    }
    for (size_t c = 0; c < cols; c++) {
        if (tol_dw)
            tol_dw[c] = TOL_REL * tol_dw[c] + TOL_FLOOR;
        if (tol_db)
            tol_db[c] = TOL_REL * tol_db[c] + TOL_FLOOR;
    }
}

int tol_within(clnorm_dtype dt, double got, double ref, double tol_f32)
{
    double err = fabs(got - ref);
    double tol = tol_f32 + 0.5 * dtype_ulp(dt, fmax(fabs(got), fabs(ref)));
    return err <= tol; /* false whenever got, ref or tol is NaN (fmax ignores one NaN: err is NaN then) */
}
