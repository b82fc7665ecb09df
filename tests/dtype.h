/* Storage types of the test suite: sizes, names and exact conversions written here (no compiler
 * _Float16), so that the expected bit patterns do not depend on the compiler or the device. */
#ifndef CLNORM_TEST_DTYPE_H
#define CLNORM_TEST_DTYPE_H

#include <clnorm.h>
#include <stddef.h>
#include <stdint.h>

size_t dtype_size(clnorm_dtype dt);
const char *dtype_name(clnorm_dtype dt);

uint32_t f32_bits(float f);
float f32_from_bits(uint32_t u);

/* IEEE float -> bfloat16, round to nearest even; a NaN stays a (quiet) NaN. */
uint16_t f32_to_bf16(float f);
float bf16_to_f32(uint16_t h);

/* IEEE float -> binary16, round to nearest even, subnormals included, overflow to infinity. */
uint16_t f32_to_f16(float f);
float f16_to_f32(uint16_t h);

/* Stores v into element `index` of an array of dt: v is first rounded to float (RNE), then to dt.
 * Returns the value actually stored, as a double. */
double dtype_store(clnorm_dtype dt, void *base, size_t index, double v);
double dtype_load(clnorm_dtype dt, const void *base, size_t index);

/* Spacing of dt's representable numbers at |v| (the ulp of the binade that holds |v|; the
 * smallest subnormal spacing below the normal range). */
double dtype_ulp(clnorm_dtype dt, double v);

#endif
