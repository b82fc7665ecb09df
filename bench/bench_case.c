/* clnorm-bench — one (rows, cols, dtype) case: buffers, inputs, timing and checks of every op. */
#include "bench_case.h"

#include "dtype.h"
#include "reference.h"
#include "rng.h"
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The usual LayerNorm eps; the reference uses the same float value. */
#define BENCH_EPS 1e-5f
/* Rows checked per op: the first, the last and the rest drawn at random. */
#define NUM_SAMPLE_ROWS 16

typedef struct bench_case {
    const bench_env *env;
    size_t rows, cols, n, elem;
    size_t bytes;  /* one tensor */
    size_t alloc;  /* one tensor's buffer: bytes rounded up to the copy kernel's granule */
    clnorm_dtype dt;
    char name[64]; /* "bf16 262144x256", for messages */
    const char *op;

    /* Device tensors. Weight and bias are stored in the tensors' dtype, the statistics and the
     * parameter gradients in F32 (what a mixed-precision training step keeps). */
    cl_mem x, y, dy, dres, dx, w, b, mean, rstd, dw, db;
    clnorm_matrix mx, my, mdy, mdres, mdx;
    clnorm_vector vw, vb, vmean, vrstd, vdw, vdb;

    /* Host copies of the inputs (storage format) and what the checks need. */
    void *hx, *hdy, *hdres, *hw, *hb;
    double *wd, *bd;           /* weight and bias widened to double */
    float *hmean, *hrstd;      /* the forward's saved statistics, read back */
    float *dw_got, *db_got;    /* dweight/dbias read back after the timed repetitions */
    float *dw_warm, *db_warm;  /* ... and after the warm-up: must be bitwise equal */
    double *ref_dw, *ref_db, *abs_dw, *abs_db;
    int have_ref_params;
    size_t sample[NUM_SAMPLE_ROWS];
    int nsample;
    double *r_x, *r_dy, *r_dres, *r_got, *r_ref, *r_aux; /* one row each */
    void *r_raw;
} bench_case;

static int report_cl(const bench_case *bc, const char *what, cl_int st)
{
    fprintf(stderr, "clnorm-bench: %s %s: %s: %s\n", bc->op, bc->name, what, clnorm_status_string(st));
    return st;
}

static int report_clnorm(const bench_case *bc, const char *fn, clnorm_status st)
{
    fprintf(stderr, "clnorm-bench: %s %s: %s: %s: %s\n", bc->op, bc->name, fn, clnorm_status_string(st),
        clnorm_context_last_error(bc->env->ctx));
    return st;
}

/* ---- one repetition of each measured thing (bench_rep_fn) ------------------------------------ */

static int rep_copy(void *arg, cl_event *last)
{
    bench_case *bc = arg;
    cl_int st = bench_enqueue_copy(bc->env->queue, bc->env->kernels, bc->x, bc->dx, bc->alloc, 0, NULL, last);
    return st == CL_SUCCESS ? st : report_cl(bc, "enqueue of the copy kernel", st);
}

static int rep_forward(void *arg, cl_event *last)
{
    bench_case *bc = arg;
    clnorm_status st = clnorm_layer_norm_forward(bc->env->ctx, bc->rows, bc->cols, BENCH_EPS, &bc->mx, &bc->vw,
        &bc->vb, &bc->my, &bc->vmean, &bc->vrstd, 0, NULL, last);
    return st == CLNORM_SUCCESS ? st : report_clnorm(bc, "clnorm_layer_norm_forward", st);
}

/* params 0: dweight and dbias NULL (dx only). */
static int run_backward(bench_case *bc, const clnorm_matrix *dres, int params, cl_event *last)
{
    clnorm_status st = clnorm_layer_norm_backward(bc->env->ctx, bc->rows, bc->cols, &bc->mdy, &bc->mx, &bc->vw,
        &bc->vmean, &bc->vrstd, dres, &bc->mdx, params ? &bc->vdw : NULL, params ? &bc->vdb : NULL, 0, NULL, last);
    return st == CLNORM_SUCCESS ? st : report_clnorm(bc, "clnorm_layer_norm_backward", st);
}

static int rep_backward(void *arg, cl_event *last)
{
    return run_backward(arg, NULL, 1, last);
}

static int rep_backward_res(void *arg, cl_event *last)
{
    bench_case *bc = arg;
    return run_backward(bc, &bc->mdres, 1, last);
}

static int rep_backward_dx(void *arg, cl_event *last)
{
    return run_backward(arg, NULL, 0, last);
}

static int rep_backward_dx_res(void *arg, cl_event *last)
{
    bench_case *bc = arg;
    return run_backward(bc, &bc->mdres, 0, last);
}

/* The baseline the fused residual replaces: backward, then a separate dx += dres pass. Timed as
 * one sequence, i.e. the sum of both kernels' times plus the gap between them. */
static int rep_unfused(void *arg, cl_event *last)
{
    bench_case *bc = arg;
    cl_event bwd = NULL;
    int st = run_backward(bc, NULL, 1, &bwd);
    if (st != CL_SUCCESS)
        return st;
    /* The queue is in-order, but waiting on the event keeps this right on any queue. */
    st = bench_enqueue_add(bc->env->queue, bc->env->kernels, bc->dt, bc->dx, bc->dres, bc->n, 1, &bwd, last);
    clReleaseEvent(bwd);
    return st == CL_SUCCESS ? st : report_cl(bc, "enqueue of the add kernel", st);
}

/* ---- setup ----------------------------------------------------------------------------------- */

static void fill_inputs(bench_case *bc, float *row)
{
    /* A different stream per case, reproducible from the seed. */
    bench_rng rng = {bc->env->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(bc->cols * 4 + (size_t)bc->dt + 1))};
    size_t r, c;
    for (r = 0; r < bc->rows; ++r) {
        /* Rows with their own offset and spread: the mean must really be subtracted and the
         * variance really be per row for the results to match. */
        float mu = 2.0f * rng_uniform(&rng);
        float sigma = 1.25f + rng_uniform(&rng);
        for (c = 0; c < bc->cols; ++c)
            row[c] = mu + sigma * rng_uniform(&rng);
        dtype_store_row(bc->dt, bc->hx, r * bc->cols, bc->cols, row);
    }
    for (r = 0; r < bc->rows; ++r) {
        for (c = 0; c < bc->cols; ++c)
            row[c] = rng_uniform(&rng);
        dtype_store_row(bc->dt, bc->hdy, r * bc->cols, bc->cols, row);
    }
    for (r = 0; r < bc->rows; ++r) {
        for (c = 0; c < bc->cols; ++c)
            row[c] = rng_uniform(&rng);
        dtype_store_row(bc->dt, bc->hdres, r * bc->cols, bc->cols, row);
    }
    for (c = 0; c < bc->cols; ++c) {
        dtype_store(bc->dt, bc->hw, c, 1.0f + 0.5f * rng_uniform(&rng));
        dtype_store(bc->dt, bc->hb, c, 0.5f * rng_uniform(&rng));
        bc->wd[c] = dtype_load(bc->dt, bc->hw, c);
        bc->bd[c] = dtype_load(bc->dt, bc->hb, c);
    }
    bc->nsample = 0;
    bc->sample[bc->nsample++] = 0;
    if (bc->rows > 1)
        bc->sample[bc->nsample++] = bc->rows - 1;
    while (bc->nsample < NUM_SAMPLE_ROWS && (size_t)bc->nsample < bc->rows)
        bc->sample[bc->nsample++] = (size_t)(rng_next(&rng) % bc->rows);
}

static int alloc_host(bench_case *bc)
{
    size_t cols = bc->cols;
    bc->hx = malloc(bc->bytes);
    bc->hdy = malloc(bc->bytes);
    bc->hdres = malloc(bc->bytes);
    bc->hw = malloc(cols * bc->elem);
    bc->hb = malloc(cols * bc->elem);
    bc->wd = malloc(cols * sizeof(double));
    bc->bd = malloc(cols * sizeof(double));
    bc->hmean = malloc(bc->rows * sizeof(float));
    bc->hrstd = malloc(bc->rows * sizeof(float));
    bc->dw_got = malloc(cols * sizeof(float));
    bc->db_got = malloc(cols * sizeof(float));
    bc->dw_warm = malloc(cols * sizeof(float));
    bc->db_warm = malloc(cols * sizeof(float));
    bc->ref_dw = malloc(cols * sizeof(double));
    bc->ref_db = malloc(cols * sizeof(double));
    bc->abs_dw = malloc(cols * sizeof(double));
    bc->abs_db = malloc(cols * sizeof(double));
    bc->r_x = malloc(cols * sizeof(double));
    bc->r_dy = malloc(cols * sizeof(double));
    bc->r_dres = malloc(cols * sizeof(double));
    bc->r_got = malloc(cols * sizeof(double));
    bc->r_ref = malloc(cols * sizeof(double));
    bc->r_aux = malloc(cols * sizeof(double));
    bc->r_raw = malloc(cols * bc->elem);
    return bc->hx && bc->hdy && bc->hdres && bc->hw && bc->hb && bc->wd && bc->bd && bc->hmean && bc->hrstd &&
           bc->dw_got && bc->db_got && bc->dw_warm && bc->db_warm && bc->ref_dw && bc->ref_db && bc->abs_dw &&
           bc->abs_db && bc->r_x && bc->r_dy && bc->r_dres && bc->r_got && bc->r_ref && bc->r_aux && bc->r_raw;
}

static void free_host(bench_case *bc)
{
    void *p[] = {bc->hx, bc->hdy, bc->hdres, bc->hw, bc->hb, bc->wd, bc->bd, bc->hmean, bc->hrstd, bc->dw_got,
        bc->db_got, bc->dw_warm, bc->db_warm, bc->ref_dw, bc->ref_db, bc->abs_dw, bc->abs_db, bc->r_x, bc->r_dy,
        bc->r_dres, bc->r_got, bc->r_ref, bc->r_aux, bc->r_raw};
    size_t i;
    for (i = 0; i < sizeof p / sizeof p[0]; ++i)
        free(p[i]);
}

static cl_int create_buffer(const bench_case *bc, size_t bytes, cl_mem *out)
{
    cl_int st;
    *out = clCreateBuffer(bc->env->context, CL_MEM_READ_WRITE, bytes, NULL, &st);
    return st;
}

static int create_device(bench_case *bc)
{
    size_t vec = bc->cols * bc->elem, fvec = bc->cols * sizeof(float), stats = bc->rows * sizeof(float);
    cl_int st = CL_SUCCESS;
    cl_mem *tensors[] = {&bc->x, &bc->y, &bc->dy, &bc->dres, &bc->dx};
    size_t i;
    for (i = 0; i < 5 && st == CL_SUCCESS; ++i)
        st = create_buffer(bc, bc->alloc, tensors[i]);
    if (st == CL_SUCCESS)
        st = create_buffer(bc, vec, &bc->w);
    if (st == CL_SUCCESS)
        st = create_buffer(bc, vec, &bc->b);
    if (st == CL_SUCCESS)
        st = create_buffer(bc, stats, &bc->mean);
    if (st == CL_SUCCESS)
        st = create_buffer(bc, stats, &bc->rstd);
    if (st == CL_SUCCESS)
        st = create_buffer(bc, fvec, &bc->dw);
    if (st == CL_SUCCESS)
        st = create_buffer(bc, fvec, &bc->db);
    if (st != CL_SUCCESS)
        return report_cl(bc, "clCreateBuffer", st);

    /* Dense views at offset 0. */
    bc->mx = (clnorm_matrix){bc->x, 0, 0, bc->dt};
    bc->my = (clnorm_matrix){bc->y, 0, 0, bc->dt};
    bc->mdy = (clnorm_matrix){bc->dy, 0, 0, bc->dt};
    bc->mdres = (clnorm_matrix){bc->dres, 0, 0, bc->dt};
    bc->mdx = (clnorm_matrix){bc->dx, 0, 0, bc->dt};
    bc->vw = (clnorm_vector){bc->w, 0, bc->dt};
    bc->vb = (clnorm_vector){bc->b, 0, bc->dt};
    bc->vmean = (clnorm_vector){bc->mean, 0, CLNORM_F32};
    bc->vrstd = (clnorm_vector){bc->rstd, 0, CLNORM_F32};
    bc->vdw = (clnorm_vector){bc->dw, 0, CLNORM_F32};
    bc->vdb = (clnorm_vector){bc->db, 0, CLNORM_F32};

    {
        cl_command_queue q = bc->env->queue;
        st = clEnqueueWriteBuffer(q, bc->x, CL_TRUE, 0, bc->bytes, bc->hx, 0, NULL, NULL);
        if (st == CL_SUCCESS)
            st = clEnqueueWriteBuffer(q, bc->dy, CL_TRUE, 0, bc->bytes, bc->hdy, 0, NULL, NULL);
        if (st == CL_SUCCESS)
            st = clEnqueueWriteBuffer(q, bc->dres, CL_TRUE, 0, bc->bytes, bc->hdres, 0, NULL, NULL);
        if (st == CL_SUCCESS)
            st = clEnqueueWriteBuffer(q, bc->w, CL_TRUE, 0, vec, bc->hw, 0, NULL, NULL);
        if (st == CL_SUCCESS)
            st = clEnqueueWriteBuffer(q, bc->b, CL_TRUE, 0, vec, bc->hb, 0, NULL, NULL);
        if (st != CL_SUCCESS)
            return report_cl(bc, "upload of the inputs", st);
    }
    return CL_SUCCESS;
}

/* Releases the device buffers (those created) and forgets them: safe to call twice. */
static void release_device(bench_case *bc)
{
    cl_mem *m[] = {
        &bc->x, &bc->y, &bc->dy, &bc->dres, &bc->dx, &bc->w, &bc->b, &bc->mean, &bc->rstd, &bc->dw, &bc->db};
    size_t i;
    for (i = 0; i < sizeof m / sizeof m[0]; ++i) {
        if (*m[i])
            clReleaseMemObject(*m[i]);
        *m[i] = NULL;
    }
}

/* ---- checks ---------------------------------------------------------------------------------- */

static int read_buffer(bench_case *bc, cl_mem buf, size_t offset, size_t bytes, void *dst)
{
    cl_int st = clEnqueueReadBuffer(bc->env->queue, buf, CL_TRUE, offset, bytes, dst, 0, NULL, NULL);
    return st == CL_SUCCESS ? st : report_cl(bc, "clEnqueueReadBuffer", st);
}

/* Reads row r of a dtype tensor into bc->r_got as doubles. */
static int read_row(bench_case *bc, cl_mem buf, size_t r)
{
    size_t row_bytes = bc->cols * bc->elem;
    int st = read_buffer(bc, buf, r * row_bytes, row_bytes, bc->r_raw);
    if (st == CL_SUCCESS)
        dtype_load_row(bc->dt, bc->r_raw, 0, bc->cols, bc->r_got);
    return st;
}

static int check_forward(bench_case *bc, check_stats *cs)
{
    char label[256];
    int i, st;
    st = read_buffer(bc, bc->mean, 0, bc->rows * sizeof(float), bc->hmean);
    if (st == CL_SUCCESS)
        st = read_buffer(bc, bc->rstd, 0, bc->rows * sizeof(float), bc->hrstd);
    snprintf(label, sizeof label, "forward %s", bc->name);
    for (i = 0; i < bc->nsample && st == CL_SUCCESS; ++i) {
        const size_t r = bc->sample[i];
        dtype_load_row(bc->dt, bc->hx, r * bc->cols, bc->cols, bc->r_x);
        st = read_row(bc, bc->y, r);
        if (st == CL_SUCCESS)
            check_forward_row(cs, label, r, bc->dt, bc->cols, BENCH_EPS, bc->r_x, bc->wd, bc->bd, bc->r_got,
                bc->hmean[r], bc->hrstd[r], bc->r_ref);
    }
    return st;
}

static int check_param_grads(bench_case *bc, check_stats *cs)
{
    char label[256];
    size_t c;
    int st = read_buffer(bc, bc->dw, 0, bc->cols * sizeof(float), bc->dw_got);
    if (st == CL_SUCCESS)
        st = read_buffer(bc, bc->db, 0, bc->cols * sizeof(float), bc->db_got);
    if (st != CL_SUCCESS)
        return st;
    if (!bc->have_ref_params) {
        /* Over the whole tensors, once per case: all three backward ops must give these sums. */
        if (ref_param_grads(bc->rows, bc->cols, bc->dt, bc->hx, bc->hdy, bc->hmean, bc->hrstd, bc->ref_dw,
                bc->ref_db, bc->abs_dw, bc->abs_db) != 0) {
            fprintf(stderr, "clnorm-bench: out of host memory\n");
            return CLNORM_OUT_OF_HOST_MEMORY;
        }
        bc->have_ref_params = 1;
    }
    for (c = 0; c < bc->cols; ++c) {
        double got;
        got = bc->dw_got[c];
        snprintf(label, sizeof label, "%s %s dweight", bc->op, bc->name);
        check_values(cs, label, c, CLNORM_F32, 1, &got, &bc->ref_dw[c], NULL, CHECK_STORE_ULPS, 0.0,
            CHECK_SUM_REL * bc->abs_dw[c]);
        got = bc->db_got[c];
        snprintf(label, sizeof label, "%s %s dbias", bc->op, bc->name);
        check_values(cs, label, c, CLNORM_F32, 1, &got, &bc->ref_db[c], NULL, CHECK_STORE_ULPS, 0.0,
            CHECK_SUM_REL * bc->abs_db[c]);
    }
    /* clnorm.h promises a fixed reduction order: bitwise identical from run to run. */
    if (memcmp(bc->dw_got, bc->dw_warm, bc->cols * sizeof(float)) != 0 ||
        memcmp(bc->db_got, bc->db_warm, bc->cols * sizeof(float)) != 0) {
        char msg[384];
        snprintf(msg, sizeof msg, "%s %s: dweight/dbias differ bitwise between the warm-up and the last run",
            bc->op, bc->name);
        check_fail(cs, msg);
    }
    return CL_SUCCESS;
}

/* dx of the sampled rows, for backward and backward_dx (with_res 0), backward_res and
 * backward_dx_res (1) and unfused (2: the residual was added after dx had been rounded to the
 * dtype once, so one more rounding of the intermediate value is allowed); then dweight/dbias
 * when the op computed them (params). */
static int check_backward(bench_case *bc, int with_res, int params, check_stats *cs)
{
    char label[256];
    int i, st = CL_SUCCESS;
    for (i = 0; i < bc->nsample && st == CL_SUCCESS; ++i) {
        size_t r = bc->sample[i], c;
        double scale;
        dtype_load_row(bc->dt, bc->hx, r * bc->cols, bc->cols, bc->r_x);
        dtype_load_row(bc->dt, bc->hdy, r * bc->cols, bc->cols, bc->r_dy);
        ref_backward_row(bc->cols, bc->r_dy, bc->r_x, bc->wd, bc->hmean[r], bc->hrstd[r], bc->r_aux, &scale);
        if (with_res) {
            double dres_max = 0.0;
            dtype_load_row(bc->dt, bc->hdres, r * bc->cols, bc->cols, bc->r_dres);
            for (c = 0; c < bc->cols; ++c) {
                bc->r_ref[c] = bc->r_aux[c] + bc->r_dres[c];
                dres_max = fmax(dres_max, fabs(bc->r_dres[c]));
            }
            scale += dres_max;
        } else {
            memcpy(bc->r_ref, bc->r_aux, bc->cols * sizeof(double));
        }
        st = read_row(bc, bc->dx, r);
        if (st != CL_SUCCESS)
            break;
        snprintf(label, sizeof label, "%s %s dx", bc->op, bc->name);
        check_values(cs, label, r, bc->dt, bc->cols, bc->r_got, bc->r_ref, with_res == 2 ? bc->r_aux : NULL,
            CHECK_STORE_ULPS, 1.0, CHECK_MATH_REL * scale);
    }
    if (st == CL_SUCCESS && params)
        st = check_param_grads(bc, cs);
    return st;
}

/* ---- the case -------------------------------------------------------------------------------- */

typedef struct op_desc {
    const char *name;
    bench_rep_fn rep;
    double tensors_moved; /* bytes model: tensors read + written (weights, statistics not counted) */
    int with_res;         /* for check_backward; -1: forward */
    int params;           /* computes dweight/dbias (checked, and bitwise against the warm-up) */
} op_desc;

/* Indexed by BENCH_OP_*. */
static const op_desc OPS[BENCH_NUM_OPS] = {
    {"forward", rep_forward, 2.0, -1, 0},
    {"backward", rep_backward, 3.0, 0, 1},
    {"backward_res", rep_backward_res, 4.0, 1, 1},
    {"unfused", rep_unfused, 4.0, 2, 1},
    {"backward_dx", rep_backward_dx, 3.0, 0, 0},         /* dy, x -> dx */
    {"backward_dx_res", rep_backward_dx_res, 4.0, 1, 0}, /* dy, x, dres -> dx */
};

/* Fills a buffer with NaN of its dtype, so that a result the op failed to write can never pass
 * the check as a leftover of the op before. */
static int poison(bench_case *bc, cl_mem buf, clnorm_dtype dt, size_t bytes)
{
    const cl_uint nan32 = 0x7FC00000u;
    const cl_ushort nan16 = dt == CLNORM_BF16 ? 0x7FC0u : 0x7E00u;
    cl_int st;
    if (dt == CLNORM_F32)
        st = clEnqueueFillBuffer(bc->env->queue, buf, &nan32, sizeof nan32, 0, bytes, 0, NULL, NULL);
    else
        st = clEnqueueFillBuffer(bc->env->queue, buf, &nan16, sizeof nan16, 0, bytes, 0, NULL, NULL);
    return st == CL_SUCCESS ? st : report_cl(bc, "clEnqueueFillBuffer", st);
}

static int poison_outputs(bench_case *bc, int forward)
{
    size_t stats = bc->rows * sizeof(float), fvec = bc->cols * sizeof(float);
    int st;
    if (forward) {
        st = poison(bc, bc->y, bc->dt, bc->alloc);
        if (st == CL_SUCCESS)
            st = poison(bc, bc->mean, CLNORM_F32, stats);
        if (st == CL_SUCCESS)
            st = poison(bc, bc->rstd, CLNORM_F32, stats);
    } else {
        st = poison(bc, bc->dx, bc->dt, bc->alloc);
        if (st == CL_SUCCESS)
            st = poison(bc, bc->dw, CLNORM_F32, fvec);
        if (st == CL_SUCCESS)
            st = poison(bc, bc->db, CLNORM_F32, fvec);
    }
    return st;
}

/* An op timed right after the copy yardstick in every repetition (timing_measure_pair): the
 * fraction is the median over repetitions of (op GB/s) / (copy GB/s of the same repetition), so a
 * machine whose bandwidth drifts between repetitions (shared hosts) still gives a fair ratio. */
static int measure_op(bench_case *bc, const op_desc *op, double *median_ms, double *copy_gbps, double *fraction)
{
    const bench_env *env = bc->env;
    double *ms = malloc((size_t)env->reps * 3 * sizeof *ms);
    int st, i;
    if (!ms) {
        fprintf(stderr, "clnorm-bench: out of host memory\n");
        return CLNORM_OUT_OF_HOST_MEMORY;
    }
    double *cms = ms + env->reps, *f = cms + env->reps;
    st = timing_warmup(env->queue, env->warmup, rep_copy, bc);
    if (st == CL_SUCCESS)
        st = timing_warmup(env->queue, env->warmup, op->rep, bc);
    if (st == CL_SUCCESS && op->params) {
        st = read_buffer(bc, bc->dw, 0, bc->cols * sizeof(float), bc->dw_warm);
        if (st == CL_SUCCESS)
            st = read_buffer(bc, bc->db, 0, bc->cols * sizeof(float), bc->db_warm);
    }
    if (st == CL_SUCCESS)
        st = timing_measure_pair(env->context, env->queue, env->kernels, env->reps, rep_copy, bc, cms, op->rep, bc, ms);
    if (st == CL_SUCCESS) {
        for (i = 0; i < env->reps; ++i) /* (tensors * bytes / op ms) / (2 * alloc / copy ms) */
            f[i] = op->tensors_moved * (double)bc->bytes * cms[i] / (2.0 * (double)bc->alloc * ms[i]);
        if (env->verbose) {
            fprintf(stderr, "  %-12s %s ms (copy ms):", bc->op, bc->name);
            for (i = 0; i < env->reps; ++i)
                fprintf(stderr, " %.3f (%.3f)", ms[i], cms[i]);
            fprintf(stderr, "\n");
        }
        *median_ms = timing_median(ms, env->reps);
        *copy_gbps = 2.0 * (double)bc->alloc / (timing_median(cms, env->reps) * 1e-3) / 1e9;
        *fraction = timing_median(f, env->reps);
    }
    free(ms);
    return st;
}

int bench_case_run(const bench_env *env, size_t rows, size_t cols, clnorm_dtype dt, bench_result *res, int *nres,
    check_stats *cs)
{
    bench_case bc;
    double copies[BENCH_NUM_OPS]; /* each op's paired copy figure */
    int st, i, ncopies = 0, outcome = BENCH_CASE_OK;

    memset(&bc, 0, sizeof bc);
    *nres = 0;
    bc.env = env;
    bc.rows = rows;
    bc.cols = cols;
    bc.dt = dt;
    bc.elem = dtype_size(dt);
    bc.n = rows * cols;
    bc.bytes = bc.n * bc.elem;
    bc.alloc = (bc.bytes + BENCH_COPY_GRANULE - 1) / BENCH_COPY_GRANULE * BENCH_COPY_GRANULE;
    bc.op = "setup";
    snprintf(bc.name, sizeof bc.name, "%s %zux%zu", dtype_name(dt), rows, cols);

    if (rows == 0 || cols == 0 || bc.n / cols != rows || bc.bytes / bc.elem != bc.n) {
        fprintf(stderr, "clnorm-bench: %s: invalid shape\n", bc.name);
        return BENCH_CASE_ERROR;
    }
    /* Five tensors live at once; skip (not fail) shapes the device cannot hold. */
    if (bc.alloc > env->max_alloc || (double)bc.alloc * 5.0 > (double)env->global_mem * 0.9) {
        fprintf(stderr, "clnorm-bench: %s: skipped, 5 tensors of %zu bytes do not fit the device "
                        "(max alloc %llu, global memory %llu)\n",
            bc.name, bc.alloc, (unsigned long long)env->max_alloc, (unsigned long long)env->global_mem);
        return BENCH_CASE_SKIPPED;
    }
    if (!alloc_host(&bc)) {
        fprintf(stderr, "clnorm-bench: %s: out of host memory\n", bc.name);
        free_host(&bc);
        return BENCH_CASE_ERROR;
    }
    fill_inputs(&bc, bc.dw_got); /* dw_got is free until the first backward: cols floats */
    st = create_device(&bc);


    for (i = 0; i < BENCH_NUM_OPS && st == CL_SUCCESS; ++i) {
        const op_desc *op = &OPS[i];
        double ms = 0.0;
        if (env->op_mask && !(env->op_mask & (1u << i)))
            continue;
        double op_copy_gbps = 0.0, fraction = 0.0;
        bc.op = op->name;
        st = poison_outputs(&bc, op->with_res < 0);
        if (st == CL_SUCCESS)
            st = measure_op(&bc, op, &ms, &op_copy_gbps, &fraction);
        if (st != CL_SUCCESS)
            break;
        /* The outputs now hold the last repetition's results; every op recomputes them in full
         * (the unfused add reads the dx its own backward just wrote). */
        check_begin(cs);
        st = op->with_res < 0 ? check_forward(&bc, cs) : check_backward(&bc, op->with_res, op->params, cs);
        {
            char what[128];
            snprintf(what, sizeof what, "%s %s", op->name, bc.name);
            check_end(cs, what);
        }
        memset(&res[*nres], 0, sizeof res[*nres]);
        res[*nres].impl = "clnorm";
        res[*nres].op = op->name;
        res[*nres].dtype = dt;
        res[*nres].rows = rows;
        res[*nres].cols = cols;
        res[*nres].headline = 1;
        res[*nres].ms = ms;
        res[*nres].gbps = op->tensors_moved * (double)bc.bytes / (ms * 1e-3) / 1e9;
        res[*nres].copy_gbps = copies[ncopies++] = op_copy_gbps;
        res[*nres].fraction = fraction;
        res[*nres].speedup = NAN;
        ++*nres;
    }

    /* Whatever is measured next to clnorm (--vs), on the same host inputs, while they exist. The
     * device buffers are released first: the other library works in host memory. */
    if (st == CL_SUCCESS && env->hook) {
        bench_host_case hc;
        int n = 0;
        clFinish(env->queue);
        release_device(&bc);
        hc.rows = rows;
        hc.cols = cols;
        hc.dt = dt;
        hc.eps = BENCH_EPS;
        hc.x = bc.hx;
        hc.dy = bc.hdy;
        hc.wd = bc.wd;
        hc.bd = bc.bd;
        hc.sample = bc.sample;
        hc.nsample = bc.nsample;
        /* host-memory libraries are not paired with a copy: the median of the ops' copy figures */
        hc.copy_gbps = ncopies ? timing_median(copies, ncopies) : NAN;
        st = env->hook->run(env->hook, env, &hc, res + *nres, &n, cs);
        *nres += n;
    }
    if (st != CL_SUCCESS)
        outcome = BENCH_CASE_ERROR;

    clFinish(env->queue); /* after a failure commands may still use the buffers */
    release_device(&bc);
    free_host(&bc);
    return outcome;
}
