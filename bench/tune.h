/* clnorm-bench --tune — searches the launch parameters (through CLNORM_TUNE) for one shape. */
#ifndef CLNORM_BENCH_TUNE_H
#define CLNORM_BENCH_TUNE_H

#include "bench_case.h"

/* Times forward (weight, bias, mean, rstd) and backward (dweight, dbias) under each candidate
 * CLNORM_TUNE value on one shape, prints one line per candidate and the best of each op.
 * Inputs are patterned, not random: only times are measured here. Returns 0 or an error. */
int bench_tune_shape(const bench_env *env, size_t rows, size_t cols, clnorm_dtype dt);

#endif
