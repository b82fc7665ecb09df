/* Unit tests of the test suite's own helpers (no OpenCL device needed): the bf16/f16
 * conversions, the float64 reference, and that the tolerances reject the bugs they must catch
 * while accepting a plain fp32 implementation. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "harness.h"
#include "prng.h"
#include "reference.h"
#include "tolerance.h"

START_TEST(f16_known_values)
{
    static const struct { float f; uint16_t h; } cases[] = {
        { 0.0f, 0x0000 }, { -0.0f, 0x8000 }, { 1.0f, 0x3c00 }, { -2.0f, 0xc000 }, { 0.5f, 0x3800 },
        { 65504.0f, 0x7bff }, { 65519.0f, 0x7bff }, { 65520.0f, 0x7c00 }, { 1e6f, 0x7c00 },
        { 0x1p-14f, 0x0400 }, { 0x1p-24f, 0x0001 }, { 0x1p-25f, 0x0000 }, { 0x1.8p-25f, 0x0001 },
        { 0x1.8p-24f, 0x0002 }, /* tie between 1 and 2 subnormal units: even (2) */
        { 0x1.4p-24f, 0x0001 }, { 0x3p-24f, 0x0003 }, { 0x1.ffcp-15f, 0x0400 }, /* rounds up into the normals */
        { 1.0f + 0x1p-11f, 0x3c00 }, /* tie: to even */
        { 1.0f + 0x3p-11f, 0x3c02 }, /* tie: to even (up) */
        { 1.0f + 0x1p-10f, 0x3c01 }, { 3.14159265f, 0x4248 }, { INFINITY, 0x7c00 }, { -INFINITY, 0xfc00 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t h = f32_to_f16(cases[i].f);
        ck_assert_msg(h == cases[i].h, "f32_to_f16(%a) = 0x%04x, expected 0x%04x", (double)cases[i].f, h, cases[i].h);
    }
    uint16_t n = f32_to_f16(NAN);
    ck_assert((n & 0x7c00) == 0x7c00 && (n & 0x3ff) != 0);
    ck_assert(isnan(f16_to_f32(0xffff)) && isnan(f16_to_f32(0x7e00)));
    ck_assert(f16_to_f32(0x0001) == 0x1p-24f);
    ck_assert(f16_to_f32(0x03ff) == 0x3ffp-24f);
    ck_assert(f16_to_f32(0x7bff) == 65504.0f);
    ck_assert(f16_to_f32(0xfc00) == -INFINITY);
}
END_TEST

/* Every binary16 value survives f16 -> f32 -> f16, and rounding a float is correct to nearest:
 * the result is never farther than the neighbours, with ties to the even code. */
START_TEST(f16_round_trip_and_rne)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = f16_to_f32((uint16_t)h);
        if (isnan(f))
            continue;
        ck_assert_msg(f32_to_f16(f) == h, "round trip of 0x%04x", h);
    }
    rng r;
    rng_seed(&r, 16);
    for (int i = 0; i < 200000; i++) {
        float f = f32_from_bits((uint32_t)(rng_next(&r) >> 32));
        if (!isfinite(f) || fabsf(f) >= 65504.0f)
            continue;
        uint16_t h = f32_to_f16(f);
        double v = f16_to_f32(h), err = fabs(v - f);
        double lo = f16_to_f32((uint16_t)(h - ((h & 0x7fff) ? 1 : 0)));
        double hi = f16_to_f32((uint16_t)(h + 1));
        ck_assert_msg(err <= fabs(lo - f) && err <= fabs(hi - f), "f32_to_f16(%a) = 0x%04x not nearest", (double)f, h);
        ck_assert_msg(err <= dtype_ulp(CLNORM_F16, f) / 2, "f32_to_f16(%a): error above half an ulp", (double)f);
    }
}
END_TEST

START_TEST(bf16_known_values)
{
    static const struct { float f; uint16_t h; } cases[] = {
        { 0.0f, 0x0000 }, { -0.0f, 0x8000 }, { 1.0f, 0x3f80 }, { -2.0f, 0xc000 },
        { 1.0f + 0x1p-8f, 0x3f80 },       /* tie: to even (down) */
        { 1.0f + 0x3p-8f, 0x3f82 },       /* tie: to even (up) */
        { 1.0f + 0x1.2p-8f, 0x3f81 },     /* above the tie */
        { 3.4e38f, 0x7f80 },              /* rounds past the largest finite bf16: infinity */
        { INFINITY, 0x7f80 }, { 0x1p-133f, 0x0001 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t h = f32_to_bf16(cases[i].f);
        ck_assert_msg(h == cases[i].h, "f32_to_bf16(%a) = 0x%04x, expected 0x%04x", (double)cases[i].f, h, cases[i].h);
    }
    uint16_t n = f32_to_bf16(f32_from_bits(0x7f800001u)); /* a NaN whose payload lies in the low bits */
    ck_assert_msg((n & 0x7f80) == 0x7f80 && (n & 0x7f) != 0, "NaN became 0x%04x", n);
    ck_assert(bf16_to_f32(0x3f80) == 1.0f);
}
END_TEST

START_TEST(ulp_and_within)
{
    ck_assert(dtype_ulp(CLNORM_F32, 1.0) == 0x1p-23);
    ck_assert(dtype_ulp(CLNORM_F32, 1.5) == 0x1p-23);
    ck_assert(dtype_ulp(CLNORM_BF16, 1.0) == 0x1p-7);
    ck_assert(dtype_ulp(CLNORM_BF16, -3.0) == 0x1p-6);
    ck_assert(dtype_ulp(CLNORM_F16, 1000.0) == 0.5);
    ck_assert(dtype_ulp(CLNORM_F16, 0.0) == 0x1p-24);
    ck_assert(dtype_ulp(CLNORM_F16, 1e-7) == 0x1p-24);
    ck_assert(dtype_ulp(CLNORM_F32, 0.0) == 0x1p-149);
    /* half an ulp of bf16 at 1 is 2^-8 */
    ck_assert(tol_within(CLNORM_BF16, 1.0, 1.0 + 0.4 * 0x1p-7, 0.0));
    ck_assert(!tol_within(CLNORM_BF16, 1.0, 1.0 + 0.6 * 0x1p-7, 0.0)); /* truncation, not RNE */
    ck_assert(tol_within(CLNORM_BF16, 1.0, 1.0 + 0.6 * 0x1p-7, 0.1 * 0x1p-7));
    ck_assert(tol_within(CLNORM_BF16, 2.0, 2.0 - 0.3 * 0x1p-7, 0.0)); /* rounded up into the next binade */
    ck_assert(!tol_within(CLNORM_BF16, 1.0 + 0x1p-7, 1.0, 0.0));
    ck_assert(!tol_within(CLNORM_F32, NAN, 1.0, 1e30));
    ck_assert(!tol_within(CLNORM_F32, 1.0, NAN, 1e30));
    ck_assert(!tol_within(CLNORM_F32, 1.0, 1.0, NAN));
    ck_assert(!tol_within(CLNORM_F16, INFINITY, INFINITY, 1.0));
}
END_TEST

/* Correctly rounded values always pass; truncated ones fail for a good share of the inputs. */
START_TEST(within_accepts_rne_rejects_truncation)
{
    rng r;
    rng_seed(&r, 21);
    size_t caught_bf16 = 0, caught_f16 = 0;
    for (int i = 0; i < 10000; i++) {
        double v = rng_normal(&r) * rng_log_uniform(&r, 1e-3, 1e3);
        float f = (float)v;
        double rne16 = bf16_to_f32(f32_to_bf16(f)), trunc16 = bf16_to_f32((uint16_t)(f32_bits(f) >> 16));
        ck_assert_msg(tol_within(CLNORM_BF16, rne16, v, 1e-12 * fabs(v)), "bf16 RNE of %.9g rejected", v);
        caught_bf16 += !tol_within(CLNORM_BF16, trunc16, v, 1e-12 * fabs(v));
        double rneh = f16_to_f32(f32_to_f16(f));
        uint16_t h = f32_to_f16(f);
        double towards0 = fabs(rneh) > fabs(f) ? f16_to_f32((uint16_t)(h - 1)) : rneh; /* truncation */
        ck_assert_msg(tol_within(CLNORM_F16, rneh, v, 1e-12 * fabs(v)), "f16 RNE of %.9g rejected", v);
        caught_f16 += !tol_within(CLNORM_F16, towards0, v, 1e-12 * fabs(v));
    }
    ck_assert_msg(caught_bf16 > 3000 && caught_f16 > 3000, "truncation caught %zu (bf16), %zu (f16) of 10000",
                  caught_bf16, caught_f16);
}
END_TEST

START_TEST(reference_forward_small)
{
    const double x[4] = { 1, 2, 3, 6 }, w[4] = { 1, 2, -1, 0.5 }, b[4] = { 0, 1, 0, -1 };
    double y[4], m, rs;
    ref_forward(1, 4, 0.0, x, w, b, y, &m, &rs);
    /* mean 3, var (4 + 1 + 0 + 9) / 4 = 3.5 */
    ck_assert(fabs(m - 3.0) < 1e-15);
    ck_assert(fabs(rs - 1.0 / sqrt(3.5)) < 1e-15);
    ck_assert(fabs(y[0] - (-2.0 / sqrt(3.5))) < 1e-15);
    ck_assert(fabs(y[1] - (-2.0 / sqrt(3.5) + 1.0)) < 1e-15);
    ck_assert(fabs(y[2] - 0.0) < 1e-15);
    ck_assert(fabs(y[3] - (1.5 / sqrt(3.5) - 1.0)) < 1e-15);
}
END_TEST

/* The backward reference agrees with central differences of the forward reference, and the
 * residual is added on top. */
START_TEST(reference_backward_matches_finite_differences)
{
    enum { R = 3, C = 5 };
    rng r;
    rng_seed(&r, 7);
    double x[R * C], w[C], b[C], dy[R * C], dres[R * C], m[R], rs[R], dx[R * C], dw[C], db[C];
    for (int i = 0; i < R * C; i++) {
        x[i] = rng_range(&r, -2, 3);
        dy[i] = rng_normal(&r);
        dres[i] = rng_normal(&r);
    }
    for (int i = 0; i < C; i++) {
        w[i] = rng_range(&r, 0.5, 2);
        b[i] = rng_range(&r, -1, 1);
    }
    const double eps = 1e-3;
    ref_forward(R, C, eps, x, w, b, NULL, m, rs);
    ref_backward(R, C, dy, x, w, m, rs, dres, dx, dw, db);
    /* loss = sum(dy * y): d loss / d x by central differences (mean/rstd recomputed: true gradient) */
    for (int i = 0; i < R * C; i++) {
        double xp[R * C], yp[R * C], ym[R * C], h = 1e-6, lp = 0, lm = 0;
        memcpy(xp, x, sizeof x);
        xp[i] = x[i] + h;
        ref_forward(R, C, eps, xp, w, b, yp, NULL, NULL);
        xp[i] = x[i] - h;
        ref_forward(R, C, eps, xp, w, b, ym, NULL, NULL);
        for (int j = 0; j < R * C; j++) {
            lp += dy[j] * yp[j];
            lm += dy[j] * ym[j];
        }
        double fd = (lp - lm) / (2 * h);
        ck_assert_msg(fabs(dx[i] - dres[i] - fd) < 1e-6, "dx[%d] %.12g vs finite difference %.12g", i, dx[i] - dres[i], fd);
    }
    for (int c = 0; c < C; c++) {
        double sdb = 0, sdw = 0;
        for (int i = 0; i < R; i++) {
            sdb += dy[i * C + c];
            sdw += dy[i * C + c] * (x[i * C + c] - m[i]) * rs[i];
        }
        ck_assert(fabs(db[c] - sdb) < 1e-12 && fabs(dw[c] - sdw) < 1e-12);
    }
}
END_TEST

/* rows with mean 1e4 and std 1, cols 4096: a two-pass fp32 computation passes the rstd and y
 * bounds, the one-pass E[x^2] - E[x]^2 fails them; a mean off by a dropped element fails too. */
START_TEST(tolerance_catches_one_pass_variance)
{
    enum { C = 4096 };
    static double x[C], y[C], ty[C];
    rng r;
    rng_seed(&r, 11);
    for (int i = 0; i < C; i++)
        x[i] = (float)(1e4 + rng_normal(&r));
    double m, rs, tm, tr;
    ref_forward(1, C, 1e-5, x, NULL, NULL, y, &m, &rs);
    tol_forward(1, C, x, NULL, NULL, &m, &rs, ty, &tm, &tr);

    float s = 0, s2 = 0, sq = 0;
    for (int i = 0; i < C; i++) {
        s += (float)x[i];
        s2 += (float)x[i] * (float)x[i];
    }
    float mean32 = s / C;
    for (int i = 0; i < C; i++)
        sq += ((float)x[i] - mean32) * ((float)x[i] - mean32);
    float rstd_two = 1.0f / sqrtf(sq / C + 1e-5f);
    float var_one = s2 / C - mean32 * mean32;
    float rstd_one = 1.0f / sqrtf(fmaxf(var_one, 0.0f) + 1e-5f);
    ck_assert_msg(tol_within(CLNORM_F32, mean32, m, tm), "fp32 mean %.9g vs %.9g (tol %.3g)", (double)mean32, m, tm);
    ck_assert_msg(tol_within(CLNORM_F32, rstd_two, rs, tr), "two-pass rstd %.9g vs %.9g (tol %.3g)", (double)rstd_two, rs, tr);
    ck_assert_msg(!tol_within(CLNORM_F32, rstd_one, rs, tr), "one-pass rstd %.9g accepted vs %.9g (tol %.3g)",
                  (double)rstd_one, rs, tr);
    size_t ok_two = 0, bad_one = 0;
    for (int i = 0; i < C; i++) {
        ok_two += tol_within(CLNORM_F32, ((float)x[i] - mean32) * rstd_two, y[i], ty[i]);
        bad_one += !tol_within(CLNORM_F32, ((float)x[i] - mean32) * rstd_one, y[i], ty[i]);
    }
    ck_assert_msg(ok_two == C, "two-pass fp32 y: %zu of %d within tolerance", ok_two, C);
    ck_assert_msg(bad_one > C / 4, "one-pass y: only %zu of %d rejected", bad_one, C);
    float mean_dropped = (s - (float)x[C - 1]) / C; /* one element missing from the sum */
    ck_assert(!tol_within(CLNORM_F32, mean_dropped, m, tm));
}
END_TEST

/* dx without the residual added is rejected, and so is a backward whose xhat uses a wrong mean. */
START_TEST(tolerance_catches_backward_bugs)
{
    enum { R = 4, C = 300 };
    static double x[R * C], dy[R * C], dres[R * C], dx[R * C], dx0[R * C], tdx[R * C], w[C];
    double m[R], rs[R];
    rng r;
    rng_seed(&r, 13);
    for (int i = 0; i < R * C; i++) {
        x[i] = 2.0 + 3.0 * rng_normal(&r);
        dy[i] = rng_normal(&r);
        dres[i] = 0.1 + 0.5 * rng_normal(&r);
    }
    for (int i = 0; i < C; i++)
        w[i] = rng_range(&r, 0.25, 2);
    ref_forward(R, C, 1e-5, x, NULL, NULL, NULL, m, rs);
    ref_backward(R, C, dy, x, w, m, rs, dres, dx, NULL, NULL);
    tol_backward(R, C, dy, x, w, m, rs, dres, tdx, NULL, NULL);
    ref_backward(R, C, dy, x, w, m, rs, NULL, dx0, NULL, NULL);
    size_t caught = 0;
    for (int i = 0; i < R * C; i++)
        caught += !tol_within(CLNORM_F32, dx0[i], dx[i], tdx[i]);
    ck_assert_msg(caught > R * C * 9 / 10, "missing residual caught in %zu of %d", caught, R * C);
    double m_bad[R];
    for (int i = 0; i < R; i++)
        m_bad[i] = m[i] + 1e-3 / rs[i]; /* mean off by 0.001 standard deviations */
    ref_backward(R, C, dy, x, w, m_bad, rs, dres, dx0, NULL, NULL);
    caught = 0;
    for (int i = 0; i < R * C; i++)
        caught += !tol_within(CLNORM_F32, dx0[i], dx[i], tdx[i]);
    ck_assert_msg(caught > R * C / 10, "wrong mean caught in %zu of %d", caught, R * C);
}
END_TEST

static Suite *reference_suite(void)
{
    Suite *s = suite_create("reference");
    TCase *tc = tcase_create("conversions");
    tcase_add_test(tc, f16_known_values);
    tcase_add_test(tc, f16_round_trip_and_rne);
    tcase_add_test(tc, bf16_known_values);
    tcase_add_test(tc, ulp_and_within);
    tcase_add_test(tc, within_accepts_rne_rejects_truncation);
    suite_add_tcase(s, tc);
    tc = tcase_create("reference");
    tcase_add_test(tc, reference_forward_small);
    tcase_add_test(tc, reference_backward_matches_finite_differences);
    tcase_add_test(tc, tolerance_catches_one_pass_variance);
    tcase_add_test(tc, tolerance_catches_backward_bugs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(reference_suite());
}
