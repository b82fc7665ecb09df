/* Seeded pseudo-random numbers (SplitMix64): every test input is reproducible from its seed. */
#ifndef CLNORM_TEST_PRNG_H
#define CLNORM_TEST_PRNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t state;
} rng;

void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
double rng_uniform(rng *r);                     /* [0, 1) */
double rng_range(rng *r, double lo, double hi); /* [lo, hi) */
double rng_normal(rng *r);                      /* standard normal (Box-Muller) */
double rng_log_uniform(rng *r, double lo, double hi); /* log-uniform in [lo, hi), lo > 0 */

#endif
