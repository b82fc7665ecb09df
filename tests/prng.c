#include "prng.h"

#include <math.h>

void rng_seed(rng *r, uint64_t seed)
{
    r->state = seed ^ 0x6a09e667f3bcc909ull;
}

uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double rng_uniform(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double rng_range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * rng_uniform(r);
}

double rng_normal(rng *r)
{
    const double two_pi = 6.283185307179586476925286766559;
    double u1 = 1.0 - rng_uniform(r); /* (0, 1]: log() stays finite */
    double u2 = rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(two_pi * u2);
}

double rng_log_uniform(rng *r, double lo, double hi)
{
    return exp(rng_range(r, log(lo), log(hi)));
}
