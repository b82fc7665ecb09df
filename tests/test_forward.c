/* Forward: the shape table for every dtype configuration, plus in-place and shared-buffer
 * cases. Each case checks y (and mean/rstd when requested) against the float64 reference and
 * every other byte of every buffer against what was uploaded. */
#include <check.h>
#include <stdlib.h>

#include "case_table.h"
#include "harness.h"
#include "problem.h"

START_TEST(forward_f32) { case_cfg c = table_case(0, DT_F32, _i); run_forward_case(test_context(), &c); }
END_TEST
START_TEST(forward_bf16) { case_cfg c = table_case(0, DT_BF16, _i); run_forward_case(test_context(), &c); }
END_TEST
START_TEST(forward_f16) { case_cfg c = table_case(0, DT_F16, _i); run_forward_case(test_context(), &c); }
END_TEST
START_TEST(forward_mixed) { case_cfg c = table_case(0, DT_MIXED, _i); run_forward_case(test_context(), &c); }
END_TEST

/* y exactly x's view, on vector-friendly and scalar layouts, for every dtype configuration. */
START_TEST(forward_in_place)
{
    case_cfg c = { 0 };
    c.rows = 33;
    c.cols = _i % 2 ? 257 : 1024;
    c.act = dtcfg_act(_i / 2);
    c.par = dtcfg_par(_i / 2);
    c.affine = AFF_WB;
    c.layout = _i % 2 ? LAY_PAD_ODD : LAY_PAD_ALIGNED;
    c.stats = STATS_BOTH;
    c.inplace = 1;
    c.eps = 1e-5f;
    c.seed = 0xf00du + (uint64_t)_i;
    run_forward_case(test_context(), &c);
}
END_TEST

/* eps == 0 is valid; every (affine, stats) pair once, on an aligned layout. */
START_TEST(forward_eps0_affine_stats)
{
    case_cfg c = { 0 };
    c.rows = 7;
    c.cols = 512;
    c.act = CLNORM_F32;
    c.par = CLNORM_F32;
    c.affine = _i % 4;
    c.stats = _i / 4;
    c.layout = _i % 2 ? LAY_SHARED : LAY_PAD_ALIGNED;
    c.eps = 0.0f;
    c.seed = 0xe900u + (uint64_t)_i;
    run_forward_case(test_context(), &c);
}
END_TEST

/* Every dtype configuration x layout x affine option once, on small rows: cols 96 (a multiple
 * of 32: wide vectors where the layout allows) or 131 (odd: scalar), rows 7 or 33. */
START_TEST(forward_sweep)
{
    int dt = _i % DT_COUNT, layout = (_i / DT_COUNT) % LAY_COUNT, affine = _i / (DT_COUNT * LAY_COUNT);
    case_cfg c = table_case(0, dt, 9); /* dtypes of configuration dt, rotation of entry 9 */
    int k = _i / DT_COUNT;
    c.rows = k % 2 ? 33 : 7;
    c.cols = (k / 2 + dt) % 2 ? 131 : 96;
    c.layout = layout;
    c.affine = affine;
    c.residual = RES_NONE;
    c.stats = (_i / 5) % STATS_COUNT;
    c.inplace = (_i / 7) % 3 == 1;
    c.eps = 1e-5f;
    c.seed = 0x5e3u + (uint64_t)_i;
    run_forward_case(test_context(), &c);
}
END_TEST

static Suite *forward_suite(void)
{
    Suite *s = suite_create("forward");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, forward_f32, 0, TABLE_CASES);
    tcase_add_loop_test(tc, forward_bf16, 0, TABLE_CASES);
    tcase_add_loop_test(tc, forward_f16, 0, TABLE_CASES);
    tcase_add_loop_test(tc, forward_mixed, 0, TABLE_CASES);
    suite_add_tcase(s, tc);
    tc = tcase_create("variants");
    tcase_add_loop_test(tc, forward_in_place, 0, 8);
    tcase_add_loop_test(tc, forward_eps0_affine_stats, 0, 16);
    suite_add_tcase(s, tc);
    tc = tcase_create("sweep");
    tcase_add_loop_test(tc, forward_sweep, 0, DT_COUNT * LAY_COUNT * AFF_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(forward_suite());
}
