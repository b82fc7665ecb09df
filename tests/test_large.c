/* 64-bit sizes: rows * cols > 2^32 elements (BF16, about 8 GiB per tensor), forward and backward
 * with the residual gradient, checked on sampled rows — the first, the last, and rows on both sides
 * of the 2^31 and 2^32 element boundaries — against the float64 reference.
 * Built only with -DCLNORM_LARGE_TESTS=ON and labelled `large` (ctest -L large): it needs a device
 * with about 40 GiB of memory (an H200). Inputs are generated on the device by a hash of the element
 * index, so the host never holds a whole tensor. A build with 32-bit index math fails here: rows
 * past 2^32 elements would read and write the start of the buffers instead. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "harness.h"
#include "reference.h"
#include "tolerance.h"

#define COLS 4096
#define ROWS (((size_t)1 << 20) + 5) /* COLS * ROWS = 2^32 + 20480 elements */

/* Fills a BF16 tensor: value = center + scale * u, u in [-1, 1) from a hash of (seed, index). */
static const char *fill_source =
    "__kernel void fill(__global ushort *p, ulong n, uint seed, float center, float scale) {\n"
    "  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {\n"
    "    ulong h = (i + 1) * 0x9E3779B97F4A7C15UL ^ ((ulong)seed << 32);\n"
    "    h ^= h >> 31; h *= 0xBF58476D1CE4E5B9UL; h ^= h >> 27; h *= 0x94D049BB133111EBUL; h ^= h >> 31;\n"
    "    float u = (float)(h >> 40) * (1.0f / 8388608.0f) - 1.0f;\n"
    "    float v = center + scale * u;\n"
    "    uint b = as_uint(v);\n"
    "    p[i] = (ushort)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);\n"
    "  }\n"
    "}\n";

static cl_mem big_tensor(cl_context c, cl_command_queue q, cl_kernel fill, cl_uint seed, float center, float scale)
{
    cl_int err;
    const cl_ulong n = (cl_ulong)ROWS * COLS;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, n * 2, NULL, &err);
    ck_assert_msg(err == CL_SUCCESS, "allocating %llu bytes failed: %s", (unsigned long long)(n * 2),
                  clnorm_status_string(err));
    CL_OK(clSetKernelArg(fill, 0, sizeof m, &m));
    CL_OK(clSetKernelArg(fill, 1, sizeof n, &n));
    CL_OK(clSetKernelArg(fill, 2, sizeof seed, &seed));
    CL_OK(clSetKernelArg(fill, 3, sizeof center, &center));
    CL_OK(clSetKernelArg(fill, 4, sizeof scale, &scale));
    const size_t global = (size_t)1 << 22, local = 256;
    CL_OK(clEnqueueNDRangeKernel(q, fill, 1, NULL, &global, &local, 0, NULL, NULL));
    return m;
}

static void read_row(cl_command_queue q, cl_mem m, size_t row, double *out)
{
    uint16_t h[COLS];
    CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, row * COLS * 2, sizeof h, h, 0, NULL, NULL));
    for (size_t c = 0; c < COLS; ++c)
        out[c] = bf16_to_f32(h[c]);
}

START_TEST(test_large_forward_backward_residual)
{
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    cl_command_queue q = clnorm_context_queue(ctx);
    cl_ulong max_alloc = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
    ck_assert_msg(max_alloc >= (cl_ulong)ROWS * COLS * 2,
                  "device %s allows %llu-byte buffers, this test needs %llu", clnorm_context_device_name(ctx),
                  (unsigned long long)max_alloc, (unsigned long long)ROWS * COLS * 2);

    cl_int err;
    cl_program prog = clCreateProgramWithSource(c, 1, &fill_source, NULL, &err);
    CL_OK(err);
    cl_device_id dev = clnorm_context_device(ctx);
    CL_OK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel fill = clCreateKernel(prog, "fill", &err);
    CL_OK(err);

    cl_mem x = big_tensor(c, q, fill, 1, 3.0f, 2.0f);
    cl_mem dy = big_tensor(c, q, fill, 2, 0.0f, 1.0f);
    cl_mem dres = big_tensor(c, q, fill, 3, 0.0f, 1.0f);
    cl_mem y = big_tensor(c, q, fill, 4, 0.0f, 0.0f);
    cl_mem dx = big_tensor(c, q, fill, 5, 0.0f, 0.0f);
    float hw[COLS], hb[COLS];
    double w[COLS], b[COLS];
    rng r;
    rng_seed(&r, 42);
    for (size_t i = 0; i < COLS; ++i) {
        w[i] = hw[i] = (float)rng_range(&r, 0.5, 1.5);
        b[i] = hb[i] = (float)rng_range(&r, -0.5, 0.5);
    }
    cl_mem wb = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof hw, hw, &err);
    CL_OK(err);
    cl_mem bb = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof hb, hb, &err);
    CL_OK(err);
    cl_mem mb = clCreateBuffer(c, CL_MEM_READ_WRITE, ROWS * sizeof(float), NULL, &err);
    CL_OK(err);
    cl_mem rb = clCreateBuffer(c, CL_MEM_READ_WRITE, ROWS * sizeof(float), NULL, &err);
    CL_OK(err);

    const clnorm_matrix X = {x, 0, 0, CLNORM_BF16}, Y = {y, 0, COLS, CLNORM_BF16};
    const clnorm_matrix DY = {dy, 0, 0, CLNORM_BF16}, DR = {dres, 0, 0, CLNORM_BF16}, DX = {dx, 0, 0, CLNORM_BF16};
    const clnorm_vector W = {wb, 0, CLNORM_F32}, B = {bb, 0, CLNORM_F32};
    const clnorm_vector M = {mb, 0, CLNORM_F32}, R = {rb, 0, CLNORM_F32};
    CLNORM_OK(ctx, clnorm_layer_norm_forward(ctx, ROWS, COLS, 1e-5f, &X, &W, &B, &Y, &M, &R, 0, NULL, NULL));
    CLNORM_OK(ctx, clnorm_layer_norm_backward(ctx, ROWS, COLS, &DY, &X, &W, &M, &R, &DR, &DX, NULL, NULL, 0, NULL, NULL));
    CL_OK(clFinish(q));

    const size_t b31 = ((size_t)1 << 31) / COLS, b32 = ((size_t)1 << 32) / COLS;
    const size_t sample[] = {0, 1, b31 - 1, b31, b32 - 1, b32, b32 + 1, ROWS - 2, ROWS - 1};
    static double hx[COLS], hdy[COLS], hdr[COLS], hy[COLS], hdx[COLS], ry[COLS], rdx[COLS], ty[COLS], tdx[COLS];
    size_t bad = 0;
    for (size_t s = 0; s < sizeof sample / sizeof sample[0]; ++s) {
        const size_t row = sample[s];
        read_row(q, x, row, hx);
        read_row(q, dy, row, hdy);
        read_row(q, dres, row, hdr);
        read_row(q, y, row, hy);
        read_row(q, dx, row, hdx);
        float fm, fr;
        CL_OK(clEnqueueReadBuffer(q, mb, CL_TRUE, row * 4, 4, &fm, 0, NULL, NULL));
        CL_OK(clEnqueueReadBuffer(q, rb, CL_TRUE, row * 4, 4, &fr, 0, NULL, NULL));
        double m, rs, tm, tr;
        ref_forward(1, COLS, 1e-5f, hx, w, b, ry, &m, &rs);
        tol_forward(1, COLS, hx, w, b, &m, &rs, ty, &tm, &tr);
        ck_assert_msg(tol_within(CLNORM_F32, fm, m, tm) && tol_within(CLNORM_F32, fr, rs, tr),
                      "row %zu: mean %.9g rstd %.9g, expected %.9g %.9g", row, fm, fr, m, rs);
        const double dm = fm, dr = fr; /* the backward uses the fp32 statistics the forward saved */
        ref_backward(1, COLS, hdy, hx, w, &dm, &dr, hdr, rdx, NULL, NULL);
        tol_backward(1, COLS, hdy, hx, w, &dm, &dr, hdr, tdx, NULL, NULL);
        for (size_t col = 0; col < COLS; ++col) {
            if (!tol_within(CLNORM_BF16, hy[col], ry[col], ty[col]) && bad++ < 10)
                fprintf(stderr, "y[%zu, %zu] = %.9g, expected %.9g\n", row, col, hy[col], ry[col]);
            if (!tol_within(CLNORM_BF16, hdx[col], rdx[col], tdx[col]) && bad++ < 10)
                fprintf(stderr, "dx[%zu, %zu] = %.9g, expected %.9g\n", row, col, hdx[col], rdx[col]);
        }
    }
    ck_assert_msg(bad == 0, "%zu elements outside tolerance in the sampled rows", bad);

    cl_mem all[] = {x, dy, dres, y, dx, wb, bb, mb, rb};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        clReleaseMemObject(all[i]);
    clReleaseKernel(fill);
    clReleaseProgram(prog);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("large");
    TCase *tc = tcase_create("large");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_large_forward_backward_residual);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
