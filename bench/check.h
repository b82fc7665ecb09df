/* clnorm-bench — comparison of device results with the float64 reference, with tolerances that
 * model the two error sources of the library: fp32 math (relative to the magnitude of the terms
 * of a row) and the final rounding to the storage dtype (in ulps of the stored value). */
#ifndef CLNORM_BENCH_CHECK_H
#define CLNORM_BENCH_CHECK_H

#include <clnorm.h>
#include <stddef.h>

/* fp32 math error allowed, relative to the row's term magnitude (reference.h's "scale"). The
 * library's fp32 two-pass math lands around 2e-7 of it (PoCL, cols up to 16384); a real bug shows
 * up far above (eps 2e-5 instead of 1e-5 already fails by 3x). */
#define CHECK_MATH_REL 1e-5
/* Rounding of the stored result: the library rounds once (0.5 ulp); 2 ulps leave room for a
 * reference that sits on the other side of a rounding boundary. */
#define CHECK_STORE_ULPS 2.0
/* dweight/dbias: fp32 summation over all rows, relative to the sum of the absolute terms (the
 * natural scale of summation error: the sums themselves cancel heavily). Measured on PoCL about
 * 1.5e-8; a lost or doubled block of rows is far above. */
#define CHECK_SUM_REL 1e-6
/* Mismatch lines printed per op before going quiet (a systematic error fails every value). */
#define CHECK_MAX_REPORTS 5

typedef struct check_stats {
    long values;       /* values compared */
    long failures;     /* values out of tolerance (and other failed checks) */
    double worst;      /* largest error / tolerance seen (1 = at the limit) */
    char worst_at[160]; /* where it was seen: label [index][element] */
    long op_failures;  /* since check_begin */
    int op_reports;    /* mismatch lines printed since check_begin */
} check_stats;

/* Brackets the checks of one op: check_end prints how many values failed in all. */
void check_begin(check_stats *cs);
void check_end(check_stats *cs, const char *what);

/* Compares got[i] with ref[i] for i < n. Tolerance of element i:
 *   ulps * ulp(dt, ref[i]) + aux_ulps * ulp(dt, aux[i]) + abs_tol
 * (aux may be NULL: an intermediate value that was rounded to dt too, e.g. the unfused dx).
 * NaN never passes. label and index describe where the values come from in mismatch lines.
 * Returns the number of failures. */
long check_values(check_stats *cs, const char *label, size_t index, clnorm_dtype dt, size_t n, const double *got,
    const double *ref, const double *aux, double ulps, double aux_ulps, double abs_tol);

/* One forward row r against reference.c's float64 forward, with the tolerances above: y (dtype dt)
 * and the fp32 mean and rstd it saved. x holds the row's inputs, y_got the row as computed (both as
 * doubles), w and b the parameters as reference.h takes them; ref is cols doubles of scratch.
 * what names the op and case in mismatch lines (e.g. "forward f32 512x768"). */
void check_forward_row(check_stats *cs, const char *what, size_t r, clnorm_dtype dt, size_t cols, double eps,
    const double *x, const double *w, const double *b, const double *y_got, double mean_got, double rstd_got,
    double *ref);

/* Records a failed check that is not a value comparison (e.g. non-reproducible sums). */
void check_fail(check_stats *cs, const char *message);

#endif
