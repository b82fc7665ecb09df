/* dweight/dbias are reduced in a fixed order: two identical backward calls give bitwise identical
 * results, also when another backward of a different shape ran in between (the workspace is
 * shared and reused). 300 rows so that many work-groups contribute partial sums to every column.
 * And several rows per item give the bits of one row per item (rows_per_item, below). */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
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
 * table's CPU row, one of them with a CLNORM_TUNE that keeps one row per item. The forward cases
 * are 16-bit: those keep the local row with one row per item, where fp32's short rows would leave
 * it for another kernel shape. */
#define ONE_ROW_TUNE                                                                                   \
    "fwd_rpi16=1,fwd_rpi4_cols_intel_bf16=0,bwd_rpi=1,bwd_rpi16=1,bwd_rpi16_res=1,bwd_rpi16_avx2=1,"   \
    "bwd_rpi_short_cols=0,bwd_rpi16_short_cols=0"

/* restores an environment variable saved by save_env */
static void restore_env(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

static char *save_env(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

/* A context on the test context's queue with the CPU row of the table and CLNORM_TUNE = tune
 * (whatever the variant running this test sets: both contexts plan from the same row) */
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

/* the bytes of v's extent in `got` (its rows and the padding between them) */
static unsigned char *extent_bytes(const tview *v, size_t *n)
{
    const size_t es = dtype_size(v->dtype);
    *n = (tview_end(v) - v->offset) * es;
    unsigned char *out = xmalloc(*n);
    memcpy(out, v->buf->got + v->offset * es, *n);
    return out;
}

static void run_both(const case_cfg *cfg, int backward)
{
    clnorm_context *ctx = cpu_row_context(""), *one = cpu_row_context(ONE_ROW_TUNE);
    problem *p = xmalloc(sizeof *p);
    if (backward)
        bwd_setup(p, ctx, cfg);
    else
        fwd_setup(p, ctx, cfg);
    clnorm_launch_info many, single;
    CLNORM_OK(ctx, clnorm_launch_plan(ctx, plan_kind(p), cfg->rows, cfg->cols, cfg->act, &many));
    CLNORM_OK(one, clnorm_launch_plan(one, plan_kind(p), cfg->rows, cfg->cols, cfg->act, &single));
    ck_assert_msg(single.rows_per_item == 1, "%s: the one-row context plans %u rows per item", p->what,
                  single.rows_per_item);
    /* On CPU devices the CPU row's rules must give several rows per item in the same kernel shape,
     * or this test would compare a plan with itself (on other devices, where the CPU row's local
     * rows are off, the two contexts run what they plan) */
    if (test_device_is_cpu()) {
        ck_assert_msg(many.rows_per_item > 1, "%s: the test context plans one row per item", p->what);
        ck_assert_msg(many.local_row == single.local_row && many.vector_width == single.vector_width &&
                          many.items_per_row == 1 && single.items_per_row == 1,
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
                      pass ? "one row per item" : "the test context", bad);
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
    static const struct { size_t rows, cols; clnorm_dtype act, par; int affine; } f[] = {
        {34, 16, CLNORM_BF16, CLNORM_BF16, AFF_B}, /* short rows: 4 per item (Intel AVX512_BF16 hosts), else 2 */
        {33, 256, CLNORM_BF16, CLNORM_F32, AFF_WB},
        {9, 1024, CLNORM_F16, CLNORM_F16, AFF_NONE}, /* 2 per item */
    };
    for (size_t i = 0; i < sizeof f / sizeof *f; ++i) {
        case_cfg c = case_basic(f[i].rows, f[i].cols, f[i].act, f[i].par, f[i].affine, LAY_DENSE, 0x1e50 + i);
        c.stats = STATS_BOTH;
        run_both(&c, 0);
    }
}
END_TEST

START_TEST(rows_per_item_backward)
{
    static const struct { size_t rows, cols; clnorm_dtype act; int affine, residual; } b[] = {
        {33, 16, CLNORM_F32, AFF_WB, RES_SEPARATE},    /* fp32 short rows, with dweight/dbias */
        {34, 16, CLNORM_F32, AFF_NONE, RES_NONE},      /* ... dx only */
        {35, 4096, CLNORM_F32, AFF_GRADS, RES_NONE},   /* fp32 long rows: 4 per item */
        {33, 64, CLNORM_BF16, AFF_GRADS, RES_INPLACE}, /* 16-bit short rows */
        {37, 256, CLNORM_BF16, AFF_NONE, RES_SEPARATE},
    };
    for (size_t i = 0; i < sizeof b / sizeof *b; ++i) {
        case_cfg c = case_basic(b[i].rows, b[i].cols, b[i].act, b[i].act, b[i].affine, LAY_DENSE, 0x1e60 + i);
        c.residual = b[i].residual;
        run_both(&c, 1);
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
    tc = tcase_create("rows_per_item");
    tcase_add_test(tc, rows_per_item_forward);
    tcase_add_test(tc, rows_per_item_backward);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(determinism_suite());
}
