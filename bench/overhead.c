/* clnorm-bench --overhead. Each call is timed on the host alone (clock_gettime around the clnorm
 * call); the device is never waited for per call, only every 256 calls (so the queue does not grow
 * without bound), and those waits are outside the timed region. */
#define _POSIX_C_SOURCE 200809L
#include "overhead.h"

#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static cl_mem zeros(const bench_env *env, size_t bytes, int *err)
{
    cl_int e;
    cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    const float one = 1.0f;
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(env->queue, m, &one, sizeof one, 0, bytes, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        *err = e;
    return m;
}

int bench_overhead(const bench_env *env, size_t rows, size_t cols, int calls)
{
    int err = CL_SUCCESS;
    const size_t mb = rows * cols * 4, vb = cols * 4, sb = rows * 4;
    cl_mem x = zeros(env, mb, &err), y = zeros(env, mb, &err), dy = zeros(env, mb, &err), dx = zeros(env, mb, &err),
           dr = zeros(env, mb, &err), w = zeros(env, vb, &err), b = zeros(env, vb, &err), m = zeros(env, sb, &err),
           r = zeros(env, sb, &err), dw = zeros(env, vb, &err), db = zeros(env, vb, &err);
    double *t = calloc((size_t)calls, sizeof *t);
    int rc = err != CL_SUCCESS || !t;
    const clnorm_matrix X = {x, 0, 0, CLNORM_F32}, Y = {y, 0, 0, CLNORM_F32}, DY = {dy, 0, 0, CLNORM_F32},
                        DX = {dx, 0, 0, CLNORM_F32}, DR = {dr, 0, 0, CLNORM_F32};
    const clnorm_vector W = {w, 0, CLNORM_F32}, B = {b, 0, CLNORM_F32}, M = {m, 0, CLNORM_F32}, R = {r, 0, CLNORM_F32},
                        DW = {dw, 0, CLNORM_F32}, DB = {db, 0, CLNORM_F32};
    for (int op = 0; op < 2 && !rc; ++op) {
        for (int i = -64; i < calls && !rc; ++i) { /* 64 warm-up calls build the programs */
            if (i % 256 == 0)
                clFinish(env->queue);
            const double t0 = now_us();
            clnorm_status st = op == 0
                ? clnorm_layer_norm_forward(env->ctx, rows, cols, 1e-5f, &X, &W, &B, &Y, &M, &R, 0, NULL, NULL)
                : clnorm_layer_norm_backward(env->ctx, rows, cols, &DY, &X, &W, &M, &R, &DR, &DX, &DW, &DB, 0, NULL, NULL);
            const double t1 = now_us();
            if (st != CLNORM_SUCCESS) {
                fprintf(stderr, "clnorm-bench --overhead: %s: %s\n", clnorm_status_string(st),
                        clnorm_context_last_error(env->ctx));
                rc = 1;
            } else if (i >= 0) {
                t[i] = t1 - t0;
            }
        }
        clFinish(env->queue);
        if (rc)
            break;
        const double med = timing_median(t, calls); /* sorts t */
        printf("overhead %-8s %zux%zu f32: host time per enqueue: median %.2f us, p90 %.2f us (%d calls, no wait per call)\n",
               op ? "backward" : "forward", rows, cols, med, t[(size_t)calls * 9 / 10], calls);
    }
    free(t);
    cl_mem all[] = {x, y, dy, dx, dr, w, b, m, r, dw, db};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    return rc;
}
