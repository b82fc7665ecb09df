/* The kernels' fp32 -> bf16 store (cl/common.cl's stv_bf16), one vector per work-item, on every
 * fp32 bit pattern whose exponent field is zero (zeros and denormals of both signs: 2^24
 * values) and on as many other patterns (normals of every exponent, infinities, NaNs with payloads,
 * signalling ones), against round-to-nearest-even computed here, bit for bit.
 *
 * Paths: on any device the portable roundings, in natural order (BF16_ZEXT, the CPU row's) and as
 * (even, odd) pairs (no mode: the other rows'); on a PoCL host whose CPU has AVX512_BF16 also the
 * X86_BF16 path (vcvtneps2bf16, which reads denormals as zero, with common.cl's branch-free fix-up
 * of the zero-exponent lanes) at both vector widths the kernels use; on an NVIDIA GPU of compute
 * capability 8 or more the NV_CVT path (inline PTX cvt.rn.bf16x2.f32), whose NaNs are checked to
 * be quiet NaNs only (it gives the canonical 0x7FFF; the other paths keep the sign and payload).
 * The library's own probe checks 32 values before it takes X86_BF16; this checks them all. The
 * first eighth of the input is zero-exponent values only (every lane of every vector takes the
 * fix-up), the last eighth other values only, the rest both shuffled together (vectors with any
 * mix of lanes). */
#include "dtype.h"
#include "harness.h"
#include "prng.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the kernels' helpers, from the library's generated file (compiled into this test too) */
extern const unsigned char clnorm_cl_common[];
extern const size_t clnorm_cl_common_len;

/* each item stores one vector through the kernels' own load and store macros */
static const char store_kernel[] = "__kernel void store_bf16(const __global float *in, __global ushort *out)\n"
                                   "{\n"
                                   "    const long i = (long)get_global_id(0) * VEC;\n"
                                   "    STV(bf16, out, i, LDV(f32, in, i));\n"
                                   "}\n";

/* TAIL elements after the N outputs: poisoned, and must come back untouched */
enum { ZERO_EXP = 1 << 24, N = 2 * ZERO_EXP, TAIL = 64 };

static uint32_t *inputs(void)
{
    uint32_t *in = malloc(N * sizeof *in);
    ck_assert_ptr_nonnull(in);
    rng g;
    rng_seed(&g, 0xbf16570e);
    for (uint32_t i = 0; i < ZERO_EXP; ++i) /* sign and 23 mantissa bits, exponent 0 */
        in[i] = (i & 1u) << 31 | i >> 1;
    for (uint32_t i = 0; i < ZERO_EXP; ++i) {
        uint32_t u = (uint32_t)rng_next(&g);
        if ((u & 0x7F800000u) == 0) /* exponent 0 is covered above: take 1 */
            u |= 0x00800000u;
        if (i % 64 == 0) /* infinities and NaNs: exponent 255 */
            u |= 0x7F800000u;
        in[ZERO_EXP + i] = u;
    }
    for (uint32_t i = N / 8; i < N - N / 8; ++i) { /* shuffle the middle (Fisher-Yates) */
        const uint32_t j = i + (uint32_t)(rng_next(&g) % (N - N / 8 - i));
        const uint32_t t = in[i];
        in[i] = in[j];
        in[j] = t;
    }
    return in;
}

/* Runs store_bf16 over all N inputs with these options (VEC = vec); returns the mismatches with
 * the harness's round-to-nearest-even (dtype.c) and the tail elements written (the first few of
 * either printed). nan_any: a NaN input may come out as any quiet NaN, not only the harness's
 * (its sign and top payload bits, quieted): NVIDIA's cvt.rn.bf16x2.f32 gives the canonical
 * 0x7FFF (an H100, session 38), and the library promises a NaN, not its payload. */
static size_t run_store(const uint32_t *in, int vec, const char *options, bool nan_any)
{
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    cl_device_id dev = clnorm_context_device(ctx);
    const char *src[2] = {(const char *)clnorm_cl_common, store_kernel};
    const size_t len[2] = {clnorm_cl_common_len, sizeof store_kernel - 1};
    cl_int err;
    cl_program prog = clCreateProgramWithSource(c, 2, src, len, &err);
    CL_OK(err);
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        ck_abort_msg("build with \"%s\" failed (%d): %s", options, (int)err, log);
    }
    cl_kernel k = clCreateKernel(prog, "store_bf16", &err);
    CL_OK(err);
    cl_mem bin = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *in, (void *)in, &err);
    CL_OK(err);
    cl_mem bout = clCreateBuffer(c, CL_MEM_WRITE_ONLY, (N + TAIL) * sizeof(uint16_t), NULL, &err);
    CL_OK(err);
    uint16_t *out = malloc((N + TAIL) * sizeof *out);
    ck_assert_ptr_nonnull(out);
    const uint16_t poison = 0x5A5A; /* an element left unwritten fails, unless 0x5A5A is its answer */
    CL_OK(clEnqueueFillBuffer(clnorm_context_queue(ctx), bout, &poison, sizeof poison, 0, (N + TAIL) * sizeof *out, 0,
                              NULL, NULL));
    CL_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
    CL_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
    const size_t items = N / (size_t)vec;
    CL_OK(clEnqueueNDRangeKernel(clnorm_context_queue(ctx), k, 1, NULL, &items, NULL, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), bout, CL_TRUE, 0, (N + TAIL) * sizeof *out, out, 0, NULL,
                              NULL));
    size_t bad = 0;
    for (size_t i = 0; i < N + TAIL; ++i) {
        const uint16_t want = i < N ? f32_to_bf16(f32_from_bits(in[i])) : poison;
        const bool nan_in = i < N && (in[i] & 0x7F800000u) == 0x7F800000u && (in[i] & 0x007FFFFFu) != 0;
        const bool quiet_nan_out = (out[i] & 0x7F80u) == 0x7F80u && (out[i] & 0x0040u) != 0;
        if (nan_any && nan_in && quiet_nan_out)
            continue;
        if (out[i] != want && bad++ < 8)
            fprintf(stderr, "%s: [%zu] 0x%08x -> 0x%04x, expected 0x%04x\n", options, i, i < N ? (unsigned)in[i] : 0u,
                    (unsigned)out[i], (unsigned)want);
    }
    free(out);
    clReleaseMemObject(bout);
    clReleaseMemObject(bin);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    return bad;
}

/* the device's NVIDIA compute capability (cl_nv_device_attribute_query), 0 elsewhere */
static unsigned nv_compute_capability(void)
{
    cl_device_id dev = clnorm_context_device(test_context());
    char ext[8192] = "";
    cl_uint cc = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL) == CL_SUCCESS &&
        strstr(ext, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(dev, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, sizeof cc, &cc, NULL) != CL_SUCCESS)
        cc = 0;
    return cc;
}

START_TEST(bf16_store_every_zero_exponent_pattern)
{
    uint32_t *in = inputs();
    const bool x86 = test_pocl_x86_avx512_bf16(), nv = nv_compute_capability() >= 8;
    static const struct {
        int vec;
        const char *modes;
        int x86, nv; /* needs AVX512_BF16 / NVIDIA sm_80+ (whose NaNs come out canonical) */
    } paths[] = {
        {16, " -DBF16_ZEXT", 0, 0}, {8, "", 0, 0}, {16, " -DBF16_ZEXT -DX86_BF16", 1, 0},
        {8, " -DBF16_ZEXT -DX86_BF16", 1, 0}, {4, " -DNV_CVT", 0, 1}, {8, " -DNV_CVT", 0, 1},
    };
    for (size_t p = 0; p < sizeof paths / sizeof *paths; ++p) {
        if ((paths[p].x86 && !x86) || (paths[p].nv && !nv))
            continue;
        char opt[160];
        snprintf(opt, sizeof opt, "-cl-std=CL1.2 -DVEC=%d%s", paths[p].vec, paths[p].modes);
        const size_t bad = run_store(in, paths[p].vec, opt, paths[p].nv);
        ck_assert_msg(bad == 0, "%zu of %d stores differ from round-to-nearest-even (or wrote past the end) with \"%s\"",
                      bad, (int)N, opt);
    }
    free(in);
}
END_TEST

static Suite *bf16_store_suite(void)
{
    Suite *s = suite_create("bf16_store");
    TCase *tc = tcase_create("exhaustive");
    tcase_add_test(tc, bf16_store_every_zero_exponent_pattern);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(bf16_store_suite());
}
