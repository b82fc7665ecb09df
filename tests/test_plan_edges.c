/* Launch-plan edges and dtype mixes the table-driven sweeps do not reach:
 *  - fp32 activations with 16-bit weight/bias (on CPUs the permuted-lane mode then stores fp32
 *    y and dx through its interleave);
 *  - row lengths where the plan changes shape: 5001 and 6000 elements (items per row a multiple
 *    of 32 but not a power of two, several vectors per item), 20000 (the forward grows past
 *    tpr_max to keep the row in its register cache), 1000 and 4096 for reference;
 *  - an odd row count (37), so row blocks and persistent groups do not divide evenly;
 *  - odd widths in row phases (row_phase, below).
 * Run with the CPU table row, with CLNORM_DEVICE_CLASS=gpu, and with the GPU row plus the CPU
 * modes forced on (CLNORM_TUNE=perm=1,contig=1: permuted lanes with register caches, several rows
 * per group and barriers) by CTest. */
#include "harness.h"
#include "case_table.h"
#include "problem.h"

#include <stdio.h>

#include <check.h>

static const size_t cols_list[] = {64, 1000, 4096, 5001, 6000, 20000};
#define NCOLS (sizeof cols_list / sizeof cols_list[0])

static clnorm_dtype par_dtype(int i) { return i / (int)NCOLS == 0 ? CLNORM_BF16 : CLNORM_F16; }

START_TEST(forward_f32_activations_16bit_params)
{
    case_cfg c = case_basic(37, cols_list[_i % NCOLS], CLNORM_F32, par_dtype(_i), AFF_WB, LAY_PAD_ALIGNED,
                            0xabc0u + (uint64_t)_i);
    c.stats = STATS_BOTH;
    run_forward_case(test_context(), &c);
}
END_TEST

START_TEST(backward_f32_activations_16bit_params)
{
    case_cfg c = case_basic(37, cols_list[_i % NCOLS], CLNORM_F32, par_dtype(_i), AFF_WB, LAY_PAD_ALIGNED,
                            0xabd0u + (uint64_t)_i);
    c.residual = RES_SEPARATE;
    run_backward_case(test_context(), &c);
}
END_TEST

START_TEST(bf16_plan_edges)
{
    case_cfg c = case_basic(37, cols_list[_i % NCOLS], CLNORM_BF16, CLNORM_BF16, AFF_WB, LAY_DENSE,
                            0xabe0u + (uint64_t)_i);
    /* forward; backward without and with (in place) a residual gradient */
    const int pass = _i / (int)NCOLS;
    c.residual = pass == 2 ? RES_INPLACE : RES_NONE;
    if (pass)
        run_backward_case(test_context(), &c);
    else
        run_forward_case(test_context(), &c);
}
END_TEST

/* Row phases (PHASE; the NVIDIA row, and the GPU row under CLNORM_TUNE=phase=1): odd widths
 * whose vectors stay wide. Row tensors sharing one phase (LAY_PHASE: offsets 5 + 16k, row stride
 * cols + 19, the weight and bias at other phases; LAY_DENSE: stride cols), every dtype
 * configuration, 3 / 9 / 40 rows (3: fewer rows than a bf16 phase period, the narrowed plan),
 * backward with each affine and residual-gradient option, and the forward (in place too) of the
 * same layouts, whose vectors narrow (it takes no row phases since 0.20.0). */
static const size_t phase_cols[] = {5, 37, 131, 1023, 2051};
#define NPHASE (sizeof phase_cols / sizeof phase_cols[0])
START_TEST(row_phase)
{
    static const size_t rows[] = {40, 9, 3};
    const int dt = (_i / (int)NPHASE) % DT_COUNT;
    case_cfg c = case_basic(rows[_i % 3], phase_cols[_i % NPHASE], dtcfg_act(dt), dtcfg_par(dt), _i % 4,
                            (_i / (int)(NPHASE * DT_COUNT)) % 2 ? LAY_DENSE : LAY_PHASE, 0xaf00u + (uint64_t)_i);
    c.stats = STATS_BOTH;
    c.inplace = _i % 3 == 1;
    run_forward_case(test_context(), &c);
    c.affine = _i % AFF_COUNT;
    c.residual = _i % RES_COUNT;
    c.inplace = 0;
    c.seed += 0x100u;
    run_backward_case(test_context(), &c);
}
END_TEST

/* The phased 16-bit dx-only plans of 0.26.0 (the NVIDIA row's bwd_phase_pipe_dx16_nores and
 * _reread_cols, and the CI mirror of that row): 2-vector frames pipelined (121: 8 items per row,
 * 315: 41 of 64 vectors) and, dense, 8194's 2-element rows in phases of period 4 (LAY_PHASE
 * narrows every width here to one element); bf16 and f16, 40 and 17 rows, without and with the
 * residual gradient (whose calls keep their plans), no weight: dx only. */
static const size_t dx16_cols[] = {121, 315, 8194};
START_TEST(row_phase_dx16)
{
    const int dt = _i % 2 ? DT_F16 : DT_BF16;
    case_cfg c = case_basic((_i / 2) % 2 ? 17 : 40, dx16_cols[(_i / 4) % 3], dtcfg_act(dt), dtcfg_par(dt), AFF_NONE,
                            (_i / 12) % 2 ? LAY_DENSE : LAY_PHASE, 0xd160u + (uint64_t)_i);
    c.residual = (_i / 24) % 2 ? RES_SEPARATE : RES_NONE;
    run_backward_case(test_context(), &c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan_edges");
    TCase *tc = tcase_create("plan_edges");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, forward_f32_activations_16bit_params, 0, 2 * (int)NCOLS);
    tcase_add_loop_test(tc, backward_f32_activations_16bit_params, 0, 2 * (int)NCOLS);
    tcase_add_loop_test(tc, bf16_plan_edges, 0, 3 * (int)NCOLS);
    suite_add_tcase(s, tc);
    /* the row-phase cases where the device's plans take row phases for some op (of 1023 dense
     * columns, fp32 or bf16: the NVIDIA row, and the gpu_shapes_phase_pipe variant); elsewhere
     * their odd widths and LAY_PHASE rows are the other suites' (CI time: the cases compile
     * kernels of their own in every variant) */
    /* (outside a test, so a context of its own, without ck_assert: where it or the plan fails,
     * the cases are kept and report the trouble) */
    clnorm_launch_info L = {0};
    clnorm_context *probe = NULL;
    clnorm_status st = clnorm_context_create(NULL, &probe);
    static const int probe_ops[] = {0, 1, 1 | CLNORM_PLAN_BACKWARD_RES, CLNORM_PLAN_BACKWARD_DX,
                                    CLNORM_PLAN_BACKWARD_DX | CLNORM_PLAN_BACKWARD_RES};
    int phased = 0;
    for (size_t i = 0; st == CLNORM_SUCCESS && !phased && i < 2 * sizeof probe_ops / sizeof probe_ops[0]; ++i) {
        st = clnorm_launch_plan(probe, probe_ops[i / 2], 4096, 1023, i % 2 ? CLNORM_BF16 : CLNORM_F32, &L);
        phased = L.row_phase != 0;
    }
    clnorm_context_release(probe);
    if (st != CLNORM_SUCCESS || phased) {
        tc = tcase_create("row_phase");
        tcase_set_timeout(tc, 600);
        tcase_add_loop_test(tc, row_phase, 0, 2 * (int)(NPHASE * DT_COUNT));
        tcase_add_loop_test(tc, row_phase_dx16, 0, 48);
        suite_add_tcase(s, tc);
    } else {
        printf("test_plan_edges: row phases off in this device's plans: the row_phase cases skipped\n");
    }
    return test_run_suite(s);
}
