#include "problem.h"

#include "dtype.h"
#include "prng.h"
#include "reference.h"
#include "tolerance.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAIL_BYTES 40 /* sentinel bytes after the last view of every buffer */

/* Indices giving each tensor its own offset and stride in every layout. */
enum { T_X, T_Y, T_DY, T_DRES, T_DX, T_W, T_B, T_MEAN, T_RSTD, T_DW, T_DB, T_YS };
enum { G_ACT, G_STATS, G_PAR, G_COUNT };

const char *affine_name(int a)
{
    static const char *names[] = { "none", "weight", "weight+bias", "bias", "grads-only", "weight, dx only" };
    return a >= 0 && a <= AFF_W_DX ? names[a] : "?";
}

const char *residual_name(int r)
{
    static const char *names[] = { "none", "separate", "in-place" };
    return r >= 0 && r < RES_COUNT ? names[r] : "?";
}

const char *layout_name(int l)
{
    static const char *names[] = { "dense", "dense+offsets", "padded-aligned", "padded-odd", "explicit-stride", "shared",
                                   "row-phase" };
    return l >= 0 && l < LAY_COUNT ? names[l] : "?";
}

static const char *stats_name(int s)
{
    static const char *names[] = { "mean+rstd", "none", "mean", "rstd" };
    return s >= 0 && s < STATS_COUNT ? names[s] : "?";
}

static placement place_for(int layout, int k)
{
    placement pl = { 0, 0, 1, 0 };
    switch (layout) {
    case LAY_DENSE_OFFSET:
        pl.gap = 2 * (size_t)k + 1;
        break;
    case LAY_PAD_ALIGNED:
        pl.gap = 8 * ((size_t)k + 1);
        pl.pad = 8 * ((size_t)k + 1);
        pl.align = 8;
        break;
    case LAY_PAD_ODD:
        pl.gap = 2 * (size_t)k + 3;
        pl.pad = 2 * (size_t)k + 1;
        break;
    case LAY_EXPLICIT:
        pl.gap = 4 * ((size_t)k + 1);
        pl.explicit_stride = 1;
        pl.align = 4;
        break;
    case LAY_SHARED: /* mixes dense and padded, aligned and odd views inside one buffer */
        pl.gap = (size_t)k;
        pl.pad = (k % 2) ? (size_t)k : 0;
        break;
    case LAY_PHASE: /* (each tensor in its own buffer: the offset is the gap) */
        if (k <= T_DX) {
            pl.gap = 5 + 16 * (size_t)k;
            pl.pad = 19;
        } else {
            pl.gap = (size_t)k;
        }
        break;
    default:
        break;
    }
    return pl;
}

typedef struct planner {
    problem *p;
    tbuf *group[G_COUNT];
} planner;

static tbuf *buffer_for(planner *pn, int group, const char *name)
{
    static const char *group_names[] = { "activations", "stats", "parameters" };
    problem *p = pn->p;
    if (p->cfg.layout == LAY_SHARED && pn->group[group])
        return pn->group[group];
    ck_assert(p->nbufs < (int)(sizeof p->bufs / sizeof p->bufs[0]));
    tbuf *b = &p->bufs[p->nbufs++];
    tbuf_init(b, p->cfg.layout == LAY_SHARED ? group_names[group] : name);
    pn->group[group] = b;
    return b;
}

static void place_matrix(planner *pn, tview *v, int k, const char *name, clnorm_dtype dt)
{
    tview_place(v, buffer_for(pn, G_ACT, name), name, dt, pn->p->cfg.rows, pn->p->cfg.cols,
                place_for(pn->p->cfg.layout, k));
}

static void place_vector(planner *pn, tview *v, int k, int group, const char *name, clnorm_dtype dt, size_t n)
{
    tview_place_vector(v, buffer_for(pn, group, name), name, dt, n, place_for(pn->p->cfg.layout, k));
}

static void describe(problem *p, const char *op)
{
    const case_cfg *c = &p->cfg;
    snprintf(p->what, sizeof p->what,
             "[%s act=%s par=%s rows=%zu cols=%zu affine=%s residual=%s layout=%s data=%s stats=%s%s eps=%g seed=%" PRIu64 "]",
             op, dtype_name(c->act), dtype_name(c->par), c->rows, c->cols, affine_name(c->affine),
             residual_name(c->residual), layout_name(c->layout), c->data == DATA_MEAN_1E4 ? "mean1e4" : "random",
             p->backward ? (c->stats_from_library ? "from-forward" : "host-fp32") : stats_name(c->stats),
             !p->backward && c->inplace ? " y=x" : "", (double)c->eps, c->seed);
}

static void alloc_all(problem *p, clnorm_context *ctx, rng *r)
{
    for (int i = 0; i < p->nbufs; i++)
        tbuf_alloc(&p->bufs[i], clnorm_context_cl_context(ctx), TAIL_BYTES, r);
}

static void upload_all(problem *p, clnorm_context *ctx)
{
    for (int i = 0; i < p->nbufs; i++)
        tbuf_upload(&p->bufs[i], clnorm_context_queue(ctx));
}

/* x: every row with its own nonzero mean and scale (or mean 1e4, std 1). */
static double *gen_x(rng *r, const case_cfg *c)
{
    double *x = xmalloc(c->rows * c->cols * sizeof *x);
    for (size_t i = 0; i < c->rows; i++) {
        double mu, sigma;
        if (c->data == DATA_MEAN_1E4) {
            mu = 1e4;
            sigma = 1.0;
        } else {
            mu = (rng_uniform(r) < 0.5 ? -1.0 : 1.0) * rng_range(r, 0.5, 4.0);
            sigma = rng_log_uniform(r, 0.2, 5.0);
        }
        for (size_t j = 0; j < c->cols; j++)
            x[i * c->cols + j] = mu + sigma * rng_normal(r);
    }
    return x;
}

/* weight: magnitudes in [0.25, 2) with random signs; bias: [-1, 1). */
static double *gen_param(rng *r, size_t n, int is_weight)
{
    double *v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = is_weight ? (rng_uniform(r) < 0.5 ? -1.0 : 1.0) * rng_range(r, 0.25, 2.0) : rng_range(r, -1.0, 1.0);
    return v;
}

/* dy: per-row scale in [0.1, 3) with a nonzero mean; dresidual: N(0.1, 0.5^2). */
static double *gen_grad(rng *r, const case_cfg *c, int is_residual)
{
    double *v = xmalloc(c->rows * c->cols * sizeof *v);
    for (size_t i = 0; i < c->rows; i++) {
        double s = is_residual ? 0.5 : rng_log_uniform(r, 0.1, 3.0);
        for (size_t j = 0; j < c->cols; j++)
            v[i * c->cols + j] = is_residual ? 0.1 + s * rng_normal(r) : s * (0.25 + rng_normal(r));
    }
    return v;
}

void fwd_setup(problem *p, clnorm_context *ctx, const case_cfg *cfg)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    describe(p, "forward");
    rng r;
    rng_seed(&r, cfg->seed);
    planner pn = { p, { NULL } };
    int has_w = cfg->affine == AFF_W || cfg->affine == AFF_WB || cfg->affine == AFF_W_DX;
    int has_b = cfg->affine == AFF_WB || cfg->affine == AFF_B;

    place_matrix(&pn, &p->x, T_X, "x", cfg->act);
    if (cfg->inplace) {
        p->y = p->x;
        p->y.name = "y(=x)";
    } else
        place_matrix(&pn, &p->y, T_Y, "y", cfg->act);
    if (has_w)
        place_vector(&pn, &p->w, T_W, G_PAR, "weight", cfg->par, cfg->cols);
    if (has_b)
        place_vector(&pn, &p->b, T_B, G_PAR, "bias", cfg->par, cfg->cols);
    if (cfg->stats == STATS_BOTH || cfg->stats == STATS_MEAN)
        place_vector(&pn, &p->mean, T_MEAN, G_STATS, "mean", CLNORM_F32, cfg->rows);
    if (cfg->stats == STATS_BOTH || cfg->stats == STATS_RSTD)
        place_vector(&pn, &p->rstd, T_RSTD, G_STATS, "rstd", CLNORM_F32, cfg->rows);
    alloc_all(p, ctx, &r);

    p->xh = gen_x(&r, cfg);
    tview_store(&p->x, p->xh);
    if (has_w) {
        p->wh = gen_param(&r, cfg->cols, 1);
        tview_store(&p->w, p->wh);
    }
    if (has_b) {
        p->bh = gen_param(&r, cfg->cols, 0);
        tview_store(&p->b, p->bh);
    }
    if (!cfg->inplace)
        tview_poison(&p->y);
    if (p->mean.buf)
        tview_poison(&p->mean);
    if (p->rstd.buf)
        tview_poison(&p->rstd);
    upload_all(p, ctx);
}

static clnorm_status forward_call(clnorm_context *ctx, const problem *p, const tview *x, const tview *w, const tview *b,
                                  const tview *y, const tview *mean, const tview *rstd,
                                  cl_uint nwait, const cl_event *wait, cl_event *event)
{
    clnorm_matrix mx = tview_matrix(x), my = tview_matrix(y);
    clnorm_vector vw = tview_vector(w), vb = tview_vector(b), vm = tview_vector(mean), vr = tview_vector(rstd);
    return clnorm_layer_norm_forward(ctx, p->cfg.rows, p->cfg.cols, p->cfg.eps, &mx, w->buf ? &vw : NULL,
                                     b->buf ? &vb : NULL, &my, mean->buf ? &vm : NULL, rstd->buf ? &vr : NULL,
                                     nwait, wait, event);
}

clnorm_status fwd_enqueue(problem *p, clnorm_context *ctx, cl_uint nwait, const cl_event *wait, cl_event *event)
{
    return forward_call(ctx, p, &p->x, &p->w, &p->b, &p->y, &p->mean, &p->rstd, nwait, wait, event);
}

void bwd_setup(problem *p, clnorm_context *ctx, const case_cfg *cfg)
{
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->backward = 1;
    describe(p, "backward");
    rng r;
    rng_seed(&r, cfg->seed);
    planner pn = { p, { NULL } };
    int has_w = cfg->affine == AFF_W || cfg->affine == AFF_WB || cfg->affine == AFF_W_DX;
    int want_dw = cfg->affine == AFF_W || cfg->affine == AFF_WB || cfg->affine == AFF_GRADS;
    int want_db = cfg->affine == AFF_WB || cfg->affine == AFF_B || cfg->affine == AFF_GRADS;

    place_matrix(&pn, &p->x, T_X, "x", cfg->act);
    place_matrix(&pn, &p->dy, T_DY, "dy", cfg->act);
    if (cfg->residual == RES_SEPARATE)
        place_matrix(&pn, &p->dres, T_DRES, "dresidual", cfg->act);
    place_matrix(&pn, &p->dx, T_DX, "dx", cfg->act);
    if (cfg->residual == RES_INPLACE) {
        p->dres = p->dx;
        p->dres.name = "dresidual(=dx)";
    }
    if (has_w)
        place_vector(&pn, &p->w, T_W, G_PAR, "weight", cfg->par, cfg->cols);
    place_vector(&pn, &p->mean, T_MEAN, G_STATS, "mean", CLNORM_F32, cfg->rows);
    place_vector(&pn, &p->rstd, T_RSTD, G_STATS, "rstd", CLNORM_F32, cfg->rows);
    if (want_dw)
        place_vector(&pn, &p->dw, T_DW, G_PAR, "dweight", cfg->par, cfg->cols);
    if (want_db)
        place_vector(&pn, &p->db, T_DB, G_PAR, "dbias", cfg->par, cfg->cols);
    if (cfg->stats_from_library)
        place_matrix(&pn, &p->ys, T_YS, "y(stats forward)", cfg->act);
    alloc_all(p, ctx, &r);

    p->xh = gen_x(&r, cfg);
    tview_store(&p->x, p->xh);
    p->dyh = gen_grad(&r, cfg, 0);
    tview_store(&p->dy, p->dyh);
    if (has_w) {
        p->wh = gen_param(&r, cfg->cols, 1);
        tview_store(&p->w, p->wh);
    }
    if (cfg->residual != RES_NONE) {
        p->dresh = gen_grad(&r, cfg, 1);
        tview_store(&p->dres, p->dresh); /* in place: these are dx's initial contents */
    }
    if (cfg->residual != RES_INPLACE)
        tview_poison(&p->dx);
    if (want_dw)
        tview_poison(&p->dw);
    if (want_db)
        tview_poison(&p->db);

    p->meanh = xmalloc((cfg->rows + 1) * sizeof(double));
    p->rstdh = xmalloc((cfg->rows + 1) * sizeof(double));
    if (cfg->stats_from_library) {
        tview_poison(&p->mean);
        tview_poison(&p->rstd);
        tview_poison(&p->ys);
    } else {
        /* the exact statistics, rounded once to fp32: what a perfect forward would have saved */
        ref_forward(cfg->rows, cfg->cols, (double)cfg->eps, p->xh, NULL, NULL, NULL, p->meanh, p->rstdh);
        tview_store(&p->mean, p->meanh);
        tview_store(&p->rstd, p->rstdh);
    }
    upload_all(p, ctx);
    if (cfg->stats_from_library) {
        tview none = { 0 };
        CLNORM_OK(ctx, forward_call(ctx, p, &p->x, &none, &none, &p->ys, &p->mean, &p->rstd, 0, NULL, &p->stats_event));
        ck_assert_msg(p->stats_event != NULL, "%s: the forward returned no event", p->what);
    }
}

clnorm_status bwd_enqueue(problem *p, clnorm_context *ctx, cl_uint nwait, const cl_event *wait, cl_event *event)
{
    clnorm_matrix mdy = tview_matrix(&p->dy), mx = tview_matrix(&p->x), mdres = tview_matrix(&p->dres),
                  mdx = tview_matrix(&p->dx);
    clnorm_vector vw = tview_vector(&p->w), vm = tview_vector(&p->mean), vr = tview_vector(&p->rstd),
                  vdw = tview_vector(&p->dw), vdb = tview_vector(&p->db);
    cl_event list[8];
    if (p->stats_event) { /* chain after the stats forward */
        ck_assert(nwait < 8 && (nwait == 0 || wait));
        for (cl_uint i = 0; i < nwait; i++)
            list[i] = wait[i];
        list[nwait++] = p->stats_event;
        wait = list;
    }
    return clnorm_layer_norm_backward(ctx, p->cfg.rows, p->cfg.cols, &mdy, &mx, p->w.buf ? &vw : NULL, &vm, &vr,
                                      p->dres.buf ? &mdres : NULL, &mdx, p->dw.buf ? &vdw : NULL,
                                      p->db.buf ? &vdb : NULL, nwait, wait, event);
}

static size_t check_forward(problem *p)
{
    const case_cfg *c = &p->cfg;
    size_t n = c->rows * c->cols, bad = 0;
    double *y = xmalloc(n * sizeof *y), *ty = xmalloc(n * sizeof *ty);
    double *m = xmalloc((c->rows + 1) * sizeof *m), *rs = xmalloc((c->rows + 1) * sizeof *rs);
    double *tm = xmalloc((c->rows + 1) * sizeof *tm), *tr = xmalloc((c->rows + 1) * sizeof *tr);
    ref_forward(c->rows, c->cols, (double)c->eps, p->xh, p->wh, p->bh, y, m, rs);
    tol_forward(c->rows, c->cols, p->xh, p->wh, p->bh, m, rs, ty, tm, tr);
    bad += tview_check(&p->y, y, ty, p->what);
    if (p->mean.buf)
        bad += tview_check(&p->mean, m, tm, p->what);
    if (p->rstd.buf)
        bad += tview_check(&p->rstd, rs, tr, p->what);
    free(y), free(ty), free(m), free(rs), free(tm), free(tr);
    return bad;
}

/* The stats forward of a backward case: its y, mean and rstd against the reference, then its
 * mean and rstd become the backward's inputs. */
static size_t check_stats_forward(problem *p)
{
    const case_cfg *c = &p->cfg;
    size_t n = c->rows * c->cols, bad = 0;
    double *y = xmalloc(n * sizeof *y), *ty = xmalloc(n * sizeof *ty);
    double *m = xmalloc((c->rows + 1) * sizeof *m), *rs = xmalloc((c->rows + 1) * sizeof *rs);
    double *tm = xmalloc((c->rows + 1) * sizeof *tm), *tr = xmalloc((c->rows + 1) * sizeof *tr);
    ref_forward(c->rows, c->cols, (double)c->eps, p->xh, NULL, NULL, y, m, rs);
    tol_forward(c->rows, c->cols, p->xh, NULL, NULL, m, rs, ty, tm, tr);
    bad += tview_check(&p->ys, y, ty, p->what);
    bad += tview_check(&p->mean, m, tm, p->what);
    bad += tview_check(&p->rstd, rs, tr, p->what);
    tview_read(&p->mean, p->meanh);
    tview_read(&p->rstd, p->rstdh);
    free(y), free(ty), free(m), free(rs), free(tm), free(tr);
    return bad;
}

static size_t check_backward(problem *p)
{
    const case_cfg *c = &p->cfg;
    size_t n = c->rows * c->cols, bad = 0;
    if (c->stats_from_library)
        bad += check_stats_forward(p);
    double *dx = xmalloc(n * sizeof *dx), *tdx = xmalloc(n * sizeof *tdx);
    double *dw = xmalloc(c->cols * sizeof *dw), *tdw = xmalloc(c->cols * sizeof *tdw);
    double *db = xmalloc(c->cols * sizeof *db), *tdb = xmalloc(c->cols * sizeof *tdb);
    ref_backward(c->rows, c->cols, p->dyh, p->xh, p->wh, p->meanh, p->rstdh, p->dresh, dx, dw, db);
    tol_backward(c->rows, c->cols, p->dyh, p->xh, p->wh, p->meanh, p->rstdh, p->dresh, tdx, tdw, tdb);
    bad += tview_check(&p->dx, dx, tdx, p->what);
    if (p->dw.buf)
        bad += tview_check(&p->dw, dw, tdw, p->what);
    if (p->db.buf)
        bad += tview_check(&p->db, db, tdb, p->what);
    free(dx), free(tdx), free(dw), free(tdw), free(db), free(tdb);
    return bad;
}

size_t problem_check(problem *p, clnorm_context *ctx)
{
    size_t bad;
    for (int i = 0; i < p->nbufs; i++)
        tbuf_download(&p->bufs[i], clnorm_context_queue(ctx));
    bad = p->backward ? check_backward(p) : check_forward(p);
    for (int i = 0; i < p->nbufs; i++)
        bad += tbuf_check_rest(&p->bufs[i], p->what);
    return bad;
}

void problem_reupload(problem *p, clnorm_context *ctx)
{
    ck_assert_msg(!p->cfg.stats_from_library, "problem_reupload: not for cases whose stats come from the library");
    upload_all(p, ctx);
}

void problem_free(problem *p)
{
    for (int i = 0; i < p->nbufs; i++)
        tbuf_free(&p->bufs[i]);
    if (p->stats_event)
        clReleaseEvent(p->stats_event);
    free(p->xh), free(p->wh), free(p->bh), free(p->dyh), free(p->dresh), free(p->meanh), free(p->rstdh);
    memset(p, 0, sizeof *p);
}

void wait_and_release(cl_event ev)
{
    cl_int status = 1;
    ck_assert_msg(ev != NULL, "the library returned no event");
    CL_OK(clWaitForEvents(1, &ev));
    CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    ck_assert_msg(status == CL_COMPLETE, "event status %d after clWaitForEvents", status);
    CL_OK(clReleaseEvent(ev));
}

static void run_case(clnorm_context *ctx, const case_cfg *cfg, int backward)
{
    problem *p = xmalloc(sizeof *p);
    cl_event ev = NULL;
    if (backward) {
        bwd_setup(p, ctx, cfg);
        CLNORM_OK(ctx, bwd_enqueue(p, ctx, 0, NULL, &ev));
    } else {
        fwd_setup(p, ctx, cfg);
        CLNORM_OK(ctx, fwd_enqueue(p, ctx, 0, NULL, &ev));
    }
    wait_and_release(ev);
    size_t bad = problem_check(p, ctx);
    char what[sizeof p->what];
    memcpy(what, p->what, sizeof what);
    problem_free(p);
    free(p);
    ck_assert_msg(bad == 0, "%s: %zu mismatches (details above)", what, bad);
}

void run_forward_case(clnorm_context *ctx, const case_cfg *cfg)
{
    run_case(ctx, cfg, 0);
}

void run_backward_case(clnorm_context *ctx, const case_cfg *cfg)
{
    run_case(ctx, cfg, 1);
}

case_cfg case_basic(size_t rows, size_t cols, clnorm_dtype act, clnorm_dtype par, int affine, int layout, uint64_t seed)
{
    case_cfg c = { 0 };
    c.rows = rows;
    c.cols = cols;
    c.act = act;
    c.par = par;
    c.affine = affine;
    c.layout = layout;
    c.eps = 1e-5f;
    c.seed = seed;
    return c;
}
