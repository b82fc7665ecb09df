#define _GNU_SOURCE /* strcasestr */
#include "harness.h"

#include "dtype.h"
#include "tolerance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPORTED 8 /* mismatches printed per view or buffer */

static clnorm_context *g_ctx;

clnorm_context *test_context(void)
{
    if (!g_ctx) {
        clnorm_status st = clnorm_context_create(NULL, &g_ctx);
        if (st != CLNORM_SUCCESS)
            g_ctx = NULL;
        ck_assert_msg(st == CLNORM_SUCCESS,
                      "no usable OpenCL device (CLNORM_DEVICE=%s): clnorm_context_create -> %d (%s): %s",
                      getenv("CLNORM_DEVICE") ? getenv("CLNORM_DEVICE") : "(unset)", st,
                      clnorm_status_string(st), clnorm_context_last_error(NULL));
        fprintf(stderr, "clnorm tests: device \"%s\"\n", clnorm_context_device_name(g_ctx));
    }
    return g_ctx;
}

unsigned test_device_is_cpu(void)
{
    cl_device_type type = 0;
    ck_assert_int_eq(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_TYPE, sizeof type, &type, NULL),
                     CL_SUCCESS);
    return (type & CL_DEVICE_TYPE_CPU) != 0;
}

unsigned test_pocl_platform(void)
{
    cl_platform_id plat = NULL;
    char pname[256] = "";
    ck_assert_int_eq(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL), CL_SUCCESS);
    return strstr(pname, "Portable Computing Language") != NULL;
}

unsigned test_pocl_x86_avx512_bf16(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    char name[256] = "";
    ck_assert_int_eq(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_NAME, sizeof name - 1, name, NULL),
                     CL_SUCCESS);
    __builtin_cpu_init();
    return test_device_is_cpu() && test_pocl_platform() &&
           (!strncmp(name, "pthread-", 8) || !strncmp(name, "cpu-", 4)) && strstr(name, "avx512") &&
           __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}

/* the test device's compute units (persistent grids are counted in groups per unit) */
static size_t compute_units(void)
{
    cl_uint cus = 0;
    ck_assert_int_eq(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus,
                                     &cus, NULL), CL_SUCCESS);
    ck_assert_uint_gt(cus, 0);
    return cus;
}

/* CLNORM_TEST_EXPECT_PLAN, set by a CTest variant next to its CLNORM_TUNE:
 * "op,dtype,cols,field=value,...|..." (op fwd, bwd, bwd_res, dx or dx_res; dtype f32, bf16 or
 * f16; fields pipelined, raw_cache, register_cache, reread_batch, rows_per_item,
 * local_accumulators, local_row, reread_vectors, items_per_row, register_accumulators, column_sweep_on (column_sweep > 0), one_read_stats, l2_prefetch, unaligned, row_phase, vector_width, residual_early, row_sum_butterfly, local_weight, l2_prefetch_current, groups_per_cu: work_groups / the
 * device's compute units; a plan written "cpu:op,..." is checked on CPU devices only, for CPU-device modes), launch plans
 * (4096 rows, dense) that the variant's parameters must give on the shared context. A variant
 * whose parameters stop producing the layout it exists for then fails instead of silently
 * repeating another suite. */
START_TEST(plan_matches_variant)
{
    const char *env = getenv("CLNORM_TEST_EXPECT_PLAN");
    ck_assert_msg(env && *env, "CLNORM_TEST_EXPECT_PLAN is empty");
    char *spec = xmalloc(strlen(env) + 1), *save = NULL;
    strcpy(spec, env);
    int plans = 0; /* checked on this device */
    const unsigned cpu = test_device_is_cpu();
    for (char *p = strtok_r(spec, "|", &save); p; p = strtok_r(NULL, "|", &save)) {
        if (!strncmp(p, "cpu:", 4)) {
            p += 4;
            if (!cpu)
                continue;
        }
        ++plans;
        char op[16], dt[8];
        size_t cols = 0;
        int n = 0;
        ck_assert_msg(sscanf(p, "%15[a-z_],%7[a-z0-9],%zu%n", op, dt, &cols, &n) == 3, "malformed plan \"%s\"", p);
        static const char *const ops[] = {"fwd", "bwd", "bwd_res", "dx", "dx_res"};
        static const int codes[] = {0, 1, 1 | CLNORM_PLAN_BACKWARD_RES, CLNORM_PLAN_BACKWARD_DX,
                                    CLNORM_PLAN_BACKWARD_DX | CLNORM_PLAN_BACKWARD_RES};
        int code = -1;
        for (int i = 0; i < 5; ++i)
            if (!strcmp(op, ops[i]))
                code = codes[i];
        const clnorm_dtype dtype = !strcmp(dt, "f32") ? CLNORM_F32 : !strcmp(dt, "bf16") ? CLNORM_BF16
                                   : !strcmp(dt, "f16")  ? CLNORM_F16 : (clnorm_dtype)-1;
        ck_assert_msg(code >= 0 && (int)dtype >= 0, "unknown op or dtype in \"%s\"", p);
        clnorm_launch_info L;
        CLNORM_OK(test_context(), clnorm_launch_plan(test_context(), code, 4096, cols, dtype, &L));
        const char *f = p + n;
        int fields = 0;
        while (*f == ',') {
            char name[32];
            unsigned want = 0;
            int m = 0;
            ck_assert_msg(sscanf(f, ",%31[a-z0-9_]=%u%n", name, &want, &m) == 2, "malformed field in \"%s\"", p);
            const unsigned got = !strcmp(name, "pipelined") ? L.pipelined : !strcmp(name, "raw_cache") ? L.raw_cache
                                 : !strcmp(name, "register_cache") ? L.register_cache
                                 : !strcmp(name, "reread_batch")   ? L.reread_batch
                                 : !strcmp(name, "rows_per_item")  ? L.rows_per_item
                                 : !strcmp(name, "local_accumulators") ? L.local_accumulators
                                 : !strcmp(name, "local_row")          ? L.local_row
                                 : !strcmp(name, "reread_vectors")     ? L.reread_vectors
                                 : !strcmp(name, "items_per_row")      ? L.items_per_row
                                 : !strcmp(name, "register_accumulators") ? L.register_accumulators
                                 : !strcmp(name, "column_sweep_on")    ? (L.column_sweep > 0)
                                 : !strcmp(name, "one_read_stats")     ? L.one_read_stats
                                 : !strcmp(name, "l2_prefetch")        ? L.l2_prefetch
                                 : !strcmp(name, "unaligned")          ? L.unaligned
                                 : !strcmp(name, "row_phase")          ? L.row_phase
                                 : !strcmp(name, "vector_width")       ? L.vector_width
                                 : !strcmp(name, "residual_early")     ? L.residual_early
                                 : !strcmp(name, "row_sum_butterfly")  ? L.row_sum_butterfly
                                 : !strcmp(name, "local_weight")       ? L.local_weight
                                 : !strcmp(name, "l2_prefetch_current") ? L.l2_prefetch_current
                                 : !strcmp(name, "groups_per_cu")      ? (unsigned)(L.work_groups / compute_units())
                                                                       : ~0u;
            ck_assert_msg(got != ~0u, "unknown field \"%s\" in \"%s\"", name, p);
            ck_assert_msg(got == want, "plan %s: %s is %u, the variant expects %u", p, name, got, want);
            f += m;
            ++fields;
        }
        ck_assert_msg(*f == 0 && fields > 0, "plan \"%s\": expected ,field=value after the shape", p);
    }
    free(spec);
    /* (a variant whose plans are all "cpu:" would check nothing on a GPU: each needs one plan for every device) */
    ck_assert_msg(plans > 0, "CLNORM_TEST_EXPECT_PLAN holds no plan this device checks");
}
END_TEST

/* CLNORM_TEST_REQUIRE_VENDOR, set by a CTest variant for one vendor's kernel paths (NVIDIA's
 * inline PTX): on a device of another vendor the suite is skipped (exit 77, the variant's
 * SKIP_RETURN_CODE), not run again under parameters that change nothing there */
static int vendor_mismatch(void)
{
    const char *want = getenv("CLNORM_TEST_REQUIRE_VENDOR");
    clnorm_context *ctx = NULL;
    if (!want || !*want || clnorm_context_create(NULL, &ctx) != CLNORM_SUCCESS)
        return 0; /* (no device: the suite fails as it would otherwise) */
    char vendor[256] = "";
    if (clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL) != CL_SUCCESS)
        vendor[0] = 0;
    clnorm_context_release(ctx);
    if (strcasestr(vendor, want))
        return 0;
    fprintf(stderr, "clnorm tests: skipped: the device's vendor is \"%s\", not %s (CLNORM_TEST_REQUIRE_VENDOR)\n",
            vendor, want);
    return 1;
}

int test_run_suite(Suite *suite)
{
    if (vendor_mismatch()) {
        srunner_free(srunner_create(suite)); /* frees the suite */
        return 77;
    }
    if (getenv("CLNORM_TEST_EXPECT_PLAN")) {
        TCase *tc = tcase_create("variant");
        tcase_add_test(tc, plan_matches_variant);
        suite_add_tcase(suite, tc);
    }
    SRunner *sr = srunner_create(suite);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    /* Let the device go idle before the process ends: PoCL 3.1 can crash at exit with commands in
     * flight, and LeakSanitizer's exit-time thread stop is fragile while PoCL's workers are busy. */
    if (g_ctx)
        clFinish(clnorm_context_queue(g_ctx));
    clnorm_context_release(g_ctx);
    g_ctx = NULL;
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    ck_assert_msg(p != NULL, "out of host memory (%zu bytes)", n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    ck_assert_msg(p != NULL, "out of host memory (%zu x %zu bytes)", n, size);
    return p;
}

char *save_env(const char *name)
{
    const char *v = getenv(name);
    if (!v)
        return NULL;
    char *copy = xmalloc(strlen(v) + 1);
    return strcpy(copy, v);
}

void restore_env(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

static cl_uint refs_now(cl_command_queue q, cl_context c)
{
    cl_uint n = 0;
    if (q)
        CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL));
    else
        CL_OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL));
    return n;
}

static cl_uint settled_refs(cl_command_queue q, cl_context c, cl_uint want)
{
    cl_uint n = refs_now(q, c);
    for (int i = 0; i < 100 && n > want; i++) {
        const struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        n = refs_now(q, c);
    }
    return n;
}

cl_uint queue_refs_now(cl_command_queue q) { return refs_now(q, NULL); }
cl_uint context_refs_now(cl_context c) { return refs_now(NULL, c); }
cl_uint settled_queue_refs(cl_command_queue q, cl_uint want) { return settled_refs(q, NULL, want); }
cl_uint settled_context_refs(cl_context c, cl_uint want) { return settled_refs(NULL, c, want); }

void tbuf_init(tbuf *b, const char *name)
{
    memset(b, 0, sizeof *b);
    b->name = name;
}

static size_t round_up(size_t v, size_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

size_t tview_elem(const tview *v, size_t r, size_t c)
{
    return v->offset + r * (v->stride ? v->stride : v->cols) + c;
}

size_t tview_end(const tview *v)
{
    return v->rows ? tview_elem(v, v->rows - 1, v->cols) : v->offset;
}

void tview_place(tview *v, tbuf *b, const char *name, clnorm_dtype dt, size_t rows, size_t cols, placement pl)
{
    size_t esize = dtype_size(dt);
    size_t first_free = (b->planned + esize - 1) / esize;
    v->buf = b;
    v->vector = 0;
    v->name = name;
    v->dtype = dt;
    v->rows = rows;
    v->cols = cols;
    v->offset = round_up(first_free + pl.gap, pl.align);
    v->stride = pl.pad ? round_up(cols + pl.pad, pl.align) : pl.explicit_stride ? cols : 0;
    b->planned = tview_end(v) * esize;
}

void tview_place_vector(tview *v, tbuf *b, const char *name, clnorm_dtype dt, size_t n, placement pl)
{
    pl.pad = 0;
    pl.explicit_stride = 0;
    tview_place(v, b, name, dt, 1, n, pl);
    v->vector = 1;
}

void tbuf_alloc(tbuf *b, cl_context clctx, size_t tail_bytes, rng *r)
{
    cl_int err;
    b->nbytes = b->planned + tail_bytes;
    b->init = xmalloc(b->nbytes);
    b->got = xmalloc(b->nbytes);
    b->checked = xcalloc(b->nbytes, 1);
    for (size_t i = 0; i < b->nbytes; i++)
        b->init[i] = (unsigned char)(rng_next(r) >> 56);
    const char *skew_env = getenv("CLNORM_TEST_HOST_PTR_SKEW");
    if (skew_env && *skew_env) {
        const size_t skew = strtoul(skew_env, NULL, 10) * (1 + rng_next(r) % 3);
        ck_assert_msg(skew % 4 == 0 && skew < 4096, "CLNORM_TEST_HOST_PTR_SKEW=%s: expected a multiple of 4 under 1366", skew_env);
        b->host = aligned_alloc(4096, (b->nbytes + skew + 4095) / 4096 * 4096);
        ck_assert_msg(b->host != NULL, "out of host memory");
        b->mem = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, b->nbytes, (char *)b->host + skew, &err);
    } else {
        b->mem = clCreateBuffer(clctx, CL_MEM_READ_WRITE, b->nbytes, NULL, &err);
    }
    ck_assert_msg(err == CL_SUCCESS, "clCreateBuffer(%zu bytes) for %s failed: %d", b->nbytes, b->name, err);
}

void tbuf_free(tbuf *b)
{
    if (b->mem)
        clReleaseMemObject(b->mem);
    free(b->host);
    free(b->init);
    free(b->got);
    free(b->checked);
    tbuf_init(b, b->name);
}

void tbuf_upload(tbuf *b, cl_command_queue q)
{
    CL_OK(clEnqueueWriteBuffer(q, b->mem, CL_TRUE, 0, b->nbytes, b->init, 0, NULL, NULL));
}

void tbuf_download(tbuf *b, cl_command_queue q)
{
    CL_OK(clEnqueueReadBuffer(q, b->mem, CL_TRUE, 0, b->nbytes, b->got, 0, NULL, NULL));
    memset(b->checked, 0, b->nbytes);
}

void tbuf_adopt(tbuf *b)
{
    memcpy(b->init, b->got, b->nbytes);
}

clnorm_matrix tview_matrix(const tview *v)
{
    clnorm_matrix m = { v->buf ? v->buf->mem : NULL, v->offset, v->stride, v->dtype };
    return m;
}

clnorm_vector tview_vector(const tview *v)
{
    clnorm_vector m = { v->buf ? v->buf->mem : NULL, v->offset, v->dtype };
    return m;
}

void tview_store(const tview *v, double *vals)
{
    for (size_t r = 0; r < v->rows; r++)
        for (size_t c = 0; c < v->cols; c++)
            vals[r * v->cols + c] = dtype_store(v->dtype, v->buf->init, tview_elem(v, r, c), vals[r * v->cols + c]);
}

void tview_poison(const tview *v)
{
    size_t es = dtype_size(v->dtype);
    for (size_t r = 0; r < v->rows; r++)
        memset(v->buf->init + tview_elem(v, r, 0) * es, 0xff, v->cols * es);
}

void tview_read(const tview *v, double *out)
{
    for (size_t r = 0; r < v->rows; r++)
        for (size_t c = 0; c < v->cols; c++)
            out[r * v->cols + c] = dtype_load(v->dtype, v->buf->got, tview_elem(v, r, c));
}

size_t tview_check(const tview *v, const double *ref, const double *tol, const char *what)
{
    size_t es = dtype_size(v->dtype), bad = 0;
    for (size_t r = 0; r < v->rows; r++)
        for (size_t c = 0; c < v->cols; c++) {
            size_t e = tview_elem(v, r, c), i = r * v->cols + c;
            double got = dtype_load(v->dtype, v->buf->got, e);
            memset(v->buf->checked + e * es, 1, es);
            if (tol_within(v->dtype, got, ref[i], tol[i]))
                continue;
            if (bad++ >= MAX_REPORTED)
                continue;
            char where[64];
            if (v->vector)
                snprintf(where, sizeof where, "[%zu]", c);
            else
                snprintf(where, sizeof where, "[row %zu, col %zu]", r, c);
            fprintf(stderr, "%s: %s%s (%s, buffer element %zu): got %.9g, expected %.9g, |err| %.3g, "
                    "tol %.3g (fp32 part) + %.3g (half ulp)\n",
                    what, v->name, where, dtype_name(v->dtype), e, got, ref[i], fabs(got - ref[i]),
                    tol[i], 0.5 * dtype_ulp(v->dtype, fmax(fabs(got), fabs(ref[i]))));
        }
    if (bad > MAX_REPORTED)
        fprintf(stderr, "%s: %s: %zu mismatches in all\n", what, v->name, bad);
    return bad;
}

size_t tbuf_check_rest(const tbuf *b, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < b->nbytes; i++) {
        if (b->checked[i] || b->got[i] == b->init[i])
            continue;
        if (bad++ < MAX_REPORTED)
            fprintf(stderr, "%s: buffer %s byte %zu (outside the output views) changed: 0x%02x, expected 0x%02x\n",
                    what, b->name, i, b->got[i], b->init[i]);
    }
    if (bad > MAX_REPORTED)
        fprintf(stderr, "%s: buffer %s: %zu changed bytes in all\n", what, b->name, bad);
    return bad;
}
