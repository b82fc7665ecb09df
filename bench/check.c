/* clnorm-bench — tolerance checks against the reference. */
#include "check.h"

#include "reference.h"

#include "dtype.h"

#include <math.h>
#include <stdio.h>

long check_values(check_stats *cs, const char *label, size_t index, clnorm_dtype dt, size_t n, const double *got,
    const double *ref, const double *aux, double ulps, double aux_ulps, double abs_tol)
{
    long failed = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        double tol = ulps * dtype_ulp(dt, ref[i]) + abs_tol;
        double err = fabs(got[i] - ref[i]);
        if (aux)
            tol += aux_ulps * dtype_ulp(dt, aux[i]);
        /* Written so that NaN (in got or ref) fails. */
        if (!(err <= tol)) {
            if (cs->op_reports++ < CHECK_MAX_REPORTS)
                fprintf(stderr, "MISMATCH %s [%zu][%zu]: got %.9g, want %.9g (error %.3g > tolerance %.3g)\n", label,
                    index, i, got[i], ref[i], err, tol);
            ++failed;
        } else if (tol > 0 && err / tol > cs->worst) {
            cs->worst = err / tol;
            snprintf(cs->worst_at, sizeof cs->worst_at, "%.120s [%zu][%zu]", label, index, i);
        }
    }
    cs->values += (long)n;
    cs->failures += failed;
    cs->op_failures += failed;
    return failed;
}

void check_fail(check_stats *cs, const char *message)
{
    fprintf(stderr, "MISMATCH %s\n", message);
    cs->failures += 1;
    cs->op_failures += 1;
    cs->op_reports += 1;
}

void check_begin(check_stats *cs)
{
    cs->op_failures = 0;
    cs->op_reports = 0;
}

void check_end(check_stats *cs, const char *what)
{
    if (cs->op_failures > 0)
        fprintf(stderr, "MISMATCH %s: %ld check(s) failed in all\n", what, cs->op_failures);
}

void check_forward_row(check_stats *cs, const char *what, size_t r, clnorm_dtype dt, size_t cols, double eps,
    const double *x, const double *w, const double *b, const double *y_got, double mean_got, double rstd_got,
    double *ref)
{
    char label[256];
    double m, s, scale, xmax = 0.0;
    size_t c;
    ref_forward_row(cols, eps, x, w, b, ref, &m, &s, &scale);
    snprintf(label, sizeof label, "%s y", what);
    check_values(cs, label, r, dt, cols, y_got, ref, NULL, CHECK_STORE_ULPS, 0.0, CHECK_MATH_REL * scale);
    for (c = 0; c < cols; ++c)
        xmax = fmax(xmax, fabs(x[c]));
    /* the mean's error scales with the inputs' magnitude, rstd's with itself */
    snprintf(label, sizeof label, "%s mean", what);
    check_values(cs, label, r, CLNORM_F32, 1, &mean_got, &m, NULL, CHECK_STORE_ULPS, 0.0, CHECK_MATH_REL * xmax);
    snprintf(label, sizeof label, "%s rstd", what);
    check_values(cs, label, r, CLNORM_F32, 1, &rstd_got, &s, NULL, CHECK_STORE_ULPS, 0.0, CHECK_MATH_REL * s);
}
