/* dweight/dbias are reduced in a fixed order: two identical backward calls give bitwise identical
 * results, also when another backward of a different shape ran in between (the workspace is
 * shared and reused). 300 rows so that many work-groups contribute partial sums to every column.
 * And several rows per item give the bits of one row per item (rows_per_item, below). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "harness.h"
#include "problem.h"

static unsigned char *view_bytes(const tview *v)
{
    size_t n = v->cols * dtype_size(v->dtype);
    unsigned char *out = xmalloc(n);
    memcpy(out, v->buf->got + v->offset * dtype_size(v->dtype), n);
    return out;
}

static void compare_bytes(const tview *v, const unsigned char *first, const char *what)
{
    size_t es = dtype_size(v->dtype);
    const unsigned char *second = v->buf->got + v->offset * es;
    size_t differ = 0, first_col = 0;
    for (size_t c = 0; c < v->cols; c++)
        if (memcmp(first + c * es, second + c * es, es) != 0 && differ++ == 0)
            first_col = c;
    ck_assert_msg(differ == 0, "%s: %s differs between two identical runs in %zu columns (first: %zu: %.9g vs %.9g)",
                  what, v->name, differ, first_col, dtype_load(v->dtype, first, first_col),
                  dtype_load(v->dtype, second, first_col));
}

static void run_twice(const case_cfg *cfg, const case_cfg *other)
{
    clnorm_context *ctx = test_context();
    problem *p = xmalloc(sizeof *p);
    cl_event ev = NULL;
    bwd_setup(p, ctx, cfg);
    CLNORM_OK(ctx, bwd_enqueue(p, ctx, 0, NULL, &ev));
    wait_and_release(ev);
    size_t bad = problem_check(p, ctx);
    ck_assert_msg(bad == 0, "%s: first run: %zu mismatches (details above)", p->what, bad);
    unsigned char *dw1 = view_bytes(&p->dw), *db1 = view_bytes(&p->db);

    run_backward_case(ctx, other); /* reuses (and may grow) the workspace */

    problem_reupload(p, ctx); /* outputs poisoned again */
    ev = NULL;
    CLNORM_OK(ctx, bwd_enqueue(p, ctx, 0, NULL, &ev));
    wait_and_release(ev);
    bad = problem_check(p, ctx);
    ck_assert_msg(bad == 0, "%s: second run: %zu mismatches (details above)", p->what, bad);
    compare_bytes(&p->dw, dw1, p->what);
    compare_bytes(&p->db, db1, p->what);
    free(dw1);
    free(db1);
    problem_free(p);
    free(p);
}

#define det_case case_basic

START_TEST(determinism_f32_4096)
{
    case_cfg c = det_case(300, 4096, CLNORM_F32, CLNORM_F32, AFF_WB, LAY_PAD_ALIGNED, 0xde71);
    case_cfg o = det_case(33, 12289, CLNORM_F32, CLNORM_F32, AFF_GRADS, LAY_DENSE, 0xde72);
    run_twice(&c, &o);
}
END_TEST

START_TEST(determinism_mixed_1000)
{
    case_cfg c = det_case(300, 1000, CLNORM_BF16, CLNORM_F32, AFF_GRADS, LAY_PAD_ODD, 0xde73);
    case_cfg o = det_case(7, 64, CLNORM_BF16, CLNORM_F32, AFF_WB, LAY_DENSE, 0xde74);
    c.residual = RES_SEPARATE;
    run_twice(&c, &o);
}
END_TEST

START_TEST(determinism_f16_257)
{
    case_cfg c = det_case(300, 257, CLNORM_F16, CLNORM_F16, AFF_WB, LAY_DENSE_OFFSET, 0xde75);
    case_cfg o = det_case(300, 4096, CLNORM_F16, CLNORM_F16, AFF_WB, LAY_PAD_ALIGNED, 0xde76);
    run_twice(&c, &o);
}
END_TEST

START_TEST(determinism_bf16_3001)
{
    case_cfg c = det_case(300, 3001, CLNORM_BF16, CLNORM_BF16, AFF_GRADS, LAY_SHARED, 0xde77);
    case_cfg o = det_case(1, 1, CLNORM_BF16, CLNORM_BF16, AFF_WB, LAY_DENSE, 0xde78);
    run_twice(&c, &o);
}
END_TEST

/* ---- several rows per item give the bits of one row at a time ------------------------------
 * The CPU row takes short rows several at a time (forward.cl's local row, backward.cl's streaming
 * regime) and then takes their rows' horizontal sums, divisions and rsqrt together (ROWS_HSUM,
 * whose tree is hsumv's): every row's y, mean and rstd (forward) and dx (backward) must be bitwise
 * what one row per item gives. (dweight/dbias are not compared: with several rows per item, the
 * rows' terms are added together before they reach the partial rows, a different fixed order.)
 * The same buffers are run through two contexts on the test context's queue, both with the
 * table's CPU row and a CLNORM_TUNE that pins the plan on any host: one with several rows per
 * item, one with one. The cases take the local row's two pass-3 orders (row by row, and vector by
 * vector from fwd_rowwise_kib), unaligned rows with their tails, padded odd layouts and in-place
 * calls. */
/* both forward contexts: the local row for every 16-bit case here, rows side by side at any cols */
#define FWD_LOCAL "local_row_kib=512,local_row_kib_avx2=512,local_row_kib_intel_bf16=512,fwd_rpi_cols_max=0,fwd_rpi_cols_max_intel_bf16=0"
#define FWD16_MANY FWD_LOCAL ",fwd_rpi16=4"
#define FWD16_TWO FWD_LOCAL ",fwd_rpi16=2,fwd_rpi4_cols_intel_bf16=0"
#define FWD16_ONE FWD_LOCAL ",fwd_rpi16=1,fwd_rpi4_cols_intel_bf16=0"
/* fp32: the local row takes its short rows 4 at a time (fwd_rpi4_cols32); a 1 KiB bound leaves it
 * one row ((2 + 1) * cols floats: up to 85 cols, rounded up to whole vectors where unaligned) */
#define FWD32_MANY FWD_LOCAL
#define FWD32_ONE "local_row_kib=1,local_row_kib_avx2=1,local_row_kib_intel_bf16=1"
/* the backward: 4 rows per item also for 16-bit calls on AVX2 hosts (bwd_rpi16_avx2) and in calls
 * with a residual gradient (bwd_rpi_res, bwd_rpi16_res: the CPU row's 2), or one. (On
 * AVX512_BF16 hosts a 16-bit row of 2048 with one row per item takes the local row, the 4-row plan
 * the streaming one: dx's bits are the same either way) */
#define BWD_MANY "bwd_rpi16_avx2=4,bwd_rpi_res=4,bwd_rpi16_res=4"
#define BWD_ONE "bwd_rpi=1,bwd_rpi16=1,bwd_rpi16_res=1,bwd_rpi_res=1,bwd_rpi16_avx2=1,bwd_rpi_short_cols=0,bwd_rpi16_short_cols=0"

/* A context on the test context's queue with the CPU row of the table and CLNORM_TUNE = tune */
static clnorm_context *cpu_row_context(const char *tune)
{
    char *cls = save_env("CLNORM_DEVICE_CLASS"), *old = save_env("CLNORM_TUNE");
    setenv("CLNORM_DEVICE_CLASS", "cpu", 1);
    setenv("CLNORM_TUNE", tune, 1);
    clnorm_context *ctx = NULL;
    const clnorm_status st = clnorm_context_create_from_queue(clnorm_context_queue(test_context()), &ctx);
    restore_env("CLNORM_DEVICE_CLASS", cls);
    restore_env("CLNORM_TUNE", old);
    ck_assert_msg(st == CLNORM_SUCCESS, "%s", clnorm_context_last_error(NULL));
    return ctx;
}

/* the plan argument of the call p makes */
static int plan_kind(const problem *p)
{
    if (!p->backward)
        return 0;
    const int grads = p->dw.buf || p->db.buf;
    return (grads ? 1 : CLNORM_PLAN_BACKWARD_DX) | (p->dres.buf ? CLNORM_PLAN_BACKWARD_RES : 0);
}

/* the widest storage type among the call's tensors (what the plan depends on) */
static clnorm_dtype widest(const problem *p)
{
    const tview *v[] = {&p->x, &p->y, &p->w, &p->b, &p->dy, &p->dres, &p->dx, &p->dw, &p->db};
    for (size_t i = 0; i < sizeof v / sizeof *v; ++i)
        if (v[i]->buf && v[i]->dtype == CLNORM_F32)
            return CLNORM_F32;
    return p->x.dtype;
}

/* the bytes of v's extent in `got` (its rows and the padding between them) */
static unsigned char *extent_bytes(const tview *v, size_t *n)
{
    const size_t es = dtype_size(v->dtype);
    *n = (tview_end(v) - v->offset) * es;
    unsigned char *out = xmalloc(*n);
    memcpy(out, v->buf->got + v->offset * es, *n);
    return out;
}

static void run_both(const case_cfg *cfg, int backward, const char *many_tune, const char *one_tune)
{
    clnorm_context *ctx = cpu_row_context(many_tune), *one = cpu_row_context(one_tune);
    problem *p = xmalloc(sizeof *p);
    if (backward)
        bwd_setup(p, ctx, cfg);
    else
        fwd_setup(p, ctx, cfg);
    clnorm_launch_info many, single;
    CLNORM_OK(ctx, clnorm_launch_plan(ctx, plan_kind(p), cfg->rows, cfg->cols, widest(p), &many));
    CLNORM_OK(one, clnorm_launch_plan(one, plan_kind(p), cfg->rows, cfg->cols, widest(p), &single));
    ck_assert_msg(single.rows_per_item == 1, "%s: the one-row context plans %u rows per item", p->what,
                  single.rows_per_item);
    /* On CPU devices the tunes must give several rows per item in the same kernel shape (the
     * forward: both with the local row), or this test would compare a kernel with itself (on
     * other devices, where the CPU row's local rows are off, the two contexts run what they plan) */
    if (test_device_is_cpu()) {
        ck_assert_msg(many.rows_per_item > 1, "%s: the several-rows context plans one row per item", p->what);
        ck_assert_msg((backward || (many.local_row && single.local_row)) && many.vector_width == single.vector_width &&
                          many.unaligned == single.unaligned && many.items_per_row == 1 && single.items_per_row == 1,
                      "%s: the two plans differ in more than the rows per item", p->what);
    }

    const tview *outs[3] = {backward ? &p->dx : &p->y, backward ? NULL : &p->mean, backward ? NULL : &p->rstd};
    unsigned char *first[3] = {NULL, NULL, NULL};
    for (int pass = 0; pass < 2; ++pass) {
        clnorm_context *c = pass ? one : ctx;
        if (pass)
            problem_reupload(p, c); /* outputs poisoned again */
        cl_event ev = NULL;
        CLNORM_OK(c, backward ? bwd_enqueue(p, c, 0, NULL, &ev) : fwd_enqueue(p, c, 0, NULL, &ev));
        wait_and_release(ev);
        const size_t bad = problem_check(p, c);
        ck_assert_msg(bad == 0, "%s: %s: %zu mismatches (details above)", p->what,
                      pass ? "one row per item" : "several rows per item", bad);
        for (int i = 0; i < 3; ++i) {
            if (!outs[i] || !outs[i]->buf)
                continue;
            size_t n;
            unsigned char *got = extent_bytes(outs[i], &n);
            if (pass) {
                size_t differ = 0, at = 0;
                for (size_t k = 0; k < n; ++k)
                    if (first[i][k] != got[k] && differ++ == 0)
                        at = k;
                ck_assert_msg(differ == 0, "%s: %s: %zu bytes differ between %u rows per item and one (first at byte %zu)",
                              p->what, outs[i]->name, differ, many.rows_per_item, at);
                free(first[i]);
                free(got);
            } else {
                first[i] = got;
            }
        }
    }
    problem_free(p);
    free(p);
    clnorm_context_release(one);
    clnorm_context_release(ctx);
}

START_TEST(rows_per_item_forward)
{
    static const struct {
        size_t rows, cols;
        clnorm_dtype dt;
        int affine, layout, inplace;
        const char *many, *one;
    } f[] = {
        {67, 16, CLNORM_BF16, AFF_B, LAY_DENSE, 0, FWD16_MANY, FWD16_ONE},      /* short rows */
        {66, 250, CLNORM_BF16, AFF_WB, LAY_PAD_ODD, 0, FWD16_MANY, FWD16_ONE},  /* unaligned, tails */
        {21, 1024, CLNORM_F16, AFF_NONE, LAY_DENSE, 1, FWD16_TWO, FWD16_ONE},   /* 2 rows per item, in place */
        {13, 4096, CLNORM_BF16, AFF_W, LAY_DENSE, 0, FWD16_MANY, FWD16_ONE},    /* pass 3 by vectors */
        {67, 80, CLNORM_F32, AFF_WB, LAY_DENSE, 0, FWD32_MANY, FWD32_ONE},      /* fp32 short rows */
        {66, 71, CLNORM_F32, AFF_W, LAY_DENSE, 1, FWD32_MANY, FWD32_ONE},       /* ... unaligned, in place */
    };
    for (size_t i = 0; i < sizeof f / sizeof *f; ++i) {
        case_cfg c = case_basic(f[i].rows, f[i].cols, f[i].dt, f[i].dt, f[i].affine, f[i].layout, 0x1e50 + i);
        c.stats = STATS_BOTH;
        c.inplace = f[i].inplace;
        run_both(&c, 0, f[i].many, f[i].one);
    }
}
END_TEST

START_TEST(rows_per_item_backward)
{
    static const struct { size_t rows, cols; clnorm_dtype dt; int affine, residual, layout; } b[] = {
        {67, 16, CLNORM_F32, AFF_WB, RES_SEPARATE, LAY_DENSE},     /* fp32 short rows, dweight/dbias */
        {66, 16, CLNORM_F32, AFF_NONE, RES_NONE, LAY_DENSE},       /* ... dx only */
        {35, 4096, CLNORM_F32, AFF_GRADS, RES_NONE, LAY_DENSE},    /* fp32 long rows */
        {35, 4099, CLNORM_F32, AFF_WB, RES_NONE, LAY_DENSE},       /* ... unaligned, tails */
        {21, 2048, CLNORM_F32, AFF_GRADS, RES_SEPARATE, LAY_DENSE}, /* ... with a residual gradient */
        {19, 2048, CLNORM_BF16, AFF_GRADS, RES_INPLACE, LAY_DENSE}, /* 16-bit long rows, the same */
        {67, 64, CLNORM_BF16, AFF_GRADS, RES_INPLACE, LAY_PAD_ODD}, /* 16-bit short rows */
        {37, 250, CLNORM_BF16, AFF_NONE, RES_SEPARATE, LAY_PAD_ODD},
    };
    for (size_t i = 0; i < sizeof b / sizeof *b; ++i) {
        case_cfg c = case_basic(b[i].rows, b[i].cols, b[i].dt, b[i].dt, b[i].affine, b[i].layout, 0x1e60 + i);
        c.residual = b[i].residual;
        run_both(&c, 1, BWD_MANY, BWD_ONE);
    }
}
END_TEST

static Suite *determinism_suite(void)
{
    Suite *s = suite_create("determinism");
    TCase *tc = tcase_create("dweight_dbias");
    tcase_add_test(tc, determinism_f32_4096);
    tcase_add_test(tc, determinism_mixed_1000);
    tcase_add_test(tc, determinism_f16_257);
    tcase_add_test(tc, determinism_bf16_3001);
    suite_add_tcase(s, tc);
    /* The CTest variants set CLNORM_DEVICE_CLASS / CLNORM_TUNE, which these tests replace with their
     * own: there they would repeat the plain run exactly */
    const char *cls = getenv("CLNORM_DEVICE_CLASS"), *tune = getenv("CLNORM_TUNE");
    if ((!cls || !*cls) && (!tune || !*tune)) {
        tc = tcase_create("rows_per_item");
        tcase_set_timeout(tc, 300);
        tcase_add_test(tc, rows_per_item_forward);
        tcase_add_test(tc, rows_per_item_backward);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return test_run_suite(determinism_suite());
}
