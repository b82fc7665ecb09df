/* clnorm-bench — float <-> bf16 / f16 conversions with round to nearest even.
 * Written on bit patterns (memcpy, no type punning through unions) so the result does not depend
 * on the host's floating-point environment or the compiler's excess precision. */
#include "half.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t bf16_from_float(float f)
{
    uint32_t u = bits_of(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) /* NaN: truncating could give Inf, so force a quiet bit */
        return (uint16_t)((u >> 16) | 0x40u);
    /* Adding 0x7FFF plus the lowest kept bit rounds half-way cases to the even neighbour; a carry
     * out of the mantissa correctly bumps the exponent (up to Inf). */
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

float float_from_bf16(uint16_t h)
{
    return float_of((uint32_t)h << 16);
}

uint16_t f16_from_float(float f)
{
    uint32_t u = bits_of(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7FFFFFFFu;

    if (a > 0x7F800000u) /* NaN: keep the top payload bits, make sure it stays a NaN */
        return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
    if (a >= 0x477FF000u) /* >= 65520 (half-way between 65504 and 65536, ties to even = up): Inf */
        return (uint16_t)(sign | 0x7C00u);
    if (a >= 0x38800000u) { /* normal half (>= 2^-14): rebias the exponent from 127 to 15 */
        uint32_t r = a - 0x38000000u;
        r = (r + 0xFFFu + ((r >> 13) & 1u)) >> 13;
        return (uint16_t)(sign | r);
    }
    if (a <= 0x33000000u) /* <= 2^-25: rounds to zero (2^-25 itself is a tie, to even 0) */
        return sign;
    /* Subnormal half: count in units of 2^-24. value = m * 2^(e-150) = m * 2^(e-126) units. */
    {
        uint32_t e = a >> 23;
        uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 here */
        uint32_t q = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (q & 1u)))
            ++q; /* may carry into the smallest normal (0x400), which is the right encoding */
        return (uint16_t)(sign | q);
    }
}

float float_from_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1Fu;
    uint32_t m = h & 0x3FFu;
    if (e == 0) { /* zero or subnormal: m * 2^-24, exact in float */
        float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    if (e == 31)
        return float_of(sign | 0x7F800000u | (m << 13));
    return float_of(sign | ((e + 112u) << 23) | (m << 13));
}
