/* clnorm-bench — a small seeded PRNG (SplitMix64) so that runs are repeatable: the same seed gives
 * the same inputs, hence the same reference values and the same sampled rows. */
#ifndef CLNORM_BENCH_RNG_H
#define CLNORM_BENCH_RNG_H

#include <stdint.h>

typedef struct bench_rng {
    uint64_t state;
} bench_rng;

static inline uint64_t rng_next(bench_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1): 24 random bits, exact in float. */
static inline float rng_uniform(bench_rng *r)
{
    return (float)(rng_next(r) >> 40) * 0x1p-23f - 1.0f;
}

#endif
