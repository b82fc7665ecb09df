/* clnorm — probes: a device path that the host cannot vouch for from device queries alone is run
 * once on a known input before any kernel relies on it.
 *
 * X86_BF16: PoCL compiles for the LLVM CPU model it knows (LLVM 15 has no Zen 4, so such a host
 * gets "skylake-avx512" code), while the host CPU may have AVX512_BF16; the kernels then convert
 * fp32 to bf16 with vcvtneps2bf16 through inline assembly. Whether that assembles, runs, and rounds
 * exactly like the portable path (round to nearest even, NaN kept a quiet NaN of the same sign,
 * overflow to infinity; zeros and denormals, which the instruction reads as zero, made exact by
 * common.cl's exponent trick: ties, carries into the smallest normal, signs) is checked here, with
 * both vector widths the kernels use, on 32 values; a failure of any kind just means "not used". */
#include "internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_N 32

static uint16_t bf16_rne(uint32_t u)
{
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

static void probe_inputs(uint32_t in[PROBE_N])
{
    /* the first 16 (one vector of 16, two of 8): normal values, infinities and NaNs, no zero exponent */
    static const uint32_t through[] = {
        0x3F800000u, /* 1 */
        0x3F808000u, /* 1 + 2^-8: a tie, to even (1) */
        0x3F818000u, /* 1 + 3*2^-8: a tie, to even (up) */
        0xBF808001u, /* just above a tie: away from zero */
        0x40490FDBu, /* pi */
        0x7F800000u, /* +inf */
        0xFF800000u, /* -inf */
        0x7F7FFFFFu, /* FLT_MAX: rounds to +inf */
        0x7FC00000u, /* quiet NaN */
        0x7FFFFFFFu, /* NaN with every payload bit set: must not wrap to -0 */
        0x7F800001u, /* signalling NaN: must come back a quiet NaN */
        0xFFC00001u, /* negative NaN */
        0x00800000u, /* smallest normal */
        0x80FFFFFFu, /* rounds up into the next binade */
        0x477FFF80u, /* 65535.5: a tie that carries */
        0xC2F6E979u, /* -123.456 */
    };
    /* the next 16 hold zeros and denormals (all of one vector of 8, 2 lanes of the next, mixed
     * with normals), which the instruction reads as zero: stv_bf16 must make them exact too */
    static const uint32_t around[] = {
        0x80000000u, /* -0 */
        0x00000000u, /* +0 */
        0x00000001u, /* the smallest denormal: rounds to +0 */
        0x807FFFFFu, /* the largest denormal: rounds up to the smallest normal, sign kept */
        0x00400000u, /* exact */
        0x00008000u, /* a tie, to even (0) */
        0x80018000u, /* a tie, to even (up: -0x0002) */
        0x007F8000u, /* a tie that carries into the smallest normal */
        0x00017FFFu, /* just below a tie: down */
        0x807F7FFFu, /* just below a tie at the top: down, sign kept */
    };
    uint32_t s = 0x9E3779B9u;
    for (size_t i = 0; i < PROBE_N; ++i) {
        s = s * 1664525u + 1013904223u;
        const uint32_t random_normal = (s & 0x8FFFFFFFu) | 0x30000000u;
        in[i] = i < 16 ? through[i] : i - 16 < sizeof around / sizeof *around ? around[i - 16] : random_normal;
    }
}

/* 1: the bits matched; 0: they did not; -1: an OpenCL call failed (may pass later: retried, up to
 * PROBE_TRIES times, below) */
static int run_probe(cl_context clctx, cl_device_id dev, int vec)
{
    const char *src[2] = {(const char *)clnorm_cl_common, (const char *)clnorm_cl_probe};
    const size_t len[2] = {clnorm_cl_common_len, clnorm_cl_probe_len};
    uint32_t in[PROBE_N];
    uint16_t out[PROBE_N];
    probe_inputs(in);
    memset(out, 0, sizeof out);
    int ok = -1;
    char options[96];
    snprintf(options, sizeof options, "-cl-std=CL1.2 -DVEC=%d -DBF16_ZEXT -DX86_BF16", vec);
    cl_int err;
    cl_program prog = clCreateProgramWithSource(clctx, 2, src, len, &err);
    cl_kernel k = NULL;
    cl_command_queue q = NULL;
    cl_mem bin = NULL, bout = NULL;
    if (err == CL_SUCCESS)
        err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err == CL_SUCCESS)
        k = clCreateKernel(prog, "clnorm_probe", &err);
    if (err == CL_SUCCESS)
        q = clCreateCommandQueue(clctx, dev, 0, &err);
    if (err == CL_SUCCESS)
        bin = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    if (err == CL_SUCCESS)
        bout = clCreateBuffer(clctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof bin, &bin);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 1, sizeof bout, &bout);
    const size_t one = 1;
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    if (err == CL_SUCCESS) {
        ok = 1;
        for (size_t i = 0; i < PROBE_N; ++i)
            if (out[i] != bf16_rne(in[i]))
                ok = 0;
    }
    if (bout)
        clReleaseMemObject(bout);
    if (bin)
        clReleaseMemObject(bin);
    if (q)
        clReleaseCommandQueue(q);
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    return ok;
}

/* Remembered per device for the process: contexts are created often (tests, bindings), and the
 * answer does not change. A handful of devices in practice; the list grows as needed (a fixed 8
 * once left a ninth device to probe again on every call). A probe whose OpenCL calls failed may
 * pass later (resources), so it is tried again, but PROBE_TRIES times at most: after that the
 * device is remembered as without the instruction (the portable store, the same bits), so that
 * a lasting failure does not rebuild the probe on every bf16 call. */
enum { PROBE_TRIES = 3 };
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct memo_entry {
    cl_device_id dev;
    bool known; /* ok is the answer; else fails probes have failed so far */
    bool ok;
    int fails;
} *memo;
static size_t nmemo, memo_cap;

bool clnorm__probe_x86_bf16(const clnorm_context *ctx)
{
    if (!ctx->info.x86_bf16)
        return false;
    pthread_mutex_lock(&memo_lock);
    struct memo_entry *e = NULL;
    for (size_t i = 0; i < nmemo && !e; ++i)
        if (memo[i].dev == ctx->device)
            e = &memo[i];
    if (e && e->known) {
        const bool ok = e->ok;
        pthread_mutex_unlock(&memo_lock);
        return ok;
    }
    const int r16 = run_probe(ctx->cl_ctx, ctx->device, 16);
    const int r8 = r16 == 1 ? run_probe(ctx->cl_ctx, ctx->device, 8) : r16;
    const bool ok = r16 == 1 && r8 == 1;
    if (!e && nmemo == memo_cap) { /* (out of memory: not remembered, probed again) */
        const size_t cap = memo_cap ? 2 * memo_cap : 8;
        struct memo_entry *m = realloc(memo, cap * sizeof *m);
        if (m) {
            memo = m;
            memo_cap = cap;
        }
    }
    if (!e && nmemo < memo_cap) {
        e = &memo[nmemo++];
        e->dev = ctx->device;
        e->known = false;
        e->fails = 0;
    }
    if (e) {
        const bool failed = r16 < 0 || r8 < 0;
        e->fails += failed;
        e->known = !failed || e->fails >= PROBE_TRIES;
        e->ok = ok;
    }
    pthread_mutex_unlock(&memo_lock);
    return ok;
}
