/* clnorm-bench — per-dtype element access on the host. */
#include "dtype.h"

#include "half.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

size_t dtype_size(clnorm_dtype dt)
{
    return dt == CLNORM_F32 ? 4 : 2;
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

float dtype_load(clnorm_dtype dt, const void *base, size_t i)
{
    switch (dt) {
    case CLNORM_F32: return ((const float *)base)[i];
    case CLNORM_BF16: return float_from_bf16(((const uint16_t *)base)[i]);
    case CLNORM_F16: return float_from_f16(((const uint16_t *)base)[i]);
    }
    return NAN;
}

void dtype_store(clnorm_dtype dt, void *base, size_t i, float v)
{
    switch (dt) {
    case CLNORM_F32: ((float *)base)[i] = v; break;
    case CLNORM_BF16: ((uint16_t *)base)[i] = bf16_from_float(v); break;
    case CLNORM_F16: ((uint16_t *)base)[i] = f16_from_float(v); break;
    }
}

void dtype_store_row(clnorm_dtype dt, void *base, size_t first, size_t n, const float *in)
{
    /* One switch per row: filling the inputs touches every element of three large tensors. */
    size_t c;
    switch (dt) {
    case CLNORM_F32:
        memcpy((float *)base + first, in, n * sizeof *in);
        break;
    case CLNORM_BF16: {
        uint16_t *p = (uint16_t *)base + first;
        for (c = 0; c < n; ++c)
            p[c] = bf16_from_float(in[c]);
        break;
    }
    case CLNORM_F16: {
        uint16_t *p = (uint16_t *)base + first;
        for (c = 0; c < n; ++c)
            p[c] = f16_from_float(in[c]);
        break;
    }
    }
}

void dtype_load_row(clnorm_dtype dt, const void *base, size_t first, size_t n, double *out)
{
    /* One switch per row: the parameter-gradient reference walks whole tensors (2^26+ elements). */
    size_t c;
    switch (dt) {
    case CLNORM_F32: {
        const float *p = (const float *)base + first;
        for (c = 0; c < n; ++c)
            out[c] = p[c];
        break;
    }
    case CLNORM_BF16: {
        const uint16_t *p = (const uint16_t *)base + first;
        for (c = 0; c < n; ++c)
            out[c] = float_from_bf16(p[c]);
        break;
    }
    case CLNORM_F16: {
        const uint16_t *p = (const uint16_t *)base + first;
        for (c = 0; c < n; ++c)
            out[c] = float_from_f16(p[c]);
        break;
    }
    }
}

double dtype_ulp(clnorm_dtype dt, double v)
{
    int mant_bits, min_exp; /* explicit mantissa bits; exponent of the smallest normal */
    int k, e;
    switch (dt) {
    case CLNORM_BF16: mant_bits = 7; min_exp = -126; break;
    case CLNORM_F16: mant_bits = 10; min_exp = -14; break;
    case CLNORM_F32:
    default: mant_bits = 23; min_exp = -126; break;
    }
    v = fabs(v);
    if (v == 0.0 || !isfinite(v)) {
        e = min_exp;
    } else {
        (void)frexp(v, &k); /* v = m * 2^k, m in [0.5, 1) */
        e = k - 1;
        if (e < min_exp)
            e = min_exp; /* subnormals are evenly spaced at the smallest normal's ulp */
    }
    return ldexp(1.0, e - mant_bits);
}
