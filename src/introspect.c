/* clnorm — introspection: the launch shape a call would use, and the size of the program cache.
 * Both read what the operations themselves use (clnorm__plan, the context's program list), so
 * what clnorm-info reports is what a call of that shape runs. */
#include "internal.h"

#include <stdint.h>

clnorm_status clnorm_launch_plan(const clnorm_context *ctx, int backward, size_t rows, size_t cols,
                                 clnorm_dtype dtype, clnorm_launch_info *info)
{
    if (!ctx)
        return clnorm__fail(NULL, CLNORM_NULL_ARGUMENT, "ctx is NULL");
    clnorm__clear_error(ctx);
    if (!info)
        return clnorm__fail(ctx, CLNORM_NULL_ARGUMENT, "info (the output pointer) is NULL");
    if (dtype != CLNORM_F32 && dtype != CLNORM_BF16 && dtype != CLNORM_F16)
        return clnorm__fail(ctx, CLNORM_INVALID_DTYPE, "dtype = %d: expected CLNORM_F32, CLNORM_BF16 or CLNORM_F16",
                            (int)dtype);
    /* (the calls' own bound: rows x cols elements of 4 bytes, whatever the dtype) */
    clnorm_status st = clnorm__check_shape(ctx, rows, cols);
    if (st)
        return st;
    const size_t elem = clnorm__dtype_size(dtype);

    const bool dres = backward != 0 && (backward & CLNORM_PLAN_BACKWARD_RES) != 0;
    const int kind = backward & ~CLNORM_PLAN_BACKWARD_RES;
    const bool partials = backward != 0 && kind != CLNORM_PLAN_BACKWARD_DX;
    /* Dense tensors at offset 0: cols is the only term of the alignment OR (row stride == cols). */
    const clnorm_launch L = clnorm__plan(ctx, backward != 0, partials, dres, rows, cols, cols, elem, 0, cols);
    info->vector_width = L.vec;
    info->items_per_row = L.tpr;
    info->rows_per_group = L.rpw;
    info->work_group_size = L.tpr * L.rpw;
    info->register_cache = L.ncache;
    /* forward, dx-only and column-sweep kernels have no such sums */
    info->register_accumulators = partials && !L.colsweep ? L.nacc : 0;
    info->work_groups = rows ? L.groups : 0;            /* rows == 0: no forward/backward kernel runs */
    info->rows_per_item = L.rpi;
    info->raw_cache = L.raw;
    info->pipelined = L.pipe;
    info->residual_early = L.dr_early && dres;
    info->reread_batch = L.dxb;
    info->local_accumulators = L.acc_local;
    info->local_row = L.local_row;
    info->reread_vectors = backward && !L.ncache ? L.nacc : 0;
    info->column_sweep = L.colsweep;
    info->one_read_stats = L.chan;
    info->l2_prefetch = !L.prefetch ? 0 : backward ? 1 : 2;
    info->unaligned = L.unaligned;
    info->row_phase = L.phase;
    info->row_sum_butterfly = L.bfly;
    info->local_weight = backward && L.local_w;
    info->l2_prefetch_current = !backward || !L.pf_cur ? 0 : L.pf_dr ? 2 : 1;
    return CLNORM_SUCCESS;
}

size_t clnorm_context_program_count(const clnorm_context *ctx)
{
    if (!ctx)
        return 0;
    /* The lock is state of the context, not of what it describes: taking it does not modify ctx. */
    pthread_mutex_t *lock = (pthread_mutex_t *)&ctx->lock;
    pthread_mutex_lock(lock);
    const size_t n = ctx->nprograms;
    pthread_mutex_unlock(lock);
    return n;
}
