/* Fuzz target: clnorm_layer_norm_forward/backward with arbitrary shapes, offsets, strides, dtypes,
 * NULLs, aliasing and eps over two small real buffers and a sub-buffer, on whatever device
 * CLNORM_DEVICE names (PoCL in CI). Every call must either succeed and match the float64
 * reference — every output element within the suite's tolerance, every other byte untouched —
 * or fail with a status and a message and leave every byte of every buffer untouched.
 * Built as a libFuzzer target with clang (-DCLNORM_FUZZ=ON); with any compiler as
 * fuzz_layer_norm_replay, which runs the files given on the command line (the corpus in
 * tests/fuzz/corpus: each crash the fuzzer finds is added there and so becomes a regression
 * test of the normal suite). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clnorm.h>

#include "dtype.h"
#include "reference.h"
#include "tolerance.h"

#define BUF_BYTES 16384
#define SUB_BYTES 8192

static clnorm_context *ctx;
static cl_command_queue queue;
static cl_mem buf[2], sub; /* sub: a sub-buffer of buf[0] at origin sub_origin */
static size_t sub_origin;
static unsigned char before[2][BUF_BYTES], after[2][BUF_BYTES], written[2][BUF_BYTES];

#define REQUIRE(cond, ...)                                                                               \
    do {                                                                                                 \
        if (!(cond)) {                                                                                   \
            fprintf(stderr, "fuzz_layer_norm: " __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                                         \
            abort();                                                                                     \
        }                                                                                                \
    } while (0)

static void setup(void)
{
    if (ctx)
        return;
    clnorm_status st = clnorm_context_create(NULL, &ctx);
    REQUIRE(st == CLNORM_SUCCESS, "no device: %s", clnorm_context_last_error(NULL));
    queue = clnorm_context_queue(ctx);
    cl_uint align_bits = 0;
    clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    sub_origin = align_bits / 8 > 0 ? align_bits / 8 : 128;
    REQUIRE(sub_origin + SUB_BYTES <= BUF_BYTES, "base alignment %zu too large", sub_origin);
    cl_int err;
    for (int i = 0; i < 2; ++i) {
        buf[i] = clCreateBuffer(clnorm_context_cl_context(ctx), CL_MEM_READ_WRITE, BUF_BYTES, NULL, &err);
        REQUIRE(err == CL_SUCCESS, "clCreateBuffer %d", err);
    }
    cl_buffer_region region = {sub_origin, SUB_BYTES};
    sub = clCreateSubBuffer(buf[0], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateSubBuffer %d", err);
}

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned u8(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

/* A tensor view as the fuzzer built it. */
typedef struct view {
    int present;  /* the pointer given (else NULL) */
    int which;    /* 0: buf[0], 1: buf[1], 2: sub, 3: NULL cl_mem */
    clnorm_dtype dtype;
    size_t offset, stride, len; /* len: vectors' length */
} view;

static cl_mem mem_of(const view *v) { return v->which == 3 ? NULL : v->which == 2 ? sub : buf[v->which]; }
static int host_of(const view *v) { return v->which == 1 ? 1 : 0; }
static size_t base_of(const view *v) { return v->which == 2 ? sub_origin : 0; }

static void read_view(reader *r, view *v, size_t cols, int stats)
{
    const unsigned f = u8(r);
    v->present = (f & 0x80) == 0 || (f & 0x40) != 0; /* mostly present */
    v->which = (f & 3) == 3 && (f & 4) ? 3 : (f & 3) % 3;
    const unsigned d = u8(r);
    v->dtype = stats ? (d % 16 < 14 ? CLNORM_F32 : (clnorm_dtype)(d % 4)) : (clnorm_dtype)(d % 16 < 15 ? d % 3 : 3 + d % 5);
    v->offset = u8(r) % 200;
    if ((f & 0x30) == 0x30)
        v->offset = (size_t)u8(r) << 6; /* sometimes far: out of bounds */
    const unsigned s = u8(r);
    v->stride = s % 4 == 0 ? 0 : cols + (s / 4) % 6 - 1; /* cols - 1 is invalid when cols > 0 */
}

/* Host copy of a whole view (rows x cols or a vector) from `before`, as doubles. */
static void decode(const view *v, size_t rows, size_t cols, double *out)
{
    const size_t ld = v->stride ? v->stride : cols, es = dtype_size(v->dtype);
    const unsigned char *h = before[host_of(v)] + base_of(v);
    for (size_t i = 0; i < rows; ++i)
        for (size_t c = 0; c < cols; ++c)
            out[i * cols + c] = dtype_load(v->dtype, h + (v->offset + i * ld) * es, c);
}

/* Checks an output view against ref/tol and marks its bytes as written. */
static void check_out(const char *name, const view *v, size_t rows, size_t cols, const double *ref, const double *tol)
{
    const size_t ld = v->stride ? v->stride : cols, es = dtype_size(v->dtype);
    const int hb = host_of(v);
    const size_t base = base_of(v);
    for (size_t i = 0; i < rows; ++i)
        for (size_t c = 0; c < cols; ++c) {
            const size_t row = base + (v->offset + i * ld) * es, byte = row + c * es;
            const double got = dtype_load(v->dtype, after[hb] + row, c);
            const double want = ref[i * cols + c];
            if (isnan(want) || isinf(want)) { /* eps = 0 on a constant row gives rstd = Inf, y = NaN */
                REQUIRE(isnan(want) ? isnan(got) : got == want, "%s[%zu, %zu] = %.9g, expected %.9g", name, i, c, got,
                        want);
                memset(written[hb] + byte, 1, es);
                continue;
            }
            REQUIRE(tol_within(v->dtype, got, want, tol[i * cols + c]),
                    "%s[%zu, %zu] = %.9g, expected %.9g (tol %.3g)", name, i, c, got, ref[i * cols + c], tol[i * cols + c]);
            memset(written[hb] + byte, 1, es);
        }
}

static clnorm_matrix as_matrix(const view *v) { return (clnorm_matrix){mem_of(v), v->offset, v->stride, v->dtype}; }
static clnorm_vector as_vector(const view *v) { return (clnorm_vector){mem_of(v), v->offset, v->dtype}; }

/* Fills both buffers with 16-bit words that are finite and moderate as bf16, f16 and (in pairs)
 * f32: sign random, f16 exponent field 01111 (|v| in [1, 2)), so the bf16 exponent is 120..127. */
static void fill(unsigned seed)
{
    uint32_t s = 0x9E3779B9u * (seed + 1);
    for (int b = 0; b < 2; ++b)
        for (size_t i = 0; i < BUF_BYTES; i += 2) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            const uint16_t w = (uint16_t)((s & 0x8000u) | (0xFu << 10) | (s & 0x3FFu));
            memcpy(before[b] + i, &w, 2);
        }
    for (int b = 0; b < 2; ++b)
        clEnqueueWriteBuffer(queue, buf[b], CL_TRUE, 0, BUF_BYTES, before[b], 0, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    reader r = {data, size};
    const int backward = u8(&r) & 1;
    const size_t rows = u8(&r) % 9, cols = u8(&r) % 72;
    const unsigned ek = u8(&r) % 10;
    const float eps = ek < 6 ? 1e-5f : ek == 6 ? 0.0f : ek == 7 ? -1.0f : ek == 8 ? (float)NAN : (float)INFINITY;
    const unsigned alias = u8(&r);
    fill(u8(&r));
    enum { NV = 9 };
    view v[NV]; /* forward: x w b y mean rstd; backward: dy x w mean rstd dres dx dw db */
    const int nview = backward ? 9 : 6;
    const int is_matrix_f[6] = {1, 0, 0, 1, 0, 0}, is_stats_f[6] = {0, 0, 0, 0, 1, 1};
    const int is_matrix_b[9] = {1, 1, 0, 0, 0, 1, 1, 0, 0}, is_stats_b[9] = {0, 0, 0, 1, 1, 0, 0, 0, 0};
    const int *is_matrix = backward ? is_matrix_b : is_matrix_f, *is_stats = backward ? is_stats_b : is_stats_f;
    for (int i = 0; i < nview; ++i)
        read_view(&r, &v[i], cols, is_stats[i]);
    if (alias & 1) { /* the allowed exact aliases: y == x, dx == dres */
        if (backward)
            v[6] = v[5];
        else
            v[3] = v[0];
    }
    clnorm_matrix m[NV];
    clnorm_vector vec[NV];
    for (int i = 0; i < nview; ++i) {
        m[i] = as_matrix(&v[i]);
        vec[i] = as_vector(&v[i]);
    }
#define MAT(i) (v[i].present ? &m[i] : NULL)
#define VEC(i) (v[i].present ? &vec[i] : NULL)
    cl_event ev = NULL;
    clnorm_status st = backward
        ? clnorm_layer_norm_backward(ctx, rows, cols, MAT(0), MAT(1), VEC(2), VEC(3), VEC(4), MAT(5), MAT(6), VEC(7),
                                     VEC(8), 0, NULL, &ev)
        : clnorm_layer_norm_forward(ctx, rows, cols, eps, MAT(0), VEC(1), VEC(2), MAT(3), VEC(4), VEC(5), 0, NULL, &ev);
    if (ev) {
        REQUIRE(st == CLNORM_SUCCESS, "an event came back from a failed call");
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
    }
    clFinish(queue);
    for (int b = 0; b < 2; ++b)
        clEnqueueReadBuffer(queue, buf[b], CL_TRUE, 0, BUF_BYTES, after[b], 0, NULL, NULL);
    memset(written, 0, sizeof written);

    if (st != CLNORM_SUCCESS) {
        REQUIRE(st < 0, "status %d", st);
        REQUIRE(clnorm_context_last_error(ctx)[0] != '\0', "status %s without a message", clnorm_status_string(st));
    } else {
        const size_t n = rows * cols;
        double *in[NV] = {0}, *ref = calloc(n + 1, sizeof *ref), *tol = calloc(n + 1, sizeof *tol);
        double *mean = calloc(rows + 1, sizeof *mean), *rstd = calloc(rows + 1, sizeof *rstd);
        double *tm = calloc(rows + 1, sizeof *tm), *tr = calloc(rows + 1, sizeof *tr);
        double *dw = calloc(cols + 1, sizeof *dw), *db = calloc(cols + 1, sizeof *db);
        double *tdw = calloc(cols + 1, sizeof *tdw), *tdb = calloc(cols + 1, sizeof *tdb);
        for (int i = 0; i < nview; ++i)
            if (v[i].present && !(backward ? (i >= 6) : (i >= 3))) { /* inputs */
                const size_t r2 = is_matrix[i] ? rows : 1, c2 = is_matrix[i] ? cols : is_stats[i] ? rows : cols;
                in[i] = calloc(r2 * c2 + 1, sizeof(double));
                decode(&v[i], r2, c2, in[i]);
            }
        if (!backward) {
            ref_forward(rows, cols, eps, in[0], in[1], in[2], ref, mean, rstd);
            tol_forward(rows, cols, in[0], in[1], in[2], mean, rstd, tol, tm, tr);
            check_out("y", &v[3], rows, cols, ref, tol);
            if (v[4].present)
                check_out("mean", &v[4], 1, rows, mean, tm);
            if (v[5].present)
                check_out("rstd", &v[5], 1, rows, rstd, tr);
        } else {
            ref_backward(rows, cols, in[0], in[1], in[2], in[3], in[4], in[5], ref, dw, db);
            tol_backward(rows, cols, in[0], in[1], in[2], in[3], in[4], in[5], tol, tdw, tdb);
            check_out("dx", &v[6], rows, cols, ref, tol);
            if (v[7].present)
                check_out("dweight", &v[7], 1, cols, dw, tdw);
            if (v[8].present)
                check_out("dbias", &v[8], 1, cols, db, tdb);
        }
        for (int i = 0; i < NV; ++i)
            free(in[i]);
        free(ref), free(tol), free(mean), free(rstd), free(tm), free(tr), free(dw), free(db), free(tdw), free(tdb);
    }
    for (int b = 0; b < 2; ++b)
        for (size_t i = 0; i < BUF_BYTES; ++i)
            REQUIRE(written[b][i] || after[b][i] == before[b][i], "buffer %d byte %zu changed outside the outputs (%s)",
                    b, i, clnorm_status_string(st));
    return 0;
}

#ifdef CLNORM_FUZZ_REPLAY
#include <dirent.h>

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f, "cannot open %s", path);
    static uint8_t data[4096];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    LLVMFuzzerTestOneInput(data, n);
    return 1;
}

/* Replays inputs: fuzz_layer_norm_replay FILE_OR_DIRECTORY... */
int main(int argc, char **argv)
{
    int ran = 0;
    for (int i = 1; i < argc; ++i) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            ran += replay_file(argv[i]);
            continue;
        }
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            ran += replay_file(path);
        }
        closedir(d);
    }
    REQUIRE(ran > 0, "no input files");
    printf("fuzz_layer_norm_replay: %d inputs replayed, all passed\n", ran);
    clnorm_context_release(ctx);
    return 0;
}
#endif
