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

typedef struct call_arg {
    clnorm_context *ctx;
    const bench_kernels *k;
    cl_command_queue q;
    size_t rows, cols;
    cl_mem dr, dx;
    const clnorm_matrix *X, *Y, *DY, *DX, *DR;
    const clnorm_vector *W, *B, *M, *R, *DW, *DB;
} call_arg;

/* The buffer queries clnorm's validation makes for each buffer of a call (validate.c's
 * resolve_buffer: type, context, size, parent and flags; a sub-buffer or a host-pointer buffer
 * takes one or two more), here for the forward's six buffers: 30 driver calls, timed to see which
 * share of clnorm's host time above the driver's floor they are on each driver. */
static int buffer_queries(const call_arg *a)
{
    const cl_mem mems[] = {a->X->buffer, a->W->buffer, a->B->buffer, a->Y->buffer, a->M->buffer, a->R->buffer};
    cl_int e = CL_SUCCESS;
    for (size_t i = 0; i < sizeof mems / sizeof *mems && e == CL_SUCCESS; ++i) {
        cl_mem_object_type type;
        cl_context owner;
        size_t size;
        cl_mem parent;
        cl_mem_flags flags;
        e = clGetMemObjectInfo(mems[i], CL_MEM_TYPE, sizeof type, &type, NULL);
        if (e == CL_SUCCESS)
            e = clGetMemObjectInfo(mems[i], CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
        if (e == CL_SUCCESS)
            e = clGetMemObjectInfo(mems[i], CL_MEM_SIZE, sizeof size, &size, NULL);
        if (e == CL_SUCCESS)
            e = clGetMemObjectInfo(mems[i], CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
        if (e == CL_SUCCESS)
            e = clGetMemObjectInfo(mems[i], CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    }
    return e;
}

/* The forward's six buffer arguments, set as clnorm sets them at every call (clnorm_program_entry
 * keeps by-value arguments, not buffers: a released buffer's handle may come back as a new one),
 * here on the bench's add kernel (its two buffer arguments, three times each): the share of
 * clSetKernelArg in clnorm's host time above the driver's floor, which sets three arguments. */
static int buffer_args(const call_arg *a)
{
    cl_kernel k = a->k->add[CLNORM_F32];
    const cl_mem mems[] = {a->X->buffer, a->W->buffer, a->B->buffer, a->Y->buffer, a->M->buffer, a->R->buffer};
    cl_int e = CL_SUCCESS;
    for (cl_uint i = 0; i < 6 && e == CL_SUCCESS; ++i)
        e = clSetKernelArg(k, i % 2, sizeof(cl_mem), &mems[i]);
    if (e != CL_SUCCESS)
        fprintf(stderr, "clnorm-bench --overhead: clSetKernelArg failed: %d\n", (int)e);
    return e;
}

/* The forward's launch plan alone (clnorm_launch_plan: the table's rules for this shape, no
 * validation, no lock, no kernel) */
static int plan_only(const call_arg *a)
{
    clnorm_launch_info L;
    const clnorm_status st = clnorm_launch_plan(a->ctx, 0, a->rows, a->cols, CLNORM_F32, &L);
    if (st != CLNORM_SUCCESS)
        fprintf(stderr, "clnorm-bench --overhead: clnorm_launch_plan: %s: %s\n", clnorm_status_string(st),
                clnorm_context_last_error(a->ctx));
    return st == CLNORM_SUCCESS ? CL_SUCCESS : CL_INVALID_VALUE;
}

/* what is timed: 0 forward, 1 backward, 2 the driver's own floor (one enqueue of the bench's
 * elementwise add: its three arguments set and the kernel enqueued), 3 the forward's buffer
 * queries, 4 its six buffer arguments set, 5 its launch plan */
static int one_call(const call_arg *a, int what)
{
    if (what == 5)
        return plan_only(a);
    if (what == 4)
        return buffer_args(a);
    if (what == 3)
        return buffer_queries(a);
    if (what == 2)
        return bench_enqueue_add(a->q, a->k, CLNORM_F32, a->dx, a->dr, a->rows * a->cols, 0, NULL, NULL);
    clnorm_status st = what == 0
        ? clnorm_layer_norm_forward(a->ctx, a->rows, a->cols, 1e-5f, a->X, a->W, a->B, a->Y, a->M, a->R, 0, NULL, NULL)
        : clnorm_layer_norm_backward(a->ctx, a->rows, a->cols, a->DY, a->X, a->W, a->M, a->R, a->DR, a->DX, a->DW,
                                     a->DB, 0, NULL, NULL);
    if (st != CLNORM_SUCCESS)
        fprintf(stderr, "clnorm-bench --overhead: %s: %s\n", clnorm_status_string(st), clnorm_context_last_error(a->ctx));
    return st;
}

static int measure(const call_arg *a, int what, const char *queue_name, double *t, int calls)
{
    static const char *const names[] = {"forward", "backward", "driver", "queries", "setargs", "plan"};
    static const char *const parts[] = {"of the forward's 30 buffer queries (clGetMemObjectInfo)",
                                        "of the forward's 6 buffer arguments (clSetKernelArg)",
                                        "of the forward's launch plan (clnorm_launch_plan)"};
    for (int i = -64; i < calls; ++i) { /* 64 warm-up calls build the programs */
        if (i % 256 == 0)
            clFinish(a->q);
        const double t0 = now_us();
        const int st = one_call(a, what);
        const double t1 = now_us();
        if (st != CL_SUCCESS)
            return 1;
        if (i >= 0)
            t[i] = t1 - t0;
    }
    clFinish(a->q);
    const double med = timing_median(t, calls); /* sorts t */
    const int part = what >= 3; /* a part of the forward's host time, not an enqueue */
    printf("overhead %-8s %zux%zu f32 %-17s host time %s: median %.2f us, p90 %.2f us (%d %s)\n", names[what], a->rows,
           a->cols, queue_name, part ? parts[what - 3] : "per enqueue", med, t[(size_t)calls * 9 / 10], calls,
           part ? "rounds" : "calls, no wait per call");
    return 0;
}

int bench_overhead(const bench_env *env, size_t rows, size_t cols, int calls)
{
    int err = CL_SUCCESS;
    const size_t mb = rows * cols * 4, vb = cols * 4, sb = rows * 4;
    cl_mem x = zeros(env, mb, &err), y = zeros(env, mb, &err), dy = zeros(env, mb, &err), dx = zeros(env, mb, &err),
           dr = zeros(env, mb, &err), w = zeros(env, vb, &err), b = zeros(env, vb, &err), m = zeros(env, sb, &err),
           r = zeros(env, sb, &err), dw = zeros(env, vb, &err), db = zeros(env, vb, &err);
    double *t = calloc((size_t)calls, sizeof *t);
    const clnorm_matrix X = {x, 0, 0, CLNORM_F32}, Y = {y, 0, 0, CLNORM_F32}, DY = {dy, 0, 0, CLNORM_F32},
                        DX = {dx, 0, 0, CLNORM_F32}, DR = {dr, 0, 0, CLNORM_F32};
    const clnorm_vector W = {w, 0, CLNORM_F32}, B = {b, 0, CLNORM_F32}, M = {m, 0, CLNORM_F32}, R = {r, 0, CLNORM_F32},
                        DW = {dw, 0, CLNORM_F32}, DB = {db, 0, CLNORM_F32};
    /* The bench's profiling queue, and a plain in-order queue as a training backend would have
     * (profiling makes some drivers do more per enqueue). */
    cl_int e;
    cl_command_queue plain = clCreateCommandQueue(env->context, clnorm_context_device(env->ctx), 0, &e);
    clnorm_context *pctx = NULL;
    if (e == CL_SUCCESS && clnorm_context_create_from_queue(plain, &pctx) != CLNORM_SUCCESS)
        e = CL_INVALID_VALUE;
    int rc = err != CL_SUCCESS || e != CL_SUCCESS || !t;
    call_arg a = {env->ctx, env->kernels, env->queue, rows, cols, dr, dx, &X, &Y, &DY, &DX, &DR, &W, &B, &M, &R, &DW, &DB};
    for (int what = 0; what < 2 && !rc; ++what)
        rc = measure(&a, what, "(profiling queue)", t, calls);
    a.ctx = pctx;
    a.q = plain;
    for (int what = 0; what < 6 && !rc; ++what)
        rc = measure(&a, what, "(plain queue)", t, calls);
    clnorm_context_release(pctx);
    if (plain)
        clReleaseCommandQueue(plain);
    free(t);
    cl_mem all[] = {x, y, dy, dx, dr, w, b, m, r, dw, db};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    return rc;
}
