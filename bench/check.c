/* clnorm-bench — tolerance checks against the reference. */
#include "check.h"

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
