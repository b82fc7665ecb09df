/* layer_norm_example.c — LayerNorm forward, then backward with the residual gradient fused into
 * dx, on the device clnorm picks (CLNORM_DEVICE, else the first GPU, accelerator or CPU).
 * x, y, dy, dx, dres: rows x cols bf16, rows padded to a stride of ld elements;
 * weight, bias, dweight, dbias: cols fp32; mean, rstd: rows fp32.
 * Every result is compared with a float64 reference computed here; exit status 0 when they match.
 *
 *   cc layer_norm_example.c $(pkg-config --cflags --libs clnorm) -lm -o layer_norm_example
 * or the CMake project next to this file (find_package(clnorm)).
 */
#include <clnorm.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROWS = 64, COLS = 1000, LD = 1024 };

/* bf16 is the top half of an IEEE float; round to nearest even. */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static double from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float uniform(uint32_t *state) /* in [-1, 1) */
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / (float)(1u << 23) - 1.0f;
}

static cl_mem buffer(clnorm_context *ctx, size_t bytes, void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clnorm_context_cl_context(ctx), CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes, init, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clCreateBuffer: %s\n", clnorm_status_string(err));
        exit(1);
    }
    return m;
}

static void download(clnorm_context *ctx, cl_mem m, size_t bytes, void *out)
{
    cl_int err = clEnqueueReadBuffer(clnorm_context_queue(ctx), m, CL_TRUE, 0, bytes, out, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clEnqueueReadBuffer: %s\n", clnorm_status_string(err));
        exit(1);
    }
}

static int mismatches;

static void expect(const char *what, size_t r, size_t c, double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * (1.0 + fabs(want))) && mismatches++ < 10)
        fprintf(stderr, "%s[%zu][%zu] = %.6g, expected %.6g\n", what, r, c, got, want);
}

/* Prints why a call failed (status and the library's one-line explanation); true on failure. */
static int failed(clnorm_status st, const clnorm_context *ctx)
{
    if (st != CLNORM_SUCCESS)
        fprintf(stderr, "%s\n  %s\n", clnorm_status_string(st), clnorm_context_last_error(ctx));
    return st != CLNORM_SUCCESS;
}

int main(void)
{
    const size_t rows = ROWS, cols = COLS, ld = LD;
    const float eps = 1e-5f;
    static uint16_t hx[ROWS * LD], hdy[ROWS * LD], hdres[ROWS * LD], hy[ROWS * LD], hdx[ROWS * LD];
    static float hw[COLS], hb[COLS], hdw[COLS], hdb[COLS], hmean[ROWS], hrstd[ROWS];
    uint32_t seed = 1;
    for (size_t i = 0; i < rows * ld; ++i) {
        hx[i] = to_bf16(2.0f * uniform(&seed) + 0.5f);
        hdy[i] = to_bf16(uniform(&seed));
        hdres[i] = to_bf16(0.25f * uniform(&seed));
    }
    for (size_t c = 0; c < cols; ++c) {
        hw[c] = 1.0f + 0.5f * uniform(&seed);
        hb[c] = 0.1f * uniform(&seed);
    }

    clnorm_context *ctx = NULL;
    if (failed(clnorm_context_create(NULL, &ctx), NULL)) /* NULL: CLNORM_DEVICE, else the default policy */
        return 1;
    printf("device: %s\n", clnorm_context_device_name(ctx));

    const size_t mat = rows * ld * sizeof(uint16_t), vec = cols * sizeof(float), stat = rows * sizeof(float);
    cl_mem x = buffer(ctx, mat, hx), y = buffer(ctx, mat, NULL), dy = buffer(ctx, mat, hdy);
    cl_mem dx = buffer(ctx, mat, hdres); /* starts as dres: the backward accumulates into it */
    cl_mem w = buffer(ctx, vec, hw), b = buffer(ctx, vec, hb), dw = buffer(ctx, vec, NULL), db = buffer(ctx, vec, NULL);
    cl_mem mean = buffer(ctx, stat, NULL), rstd = buffer(ctx, stat, NULL);

    /* Forward: y = (x - mean) * rstd * w + b; mean and rstd saved for the backward. */
    clnorm_matrix X = {x, 0, ld, CLNORM_BF16}, Y = {y, 0, ld, CLNORM_BF16};
    clnorm_vector W = {w, 0, CLNORM_F32}, B = {b, 0, CLNORM_F32};
    clnorm_vector M = {mean, 0, CLNORM_F32}, R = {rstd, 0, CLNORM_F32};
    if (failed(clnorm_layer_norm_forward(ctx, rows, cols, eps, &X, &W, &B, &Y, &M, &R, 0, NULL, NULL), ctx))
        return 1;

    /* Backward: dx = LayerNorm'(dy) + dres in one kernel, dres accumulated in place (dres == dx). */
    clnorm_matrix DY = {dy, 0, ld, CLNORM_BF16}, DX = {dx, 0, ld, CLNORM_BF16};
    clnorm_vector DW = {dw, 0, CLNORM_F32}, DB = {db, 0, CLNORM_F32};
    cl_event done;
    if (failed(clnorm_layer_norm_backward(ctx, rows, cols, &DY, &X, &W, &M, &R, /*dresidual*/ &DX,
                                          &DX, &DW, &DB, 0, NULL, &done), ctx))
        return 1;
    clWaitForEvents(1, &done);
    clReleaseEvent(done);

    download(ctx, y, mat, hy);
    download(ctx, dx, mat, hdx);
    download(ctx, dw, vec, hdw);
    download(ctx, db, vec, hdb);
    download(ctx, mean, stat, hmean);
    download(ctx, rstd, stat, hrstd);

    /* float64 reference from the same (bf16) inputs; bf16 outputs are checked to ~2 bf16 ulps. */
    static double ref_dw[COLS], ref_db[COLS];
    for (size_t r = 0; r < rows; ++r) {
        const size_t row = r * ld;
        double mu = 0, var = 0, mg = 0, mgx = 0;
        for (size_t c = 0; c < cols; ++c)
            mu += from_bf16(hx[row + c]) / (double)cols;
        for (size_t c = 0; c < cols; ++c) {
            const double d = from_bf16(hx[row + c]) - mu;
            var += d * d / (double)cols;
        }
        const double rs = 1.0 / sqrt(var + eps);
        for (size_t c = 0; c < cols; ++c) {
            const double xhat = (from_bf16(hx[row + c]) - mu) * rs, g = from_bf16(hdy[row + c]) * hw[c];
            mg += g / (double)cols;
            mgx += g * xhat / (double)cols;
        }
        expect("mean", r, 0, hmean[r], mu, 1e-5);
        expect("rstd", r, 0, hrstd[r], rs, 1e-5);
        for (size_t c = 0; c < cols; ++c) {
            const double xhat = (from_bf16(hx[row + c]) - mu) * rs, dyv = from_bf16(hdy[row + c]), g = dyv * hw[c];
            expect("y", r, c, from_bf16(hy[row + c]), xhat * hw[c] + hb[c], 1e-2);
            expect("dx", r, c, from_bf16(hdx[row + c]), rs * (g - mg - xhat * mgx) + from_bf16(hdres[row + c]), 1e-2);
            ref_dw[c] += dyv * xhat;
            ref_db[c] += dyv;
        }
    }
    for (size_t c = 0; c < cols; ++c) {
        expect("dweight", 0, c, hdw[c], ref_dw[c], 1e-4);
        expect("dbias", 0, c, hdb[c], ref_db[c], 1e-4);
    }
    printf("y[0][0..2]  = %.4f %.4f %.4f\n", from_bf16(hy[0]), from_bf16(hy[1]), from_bf16(hy[2]));
    printf("dx[0][0..2] = %.4f %.4f %.4f\n", from_bf16(hdx[0]), from_bf16(hdx[1]), from_bf16(hdx[2]));
    printf("dweight[0..2] = %.4f %.4f %.4f, dbias[0..2] = %.4f %.4f %.4f\n", hdw[0], hdw[1], hdw[2], hdb[0], hdb[1],
           hdb[2]);
    printf("%s: %zu x %zu bf16, forward and backward (with dresidual) against a float64 reference\n",
           mismatches ? "MISMATCH" : "ok", rows, cols);

    cl_mem all[] = {x, y, dy, dx, w, b, dw, db, mean, rstd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        clReleaseMemObject(all[i]);
    clnorm_context_release(ctx);
    return mismatches ? 1 : 0;
}
