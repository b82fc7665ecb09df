/* clnorm — argument validation. Everything here runs before anything is enqueued, so a call that
 * fails leaves every output untouched. Each failure names the argument and what was expected. */
#include "internal.h"

#include <math.h>

size_t clnorm__dtype_size(clnorm_dtype dt) { return dt == CLNORM_F32 ? 4 : 2; }

const char *clnorm__dtype_token(clnorm_dtype dt)
{
    return dt == CLNORM_F32 ? "f32" : dt == CLNORM_BF16 ? "bf16" : "f16";
}

static bool dtype_known(clnorm_dtype dt) { return dt == CLNORM_F32 || dt == CLNORM_BF16 || dt == CLNORM_F16; }

clnorm_status clnorm__check_eps(const clnorm_context *ctx, float eps)
{
    if (!isfinite(eps) || eps < 0.0f)
        return clnorm__fail(ctx, CLNORM_INVALID_EPS, "eps = %g: expected a finite value >= 0", (double)eps);
    return CLNORM_SUCCESS;
}

clnorm_status clnorm__check_shape(const clnorm_context *ctx, size_t rows, size_t cols)
{
    if (cols == 0)
        return clnorm__fail(ctx, CLNORM_INVALID_SHAPE, "cols = 0: expected >= 1");
    /* rows x cols elements of the widest storage type (4 bytes: fp32, as mean and rstd always
     * are) within size_t, so that every size a call computes from the shape fits too */
    if (rows && cols > SIZE_MAX / sizeof(float) / rows)
        return clnorm__fail(ctx, CLNORM_INVALID_SHAPE,
                            "rows = %zu, cols = %zu: rows x cols elements of 4 bytes do not fit size_t", rows, cols);
    return CLNORM_SUCCESS;
}

clnorm_status clnorm__check_wait_list(const clnorm_context *ctx, cl_uint n, const cl_event *list)
{
    if ((n > 0) != (list != NULL))
        return clnorm__fail(ctx, CL_INVALID_EVENT_WAIT_LIST, "event_wait_list is %s but num_events_in_wait_list is %u",
                            list ? "not NULL" : "NULL", n);
    for (cl_uint i = 0; i < n; ++i)
        if (!list[i])
            return clnorm__fail(ctx, CL_INVALID_EVENT_WAIT_LIST, "event_wait_list[%u] is NULL", i);
    return CLNORM_SUCCESS;
}

clnorm_status clnorm__check_wait_events(const clnorm_context *ctx, cl_uint n, const cl_event *list)
{
    for (cl_uint i = 0; i < n; ++i) {
        /* (an event of another cl_context: OpenCL's enqueue must refuse it, but not every driver
         * does (PoCL 3.1 waited on it); checked here, so the call fails before anything is
         * enqueued, whatever the driver) */
        cl_context owner = NULL;
        if (clGetEventInfo(list[i], CL_EVENT_CONTEXT, sizeof owner, &owner, NULL) != CL_SUCCESS)
            return clnorm__fail(ctx, CL_INVALID_EVENT_WAIT_LIST, "event_wait_list[%u] is not a valid event", i);
        if (owner != ctx->cl_ctx)
            return clnorm__fail(ctx, CL_INVALID_CONTEXT, "event_wait_list[%u] belongs to another cl_context than the clnorm context's", i);
    }
    return CLNORM_SUCCESS;
}

/* the device's base address alignment in bytes (128 where it reported none) */
static size_t base_align(const clnorm_context *ctx)
{
    return ctx->info.base_align_bytes ? ctx->info.base_align_bytes : 128;
}

/* Checks that mem is a buffer of ctx's cl_context, finds its root buffer and size (bytes), and
 * where its memory is the caller's (CL_MEM_USE_HOST_PTR), how far (bytes) its start lies past an
 * address aligned to the device's base alignment (*skew_bytes; 0 for the runtime's own memory,
 * which is so aligned, as are sub-buffers' origins). */
static clnorm_status resolve_buffer(const clnorm_context *ctx, const char *name, cl_mem mem, clnorm_view *v,
                                    size_t *size, size_t *skew_bytes)
{
    cl_mem_object_type type;
    cl_context owner;
    cl_mem parent = NULL;
    size_t origin = 0;
    cl_mem_flags flags = 0;
    if (clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, NULL) != CL_SUCCESS || type != CL_MEM_OBJECT_BUFFER)
        return clnorm__fail(ctx, CLNORM_INVALID_BUFFER, "%s.buffer is not a valid OpenCL buffer", name);
    if (clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL) != CL_SUCCESS || owner != ctx->cl_ctx)
        return clnorm__fail(ctx, CLNORM_INVALID_BUFFER, "%s.buffer belongs to another cl_context than the clnorm context's", name);
    if (clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof *size, size, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) != CL_SUCCESS ||
        (parent && clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof origin, &origin, NULL) != CL_SUCCESS))
        return clnorm__fail(ctx, CLNORM_INVALID_BUFFER, "%s.buffer: its size or origin cannot be queried", name);
    v->root = parent ? parent : mem;
    v->start = origin; /* bytes; the view's offset is added by the caller */
    /* A buffer made with CL_MEM_USE_HOST_PTR may keep the caller's memory at the caller's
     * alignment (PoCL does: a float array 4 bytes past a 64-byte boundary made the kernels'
     * aligned 64-byte vector accesses fault). A GPU may instead work in an aligned copy of its
     * own, so the skew is an alternative, not a replacement (layer_norm.c's aligned_at). */
    *skew_bytes = 0;
    void *host = NULL;
    /* (flags: the root buffer's, where the host-pointer flags are; v->flags: mem's own, with the
     * access qualifiers a sub-buffer may narrow) */
    bool ok = clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof v->flags, &v->flags, NULL) == CL_SUCCESS;
    flags = v->flags;
    if (ok && parent)
        ok = clGetMemObjectInfo(v->root, CL_MEM_FLAGS, sizeof flags, &flags, NULL) == CL_SUCCESS;
    if (ok && (flags & CL_MEM_USE_HOST_PTR))
        ok = clGetMemObjectInfo(v->root, CL_MEM_HOST_PTR, sizeof host, &host, NULL) == CL_SUCCESS;
    if (!ok)
        return clnorm__fail(ctx, CLNORM_INVALID_BUFFER, "%s.buffer: its flags or host pointer cannot be queried", name);
    /* a sub-buffer made without access qualifiers has its parent's; OpenCL 1.2 drivers need not
     * report them in the sub-buffer's CL_MEM_FLAGS (PoCL does), so they are taken from the root */
    const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY;
    if (parent && !(v->flags & access))
        v->flags |= flags & access;
    if (flags & CL_MEM_USE_HOST_PTR)
        *skew_bytes = (size_t)(((uintptr_t)host + origin) % base_align(ctx));
    return CLNORM_SUCCESS;
}

/* v->skew from the buffer's skew in bytes: whole elements, or an error naming the buffer */
static clnorm_status set_skew(const clnorm_context *ctx, const char *name, size_t skew_bytes, size_t es,
                              clnorm_view *v)
{
    if (skew_bytes % es != 0)
        return clnorm__fail(ctx, CLNORM_MISALIGNED_HOST_PTR,
                            "%s.buffer: its memory (CL_MEM_USE_HOST_PTR) starts %zu bytes past a %zu-byte "
                            "boundary, not a multiple of its %zu-byte elements",
                            name, skew_bytes, base_align(ctx), es);
    v->skew = skew_bytes / es;
    return CLNORM_SUCCESS;
}

/* a*b + c without overflow; false when it does not fit size_t. */
static bool mul_add(size_t a, size_t b, size_t c, size_t *out)
{
    if (b && a > (SIZE_MAX - c) / b)
        return false;
    *out = a * b + c;
    return true;
}

clnorm_status clnorm__check_matrix(const clnorm_context *ctx, const char *name, const clnorm_matrix *m,
                                   bool required, size_t rows, size_t cols, clnorm_view *v)
{
    *v = (clnorm_view){.name = name};
    if (!m) {
        if (required)
            return clnorm__fail(ctx, CLNORM_NULL_ARGUMENT, "%s is NULL but required", name);
        return CLNORM_SUCCESS;
    }
    if (!m->buffer)
        return clnorm__fail(ctx, CLNORM_NULL_BUFFER, "%s.buffer is NULL", name);
    if (!dtype_known(m->dtype))
        return clnorm__fail(ctx, CLNORM_INVALID_DTYPE, "%s.dtype = %d: expected CLNORM_F32, CLNORM_BF16 or CLNORM_F16",
                            name, (int)m->dtype);
    if (m->row_stride != 0 && m->row_stride < cols)
        return clnorm__fail(ctx, CLNORM_INVALID_STRIDE, "%s.row_stride = %zu: expected 0 (dense) or >= cols = %zu",
                            name, m->row_stride, cols);
    size_t size, skew_bytes;
    clnorm_status st = resolve_buffer(ctx, name, m->buffer, v, &size, &skew_bytes);
    if (st != CLNORM_SUCCESS)
        return st;
    const size_t es = clnorm__dtype_size(m->dtype), stride = m->row_stride ? m->row_stride : cols;
    if ((st = set_skew(ctx, name, skew_bytes, es, v)) != CLNORM_SUCCESS)
        return st;
    size_t end = 0; /* one past the last element, in elements */
    if (rows > 0 && (!mul_add(rows - 1, stride, cols, &end) || end > SIZE_MAX - m->offset))
        return clnorm__fail(ctx, CLNORM_OUT_OF_BOUNDS, "%s: offset %zu + (rows-1)*row_stride + cols overflows size_t",
                            name, m->offset);
    end += m->offset;
    if (rows == 0 && m->offset > size / es) /* (no element: only the offset is checked) */
        return clnorm__fail(ctx, CLNORM_OUT_OF_BOUNDS, "%s: offset %zu (rows 0) is past the end of its buffer of %zu elements",
                            name, m->offset, size / es);
    if (end > size / es || m->offset > size / es)
        return clnorm__fail(ctx, CLNORM_OUT_OF_BOUNDS,
                            "%s: offset %zu + (rows-1)*row_stride + cols = %zu elements does not fit its buffer of %zu elements",
                            name, m->offset, end, size / es);
    v->present = true;
    v->mem = m->buffer;
    v->dtype = m->dtype;
    v->offset = m->offset;
    v->stride = stride;
    v->start += m->offset * es;
    v->row_bytes = cols * es;
    v->pitch = stride * es;
    v->nrows = rows;
    v->elems = size / es;
    return CLNORM_SUCCESS;
}

clnorm_status clnorm__check_vector(const clnorm_context *ctx, const char *name, const clnorm_vector *vec,
                                   bool required, size_t len, bool stats, clnorm_view *v)
{
    *v = (clnorm_view){.name = name};
    if (!vec) {
        if (required)
            return clnorm__fail(ctx, CLNORM_NULL_ARGUMENT, "%s is NULL but required", name);
        return CLNORM_SUCCESS;
    }
    if (!vec->buffer)
        return clnorm__fail(ctx, CLNORM_NULL_BUFFER, "%s.buffer is NULL", name);
    if (!dtype_known(vec->dtype))
        return clnorm__fail(ctx, CLNORM_INVALID_DTYPE, "%s.dtype = %d: expected CLNORM_F32, CLNORM_BF16 or CLNORM_F16",
                            name, (int)vec->dtype);
    if (stats && vec->dtype != CLNORM_F32)
        return clnorm__fail(ctx, CLNORM_INVALID_STATS_DTYPE, "%s.dtype = %s: mean and rstd are always CLNORM_F32", name,
                            clnorm__dtype_token(vec->dtype));
    size_t size, skew_bytes;
    clnorm_status st = resolve_buffer(ctx, name, vec->buffer, v, &size, &skew_bytes);
    if (st != CLNORM_SUCCESS)
        return st;
    const size_t es = clnorm__dtype_size(vec->dtype);
    if ((st = set_skew(ctx, name, skew_bytes, es, v)) != CLNORM_SUCCESS)
        return st;
    if (vec->offset > size / es || len > size / es - vec->offset)
        return clnorm__fail(ctx, CLNORM_OUT_OF_BOUNDS, "%s: offset %zu + %zu elements does not fit its buffer of %zu elements",
                            name, vec->offset, len, size / es);
    v->present = true;
    v->mem = vec->buffer;
    v->dtype = vec->dtype;
    v->offset = vec->offset;
    v->stride = len;
    v->start += vec->offset * es;
    v->row_bytes = len * es;
    v->pitch = len * es;
    v->nrows = len ? 1 : 0;
    return CLNORM_SUCCESS;
}

clnorm_status clnorm__check_access(const clnorm_context *ctx, const clnorm_view *const *outs, int nout,
                                   const clnorm_view *const *ins, int nin)
{
    for (int o = 0; o < nout; ++o)
        if (outs[o]->present && (outs[o]->flags & CL_MEM_READ_ONLY))
            return clnorm__fail(ctx, CLNORM_BUFFER_ACCESS, "%s.buffer is CL_MEM_READ_ONLY, but %s is an output", outs[o]->name,
                                outs[o]->name);
    for (int i = 0; i < nin; ++i)
        if (ins[i]->present && (ins[i]->flags & CL_MEM_WRITE_ONLY))
            return clnorm__fail(ctx, CLNORM_BUFFER_ACCESS, "%s.buffer is CL_MEM_WRITE_ONLY, but %s is an input", ins[i]->name,
                                ins[i]->name);
    return CLNORM_SUCCESS;
}

static int64_t floor_div(int64_t a, int64_t b) /* b > 0 */
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Does the single byte interval [s, s+w) meet any row [t + r*pitch, t + r*pitch + wb), r < n? */
static bool interval_meets_rows(int64_t s, int64_t w, int64_t t, int64_t pitch, int64_t wb, int64_t n)
{
    /* smallest r with t + r*pitch + wb > s */
    int64_t r = floor_div(s - t - wb, pitch) + 1;
    if (r < 0)
        r = 0;
    return r < n && t + r * pitch < s + w;
}

/* Exact test of two row sets in one root buffer. */
static bool views_overlap(const clnorm_view *a, const clnorm_view *b)
{
    if (!a->present || !b->present || a->root != b->root || a->nrows == 0 || b->nrows == 0 ||
        a->row_bytes == 0 || b->row_bytes == 0)
        return false;
    const int64_t sa = (int64_t)a->start, sb = (int64_t)b->start;
    const int64_t ea = sa + (int64_t)((a->nrows - 1) * a->pitch + a->row_bytes);
    const int64_t eb = sb + (int64_t)((b->nrows - 1) * b->pitch + b->row_bytes);
    if (ea <= sb || eb <= sa)
        return false;
    if (a->pitch == b->pitch) { /* equal pitch: rows meet iff some row difference k brings them together */
        const int64_t p = (int64_t)a->pitch, d = sb - sa, wa = (int64_t)a->row_bytes, wb = (int64_t)b->row_bytes;
        int64_t k = floor_div(-wb - d, p) + 1; /* smallest k with d + k*p > -wb */
        if (k < -(int64_t)(a->nrows - 1))
            k = -(int64_t)(a->nrows - 1);
        return k <= (int64_t)(b->nrows - 1) && d + k * p < wa;
    }
    /* different pitches (rare): walk the rows of the shorter view */
    const clnorm_view *s = a->nrows <= b->nrows ? a : b, *l = s == a ? b : a;
    for (size_t r = 0; r < s->nrows; ++r)
        if (interval_meets_rows((int64_t)(s->start + r * s->pitch), (int64_t)s->row_bytes, (int64_t)l->start,
                                (int64_t)l->pitch, (int64_t)l->row_bytes, (int64_t)l->nrows))
            return true;
    return false;
}

static bool same_view(const clnorm_view *a, const clnorm_view *b)
{
    return a->root == b->root && a->start == b->start && a->pitch == b->pitch && a->dtype == b->dtype &&
           a->row_bytes == b->row_bytes && a->nrows == b->nrows;
}

clnorm_status clnorm__check_overlaps(const clnorm_context *ctx, const clnorm_view *const *outs, int nout,
                                     const clnorm_view *const *ins, int nin, int alias_out, int alias_in)
{
    for (int o = 0; o < nout; ++o) {
        for (int i = 0; i < nin; ++i) {
            if (!views_overlap(outs[o], ins[i]))
                continue;
            if (o == alias_out && i == alias_in && same_view(outs[o], ins[i]))
                continue;
            return clnorm__fail(ctx, CLNORM_OVERLAP, "output %s overlaps input %s%s", outs[o]->name, ins[i]->name,
                                o == alias_out && i == alias_in ? " (only exactly the same view is allowed)" : "");
        }
        for (int p = o + 1; p < nout; ++p)
            if (views_overlap(outs[o], outs[p]))
                return clnorm__fail(ctx, CLNORM_OVERLAP, "outputs %s and %s overlap", outs[o]->name, outs[p]->name);
    }
    return CLNORM_SUCCESS;
}
