/* dweight/dbias are reduced in a fixed order: two identical backward calls give bitwise identical
 * results, also when another backward of a different shape ran in between (the workspace is
 * shared and reused). 300 rows so that many work-groups contribute partial sums to every column. */
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

static Suite *determinism_suite(void)
{
    Suite *s = suite_create("determinism");
    TCase *tc = tcase_create("dweight_dbias");
    tcase_add_test(tc, determinism_f32_4096);
    tcase_add_test(tc, determinism_mixed_1000);
    tcase_add_test(tc, determinism_f16_257);
    tcase_add_test(tc, determinism_bf16_3001);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(determinism_suite());
}
