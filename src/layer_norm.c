/* clnorm — the two operations. Each call: validate everything, pick the variant and launch shape,
 * then (under the context's lock) get or build the program, set arguments and enqueue. */
#include "internal.h"
#include "kernel_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One slot of a kernel's argument vector (cl/kernel_args.h). */
#define SLOT(v, i) ((v).s[KARG_INDEX(i)])
/* arg_slots() caches a whole vector, and every slot of one, in a program entry */
_Static_assert(sizeof(cl_ulong16) <= sizeof(((clnorm_program_entry *)0)->args), "argument cache too small");
_Static_assert(FA_COUNT <= 16 && BA_COUNT <= 16 && RA_COUNT <= 8, "slots beyond the argument vectors");

/* Forward and backward flags; the kernels define the same bits. */
enum { FWD_WEIGHT = 1, FWD_BIAS = 2, FWD_MEAN = 4, FWD_RSTD = 8 };
enum { BWD_WEIGHT = 1, BWD_DRES = 2 }; /* whether dweight/dbias are wanted is compile-time: PARTIALS */
enum { RED_DWEIGHT = 1, RED_DBIAS = 2 };

typedef struct {
    cl_kernel k;
    clnorm_program_entry *e; /* the kernel's entry: the values its arguments were last set to */
    cl_uint next;
    cl_int err;
} arg_list;

/* Sets argument a->next, always (buffers: see clnorm_program_entry). */
static void arg(arg_list *a, size_t size, const void *value)
{
    if (a->err == CL_SUCCESS)
        a->err = clSetKernelArg(a->k, a->next, size, value);
    a->next++;
}
/* The kernel's by-value arguments (cl/kernel_args.h): the slots of v, in one vector argument of
 * size bytes where the table packs them, else the first count slots one argument each. Set only
 * what differs from what the kernel holds (unused slots are zero, so they never differ). */
static void arg_slots(arg_list *a, const cl_ulong *v, size_t size, cl_uint count, bool packed)
{
    clnorm_program_entry *e = a->e;
    const cl_uint first = a->next;
    a->next += packed ? 1 : count;
    if (a->err != CL_SUCCESS)
        return;
    if (packed) {
        if (e->args_size == size && memcmp(e->args, v, size) == 0)
            return;
        a->err = clSetKernelArg(a->k, first, size, v);
        e->args_size = 0;
        if (a->err == CL_SUCCESS) {
            memcpy(e->args, v, size);
            e->args_size = size;
        }
        return;
    }
    /* one argument per slot, in order: e->args_size counts the bytes of the slots known, from slot
     * 0 on, so it is at least this slot's offset whenever the slot is reached */
    for (cl_uint i = 0; i < count && a->err == CL_SUCCESS; ++i) {
        const size_t at = (size_t)i * sizeof *v;
        if (at < e->args_size && memcmp(e->args + at, &v[i], sizeof *v) == 0)
            continue;
        a->err = clSetKernelArg(a->k, first + i, sizeof *v, &v[i]);
        if (a->err != CL_SUCCESS) {
            e->args_size = 0;
        } else {
            memcpy(e->args + at, &v[i], sizeof *v);
            if (at == e->args_size)
                e->args_size = at + sizeof *v;
        }
    }
}
/* A local buffer of that many bytes, set only when the size differs from the kernel's. */
static void arg_local_bytes(arg_list *a, size_t bytes)
{
    clnorm_program_entry *e = a->e;
    const cl_uint i = a->next++;
    if (a->err != CL_SUCCESS || e->local_bytes == bytes)
        return;
    a->err = clSetKernelArg(a->k, i, bytes, NULL);
    e->local_bytes = a->err == CL_SUCCESS ? bytes : 0;
}
static void arg_mem(arg_list *a, const clnorm_view *v)
{
    cl_mem m = v->present ? v->mem : NULL; /* NULL buffer arguments are allowed by OpenCL */
    arg(a, sizeof m, &m);
}
/* A view's offset (0 when absent) and row stride, as the kernels take them. */
static cl_ulong off_of(const clnorm_view *v) { return v->present ? v->offset : 0; }
static cl_ulong ld_of(const clnorm_view *v) { return v->present ? v->stride : 0; }

/* The entry of the variant with this key, building its options (build(ctx, opt_arg, buffer)) and
 * the program only the first time the context sees the key. Lock held. */
/* writes a kernel's build options into buf (n bytes); false where they did not fit */
typedef bool (*options_fn)(const clnorm_context *ctx, const void *opt_arg, char *buf, size_t n);
static clnorm_status variant(clnorm_context *ctx, clnorm_kernel_id id, const clnorm_variant_key *key, options_fn build,
                             const void *opt_arg, size_t *index)
{
    size_t i = clnorm__variant_find(ctx, key);
    if (i != SIZE_MAX) {
        *index = i;
        return CLNORM_SUCCESS;
    }
    char options[CLNORM_OPTIONS_MAX];
    /* (cannot fail with the CLNORM_BUILD_OPTIONS length context creation allows; a cut string would
     * build another kernel than the one asked for, so it is an error, never a silent cut) */
    if (!build(ctx, opt_arg, options, sizeof options))
        return clnorm__fail(ctx, CLNORM_BUILD_FAILED, "a kernel's build options do not fit the library's %zu-byte buffer",
                            sizeof options);
    clnorm_status st = clnorm__get_program(ctx, id, options, &i);
    if (st == CLNORM_SUCCESS)
        st = clnorm__variant_add(ctx, key, i);
    if (st == CLNORM_SUCCESS)
        *index = i;
    return st;
}

static const char *token(const clnorm_view *v) { return v->present ? clnorm__dtype_token(v->dtype) : "f32"; }

static size_t elem(const clnorm_view *v) { return v->present ? clnorm__dtype_size(v->dtype) : 1; }

/* What the vector width must divide for a vector-accessed view (0 when absent): its first
 * element counted from an address of the device's base alignment. That is its offset, and where
 * its buffer is the caller's memory at a skew, offset + skew as well: a CPU device works in that
 * memory (PoCL), a discrete GPU in an aligned copy of its own (NVIDIA: taking offset + skew alone
 * there, session 23's first version, made float4 accesses at 12-byte addresses fault), and
 * nothing says which, so the width must suit both. */
static size_t aligned_at(const clnorm_view *v) { return v->present ? v->offset | (v->offset + v->skew) : 0; }

/* 1 (which no row phase allows) where any view's buffer is the caller's memory at a skew: the
 * phase kernels derive each row's phase from the offsets alone */
static size_t any_skew(const clnorm_view *const *v, int n)
{
    for (int i = 0; i < n; ++i)
        if (v[i]->present && v[i]->skew)
            return 1;
    return 0;
}

static size_t max4(size_t a, size_t b, size_t c, size_t d)
{
    size_t m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

/* Whether a call's kernel runs in permuted-lane order (common.cl, LANE_PERM): on devices whose
 * table row asks for it, for calls with 16-bit tensors and vector access. */
static bool lane_perm(const clnorm_context *ctx, const clnorm_launch *L, const clnorm_view *const *v, size_t n)
{
    /* (not with unaligned vectors or row phases: their rows' partial vectors are in natural order) */
    if (!ctx->params->lane_perm || L->vec < 2 || L->unaligned || L->phase)
        return false;
    for (size_t i = 0; i < n; ++i)
        if (v[i]->present && clnorm__dtype_size(v[i]->dtype) == 2)
            return true;
    return false;
}

/* Whether a call stores bf16 through AVX512_BF16 (common.cl, X86_BF16): on devices whose table row
 * asks for it and that have it, for calls with a bf16 tensor and vectors of 8 or more, once the
 * probe has run the instruction (probe.c; the first such call in the process pays for it). */
static bool x86_bf16(const clnorm_context *ctx, const clnorm_launch *L, const clnorm_view *const *v, size_t n)
{
    if (!ctx->params->x86_bf16 || !ctx->info.x86_bf16 || L->vec < 8)
        return false;
    for (size_t i = 0; i < n; ++i)
        if (v[i]->present && v[i]->dtype == CLNORM_BF16)
            return clnorm__probe_x86_bf16(ctx);
    return false;
}

/* Whether every tensor of a forward call is bf16, on PoCL's x86 CPU device with the natural-order
 * bf16 mode: its stores may then round without the NaN select (common.cl, BF16_INPUTS_ONLY). x86
 * arithmetic makes the default NaN or passes an operand's payload on, quieted; bf16 inputs have
 * zero low 16 bits, so every NaN the kernel holds has them too, and the rounding add cannot carry
 * it into an infinity or a zero. (Not the backward: mean and rstd are fp32 inputs.) */
static bool bf16_inputs_only(const clnorm_context *ctx, bool perm, const clnorm_view *const *v, size_t n)
{
    if (!ctx->info.pocl_x86 || !ctx->params->bf16_zext || perm)
        return false;
    for (size_t i = 0; i < n; ++i)
        if (v[i]->present && v[i]->dtype != CLNORM_BF16)
            return false;
    return true;
}

/* " -DNT_STORE" when the call's output (its rows x stride span) is at least the table's size for
 * non-temporal stores, on PoCL's x86 CPU device: written around the cache, a store does not read
 * its line first, and an output that large would leave the cache before anyone read it. Only with
 * persistent grids, whose work-items fence their stores once, at their end. With unaligned vectors
 * each output row is then stored in whole lines after a head taken one element at a time
 * (common.cl's OUT_HEAD), which pays only where a vector of the output takes at least
 * nt_unaligned_bytes (the CPU row's 64, a whole line: fp32 outputs; bf16's 32-byte vectors at cols
 * 1023: forward 14.1 -> 15.2 ms) and an output row at least nt_unaligned_row_bytes (the CPU row's
 * 2048; fp32 at cols 500 even, at 250 the backward 33.7-35.4 -> 36.0-37.7 ms). */
static const char *nt_option(const clnorm_context *ctx, const clnorm_launch *L, size_t rows, size_t cols,
                             const clnorm_view *out)
{
    if (!ctx->params->nt_kib || !ctx->info.pocl_x86 ||
        (L->unaligned && (!ctx->params->nt_unaligned_bytes || L->vec * elem(out) < ctx->params->nt_unaligned_bytes ||
                          cols * elem(out) < ctx->params->nt_unaligned_row_bytes)))
        return "";
    const double bytes = ((double)(rows - 1) * (double)out->stride + (double)cols) * (double)elem(out);
    return bytes >= (double)ctx->params->nt_kib * 1024.0 ? " -DNT_STORE" : "";
}

static bool shape_options(const clnorm_context *ctx, char *buf, size_t n, const clnorm_launch *L, bool perm, bool x86)
{
    /* NV_CVT packs (even, odd) pairs in natural order: not with permuted lanes (CLNORM_TUNE perm=1 on
     * NVIDIA), where the portable store is used */
    const bool cvt = ctx->params->nv_cvt && ctx->info.nv_cc_major >= 8 && !perm;
    /* the natural-order CPU modes, likewise not with permuted lanes */
    const bool zext = ctx->params->bf16_zext && !perm;
    x86 = x86 && zext;
    /* the local rows' prefetch distance (the table's pf_bytes: a context-wide constant, so not in
     * the variant key; the program cache is keyed by the whole options string) */
    char pf[32] = "";
    if (L->local_row && (size_t)snprintf(pf, sizeof pf, " -DPF_BYTES=%u", ctx->params->pf_bytes) >= sizeof pf)
        return false;
    return (size_t)snprintf(buf, n, "-cl-std=CL1.2%s -DVEC=%u -DTPR=%u -DRPW=%u -DNCACHE=%u -DNACC=%u -DRPI=%u%s%s%s%s%s%s%s%s%s%s",
             ctx->params->packed_args ? " -DPACKED_ARGS" : "", L->vec, L->tpr, L->rpw, L->ncache, L->nacc, L->rpi, pf,
             L->unaligned ? " -DUNALIGNED" : "", L->phase ? " -DPHASE" : "", L->raw ? " -DCACHE_RAW" : "",
             ctx->params->nv_shfl ? " -DNV_SHFL" : "", L->bfly ? " -DROW_SUM_BFLY" : "", cvt ? " -DNV_CVT" : "", perm ? " -DLANE_PERM" : "",
             zext ? " -DBF16_ZEXT" : "", x86 ? " -DX86_BF16" : "") < n;
}

/* dtype code of a view in a variant key: what token() names it */
static uint32_t dtype_code(const clnorm_view *v) { return v->present ? (uint32_t)v->dtype : (uint32_t)CLNORM_F32; }

/* The key fields of a launch plan and the per-call modes shape_options() and the op's options use. */
enum {
    KEY_RAW = 1u << 0, KEY_PIPE = 1u << 1, KEY_PERSISTENT = 1u << 2, KEY_PREFETCH = 1u << 3, KEY_DR_EARLY = 1u << 4,
    KEY_LOCAL_ROW = 1u << 5, KEY_PERM = 1u << 6, KEY_X86 = 1u << 7, KEY_NT = 1u << 8, KEY_PARTIALS = 1u << 9,
    KEY_DRES = 1u << 10, KEY_BF16_ONLY = 1u << 11, KEY_LOCAL_W = 1u << 12, KEY_BFLY = 1u << 13, KEY_UNALIGNED = 1u << 14,
    KEY_PHASE = 1u << 15, KEY_PH_WIDE = 1u << 16
};
static void plan_key(clnorm_variant_key *k, clnorm_kernel_id id, const clnorm_launch *L, bool perm, bool x86)
{
    memset(k, 0, sizeof *k);
    k->v[0] = (uint32_t)id;
    k->v[1] = L->vec;
    k->v[2] = L->tpr;
    k->v[3] = L->rpw;
    k->v[4] = L->ncache;
    k->v[5] = L->nacc;
    k->v[6] = L->rpi;
    k->v[7] = (L->raw ? KEY_RAW : 0) | (L->pipe ? KEY_PIPE : 0) | (L->persistent ? KEY_PERSISTENT : 0) |
              (L->prefetch ? KEY_PREFETCH : 0) | (L->dr_early ? KEY_DR_EARLY : 0) | (L->local_row ? KEY_LOCAL_ROW : 0) | (L->local_w ? KEY_LOCAL_W : 0) | (L->bfly ? KEY_BFLY : 0) |
              (L->unaligned ? KEY_UNALIGNED : 0) | (L->phase ? KEY_PHASE : 0) | (perm ? KEY_PERM : 0) | (x86 ? KEY_X86 : 0);
    k->v[8] = L->dxb;
    k->v[9] = L->acc_local;
    k->v[15] = L->colsweep | (uint32_t)L->chan << 16; /* (the backward's and the forward's: never both) */
}

/* user wait list + an internal dependency (may be NULL), in ctx's scratch. Lock held. */
static clnorm_status wait_list(clnorm_context *ctx, cl_uint n, const cl_event *list, cl_event extra,
                               cl_uint *out_n, const cl_event **out_list)
{
    if (!extra) {
        *out_n = n;
        *out_list = list;
        return CLNORM_SUCCESS;
    }
    if (ctx->wait_scratch_cap < (size_t)n + 1) {
        cl_event *p = realloc(ctx->wait_scratch, ((size_t)n + 1) * sizeof *p);
        if (!p)
            return clnorm__fail(ctx, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
        ctx->wait_scratch = p;
        ctx->wait_scratch_cap = (size_t)n + 1;
    }
    for (cl_uint i = 0; i < n; ++i)
        ctx->wait_scratch[i] = list[i];
    ctx->wait_scratch[n] = extra;
    *out_n = n + 1;
    *out_list = ctx->wait_scratch;
    return CLNORM_SUCCESS;
}

static clnorm_status enqueue_failed(clnorm_context *ctx, const char *what, cl_int err)
{
    return clnorm__fail(ctx, err, "%s failed: %s", what, clnorm_status_string(err));
}

static clnorm_status marker(clnorm_context *ctx, cl_uint n, const cl_event *list, cl_event *event)
{
    cl_event e = NULL;
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, n, list, event ? &e : NULL);
    if (err != CL_SUCCESS)
        return enqueue_failed(ctx, "clEnqueueMarkerWithWaitList", err);
    if (event)
        *event = e;
    return CLNORM_SUCCESS;
}

/* The checks every operation starts with: a context, a consistent wait list, the shape. */
static clnorm_status begin_call(clnorm_context *ctx, size_t rows, size_t cols, cl_uint n, const cl_event *list)
{
    if (!ctx)
        return clnorm__fail(NULL, CLNORM_NULL_ARGUMENT, "ctx is NULL");
    clnorm__clear_error(ctx);
    clnorm_status st = clnorm__check_wait_list(ctx, n, list);
    if (st)
        return st;
    return clnorm__check_shape(ctx, rows, cols);
}

/* The forward's options from what its key holds. */
typedef struct {
    const clnorm_launch *L;
    bool perm, x86, bf16_only;
    const char *nt;
    const clnorm_view *x, *y, *w, *b;
} fwd_options_arg;
static bool forward_options(const clnorm_context *ctx, const void *arg_, char *buf, size_t n)
{
    const fwd_options_arg *o = arg_;
    const clnorm_launch *L = o->L;
    char shape[256], chan[24] = "", local[96] = "";
    const bool fits = shape_options(ctx, shape, sizeof shape, L, o->perm, o->x86);
    if (L->chan)
        snprintf(chan, sizeof chan, " -DFWD_CHAN=%u", L->chan);
    /* the local row's mode (x86: its prefetches, into L2 from pf_l2_bytes a block) and the order
     * of its pass 3 (row by row up to fwd_rowwise_kib): table values, context-wide constants */
    if (L->local_row &&
        (size_t)snprintf(local, sizeof local, " -DLOCAL_ROW%s -DPF_L2_BYTES=%u -DFWD_ROWWISE_BYTES=%llu",
                         ctx->info.pocl_x86 ? " -DFWD_PREFETCH" : "", ctx->params->pf_l2_bytes,
                         (unsigned long long)ctx->params->fwd_rowwise_kib * 1024u) >= sizeof local)
        return false;
    /* Non-temporal stores only with a persistent grid: a work-item taking one row would end with
     * a fence per row, which cost more than the stores saved (fp32 cols 256: 13.0 -> 18.2 ms). */
    return fits && (size_t)snprintf(buf, n, "%s%s%s%s%s%s%s%s -DT_X=%s -DT_Y=%s -DT_W=%s -DT_B=%s %s", shape, chan, o->bf16_only ? " -DBF16_INPUTS_ONLY" : "",
             local,
             L->pipe ? " -DPIPE" : "", L->prefetch ? " -DNV_PREFETCH" : "", L->persistent && ctx->params->contig_rows ? " -DCONTIG_ROWS" : "", o->nt,
             token(o->x), token(o->y), token(o->w), token(o->b), ctx->user_options ? ctx->user_options : "") < n;
}

clnorm_status clnorm_layer_norm_forward(clnorm_context *ctx, size_t rows, size_t cols, float eps,
                                        const clnorm_matrix *x, const clnorm_vector *weight, const clnorm_vector *bias,
                                        const clnorm_matrix *y, const clnorm_vector *mean, const clnorm_vector *rstd,
                                        cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    clnorm_status st = begin_call(ctx, rows, cols, num_events_in_wait_list, event_wait_list);
    if (st)
        return st;
    if ((st = clnorm__check_eps(ctx, eps)))
        return st;
    clnorm_view vx, vw, vb, vy, vm, vr;
    if ((st = clnorm__check_matrix(ctx, "x", x, true, rows, cols, &vx)) ||
        (st = clnorm__check_vector(ctx, "weight", weight, false, cols, false, &vw)) ||
        (st = clnorm__check_vector(ctx, "bias", bias, false, cols, false, &vb)) ||
        (st = clnorm__check_matrix(ctx, "y", y, true, rows, cols, &vy)) ||
        (st = clnorm__check_vector(ctx, "mean", mean, false, rows, true, &vm)) ||
        (st = clnorm__check_vector(ctx, "rstd", rstd, false, rows, true, &vr)))
        return st;
    const clnorm_view *outs[] = {&vy, &vm, &vr}, *ins[] = {&vx, &vw, &vb};
    if ((st = clnorm__check_access(ctx, outs, 3, ins, 3)) || (st = clnorm__check_overlaps(ctx, outs, 3, ins, 3, 0, 0)) ||
        (st = clnorm__check_wait_events(ctx, num_events_in_wait_list, event_wait_list)))
        return st;
    if (rows == 0)
        return marker(ctx, num_events_in_wait_list, event_wait_list, event);

    const size_t align_or = cols | aligned_at(&vx) | vx.stride | aligned_at(&vy) | vy.stride | aligned_at(&vw) |
                            aligned_at(&vb);
    const clnorm_view *fwd_views[] = {&vx, &vy, &vw, &vb};
    /* (phase_or 0: row phases are the backward's; params.c's plan_phase) */
    clnorm_launch L = clnorm__plan(ctx, false, false, false, rows, cols, align_or,
                                   max4(elem(&vx), elem(&vy), elem(&vw), elem(&vb)), 0, vx.stride);
    const bool perm = lane_perm(ctx, &L, fwd_views, 4);
    const fwd_options_arg oa = {&L, perm, x86_bf16(ctx, &L, fwd_views, 4), bf16_inputs_only(ctx, perm, fwd_views, 4),
                                L.persistent ? nt_option(ctx, &L, rows, cols, &vy) : "", &vx, &vy, &vw, &vb};
    clnorm_variant_key key;
    plan_key(&key, CLNORM_K_FORWARD, &L, oa.perm, oa.x86);
    key.v[7] |= (*oa.nt ? KEY_NT : 0) | (oa.bf16_only ? KEY_BF16_ONLY : 0);
    key.v[10] = dtype_code(&vx);
    key.v[11] = dtype_code(&vy);
    key.v[12] = dtype_code(&vw);
    key.v[13] = dtype_code(&vb);
    const unsigned flags = (vw.present ? FWD_WEIGHT : 0) | (vb.present ? FWD_BIAS : 0) | (vm.present ? FWD_MEAN : 0) |
                           (vr.present ? FWD_RSTD : 0);
    const size_t local = (size_t)L.tpr * L.rpw, global = L.groups * local;

    pthread_mutex_lock(&ctx->lock);
    arg_list a = {0};
    size_t pi = 0;
    st = variant(ctx, CLNORM_K_FORWARD, &key, forward_options, &oa, &pi);
    if (st == CLNORM_SUCCESS) {
        a.e = &ctx->programs[pi];
        a.k = a.e->kernel;
        cl_ulong16 fa;
        memset(&fa, 0, sizeof fa);
        uint32_t eps_bits;
        memcpy(&eps_bits, &eps, sizeof eps_bits);
        SLOT(fa, FA_ROWS) = rows;
        SLOT(fa, FA_COLS) = cols;
        SLOT(fa, FA_X_OFF) = off_of(&vx);
        SLOT(fa, FA_X_LD) = ld_of(&vx);
        SLOT(fa, FA_W_OFF) = off_of(&vw);
        SLOT(fa, FA_B_OFF) = off_of(&vb);
        SLOT(fa, FA_Y_OFF) = off_of(&vy);
        SLOT(fa, FA_Y_LD) = ld_of(&vy);
        SLOT(fa, FA_MEAN_OFF) = off_of(&vm);
        SLOT(fa, FA_RSTD_OFF) = off_of(&vr);
        SLOT(fa, FA_EPS_FLAGS) = (cl_ulong)flags << 32 | eps_bits;
        arg_slots(&a, fa.s, sizeof fa, FA_COUNT, ctx->params->packed_args);
        arg_mem(&a, &vx);
        arg_mem(&a, &vw);
        arg_mem(&a, &vb);
        arg_mem(&a, &vy);
        arg_mem(&a, &vm);
        arg_mem(&a, &vr);
        if (L.local_row) /* weight, bias and the item's rows in fp32 */
            arg_local_bytes(&a, (2 + (size_t)L.rpi) * clnorm__local_cols(&L, cols) * sizeof(float));
        if (a.err != CL_SUCCESS)
            st = enqueue_failed(ctx, "clSetKernelArg (forward)", a.err);
    }
    if (st == CLNORM_SUCCESS) {
        cl_event e = NULL;
        cl_int err = clEnqueueNDRangeKernel(ctx->queue, a.k, 1, NULL, &global, &local, num_events_in_wait_list,
                                            event_wait_list, event ? &e : NULL);
        if (err != CL_SUCCESS)
            st = enqueue_failed(ctx, "clEnqueueNDRangeKernel (forward)", err);
        else if (event)
            *event = e;
    }
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

/* Grows the workspace to at least bytes. Lock held. The old buffer is released at once: OpenCL
 * keeps it alive until the commands that use it have finished. */
static clnorm_status ensure_workspace(clnorm_context *ctx, size_t bytes)
{
    if (ctx->workspace_bytes >= bytes)
        return CLNORM_SUCCESS;
    /* Checked here, not left to the driver: some (NVIDIA) accept buffers over the limit and fail
     * later, or not at all. */
    if (ctx->info.max_alloc && bytes > ctx->info.max_alloc)
        return clnorm__fail(ctx, CL_INVALID_BUFFER_SIZE,
                            "the backward workspace needs %zu bytes, more than the device's largest buffer (%llu bytes)",
                            bytes, (unsigned long long)ctx->info.max_alloc);
    cl_int err;
    cl_mem m = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        return clnorm__fail(ctx, err, "allocating the %zu-byte backward workspace failed: %s", bytes,
                            clnorm_status_string(err));
    if (ctx->workspace)
        clReleaseMemObject(ctx->workspace);
    ctx->workspace = m;
    ctx->workspace_bytes = bytes;
    return CLNORM_SUCCESS;
}

/* The final reduction's options: RL lanes per column; perm_vec > 0 when the partial rows are stored
 * in permuted-lane order in vectors of perm_vec. Its key: v[1] = RL, v[2] = perm_vec, v[10..11] the
 * dtypes. */
typedef struct {
    size_t rl;
    unsigned perm_vec;
    const clnorm_view *dw, *db;
} red_options_arg;
static bool reduce_options(const clnorm_context *ctx, const void *arg_, char *buf, size_t n)
{
    const red_options_arg *o = arg_;
    char perm[32] = "";
    if (o->perm_vec)
        snprintf(perm, sizeof perm, " -DPERM_VEC=%u", o->perm_vec);
    return (size_t)snprintf(buf, n, "-cl-std=CL1.2%s -DRL=%zu%s -DT_DW=%s -DT_DB=%s %s",
             ctx->params->packed_args ? " -DPACKED_ARGS" : "", o->rl, perm, token(o->dw), token(o->db),
             ctx->user_options ? ctx->user_options : "") < n;
}
static void reduce_key(clnorm_variant_key *k, const red_options_arg *o)
{
    memset(k, 0, sizeof *k);
    k->v[0] = CLNORM_K_REDUCE;
    k->v[1] = (uint32_t)o->rl;
    k->v[2] = o->perm_vec;
    k->v[10] = dtype_code(o->dw);
    k->v[11] = dtype_code(o->db);
}

/* Whether a row tensor's buffer holds the last row's whole frame: the aligned vector holding its
 * last element, read whole (rows >= 1; the first frame vector of any row starts at or after the
 * buffer's start, which is aligned). Row phases read each frame's first and last vector whole
 * only where this holds for every row tensor the kernel reads (common.cl's PH_WIDE_LOADS); an
 * absent tensor holds nothing to read. */
static bool frame_fits(const clnorm_view *v, size_t rows, size_t cols, size_t vec)
{
    if (!v->present)
        return true;
    const size_t end = v->offset + (rows - 1) * v->stride + cols; /* (validated: fits the buffer) */
    return end % vec == 0 || v->elems / vec > end / vec;
}

/* The backward's options from what its key holds. */
typedef struct {
    const clnorm_launch *L;
    bool perm, x86, partials, dres, ph_wide;
    const char *nt;
    const clnorm_view *dy, *x, *w, *dr, *dx;
} bwd_options_arg;
static bool backward_options(const clnorm_context *ctx, const void *arg_, char *buf, size_t n)
{
    const bwd_options_arg *o = arg_;
    const clnorm_launch *L = o->L;
    char shape[256], dxb[24] = "", nacc_local[32] = "", colsweep[24] = "";
    const bool fits = shape_options(ctx, shape, sizeof shape, L, o->perm, o->x86);
    if (L->dxb)
        snprintf(dxb, sizeof dxb, " -DDXB=%u", L->dxb);
    if (L->acc_local)
        snprintf(nacc_local, sizeof nacc_local, " -DNACC_LOCAL=%u", L->acc_local);
    if (L->colsweep)
        snprintf(colsweep, sizeof colsweep, " -DCOLSWEEP=%u", L->colsweep);
    /* CPU_PREFETCH: PoCL (clang, so __builtin_prefetch) on this host's CPU */
    return fits && (size_t)snprintf(buf, n, "%s%s%s%s%s%s%s%s%s%s%s%s%s -DPARTIALS=%d -DT_DY=%s -DT_X=%s -DT_W=%s -DT_DR=%s -DT_DX=%s %s", shape,
             o->ph_wide ? " -DPH_WIDE_LOADS" : "",
             !L->local_row ? "" : L->local_w ? " -DLOCAL_ROW -DLOCAL_W" : " -DLOCAL_ROW", dxb, nacc_local, colsweep, L->pipe ? " -DPIPE" : "", L->prefetch ? " -DNV_PREFETCH" : "",
             !L->pf_cur ? "" : L->pf_dr ? " -DPF_CUR=1 -DPF_LATE=1 -DPF_DR=2" : " -DPF_CUR=1 -DPF_LATE=1", L->dr_early && o->dres ? " -DDR_EARLY" : "", ctx->params->contig_rows ? " -DCONTIG_ROWS" : "", o->nt,
             ctx->info.pocl_x86 && o->dres ? " -DCPU_PREFETCH" : "", o->partials && !L->colsweep ? 1 : 0, token(o->dy), token(o->x),
             token(o->w), token(o->dr), token(o->dx), ctx->user_options ? ctx->user_options : "") < n;
}

/* Sets the final reduction's arguments. */
static void reduce_args(arg_list *a, bool packed, size_t cols, const clnorm_launch *L, unsigned flags, cl_mem part,
                        const clnorm_view *dw, const clnorm_view *db)
{
    /* partial rows to add: one per work-group, each at its slot 0's row, then the dbias rows; the
     * column sweep's one row of each */
    const bool one = L && L->colsweep;
    cl_ulong8 ra;
    memset(&ra, 0, sizeof ra);
    SLOT(ra, RA_COLS) = cols;
    SLOT(ra, RA_NPARTS) = one ? 1 : L ? L->groups : 0;
    SLOT(ra, RA_PSTRIDE) = one ? 1 : L ? L->rpw : 1;
    SLOT(ra, RA_DBIAS_ROW) = one ? 1 : L ? L->groups * L->rpw : 0;
    SLOT(ra, RA_DW_OFF) = off_of(dw);
    SLOT(ra, RA_DB_OFF) = off_of(db);
    SLOT(ra, RA_FLAGS) = flags;
    arg_slots(a, ra.s, sizeof ra, RA_COUNT, packed);
    arg(a, sizeof part, &part);
    arg_mem(a, dw);
    arg_mem(a, db);
}

clnorm_status clnorm_layer_norm_backward(clnorm_context *ctx, size_t rows, size_t cols,
                                         const clnorm_matrix *dy, const clnorm_matrix *x, const clnorm_vector *weight,
                                         const clnorm_vector *mean, const clnorm_vector *rstd,
                                         const clnorm_matrix *dresidual,
                                         const clnorm_matrix *dx, const clnorm_vector *dweight, const clnorm_vector *dbias,
                                         cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event)
{
    clnorm_status st = begin_call(ctx, rows, cols, num_events_in_wait_list, event_wait_list);
    if (st)
        return st;
    clnorm_view vdy, vx, vw, vm, vr, vdr, vdx, vdw, vdb;
    if ((st = clnorm__check_matrix(ctx, "dy", dy, true, rows, cols, &vdy)) ||
        (st = clnorm__check_matrix(ctx, "x", x, true, rows, cols, &vx)) ||
        (st = clnorm__check_vector(ctx, "weight", weight, false, cols, false, &vw)) ||
        (st = clnorm__check_vector(ctx, "mean", mean, true, rows, true, &vm)) ||
        (st = clnorm__check_vector(ctx, "rstd", rstd, true, rows, true, &vr)) ||
        (st = clnorm__check_matrix(ctx, "dresidual", dresidual, false, rows, cols, &vdr)) ||
        (st = clnorm__check_matrix(ctx, "dx", dx, true, rows, cols, &vdx)) ||
        (st = clnorm__check_vector(ctx, "dweight", dweight, false, cols, false, &vdw)) ||
        (st = clnorm__check_vector(ctx, "dbias", dbias, false, cols, false, &vdb)))
        return st;
    const clnorm_view *outs[] = {&vdx, &vdw, &vdb}, *ins[] = {&vdy, &vx, &vw, &vm, &vr, &vdr};
    if ((st = clnorm__check_access(ctx, outs, 3, ins, 6)) || (st = clnorm__check_overlaps(ctx, outs, 3, ins, 6, 0, 5)) ||
        (st = clnorm__check_wait_events(ctx, num_events_in_wait_list, event_wait_list)))
        return st;

    const bool partials = vdw.present || vdb.present;
    const unsigned rflags = (vdw.present ? RED_DWEIGHT : 0) | (vdb.present ? RED_DBIAS : 0);
    /* reduce.cl: RC = 32 columns x RL lanes per work-group, RL from the table within the device's limit */
    size_t rl = ctx->params->red_lanes;
    while (rl > 1 && 32 * rl > ctx->info.max_work_group)
        rl /= 2;
    red_options_arg ro = {rl, 0, &vdw, &vdb};
    clnorm_variant_key rkey;
    reduce_key(&rkey, &ro);
    const size_t red_local = 32 * rl, red_global = (cols + 31) / 32 * red_local;

    if (rows == 0) {
        if (!partials)
            return marker(ctx, num_events_in_wait_list, event_wait_list, event);
        /* zero partial rows: the reduction writes zeros */
        pthread_mutex_lock(&ctx->lock);
        arg_list a = {0};
        size_t ri = 0;
        st = variant(ctx, CLNORM_K_REDUCE, &rkey, reduce_options, &ro, &ri);
        if (st == CLNORM_SUCCESS) {
            a.e = &ctx->programs[ri];
            a.k = a.e->kernel;
            reduce_args(&a, ctx->params->packed_args, cols, NULL, rflags, NULL, &vdw, &vdb);
            if (a.err != CL_SUCCESS)
                st = enqueue_failed(ctx, "clSetKernelArg (reduce)", a.err);
        }
        if (st == CLNORM_SUCCESS) {
            cl_event e = NULL;
            cl_int err = clEnqueueNDRangeKernel(ctx->queue, a.k, 1, NULL, &red_global, &red_local,
                                                num_events_in_wait_list, event_wait_list, event ? &e : NULL);
            if (err != CL_SUCCESS)
                st = enqueue_failed(ctx, "clEnqueueNDRangeKernel (reduce)", err);
            else if (event)
                *event = e;
        }
        pthread_mutex_unlock(&ctx->lock);
        return st;
    }

    const size_t align_or = cols | aligned_at(&vdy) | vdy.stride | aligned_at(&vx) | vx.stride | aligned_at(&vdx) |
                            vdx.stride | aligned_at(&vw) | aligned_at(&vdr) | (vdr.present ? vdr.stride : 0);
    const size_t me = max4(elem(&vdy), elem(&vx), elem(&vdx), max4(elem(&vw), elem(&vdr), 1, 1));
    /* (row phases: every row tensor's offset and stride against x's; not with the caller's memory
     * at a skew) */
    const clnorm_view *bwd_views[] = {&vdy, &vx, &vw, &vdr, &vdx};
    const size_t phase_or = (vdy.offset ^ vx.offset) | (vdy.stride ^ vx.stride) | (vdx.offset ^ vx.offset) |
                            (vdx.stride ^ vx.stride) |
                            (vdr.present ? (vdr.offset ^ vx.offset) | (vdr.stride ^ vx.stride) : 0) |
                            any_skew(bwd_views, 5);
    const clnorm_launch L = clnorm__plan(ctx, true, partials, vdr.present, rows, cols, align_or, me, phase_or, vx.stride);
    /* (row phases: each frame's first and last vector read whole where the buffers hold them) */
    const bool ph_wide = L.phase && !ctx->params->phase_edge_elems && frame_fits(&vdy, rows, cols, L.vec) &&
                         frame_fits(&vx, rows, cols, L.vec) && frame_fits(&vdr, rows, cols, L.vec);
    const bwd_options_arg oa = {&L, lane_perm(ctx, &L, bwd_views, 5), x86_bf16(ctx, &L, bwd_views, 5), partials,
                                vdr.present, ph_wide, nt_option(ctx, &L, rows, cols, &vdx), &vdy, &vx, &vw, &vdr, &vdx};
    clnorm_variant_key key;
    plan_key(&key, CLNORM_K_BACKWARD, &L, oa.perm, oa.x86);
    key.v[7] |= (*oa.nt ? KEY_NT : 0) | (partials ? KEY_PARTIALS : 0) | (vdr.present ? KEY_DRES : 0) |
                (ph_wide ? KEY_PH_WIDE : 0);
    key.v[10] = dtype_code(&vdy);
    key.v[11] = dtype_code(&vx);
    key.v[12] = dtype_code(&vw);
    key.v[13] = dtype_code(&vdr);
    key.v[14] = dtype_code(&vdx);
    if (oa.perm) { /* the workspace holds the partial rows in permuted-lane order */
        ro.perm_vec = L.vec;
        reduce_key(&rkey, &ro);
    }
    const unsigned flags = (vw.present ? BWD_WEIGHT : 0) | (vdr.present ? BWD_DRES : 0);
    const size_t local = (size_t)L.tpr * L.rpw, global = L.groups * local;
    const size_t nparts = L.colsweep ? 1 : L.groups * L.rpw;

    pthread_mutex_lock(&ctx->lock);
    arg_list a = {0}, r = {0};
    size_t bi = 0, ri = 0;
    st = variant(ctx, CLNORM_K_BACKWARD, &key, backward_options, &oa, &bi);
    if (st == CLNORM_SUCCESS && partials)
        st = variant(ctx, CLNORM_K_REDUCE, &rkey, reduce_options, &ro, &ri);
    if (st == CLNORM_SUCCESS && partials)
        st = ensure_workspace(ctx, 2 * nparts * cols * sizeof(float));
    if (st == CLNORM_SUCCESS) {
        /* pointers only now: a second program built above may have moved the array */
        a.e = &ctx->programs[bi];
        a.k = a.e->kernel;
        if (partials) {
            r.e = &ctx->programs[ri];
            r.k = r.e->kernel;
        }
        cl_mem part = partials ? ctx->workspace : NULL;
        cl_ulong16 ba;
        memset(&ba, 0, sizeof ba);
        SLOT(ba, BA_ROWS) = rows;
        SLOT(ba, BA_COLS) = cols;
        SLOT(ba, BA_DY_OFF) = off_of(&vdy);
        SLOT(ba, BA_DY_LD) = ld_of(&vdy);
        SLOT(ba, BA_X_OFF) = off_of(&vx);
        SLOT(ba, BA_X_LD) = ld_of(&vx);
        SLOT(ba, BA_W_OFF) = off_of(&vw);
        SLOT(ba, BA_MEAN_OFF) = off_of(&vm);
        SLOT(ba, BA_RSTD_OFF) = off_of(&vr);
        SLOT(ba, BA_DR_OFF) = off_of(&vdr);
        SLOT(ba, BA_DR_LD) = ld_of(&vdr);
        SLOT(ba, BA_DX_OFF) = off_of(&vdx);
        SLOT(ba, BA_DX_LD) = ld_of(&vdx);
        SLOT(ba, BA_FLAGS) = flags;
        arg_slots(&a, ba.s, sizeof ba, BA_COUNT, ctx->params->packed_args);
        arg_mem(&a, &vdy);
        arg_mem(&a, &vx);
        arg_mem(&a, &vw);
        arg_mem(&a, &vm);
        arg_mem(&a, &vr);
        arg_mem(&a, &vdr);
        arg_mem(&a, &vdx);
        arg(&a, sizeof part, &part);
        if (L.local_row) /* x-hat and g of the item's rows, then the weight, in fp32 */
            arg_local_bytes(&a, (2 * (size_t)L.rpi + (L.local_w ? 1 : 0)) * clnorm__local_cols(&L, cols) * sizeof(float));
        if (partials)
            reduce_args(&r, ctx->params->packed_args, cols, &L, rflags, part, &vdw, &vdb);
        if (a.err != CL_SUCCESS || r.err != CL_SUCCESS)
            st = enqueue_failed(ctx, "clSetKernelArg (backward)", a.err ? a.err : r.err);
    }
    /* On an out-of-order queue, events order the reduction after the dx kernel and keep calls that
     * share the workspace from overlapping; an in-order queue does both by itself, and events cost
     * host time (a few microseconds each on some drivers), so none are made there unless asked for. */
    const bool ooo = ctx->out_of_order;
    cl_uint n = 0;
    const cl_event *list = NULL;
    if (st == CLNORM_SUCCESS)
        st = wait_list(ctx, num_events_in_wait_list, event_wait_list, partials && ooo ? ctx->workspace_event : NULL,
                       &n, &list);
    cl_event e1 = NULL, e2 = NULL;
    if (st == CLNORM_SUCCESS) {
        cl_int err = clEnqueueNDRangeKernel(ctx->queue, a.k, 1, NULL, &global, &local, n, list,
                                            (partials ? ooo : event != NULL) ? &e1 : NULL);
        if (err != CL_SUCCESS)
            st = enqueue_failed(ctx, "clEnqueueNDRangeKernel (backward)", err);
    }
    if (st == CLNORM_SUCCESS && partials) {
        cl_int err = clEnqueueNDRangeKernel(ctx->queue, r.k, 1, NULL, &red_global, &red_local, e1 ? 1 : 0,
                                            e1 ? &e1 : NULL, (ooo || event) ? &e2 : NULL);
        if (err != CL_SUCCESS) {
            /* The dx kernel is already queued and writes the workspace: later calls must still
             * wait for it. (This is the one failure after which an output, dx, may be written.) */
            if (e1) {
                if (ctx->workspace_event)
                    clReleaseEvent(ctx->workspace_event);
                ctx->workspace_event = e1;
                clRetainEvent(e1);
            }
            st = enqueue_failed(ctx, "clEnqueueNDRangeKernel (reduce)", err);
        } else if (ooo) {
            if (ctx->workspace_event)
                clReleaseEvent(ctx->workspace_event);
            ctx->workspace_event = e2;
            clRetainEvent(e2);
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    if (st == CLNORM_SUCCESS && event) {
        *event = partials ? e2 : e1;
        if (partials && e1)
            clReleaseEvent(e1);
    } else {
        if (e1)
            clReleaseEvent(e1);
        if (e2)
            clReleaseEvent(e2);
    }
    return st;
}
