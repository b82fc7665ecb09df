/* One LayerNorm test case, forward or backward: its configuration, its buffers and views, its
 * seeded inputs, the call, and the full check of every byte that comes back. Shared by all the
 * suites that run the operations (forward, backward, accuracy, determinism, events, api). */
#ifndef CLNORM_TEST_PROBLEM_H
#define CLNORM_TEST_PROBLEM_H

#include <clnorm.h>
#include <stdint.h>

#include "harness.h"

/* weight/bias in the forward; in the backward: which of weight, dweight, dbias are given. */
enum affine {
    AFF_NONE,  /* forward: neither;      backward: no weight, no dweight, no dbias */
    AFF_W,     /* forward: weight;       backward: weight, dweight */
    AFF_WB,    /* forward: weight, bias; backward: weight, dweight, dbias */
    AFF_B,     /* forward: bias;         backward: no weight, dbias */
    AFF_GRADS, /* forward: as AFF_NONE;  backward: no weight, dweight and dbias */
    AFF_COUNT, /* the modes above, which the sweeps take in turn */
    AFF_W_DX = AFF_COUNT /* forward: as AFF_W;  backward: weight, no dweight, no dbias (dx only:
                            a frozen weight); named by the tests that take it, in no sweep */
};

enum residual { RES_NONE, RES_SEPARATE, RES_INPLACE /* dresidual is exactly dx's view */, RES_COUNT };

enum layout {
    LAY_DENSE,        /* offsets 0, row_stride 0, one buffer per tensor */
    LAY_DENSE_OFFSET, /* row_stride 0, odd offsets, different per tensor */
    LAY_PAD_ALIGNED,  /* offsets and row_strides multiples of 8, different per tensor */
    LAY_PAD_ODD,      /* odd offsets, row_stride = cols + an odd pad, different per tensor */
    LAY_EXPLICIT,     /* row_stride == cols given explicitly, offsets multiples of 4 */
    LAY_SHARED,       /* disjoint views sharing buffers: activations / stats / parameters */
    LAY_PHASE,        /* row tensors at offsets 5 + 16k, all with row_stride cols + 19 (one phase
                         modulo any vector width: row phases, PHASE); vectors at offset k */
    LAY_COUNT
};

enum data {
    DATA_RANDOM,   /* per-row mean +-[0.5, 4], std log-uniform in [0.2, 5] */
    DATA_MEAN_1E4, /* per-row mean 1e4, std 1: the two-pass variance matters */
};

/* forward: which of mean and rstd are requested */
enum stats { STATS_BOTH, STATS_NONE, STATS_MEAN, STATS_RSTD, STATS_COUNT };

typedef struct case_cfg {
    size_t rows, cols;
    clnorm_dtype act; /* x, y, dy, dx, dresidual */
    clnorm_dtype par; /* weight, bias, dweight, dbias */
    int affine, residual, layout, data, stats;
    int inplace;            /* forward: y is exactly x's view */
    int stats_from_library; /* backward: mean/rstd from the library's forward, chained by its event
                               (else the float64 values rounded to fp32, written by the test) */
    float eps;
    uint64_t seed;
} case_cfg;

/* A case with the common fields set (eps 1e-5, no statistics, no residual). */
case_cfg case_basic(size_t rows, size_t cols, clnorm_dtype act, clnorm_dtype par, int affine, int layout, uint64_t seed);

typedef struct problem {
    case_cfg cfg;
    int backward;
    char what[320]; /* description printed with every failure */
    int nbufs;
    tbuf bufs[16];
    tview x, y, w, b, mean, rstd, dy, dres, dx, dw, db, ys; /* ys: scratch y of the stats forward */
    double *xh, *wh, *bh, *dyh, *dresh, *meanh, *rstdh; /* stored inputs (NULL: absent) */
    cl_event stats_event; /* the stats forward's event (stats_from_library) */
} problem;

const char *affine_name(int a);
const char *residual_name(int r);
const char *layout_name(int l);

/* Builds the buffers, fills and uploads them (forward: x, weight, bias; outputs poisoned). */
void fwd_setup(problem *p, clnorm_context *ctx, const case_cfg *cfg);
clnorm_status fwd_enqueue(problem *p, clnorm_context *ctx, cl_uint nwait, const cl_event *wait, cl_event *event);

/* Backward: also runs the stats forward when cfg->stats_from_library. */
void bwd_setup(problem *p, clnorm_context *ctx, const case_cfg *cfg);
clnorm_status bwd_enqueue(problem *p, clnorm_context *ctx, cl_uint nwait, const cl_event *wait, cl_event *event);

/* Reads back every buffer (blocking), compares the outputs with the float64 reference and all
 * other bytes with what was uploaded. Returns the number of mismatches (details on stderr). */
size_t problem_check(problem *p, clnorm_context *ctx);

/* Re-uploads every buffer as it was before the call (outputs poisoned again). */
void problem_reupload(problem *p, clnorm_context *ctx);

void problem_free(problem *p);

/* setup, enqueue with an event, wait for it, check, free; fails the test on any mismatch. */
void run_forward_case(clnorm_context *ctx, const case_cfg *cfg);
void run_backward_case(clnorm_context *ctx, const case_cfg *cfg);

/* Waits for an event the library returned (must be non-NULL) and releases it. */
void wait_and_release(cl_event ev);

#endif
