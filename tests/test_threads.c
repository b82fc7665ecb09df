/* Threads: 8 threads share one context and 8 have their own, each making a few hundred forward +
 * backward-with-residual calls on different shapes and dtypes; every result must be bitwise equal
 * to the same call made alone before the threads start. Run under ThreadSanitizer too (see
 * CMakePresets.json, preset "tsan"). Worker threads never call Check (its failure path is not
 * thread-safe): they count mismatches and errors, and the main thread asserts. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "harness.h"

#define SHARED_THREADS 8
#define OWN_THREADS 8
#define CALLS_PER_THREAD 200

typedef struct shape {
    size_t rows, cols, ld; /* ld: row stride of every matrix (padded) */
    clnorm_dtype dt;
} shape;

static const shape SHAPES[] = {
    {33, 1000, 1000, CLNORM_F32}, {7, 257, 260, CLNORM_BF16}, {64, 64, 64, CLNORM_F16},
    {5, 4096, 4100, CLNORM_F32},  {300, 3, 5, CLNORM_BF16},  {17, 1031, 1031, CLNORM_F32},
};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])

/* Host images of one shape's inputs and of the outputs of the call made alone. */
typedef struct expected {
    size_t mbytes, cbytes, rbytes; /* a matrix, a cols vector (f32), a rows vector (f32) */
    unsigned char *x, *dy, *dres, *w, *b;
    unsigned char *y, *mean, *rstd, *dx, *dw, *db;
} expected;

static expected EXP[NSHAPES];

/* One set of device buffers and the calls on them. */
typedef struct bufs {
    cl_mem x, dy, dres, w, b, y, mean, rstd, dx, dw, db;
} bufs;

static cl_mem make(cl_context c, size_t n, const void *init, cl_int *err)
{
    return clCreateBuffer(c, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), n, (void *)init, err);
}

/* Outputs start as this pattern everywhere, so their padding compares equal too. */
static unsigned char *POISON;

static cl_int bufs_create(cl_context c, const expected *e, bufs *b)
{
    cl_int err = CL_SUCCESS, e2 = CL_SUCCESS;
    b->x = make(c, e->mbytes, e->x, &err);
    b->dy = make(c, e->mbytes, e->dy, &e2);
    err = err ? err : e2;
    b->dres = make(c, e->mbytes, e->dres, &e2);
    err = err ? err : e2;
    b->w = make(c, e->cbytes, e->w, &e2);
    err = err ? err : e2;
    b->b = make(c, e->cbytes, e->b, &e2);
    err = err ? err : e2;
    b->y = make(c, e->mbytes, POISON, &e2);
    err = err ? err : e2;
    b->mean = make(c, e->rbytes, POISON, &e2);
    err = err ? err : e2;
    b->rstd = make(c, e->rbytes, POISON, &e2);
    err = err ? err : e2;
    b->dx = make(c, e->mbytes, POISON, &e2);
    err = err ? err : e2;
    b->dw = make(c, e->cbytes, POISON, &e2);
    err = err ? err : e2;
    b->db = make(c, e->cbytes, POISON, &e2);
    return err ? err : e2;
}

static void bufs_release(bufs *b)
{
    cl_mem all[] = {b->x, b->dy, b->dres, b->w, b->b, b->y, b->mean, b->rstd, b->dx, b->dw, b->db};
    for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
}

/* forward (weight, bias, mean, rstd) then backward with a separate residual and dweight/dbias */
static clnorm_status run_calls(clnorm_context *ctx, const shape *s, const bufs *b, cl_event *done)
{
    const clnorm_matrix X = {b->x, 0, s->ld, s->dt}, Y = {b->y, 0, s->ld, s->dt}, DY = {b->dy, 0, s->ld, s->dt},
                        DR = {b->dres, 0, s->ld, s->dt}, DX = {b->dx, 0, s->ld, s->dt};
    const clnorm_vector W = {b->w, 0, CLNORM_F32}, B = {b->b, 0, CLNORM_F32}, M = {b->mean, 0, CLNORM_F32},
                        R = {b->rstd, 0, CLNORM_F32}, DW = {b->dw, 0, CLNORM_F32}, DB = {b->db, 0, CLNORM_F32};
    cl_event fwd = NULL;
    clnorm_status st = clnorm_layer_norm_forward(ctx, s->rows, s->cols, 1e-5f, &X, &W, &B, &Y, &M, &R, 0, NULL, &fwd);
    if (st != CLNORM_SUCCESS)
        return st;
    st = clnorm_layer_norm_backward(ctx, s->rows, s->cols, &DY, &X, &W, &M, &R, &DR, &DX, &DW, &DB, 1, &fwd, done);
    clReleaseEvent(fwd);
    return st;
}

/* Reads the outputs into the given images (any may be NULL to compare instead: see below). */
static cl_int read_all(cl_command_queue q, const expected *e, const bufs *b, unsigned char **out)
{
    cl_mem m[] = {b->y, b->mean, b->rstd, b->dx, b->dw, b->db};
    size_t n[] = {e->mbytes, e->rbytes, e->rbytes, e->mbytes, e->cbytes, e->cbytes};
    for (int i = 0; i < 6; ++i) {
        cl_int err = clEnqueueReadBuffer(q, m[i], CL_TRUE, 0, n[i], out[i], 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return err;
    }
    return CL_SUCCESS;
}

static void prepare_expected(void)
{
    clnorm_context *ctx = test_context();
    rng r;
    rng_seed(&r, 0x7eadull);
    size_t maxb = 0;
    for (size_t i = 0; i < NSHAPES; ++i) {
        size_t m = ((SHAPES[i].rows - 1) * SHAPES[i].ld + SHAPES[i].cols) * dtype_size(SHAPES[i].dt);
        maxb = m > maxb ? m : maxb;
        maxb = SHAPES[i].cols * 4 > maxb ? SHAPES[i].cols * 4 : maxb;
        maxb = SHAPES[i].rows * 4 > maxb ? SHAPES[i].rows * 4 : maxb;
    }
    POISON = xmalloc(maxb);
    memset(POISON, 0xA5, maxb);
    for (size_t i = 0; i < NSHAPES; ++i) {
        const shape *s = &SHAPES[i];
        expected *e = &EXP[i];
        const size_t es = dtype_size(s->dt), n = ((s->rows - 1) * s->ld + s->cols);
        e->mbytes = n * es;
        e->cbytes = s->cols * 4;
        e->rbytes = s->rows * 4;
        unsigned char **in[] = {&e->x, &e->dy, &e->dres};
        for (int t = 0; t < 3; ++t) {
            *in[t] = xmalloc(e->mbytes);
            for (size_t k = 0; k < n; ++k)
                dtype_store(s->dt, *in[t], k, t == 0 ? rng_range(&r, 2.0, 4.0) : rng_normal(&r));
        }
        e->w = xmalloc(e->cbytes);
        e->b = xmalloc(e->cbytes);
        for (size_t k = 0; k < s->cols; ++k) {
            dtype_store(CLNORM_F32, e->w, k, rng_range(&r, 0.5, 1.5));
            dtype_store(CLNORM_F32, e->b, k, rng_range(&r, -0.5, 0.5));
        }
        e->y = xmalloc(e->mbytes);
        e->mean = xmalloc(e->rbytes);
        e->rstd = xmalloc(e->rbytes);
        e->dx = xmalloc(e->mbytes);
        e->dw = xmalloc(e->cbytes);
        e->db = xmalloc(e->cbytes);
        bufs b;
        CL_OK(bufs_create(clnorm_context_cl_context(ctx), e, &b));
        cl_event done = NULL;
        CLNORM_OK(ctx, run_calls(ctx, s, &b, &done));
        CL_OK(clWaitForEvents(1, &done));
        clReleaseEvent(done);
        unsigned char *out[] = {e->y, e->mean, e->rstd, e->dx, e->dw, e->db};
        CL_OK(read_all(clnorm_context_queue(ctx), e, &b, out));
        bufs_release(&b);
    }
}

typedef struct worker {
    int id;
    clnorm_context *ctx; /* shared, or NULL: the thread makes its own */
    long calls, mismatches, errors;
    char first_error[512];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    clnorm_context *ctx = w->ctx;
    if (!ctx && clnorm_context_create(NULL, &ctx) != CLNORM_SUCCESS) {
        snprintf(w->first_error, sizeof w->first_error, "context: %s", clnorm_context_last_error(NULL));
        w->errors++;
        return NULL;
    }
    cl_command_queue q = clnorm_context_queue(ctx);
    bufs b[NSHAPES];
    memset(b, 0, sizeof b);
    unsigned char *got[6] = {0};
    size_t maxm = 0;
    for (size_t i = 0; i < NSHAPES; ++i)
        maxm = EXP[i].mbytes > maxm ? EXP[i].mbytes : maxm;
    for (int k = 0; k < 6; ++k)
        got[k] = malloc(maxm);
    for (size_t i = 0; i < NSHAPES && !w->errors; ++i)
        if (bufs_create(clnorm_context_cl_context(ctx), &EXP[i], &b[i]) != CL_SUCCESS) {
            snprintf(w->first_error, sizeof w->first_error, "allocation failed");
            w->errors++;
        }
    for (int c = 0; c < CALLS_PER_THREAD && !w->errors; ++c) {
        const size_t i = (size_t)(c + w->id) % NSHAPES;
        cl_event done = NULL;
        clnorm_status st = run_calls(ctx, &SHAPES[i], &b[i], &done);
        if (st != CLNORM_SUCCESS) {
            snprintf(w->first_error, sizeof w->first_error, "call: %s: %s", clnorm_status_string(st),
                     clnorm_context_last_error(ctx));
            w->errors++;
            break;
        }
        clWaitForEvents(1, &done);
        clReleaseEvent(done);
        if (read_all(q, &EXP[i], &b[i], got) != CL_SUCCESS) {
            w->errors++;
            break;
        }
        const expected *e = &EXP[i];
        const unsigned char *want[] = {e->y, e->mean, e->rstd, e->dx, e->dw, e->db};
        const size_t n[] = {e->mbytes, e->rbytes, e->rbytes, e->mbytes, e->cbytes, e->cbytes};
        for (int k = 0; k < 6; ++k)
            if (memcmp(got[k], want[k], n[k]) != 0)
                w->mismatches++;
        w->calls++;
    }
    for (size_t i = 0; i < NSHAPES; ++i)
        bufs_release(&b[i]);
    for (int k = 0; k < 6; ++k)
        free(got[k]);
    if (!w->ctx)
        clnorm_context_release(ctx);
    return NULL;
}

START_TEST(threads_bitwise_equal_to_single_calls)
{
    prepare_expected();
    worker w[SHARED_THREADS + OWN_THREADS];
    pthread_t t[SHARED_THREADS + OWN_THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < SHARED_THREADS + OWN_THREADS; ++i) {
        w[i].id = i;
        w[i].ctx = i < SHARED_THREADS ? test_context() : NULL;
        ck_assert_int_eq(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    long calls = 0;
    for (int i = 0; i < SHARED_THREADS + OWN_THREADS; ++i) {
        pthread_join(t[i], NULL);
        ck_assert_msg(w[i].errors == 0, "thread %d (%s context): %s", i, w[i].ctx ? "shared" : "own",
                      w[i].first_error);
        ck_assert_msg(w[i].mismatches == 0, "thread %d (%s context): %ld outputs differ from the single call", i,
                      w[i].ctx ? "shared" : "own", w[i].mismatches);
        calls += w[i].calls;
    }
    ck_assert_int_eq(calls, (long)(SHARED_THREADS + OWN_THREADS) * CALLS_PER_THREAD);
    free(POISON);
    for (size_t i = 0; i < NSHAPES; ++i) {
        expected *e = &EXP[i];
        unsigned char *all[] = {e->x, e->dy, e->dres, e->w, e->b, e->y, e->mean, e->rstd, e->dx, e->dw, e->db};
        for (size_t k = 0; k < sizeof all / sizeof *all; ++k)
            free(all[k]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, threads_bitwise_equal_to_single_calls);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
