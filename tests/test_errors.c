/* Invalid input. Every case changes one argument of a valid call and expects its own status, a
 * non-empty clnorm_context_last_error() message, and no effect: every buffer (outputs included,
 * filled with a random pattern) reads back bit-identical after clFinish. Views that share a
 * buffer without overlapping, and the exact aliases the API allows, must be accepted. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "prng.h"

enum { R = 5, C = 16, RC = R * C, SH = 8 * RC };
#define BIG_OFFSET_BYTES_WRAP (SIZE_MAX / 4 + 1) /* offset * sizeof(float) wraps to 0 */

/* B_PARENT holds a sub-buffer (f->sub) of RC*2 floats at byte f->sub_origin (a multiple of the
 * device's base address alignment, >= 1024 bytes): views of the parent and of the sub-buffer
 * are views of the same memory. */
enum { B_X, B_Y, B_W, B_B, B_MEAN, B_RSTD, B_DY, B_DX, B_DRES, B_DW, B_DB, B_SHARED, B_PARENT, B_COUNT };
static const size_t buf_elems_fixed[B_COUNT - 1] = { RC, RC, C, C, R, R, RC, RC, RC, C, C, SH };
static const char *buf_names[B_COUNT] = { "x", "y", "weight", "bias", "mean", "rstd", "dy", "dx", "dresidual",
                                          "dweight", "dbias", "shared", "parent of a sub-buffer" };

typedef struct efx {
    clnorm_context *ctx;
    cl_mem mem[B_COUNT];
    size_t elems[B_COUNT];
    unsigned char *pattern[B_COUNT];
    cl_mem sub;         /* sub-buffer of mem[B_PARENT] */
    size_t sub_origin;  /* bytes */
    cl_mem foreign;     /* a buffer of another cl_context */
    cl_mem host_odd;    /* CL_MEM_USE_HOST_PTR memory 2 bytes past a 4096-byte boundary */
    cl_mem host_odd1;   /* ... 1 byte past one (misaligned for 16-bit elements too) */
    cl_mem ro, wo;      /* SH floats, CL_MEM_READ_ONLY / CL_MEM_WRITE_ONLY */
    cl_mem sub_ro;      /* a CL_MEM_READ_ONLY sub-buffer of mem[B_PARENT], where sub is */
    cl_mem sub_of_ro;   /* a sub-buffer of ro made without access flags: it inherits READ_ONLY */
    void *host_mem;     /* ... its memory */
    void *host_mem1;    /* host_odd1's memory */
    cl_mem image;       /* a 2D image (not a buffer); NULL where the device has no images */
    cl_event done;      /* a completed user event, for the wait-list cases */
    cl_event done_null[2]; /* ... then a NULL entry */
    cl_event other_done; /* ... of another cl_context */
} efx;

static cl_context g_other;

static void efx_setup(efx *f, uint64_t seed)
{
    cl_int err;
    rng r;
    rng_seed(&r, seed);
    f->ctx = test_context();
    cl_context clctx = clnorm_context_cl_context(f->ctx);
    cl_uint align_bits = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(f->ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
    size_t align = align_bits >= 8 ? align_bits / 8 : 1;
    f->sub_origin = (1024 + align - 1) / align * align;
    for (int i = 0; i < B_COUNT; i++)
        f->elems[i] = i == B_PARENT ? f->sub_origin / sizeof(float) + 4 * RC : buf_elems_fixed[i];
    for (int i = 0; i < B_COUNT; i++) {
        size_t n = f->elems[i] * sizeof(float);
        f->pattern[i] = xmalloc(n);
        for (size_t k = 0; k < n; k++)
            f->pattern[i][k] = (unsigned char)(rng_next(&r) >> 56);
        f->mem[i] = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n, f->pattern[i], &err);
        ck_assert_msg(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    }
    if (!g_other) {
        cl_device_id dev = clnorm_context_device(f->ctx);
        g_other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        ck_assert_msg(err == CL_SUCCESS, "clCreateContext: %d", err);
    }
    cl_buffer_region region = { f->sub_origin, 2 * RC * sizeof(float) };
    f->sub = clCreateSubBuffer(f->mem[B_PARENT], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateSubBuffer(origin %zu): %d", f->sub_origin, err);
    f->foreign = clCreateBuffer(g_other, CL_MEM_READ_WRITE, SH * sizeof(float), NULL, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateBuffer (other context): %d", err);
    f->host_mem = aligned_alloc(4096, (SH * sizeof(float) + 2 + 4095) / 4096 * 4096);
    ck_assert_ptr_nonnull(f->host_mem);
    f->host_odd = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, SH * sizeof(float),
                                 (char *)f->host_mem + 2, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateBuffer (CL_MEM_USE_HOST_PTR): %d", err);
    f->host_mem1 = aligned_alloc(4096, (SH * sizeof(float) + 1 + 4095) / 4096 * 4096);
    ck_assert_ptr_nonnull(f->host_mem1);
    f->host_odd1 = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, SH * sizeof(float),
                                  (char *)f->host_mem1 + 1, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateBuffer (CL_MEM_USE_HOST_PTR, 1 byte past): %d", err);
    f->ro = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, SH * sizeof(float), f->pattern[B_SHARED], &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateBuffer (CL_MEM_READ_ONLY): %d", err);
    f->wo = clCreateBuffer(clctx, CL_MEM_WRITE_ONLY, SH * sizeof(float), NULL, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateBuffer (CL_MEM_WRITE_ONLY): %d", err);
    f->sub_ro = clCreateSubBuffer(f->mem[B_PARENT], CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateSubBuffer (CL_MEM_READ_ONLY): %d", err);
    const cl_buffer_region ro_region = { 0, 2 * RC * sizeof(float) };
    f->sub_of_ro = clCreateSubBuffer(f->ro, 0, CL_BUFFER_CREATE_TYPE_REGION, &ro_region, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateSubBuffer (flags 0 of a CL_MEM_READ_ONLY buffer): %d", err);
    cl_bool images = CL_FALSE;
    CL_OK(clGetDeviceInfo(clnorm_context_device(f->ctx), CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
    f->image = NULL;
    if (images) {
        const cl_image_format fmt = { CL_RGBA, CL_FLOAT }; /* (a format every image device has) */
        cl_image_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = C;
        desc.image_height = R;
        f->image = clCreateImage(clctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
        ck_assert_msg(err == CL_SUCCESS, "clCreateImage (a device with image support): %d", err);
    }
    f->done = clCreateUserEvent(clctx, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateUserEvent: %d", err);
    CL_OK(clSetUserEventStatus(f->done, CL_COMPLETE));
    f->done_null[0] = f->done;
    f->done_null[1] = NULL;
    f->other_done = clCreateUserEvent(g_other, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateUserEvent (other context): %d", err);
    CL_OK(clSetUserEventStatus(f->other_done, CL_COMPLETE));
}

/* Every buffer must read back exactly as created. */
static void efx_expect_untouched(efx *f, const char *what)
{
    cl_command_queue q = clnorm_context_queue(f->ctx);
    CL_OK(clFinish(q));
    for (int i = 0; i < B_COUNT; i++) {
        size_t n = f->elems[i] * sizeof(float);
        unsigned char *got = xmalloc(n);
        CL_OK(clEnqueueReadBuffer(q, f->mem[i], CL_TRUE, 0, n, got, 0, NULL, NULL));
        size_t first = n;
        for (size_t k = 0; k < n && first == n; k++)
            if (got[k] != f->pattern[i][k])
                first = k;
        free(got);
        ck_assert_msg(first == n, "%s: buffer %s changed (first at byte %zu) by a call that failed", what, buf_names[i], first);
    }
}

static void efx_teardown(efx *f)
{
    clReleaseMemObject(f->sub);
    for (int i = 0; i < B_COUNT; i++) {
        clReleaseMemObject(f->mem[i]);
        free(f->pattern[i]);
    }
    clReleaseMemObject(f->foreign);
    clReleaseMemObject(f->host_odd);
    clReleaseMemObject(f->host_odd1);
    clReleaseMemObject(f->ro);
    clReleaseMemObject(f->wo);
    clReleaseMemObject(f->sub_ro);
    clReleaseMemObject(f->sub_of_ro);
    if (f->image)
        clReleaseMemObject(f->image);
    free(f->host_mem);
    free(f->host_mem1);
    clReleaseEvent(f->done);
    clReleaseEvent(f->other_done);
}

static clnorm_matrix mat(cl_mem b, size_t offset, size_t stride)
{
    clnorm_matrix m = { b, offset, stride, CLNORM_F32 };
    return m;
}

static clnorm_vector vec(cl_mem b, size_t offset)
{
    clnorm_vector v = { b, offset, CLNORM_F32 };
    return v;
}

/* ------------------------------------------------------------------------------------------ */
/* Arguments of one call; has_* 0 passes NULL. */
typedef struct args {
    clnorm_context *ctx;
    size_t rows, cols;
    float eps;
    clnorm_matrix x, y, dy, dres, dx;
    clnorm_vector w, b, mean, rstd, dw, db;
    int has_x, has_y, has_w, has_b, has_mean, has_rstd, has_dy, has_dres, has_dx, has_dw, has_db;
    cl_uint nwait;
    const cl_event *wait;
} args;

/* All F32, exact-size buffers, every optional tensor given. */
static void base_args(args *a, efx *f)
{
    memset(a, 0, sizeof *a);
    a->ctx = f->ctx;
    a->rows = R;
    a->cols = C;
    a->eps = 1e-5f;
    a->x = mat(f->mem[B_X], 0, 0);
    a->y = mat(f->mem[B_Y], 0, 0);
    a->dy = mat(f->mem[B_DY], 0, 0);
    a->dres = mat(f->mem[B_DRES], 0, 0);
    a->dx = mat(f->mem[B_DX], 0, 0);
    a->w = vec(f->mem[B_W], 0);
    a->b = vec(f->mem[B_B], 0);
    a->mean = vec(f->mem[B_MEAN], 0);
    a->rstd = vec(f->mem[B_RSTD], 0);
    a->dw = vec(f->mem[B_DW], 0);
    a->db = vec(f->mem[B_DB], 0);
    a->has_x = a->has_y = a->has_w = a->has_b = a->has_mean = a->has_rstd = 1;
    a->has_dy = a->has_dres = a->has_dx = a->has_dw = a->has_db = 1;
}

static clnorm_status call_forward(const args *a, cl_event *ev)
{
    return clnorm_layer_norm_forward(a->ctx, a->rows, a->cols, a->eps, a->has_x ? &a->x : NULL,
                                     a->has_w ? &a->w : NULL, a->has_b ? &a->b : NULL, a->has_y ? &a->y : NULL,
                                     a->has_mean ? &a->mean : NULL, a->has_rstd ? &a->rstd : NULL, a->nwait, a->wait, ev);
}

static clnorm_status call_backward(const args *a, cl_event *ev)
{
    return clnorm_layer_norm_backward(a->ctx, a->rows, a->cols, a->has_dy ? &a->dy : NULL, a->has_x ? &a->x : NULL,
                                      a->has_w ? &a->w : NULL, a->has_mean ? &a->mean : NULL,
                                      a->has_rstd ? &a->rstd : NULL, a->has_dres ? &a->dres : NULL,
                                      a->has_dx ? &a->dx : NULL, a->has_dw ? &a->dw : NULL, a->has_db ? &a->db : NULL,
                                      a->nwait, a->wait, ev);
}

/* One case: a description, the expected status. */
typedef struct expect {
    const char *what;
    clnorm_status status;
    const char *msg; /* where the status alone cannot tell the check apart: a part of the message */
    int skip;        /* the device lacks what the case needs (images) */
} expect;

#define CASE(n, text, st)   \
    case n:                 \
        e.what = text;      \
        e.status = st;
#define END_CASES(count)                                                   \
    default:                                                               \
        ck_abort_msg("case %d does not exist (%d cases)", i, count);       \
    }                                                                      \
    return e;

/* ------------------------------------------------------------------------------------------ */
#define FWD_ERROR_CASES 76

static expect forward_error_case(int i, args *a, efx *f)
{
    expect e = { NULL, 0, NULL, 0 };
    cl_mem sh = f->mem[B_SHARED];
    switch (i) {
    CASE(0, "ctx NULL", CLNORM_NULL_ARGUMENT) a->ctx = NULL; break;
    CASE(1, "x NULL", CLNORM_NULL_ARGUMENT) a->has_x = 0; break;
    CASE(2, "y NULL", CLNORM_NULL_ARGUMENT) a->has_y = 0; break;
    CASE(3, "x.buffer NULL", CLNORM_NULL_BUFFER) a->x.buffer = NULL; break;
    CASE(4, "y.buffer NULL", CLNORM_NULL_BUFFER) a->y.buffer = NULL; break;
    CASE(5, "weight.buffer NULL", CLNORM_NULL_BUFFER) a->w.buffer = NULL; break;
    CASE(6, "bias.buffer NULL", CLNORM_NULL_BUFFER) a->b.buffer = NULL; break;
    CASE(7, "mean.buffer NULL", CLNORM_NULL_BUFFER) a->mean.buffer = NULL; break;
    CASE(8, "rstd.buffer NULL", CLNORM_NULL_BUFFER) a->rstd.buffer = NULL; break;
    CASE(9, "cols 0", CLNORM_INVALID_SHAPE) a->cols = 0; break;
    CASE(10, "x.row_stride cols-1", CLNORM_INVALID_STRIDE) a->x.row_stride = C - 1; break;
    CASE(11, "y.row_stride 1", CLNORM_INVALID_STRIDE) a->y.row_stride = 1; break;
    CASE(12, "x.offset 1 in an exact-size buffer", CLNORM_OUT_OF_BOUNDS) a->x.offset = 1; break;
    CASE(13, "y.row_stride cols+1 in a dense-size buffer", CLNORM_OUT_OF_BOUNDS) a->y.row_stride = C + 1; break;
    CASE(14, "rows + 1", CLNORM_OUT_OF_BOUNDS) a->rows = R + 1; break;
    CASE(15, "weight.offset 1", CLNORM_OUT_OF_BOUNDS) a->w.offset = 1; break;
    CASE(16, "bias.offset cols", CLNORM_OUT_OF_BOUNDS) a->b.offset = C; break;
    CASE(17, "mean.offset 1", CLNORM_OUT_OF_BOUNDS) a->mean.offset = 1; break;
    CASE(18, "rstd.offset rows", CLNORM_OUT_OF_BOUNDS) a->rstd.offset = R; break;
    CASE(19, "x.offset SIZE_MAX-2 (offset + extent wraps)", CLNORM_OUT_OF_BOUNDS) a->x.offset = SIZE_MAX - 2; break;
    CASE(20, "y.offset SIZE_MAX/4+1 (bytes wrap to 0)", CLNORM_OUT_OF_BOUNDS) a->y.offset = BIG_OFFSET_BYTES_WRAP; break;
    /* a huge stride: the shape fits size_t, the view does not (OUT_OF_BOUNDS) */
    CASE(21, "x.row_stride SIZE_MAX/2 ((rows-1)*stride wraps)", CLNORM_OUT_OF_BOUNDS) a->x.row_stride = SIZE_MAX / 2; break;
    CASE(22, "y.row_stride SIZE_MAX/4+1 (bytes wrap)", CLNORM_OUT_OF_BOUNDS) a->y.row_stride = BIG_OFFSET_BYTES_WRAP; break;
    CASE(23, "weight.offset SIZE_MAX-cols+2 (offset + cols wraps to 1)", CLNORM_OUT_OF_BOUNDS) a->w.offset = SIZE_MAX - C + 2; break;
    CASE(24, "bias.offset SIZE_MAX/4+1 (bytes wrap to 0)", CLNORM_OUT_OF_BOUNDS) a->b.offset = BIG_OFFSET_BYTES_WRAP; break;
    CASE(25, "mean.offset SIZE_MAX", CLNORM_OUT_OF_BOUNDS) a->mean.offset = SIZE_MAX; break;
    CASE(26, "rstd.offset SIZE_MAX-rows+1 (offset + rows wraps to 0)", CLNORM_OUT_OF_BOUNDS) a->rstd.offset = SIZE_MAX - R + 1; break;
    CASE(27, "mean.dtype BF16", CLNORM_INVALID_STATS_DTYPE) a->mean.dtype = CLNORM_BF16; break;
    CASE(28, "rstd.dtype F16", CLNORM_INVALID_STATS_DTYPE) a->rstd.dtype = CLNORM_F16; break;
    CASE(29, "x.dtype 7", CLNORM_INVALID_DTYPE) a->x.dtype = (clnorm_dtype)7; break;
    CASE(30, "y.dtype 7", CLNORM_INVALID_DTYPE) a->y.dtype = (clnorm_dtype)7; break;
    CASE(31, "weight.dtype 3", CLNORM_INVALID_DTYPE) a->w.dtype = (clnorm_dtype)3; break;
    CASE(32, "bias.dtype 7", CLNORM_INVALID_DTYPE) a->b.dtype = (clnorm_dtype)7; break;
    CASE(33, "eps NaN", CLNORM_INVALID_EPS) a->eps = NAN; break;
    CASE(34, "eps +inf", CLNORM_INVALID_EPS) a->eps = INFINITY; break;
    CASE(35, "eps -inf", CLNORM_INVALID_EPS) a->eps = -INFINITY; break;
    CASE(36, "eps -1e-5", CLNORM_INVALID_EPS) a->eps = -1e-5f; break;
    CASE(37, "y partially overlapping x", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 0);
        a->y = mat(sh, C / 2, 0);
        break;
    CASE(38, "y at x's buffer and offset with another row_stride", CLNORM_OVERLAP)
        a->x = mat(sh, 0, C);
        a->y = mat(sh, 0, C + 1);
        break;
    CASE(39, "y at x's buffer and offset with another dtype", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 0);
        a->y = mat(sh, 0, 0);
        a->y.dtype = CLNORM_BF16;
        break;
    CASE(40, "bf16 y overlapping f32 x in bytes only (y.offset = x's end in elements)", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 0);
        a->y = mat(sh, RC, 0); /* bf16 element RC is byte 2*RC, inside x's 4*RC bytes */
        a->y.dtype = CLNORM_BF16;
        break;
    CASE(41, "mean overlapping rstd", CLNORM_OVERLAP)
        a->mean = vec(sh, 0);
        a->rstd = vec(sh, R - 1);
        break;
    CASE(42, "mean exactly rstd", CLNORM_OVERLAP)
        a->mean = vec(sh, 3);
        a->rstd = vec(sh, 3);
        break;
    CASE(43, "mean inside x", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 0);
        a->mean = vec(sh, RC / 2);
        break;
    CASE(44, "y overlapping weight", CLNORM_OVERLAP)
        a->y = mat(sh, 0, 0);
        a->w = vec(sh, RC - 4);
        break;
    CASE(45, "rstd overlapping bias", CLNORM_OVERLAP)
        a->b = vec(sh, 0);
        a->rstd = vec(sh, C - 1);
        break;
    CASE(46, "y padding rows interleaved with x rows (x stride 2C, y at offset C stride 2C: disjoint) but mean inside y", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 2 * C);
        a->y = mat(sh, C, 2 * C);
        a->mean = vec(sh, 3 * C + 2);
        break;
    CASE(47, "x.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->x.buffer = f->foreign; break;
    CASE(48, "y.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->y.buffer = f->foreign; break;
    CASE(49, "weight.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->w.buffer = f->foreign; break;
    CASE(50, "mean.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->mean.buffer = f->foreign; break;
    CASE(51, "wait list count 1, list NULL", CL_INVALID_EVENT_WAIT_LIST) a->nwait = 1; a->wait = NULL; break;
    CASE(52, "wait list count 0, list non-NULL", CL_INVALID_EVENT_WAIT_LIST) a->nwait = 0; a->wait = &f->done; break;
    /* rows x cols elements of 4 bytes beyond size_t: INVALID_SHAPE, before any view is looked at */
    CASE(53, "rows and cols SIZE_MAX", CLNORM_INVALID_SHAPE) a->rows = SIZE_MAX; a->cols = SIZE_MAX; break;
    CASE(54, "cols SIZE_MAX/2 (cols * 4 bytes wraps)", CLNORM_INVALID_SHAPE) a->rows = 1; a->cols = SIZE_MAX / 2; break;
    CASE(55, "bias.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->b.buffer = f->foreign; break;
    CASE(56, "y in a sub-buffer overlapping x in the parent buffer", CLNORM_OVERLAP)
        a->x = mat(f->mem[B_PARENT], f->sub_origin / sizeof(float) - C / 2, 0); /* ends inside the sub-buffer */
        a->y = mat(f->sub, 0, 0);
        break;
    /* fp32 elements at an address that is not a multiple of 4 (kernels cannot work in it) */
    CASE(57, "x.buffer: CL_MEM_USE_HOST_PTR memory 2 bytes past an aligned address", CLNORM_MISALIGNED_HOST_PTR)
        a->x.buffer = f->host_odd;
        break;
    /* kernel access flags: writing a CL_MEM_READ_ONLY buffer or reading a CL_MEM_WRITE_ONLY one
     * is undefined in a kernel */
    CASE(58, "y.buffer CL_MEM_READ_ONLY", CLNORM_BUFFER_ACCESS) a->y.buffer = f->ro; break;
    CASE(59, "rstd.buffer CL_MEM_READ_ONLY", CLNORM_BUFFER_ACCESS) a->rstd.buffer = f->ro; break;
    CASE(60, "x.buffer CL_MEM_WRITE_ONLY", CLNORM_BUFFER_ACCESS) a->x.buffer = f->wo; break;
    CASE(61, "y in a CL_MEM_READ_ONLY sub-buffer of a read-write buffer", CLNORM_BUFFER_ACCESS)
        a->y = mat(f->sub_ro, 0, 0);
        break;
    /* (a sub-buffer made without access flags inherits its parent's, which a 1.2 driver need not
     * report in the sub-buffer's own flags: the library reads the parent's. PoCL reports them
     * itself, so there this case checks the outcome only; the parent's flags were checked to
     * decide it by masking the sub-buffer's, session 38) */
    CASE(62, "y in a sub-buffer without access flags of a CL_MEM_READ_ONLY buffer", CLNORM_BUFFER_ACCESS)
        a->y = mat(f->sub_of_ro, 0, 0);
        break;
    CASE(63, "wait list with an event of another cl_context", CL_INVALID_CONTEXT)
        a->nwait = 1;
        a->wait = &f->other_done;
        break;
    /* the two 16-bit dtypes have one element size: only the dtype tells these views apart */
    CASE(64, "y at x's buffer, offset and stride as F16 over BF16 x", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 0);
        a->x.dtype = CLNORM_BF16;
        a->y = mat(sh, 0, 0);
        a->y.dtype = CLNORM_F16;
        break;
    /* rows 0 writes nothing, but its views are checked like any call's */
    CASE(65, "rows 0, y.buffer CL_MEM_READ_ONLY", CLNORM_BUFFER_ACCESS)
        a->rows = 0;
        a->has_w = a->has_b = a->has_mean = a->has_rstd = 0;
        a->y.buffer = f->ro;
        break;
    CASE(66, "rows 0, wait list with an event of another cl_context", CL_INVALID_CONTEXT)
        e.msg = "belongs to another cl_context"; /* (PoCL's own enqueue gives the same status) */
        a->rows = 0;
        a->has_w = a->has_b = a->has_mean = a->has_rstd = 0;
        a->nwait = 1;
        a->wait = &f->other_done;
        break;
    CASE(67, "rows 0, x.offset one past its buffer's end", CLNORM_OUT_OF_BOUNDS)
        a->rows = 0;
        a->has_w = a->has_b = a->has_mean = a->has_rstd = 0;
        a->x.offset = RC + 1;
        break;
    CASE(68, "wait list {a complete event, NULL}", CL_INVALID_EVENT_WAIT_LIST)
        e.msg = "event_wait_list[1] is NULL";
        a->nwait = 2;
        a->wait = f->done_null;
        break;
    /* 2 x (2^63 + 1) elements: the shape, though each view's extent (stride + cols) would wrap too */
    CASE(69, "rows 2, cols SIZE_MAX/2+1 (2 x cols wraps)", CLNORM_INVALID_SHAPE)
        a->rows = 2;
        a->cols = SIZE_MAX / 2 + 1;
        a->has_w = a->has_b = 0;
        break;
    CASE(70, "x.offset 1 with an extent of SIZE_MAX (offset + extent wraps to 0)", CLNORM_OUT_OF_BOUNDS)
        a->rows = 2;
        a->x = mat(f->mem[B_X], 1, SIZE_MAX - C);
        break;
    CASE(71, "x.buffer a 2D image", CLNORM_INVALID_BUFFER)
        e.skip = f->image == NULL;
        a->x.buffer = f->image;
        break;
    CASE(72, "mean.buffer a 2D image", CLNORM_INVALID_BUFFER)
        e.skip = f->image == NULL;
        a->mean.buffer = f->image;
        break;
    /* (rows-1) x stride fits size_t, + cols does not: the sum wraps to 0 */
    CASE(73, "rows 2, x.row_stride SIZE_MAX-cols+1 ((rows-1)*stride + cols wraps to 0)", CLNORM_OUT_OF_BOUNDS)
        a->rows = 2;
        a->x = mat(f->mem[B_X], 0, SIZE_MAX - C + 1);
        break;
    CASE(74, "wait list {NULL}", CL_INVALID_EVENT_WAIT_LIST)
        e.msg = "event_wait_list[0] is NULL";
        a->nwait = 1;
        a->wait = &f->done_null[1];
        break;
    /* 16-bit elements at an odd address */
    CASE(75, "bf16 x.buffer: CL_MEM_USE_HOST_PTR memory 1 byte past an aligned address", CLNORM_MISALIGNED_HOST_PTR)
        a->x.buffer = f->host_odd1;
        a->x.dtype = CLNORM_BF16;
        break;
    END_CASES(FWD_ERROR_CASES)
}

#define BWD_ERROR_CASES 72

static expect backward_error_case(int i, args *a, efx *f)
{
    expect e = { NULL, 0, NULL, 0 };
    cl_mem sh = f->mem[B_SHARED];
    switch (i) {
    CASE(0, "ctx NULL", CLNORM_NULL_ARGUMENT) a->ctx = NULL; break;
    CASE(1, "dy NULL", CLNORM_NULL_ARGUMENT) a->has_dy = 0; break;
    CASE(2, "x NULL", CLNORM_NULL_ARGUMENT) a->has_x = 0; break;
    CASE(3, "mean NULL", CLNORM_NULL_ARGUMENT) a->has_mean = 0; break;
    CASE(4, "rstd NULL", CLNORM_NULL_ARGUMENT) a->has_rstd = 0; break;
    CASE(5, "dx NULL", CLNORM_NULL_ARGUMENT) a->has_dx = 0; break;
    CASE(6, "dy.buffer NULL", CLNORM_NULL_BUFFER) a->dy.buffer = NULL; break;
    CASE(7, "x.buffer NULL", CLNORM_NULL_BUFFER) a->x.buffer = NULL; break;
    CASE(8, "weight.buffer NULL", CLNORM_NULL_BUFFER) a->w.buffer = NULL; break;
    CASE(9, "mean.buffer NULL", CLNORM_NULL_BUFFER) a->mean.buffer = NULL; break;
    CASE(10, "rstd.buffer NULL", CLNORM_NULL_BUFFER) a->rstd.buffer = NULL; break;
    CASE(11, "dresidual.buffer NULL", CLNORM_NULL_BUFFER) a->dres.buffer = NULL; break;
    CASE(12, "dx.buffer NULL", CLNORM_NULL_BUFFER) a->dx.buffer = NULL; break;
    CASE(13, "dweight.buffer NULL", CLNORM_NULL_BUFFER) a->dw.buffer = NULL; break;
    CASE(14, "dbias.buffer NULL", CLNORM_NULL_BUFFER) a->db.buffer = NULL; break;
    CASE(15, "cols 0", CLNORM_INVALID_SHAPE) a->cols = 0; break;
    CASE(16, "dy.row_stride cols-1", CLNORM_INVALID_STRIDE) a->dy.row_stride = C - 1; break;
    CASE(17, "x.row_stride 1", CLNORM_INVALID_STRIDE) a->x.row_stride = 1; break;
    CASE(18, "dresidual.row_stride cols-1", CLNORM_INVALID_STRIDE) a->dres.row_stride = C - 1; break;
    CASE(19, "dx.row_stride cols-1", CLNORM_INVALID_STRIDE) a->dx.row_stride = C - 1; break;
    CASE(20, "dy.offset 1", CLNORM_OUT_OF_BOUNDS) a->dy.offset = 1; break;
    CASE(21, "dx.row_stride cols+1 in a dense-size buffer", CLNORM_OUT_OF_BOUNDS) a->dx.row_stride = C + 1; break;
    CASE(22, "dresidual.offset 1", CLNORM_OUT_OF_BOUNDS) a->dres.offset = 1; break;
    CASE(23, "rows + 1", CLNORM_OUT_OF_BOUNDS) a->rows = R + 1; break;
    CASE(24, "dweight.offset 1", CLNORM_OUT_OF_BOUNDS) a->dw.offset = 1; break;
    CASE(25, "dbias.offset SIZE_MAX-cols+2 (offset + cols wraps)", CLNORM_OUT_OF_BOUNDS) a->db.offset = SIZE_MAX - C + 2; break;
    CASE(26, "mean.offset SIZE_MAX", CLNORM_OUT_OF_BOUNDS) a->mean.offset = SIZE_MAX; break;
    CASE(27, "x.offset SIZE_MAX/4+1 (bytes wrap to 0)", CLNORM_OUT_OF_BOUNDS) a->x.offset = BIG_OFFSET_BYTES_WRAP; break;
    CASE(28, "weight.offset 1", CLNORM_OUT_OF_BOUNDS) a->w.offset = 1; break;
    CASE(29, "rstd.offset 1", CLNORM_OUT_OF_BOUNDS) a->rstd.offset = 1; break;
    CASE(30, "mean.dtype BF16", CLNORM_INVALID_STATS_DTYPE) a->mean.dtype = CLNORM_BF16; break;
    CASE(31, "rstd.dtype F16", CLNORM_INVALID_STATS_DTYPE) a->rstd.dtype = CLNORM_F16; break;
    CASE(32, "dy.dtype 7", CLNORM_INVALID_DTYPE) a->dy.dtype = (clnorm_dtype)7; break;
    CASE(33, "dx.dtype 7", CLNORM_INVALID_DTYPE) a->dx.dtype = (clnorm_dtype)7; break;
    CASE(34, "dweight.dtype 7", CLNORM_INVALID_DTYPE) a->dw.dtype = (clnorm_dtype)7; break;
    CASE(35, "dresidual.dtype 3", CLNORM_INVALID_DTYPE) a->dres.dtype = (clnorm_dtype)3; break;
    CASE(36, "dx partially overlapping x", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 0);
        a->dx = mat(sh, C, 0);
        break;
    CASE(37, "dx exactly x", CLNORM_OVERLAP)
        a->x = mat(sh, 0, 0);
        a->dx = mat(sh, 0, 0);
        break;
    CASE(38, "dx partially overlapping dy", CLNORM_OVERLAP)
        a->dy = mat(sh, 2 * C + 1, 0);
        a->dx = mat(sh, 0, 0);
        break;
    CASE(39, "dx exactly dy", CLNORM_OVERLAP)
        a->dy = mat(sh, 7, C + 3);
        a->dx = mat(sh, 7, C + 3);
        break;
    CASE(40, "dweight overlapping dbias", CLNORM_OVERLAP)
        a->dw = vec(sh, 0);
        a->db = vec(sh, 1);
        break;
    CASE(41, "dweight exactly dbias", CLNORM_OVERLAP)
        a->dw = vec(sh, 5);
        a->db = vec(sh, 5);
        break;
    CASE(42, "dx partially overlapping dresidual", CLNORM_OVERLAP)
        a->dres = mat(sh, 0, 0);
        a->dx = mat(sh, 1, 0);
        break;
    CASE(43, "dx at dresidual's buffer and offset with another row_stride", CLNORM_OVERLAP)
        a->dres = mat(sh, 0, C);
        a->dx = mat(sh, 0, C + 2);
        break;
    CASE(44, "dx at dresidual's buffer, offset and stride with another dtype", CLNORM_OVERLAP)
        a->dres = mat(sh, 0, 0);
        a->dx = mat(sh, 0, 0);
        a->dres.dtype = CLNORM_BF16;
        break;
    CASE(45, "dweight overlapping weight", CLNORM_OVERLAP)
        a->w = vec(sh, 0);
        a->dw = vec(sh, C / 2);
        break;
    CASE(46, "dbias overlapping mean", CLNORM_OVERLAP)
        a->mean = vec(sh, 0);
        a->db = vec(sh, 2);
        break;
    CASE(47, "dx overlapping rstd", CLNORM_OVERLAP)
        a->rstd = vec(sh, RC - 1);
        a->dx = mat(sh, 0, 0);
        break;
    CASE(48, "dweight overlapping dx", CLNORM_OVERLAP)
        a->dx = mat(sh, 0, 0);
        a->dw = vec(sh, RC - C / 2);
        break;
    CASE(49, "dy.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->dy.buffer = f->foreign; break;
    CASE(50, "dx.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->dx.buffer = f->foreign; break;
    CASE(51, "dbias.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->db.buffer = f->foreign; break;
    CASE(52, "dresidual.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->dres.buffer = f->foreign; break;
    CASE(53, "wait list count 2, list NULL", CL_INVALID_EVENT_WAIT_LIST) a->nwait = 2; a->wait = NULL; break;
    CASE(54, "wait list count 0, list non-NULL", CL_INVALID_EVENT_WAIT_LIST) a->nwait = 0; a->wait = &f->done; break;
    CASE(55, "rstd.buffer of another cl_context", CLNORM_INVALID_BUFFER) a->rstd.buffer = f->foreign; break;
    CASE(56, "dx in a sub-buffer, dy in the parent buffer inside the sub-buffer's range", CLNORM_OVERLAP)
        a->dy = mat(f->mem[B_PARENT], f->sub_origin / sizeof(float) + RC - 3, 0);
        a->dx = mat(f->sub, 0, 0);
        break;
    CASE(57, "dweight in the parent buffer inside dbias's sub-buffer", CLNORM_OVERLAP)
        a->db = vec(f->sub, C);
        a->dw = vec(f->mem[B_PARENT], f->sub_origin / sizeof(float) + C + 1);
        break;
    CASE(58, "dx.buffer: CL_MEM_USE_HOST_PTR memory 2 bytes past an aligned address", CLNORM_MISALIGNED_HOST_PTR)
        a->dx.buffer = f->host_odd;
        break;
    CASE(59, "dx.buffer CL_MEM_READ_ONLY", CLNORM_BUFFER_ACCESS) a->dx.buffer = f->ro; break;
    CASE(60, "dweight.buffer CL_MEM_READ_ONLY", CLNORM_BUFFER_ACCESS) a->dw.buffer = f->ro; break;
    CASE(61, "dresidual.buffer CL_MEM_WRITE_ONLY", CLNORM_BUFFER_ACCESS) a->dres.buffer = f->wo; break;
    CASE(62, "mean.buffer CL_MEM_WRITE_ONLY", CLNORM_BUFFER_ACCESS) a->mean.buffer = f->wo; break;
    CASE(63, "wait list with an event of another cl_context", CL_INVALID_CONTEXT)
        a->nwait = 1;
        a->wait = &f->other_done;
        break;
    CASE(64, "dx at dresidual's buffer, offset and stride as F16 over BF16 dresidual", CLNORM_OVERLAP)
        a->dres = mat(sh, 0, 0);
        a->dres.dtype = CLNORM_BF16;
        a->dx = mat(sh, 0, 0);
        a->dx.dtype = CLNORM_F16;
        break;
    CASE(65, "rows 0 without dweight/dbias, dx.buffer CL_MEM_READ_ONLY", CLNORM_BUFFER_ACCESS)
        a->rows = 0;
        a->has_dw = a->has_db = 0;
        a->dx.buffer = f->ro;
        break;
    CASE(66, "rows 0 without dweight/dbias, wait list with an event of another cl_context", CL_INVALID_CONTEXT)
        e.msg = "belongs to another cl_context";
        a->rows = 0;
        a->has_dw = a->has_db = 0;
        a->nwait = 1;
        a->wait = &f->other_done;
        break;
    CASE(67, "wait list {a complete event, NULL}", CL_INVALID_EVENT_WAIT_LIST)
        e.msg = "event_wait_list[1] is NULL";
        a->nwait = 2;
        a->wait = f->done_null;
        break;
    CASE(68, "dy.offset 1 with an extent of SIZE_MAX (offset + extent wraps to 0)", CLNORM_OUT_OF_BOUNDS)
        a->rows = 2;
        a->dy = mat(f->mem[B_DY], 1, SIZE_MAX - C);
        break;
    CASE(69, "dy.buffer a 2D image", CLNORM_INVALID_BUFFER)
        e.skip = f->image == NULL;
        a->dy.buffer = f->image;
        break;
    /* rows x cols elements of 4 bytes beyond size_t: INVALID_SHAPE, before any view is looked at */
    CASE(70, "rows and cols SIZE_MAX", CLNORM_INVALID_SHAPE) a->rows = SIZE_MAX; a->cols = SIZE_MAX; break;
    CASE(71, "rows 3, cols SIZE_MAX/8 (3 x cols x 4 bytes wraps)", CLNORM_INVALID_SHAPE) a->rows = 3; a->cols = SIZE_MAX / 8; break;
    END_CASES(BWD_ERROR_CASES)
}

static void run_error_case(int i, int backward)
{
    efx f;
    args a;
    char what[200];
    efx_setup(&f, 0xe7707u + (uint64_t)i + (backward ? 1000u : 0u));
    base_args(&a, &f);
    expect e = backward ? backward_error_case(i, &a, &f) : forward_error_case(i, &a, &f);
    snprintf(what, sizeof what, "%s error case %d (%s)", backward ? "backward" : "forward", i, e.what);
    if (e.skip) {
        fprintf(stderr, "%s: skipped, the device has no image support\n", what);
        efx_teardown(&f);
        return;
    }
    cl_event ev = NULL;
    clnorm_status st = backward ? call_backward(&a, &ev) : call_forward(&a, &ev);
    if (st == CLNORM_SUCCESS && ev)
        clWaitForEvents(1, &ev), clReleaseEvent(ev);
    ck_assert_msg(st == e.status, "%s: status %d (%s), expected %d (%s): %s", what, st, clnorm_status_string(st),
                  e.status, clnorm_status_string(e.status), clnorm_context_last_error(a.ctx));
    const char *msg = clnorm_context_last_error(a.ctx);
    ck_assert_msg(msg != NULL && msg[0] != '\0', "%s: empty clnorm_context_last_error", what);
    ck_assert_msg(!e.msg || strstr(msg, e.msg), "%s: message \"%s\" does not say \"%s\"", what, msg, e.msg);
    efx_expect_untouched(&f, what);
    efx_teardown(&f);
}

START_TEST(forward_error) { run_error_case(_i, 0); }
END_TEST
START_TEST(backward_error) { run_error_case(_i, 1); }
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Valid calls that look close to the errors above: all must succeed. */
#define FWD_VALID_CASES 14

static expect forward_valid_case(int i, args *a, efx *f)
{
    expect e = { NULL, CLNORM_SUCCESS, NULL, 0 };
    cl_mem sh = f->mem[B_SHARED];
    switch (i) {
    CASE(0, "exact-size buffers", CLNORM_SUCCESS) break;
    CASE(1, "eps 0", CLNORM_SUCCESS) a->eps = 0.0f; break;
    CASE(2, "x and y in the two halves of one buffer, adjacent", CLNORM_SUCCESS)
        a->x = mat(sh, 0, 0);
        a->y = mat(sh, RC, 0);
        break;
    CASE(3, "mean and rstd at different offsets of one buffer, adjacent", CLNORM_SUCCESS)
        a->mean = vec(sh, 0);
        a->rstd = vec(sh, R);
        break;
    CASE(4, "y exactly x (in place), explicit row_stride", CLNORM_SUCCESS)
        a->x = mat(sh, 3, C + 5);
        a->y = mat(sh, 3, C + 5);
        break;
    CASE(5, "f32 x then bf16 y adjacent in bytes", CLNORM_SUCCESS)
        a->x = mat(sh, 0, 0);
        a->y = mat(sh, 2 * RC, 0); /* bf16 element 2*RC is byte 4*RC: x's end */
        a->y.dtype = CLNORM_BF16;
        break;
    CASE(6, "rows interleaved: x rows and y rows alternate in one buffer; weight and bias the same view", CLNORM_SUCCESS)
        a->x = mat(sh, 0, 2 * C);
        a->y = mat(sh, C, 2 * C);
        a->w = vec(sh, 2 * R * C);
        a->b = vec(sh, 2 * R * C);
        a->mean = vec(sh, 2 * R * C + C);
        a->rstd = vec(sh, 2 * R * C + C + R);
        break;
    CASE(7, "rows 0, no weight, bias, mean, rstd", CLNORM_SUCCESS)
        a->rows = 0;
        a->has_w = a->has_b = a->has_mean = a->has_rstd = 0;
        break;
    CASE(8, "x in the parent buffer before a sub-buffer holding y", CLNORM_SUCCESS)
        a->x = mat(f->mem[B_PARENT], f->sub_origin / sizeof(float) - RC, 0); /* ends where the sub-buffer begins */
        a->y = mat(f->sub, 0, 0);
        break;
    CASE(9, "x, weight and bias in a CL_MEM_READ_ONLY buffer, y, mean and rstd in a CL_MEM_WRITE_ONLY one", CLNORM_SUCCESS)
        a->x = mat(f->ro, 0, 0);
        a->w = vec(f->ro, RC);
        a->b = vec(f->ro, RC + C);
        a->y = mat(f->wo, 0, 0);
        a->mean = vec(f->wo, RC);
        a->rstd = vec(f->wo, RC + R);
        break;
    CASE(10, "rows 0, x and y views at their buffers' very ends", CLNORM_SUCCESS)
        a->rows = 0;
        a->has_w = a->has_b = a->has_mean = a->has_rstd = 0;
        a->x.offset = RC;
        a->y.offset = RC;
        break;
    CASE(11, "rows 0, mean and rstd views at their buffers' very ends", CLNORM_SUCCESS)
        a->rows = 0;
        a->has_w = a->has_b = 0;
        a->mean.offset = R;
        a->rstd.offset = R;
        break;
    /* views of different pitches (the row-by-row overlap test): adjacent is not overlapping */
    CASE(12, "mean in x's row padding, ending where x's next row begins", CLNORM_SUCCESS)
        a->x = mat(sh, 0, 2 * C);
        a->mean = vec(sh, 2 * C - R);
        break;
    CASE(13, "y rows in x's row padding and where x's row R would be (one past its last)", CLNORM_SUCCESS)
        a->x = mat(sh, 0, 2 * C);
        a->y = mat(sh, C, 9 * C); /* rows at C, 10C (= x's R * 2C), 19C, ...: 16 + 4 * 144 + 16 <= SH */
        break;
    END_CASES(FWD_VALID_CASES)
}

#define BWD_VALID_CASES 7

static expect backward_valid_case(int i, args *a, efx *f)
{
    expect e = { NULL, CLNORM_SUCCESS, NULL, 0 };
    cl_mem sh = f->mem[B_SHARED];
    switch (i) {
    CASE(0, "exact-size buffers", CLNORM_SUCCESS) break;
    CASE(1, "dresidual exactly dx (in-place accumulation)", CLNORM_SUCCESS)
        a->dres = mat(sh, 5, C + 1);
        a->dx = mat(sh, 5, C + 1);
        break;
    CASE(2, "dy, x, dx in thirds of one buffer", CLNORM_SUCCESS)
        a->dy = mat(sh, 0, 0);
        a->x = mat(sh, RC, 0);
        a->dx = mat(sh, 2 * RC, 0);
        break;
    CASE(3, "dweight and dbias at different offsets of one buffer", CLNORM_SUCCESS)
        a->dw = vec(sh, 0);
        a->db = vec(sh, C);
        break;
    CASE(4, "mean, rstd, weight in one buffer (inputs), dweight after them", CLNORM_SUCCESS)
        a->mean = vec(sh, 0);
        a->rstd = vec(sh, R);
        a->w = vec(sh, 2 * R);
        a->dw = vec(sh, 2 * R + C);
        break;
    CASE(5, "rows 0", CLNORM_SUCCESS) a->rows = 0; break;
    CASE(6, "no weight, dresidual; dweight and dbias given", CLNORM_SUCCESS) a->has_w = a->has_dres = 0; break;
    END_CASES(BWD_VALID_CASES)
}

static void run_valid_case(int i, int backward)
{
    efx f;
    args a;
    char what[200];
    efx_setup(&f, 0x7a11du + (uint64_t)i);
    base_args(&a, &f);
    expect e = backward ? backward_valid_case(i, &a, &f) : forward_valid_case(i, &a, &f);
    snprintf(what, sizeof what, "%s valid case %d (%s)", backward ? "backward" : "forward", i, e.what);
    cl_event ev = NULL;
    clnorm_status st = backward ? call_backward(&a, &ev) : call_forward(&a, &ev);
    ck_assert_msg(st == CLNORM_SUCCESS, "%s: status %d (%s): %s", what, st, clnorm_status_string(st),
                  clnorm_context_last_error(a.ctx));
    ck_assert_msg(clnorm_context_last_error(a.ctx)[0] == '\0', "%s: last_error \"%s\" after success", what,
                  clnorm_context_last_error(a.ctx));
    ck_assert_msg(ev != NULL, "%s: no event", what);
    CL_OK(clWaitForEvents(1, &ev));
    CL_OK(clReleaseEvent(ev));
    efx_teardown(&f);
}

START_TEST(forward_valid) { run_valid_case(_i, 0); }
END_TEST
START_TEST(backward_valid) { run_valid_case(_i, 1); }
END_TEST

static Suite *errors_suite(void)
{
    Suite *s = suite_create("errors");
    TCase *tc = tcase_create("invalid");
    tcase_add_loop_test(tc, forward_error, 0, FWD_ERROR_CASES);
    tcase_add_loop_test(tc, backward_error, 0, BWD_ERROR_CASES);
    suite_add_tcase(s, tc);
    tc = tcase_create("valid");
    tcase_add_loop_test(tc, forward_valid, 0, FWD_VALID_CASES);
    tcase_add_loop_test(tc, backward_valid, 0, BWD_VALID_CASES);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int rc = test_run_suite(errors_suite());
    if (g_other)
        clReleaseContext(g_other);
    return rc;
}
