#include "dtype.h"

#include <math.h>
#include <string.h>

size_t dtype_size(clnorm_dtype dt)
{
    return dt == CLNORM_F32 ? 4u : 2u;
}

const char *dtype_name(clnorm_dtype dt)
{
    switch (dt) {
    case CLNORM_F32: return "f32";
    case CLNORM_BF16: return "bf16";
    case CLNORM_F16: return "f16";
    }
    return "?";
}

uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u); /* quiet NaN, sign and top payload kept */
    u += 0x7fffu + ((u >> 16) & 1u);            /* round to nearest, ties to even */
    return (uint16_t)(u >> 16);
}

float bf16_to_f32(uint16_t h)
{
    return f32_from_bits((uint32_t)h << 16);
}

/* Rounds q + rem/2^shift to the nearest integer, ties to even. */
static uint32_t round_shifted(uint32_t value, unsigned shift)
{
    uint32_t q = value >> shift;
    uint32_t rem = value & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u)))
        q++;
    return q;
}

uint16_t f32_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;

    if (a > 0x7f800000u) /* NaN: quiet, top payload bits kept */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520 rounds (to even) past 65504: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) { /* below 2^-14: a binary16 subnormal or zero */
        if (a <= 0x33000000u) /* <= 2^-25: the tie at 2^-25 goes to the even 0 */
            return sign;
        uint32_t e = a >> 23;                       /* 102 .. 112 */
        uint32_t m = (a & 0x7fffffu) | 0x800000u;   /* value = m * 2^(e-150) */
        /* in units of 2^-24: m * 2^(e-126) = m >> (126 - e); 0x400 (carry) is the smallest normal */
        return (uint16_t)(sign | round_shifted(m, 126u - e));
    }
    /* normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits; a carry into the
     * exponent field is the correct next binade (or infinity, excluded above) */
    return (uint16_t)(sign | round_shifted(a - 0x38000000u, 13u));
}

float f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1fu)
        return f32_from_bits(sign | 0x7f800000u | (m << 13)); /* inf / NaN */
    if (e == 0) {
        float v = (float)ldexp((double)m, -24); /* zero or subnormal: exact */
        return sign ? -v : v;
    }
    return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

double dtype_store(clnorm_dtype dt, void *base, size_t index, double v)
{
    float f = (float)v;
    unsigned char *p = (unsigned char *)base;
    switch (dt) {
    case CLNORM_F32:
        memcpy(p + 4 * index, &f, 4);
        break;
    case CLNORM_BF16: {
        uint16_t h = f32_to_bf16(f);
        memcpy(p + 2 * index, &h, 2);
        break;
    }
    case CLNORM_F16: {
        uint16_t h = f32_to_f16(f);
        memcpy(p + 2 * index, &h, 2);
        break;
    }
    }
    return dtype_load(dt, base, index);
}

double dtype_load(clnorm_dtype dt, const void *base, size_t index)
{
    const unsigned char *p = (const unsigned char *)base;
    uint16_t h;
    float f;
    switch (dt) {
    case CLNORM_F32:
        memcpy(&f, p + 4 * index, 4);
        return f;
    case CLNORM_BF16:
        memcpy(&h, p + 2 * index, 2);
        return bf16_to_f32(h);
    case CLNORM_F16:
        memcpy(&h, p + 2 * index, 2);
        return f16_to_f32(h);
    }
    return NAN;
}

double dtype_ulp(clnorm_dtype dt, double v)
{
    int mant_bits = dt == CLNORM_F32 ? 23 : dt == CLNORM_BF16 ? 7 : 10;
    int emin = dt == CLNORM_F16 ? -14 : -126;
    int e;
    double a = fabs(v);
    if (!(a < INFINITY)) /* inf or NaN: no finite spacing; comparisons against it must fail */
        return NAN;
    if (a == 0.0)
        e = emin;
    else {
        (void)frexp(a, &e); /* a = f * 2^e, f in [0.5, 1): the binade is 2^(e-1) */
        e -= 1;
        if (e < emin)
            e = emin;
    }
    return ldexp(1.0, e - mant_bits);
}
