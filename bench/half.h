/* clnorm-bench — conversions between float and the 16-bit storage formats (host side).
 * The benchmark needs them to fill BF16/F16 inputs and to read results back for the reference
 * check; they must round exactly as the library's stores do (round to nearest even). */
#ifndef CLNORM_BENCH_HALF_H
#define CLNORM_BENCH_HALF_H

#include <stdint.h>

/* bfloat16: the top 16 bits of an IEEE float. */
uint16_t bf16_from_float(float f); /* round to nearest even; NaN stays a (quiet) NaN */
float float_from_bf16(uint16_t h); /* exact */

/* IEEE binary16. */
uint16_t f16_from_float(float f); /* round to nearest even, subnormals included; overflow -> Inf */
float float_from_f16(uint16_t h); /* exact */

#endif
