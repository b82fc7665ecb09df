/* Backward: the shape table for every dtype configuration (affine, residual and the source of
 * mean/rstd rotating), plus residual variants. dx (with dresidual: the float64 backward plus
 * dresidual, rounded once), dweight and dbias are checked against the float64 reference, every
 * other byte of every buffer (inputs included) against what was uploaded. */
#include <check.h>
#include <stdlib.h>

#include "case_table.h"
#include "harness.h"
#include "problem.h"

START_TEST(backward_f32) { case_cfg c = table_case(1, DT_F32, _i); run_backward_case(test_context(), &c); }
END_TEST
START_TEST(backward_bf16) { case_cfg c = table_case(1, DT_BF16, _i); run_backward_case(test_context(), &c); }
END_TEST
START_TEST(backward_f16) { case_cfg c = table_case(1, DT_F16, _i); run_backward_case(test_context(), &c); }
END_TEST
START_TEST(backward_mixed) { case_cfg c = table_case(1, DT_MIXED, _i); run_backward_case(test_context(), &c); }
END_TEST

/* Every residual mode with every dtype configuration, on padded layouts (aligned and odd), with
 * weight, dweight and dbias. */
START_TEST(backward_residual)
{
    int mode = _i % RES_COUNT, dt = _i / RES_COUNT;
    case_cfg c = case_basic(33, dt % 2 ? 1000 : 771, dtcfg_act(dt), dtcfg_par(dt), AFF_WB,
                            dt % 2 ? LAY_PAD_ALIGNED : LAY_PAD_ODD, 0x7e50u + (uint64_t)_i);
    c.residual = mode;
    run_backward_case(test_context(), &c);
}
END_TEST

/* Short rows, which the CPU row takes 4 at a time (bwd_rpi_short_cols 16 / bwd_rpi16_short_cols 256),
 * with and without dweight/dbias: cols 16 (one whole vector) and 15 (the unaligned tail only),
 * for 16-bit calls also 256 and 250, 33 rows (not a multiple of 4), each dtype configuration
 * with every residual mode (the in-place one included), dense and odd padded layouts. (12 cases:
 * every variant of this suite builds their kernels again.) */
START_TEST(backward_short_rows)
{
    static const size_t cols[] = { 16, 15, 256, 250 };
    const int dt = _i % DT_COUNT, mode = (_i / DT_COUNT) % RES_COUNT, v = (_i + _i / DT_COUNT) % 4;
    case_cfg c = case_basic(33, dt == DT_F32 ? cols[v % 2] : cols[v], dtcfg_act(dt), dtcfg_par(dt),
                            (v + mode) % 2 ? AFF_NONE : AFF_WB, v % 2 ? LAY_PAD_ODD : LAY_DENSE,
                            0x5407u + (uint64_t)_i);
    c.residual = mode;
    run_backward_case(test_context(), &c);
}
END_TEST

/* The gradients of the parameters without a weight (dweight/dbias still written), dweight
 * without dbias and the reverse, and a weight with neither (dx only), with mean/rstd from the
 * library's forward. */
START_TEST(backward_grad_options)
{
    static const int affine[] = { AFF_GRADS, AFF_W, AFF_B, AFF_NONE, AFF_W_DX };
    const int dt = _i < 5 ? DT_F32 : DT_MIXED;
    case_cfg c = case_basic(300, 96, dtcfg_act(dt), dtcfg_par(dt), affine[_i % 5],
                            _i % 2 ? LAY_SHARED : LAY_DENSE_OFFSET, 0x9a0u + (uint64_t)_i);
    c.residual = RES_INPLACE;
    c.stats_from_library = 1;
    run_backward_case(test_context(), &c);
}
END_TEST

/* dx only with a weight (dweight and dbias NULL: a frozen weight): width, residual gradient and
 * dtype each varied on their own (8 cases), the layout alternating. Widths: 16-bit cols 3072 (on
 * a PoCL host with AVX512_BF16 and a 32 KiB L1d, the local row without the weight's copy, which
 * dx's pass then reads from memory; a 48 KiB L1d takes the copy there too), 1000 (the local row
 * with the copy there; a cached row on GPUs). */
START_TEST(backward_weight_dx_only)
{
    const int dt = _i % 2 ? DT_F32 : DT_BF16;
    case_cfg c = case_basic(33, _i / 4 ? 1000 : 3072, dtcfg_act(dt), dtcfg_par(dt), AFF_W_DX,
                            (_i + _i / 4) % 2 ? LAY_PAD_ODD : LAY_DENSE, 0xd0e1u + (uint64_t)_i);
    c.residual = _i / 2 % 2 ? RES_SEPARATE : RES_NONE;
    run_backward_case(test_context(), &c);
}
END_TEST

/* Every dtype configuration x layout x affine option once, on small rows: cols 96 (a multiple
 * of 32: wide vectors where the layout allows) or 131 (odd: scalar), rows 7 or 33. */
START_TEST(backward_sweep)
{
    int dt = _i % DT_COUNT, layout = (_i / DT_COUNT) % LAY_COUNT, affine = _i / (DT_COUNT * LAY_COUNT);
    case_cfg c = table_case(1, dt, 9); /* dtypes of configuration dt, rotation of entry 9 */
    int k = _i / DT_COUNT;
    c.rows = k % 2 ? 33 : 7;
    c.cols = (k / 2 + dt) % 2 ? 131 : 96;
    c.layout = layout;
    c.affine = affine;
    c.residual = (_i / 3) % RES_COUNT;
    c.stats_from_library = (_i / 7) % 2;
    c.eps = 1e-5f;
    c.seed = 0x5e3u + (uint64_t)_i;
    run_backward_case(test_context(), &c);
}
END_TEST

static Suite *backward_suite(void)
{
    Suite *s = suite_create("backward");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, backward_f32, 0, TABLE_CASES);
    tcase_add_loop_test(tc, backward_bf16, 0, TABLE_CASES);
    tcase_add_loop_test(tc, backward_f16, 0, TABLE_CASES);
    tcase_add_loop_test(tc, backward_mixed, 0, TABLE_CASES);
    suite_add_tcase(s, tc);
    tc = tcase_create("variants");
    tcase_add_loop_test(tc, backward_residual, 0, 4 * RES_COUNT);
    tcase_add_loop_test(tc, backward_grad_options, 0, 10);
    tcase_add_loop_test(tc, backward_weight_dx_only, 0, 8);
    tcase_add_loop_test(tc, backward_short_rows, 0, DT_COUNT * RES_COUNT);
    suite_add_tcase(s, tc);
    tc = tcase_create("sweep");
    tcase_add_loop_test(tc, backward_sweep, 0, DT_COUNT * LAY_COUNT * AFF_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(backward_suite());
}
