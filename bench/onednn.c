/* clnorm-bench --vs onednn — oneDNN's layer normalization (C API of oneDNN 2.x) on the CPU, timed
 * and checked the way clnorm's ops are, on the very same host inputs. */
#define _POSIX_C_SOURCE 200809L
#include "onednn.h"

#include "check.h"
#include "dtype.h"
#include "reference.h"
#include "timing.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char TIMING[] =
    "wall clock (CLOCK_MONOTONIC) around dnnl_primitive_execute + dnnl_stream_wait of one call, tensors in "
    "host memory, oneDNN's own thread pool; same bytes model as clnorm's rows, copy figure: the median of "
    "clnorm's paired copies for the case";

typedef struct onednn_hook {
    bench_hook hook; /* first member: a bench_hook * from onednn_hook_create points at the whole object */
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    char number[16];   /* "2.6.3" */
    char version[96];  /* "2.6.3 (git hash)" */
    char runtime[32];
    char isa[48];
} onednn_hook;

/* The memory objects of one case, indexed by these. */
enum { M_X, M_Y, M_DY, M_DX, M_MEAN, M_VAR, M_SCALE, M_SHIFT, M_DSCALE, M_DSHIFT, M_COUNT };

typedef struct lnorm_case {
    onednn_hook *h;
    const bench_env *env;
    const bench_host_case *hc;
    char name[64];  /* "bf16 262144x256", for messages */
    size_t elem, bytes;
    void *y, *dx;   /* rows x cols in the case's dtype */
    float *mean, *var, *scale, *shift, *dscale, *dshift; /* rows or cols floats */
    float *rstd;    /* 1/sqrt(var + eps) of oneDNN's variance, for the reference */
    double *r_x, *r_dy, *r_got, *r_ref, *ref_dw, *ref_db, *abs_dw, *abs_db;
    dnnl_primitive_desc_t fwd_pd, bwd_pd;
    dnnl_primitive_t fwd, bwd;
    dnnl_memory_t mem[M_COUNT];
} lnorm_case;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static const char *status_name(dnnl_status_t st)
{
    return dnnl_status2str(st);
}

/* NaN of the dtype in every element: a result oneDNN failed to write can never pass a check. */
static void poison_host(void *p, clnorm_dtype dt, size_t n)
{
    size_t i;
    if (dt == CLNORM_F32) {
        const uint32_t nan32 = 0x7FC00000u;
        for (i = 0; i < n; ++i)
            memcpy((char *)p + 4 * i, &nan32, 4);
    } else {
        uint16_t *q = p, nan16 = dt == CLNORM_BF16 ? 0x7FC0u : 0x7E00u;
        for (i = 0; i < n; ++i)
            q[i] = nan16;
    }
}

/* Median wall time of one execute + wait, after the warm-up calls. */
static int time_primitive(lnorm_case *lc, const char *op, dnnl_primitive_t prim, int nargs, const dnnl_exec_arg_t *args,
    double *median_ms)
{
    const bench_env *env = lc->env;
    double *ms = malloc((size_t)env->reps * sizeof *ms);
    int i;
    if (!ms) {
        fprintf(stderr, "clnorm-bench: out of host memory\n");
        return -1;
    }
    for (i = -env->warmup; i < env->reps; ++i) {
        double t0 = now_ms(), t1;
        dnnl_status_t st = dnnl_primitive_execute(prim, lc->h->stream, nargs, args);
        if (st == dnnl_success)
            st = dnnl_stream_wait(lc->h->stream);
        t1 = now_ms();
        if (st != dnnl_success) {
            fprintf(stderr, "clnorm-bench: onednn %s %s: dnnl_primitive_execute: %s\n", op, lc->name, status_name(st));
            free(ms);
            return -1;
        }
        if (i >= 0)
            ms[i] = t1 - t0;
    }
    if (env->verbose) {
        fprintf(stderr, "  onednn %-8s %s ms:", op, lc->name);
        for (i = 0; i < env->reps; ++i)
            fprintf(stderr, " %.3f", ms[i]);
        fprintf(stderr, "\n");
    }
    *median_ms = timing_median(ms, env->reps);
    free(ms);
    return 0;
}

/* y, mean and the variance (as rstd = 1/sqrt(var + eps), the quantity clnorm's check uses) of the
 * sampled rows against the float64 reference, with clnorm's tolerances. */
static void check_forward(lnorm_case *lc, check_stats *cs)
{
    const bench_host_case *hc = lc->hc;
    char label[192];
    int i;
    check_begin(cs);
    snprintf(label, sizeof label, "onednn forward %s", lc->name);
    for (i = 0; i < hc->nsample; ++i) {
        const size_t r = hc->sample[i];
        dtype_load_row(hc->dt, hc->x, r * hc->cols, hc->cols, lc->r_x);
        dtype_load_row(hc->dt, lc->y, r * hc->cols, hc->cols, lc->r_got);
        /* oneDNN saves the variance: compared as rstd = 1/sqrt(var + eps) */
        check_forward_row(cs, label, r, hc->dt, hc->cols, hc->eps, lc->r_x, hc->wd, hc->bd, lc->r_got, lc->mean[r],
            1.0 / sqrt((double)lc->var[r] + (double)hc->eps), lc->r_ref);
    }
    check_end(cs, label);
}

/* dx of the sampled rows and diff_scale/diff_shift over all rows, against the reference computed
 * with oneDNN's own saved mean and variance. */
static int check_backward(lnorm_case *lc, check_stats *cs)
{
    const bench_host_case *hc = lc->hc;
    char label[192];
    size_t r, c;
    int i;
    for (r = 0; r < hc->rows; ++r)
        lc->rstd[r] = (float)(1.0 / sqrt((double)lc->var[r] + (double)hc->eps));
    if (ref_param_grads(hc->rows, hc->cols, hc->dt, hc->x, hc->dy, lc->mean, lc->rstd, lc->ref_dw, lc->ref_db,
            lc->abs_dw, lc->abs_db) != 0) {
        fprintf(stderr, "clnorm-bench: out of host memory\n");
        return -1;
    }
    check_begin(cs);
    for (i = 0; i < hc->nsample; ++i) {
        double scale, rstd;
        r = hc->sample[i];
        rstd = 1.0 / sqrt((double)lc->var[r] + (double)hc->eps);
        dtype_load_row(hc->dt, hc->x, r * hc->cols, hc->cols, lc->r_x);
        dtype_load_row(hc->dt, hc->dy, r * hc->cols, hc->cols, lc->r_dy);
        ref_backward_row(hc->cols, lc->r_dy, lc->r_x, hc->wd, lc->mean[r], rstd, lc->r_ref, &scale);
        dtype_load_row(hc->dt, lc->dx, r * hc->cols, hc->cols, lc->r_got);
        snprintf(label, sizeof label, "onednn backward %s dx", lc->name);
        check_values(cs, label, r, hc->dt, hc->cols, lc->r_got, lc->r_ref, NULL, CHECK_STORE_ULPS, 0.0,
            CHECK_MATH_REL * scale);
    }
    for (c = 0; c < hc->cols; ++c) {
        double got = lc->dscale[c];
        snprintf(label, sizeof label, "onednn backward %s diff_scale", lc->name);
        check_values(cs, label, c, CLNORM_F32, 1, &got, &lc->ref_dw[c], NULL, CHECK_STORE_ULPS, 0.0,
            CHECK_SUM_REL * lc->abs_dw[c]);
        got = lc->dshift[c];
        snprintf(label, sizeof label, "onednn backward %s diff_shift", lc->name);
        check_values(cs, label, c, CLNORM_F32, 1, &got, &lc->ref_db[c], NULL, CHECK_STORE_ULPS, 0.0,
            CHECK_SUM_REL * lc->abs_db[c]);
    }
    snprintf(label, sizeof label, "onednn backward %s", lc->name);
    check_end(cs, label);
    return 0;
}

static void free_case(lnorm_case *lc)
{
    void *p[] = {lc->y, lc->dx, lc->mean, lc->var, lc->scale, lc->shift, lc->dscale, lc->dshift, lc->rstd, lc->r_x,
        lc->r_dy, lc->r_got, lc->r_ref, lc->ref_dw, lc->ref_db, lc->abs_dw, lc->abs_db};
    size_t i;
    for (i = 0; i < M_COUNT; ++i)
        if (lc->mem[i])
            dnnl_memory_destroy(lc->mem[i]);
    if (lc->fwd)
        dnnl_primitive_destroy(lc->fwd);
    if (lc->bwd)
        dnnl_primitive_destroy(lc->bwd);
    if (lc->fwd_pd)
        dnnl_primitive_desc_destroy(lc->fwd_pd);
    if (lc->bwd_pd)
        dnnl_primitive_desc_destroy(lc->bwd_pd);
    for (i = 0; i < sizeof p / sizeof p[0]; ++i)
        free(p[i]);
}

static int alloc_case(lnorm_case *lc)
{
    size_t rows = lc->hc->rows, cols = lc->hc->cols;
    lc->y = malloc(lc->bytes);
    lc->dx = malloc(lc->bytes);
    lc->mean = malloc(rows * sizeof(float));
    lc->var = malloc(rows * sizeof(float));
    lc->rstd = malloc(rows * sizeof(float));
    lc->scale = malloc(cols * sizeof(float));
    lc->shift = malloc(cols * sizeof(float));
    lc->dscale = malloc(cols * sizeof(float));
    lc->dshift = malloc(cols * sizeof(float));
    lc->r_x = malloc(cols * sizeof(double));
    lc->r_dy = malloc(cols * sizeof(double));
    lc->r_got = malloc(cols * sizeof(double));
    lc->r_ref = malloc(cols * sizeof(double));
    lc->ref_dw = malloc(cols * sizeof(double));
    lc->ref_db = malloc(cols * sizeof(double));
    lc->abs_dw = malloc(cols * sizeof(double));
    lc->abs_db = malloc(cols * sizeof(double));
    return lc->y && lc->dx && lc->mean && lc->var && lc->rstd && lc->scale && lc->shift && lc->dscale && lc->dshift &&
           lc->r_x && lc->r_dy && lc->r_got && lc->r_ref && lc->ref_dw && lc->ref_db && lc->abs_dw && lc->abs_db;
}

static void add_row(bench_result *res, int *nres, const bench_host_case *hc, const char *op, double tensors,
    double ms, const char *note)
{
    bench_result *r = &res[(*nres)++];
    double bytes = (double)(hc->rows * hc->cols * dtype_size(hc->dt));
    memset(r, 0, sizeof *r);
    r->impl = "onednn";
    r->op = op;
    r->dtype = hc->dt;
    r->rows = hc->rows;
    r->cols = hc->cols;
    r->headline = 1;
    r->ms = ms;
    r->gbps = isfinite(ms) ? tensors * bytes / (ms * 1e-3) / 1e9 : NAN;
    r->copy_gbps = hc->copy_gbps;
    r->fraction = r->gbps / hc->copy_gbps;
    r->speedup = NAN;
    snprintf(r->note, sizeof r->note, "%s", note);
}

static const char *impl_name(const_dnnl_primitive_desc_t pd)
{
    const char *s = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &s) != dnnl_success || !s)
        return "?";
    return s;
}

static int run_case(bench_hook *hook, const bench_env *env, const bench_host_case *hc, bench_result *res, int *nres,
    check_stats *cs)
{
    onednn_hook *h = (onednn_hook *)hook;
    lnorm_case lc;
    dnnl_data_type_t ddt;
    dnnl_memory_desc_t data_md, stat_md, vec_md;
    dnnl_layer_normalization_desc_t fd, bd;
    dnnl_dims_t ddims, sdims, cdims;
    const unsigned flags = dnnl_use_scale | dnnl_use_shift;
    dnnl_status_t st;
    char note[128];
    double fwd_ms = NAN, bwd_ms = NAN;
    int rc = 0;
    size_t c;

    memset(&lc, 0, sizeof lc);
    lc.h = h;
    lc.env = env;
    lc.hc = hc;
    lc.elem = dtype_size(hc->dt);
    lc.bytes = hc->rows * hc->cols * lc.elem;
    snprintf(lc.name, sizeof lc.name, "%s %zux%zu", dtype_name(hc->dt), hc->rows, hc->cols);
    *nres = 0;

    switch (hc->dt) {
    case CLNORM_F32: ddt = dnnl_f32; break;
    case CLNORM_BF16: ddt = dnnl_bf16; break;
    default: ddt = dnnl_f16; break;
    }
    ddims[0] = (dnnl_dim_t)hc->rows;
    ddims[1] = (dnnl_dim_t)hc->cols;
    sdims[0] = (dnnl_dim_t)hc->rows;
    cdims[0] = (dnnl_dim_t)hc->cols;
    st = dnnl_memory_desc_init_by_tag(&data_md, 2, ddims, ddt, dnnl_ab);
    if (st == dnnl_success)
        st = dnnl_memory_desc_init_by_tag(&stat_md, 1, sdims, dnnl_f32, dnnl_a);
    if (st == dnnl_success)
        st = dnnl_memory_desc_init_by_tag(&vec_md, 1, cdims, dnnl_f32, dnnl_a);
    if (st == dnnl_success)
        st = dnnl_layer_normalization_forward_desc_init(&fd, dnnl_forward_training, &data_md, &stat_md, hc->eps, flags);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(&lc.fwd_pd, &fd, NULL, h->engine, NULL);
    if (st != dnnl_success) {
        /* Not an error of the run: this oneDNN has no such layer normalization here. */
        snprintf(note, sizeof note, "n/a: oneDNN %s has no %s layer normalization forward on this CPU (%s)",
            h->number, dtype_name(hc->dt), status_name(st));
        add_row(res, nres, hc, "forward", 2.0, NAN, note);
        add_row(res, nres, hc, "backward", 3.0, NAN, note);
        return 0;
    }
    st = dnnl_layer_normalization_backward_desc_init(&bd, dnnl_backward, &data_md, &data_md, &stat_md, hc->eps, flags);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(&lc.bwd_pd, &bd, NULL, h->engine, lc.fwd_pd);
    if (st != dnnl_success)
        lc.bwd_pd = NULL;

    if (!alloc_case(&lc)) {
        fprintf(stderr, "clnorm-bench: onednn %s: out of host memory\n", lc.name);
        free_case(&lc);
        return -1;
    }
    /* The same weight and bias values as clnorm's (fp32 here: oneDNN's scale and shift are f32). */
    for (c = 0; c < hc->cols; ++c) {
        lc.scale[c] = (float)hc->wd[c];
        lc.shift[c] = (float)hc->bd[c];
    }
    poison_host(lc.y, hc->dt, hc->rows * hc->cols);
    poison_host(lc.dx, hc->dt, hc->rows * hc->cols);
    poison_host(lc.mean, CLNORM_F32, hc->rows);
    poison_host(lc.var, CLNORM_F32, hc->rows);
    poison_host(lc.dscale, CLNORM_F32, hc->cols);
    poison_host(lc.dshift, CLNORM_F32, hc->cols);
    {
        /* oneDNN only reads x and dy: the casts drop const for its handle type. */
        const dnnl_memory_desc_t *mds[M_COUNT] = {
            &data_md, &data_md, &data_md, &data_md, &stat_md, &stat_md, &vec_md, &vec_md, &vec_md, &vec_md};
        void *ptrs[M_COUNT] = {(void *)hc->x, lc.y, (void *)hc->dy, lc.dx, lc.mean, lc.var, lc.scale, lc.shift,
            lc.dscale, lc.dshift};
        int i;
        for (i = 0, st = dnnl_success; i < M_COUNT && st == dnnl_success; ++i)
            st = dnnl_memory_create(&lc.mem[i], mds[i], h->engine, ptrs[i]);
    }
    if (st == dnnl_success)
        st = dnnl_primitive_create(&lc.fwd, lc.fwd_pd);
    if (st == dnnl_success && lc.bwd_pd)
        st = dnnl_primitive_create(&lc.bwd, lc.bwd_pd);
    if (st != dnnl_success) {
        fprintf(stderr, "clnorm-bench: onednn %s: creating memory objects or primitives: %s\n", lc.name,
            status_name(st));
        free_case(&lc);
        return -1;
    }

    {
        const dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, lc.mem[M_X]}, {DNNL_ARG_DST, lc.mem[M_Y]},
            {DNNL_ARG_MEAN, lc.mem[M_MEAN]}, {DNNL_ARG_VARIANCE, lc.mem[M_VAR]}, {DNNL_ARG_SCALE, lc.mem[M_SCALE]},
            {DNNL_ARG_SHIFT, lc.mem[M_SHIFT]}};
        const dnnl_exec_arg_t bargs[] = {{DNNL_ARG_SRC, lc.mem[M_X]}, {DNNL_ARG_DIFF_DST, lc.mem[M_DY]},
            {DNNL_ARG_MEAN, lc.mem[M_MEAN]}, {DNNL_ARG_VARIANCE, lc.mem[M_VAR]}, {DNNL_ARG_SCALE, lc.mem[M_SCALE]},
            {DNNL_ARG_SHIFT, lc.mem[M_SHIFT]}, {DNNL_ARG_DIFF_SRC, lc.mem[M_DX]},
            {DNNL_ARG_DIFF_SCALE, lc.mem[M_DSCALE]}, {DNNL_ARG_DIFF_SHIFT, lc.mem[M_DSHIFT]}};
        rc = time_primitive(&lc, "forward", lc.fwd, (int)(sizeof fargs / sizeof fargs[0]), fargs, &fwd_ms);
        if (rc == 0) {
            check_forward(&lc, cs);
            snprintf(note, sizeof note, "oneDNN impl %s", impl_name(lc.fwd_pd));
            add_row(res, nres, hc, "forward", 2.0, fwd_ms, note);
        }
        /* The backward reads the mean and variance of the forward's last call. */
        if (rc == 0 && lc.bwd) {
            rc = time_primitive(&lc, "backward", lc.bwd, (int)(sizeof bargs / sizeof bargs[0]), bargs, &bwd_ms);
            if (rc == 0)
                rc = check_backward(&lc, cs);
            if (rc == 0) {
                snprintf(note, sizeof note, "oneDNN impl %s", impl_name(lc.bwd_pd));
                add_row(res, nres, hc, "backward", 3.0, bwd_ms, note);
            }
        } else if (rc == 0) {
            snprintf(note, sizeof note, "n/a: oneDNN %s has no %s layer normalization backward on this CPU", h->number,
                dtype_name(hc->dt));
            add_row(res, nres, hc, "backward", 3.0, NAN, note);
        }
    }
    free_case(&lc);
    return rc;
}

/* The threads oneDNN's runtime runs a parallel region on, or -1 when unknown. For OpenMP that is
 * omp_get_max_threads() of the OpenMP runtime oneDNN itself loaded (looked up in the process's
 * global symbols, so it is that runtime whatever compiler built clnorm-bench; OMP_NUM_THREADS and
 * the affinity mask included). */
static int runtime_threads(unsigned cpu_runtime)
{
    int threads = -1;
    if (cpu_runtime == DNNL_RUNTIME_SEQ)
        return 1;
    if (cpu_runtime == DNNL_RUNTIME_OMP) {
        void *self = dlopen(NULL, RTLD_LAZY);
        void *sym = self ? dlsym(self, "omp_get_max_threads") : NULL;
        if (sym) {
            int (*fn)(void);
            memcpy(&fn, &sym, sizeof fn); /* object pointer to function pointer, as POSIX allows */
            threads = fn();
        }
        if (self)
            dlclose(self);
    }
    return threads;
}

bench_hook *onednn_hook_create(bench_vs_info *info)
{
    onednn_hook *h = calloc(1, sizeof *h);
    const dnnl_version_t *v = dnnl_version();
    dnnl_status_t st;
    if (!h) {
        fprintf(stderr, "clnorm-bench: out of host memory\n");
        return NULL;
    }
    h->hook.run = run_case;
    st = dnnl_engine_create(&h->engine, dnnl_cpu, 0);
    if (st == dnnl_success)
        st = dnnl_stream_create(&h->stream, h->engine, dnnl_stream_default_flags);
    if (st != dnnl_success) {
        fprintf(stderr, "clnorm-bench: --vs onednn: cannot create oneDNN's CPU engine and stream: %s\n",
            status_name(st));
        onednn_hook_release(&h->hook);
        return NULL;
    }
    snprintf(h->number, sizeof h->number, "%d.%d.%d", v->major % 1000, v->minor % 1000, v->patch % 1000);
    /* Debian's build reports its git hash as "N/A". */
    if (v->hash && *v->hash && strcmp(v->hash, "N/A") != 0)
        snprintf(h->version, sizeof h->version, "%s (%.60s)", h->number, v->hash);
    else
        snprintf(h->version, sizeof h->version, "%s", h->number);
    snprintf(h->runtime, sizeof h->runtime, "%s",
        v->cpu_runtime == DNNL_RUNTIME_OMP         ? "OpenMP"
            : v->cpu_runtime == DNNL_RUNTIME_TBB   ? "TBB"
            : v->cpu_runtime == DNNL_RUNTIME_SEQ   ? "sequential"
            : v->cpu_runtime == DNNL_RUNTIME_THREADPOOL ? "threadpool"
                                                   : "other");
    {
        const char *isa = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());
        if (isa && strncmp(isa, "cpu_isa_", 8) == 0)
            isa += 8;
        snprintf(h->isa, sizeof h->isa, "%s", isa ? isa : "?");
    }
    info->library = "onednn";
    info->version = h->version;
    info->runtime = h->runtime;
    info->isa = h->isa;
    info->timing = TIMING;
    info->threads = runtime_threads(v->cpu_runtime);
    return &h->hook;
}

void onednn_hook_release(bench_hook *hook)
{
    onednn_hook *h = (onednn_hook *)hook;
    if (!h)
        return;
    if (h->stream)
        dnnl_stream_destroy(h->stream);
    if (h->engine)
        dnnl_engine_destroy(h->engine);
    free(h);
}
