/* clnorm-bench --tune — each candidate is applied by setting CLNORM_TUNE and creating a new
 * clnorm context on the benchmark's queue (the table is read when a context is created), so the
 * buffers are shared by all candidates. */
#define _POSIX_C_SOURCE 200809L
#include "tune.h"

#include "timing.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The grid searched. Forward: items per row (via vectors per item) and work-group size. Backward:
 * the same plus the persistent grid's groups per compute unit. */
static const char *const FWD[] = {
    "fwd_target=1,fwd_wg=128", "fwd_target=2,fwd_wg=128", "fwd_target=4,fwd_wg=128", "fwd_target=8,fwd_wg=128",
    "fwd_target=1,fwd_wg=256", "fwd_target=2,fwd_wg=256", "fwd_target=4,fwd_wg=256", "fwd_target=8,fwd_wg=256",
    "fwd_target=2,fwd_wg=512", "fwd_target=4,fwd_wg=512", "fwd_target=8,fwd_wg=512", "fwd_target=4,fwd_wg=256,shfl=0",
    /* 16-bit data uses the *_target16 keys */
    "fwd_target16=4,fwd_wg=128", "fwd_target16=8,fwd_wg=128", "fwd_target16=16,fwd_wg=128",
    "fwd_target16=8,fwd_tpr_max=512,fwd_wg=256",
    /* the pipelined persistent forward (where the table row's fwd_pipe and fwd_pipe_cols allow it) */
    "fwd_target16=4,fwd_wg=128,fwd_groups=0", "fwd_target16=4,fwd_wg=128,fwd_pipe=2,fwd_groups=4",
    "fwd_target16=4,fwd_wg=128,fwd_pipe=2,fwd_groups=8", "fwd_target16=8,fwd_raw16=1,fwd_wg=128,fwd_groups=0",
    /* ... and its L2 prefetch two row blocks ahead (NVIDIA), off, or from any cols */
    "fwd_pipe_prefetch_cols=0", "fwd_pipe_prefetch_cols=1",
    /* long 16-bit rows: the exact fit as stored and the 1024-item rows, on and off */
    "fwd_fit16=0", "fwd_fit16=6,fwd_fit16_tpr=256,fwd_fit16_deep=8,fwd_fit16_deep_tpr=128",
    "fwd_tpr_max16=0,fwd_raw16_vecs=0", "fwd_tpr_max16=1024,fwd_raw16_vecs=6144",
    /* NVIDIA's row sums over the warps' sums: a loop, or the butterfly from 64 or 512 items per row */
    "fwd_bfly_tpr=0", "fwd_bfly_tpr=64,fwd_bfly_cols_max=0", "fwd_bfly_tpr=512,fwd_bfly_cols_max=32768",
    /* the streaming rows' mean and variance from one read (off, chunks of 2 / 4 / 8 vectors) */
    "fwd_chan=0,fwd_chan16=0", "fwd_chan=2,fwd_chan16=2", "fwd_chan=4,fwd_chan16=4", "fwd_chan=8,fwd_chan16=8",
};
static const char *const BWD[] = {
    "bwd_target=1,bwd_wg=256,bwd_groups=8", "bwd_target=2,bwd_wg=256,bwd_groups=8",
    "bwd_target=4,bwd_wg=256,bwd_groups=8", "bwd_target=2,bwd_wg=128,bwd_groups=8",
    "bwd_target=2,bwd_wg=256,bwd_groups=4", "bwd_target=2,bwd_wg=256,bwd_groups=16",
    "bwd_target=4,bwd_wg=256,bwd_groups=4", "bwd_target=4,bwd_ncache=4,bwd_nacc=4,bwd_groups=8",
    "bwd_target=8,bwd_nacc=8,bwd_groups=8", "bwd_target=2,bwd_wg=512,bwd_groups=4",
    "bwd_target=2,bwd_wg=256,bwd_groups=8,shfl=0", "bwd_target16=2,bwd_groups=4", "bwd_target16=8,bwd_groups=4",
    /* NVIDIA's L2 prefetch of the next row block (16-bit calls with dweight/dbias): off, and from any cols */
    "bwd_target16=2,bwd_groups=4,bwd_prefetch16_cols=0", "bwd_target16=2,bwd_groups=4,bwd_prefetch16_cols=1",
    /* ... and its bound on rows cached deep without a residual gradient: none, and the NVIDIA row's 3 */
    "bwd_prefetch16_nores_nc_max=0", "bwd_prefetch16_nores_nc_max=3",
    /* the residual gradient loaded early in rows cached 4 deep beside acc_local16's sums: on, off
     * from the NVIDIA row's 15361 columns, off at every such width (an H200's refinement) */
    "bwd_dr_early16_nc_max=0", "bwd_dr_early16_nc_max=3,bwd_dr_early16_cols_min=15361",
    "bwd_dr_early16_nc_max=3,bwd_dr_early16_cols_min=0",
    /* the twice-read fp32 rows with a residual gradient: sum vectors in local memory, on and off */
    "bwd_acc_local_res=0", "bwd_acc_local_res=1,bwd_dxb_res=3",
    /* the cached all-16-bit rows with dweight/dbias: one sum vector in local memory (rows up to 4
     * deep), off and on */
    "bwd_acc_local16=0", "bwd_acc_local16=1,bwd_acc_local16_nc=3,bwd_cache16_lacc=4",
    /* groups per compute unit of the cached all-16-bit calls with dweight/dbias (without and with the
     * residual gradient): the NVIDIA row's, and one more each */
    "bwd_groups16=2,bwd_groups16_res=1", "bwd_groups16=3,bwd_groups16_res=2",
    /* NVIDIA's row sums over the warps' sums: a loop, or the butterfly from 64 or 512 items per row */
    "bwd_bfly_tpr=0", "bwd_bfly_tpr=64", "bwd_bfly_tpr=512",
    /* fp32 rows with dweight/dbias: the wide cache at tpr_max items (off, 4, 6 deep); rows read twice
     * at up to 1024 items instead of streamed (off, on) and dx-only batches; fp32 groups with the
     * residual gradient */
    "bwd_ncache_wide=0,bwd_cached_nc=0", "bwd_ncache_wide=4,bwd_cached_nc=2", "bwd_ncache_wide=6,bwd_cached_nc=2",
    "bwd_acc_tpr_max=0", "bwd_acc_tpr_max=1024,bwd_dxb_dx=2", "bwd_acc_tpr_max=1024,bwd_dxb_dx=0",
    "bwd_groups_res=0", "bwd_groups_res=3",
    /* dweight/dbias by columns beside the dx-only layout: off, from any cols, at one group per
     * compute unit. (Where the NVIDIA row takes the sweep, fp32 from 16385 cols and 16-bit from
     * 32768, and the long narrowed rows that would stream (bwd_colsweep_stream), the twice-read
     * keys above change nothing unless paired with the first of these.) */
    "bwd_colsweep_cols=0,bwd_colsweep16_cols=0,bwd_colsweep_stream=0", "bwd_colsweep_cols=1,bwd_colsweep16_cols=1,bwd_colsweep_groups=1",
    /* the short 16-bit rows' layouts (the NVIDIA row's, up to 64 cols): off, and up to 128 cols */
    "bwd_short16_cols=0", "bwd_short16_cols=128,bwd_short16_vec_bytes=8,bwd_short16_groups=3,bwd_short16_target_res=1,"
    "bwd_short16_groups_res=2",
};

typedef struct tune_arg {
    clnorm_context *ctx;
    int backward;
    size_t rows, cols;
    clnorm_matrix x, y, dy, dx;
    clnorm_vector w, b, mean, rstd, dw, db;
} tune_arg;

static int rep(void *p, cl_event *last)
{
    tune_arg *a = p;
    /* op 3 (bwd_res): the residual gradient read from y's buffer (same shape and dtype) */
    clnorm_status st = a->backward
        ? clnorm_layer_norm_backward(a->ctx, a->rows, a->cols, &a->dy, &a->x, &a->w, &a->mean, &a->rstd,
              a->backward == 3 ? &a->y : NULL,
              &a->dx, a->backward == 2 ? NULL : &a->dw, a->backward == 2 ? NULL : &a->db, 0, NULL, last)
        : clnorm_layer_norm_forward(a->ctx, a->rows, a->cols, 1e-5f, &a->x, &a->w, &a->b, &a->y, &a->mean,
              &a->rstd, 0, NULL, last);
    if (st != CLNORM_SUCCESS)
        fprintf(stderr, "clnorm-bench --tune: %s: %s\n", clnorm_status_string(st), clnorm_context_last_error(a->ctx));
    return st;
}

/* Median ms of op under CLNORM_TUNE=cand, or a negative value when it failed; plan gets the
 * launch shape the candidate gives the op (clnorm_launch_plan), so the printed line says which
 * layout was timed. A CLNORM_TUNE the user set stays under every candidate (user's keys first,
 * the candidate's after them, so the candidate's win where both name a key) and is put back. */
static double time_candidate(const bench_env *env, tune_arg *a, const char *cand, clnorm_launch_info *plan)
{
    const char *user = getenv("CLNORM_TUNE");
    char *saved = user && *user ? strdup(user) : NULL, *spec = NULL; /* (setenv may free user) */
    if (saved) {
        size_t len = strlen(saved);
        while (len && saved[len - 1] == ',') /* the library takes a trailing ',', "k=v,,cand" not */
            --len;
        const size_t n = len + 1 + strlen(cand) + 1;
        spec = malloc(n);
        if (spec)
            snprintf(spec, n, "%.*s%s%s", (int)len, saved, len && *cand ? "," : "", cand);
    }
    if (user && *user && !spec) {
        fprintf(stderr, "clnorm-bench --tune: out of host memory\n");
        free(saved);
        return -1.0;
    }
    setenv("CLNORM_TUNE", spec ? spec : cand, 1);
    clnorm_status st = clnorm_context_create_from_queue(env->queue, &a->ctx);
    if (saved)
        setenv("CLNORM_TUNE", saved, 1);
    else
        unsetenv("CLNORM_TUNE");
    free(saved);
    free(spec);
    if (st != CLNORM_SUCCESS) {
        fprintf(stderr, "clnorm-bench --tune: %s: %s\n", cand, clnorm_context_last_error(NULL));
        return -1.0;
    }
    /* op 1: with dweight/dbias; 2: without (dx only); 3: with them and the residual gradient */
    const int pb = a->backward == 2 ? CLNORM_PLAN_BACKWARD_DX : a->backward == 3 ? 1 | CLNORM_PLAN_BACKWARD_RES
                                                                                 : a->backward;
    st = clnorm_launch_plan(a->ctx, pb, a->rows, a->cols, a->x.dtype, plan);
    if (st != CLNORM_SUCCESS) {
        fprintf(stderr, "clnorm-bench --tune: %s: plan: %s\n", cand, clnorm_context_last_error(a->ctx));
        clnorm_context_release(a->ctx);
        a->ctx = NULL;
        return -1.0;
    }
    double *ms = calloc((size_t)env->reps, sizeof *ms), med = -1.0;
    if (ms && timing_warmup(env->queue, 2, rep, a) == CL_SUCCESS &&
        timing_measure(env->context, env->queue, env->kernels, env->reps, rep, a, ms) == CL_SUCCESS)
        med = timing_median(ms, env->reps);
    free(ms);
    clnorm_context_release(a->ctx);
    a->ctx = NULL;
    return med;
}

/* A buffer of at least bytes (rounded up to a whole number of copy granules, so that any shape's
 * size can be filled with the 16-byte pattern and copied by the yardstick), filled. */
static cl_mem filled(const bench_env *env, size_t bytes, clnorm_dtype dt, int *err)
{
    /* a pattern with spread (a constant row would make rstd = 1/sqrt(eps)): 1, 2, 3, 4 */
    static const float f[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    static const unsigned short h[8] = {0x3f80, 0x4000, 0x4040, 0x4080, 0x3f80, 0x4000, 0x4040, 0x4080};
    cl_int e;
    cl_mem m;
    bytes = (bytes + BENCH_COPY_GRANULE - 1) / BENCH_COPY_GRANULE * BENCH_COPY_GRANULE;
    m = clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(env->queue, m, dt == CLNORM_F32 ? (const void *)f : (const void *)h, 16, 0, bytes, 0,
                                NULL, NULL);
    if (e != CL_SUCCESS)
        *err = e;
    return m;
}

int bench_tune_shape(const bench_env *env, size_t rows, size_t cols, clnorm_dtype dt)
{
    const size_t es = dt == CLNORM_F32 ? 4 : 2, tbytes = rows * cols * es;
    int err = CL_SUCCESS;
    cl_mem x = filled(env, tbytes, dt, &err), y = filled(env, tbytes, dt, &err), dy = filled(env, tbytes, dt, &err),
           dx = filled(env, tbytes, dt, &err), w = filled(env, cols * es, dt, &err), b = filled(env, cols * es, dt, &err),
           m = filled(env, rows * 4, CLNORM_F32, &err), r = filled(env, rows * 4, CLNORM_F32, &err),
           dw = filled(env, cols * 4, CLNORM_F32, &err), db = filled(env, cols * 4, CLNORM_F32, &err);
    int rc = 0;
    if (err != CL_SUCCESS || clFinish(env->queue) != CL_SUCCESS) {
        fprintf(stderr, "clnorm-bench --tune: %zux%zu: allocation failed (%s)\n", rows, cols, clnorm_status_string(err));
        rc = 1;
        goto out;
    }
    /* The copy yardstick on the same bytes, timed the same way: it copies whole granules (the
     * buffers are rounded up to them), so its time is scaled down to the tensor's own bytes. */
    double copy_ms = -1.0;
    {
        double *ms = calloc((size_t)env->reps, sizeof *ms);
        size_t cb = (tbytes + BENCH_COPY_GRANULE - 1) / BENCH_COPY_GRANULE * BENCH_COPY_GRANULE;
        cl_int e = ms ? CL_SUCCESS : CLNORM_OUT_OF_HOST_MEMORY;
        for (int i = 0; i < env->reps && e == CL_SUCCESS; ++i) {
            cl_event s = NULL, ev = NULL;
            cl_ulong t0 = 0, t1 = 0;
            e = bench_enqueue_stamp(env->queue, env->kernels, 0, NULL, &s);
            if (e == CL_SUCCESS)
                e = bench_enqueue_copy(env->queue, env->kernels, x, y, cb, 0, NULL, &ev);
            if (e == CL_SUCCESS)
                e = clWaitForEvents(1, &ev);
            if (e == CL_SUCCESS)
                e = clGetEventProfilingInfo(s, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL);
            if (e == CL_SUCCESS)
                e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
            if (e == CL_SUCCESS)
                ms[i] = (double)(t1 - t0) * 1e-6 * (double)tbytes / (double)cb;
            if (s)
                clReleaseEvent(s);
            if (ev)
                clReleaseEvent(ev);
        }
        if (e == CL_SUCCESS)
            copy_ms = timing_median(ms, env->reps);
        free(ms);
        if (e != CL_SUCCESS) {
            clFinish(env->queue);
            fprintf(stderr, "clnorm-bench --tune: %zux%zu: copy yardstick failed (%s)\n", rows, cols,
                clnorm_status_string(e));
            rc = 1;
            goto out;
        }
    }
    tune_arg a = {NULL, 0, rows, cols, {x, 0, 0, dt}, {y, 0, 0, dt}, {dy, 0, 0, dt}, {dx, 0, 0, dt}, {w, 0, dt},
                  {b, 0, dt}, {m, 0, CLNORM_F32}, {r, 0, CLNORM_F32}, {dw, 0, CLNORM_F32}, {db, 0, CLNORM_F32}};
    const char *dname = dt == CLNORM_F32 ? "f32" : dt == CLNORM_BF16 ? "bf16" : "f16";
    static const char *const op_names[] = {"forward", "backward", "bwd_dx", "bwd_res"};
    for (int op = 0; op < 4; ++op) {
        const char *const *c = op ? BWD : FWD;
        int n = op ? (int)(sizeof BWD / sizeof *BWD) : (int)(sizeof FWD / sizeof *FWD);
        /* CLNORM_BENCH_TUNE_FWD / _BWD / _DX: a ';'-separated grid instead of the built-in one ("" skips
         * the op). The backward is timed with dweight and dbias; bwd_dx (without them, a kernel
         * compiled without their sums) only when CLNORM_BENCH_TUNE_DX is set, bwd_res (with them
         * and the residual gradient) only when CLNORM_BENCH_TUNE_RES is. */
        static const char *const grid_vars[] = {"CLNORM_BENCH_TUNE_FWD", "CLNORM_BENCH_TUNE_BWD", "CLNORM_BENCH_TUNE_DX",
                                                "CLNORM_BENCH_TUNE_RES"};
        const char *grid = getenv(grid_vars[op]);
        if (op >= 2 && !grid)
            continue;
        char *gcopy = NULL, *cands[64];
        if (grid) {
            gcopy = strdup(grid);
            n = 0;
            bool too_many = false;
            for (char *save = NULL, *t = gcopy ? strtok_r(gcopy, ";", &save) : NULL; t && !too_many;
                 t = strtok_r(NULL, ";", &save)) {
                if (n == 64)
                    too_many = true;
                else
                    cands[n++] = t;
            }
            if (too_many || (grid[0] && !gcopy)) { /* no silent cap on the grid */
                fprintf(stderr, "clnorm-bench --tune: %s: %s\n", grid_vars[op],
                        too_many ? "more than 64 candidates" : "out of memory");
                free(gcopy);
                rc = 1;
                continue;
            }
            c = (const char *const *)cands;
        }
        const double tensors = op == 3 ? 4.0 : op ? 3.0 : 2.0; /* bytes model as in the main table */
        double best = 0.0;
        int bi = -1;
        a.backward = op;
        for (int i = 0; i < n; ++i) {
            clnorm_launch_info p = {0};
            double t = time_candidate(env, &a, c[i], &p);
            if (t <= 0.0) { /* time_candidate said why; the run exits non-zero */
                rc = 1;
                continue;
            }
            double frac = (tensors / 2.0) * copy_ms / t; /* copy moves 2 tensors' bytes */
            /* the plan: items per row x vectors cached (c) or summed in registers (a), row slots,
             * rows per item, groups, and the pipelined / as-stored / local-sum flags */
            /* (r: read twice without sums in registers, the dx-only and column-sweep kernels; cs N:
             * dweight/dbias summed by columns, N column lanes; pf / pf2: the L2 prefetch one / two
             * row blocks ahead; unal: unaligned vectors, the row's tail one element at a time;
             * ph N: row phases, classes N rows apart) */
            char cs[24] = "";
            if (p.column_sweep)
                snprintf(cs, sizeof cs, " cs %u", p.column_sweep);
            else if (p.one_read_stats)
                snprintf(cs, sizeof cs, " 1read %u", p.one_read_stats);
            char ph[16] = "";
            if (p.row_phase)
                snprintf(ph, sizeof ph, " ph %u", p.row_phase);
            printf("tune %-8s %-5s %7zu x %-6zu %-48s %8.4f ms  %.3f of copy  [%ux%u%s rpw %u rpi %u groups %zu%s%s%s%s%s%s%s]\n",
                   op_names[op], dname, rows, cols, c[i], t, frac, p.items_per_row,
                   p.register_cache ? p.register_cache : p.register_accumulators ? p.register_accumulators : p.reread_vectors,
                   p.register_cache ? "c" : p.register_accumulators ? "a" : p.reread_vectors ? "r" : "s", p.rows_per_group,
                   p.rows_per_item, p.work_groups, p.pipelined ? " pipe" : "", p.raw_cache ? " raw" : "",
                   p.local_accumulators ? " lacc" : "", cs, p.l2_prefetch == 1 ? " pf" : p.l2_prefetch ? " pf2" : "",
                   p.unaligned ? " unal" : "", ph);
            if (frac > best) {
                best = frac;
                bi = i;
            }
        }
        if (bi >= 0)
            printf("best %-8s %-5s %7zu x %-6zu %-48s %.3f of copy\n", op_names[op], dname, rows, cols,
                   c[bi], best);
        fflush(stdout);
        free(gcopy);
    }
out:;
    cl_mem all[] = {x, y, dy, dx, w, b, m, r, dw, db};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    return rc;
}
