/* clnorm-bench — host-side access to tensors stored in a clnorm_dtype (size, name, load, store,
 * rounding unit), so the rest of the benchmark handles F32, BF16 and F16 through one interface. */
#ifndef CLNORM_BENCH_DTYPE_H
#define CLNORM_BENCH_DTYPE_H

#include <clnorm.h>
#include <stddef.h>

size_t dtype_size(clnorm_dtype dt);       /* bytes per element */
const char *dtype_name(clnorm_dtype dt);  /* "f32", "bf16", "f16" */

float dtype_load(clnorm_dtype dt, const void *base, size_t i);
void dtype_store(clnorm_dtype dt, void *base, size_t i, float v); /* rounds to nearest even */
/* n floats stored as consecutive elements starting at element first (round to nearest even). */
void dtype_store_row(clnorm_dtype dt, void *base, size_t first, size_t n, const float *in);
/* n consecutive elements starting at element first, widened to double. */
void dtype_load_row(clnorm_dtype dt, const void *base, size_t first, size_t n, double *out);

/* The spacing of dt's representable values at magnitude |v| (one unit in the last place),
 * subnormal range included. Used to express tolerances in ulps of the stored result. */
double dtype_ulp(clnorm_dtype dt, double v);

#endif
