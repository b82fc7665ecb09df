/* dweight/dbias are reduced in a fixed order: two identical backward calls give bitwise identical
 * results, also when another backward of a different shape ran in between (the workspace is
 * shared and reused). 300 rows so that many work-groups contribute partial sums to every column.
 * Split rows (backward.cl, SPLIT): a group that stands in for a late partner computes the
 * partner's row sums itself; dx, dweight and dbias must have the same bits either way. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
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

/* Small caps make rows of a few hundred elements split over 2 or 4 groups of 16 items; spin 0:
 * every group stands in for all its partners; with polls they exchange (on a GPU nearly always;
 * on PoCL whenever the partner runs at the same time). A context on the test context's
 * queue (so the problem's buffers serve both); CPUs use the GPU row (their own never splits). */
static clnorm_context *split_context(unsigned spin)
{
    clnorm_context *base = test_context();
    cl_device_type type = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(base), CL_DEVICE_TYPE, sizeof type, &type, NULL));
    const char *old_class = getenv("CLNORM_DEVICE_CLASS"), *old_tune = getenv("CLNORM_TUNE");
    char *saved_class = old_class ? strdup(old_class) : NULL, *saved_tune = old_tune ? strdup(old_tune) : NULL;
    char tune[256];
    snprintf(tune, sizeof tune,
             "vec_bytes=16,bwd_tpr=0,bwd_tpr_max=16,bwd_tpr_max_cached=16,bwd_ncache=2,bwd_ncache_dx=2,"
             "bwd_target=2,bwd_target16=2,bwd_split=4,bwd_spin=%u",
             spin);
    if (type & CL_DEVICE_TYPE_CPU)
        setenv("CLNORM_DEVICE_CLASS", "gpu", 1);
    setenv("CLNORM_TUNE", tune, 1);
    clnorm_context *ctx = NULL;
    const clnorm_status st = clnorm_context_create_from_queue(clnorm_context_queue(base), &ctx);
    if (saved_class)
        setenv("CLNORM_DEVICE_CLASS", saved_class, 1);
    else
        unsetenv("CLNORM_DEVICE_CLASS");
    if (saved_tune)
        setenv("CLNORM_TUNE", saved_tune, 1);
    else
        unsetenv("CLNORM_TUNE");
    free(saved_class);
    free(saved_tune);
    ck_assert_msg(st == CLNORM_SUCCESS, "%s", clnorm_context_last_error(NULL));
    return ctx;
}

static void split_same_bits(const case_cfg *cfg, unsigned want_parts)
{
    /* polls: a GPU's partner is a few microseconds away; PoCL's may not run until this group ends */
    cl_device_type type = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_TYPE, sizeof type, &type, NULL));
    clnorm_context *standin = split_context(0), *exchange = split_context(type & CL_DEVICE_TYPE_CPU ? 64 : 1u << 16);
    /* the plan really splits this shape (dense tensors of the widest dtype: what these cases use) */
    const int partials = cfg->affine == AFF_W || cfg->affine == AFF_WB || cfg->affine == AFF_B || cfg->affine == AFF_GRADS;
    const int op = (partials ? 1 : CLNORM_PLAN_BACKWARD_DX) | (cfg->residual != RES_NONE ? CLNORM_PLAN_BACKWARD_RES : 0);
    const clnorm_dtype widest = dtype_size(cfg->act) >= dtype_size(cfg->par) ? cfg->act : cfg->par;
    clnorm_launch_info L;
    CLNORM_OK(standin, clnorm_launch_plan(standin, op, cfg->rows, cfg->cols, widest, &L));
    ck_assert_msg(L.groups_per_row == want_parts, "cols %zu: %u groups per row, expected %u", cfg->cols,
                  L.groups_per_row, want_parts);

    problem *p = xmalloc(sizeof *p);
    cl_event ev = NULL;
    bwd_setup(p, standin, cfg);
    CLNORM_OK(standin, bwd_enqueue(p, standin, 0, NULL, &ev));
    wait_and_release(ev);
    size_t bad = problem_check(p, standin);
    ck_assert_msg(bad == 0, "%s: stand-in sums: %zu mismatches (details above)", p->what, bad);
    unsigned char *first[16];
    for (int i = 0; i < p->nbufs; ++i) {
        first[i] = xmalloc(p->bufs[i].nbytes);
        memcpy(first[i], p->bufs[i].got, p->bufs[i].nbytes);
    }
    for (int rep = 0; rep < 3; ++rep) { /* the exchange's timing varies: a few runs */
        problem_reupload(p, exchange);
        ev = NULL;
        CLNORM_OK(exchange, bwd_enqueue(p, exchange, 0, NULL, &ev));
        wait_and_release(ev);
        bad = problem_check(p, exchange);
        ck_assert_msg(bad == 0, "%s: exchanged sums, run %d: %zu mismatches (details above)", p->what, rep, bad);
        for (int i = 0; i < p->nbufs; ++i)
            ck_assert_msg(memcmp(first[i], p->bufs[i].got, p->bufs[i].nbytes) == 0,
                          "%s: buffer %s differs between stand-in and exchanged row sums (run %d)", p->what,
                          p->bufs[i].name, rep);
    }
    for (int i = 0; i < p->nbufs; ++i)
        free(first[i]);
    problem_free(p);
    free(p);
    clnorm_context_release(standin);
    clnorm_context_release(exchange);
}

START_TEST(split_rows_f32_res)
{
    /* 125 vectors of 4: 4 parts of 32, the last 29 */
    case_cfg c = det_case(300, 500, CLNORM_F32, CLNORM_F32, AFF_WB, LAY_PAD_ALIGNED, 0x5b11);
    c.residual = RES_SEPARATE;
    split_same_bits(&c, 4);
}
END_TEST

START_TEST(split_rows_mixed_grads)
{
    /* bf16 activations, fp32 parameters: vectors of 4, 50 of them: 2 parts of 25 */
    case_cfg c = det_case(257, 200, CLNORM_BF16, CLNORM_F32, AFF_GRADS, LAY_DENSE, 0x5b12);
    split_same_bits(&c, 2);
}
END_TEST

START_TEST(split_rows_bf16_dx_inplace)
{
    /* dx only, written over the residual gradient: vectors of 8, 125 of them */
    case_cfg c = det_case(300, 1000, CLNORM_BF16, CLNORM_BF16, AFF_NONE, LAY_DENSE, 0x5b13);
    c.residual = RES_INPLACE;
    split_same_bits(&c, 4);
}
END_TEST

START_TEST(split_rows_f16_weight)
{
    /* 48 vectors of 8: 2 parts of 24 */
    case_cfg c = det_case(129, 384, CLNORM_F16, CLNORM_F16, AFF_W, LAY_DENSE, 0x5b14);
    split_same_bits(&c, 2);
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
    TCase *ts = tcase_create("split_rows");
    tcase_add_test(ts, split_rows_f32_res);
    tcase_add_test(ts, split_rows_mixed_grads);
    tcase_add_test(ts, split_rows_bf16_dx_inplace);
    tcase_add_test(ts, split_rows_f16_weight);
    suite_add_tcase(s, ts);
    return s;
}

int main(void)
{
    return test_run_suite(determinism_suite());
}
