/* Hostile values: NaN and Inf propagate as IEEE arithmetic says and stay where the math puts them
 * (a NaN in one row never reaches another row, nor dweight/dbias columns it does not feed);
 * eps = 0 with a constant row, and with a row whose squared deviations underflow; a row whose sum
 * of squares overflows, and one whose sums around its first element do; subnormal inputs; BF16/F16 overflow on store gives Inf.
 * Each case runs a clean call and a hostile call on the same inputs otherwise, and compares the
 * two bit for bit wherever the hostile value cannot reach. The behaviour is documented in
 * include/clnorm.h ("Special values"). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "harness.h"
#include "reference.h"

#define ROWS 9
/* 300 (75 four-element vectors: no power-of-two split); test_hostile_wide is this file built with
 * COLS 1024, where the streaming forward's one-read statistics (FWD_CHAN) can take the rows */
#ifndef COLS
#define COLS 300
#endif
/* The columns the cases put their NaN / Inf in: test_hostile_odd (COLS 303 and OC 63, rows of
 * 16-element vectors and a 15-element tail that the CPU row takes one element at a time, UNALIGNED;
 * HCOL_TAIL) moves them into that tail; test_hostile_short (COLS 16, rows the CPU row takes 4 at a
 * time) into its row the same way. */
#ifdef HCOL_TAIL
#define HCOL(c) (COLS - 15 + (c) % 15)
#else
#define HCOL(c) (c)
#endif

typedef struct run {
    float x[ROWS * COLS], dy[ROWS * COLS], dres[ROWS * COLS], w[COLS], b[COLS];
    float y[ROWS * COLS], mean[ROWS], rstd[ROWS], dx[ROWS * COLS], dw[COLS], db[COLS];
} run;

static void fill(run *r, uint64_t seed)
{
    rng g;
    rng_seed(&g, seed);
    for (int i = 0; i < ROWS * COLS; ++i) {
        r->x[i] = (float)rng_range(&g, 1.0, 3.0);
        r->dy[i] = (float)rng_normal(&g);
        r->dres[i] = (float)rng_normal(&g);
    }
    for (int c = 0; c < COLS; ++c) {
        r->w[c] = (float)rng_range(&g, 0.5, 1.5);
        r->b[c] = (float)rng_range(&g, -0.5, 0.5);
    }
}

static cl_mem upload(cl_context c, const void *p, size_t n)
{
    cl_int err;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n, (void *)p, &err);
    CL_OK(err);
    return m;
}

/* forward (weight, bias, mean, rstd), then backward with dres and dweight/dbias, all F32 dense */
static void execute(run *r, float eps)
{
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    cl_command_queue q = clnorm_context_queue(ctx);
    cl_mem x = upload(c, r->x, sizeof r->x), dy = upload(c, r->dy, sizeof r->dy), dr = upload(c, r->dres, sizeof r->dres);
    cl_mem w = upload(c, r->w, sizeof r->w), b = upload(c, r->b, sizeof r->b);
    cl_mem y = upload(c, r->y, sizeof r->y), m = upload(c, r->mean, sizeof r->mean), s = upload(c, r->rstd, sizeof r->rstd);
    cl_mem dx = upload(c, r->dx, sizeof r->dx), dw = upload(c, r->dw, sizeof r->dw), db = upload(c, r->db, sizeof r->db);
    const clnorm_matrix X = {x, 0, 0, CLNORM_F32}, Y = {y, 0, 0, CLNORM_F32}, DY = {dy, 0, 0, CLNORM_F32},
                        DR = {dr, 0, 0, CLNORM_F32}, DX = {dx, 0, 0, CLNORM_F32};
    const clnorm_vector W = {w, 0, CLNORM_F32}, B = {b, 0, CLNORM_F32}, M = {m, 0, CLNORM_F32}, S = {s, 0, CLNORM_F32},
                        DW = {dw, 0, CLNORM_F32}, DB = {db, 0, CLNORM_F32};
    CLNORM_OK(ctx, clnorm_layer_norm_forward(ctx, ROWS, COLS, eps, &X, &W, &B, &Y, &M, &S, 0, NULL, NULL));
    CLNORM_OK(ctx, clnorm_layer_norm_backward(ctx, ROWS, COLS, &DY, &X, &W, &M, &S, &DR, &DX, &DW, &DB, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(q, y, CL_TRUE, 0, sizeof r->y, r->y, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof r->mean, r->mean, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(q, s, CL_TRUE, 0, sizeof r->rstd, r->rstd, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(q, dx, CL_TRUE, 0, sizeof r->dx, r->dx, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(q, dw, CL_TRUE, 0, sizeof r->dw, r->dw, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(q, db, CL_TRUE, 0, sizeof r->db, r->db, 0, NULL, NULL));
    cl_mem all[] = {x, dy, dr, w, b, y, m, s, dx, dw, db};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
        clReleaseMemObject(all[i]);
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Row r of a (ROWS x COLS) output: every element NaN (nan=1) or bitwise equal to the clean run. */
static void expect_row(const char *what, const float *got, const float *clean, int r, int nan)
{
    for (int c = 0; c < COLS; ++c) {
        float g = got[r * COLS + c];
        if (nan)
            ck_assert_msg(isnan(g), "%s[%d, %d] = %g, expected NaN", what, r, c, (double)g);
        else
            ck_assert_msg(same_bits(g, clean[r * COLS + c]), "%s[%d, %d] = %.9g, clean run %.9g", what, r, c,
                          (double)g, (double)clean[r * COLS + c]);
    }
}

static void expect_vec(const char *what, const float *got, const float *clean, int n, int nan_at)
{
    for (int i = 0; i < n; ++i) {
        if (i == nan_at)
            ck_assert_msg(isnan(got[i]), "%s[%d] = %g, expected NaN", what, i, (double)got[i]);
        else
            ck_assert_msg(same_bits(got[i], clean[i]), "%s[%d] = %.9g, clean run %.9g", what, i, (double)got[i],
                          (double)clean[i]);
    }
}

/* A row whose x-hat is NaN in every column: its y and dx are NaN, every other row is bitwise the
 * clean run's; dweight sums dy * x-hat over the rows, so every column of it is NaN; dbias (sum dy)
 * is untouched */
static void expect_nan_row(const run *h, const run *clean, int bad)
{
    for (int r = 0; r < ROWS; ++r) {
        expect_row("y", h->y, clean->y, r, r == bad);
        expect_row("dx", h->dx, clean->dx, r, r == bad);
    }
    for (int c = 0; c < COLS; ++c)
        ck_assert_msg(isnan(h->dw[c]), "dweight[%d] = %g, expected NaN", c, (double)h->dw[c]);
    expect_vec("dbias", h->db, clean->db, COLS, -1);
}

static run *clean_run(uint64_t seed)
{
    run *r = xcalloc(1, sizeof *r);
    fill(r, seed);
    execute(r, 1e-5f);
    return r;
}

START_TEST(nan_or_inf_in_x_stays_in_its_row)
{
    for (int inf = 0; inf < 2; ++inf) {
        run *clean = clean_run(11), *h = xcalloc(1, sizeof *h);
        fill(h, 11);
        const int bad = 4;
        h->x[bad * COLS + HCOL(17)] = inf ? INFINITY : NAN;
        execute(h, 1e-5f);
        ck_assert(isnan(h->mean[bad]) || isinf(h->mean[bad]));
        expect_nan_row(h, clean, bad);
        free(clean);
        free(h);
    }
}
END_TEST

START_TEST(nan_in_dy_stays_in_its_row_and_column)
{
    run *clean = clean_run(12), *h = xcalloc(1, sizeof *h);
    fill(h, 12);
    const int bad = 2, col = HCOL(123);
    h->dy[bad * COLS + col] = NAN;
    execute(h, 1e-5f);
    for (int r = 0; r < ROWS; ++r) {
        expect_row("y", h->y, clean->y, r, 0);
        expect_row("dx", h->dx, clean->dx, r, r == bad);
    }
    expect_vec("dweight", h->dw, clean->dw, COLS, col);
    expect_vec("dbias", h->db, clean->db, COLS, col);
    free(clean);
    free(h);
}
END_TEST

START_TEST(nan_in_dresidual_stays_in_its_element)
{
    run *clean = clean_run(13), *h = xcalloc(1, sizeof *h);
    fill(h, 13);
    const int bad = 7, col = HCOL(5);
    h->dres[bad * COLS + col] = NAN;
    execute(h, 1e-5f);
    for (int i = 0; i < ROWS * COLS; ++i) {
        if (i == bad * COLS + col)
            ck_assert(isnan(h->dx[i]));
        else
            ck_assert_msg(same_bits(h->dx[i], clean->dx[i]), "dx[%d] changed", i);
    }
    expect_vec("dweight", h->dw, clean->dw, COLS, -1);
    expect_vec("dbias", h->db, clean->db, COLS, -1);
    free(clean);
    free(h);
}
END_TEST

START_TEST(nan_in_weight_stays_in_its_column_forward)
{
    run *clean = clean_run(14), *h = xcalloc(1, sizeof *h);
    fill(h, 14);
    const int col = HCOL(200);
    h->w[col] = NAN;
    execute(h, 1e-5f);
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) {
            float g = h->y[r * COLS + c];
            if (c == col)
                ck_assert(isnan(g));
            else
                ck_assert_msg(same_bits(g, clean->y[r * COLS + c]), "y[%d, %d] changed", r, c);
            /* g = dy * weight feeds every row sum: all of dx is NaN */
            ck_assert(isnan(h->dx[r * COLS + c]));
        }
    /* dweight and dbias do not involve the weight */
    expect_vec("dweight", h->dw, clean->dw, COLS, -1);
    expect_vec("dbias", h->db, clean->db, COLS, -1);
    free(clean);
    free(h);
}
END_TEST

START_TEST(eps0_constant_row)
{
    run *clean = clean_run(15), *h = xcalloc(1, sizeof *h);
    fill(h, 15);
    const int bad = 3;
    /* 0.1f: not exact in binary, so a sum of the raw values (0.1f + 0.1f + 0.1f rounds) would leave a
     * variance above 0; the row's sums around its first element are exactly 0 */
    for (int c = 0; c < COLS; ++c)
        h->x[bad * COLS + c] = 0.1f;
    execute(clean, 0.0f); /* the clean run again, with eps = 0 */
    execute(h, 0.0f);
    /* var = 0 and eps = 0: rstd = 1/sqrt(0) = +Inf, xhat = 0 * Inf = NaN */
    ck_assert_msg(h->mean[bad] == 0.1f, "mean %.9g", (double)h->mean[bad]);
    ck_assert_msg(isinf(h->rstd[bad]) && h->rstd[bad] > 0, "rstd %g", (double)h->rstd[bad]);
    expect_nan_row(h, clean, bad);
    free(clean);
    free(h);
}
END_TEST

/* eps = 0 and a row whose deviations (~1e-25) have squares below fp32's smallest subnormal: the
 * variance underflows to 0, as for a constant row (rstd = +Inf, y and dx not finite); an eps of
 * normal size (1e-12) keeps the same row finite */
START_TEST(eps0_tiny_row_underflows)
{
    run *clean = clean_run(17), *h = xcalloc(1, sizeof *h);
    fill(h, 17);
    const int bad = 6;
    for (int c = 0; c < COLS; ++c)
        h->x[bad * COLS + c] = (h->x[bad * COLS + c] - 2.0f) * 1e-25f;
    run *keep = xcalloc(1, sizeof *keep);
    memcpy(keep, h, sizeof *h);
    execute(clean, 0.0f);
    execute(h, 0.0f);
    ck_assert_msg(isinf(h->rstd[bad]) && h->rstd[bad] > 0, "rstd %g, expected +Inf", (double)h->rstd[bad]);
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) {
            const int i = r * COLS + c;
            if (r == bad) {
                ck_assert_msg(!isfinite(h->y[i]), "y[%d, %d] = %g, expected non-finite", r, c, (double)h->y[i]);
                ck_assert_msg(!isfinite(h->dx[i]), "dx[%d, %d] = %g, expected non-finite", r, c, (double)h->dx[i]);
            } else {
                ck_assert_msg(same_bits(h->y[i], clean->y[i]), "y[%d, %d] changed", r, c);
                ck_assert_msg(same_bits(h->dx[i], clean->dx[i]), "dx[%d, %d] changed", r, c);
            }
        }
    execute(keep, 1e-12f);
    ck_assert_msg(isfinite(keep->rstd[bad]) && keep->rstd[bad] > 0, "rstd %g with eps 1e-12", (double)keep->rstd[bad]);
    for (int i = 0; i < ROWS * COLS; ++i)
        ck_assert_msg(isfinite(keep->y[i]) && isfinite(keep->dx[i]), "element %d not finite with eps 1e-12", i);
    for (int c = 0; c < COLS; ++c)
        ck_assert_msg(isfinite(keep->dw[c]) && isfinite(keep->db[c]), "dweight/dbias[%d] not finite with eps 1e-12", c);
    free(keep);
    free(clean);
    free(h);
}
END_TEST

/* Values near FLT_MAX whose mean is finite (1e38) but whose sums around x[0] overflow fp32: the
 * documented limit of the overflow case below (clnorm.h): the saved mean is not finite, the row's
 * y and dx are NaN, so is every column of dweight; other rows and dbias are untouched */
START_TEST(shifted_sum_overflow_row)
{
    run *clean = clean_run(18), *h = xcalloc(1, sizeof *h);
    fill(h, 18);
    const int bad = 1;
    for (int c = 0; c < COLS; ++c)
        h->x[bad * COLS + c] = c == 0 ? 0.0f : c % 3 == 1 ? -3e38f : 3e38f;
    execute(h, 1e-5f);
    ck_assert_msg(!isfinite(h->mean[bad]), "mean %g, expected non-finite", (double)h->mean[bad]);
    expect_nan_row(h, clean, bad);
    free(clean);
    free(h);
}
END_TEST

START_TEST(sum_of_squares_overflow_row)
{
    run *clean = clean_run(16), *h = xcalloc(1, sizeof *h);
    fill(h, 16);
    const int bad = 5;
    /* +-1e19: each squared deviation (1e38 and more) is finite, their fp32 sum is not */
    for (int c = 0; c < COLS; ++c)
        h->x[bad * COLS + c] = c % 2 ? -1e19f : 1e19f;
    execute(h, 1e-5f);
    /* var = +Inf: rstd = 0, xhat = 0, so y is the bias and dx is the residual gradient, exactly */
    ck_assert_msg(h->rstd[bad] == 0.0f, "rstd %g", (double)h->rstd[bad]);
    ck_assert_msg(isfinite(h->mean[bad]) && fabsf(h->mean[bad]) <= 1e19f, "mean %g", (double)h->mean[bad]);
    for (int c = 0; c < COLS; ++c) {
        const int i = bad * COLS + c;
        ck_assert_msg(same_bits(h->y[i], h->b[c]), "y[%d, %d] = %.9g, bias %.9g", bad, c, (double)h->y[i], (double)h->b[c]);
        ck_assert_msg(same_bits(h->dx[i], h->dres[i]), "dx[%d, %d] = %.9g, dresidual %.9g", bad, c, (double)h->dx[i],
                      (double)h->dres[i]);
        ck_assert_msg(isfinite(h->dw[c]), "dweight[%d] = %g", c, (double)h->dw[c]);
    }
    for (int r = 0; r < ROWS; ++r)
        if (r != bad) {
            expect_row("y", h->y, clean->y, r, 0);
            expect_row("dx", h->dx, clean->dx, r, 0);
        }
    expect_vec("dbias", h->db, clean->db, COLS, -1); /* sum of dy: untouched by x */
    free(clean);
    free(h);
}
END_TEST

START_TEST(subnormal_inputs)
{
    run *h = xcalloc(1, sizeof *h);
    fill(h, 16);
    for (int i = 0; i < ROWS * COLS; ++i)
        h->x[i] = h->x[i] * 1e-39f; /* subnormal fp32 (below 1.18e-38) */
    execute(h, 1e-5f);
    /* the spread (~1e-39) is far below sqrt(eps): y = (x - mean) / sqrt(eps) * w + b ~ b, and a
     * device that flushes subnormals to zero gives exactly b. Either way: finite and within 1e-30. */
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) {
            float g = h->y[r * COLS + c];
            ck_assert_msg(isfinite(g) && fabs((double)g - h->b[c]) <= 1e-30 + 1e-6 * fabs(h->b[c]),
                          "y[%d, %d] = %g, expected about %g", r, c, (double)g, (double)h->b[c]);
            ck_assert_msg(isfinite(h->dx[r * COLS + c]), "dx[%d, %d] not finite", r, c);
        }
    free(h);
}
END_TEST

/* F16 / BF16 outputs: values beyond the storage range round to +-Inf (round to nearest even),
 * values inside it are stored correctly rounded. */
#ifndef OC_COLS
#define OC_COLS 64
#endif
enum { OR = 4, OC = OC_COLS };

/* A forward with fp32 x (N(0,1)) and weight w into a 16-bit y (poisoned with NaN first); y read
 * back, and its float64 reference. */
static void forward_16bit_output(clnorm_dtype dt, const float w[OC], uint64_t seed, uint16_t y[OR * OC],
                                 double ref[OR * OC])
{
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    float x[OR * OC];
    rng g;
    rng_seed(&g, seed);
    for (int i = 0; i < OR * OC; ++i)
        x[i] = (float)rng_normal(&g);
    memset(y, 0xFF, OR * OC * sizeof *y);
    cl_mem bx = upload(c, x, sizeof x), bw = upload(c, w, OC * sizeof *w), by = upload(c, y, OR * OC * sizeof *y);
    const clnorm_matrix X = {bx, 0, 0, CLNORM_F32}, Y = {by, 0, 0, dt};
    const clnorm_vector W = {bw, 0, CLNORM_F32};
    CLNORM_OK(ctx, clnorm_layer_norm_forward(ctx, OR, OC, 1e-5f, &X, &W, NULL, &Y, NULL, NULL, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), by, CL_TRUE, 0, OR * OC * sizeof *y, y, 0, NULL, NULL));
    double xd[OR * OC], wd[OC];
    for (int i = 0; i < OR * OC; ++i)
        xd[i] = x[i];
    for (int i = 0; i < OC; ++i)
        wd[i] = w[i];
    ref_forward(OR, OC, 1e-5f, xd, wd, NULL, ref, NULL, NULL);
    clReleaseMemObject(bx);
    clReleaseMemObject(bw);
    clReleaseMemObject(by);
}

static void overflow_case(clnorm_dtype dt, float wscale)
{
    enum { R = OR, C = OC };
    float w[C];
    uint16_t y[R * C];
    double ref[R * C];
    rng g;
    rng_seed(&g, 17);
    for (int i = 0; i < C; ++i)
        w[i] = wscale * (float)rng_range(&g, 0.25, 1.0);
    forward_16bit_output(dt, w, 18, y, ref);
    const double maxv = dt == CLNORM_F16 ? 65504.0 : 3.3895313892515355e38;
    int infs = 0;
    for (int i = 0; i < R * C; ++i) {
        double got = dtype_load(dt, y, (size_t)i);
        if (fabs(ref[i]) > maxv * 1.001) { /* clearly beyond the largest finite value */
            ck_assert_msg(isinf(got) && (got > 0) == (ref[i] > 0), "%s y[%d] = %g, expected %sInf (ref %g)",
                          dtype_name(dt), i, got, ref[i] > 0 ? "+" : "-", ref[i]);
            ++infs;
        } else if (fabs(ref[i]) < maxv * 0.999) {
            ck_assert_msg(isfinite(got) && fabs(got - ref[i]) <= dtype_ulp(dt, ref[i]) + 1e-5 * fabs(ref[i]),
                          "%s y[%d] = %g, expected %g", dtype_name(dt), i, got, ref[i]);
        }
    }
    ck_assert_msg(infs > 0, "no element overflowed: the case tests nothing");
}

START_TEST(f16_overflow_is_inf) { overflow_case(CLNORM_F16, 6.0e4f); }
END_TEST

/* F16 / BF16 outputs in their subnormal range are stored correctly rounded, not flushed to zero
 * (bf16: every lane of a vector subnormal, and vectors mixing them with normal values), when the
 * device keeps fp32 denormals (CL_FP_DENORM); otherwise within the flushed value's reach. */
static void subnormal_output_case(clnorm_dtype dt, float wscale)
{
    cl_device_fp_config fp = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL));
    enum { R = OR, C = OC };
    float w[C];
    uint16_t y[R * C];
    double ref[R * C];
    rng g;
    rng_seed(&g, 23);
    for (int i = 0; i < C; ++i) /* columns 0-31 subnormal outputs, 32-47 mixed, 48 on normal */
        w[i] = (i < 32 ? wscale : i < 48 ? (i % 2 ? wscale : 1.0f) : 1.0f) * (float)rng_range(&g, 0.25, 1.0);
    forward_16bit_output(dt, w, 24, y, ref);
    const double tiny = dt == CLNORM_F16 ? 6.103515625e-05 : 1.1754943508222875e-38; /* smallest normal */
    int subnormals = 0;
    for (int i = 0; i < R * C; ++i) {
        const double got = dtype_load(dt, y, (size_t)i);
        const double tol = dtype_ulp(dt, ref[i]) + 1e-5 * fabs(ref[i]);
        if (fabs(ref[i]) < tiny && fabs(ref[i]) > 2 * dtype_ulp(dt, 0.0)) {
            ++subnormals;
            if (fp & CL_FP_DENORM)
                ck_assert_msg(fabs(got - ref[i]) <= tol && got != 0.0, "%s y[%d] = %g, expected subnormal %g",
                              dtype_name(dt), i, got, ref[i]);
            else
                ck_assert_msg(isfinite(got) && fabs(got) <= fabs(ref[i]) + tol, "%s y[%d] = %g, expected %g or 0",
                              dtype_name(dt), i, got, ref[i]);
        } else {
            ck_assert_msg(isfinite(got) && fabs(got - ref[i]) <= tol, "%s y[%d] = %g, expected %g", dtype_name(dt), i,
                          got, ref[i]);
        }
    }
    ck_assert_msg(subnormals > 64, "only %d subnormal outputs: the case tests little", subnormals);
}

START_TEST(bf16_subnormal_outputs) { subnormal_output_case(CLNORM_BF16, 3.0e-39f); }
END_TEST

START_TEST(f16_subnormal_outputs) { subnormal_output_case(CLNORM_F16, 2.0e-5f); }
END_TEST

START_TEST(bf16_overflow_is_inf) { overflow_case(CLNORM_BF16, 3.0e38f); }
END_TEST

/* An all-bf16 forward with NaN inputs of every kind (quiet with a payload, signalling, negative)
 * and infinities, in x (one row each), the weight and the bias (one column each): every output
 * the NaN or Inf reaches is a quiet bf16 NaN (never rounded into an infinity or a zero: on x86
 * PoCL these calls round without the NaN select, BF16_INPUTS_ONLY), every other output bitwise the
 * clean run's. (bf16 bits: exponent 0x7F80, quiet bit 0x0040.) */
static void bf16_forward(const uint16_t *x, const uint16_t *w, const uint16_t *b, uint16_t *y, int rows, int cols)
{
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    const size_t n = (size_t)rows * cols * sizeof *x;
    cl_mem X = upload(c, x, n), W = upload(c, w, cols * sizeof *w), B = upload(c, b, cols * sizeof *b), Y = upload(c, y, n);
    const clnorm_matrix MX = {X, 0, 0, CLNORM_BF16}, MY = {Y, 0, 0, CLNORM_BF16};
    const clnorm_vector VW = {W, 0, CLNORM_BF16}, VB = {B, 0, CLNORM_BF16};
    CLNORM_OK(ctx, clnorm_layer_norm_forward(ctx, rows, cols, 1e-5f, &MX, &VW, &VB, &MY, NULL, NULL, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), Y, CL_TRUE, 0, n, y, 0, NULL, NULL));
    cl_mem all[] = {X, W, B, Y};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
        clReleaseMemObject(all[k]);
}

/* Stores of exact ties round to even, in every path a call takes (the vector stores, the scalar
 * ones of unaligned tails and one-element vectors): a forward whose weight is 0 gives y = bias
 * exactly, and a backward whose dy is 0 gives dx = dresidual exactly, so fp32 ties in the bias
 * (dresidual) must come out as their round-to-nearest-even bf16 / f16 (a store that rounds ties
 * away from zero is 1 ulp off only on ties, which random data and tolerances never see). Without
 * a bias, y = weight * x-hat keeps the sign of a zero product: x constant at 1 (a mean of exactly
 * 1 in any summation order), weight -1, y is -0 everywhere. */
static uint32_t tie_bits(rng *g, clnorm_dtype dt)
{
    /* a normal value in +-[0.5, 8) whose bits below the storage type's last one are exactly half */
    const uint32_t mag = 0x3F000000u + (uint32_t)(rng_next(g) % 0x01800000u);
    const uint32_t low = dt == CLNORM_BF16 ? 0xFFFFu : 0x1FFFu, half = dt == CLNORM_BF16 ? 0x8000u : 0x1000u;
    return ((mag & ~low) | half) | (rng_next(g) & 1 ? 0x80000000u : 0u);
}

static uint16_t store16(clnorm_dtype dt, float v) { return dt == CLNORM_BF16 ? f32_to_bf16(v) : f32_to_f16(v); }

START_TEST(stores_round_ties_to_even)
{
    const clnorm_dtype dt = _i & 1 ? CLNORM_F16 : CLNORM_BF16;
    const int backward = _i >= 2;
    enum { N = ROWS * COLS };
    static float x[N], dy[N], dres[N], w[COLS], b[COLS], mean[ROWS], rstd[ROWS];
    static uint16_t out[N];
    rng g;
    rng_seed(&g, 0x71e5u + (uint64_t)_i);
    for (int i = 0; i < N; ++i) {
        x[i] = (float)rng_uniform(&g) * 4.0f - 2.0f;
        dy[i] = 0.0f;
        dres[i] = f32_from_bits(tie_bits(&g, dt));
        out[i] = 0x5A5A;
    }
    for (int c = 0; c < COLS; ++c) {
        w[c] = backward ? (float)rng_uniform(&g) + 0.5f : 0.0f;
        b[c] = f32_from_bits(tie_bits(&g, dt));
    }
    for (int r = 0; r < ROWS; ++r) {
        mean[r] = (float)rng_uniform(&g) - 0.5f;
        rstd[r] = (float)rng_uniform(&g) + 0.5f;
    }
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    cl_mem X = upload(c, x, sizeof x), DY = upload(c, dy, sizeof dy), DR = upload(c, dres, sizeof dres),
           W = upload(c, w, sizeof w), B = upload(c, b, sizeof b), M = upload(c, mean, sizeof mean),
           S = upload(c, rstd, sizeof rstd), O = upload(c, out, sizeof out);
    const clnorm_matrix MX = {X, 0, 0, CLNORM_F32}, MDY = {DY, 0, 0, CLNORM_F32}, MDR = {DR, 0, 0, CLNORM_F32},
                        MO = {O, 0, 0, dt};
    const clnorm_vector VW = {W, 0, CLNORM_F32}, VB = {B, 0, CLNORM_F32}, VM = {M, 0, CLNORM_F32}, VS = {S, 0, CLNORM_F32};
    if (backward)
        CLNORM_OK(ctx, clnorm_layer_norm_backward(ctx, ROWS, COLS, &MDY, &MX, &VW, &VM, &VS, &MDR, &MO, NULL, NULL, 0, NULL, NULL));
    else
        CLNORM_OK(ctx, clnorm_layer_norm_forward(ctx, ROWS, COLS, 1e-5f, &MX, &VW, &VB, &MO, NULL, NULL, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), O, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    for (int i = 0; i < N; ++i) {
        const float v = backward ? dres[i] : b[i % COLS];
        ck_assert_msg(out[i] == store16(dt, v), "%s %s [%d, %d]: 0x%04x from the tie 0x%08x, expected 0x%04x",
                      backward ? "dx" : "y", dtype_name(dt), i / COLS, i % COLS, out[i], f32_bits(v), store16(dt, v));
    }
    cl_mem all[] = {X, DY, DR, W, B, M, S, O};
    for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
        clReleaseMemObject(all[k]);
}
END_TEST

START_TEST(no_bias_keeps_the_sign_of_zero)
{
    const clnorm_dtype dt = _i ? CLNORM_F32 : CLNORM_BF16;
    enum { N = ROWS * COLS };
    static uint16_t x16[N], y16[N], w16[COLS];
    static float x32[N], y32[N], w[COLS];
    for (int i = 0; i < N; ++i) {
        x16[i] = 0x3F80; /* 1.0 */
        x32[i] = 1.0f;
        y16[i] = 0x5A5A;
        y32[i] = 7.0f;
    }
    for (int c = 0; c < COLS; ++c) {
        w[c] = -1.0f;
        w16[c] = 0xBF80;
    }
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    const int f32 = dt == CLNORM_F32;
    /* (all 16-bit in the bf16 case: the calls that take the CPU row's local rows) */
    cl_mem X = f32 ? upload(c, x32, sizeof x32) : upload(c, x16, sizeof x16),
           W = f32 ? upload(c, w, sizeof w) : upload(c, w16, sizeof w16), Y = f32 ? upload(c, y32, sizeof y32) : upload(c, y16, sizeof y16);
    const clnorm_matrix MX = {X, 0, 0, dt}, MY = {Y, 0, 0, dt};
    const clnorm_vector VW = {W, 0, dt};
    CLNORM_OK(ctx, clnorm_layer_norm_forward(ctx, ROWS, COLS, 1e-5f, &MX, &VW, NULL, &MY, NULL, NULL, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), Y, CL_TRUE, 0, f32 ? sizeof y32 : sizeof y16, f32 ? (void *)y32 : (void *)y16, 0,
                              NULL, NULL));
    for (int i = 0; i < N; ++i) {
        const uint32_t got = f32 ? f32_bits(y32[i]) : y16[i], want = f32 ? 0x80000000u : 0x8000u;
        ck_assert_msg(got == want, "y %s [%d, %d] = 0x%x, expected -0 (0x%x)", dtype_name(dt), i / COLS, i % COLS, got, want);
    }
    clReleaseMemObject(X);
    clReleaseMemObject(W);
    clReleaseMemObject(Y);
}
END_TEST

START_TEST(bf16_nan_payloads_stay_quiet_nans)
{
    enum { R = 8, C = 256 };
    static const uint16_t bad[] = {0x7FC1, 0x7F81, 0xFFC3, 0x7FFF, 0x7F80, 0xFF80};
    uint16_t x[R * C], w[C], b[C], y0[R * C], y1[R * C];
    rng g;
    rng_seed(&g, 0xbf16);
    for (int i = 0; i < R * C; ++i) /* +-[1, 2) */
        x[i] = (uint16_t)((0x3F80 + (rng_next(&g) & 0x7F)) | (rng_next(&g) & 1 ? 0x8000 : 0));
    for (int i = 0; i < C; ++i) {
        w[i] = (uint16_t)(0x3F00 + (rng_next(&g) & 0xFF)); /* [0.5, 2) */
        b[i] = (uint16_t)(0x3D00 + (rng_next(&g) & 0xFF));
    }
    for (int i = 0; i < R * C; ++i)
        y0[i] = y1[i] = 0x1234;
    bf16_forward(x, w, b, y0, R, C);
    /* rows 0..5: one bad value each, at column 17 * row; columns 200 (weight) and 201 (bias) */
    for (int r = 0; r < 6; ++r)
        x[r * C + 17 * r] = bad[r];
    w[200] = 0x7F81;
    b[201] = 0xFFC5;
    bf16_forward(x, w, b, y1, R, C);
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
            const uint16_t v = y1[r * C + c];
            if (r < 6 || c == 200 || c == 201)
                ck_assert_msg((v & 0x7F80) == 0x7F80 && (v & 0x0040) != 0, "y[%d, %d] = 0x%04x, expected a quiet NaN",
                              r, c, v);
            else
                ck_assert_msg(v == y0[r * C + c], "y[%d, %d] = 0x%04x, clean run 0x%04x", r, c, v, y0[r * C + c]);
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("hostile");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, nan_or_inf_in_x_stays_in_its_row);
    tcase_add_test(tc, nan_in_dy_stays_in_its_row_and_column);
    tcase_add_test(tc, nan_in_dresidual_stays_in_its_element);
    tcase_add_test(tc, nan_in_weight_stays_in_its_column_forward);
    tcase_add_test(tc, bf16_nan_payloads_stay_quiet_nans);
    tcase_add_loop_test(tc, stores_round_ties_to_even, 0, 4);
    tcase_add_loop_test(tc, no_bias_keeps_the_sign_of_zero, 0, 2);
    tcase_add_test(tc, eps0_constant_row);
    tcase_add_test(tc, eps0_tiny_row_underflows);
    tcase_add_test(tc, shifted_sum_overflow_row);
    tcase_add_test(tc, sum_of_squares_overflow_row);
    tcase_add_test(tc, subnormal_inputs);
    tcase_add_test(tc, f16_overflow_is_inf);
    tcase_add_test(tc, bf16_overflow_is_inf);
    tcase_add_test(tc, bf16_subnormal_outputs);
    tcase_add_test(tc, f16_subnormal_outputs);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
