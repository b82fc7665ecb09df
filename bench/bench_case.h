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
} bench_env;

/* The ops measured per case, in this order. */
#define BENCH_NUM_OPS 4

typedef struct bench_result {
    const char *op;      /* "forward", "backward", "backward_res", "unfused" */
    clnorm_dtype dtype;
    size_t rows, cols;
    double ms;           /* median device time of one call */
    double gbps;         /* modelled bytes / median time */
    double copy_gbps;    /* float4 copy over a buffer of the tensor's size, same run */
    double fraction;     /* gbps / copy_gbps */
} bench_result;

enum { BENCH_CASE_OK = 0, BENCH_CASE_SKIPPED = 1, BENCH_CASE_ERROR = 2 };

/* Runs one case. res receives up to BENCH_NUM_OPS results (*nres of them: the ops that ran);
 * mismatches are counted in cs. Returns BENCH_CASE_OK, _SKIPPED (does not fit the device) or
 * _ERROR (an OpenCL/clnorm call failed; the reason was printed). */
int bench_case_run(const bench_env *env, size_t rows, size_t cols, clnorm_dtype dt, bench_result *res, int *nres,
    check_stats *cs);

#endif
