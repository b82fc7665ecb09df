/* clnorm-bench — one benchmark case: a (rows, cols, dtype) shape. Allocates the device tensors,
 * fills them, times the copy yardstick and each LayerNorm op, checks every op against the float64
 * reference and frees everything again. */
#ifndef CLNORM_BENCH_CASE_H
#define CLNORM_BENCH_CASE_H

#include "bench_kernels.h"
#include "check.h"

#include <stdint.h>

/* What every case shares: the clnorm context, its OpenCL objects and the run's settings. */
typedef struct bench_env {
    clnorm_context *ctx;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue; /* in-order, profiling enabled */
    const bench_kernels *kernels;
    cl_ulong max_alloc;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    cl_ulong global_mem;    /* CL_DEVICE_GLOBAL_MEM_SIZE */
    int reps;               /* timed repetitions per op (median reported) */
    int warmup;             /* untimed repetitions before them */
    uint64_t seed;
    int verbose;
    unsigned op_mask;       /* bit BENCH_OP_*: the clnorm ops to run; 0 runs them all */
    struct bench_hook *hook; /* NULL, or run in every case after clnorm's ops (--vs) */
} bench_env;

/* The ops measured per case, in this order (indices into the op table of bench_case.c). */
enum {
    BENCH_OP_FORWARD,         /* forward: y, mean, rstd (weight and bias given) */
    BENCH_OP_BACKWARD,        /* backward: dx, dweight, dbias */
    BENCH_OP_BACKWARD_RES,    /* backward with the residual gradient fused into dx */
    BENCH_OP_UNFUSED,         /* backward, then a separate dx += dres kernel */
    BENCH_OP_BACKWARD_DX,     /* backward without dweight/dbias: dx only */
    BENCH_OP_BACKWARD_DX_RES, /* ... with the residual gradient */
    BENCH_NUM_OPS
};
/* Results one case can produce: clnorm's ops and a hook's rows. */
#define BENCH_MAX_CASE_RESULTS (BENCH_NUM_OPS + 4)

typedef struct bench_result {
    const char *impl;    /* "clnorm", or the library compared with (--vs): "onednn" */
    const char *op;      /* "forward", "backward", "backward_res", "unfused", "backward_dx", "backward_dx_res" */
    clnorm_dtype dtype;
    size_t rows, cols;
    int headline;        /* 1: a headline shape of the set; 0: an extra shape (--full's other cols) */
    double ms;           /* median time of one call (NAN: not measured, see note) */
    double gbps;         /* modelled bytes / median time */
    double copy_gbps;    /* float4 copy over a buffer of the tensor's size, same run */
    double fraction;     /* clnorm: median over repetitions of (op GB/s) / (copy GB/s just before it);
                            --vs rows: gbps / copy_gbps */
    double speedup;      /* --vs rows: the other library's median time / clnorm's (same op, dtype and shape),
                            i.e. how many times faster clnorm is; NAN elsewhere */
    char note[128];      /* why a row has no figures ("" when it has) */
} bench_result;

/* What a hook gets of a case: the inputs clnorm's ops used (host copies, dense, storage format)
 * and the copy yardstick measured for this case. */
typedef struct bench_host_case {
    size_t rows, cols;
    clnorm_dtype dt;
    float eps;
    const void *x, *dy;        /* rows x cols */
    const double *wd, *bd;     /* weight and bias (cols), the stored values widened */
    const size_t *sample;      /* rows to check */
    int nsample;
    double copy_gbps;
} bench_host_case;

/* Something measured next to clnorm in each case (clnorm-bench --vs). run appends up to
 * BENCH_MAX_CASE_RESULTS - BENCH_NUM_OPS results (*nres of them), counts its mismatches in cs and
 * returns 0, or nonzero when it failed to run (after printing why). */
typedef struct bench_hook {
    int (*run)(struct bench_hook *hook, const bench_env *env, const bench_host_case *hc, bench_result *res,
        int *nres, check_stats *cs);
} bench_hook;

enum { BENCH_CASE_OK = 0, BENCH_CASE_SKIPPED = 1, BENCH_CASE_ERROR = 2 };

/* Runs one case. res receives up to BENCH_MAX_CASE_RESULTS results (*nres of them: the ops that ran);
 * mismatches are counted in cs. Returns BENCH_CASE_OK, _SKIPPED (does not fit the device) or
 * _ERROR (an OpenCL/clnorm call failed; the reason was printed). */
int bench_case_run(const bench_env *env, size_t rows, size_t cols, clnorm_dtype dt, bench_result *res, int *nres,
    check_stats *cs);

#endif
