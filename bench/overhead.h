/* clnorm-bench --overhead — host time of one enqueue, without waiting on the device per call. */
#ifndef CLNORM_BENCH_OVERHEAD_H
#define CLNORM_BENCH_OVERHEAD_H

#include "bench_case.h"

/* Times `calls` forward and `calls` backward (dweight, dbias, residual) enqueues of a small shape
 * (rows x cols F32) after a warm-up, prints the median and 90th percentile of the host time per
 * call in microseconds. Returns 0 or an error. */
int bench_overhead(const bench_env *env, size_t rows, size_t cols, int calls);

#endif
