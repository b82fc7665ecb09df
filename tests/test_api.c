/* The API around the operations: version, status strings, context creation and device
 * selection, last_error, and contexts made from a caller's queue (in-order and out-of-order). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "harness.h"
#include "problem.h"

START_TEST(version_matches_header)
{
    ck_assert_uint_eq(clnorm_version(), CLNORM_VERSION_NUMBER);
    ck_assert_uint_eq(CLNORM_VERSION_NUMBER, CLNORM_VERSION_MAJOR * 10000 + CLNORM_VERSION_MINOR * 100 + CLNORM_VERSION_PATCH);
}
END_TEST

static void expect_status_string(clnorm_status st, const char *must_contain)
{
    const char *s = clnorm_status_string(st);
    ck_assert_msg(s != NULL, "clnorm_status_string(%d) is NULL", st);
    ck_assert_msg(s[0] != '\0', "clnorm_status_string(%d) is empty", st);
    if (must_contain)
        ck_assert_msg(strstr(s, must_contain) != NULL, "clnorm_status_string(%d) = \"%s\" lacks \"%s\"", st, s, must_contain);
}

START_TEST(status_strings)
{
#define CHECK_OWN(name, value, message)                 \
    ck_assert_int_eq(name, value);                      \
    ck_assert_int_le(name, -10000);                     \
    expect_status_string(name, #name);
    CLNORM_STATUS_TABLE(CHECK_OWN)
#undef CHECK_OWN
    expect_status_string(CLNORM_SUCCESS, NULL);
    expect_status_string(CL_INVALID_VALUE, "CL_INVALID_VALUE");
    expect_status_string(CL_INVALID_EVENT_WAIT_LIST, "CL_INVALID_EVENT_WAIT_LIST");
    expect_status_string(CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES");
    expect_status_string(CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE");
    expect_status_string(CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE");
    expect_status_string(CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT");
    expect_status_string(CL_INVALID_DEVICE_PARTITION_COUNT, "CL_INVALID_DEVICE_PARTITION_COUNT");
    /* every OpenCL code from -1 to -72 (3.0's last) by its name, the 2.x / 3.0 ones too */
    expect_status_string(-69, "CL_INVALID_PIPE_SIZE");
    expect_status_string(-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    for (int code = -72; code <= -1; ++code)
        if (code <= -30 || code >= -19) /* (-20 .. -29 are not assigned) */
            ck_assert_msg(strncmp(clnorm_status_string(code), "CL_", 3) == 0, "OpenCL code %d: \"%s\"", code,
                          clnorm_status_string(code));
    expect_status_string(CLNORM_INVALID_SHAPE, "rows x cols");
    /* success by its own name; the 2.x / 3.0 and KHR codes each by exactly their own name */
    expect_status_string(CLNORM_SUCCESS, "CLNORM_SUCCESS");
    ck_assert_str_eq(clnorm_status_string(-69), "CL_INVALID_PIPE_SIZE");
    ck_assert_str_eq(clnorm_status_string(-70), "CL_INVALID_DEVICE_QUEUE");
    ck_assert_str_eq(clnorm_status_string(-71), "CL_INVALID_SPEC_ID");
    ck_assert_str_eq(clnorm_status_string(-72), "CL_MAX_SIZE_RESTRICTION_EXCEEDED");
    ck_assert_str_eq(clnorm_status_string(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    /* (other extensions' codes too: GL sharing's -1000, D3D10's -1002, as the header says) */
    static const clnorm_status unknown[] = { 1, 12345, -1000, -1002, -9999, -10000, -10999, -20000, INT_MIN, INT_MAX };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        expect_status_string(unknown[i], "unknown");
}
END_TEST

START_TEST(release_null_is_noop)
{
    clnorm_context_release(NULL);
}
END_TEST

START_TEST(create_null_output_pointer)
{
    clnorm_status st = clnorm_context_create(NULL, NULL);
    ck_assert_msg(st == CLNORM_NULL_ARGUMENT, "clnorm_context_create(NULL, NULL) = %d (%s)", st, clnorm_status_string(st));
    ck_assert_msg(clnorm_context_last_error(NULL)[0] != '\0', "no message for clnorm_context_create(NULL, NULL)");
}
END_TEST

START_TEST(accessors)
{
    /* a NULL context: NULL handles, and "" (not NULL) for the name (clnorm.h) */
    ck_assert_ptr_null(clnorm_context_queue(NULL));
    ck_assert_ptr_null(clnorm_context_cl_context(NULL));
    ck_assert_ptr_null(clnorm_context_device(NULL));
    ck_assert_ptr_nonnull(clnorm_context_device_name(NULL));
    ck_assert_str_eq(clnorm_context_device_name(NULL), "");
    clnorm_context *ctx = test_context();
    cl_command_queue q = clnorm_context_queue(ctx);
    cl_context c = clnorm_context_cl_context(ctx);
    cl_device_id d = clnorm_context_device(ctx);
    const char *name = clnorm_context_device_name(ctx);
    ck_assert(q != NULL && c != NULL && d != NULL);
    ck_assert_msg(name != NULL && name[0] != '\0', "empty device name");
    cl_context qc = NULL;
    cl_device_id qd = NULL;
    cl_command_queue_properties props = 0;
    CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL));
    CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL));
    CL_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
    ck_assert(qc == c && qd == d);
    ck_assert_msg(!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), "the context's own queue must be in-order");
    ck_assert_msg(props & CL_QUEUE_PROFILING_ENABLE, "the context's own queue must have profiling enabled");
}
END_TEST

/* last_error: non-empty after a failed call, "" after a successful one. */
START_TEST(last_error_follows_calls)
{
    clnorm_context *ctx = test_context();
    case_cfg c = { 0 };
    c.rows = 7;
    c.cols = 64;
    c.act = c.par = CLNORM_F32;
    c.affine = AFF_WB;
    c.eps = 1e-5f;
    c.seed = 0xa1;
    problem *p = xmalloc(sizeof *p);
    fwd_setup(p, ctx, &c);
    clnorm_matrix x = tview_matrix(&p->x), y = tview_matrix(&p->y);
    clnorm_status st = clnorm_layer_norm_forward(ctx, 7, 0, 1e-5f, &x, NULL, NULL, &y, NULL, NULL, 0, NULL, NULL);
    ck_assert_int_eq(st, CLNORM_INVALID_SHAPE);
    ck_assert_msg(clnorm_context_last_error(ctx)[0] != '\0', "no message after a failed call");
    cl_event ev = NULL;
    CLNORM_OK(ctx, fwd_enqueue(p, ctx, 0, NULL, &ev));
    ck_assert_msg(strcmp(clnorm_context_last_error(ctx), "") == 0, "last_error after a successful call: \"%s\"",
                  clnorm_context_last_error(ctx));
    wait_and_release(ev);
    ck_assert_msg(problem_check(p, ctx) == 0, "%s: mismatches (details above)", p->what);
    problem_free(p);
    free(p);
}
END_TEST

/* last_error is per context: a failure on one context is not another's, and a successful call on
 * another context does not clear it. */
START_TEST(last_error_is_per_context)
{
    clnorm_context *a = test_context(), *b = NULL;
    CLNORM_OK(NULL, clnorm_context_create(NULL, &b));
    clnorm_launch_info info;
    ck_assert_int_eq(clnorm_launch_plan(a, 0, 4, 0, CLNORM_F32, &info), CLNORM_INVALID_SHAPE);
    ck_assert_msg(clnorm_context_last_error(a)[0] != '\0', "no message on the failing context");
    ck_assert_msg(strcmp(clnorm_context_last_error(b), "") == 0, "another context's failure shows on b: \"%s\"",
                  clnorm_context_last_error(b));
    CLNORM_OK(b, clnorm_launch_plan(b, 0, 4, 64, CLNORM_F32, &info));
    ck_assert_msg(clnorm_context_last_error(a)[0] != '\0', "a successful call on b cleared a's message");
    CLNORM_OK(a, clnorm_launch_plan(a, 0, 4, 64, CLNORM_F32, &info));
    ck_assert_str_eq(clnorm_context_last_error(a), "");
    clnorm_context_release(b);
}
END_TEST

/* A successful clnorm_context_create clears the message of an earlier failure on no context. */
START_TEST(create_clears_earlier_error)
{
    cl_device_id d = NULL;
    ck_assert_int_eq(clnorm_select_device("no-such-device-xyz", NULL, &d), CLNORM_DEVICE_NOT_FOUND);
    ck_assert(clnorm_context_last_error(NULL)[0] != '\0');
    clnorm_context *ctx = NULL;
    CLNORM_OK(NULL, clnorm_context_create(NULL, &ctx));
    ck_assert_msg(strcmp(clnorm_context_last_error(NULL), "") == 0, "stale message after a successful create: %s",
                  clnorm_context_last_error(NULL));
    clnorm_context_release(ctx);
}
END_TEST

/* clnorm_context_create_from_queue's failures leave *ctx NULL (clnorm.h), a NULL queue included
 * (0.31.0 and earlier returned before clearing it): a NULL queue is CLNORM_NULL_ARGUMENT (not
 * OpenCL's CL_INVALID_COMMAND_QUEUE), and so is a NULL ctx; a malformed CLNORM_TUNE fails after
 * the queue was queried. */
START_TEST(create_from_queue_failures)
{
    clnorm_context *ctx = (clnorm_context *)&ctx; /* poisoned: must come back NULL */
    ck_assert_int_eq(clnorm_context_create_from_queue(NULL, &ctx), CLNORM_NULL_ARGUMENT);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(clnorm_context_last_error(NULL), "queue"));
    ck_assert_int_eq(clnorm_context_create_from_queue(clnorm_context_queue(test_context()), NULL), CLNORM_NULL_ARGUMENT);
    char *saved = save_env("CLNORM_TUNE");
    setenv("CLNORM_TUNE", "nonsense=1", 1);
    ctx = (clnorm_context *)&ctx;
    const clnorm_status st = clnorm_context_create_from_queue(clnorm_context_queue(test_context()), &ctx);
    restore_env("CLNORM_TUNE", saved);
    ck_assert_int_eq(st, CLNORM_INVALID_ENVIRONMENT);
    ck_assert_ptr_null(ctx);
}
END_TEST

/* clnorm_context_program_count's absolute value: 0 for NULL and for a new context, 1 after one
 * plain fp32 forward (one program), unchanged by a repeat. */
START_TEST(program_count_absolute)
{
    ck_assert_uint_eq(clnorm_context_program_count(NULL), 0);
    clnorm_context *ctx = NULL;
    CLNORM_OK(NULL, clnorm_context_create(NULL, &ctx));
    ck_assert_uint_eq(clnorm_context_program_count(ctx), 0);
    float x[4 * 64];
    for (int i = 0; i < 4 * 64; ++i)
        x[i] = (float)(i % 9) - 4.0f;
    cl_int err;
    cl_mem bx = clCreateBuffer(clnorm_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    CL_OK(err);
    cl_mem by = clCreateBuffer(clnorm_context_cl_context(ctx), CL_MEM_READ_WRITE, sizeof x, NULL, &err);
    CL_OK(err);
    const clnorm_matrix X = {bx, 0, 0, CLNORM_F32}, Y = {by, 0, 0, CLNORM_F32};
    for (int i = 0; i < 2; ++i) {
        CLNORM_OK(ctx, clnorm_layer_norm_forward(ctx, 4, 64, 1e-5f, &X, NULL, NULL, &Y, NULL, NULL, 0, NULL, NULL));
        ck_assert_uint_eq(clnorm_context_program_count(ctx), 1);
    }
    CL_OK(clFinish(clnorm_context_queue(ctx)));
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clnorm_context_release(ctx);
}
END_TEST

START_TEST(unknown_device_spec)
{
    clnorm_context *good = test_context();
    const char *name = clnorm_context_device_name(good);
    clnorm_context *ctx = NULL;
    clnorm_status st = clnorm_context_create("no-such-device-xyz", &ctx);
    ck_assert_msg(st == CLNORM_DEVICE_NOT_FOUND, "clnorm_context_create(\"no-such-device-xyz\") = %d (%s)", st,
                  clnorm_status_string(st));
    const char *msg = clnorm_context_last_error(NULL);
    ck_assert_msg(msg != NULL && msg[0] != '\0', "no message for an unknown device spec");
    ck_assert_msg(strstr(msg, name) != NULL, "the message does not list the device \"%s\": %s", name, msg);

    cl_platform_id plat = NULL;
    cl_device_id dev = NULL;
    st = clnorm_select_device("no-such-device-xyz", &plat, &dev);
    ck_assert_int_eq(st, CLNORM_DEVICE_NOT_FOUND);
    ck_assert(clnorm_context_last_error(NULL)[0] != '\0');
}
END_TEST

/* clnorm_select_device resolves NULL (CLNORM_DEVICE, then the default policy) to the device that
 * clnorm_context_create(NULL) used; either output pointer may be NULL. */
START_TEST(select_device_matches_context)
{
    clnorm_context *ctx = test_context();
    cl_platform_id plat = NULL, dplat = NULL;
    cl_device_id dev = NULL;
    CLNORM_OK(NULL, clnorm_select_device(NULL, &plat, &dev));
    ck_assert_msg(dev == clnorm_context_device(ctx), "clnorm_select_device(NULL) picked another device");
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof dplat, &dplat, NULL));
    ck_assert(plat == dplat);
    CLNORM_OK(NULL, clnorm_select_device(NULL, NULL, NULL));
    CLNORM_OK(NULL, clnorm_select_device("", &plat, NULL));
}
END_TEST

/* Spec forms: "<platform index>:<device index>", a case-insensitive platform name substring,
 * a device type, and indices that do not exist. */
START_TEST(select_device_specs)
{
    cl_platform_id plats[16], plat = NULL;
    cl_device_id devs[16], dev = NULL;
    cl_uint np = 0, nd = 0;
    CL_OK(clGetPlatformIDs(16, plats, &np));
    ck_assert(np > 0);
    CL_OK(clGetDeviceIDs(plats[0], CL_DEVICE_TYPE_ALL, 16, devs, &nd));
    CLNORM_OK(NULL, clnorm_select_device("0:0", &plat, &dev));
    ck_assert_msg(plat == plats[0] && dev == devs[0], "\"0:0\" is not device 0 of platform 0");

    ck_assert_int_eq(clnorm_select_device("0:999", &plat, &dev), CLNORM_DEVICE_NOT_FOUND);
    ck_assert(clnorm_context_last_error(NULL)[0] != '\0');

    /* the first word of the working device's platform name, upper-cased */
    cl_device_id mine = clnorm_context_device(test_context());
    cl_platform_id my_plat = NULL;
    char pname[256] = { 0 }, word[64] = { 0 };
    CL_OK(clGetDeviceInfo(mine, CL_DEVICE_PLATFORM, sizeof my_plat, &my_plat, NULL));
    CL_OK(clGetPlatformInfo(my_plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL));
    for (size_t i = 0; i < sizeof word - 1 && pname[i] && pname[i] != ' '; i++)
        word[i] = (char)(pname[i] >= 'a' && pname[i] <= 'z' ? pname[i] - 'a' + 'A' : pname[i]);
    ck_assert(word[0]);
    CLNORM_OK(NULL, clnorm_select_device(word, &plat, &dev));
    char got_name[256] = { 0 };
    CL_OK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof got_name - 1, got_name, NULL));
    ck_assert_msg(strncmp(got_name, pname, strlen(word)) == 0 || plat == my_plat,
                  "spec \"%s\" chose platform \"%s\"", word, got_name);

    cl_device_type type = 0, got_type = 0;
    CL_OK(clGetDeviceInfo(mine, CL_DEVICE_TYPE, sizeof type, &type, NULL));
    const char *spec = (type & CL_DEVICE_TYPE_GPU) ? "gpu" : (type & CL_DEVICE_TYPE_CPU) ? "cpu" : "accelerator";
    CLNORM_OK(NULL, clnorm_select_device(spec, NULL, &dev));
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof got_type, &got_type, NULL));
    ck_assert_msg(got_type & type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_ACCELERATOR),
                  "spec \"%s\" chose a device of type 0x%lx", spec, (unsigned long)got_type);
}
END_TEST

static case_cfg queue_case(uint64_t seed)
{
    case_cfg c = { 0 };
    c.rows = 33;
    c.cols = 1000;
    c.act = CLNORM_BF16;
    c.par = CLNORM_F32;
    c.affine = AFF_WB;
    c.layout = LAY_PAD_ODD;
    c.stats = STATS_BOTH;
    c.residual = RES_SEPARATE;
    c.stats_from_library = 1;
    c.eps = 1e-5f;
    c.seed = seed;
    return c;
}

/* The caller makes the cl_context and queue; the library uses them, retains the queue and
 * releases only what it retained: the queue still works after clnorm_context_release. */
static void from_queue(cl_command_queue_properties props)
{
    cl_int err;
    cl_device_id dev = clnorm_context_device(test_context());
    cl_context clctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_command_queue q = clCreateCommandQueue(clctx, dev, props, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
    const cl_uint refs = queue_refs_now(q), crefs = context_refs_now(clctx);

    clnorm_context *ctx = NULL;
    CLNORM_OK(NULL, clnorm_context_create_from_queue(q, &ctx));
    ck_assert(ctx != NULL);
    ck_assert(clnorm_context_queue(ctx) == q);
    ck_assert(clnorm_context_cl_context(ctx) == clctx);
    ck_assert(clnorm_context_device(ctx) == dev);
    ck_assert(clnorm_context_device_name(ctx) && clnorm_context_device_name(ctx)[0]);

    case_cfg c = queue_case(0xb0 + props);
    run_forward_case(ctx, &c);
    run_backward_case(ctx, &c); /* several commands chained by events, after the stats forward */
    clnorm_context_release(ctx);

    /* events retain their queue and programs their cl_context, references some implementations
     * (PoCL) drop a little after: settled_*_refs wait for them. A count that stays higher is a
     * reference the library kept; a lower one would have destroyed the queue. */
    CL_OK(clFinish(q));
    cl_uint now = settled_queue_refs(q, refs), cnow = settled_context_refs(clctx, crefs);
    ck_assert_msg(now == refs, "queue reference count %u after clnorm_context_release, was %u", now, refs);
    ck_assert_msg(cnow == crefs, "cl_context reference count %u after clnorm_context_release, was %u", cnow, crefs);
    /* the caller's queue is still alive and usable */
    unsigned char in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (unsigned char)i;
    cl_mem m = clCreateBuffer(clctx, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    CL_OK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    CL_OK(clFinish(q));
    ck_assert(memcmp(in, out, sizeof in) == 0);
    CL_OK(clReleaseMemObject(m));
    CL_OK(clReleaseCommandQueue(q));
    CL_OK(clReleaseContext(clctx));
}

START_TEST(create_from_in_order_queue)
{
    from_queue(0);
}
END_TEST

START_TEST(create_from_out_of_order_queue)
{
    cl_command_queue_properties supported = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL));
    if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        fprintf(stderr, "create_from_out_of_order_queue: the device has no out-of-order queues; using an in-order one\n");
        from_queue(CL_QUEUE_PROFILING_ENABLE);
        return;
    }
    from_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}
END_TEST

/* clnorm_launch_plan: consistent shapes for every op, dtype and a spread of cols, and its errors. */
START_TEST(launch_plans)
{
    clnorm_context *ctx = test_context();
    static const clnorm_dtype dtypes[] = {CLNORM_F32, CLNORM_BF16, CLNORM_F16};
    static const size_t cols_list[] = {1, 7, 64, 256, 1000, 4096, 16384, 20000, 65536};
    static const int ops[] = {0, 1, CLNORM_PLAN_BACKWARD_DX, 1 | CLNORM_PLAN_BACKWARD_RES,
                              CLNORM_PLAN_BACKWARD_DX | CLNORM_PLAN_BACKWARD_RES};
    for (size_t d = 0; d < 3; ++d)
        for (size_t c = 0; c < sizeof cols_list / sizeof cols_list[0]; ++c)
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
                for (size_t rows = 0; rows <= 4097; rows += 4097) {
                    const size_t cols = cols_list[c];
                    clnorm_launch_info L;
                    memset(&L, 0xA5, sizeof L);
                    clnorm_status st = clnorm_launch_plan(ctx, ops[o], rows, cols, dtypes[d], &L);
                    ck_assert_msg(st == CLNORM_SUCCESS, "plan op %d dtype %d cols %zu: %s", ops[o], (int)dtypes[d], cols,
                                  clnorm_context_last_error(ctx));
                    const unsigned v = L.vector_width;
                    ck_assert_msg(v >= 1 && v <= 16 && (v & (v - 1)) == 0 &&
                                      (cols % v == 0 || L.unaligned == 1 || L.row_phase >= 1),
                                  "vector width %u, cols %zu, unaligned %u, row phase %u", v, cols, L.unaligned,
                                  L.row_phase);
                    /* row phases: register caches only, holding a row's frame (cols + v - 1
                     * elements at most), in whole phase classes (a period dividing v) */
                    if (L.row_phase) {
                        ck_assert(L.unaligned == 0 && L.register_cache > 0 && L.one_read_stats == 0 &&
                                  L.column_sweep == 0 && v % L.row_phase == 0 && cols % v != 0);
                        ck_assert((size_t)L.register_cache * L.items_per_row * v >= cols + v - 1);
                        if (rows)
                            ck_assert(rows >= L.row_phase && L.work_groups % L.row_phase == 0);
                    }
                    /* unaligned vectors: the streaming one-item row only, where cols is no multiple
                     * of 16 bytes' elements */
                    ck_assert_uint_le(L.unaligned, 1);
                    if (L.unaligned)
                        ck_assert(v > 1 && L.items_per_row == 1 && L.register_cache == 0 && L.reread_vectors == 0 &&
                                  L.pipelined == 0 && L.column_sweep == 0 && L.one_read_stats == 0 &&
                                  cols % (16 / dtype_size(dtypes[d])) != 0);
                    ck_assert(L.items_per_row >= 1 && L.rows_per_group >= 1);
                    ck_assert_uint_eq(L.work_group_size, L.items_per_row * L.rows_per_group);
                    if (L.register_cache)
                        ck_assert_msg((size_t)L.register_cache * L.items_per_row * v >= cols,
                                      "register cache %u x %u items x %u < cols %zu", L.register_cache, L.items_per_row, v, cols);
                    if (L.register_accumulators)
                        ck_assert((size_t)L.register_accumulators * L.items_per_row * v >= cols);
                    ck_assert_msg(L.rows_per_item == 1 || L.rows_per_item == 2 || L.rows_per_item == 4, "rows per item %u",
                                  L.rows_per_item);
                    ck_assert(L.raw_cache <= 1 && L.pipelined <= 1 && L.residual_early <= 1);
                    if (!L.register_cache) /* both are register-cache layouts */
                        ck_assert(L.raw_cache == 0 && L.pipelined == 0 && L.residual_early == 0);
                    if (!(ops[o] & CLNORM_PLAN_BACKWARD_RES))
                        ck_assert_uint_eq(L.residual_early, 0);
                    if ((ops[o] & ~CLNORM_PLAN_BACKWARD_RES) != 1) { /* the forward, and the backward without dweight/dbias */
                        ck_assert_uint_eq(L.register_accumulators, 0);
                        /* rows side by side: only the forward's local row (plan_fwd_rows_per_item_rule)
                         * and the backward's short rows (plan_short_rows_rule: at most 256 cols in
                         * the CPU row) */
                        if ((ops[o] == 0 && !L.local_row) || (ops[o] != 0 && cols > (dtypes[d] == CLNORM_F32 ? 16u : 256u)))
                            ck_assert_uint_eq(L.rows_per_item, 1);
                    }
                    /* batches of the second read: only where the row is read twice with the sums in registers */
                    ck_assert_uint_le(L.reread_batch, 16);
                    /* sum vectors in local memory: some, never all, of a call with dweight/dbias:
                     * those of the twice-read regime in fp32 calls with a residual gradient
                     * (acc_local_res), or those beside a cached 16-bit row (acc_local16) */
                    if (L.local_accumulators) {
                        ck_assert((ops[o] & ~CLNORM_PLAN_BACKWARD_RES) == 1 &&
                                  L.local_accumulators < L.register_accumulators);
                        if (L.register_cache)
                            ck_assert(dtypes[d] != CLNORM_F32);
                        else
                            ck_assert(dtypes[d] == CLNORM_F32 && ops[o] == (1 | CLNORM_PLAN_BACKWARD_RES));
                    }
                    /* the twice-read row: its vectors per item hold the row, and in calls with
                     * dweight/dbias they are the sums' */
                    if (L.register_cache || ops[o] == 0)
                        ck_assert_uint_eq(L.reread_vectors, 0);
                    if (L.reread_vectors)
                        ck_assert((size_t)L.reread_vectors * L.items_per_row * v >= cols);
                    if (!L.reread_vectors)
                        ck_assert_uint_eq(L.reread_batch, 0);
                    if (dtypes[d] == CLNORM_F32) /* the raw cache is for 16-bit data */
                        ck_assert_uint_eq(L.raw_cache, 0);
                    ck_assert_msg(rows ? L.work_groups >= 1 : L.work_groups == 0, "rows %zu, %zu groups", rows, L.work_groups);
                    /* the column sweep: calls with dweight/dbias only, a power of two of column
                     * lanes within the group, no sums in registers, and (rows > 0) the groups'
                     * shares cover the row */
                    if (L.column_sweep) {
                        ck_assert((ops[o] & ~CLNORM_PLAN_BACKWARD_RES) == 1 && L.register_accumulators == 0 &&
                                  L.rows_per_item == 1 && (L.column_sweep & (L.column_sweep - 1)) == 0 &&
                                  L.column_sweep <= L.work_group_size);
                        if (rows)
                            ck_assert((size_t)L.column_sweep * L.work_groups * v >= cols);
                    }
                }
    clnorm_launch_info L;
    ck_assert_int_eq(clnorm_launch_plan(NULL, 0, 1, 1, CLNORM_F32, &L), CLNORM_NULL_ARGUMENT);
    ck_assert_int_eq(clnorm_launch_plan(ctx, 0, 1, 1, CLNORM_F32, NULL), CLNORM_NULL_ARGUMENT);
    ck_assert_int_eq(clnorm_launch_plan(ctx, 0, 1, 1, (clnorm_dtype)99, &L), CLNORM_INVALID_DTYPE);
    ck_assert_int_eq(clnorm_launch_plan(ctx, 1, 1, 0, CLNORM_F32, &L), CLNORM_INVALID_SHAPE);
    ck_assert_int_eq(clnorm_launch_plan(ctx, 1, SIZE_MAX / 2, 4, CLNORM_F32, &L), CLNORM_INVALID_SHAPE);
    /* the calls' bound whatever the dtype: 2-byte elements whose 4-byte count would not fit */
    ck_assert_int_eq(clnorm_launch_plan(ctx, 0, SIZE_MAX / 8 + 1, 2, CLNORM_BF16, &L), CLNORM_INVALID_SHAPE);
    ck_assert_msg(clnorm_context_last_error(ctx)[0] != '\0', "no message for an invalid shape");
    ck_assert_int_eq(clnorm_launch_plan(ctx, 0, SIZE_MAX / 8, 2, CLNORM_BF16, &L), CLNORM_SUCCESS);
}
END_TEST

/* The plan's rules for the NVIDIA row's layouts (docs/PERFORMANCE.md, session 4), on the GPU
 * row with that row's values given through CLNORM_TUNE, so that they hold on any device with
 * 1024-item work-groups: which calls get 1024 items per row, the pipeline, 2 rows per item and the
 * early residual gradient (within 32 KiB per work-group). */
static clnorm_launch_info plan_at(clnorm_context *ctx, int op, size_t rows, size_t cols, clnorm_dtype dt)
{
    clnorm_launch_info L;
    memset(&L, 0xA5, sizeof L);
    ck_assert_int_eq(clnorm_launch_plan(ctx, op, rows, cols, dt, &L), CLNORM_SUCCESS);
    return L;
}

static clnorm_launch_info plan_of(clnorm_context *ctx, int op, size_t cols, clnorm_dtype dt)
{
    return plan_at(ctx, op, 4096, cols, dt);
}

/* Whether the test device takes work-groups of n items: the plan rules below assume it (CI's PoCL:
 * 4096, the H200: 1024); elsewhere the test says it is skipped. */
static bool groups_of_at_least(size_t n, const char *test)
{
    size_t max_wg = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg,
                          &max_wg, NULL));
    if (max_wg < n)
        fprintf(stderr, "%s: skipped, work-groups of at most %zu items\n", test, max_wg);
    return max_wg >= n;
}

/* The compute units of ctx's device: the persistent grids are counted in groups per unit */
static size_t compute_units(const clnorm_context *ctx)
{
    cl_uint cus = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
    ck_assert_uint_gt(cus, 0);
    return cus;
}

/* A context with table row cls ("gpu", "cpu"; NULL: the device's own row) and CLNORM_TUNE = tune
 * (NULL: none); the environment is restored */
static clnorm_context *class_context_with_tune(const char *cls, const char *tune)
{
    char *saved_class = save_env("CLNORM_DEVICE_CLASS"), *saved_tune = save_env("CLNORM_TUNE");
    if (cls)
        setenv("CLNORM_DEVICE_CLASS", cls, 1);
    else
        unsetenv("CLNORM_DEVICE_CLASS");
    if (tune)
        setenv("CLNORM_TUNE", tune, 1);
    else
        unsetenv("CLNORM_TUNE");
    clnorm_context *ctx = NULL;
    const clnorm_status st = clnorm_context_create(NULL, &ctx);
    restore_env("CLNORM_DEVICE_CLASS", saved_class);
    restore_env("CLNORM_TUNE", saved_tune);
    ck_assert_msg(st == CLNORM_SUCCESS, "%s", clnorm_context_last_error(NULL));
    return ctx;
}

static clnorm_context *gpu_context_with_tune(const char *tune) { return class_context_with_tune("gpu", tune); }

/* gpu_context_with_tune() of base with ",extra" appended */
static clnorm_context *gpu_context_with_tune2(const char *base, const char *extra)
{
    char spec[1024];
    ck_assert_int_lt(snprintf(spec, sizeof spec, "%s,%s", base, extra), (int)sizeof spec);
    return gpu_context_with_tune(spec);
}

/* the NVIDIA row's backward shape keys, which the plan tests below start from */
#define NV_BWD_BASE "vec_bytes=16,bwd_tpr_max=512,bwd_wg=256,bwd_ncache=3,bwd_nacc=8,bwd_target=2,bwd_target16=2"
/* the all-16-bit backward in 512 items, rows up to 3 vectors deep in registers, 8 sum vectors:
 * where the acc_local16 plan tests start from, and those keys' values that turn the rule on */
#define ACC16_BASE                                                                                                  \
    "vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,bwd_tpr_max_cached=0,bwd_tpr_max16=512,"            \
    "bwd_ncache=3,bwd_nacc=8,bwd_wg=256,bwd_groups=4,bwd_raw16=1,bwd_fill16=0"
#define ACC16_ON "bwd_acc_local16=1,bwd_acc_local16_nc=3,bwd_cache16_lacc=4"
/* the short 16-bit rows with several row slots and 2 rows per item with a residual gradient
 * (64 items x 4 slots x 2 rows at cols 1024), pipelined: the dr_early and pipe_vecs tests */
#define SLOTS16_BASE                                                                                                \
    "vec_bytes=16,bwd_tpr_max=512,bwd_wg=256,bwd_ncache=3,bwd_nacc=8,bwd_target=2,bwd_target16=2,"                \
    "bwd_raw16=1,bwd_tpr_max_cached=1024,bwd_tpr_max16=512,bwd_pipe=1,bwd_rpi16_res=2,"                          \
    "bwd_rpi_cols_max=4096,bwd_rpi=1,bwd_rpi16=1"

START_TEST(plan_rules_nvidia_layouts)
{
    if (!groups_of_at_least(1024, "plan_rules_nvidia_layouts"))
        return;
    clnorm_context *ctx = gpu_context_with_tune(
        NV_BWD_BASE ","
           "bwd_dxb=2,bwd_dxb16=0,bwd_pipe_vecs=1024,"
           "bwd_raw16=1,bwd_tpr_max_cached=1024,bwd_tpr_max16=512,bwd_ncache_dx=4,bwd_pipe=1,bwd_dr_early=32768,"
           "bwd_rpi16_res=2,bwd_rpi_cols_max=4096,bwd_rpi=1,bwd_rpi16=1,bwd_dx16_cols=12288,"
           "fwd_target=4,fwd_target16=4,fwd_tpr_max=512,fwd_wg=128,fwd_ncache=8,fwd_groups=4,fwd_pipe=1,"
           "fwd_pipe_cols=5120,fwd_raw16=0");
    const int BW = 1, DX = CLNORM_PLAN_BACKWARD_DX, RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_launch_info L;
    /* fp32: 1024 items where that caches the row; not where it would still stream */
    L = plan_of(ctx, BW, 8192, CLNORM_F32);
    ck_assert_uint_eq(L.items_per_row, 1024);
    ck_assert_uint_eq(L.register_cache, 2);
    ck_assert_uint_eq(L.pipelined, 0);
    L = plan_of(ctx, BW, 16384, CLNORM_F32); /* dx's second read in batches of 2 vectors */
    ck_assert_uint_eq(L.items_per_row, 512);
    ck_assert_uint_eq(L.register_cache, 0);
    ck_assert_uint_eq(L.reread_batch, 2);
    L = plan_of(ctx, BW, 12288, CLNORM_F32); /* 3072 vectors: 1024 x 3 */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 3 && L.reread_batch == 0);
    ck_assert_uint_eq(plan_of(ctx, DX, 16384, CLNORM_F32).reread_batch, 0); /* the row is cached */
    L = plan_of(ctx, DX, 16384, CLNORM_F32);
    ck_assert_uint_eq(L.items_per_row, 1024);
    ck_assert_uint_eq(L.register_cache, 4);
    /* early residual gradient: 32 KiB per group at most */
    ck_assert_uint_eq(plan_of(ctx, DX | RES, 16384, CLNORM_F32).residual_early, 0); /* 64 B x 1024 */
    ck_assert_uint_eq(plan_of(ctx, BW | RES, 8192, CLNORM_F32).residual_early, 1);  /* 32 B x 1024 */
    ck_assert_uint_eq(plan_of(ctx, BW | RES, 1024, CLNORM_F32).residual_early, 1);
    ck_assert_uint_eq(plan_of(ctx, BW | RES, 1024, CLNORM_F32).rows_per_item, 1);
    /* bf16 with dweight/dbias: pipelined, raw cache; 2 rows per item with the residual up to 4096 */
    L = plan_of(ctx, BW, 1024, CLNORM_BF16);
    ck_assert(L.pipelined == 1 && L.raw_cache == 1 && L.rows_per_item == 1 && L.residual_early == 0);
    L = plan_of(ctx, BW | RES, 1024, CLNORM_BF16);
    ck_assert(L.pipelined == 1 && L.rows_per_item == 2 && L.residual_early == 1);
    L = plan_of(ctx, BW | RES, 8192, CLNORM_BF16);
    ck_assert(L.pipelined == 1 && L.rows_per_item == 1 && L.residual_early == 1 && L.items_per_row == 512);
    L = plan_of(ctx, BW, 16384, CLNORM_BF16); /* tpr_max16: 512 items, the row streams, in a loop */
    ck_assert(L.items_per_row == 512 && L.register_cache == 0 && L.pipelined == 0 && L.reread_batch == 0);
    /* pipelined only where one register set takes at most 1024 vectors per group (pipe_vecs) */
    L = plan_of(ctx, BW, 12288, CLNORM_BF16); /* 512 x 3 = 1536 */
    ck_assert(L.items_per_row == 512 && L.register_cache == 3 && L.raw_cache == 1 && L.pipelined == 0);
    L = plan_of(ctx, BW, 5120, CLNORM_BF16); /* 256 x 3 = 768 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 3 && L.pipelined == 1);
    L = plan_of(ctx, BW | RES, 2048, CLNORM_BF16); /* 128 x 2 vectors x 2 row slots x 2 rows = 1024 */
    ck_assert(L.rows_per_item == 2 && L.pipelined == 1);
    /* dx-only calls: pipelined only for 16-bit rows from 12288 on without a residual gradient,
     * which take 512 items x 4 vectors (where that holds the row: 1024 x 4 at 32768, not
     * pipelined) */
    L = plan_of(ctx, DX, 16384, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 4 && L.raw_cache == 1 && L.pipelined == 1);
    L = plan_of(ctx, DX | RES, 16384, CLNORM_BF16); /* not with a residual gradient */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 2 && L.pipelined == 0);
    L = plan_of(ctx, DX, 12288, CLNORM_BF16); /* 1536 vectors: 512 items x 3 */
    ck_assert(L.items_per_row == 512 && L.register_cache == 3 && L.pipelined == 1);
    L = plan_of(ctx, DX, 32768, CLNORM_BF16);
    ck_assert(L.items_per_row == 1024 && L.register_cache == 4 && L.pipelined == 0);
    L = plan_of(ctx, DX, 8192, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 2 && L.pipelined == 0);
    ck_assert_uint_eq(plan_of(ctx, DX, 16384, CLNORM_F32).pipelined, 0);
    ck_assert_uint_eq(plan_of(ctx, DX, 1024, CLNORM_BF16).pipelined, 0);
    ck_assert_uint_eq(plan_of(ctx, BW, 1024, CLNORM_F32).pipelined, 0);
    /* rows that would leave more than a quarter of the cached vectors idle take half the items
     * (5 x 2^k elements); 3 x 2^k rows (three quarters used) keep theirs */
    L = plan_of(ctx, DX, 5120, CLNORM_F32); /* 1280 vectors: 512 x 3, not 1024 x 2 */
    ck_assert(L.items_per_row == 512 && L.register_cache == 3);
    L = plan_of(ctx, DX, 5120, CLNORM_BF16); /* 640 vectors: 256 x 3 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 3);
    L = plan_of(ctx, DX | RES, 5120, CLNORM_BF16); /* not with a 16-bit residual gradient */
    ck_assert(L.items_per_row == 512 && L.register_cache == 2);
    L = plan_of(ctx, DX | RES, 5120, CLNORM_F32);
    ck_assert(L.items_per_row == 512 && L.register_cache == 3);
    L = plan_of(ctx, DX, 10240, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 3);
    L = plan_of(ctx, DX, 768, CLNORM_F32); /* 192 vectors: 128 x 2 */
    ck_assert(L.items_per_row == 128 && L.register_cache == 2);
    L = plan_of(ctx, BW, 5120, CLNORM_F32); /* with dweight/dbias too (a cache of 3 vectors) */
    ck_assert(L.items_per_row == 512 && L.register_cache == 3);
    /* ... but with 4-byte data and no residual gradient only from above tpr_max items */
    L = plan_of(ctx, BW, 2560, CLNORM_F32); /* 640 vectors: 512 x 2 */
    ck_assert(L.items_per_row == 512 && L.register_cache == 2);
    L = plan_of(ctx, BW | RES, 2560, CLNORM_F32);
    ck_assert(L.items_per_row == 256 && L.register_cache == 3);
    L = plan_of(ctx, BW, 2560, CLNORM_BF16); /* 320 vectors: 128 x 3 */
    ck_assert(L.items_per_row == 128 && L.register_cache == 3);
    /* the forward: pipelined on a persistent grid of 4 x 128 items per compute unit for all-16-bit
     * rows from 5120 on whose two register sets fit 8 vectors; one group per row block otherwise */
    const size_t cus = compute_units(ctx);
    L = plan_of(ctx, 0, 8192, CLNORM_BF16); /* 1024 vectors: 256 items x 4, 2 groups per unit */
    ck_assert(L.pipelined == 1 && L.raw_cache == 0 && L.items_per_row == 256 && L.register_cache == 4 &&
              L.work_groups == 2 * cus);
    L = plan_of(ctx, 0, 5120, CLNORM_F16); /* 160 items x 4: 3 groups per unit */
    ck_assert(L.pipelined == 1 && L.items_per_row == 160 && L.work_groups == 3 * cus);
    L = plan_of(ctx, 0, 16384, CLNORM_BF16);
    ck_assert(L.pipelined == 1 && L.items_per_row == 512 && L.work_groups == cus);
    L = plan_of(ctx, 0, 4096, CLNORM_BF16); /* below pipe_cols: 4096 rows, one group each */
    ck_assert(L.pipelined == 0 && L.items_per_row == 128 && L.work_groups == 4096);
    L = plan_of(ctx, 0, 32768, CLNORM_BF16); /* 512 x 8: two sets would not fit */
    ck_assert(L.pipelined == 0 && L.register_cache == 8 && L.work_groups == 4096);
    L = plan_of(ctx, 0, 8192, CLNORM_F32); /* not 16-bit */
    ck_assert(L.pipelined == 0 && L.work_groups == 4096);
    clnorm_context_release(ctx);
}
END_TEST

/* The fill rule leaves alone the items the dx16 rule chose (its pipeline needs tpr_max16 of them):
 * 1056 vectors of bf16 at cols 8448 take 512 items x 3, pipelined, not 256 x 5 */
START_TEST(plan_fill_rule_keeps_dx16_items)
{
    if (!groups_of_at_least(1024, "plan_fill_rule_keeps_dx16_items"))
        return;
    clnorm_context *ctx = gpu_context_with_tune("vec_bytes=16,bwd_target16=2,bwd_tpr_max=512,bwd_tpr_max_cached=1024,"
                                                "bwd_tpr_max16=512,bwd_ncache_dx=6,bwd_dx16_cols=8192,bwd_pipe=0");
    clnorm_launch_info L = plan_of(ctx, CLNORM_PLAN_BACKWARD_DX, 8448, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 3 && L.pipelined == 1);
    L = plan_of(ctx, CLNORM_PLAN_BACKWARD_DX, 5120, CLNORM_BF16); /* below dx16_cols: the fill rule */
    ck_assert(L.items_per_row == 256 && L.register_cache == 3 && L.pipelined == 0);
    clnorm_context_release(ctx);
}
END_TEST

/* The 16-bit fill rule: in all-16-bit calls with dweight/dbias whose row is cached, one row per
 * item, half the items for as long as that leaves fewer vectors idle and the row fits fill16
 * vectors per item, if that ends deeper than ncache; such layouts are pipelined (where bwd_pipe
 * allows) whatever pipe_vecs says */
START_TEST(plan_fill16_rule)
{
    if (!groups_of_at_least(512, "plan_fill16_rule"))
        return;
    clnorm_context *ctx = gpu_context_with_tune("vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,"
                                                "bwd_tpr_max_cached=0,bwd_tpr_max16=512,bwd_ncache=3,bwd_ncache_dx=0,"
                                                "bwd_nacc=8,bwd_fill16=5,bwd_wg=256,bwd_raw16=1,bwd_pipe=1,"
                                                "bwd_pipe_vecs=1024,bwd_rpi16=1,bwd_rpi16_res=2,bwd_rpi_cols_max=4096");
    /* 640 vectors: 256 x 3 (the general fill rule) leaves 128 idle, 128 x 5 none; pipelined
     * although one register set of the 2 row slots takes 1280 vectors */
    clnorm_launch_info L = plan_of(ctx, 1, 5120, CLNORM_BF16);
    ck_assert(L.items_per_row == 128 && L.register_cache == 5 && L.rows_per_group == 2 && L.pipelined == 1);
    L = plan_of(ctx, 1 | CLNORM_PLAN_BACKWARD_RES, 5120, CLNORM_BF16); /* above rpi_cols_max: 1 row per item */
    ck_assert(L.items_per_row == 128 && L.register_cache == 5 && L.rows_per_item == 1);
    L = plan_of(ctx, 1, 2560, CLNORM_BF16); /* 320 vectors: 64 x 5 */
    ck_assert(L.items_per_row == 64 && L.register_cache == 5 && L.pipelined == 1);
    /* ... not where 2 rows per item apply (bf16 with the residual gradient up to 4096 cols) */
    L = plan_of(ctx, 1 | CLNORM_PLAN_BACKWARD_RES, 2560, CLNORM_BF16);
    ck_assert(L.register_cache <= 3 && L.rows_per_item == 2);
    /* ... nor where it would end at ncache deep (3072: 384 vectors, 256 x 2 stays, not 128 x 3) */
    L = plan_of(ctx, 1, 3072, CLNORM_BF16);
    ck_assert(L.items_per_row == 256 && L.register_cache == 2);
    /* 1536 vectors: 512 x 3 fills every vector already, and is not pipelined (pipe_vecs) */
    L = plan_of(ctx, 1, 12288, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 3 && L.pipelined == 0);
    /* 2048 vectors do not fit 512 x 3: the rule does not cache a row the table would not */
    L = plan_of(ctx, 1, 16384, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 0);
    /* fp32 and dx-only calls: the general rules (1280 vectors: 512 x 3) */
    L = plan_of(ctx, 1, 5120, CLNORM_F32);
    ck_assert(L.items_per_row == 512 && L.register_cache == 3);
    L = plan_of(ctx, CLNORM_PLAN_BACKWARD_DX, 5120, CLNORM_BF16);
    ck_assert_uint_ne(L.register_cache, 5);
    /* a row that fills its vectors exactly stays (4096: 512 vectors, 256 x 2, not 128 x 4) */
    L = plan_of(ctx, 1, 4096, CLNORM_BF16);
    ck_assert(L.items_per_row == 256 && L.register_cache == 2);
    /* 1280 bf16 (160 vectors): 64 x 3 -> 32 x 5, and no further below 32 items */
    L = plan_of(ctx, 1, 1280, CLNORM_BF16);
    ck_assert(L.items_per_row == 32 && L.register_cache == 5);
    clnorm_context_release(ctx);
    /* fill16 4: 5120's 5 vectors do not fit, 256 x 3 stays */
    ctx = gpu_context_with_tune("vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,bwd_tpr_max_cached=0,"
                                "bwd_tpr_max16=512,bwd_ncache=3,bwd_nacc=8,bwd_fill16=4,bwd_wg=256,bwd_raw16=1");
    L = plan_of(ctx, 1, 5120, CLNORM_BF16);
    ck_assert(L.items_per_row == 256 && L.register_cache == 3);
    clnorm_context_release(ctx);
}
END_TEST

/* The 16-bit forward's rules for long rows: where the call would be pipelined, fit16 takes the row
 * as stored in exactly d vectors per item (d from fit16 down to target16 + 1, a multiple of 32
 * items up to fit16_tpr), one group per row block; tpr_max16 caps the items of 16-bit rows instead
 * of tpr_max; raw16_vecs keeps as stored a cache whose fp32 form (both sets of a pipeline) would
 * take more vectors per group */
START_TEST(plan_fwd16_rules)
{
    if (!groups_of_at_least(1024, "plan_fwd16_rules"))
        return;
    const char *base = "vec_bytes=16,fwd_target=4,fwd_target16=4,fwd_tpr_max=512,fwd_wg=128,fwd_ncache=8,fwd_groups=4,"
                       "fwd_pipe=1,fwd_pipe_cols=5120,fwd_raw16=0";
    clnorm_context *ctx = gpu_context_with_tune2(base, "fwd_fit16=6,fwd_fit16_tpr=256,fwd_tpr_max16=1024,fwd_raw16_vecs=6144");
    const size_t rows = 4096;
    clnorm_launch_info L = plan_of(ctx, 0, 5120, CLNORM_BF16); /* 640 vectors: 6 no, 128 x 5 */
    ck_assert(L.items_per_row == 128 && L.register_cache == 5 && L.raw_cache == 1 && L.pipelined == 0 &&
              L.work_groups == rows);
    L = plan_of(ctx, 0, 6144, CLNORM_F16); /* 768: 128 x 6 */
    ck_assert(L.items_per_row == 128 && L.register_cache == 6 && L.raw_cache == 1 && L.pipelined == 0);
    L = plan_of(ctx, 0, 10240, CLNORM_BF16); /* 1280: 256 x 5 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 5 && L.raw_cache == 1 && L.pipelined == 0);
    L = plan_of(ctx, 0, 12288, CLNORM_BF16); /* 1536: 256 x 6 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 6 && L.raw_cache == 1 && L.work_groups == rows);
    /* no exact fit in a multiple of 32 items up to 256: the pipeline stays */
    L = plan_of(ctx, 0, 8192, CLNORM_BF16); /* 1024 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 4 && L.raw_cache == 0 && L.pipelined == 1);
    L = plan_of(ctx, 0, 7168, CLNORM_BF16); /* 896 */
    ck_assert(L.items_per_row == 224 && L.register_cache == 4 && L.pipelined == 1);
    L = plan_of(ctx, 0, 16384, CLNORM_BF16); /* 2048: 512 x 4, both fp32 sets 4096 vectors */
    ck_assert(L.items_per_row == 512 && L.register_cache == 4 && L.raw_cache == 0 && L.pipelined == 1);
    /* below pipe_cols, and fp32: untouched */
    L = plan_of(ctx, 0, 4096, CLNORM_BF16);
    ck_assert(L.items_per_row == 128 && L.register_cache == 4 && L.raw_cache == 0 && L.pipelined == 0);
    L = plan_of(ctx, 0, 12288, CLNORM_F32);
    ck_assert(L.items_per_row == 512 && L.register_cache == 6 && L.raw_cache == 0);
    /* tpr_max16: 2560 vectors take 640 x 4, pipelined, fp32 (5120 vectors in two sets) */
    L = plan_of(ctx, 0, 20480, CLNORM_BF16);
    ck_assert(L.items_per_row == 640 && L.register_cache == 4 && L.raw_cache == 0 && L.pipelined == 1);
    /* ... 1024 x 4 pipelined: 8192 vectors in fp32, so as stored */
    L = plan_of(ctx, 0, 32768, CLNORM_BF16);
    ck_assert(L.items_per_row == 1024 && L.register_cache == 4 && L.raw_cache == 1 && L.pipelined == 1);
    L = plan_of(ctx, 0, 65536, CLNORM_BF16); /* 1024 x 8, one set */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 8 && L.raw_cache == 1 && L.pipelined == 0);
    L = plan_of(ctx, 0, 32768, CLNORM_F32); /* 4-byte rows: neither */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 8 && L.raw_cache == 0);
    clnorm_context_release(ctx);
    /* without them: the same rows take the table's other rules */
    ctx = gpu_context_with_tune(base);
    L = plan_of(ctx, 0, 12288, CLNORM_BF16);
    ck_assert(L.items_per_row == 384 && L.register_cache == 4 && L.raw_cache == 0 && L.pipelined == 1);
    L = plan_of(ctx, 0, 20480, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 5 && L.pipelined == 0);
    L = plan_of(ctx, 0, 32768, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 8 && L.raw_cache == 0);
    clnorm_context_release(ctx);
    /* fit16_deep: where no fit of 6 or 5 exists, 8 vectors in at most 128 items */
    ctx = gpu_context_with_tune2(base, "fwd_fit16=6,fwd_fit16_tpr=256,fwd_fit16_deep=8,fwd_fit16_deep_tpr=128");
    L = plan_of(ctx, 0, 8192, CLNORM_BF16); /* 1024 vectors: 128 x 8 */
    ck_assert(L.items_per_row == 128 && L.register_cache == 8 && L.raw_cache == 1 && L.pipelined == 0 &&
              L.work_groups == rows);
    L = plan_of(ctx, 0, 16384, CLNORM_BF16); /* 256 x 8 is too wide: the pipeline */
    ck_assert(L.items_per_row == 512 && L.register_cache == 4 && L.raw_cache == 0 && L.pipelined == 1);
    L = plan_of(ctx, 0, 12288, CLNORM_BF16); /* 6 first: 256 x 6 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 6);
    L = plan_of(ctx, 0, 5120, CLNORM_BF16); /* 5: 128 x 5 */
    ck_assert(L.items_per_row == 128 && L.register_cache == 5);
    L = plan_of(ctx, 0, 7168, CLNORM_BF16); /* 896 / 8 = 112, not a multiple of 32 */
    ck_assert(L.items_per_row == 224 && L.register_cache == 4 && L.pipelined == 1);
    clnorm_context_release(ctx);
    /* raw16_vecs is a strict bound: 16384's two fp32 sets of 512 x 4 are 4096 vectors */
    ctx = gpu_context_with_tune2(base, "fwd_raw16_vecs=4096");
    ck_assert_uint_eq(plan_of(ctx, 0, 16384, CLNORM_BF16).raw_cache, 0);
    clnorm_context_release(ctx);
    ctx = gpu_context_with_tune2(base, "fwd_raw16_vecs=4095");
    ck_assert_uint_eq(plan_of(ctx, 0, 16384, CLNORM_BF16).raw_cache, 1);
    clnorm_context_release(ctx);
    /* fit16 above ncache starts at ncache (12288: 192 x 8, not 128 x 12) */
    ctx = gpu_context_with_tune2(base, "fwd_fit16=12,fwd_fit16_tpr=256");
    L = plan_of(ctx, 0, 12288, CLNORM_BF16);
    ck_assert(L.items_per_row == 192 && L.register_cache == 8 && L.raw_cache == 1);
    clnorm_context_release(ctx);
    /* only where the call would be pipelined: 20480 at tpr_max's 512 items takes 5 vectors, two
     * sets of which do not fit ncache 8, so its layout stays (not the 512 x 5 fit as stored) */
    ctx = gpu_context_with_tune2(base, "fwd_fit16=6,fwd_fit16_tpr=512");
    L = plan_of(ctx, 0, 20480, CLNORM_BF16);
    ck_assert(L.items_per_row == 512 && L.register_cache == 5 && L.raw_cache == 0 && L.pipelined == 0);
    L = plan_of(ctx, 0, 12288, CLNORM_BF16); /* pipelinable (384 x 4): the fit, 256 x 6 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 6 && L.raw_cache == 1);
    clnorm_context_release(ctx);
    /* the fit is never pipelined, even where both register sets would fit ncache */
    ctx = gpu_context_with_tune2(base, "fwd_fit16=6,fwd_fit16_tpr=256,fwd_ncache=12");
    L = plan_of(ctx, 0, 5120, CLNORM_BF16);
    ck_assert(L.items_per_row == 128 && L.register_cache == 5 && L.raw_cache == 1 && L.pipelined == 0);
    clnorm_context_release(ctx);
    /* fit16_tpr 128: 12288 has no fit (256 x 6 is too wide), 5120's 128 x 5 stays */
    ctx = gpu_context_with_tune2(base, "fwd_fit16=6,fwd_fit16_tpr=128");
    L = plan_of(ctx, 0, 12288, CLNORM_BF16);
    ck_assert(L.items_per_row == 384 && L.raw_cache == 0 && L.pipelined == 1);
    L = plan_of(ctx, 0, 5120, CLNORM_BF16);
    ck_assert(L.items_per_row == 128 && L.register_cache == 5 && L.raw_cache == 1);
    clnorm_context_release(ctx);
}
END_TEST

/* The fp32 backward's wide register cache (ncache_wide, cached_nc, its exact fit) and the twice-read
 * rows at more items (acc_tpr_max, dxb_dx), with the NVIDIA row's values */
START_TEST(plan_wide_and_acc_tpr_rules)
{
    if (!groups_of_at_least(1024, "plan_wide_and_acc_tpr_rules"))
        return;
    clnorm_context *ctx = gpu_context_with_tune2(NV_BWD_BASE,
        "bwd_tpr_max_cached=1024,bwd_ncache_dx=4,bwd_tpr_max16=512,bwd_dxb=2,bwd_dxb16=0,bwd_acc_local_res=1,"
        "bwd_dxb_res=3,bwd_cached_nc=2,bwd_ncache_wide=6,bwd_acc_tpr_max=1024,bwd_dxb_dx=2,bwd_groups=4,bwd_groups_res=3");
    const int BW = 1, DX = CLNORM_PLAN_BACKWARD_DX, RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_launch_info L = plan_of(ctx, BW, 12288, CLNORM_F32); /* 3 vectors at 1024 items > cached_nc */
    ck_assert(L.items_per_row == 512 && L.register_cache == 6 && L.reread_vectors == 0);
    L = plan_of(ctx, BW | RES, 12288, CLNORM_F32);
    ck_assert(L.items_per_row == 512 && L.register_cache == 6);
    L = plan_of(ctx, BW, 8192, CLNORM_F32); /* 2 vectors at 1024 items */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 2);
    L = plan_of(ctx, BW, 5120, CLNORM_F32); /* 1280 vectors: 256 x 5 exactly, not 512 x 3 */
    ck_assert(L.items_per_row == 256 && L.register_cache == 5);
    L = plan_of(ctx, BW, 4096, CLNORM_F32); /* exact already */
    ck_assert(L.items_per_row == 512 && L.register_cache == 2);
    L = plan_of(ctx, BW, 3072, CLNORM_F32); /* 256 x 3 would be exact, but not deeper than ncache */
    ck_assert(L.items_per_row == 512 && L.register_cache == 2);
    L = plan_of(ctx, DX, 12288, CLNORM_F32); /* not a call with dweight/dbias: ncache_dx, 1024 x 3 */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 3);
    L = plan_of(ctx, BW, 12288, CLNORM_BF16); /* 16-bit: ncache */
    ck_assert(L.items_per_row == 512 && L.register_cache == 3);
    L = plan_of(ctx, BW, 16384, CLNORM_F32); /* 8 vectors at 512 items: nacc takes it already */
    ck_assert(L.items_per_row == 512 && L.register_cache == 0 && L.reread_vectors == 8 && L.reread_batch == 2);
    L = plan_of(ctx, BW | RES, 16384, CLNORM_F32);
    ck_assert(L.items_per_row == 512 && L.local_accumulators == 1 && L.reread_batch == 3);
    L = plan_of(ctx, BW, 32768, CLNORM_F32); /* 16 at 512 items: 1024 x 8, read twice */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 0 && L.register_accumulators == 8 &&
              L.reread_vectors == 8 && L.reread_batch == 2);
    L = plan_of(ctx, BW | RES, 32768, CLNORM_F32); /* dxb_res only within tpr_max items */
    ck_assert(L.items_per_row == 1024 && L.local_accumulators == 1 && L.reread_batch == 2);
    L = plan_of(ctx, DX, 32768, CLNORM_F32);
    ck_assert(L.items_per_row == 1024 && L.register_cache == 0 && L.register_accumulators == 0 &&
              L.reread_vectors == 8 && L.reread_batch == 2);
    /* groups_res: fp32 with the residual gradient, cached within ncache, groups of at most 256 items */
    const size_t cus = compute_units(ctx);
    ck_assert_uint_eq(plan_of(ctx, BW, 2048, CLNORM_F32).work_groups, 4 * cus); /* 256-item groups */
    ck_assert_uint_eq(plan_of(ctx, BW | RES, 2048, CLNORM_F32).work_groups, 3 * cus);
    L = plan_of(ctx, BW | RES, 2048, CLNORM_BF16); /* 16-bit: groups_per_cu's 4 x 256 items */
    ck_assert_uint_eq(L.work_groups, 4 * cus * 256 / (L.items_per_row * L.rows_per_group));
    ck_assert_uint_eq(plan_of(ctx, BW | RES, 4096, CLNORM_F32).work_groups, 2 * cus); /* 512 items: 4 x 256 / 512 */
    ck_assert_uint_eq(plan_of(ctx, DX | RES, 2048, CLNORM_F32).work_groups, 4 * cus);
    /* 5120 vectors: 10 at 512 items, more than nacc; 1024 x 5 read twice (a 1024-item cache
     * only within cached_nc) */
    L = plan_of(ctx, BW, 20480, CLNORM_F32);
    ck_assert(L.items_per_row == 1024 && L.register_cache == 0 && L.reread_vectors == 5 && L.reread_batch == 2);
    L = plan_of(ctx, BW, 6144, CLNORM_F32); /* 1024 x 2 with idle vectors: 512 x 3 is not deeper than ncache */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 2);
    L = plan_of(ctx, DX, 65536, CLNORM_F32); /* 16 at 1024 items: streams */
    ck_assert(L.register_cache == 0 && L.reread_vectors == 0 && L.reread_batch == 0);
    L = plan_of(ctx, DX, 65536, CLNORM_BF16); /* 16-bit widest element: keeps its items */
    ck_assert(L.items_per_row == 512 && L.reread_vectors == 0);
    clnorm_context_release(ctx);
    ctx = gpu_context_with_tune2(NV_BWD_BASE,
        "bwd_tpr_max_cached=1024,bwd_ncache_dx=4,bwd_tpr_max16=512,bwd_cached_nc=0,bwd_ncache_wide=0,bwd_acc_tpr_max=0,bwd_dxb_dx=0");
    L = plan_of(ctx, BW, 12288, CLNORM_F32); /* the rules off: 1024 x 3 */
    ck_assert(L.items_per_row == 1024 && L.register_cache == 3);
    L = plan_of(ctx, DX, 32768, CLNORM_F32); /* streams */
    ck_assert(L.items_per_row == 512 && L.reread_vectors == 0 && L.reread_batch == 0);
    clnorm_context_release(ctx);
}
END_TEST

/* the NVIDIA row's backward keys the column sweep's plan tests start from (beside NV_BWD_BASE), and
 * its sweep thresholds with 64 groups per compute unit (so that shares fit a group on CI's 2) */
#define NV_SWEEP_BASE                                                                              \
    "bwd_tpr_max_cached=1024,bwd_ncache_dx=4,bwd_tpr_max16=512,bwd_acc_tpr_max=1024,bwd_dxb_dx=2," \
    "bwd_dx16_cols=8192,bwd_pipe=1,bwd_raw16=1"
#define NV_SWEEP_ROW "bwd_colsweep_cols=16385,bwd_colsweep16_cols=32768,bwd_colsweep_groups=64"

/* The column sweep (colsweep_cols / colsweep16_cols / colsweep_groups): a call with dweight/dbias
 * from those cols takes the layout of the same call without them, holds no sums in registers, and
 * its groups' column shares (a power of two of vectors, within the group) cover the row; below
 * the thresholds, in dx-only calls, and where a share would not fit a group, the plan is the one
 * without the sweep */
static void assert_sweep_plan(clnorm_context *ctx, clnorm_context *off, int op, size_t cols, clnorm_dtype dt, size_t groups)
{
    const clnorm_launch_info L = plan_of(ctx, op, cols, dt);
    const clnorm_launch_info D = plan_of(ctx, CLNORM_PLAN_BACKWARD_DX | (op & CLNORM_PLAN_BACKWARD_RES), cols, dt);
    const size_t nv = cols / D.vector_width, blocks = (4096 + D.rows_per_group - 1) / D.rows_per_group;
    const size_t g = groups < blocks ? groups : blocks, share = (nv + g - 1) / g;
    if (share > D.work_group_size) { /* no sweep: as with it off */
        const clnorm_launch_info O = plan_of(off, op, cols, dt);
        ck_assert(L.column_sweep == 0 && memcmp(&L, &O, sizeof L) == 0);
        return;
    }
    ck_assert_uint_eq(L.work_groups, g);
    ck_assert_msg(L.column_sweep >= share && L.column_sweep < 2 * share && (L.column_sweep & (L.column_sweep - 1)) == 0 &&
                      L.column_sweep <= L.work_group_size && L.column_sweep * L.work_groups >= nv,
                  "cols %zu: %u column lanes, %zu groups", cols, L.column_sweep, L.work_groups);
    ck_assert(L.register_accumulators == 0 && L.local_accumulators == 0 && L.rows_per_item == 1);
    ck_assert(L.vector_width == D.vector_width && L.items_per_row == D.items_per_row &&
              L.rows_per_group == D.rows_per_group && L.register_cache == D.register_cache &&
              L.reread_vectors == D.reread_vectors && L.reread_batch == D.reread_batch && L.pipelined == D.pipelined &&
              L.raw_cache == D.raw_cache && L.residual_early == D.residual_early);
    ck_assert_uint_eq(D.column_sweep, 0);
}
START_TEST(plan_colsweep_rule)
{
    if (!groups_of_at_least(1024, "plan_colsweep_rule"))
        return;
    const char *nv = NV_SWEEP_BASE;
    char tune[512];
    snprintf(tune, sizeof tune, "%s,%s", nv, NV_SWEEP_ROW);
    clnorm_context *ctx = gpu_context_with_tune2(NV_BWD_BASE, tune), *off = gpu_context_with_tune2(NV_BWD_BASE, nv);
    const int BW = 1, RES = CLNORM_PLAN_BACKWARD_RES;
    const size_t g = 64 * compute_units(ctx);
    for (int r = 0; r < 2; ++r) {
        const int op = BW | (r ? RES : 0);
        assert_sweep_plan(ctx, off, op, 20480, CLNORM_F32, g);
        assert_sweep_plan(ctx, off, op, 32768, CLNORM_F32, g);
        assert_sweep_plan(ctx, off, op, 65536, CLNORM_F32, g);
        assert_sweep_plan(ctx, off, op, 32768, CLNORM_BF16, g);
        assert_sweep_plan(ctx, off, op, 65536, CLNORM_F16, g);
        /* below the thresholds: the plan without the sweep */
        const size_t below[][2] = {{16384, CLNORM_F32}, {24576, CLNORM_BF16}, {16384, CLNORM_F16}};
        for (size_t i = 0; i < 3; ++i) {
            const clnorm_launch_info L = plan_of(ctx, op, below[i][0], (clnorm_dtype)below[i][1]);
            const clnorm_launch_info O = plan_of(off, op, below[i][0], (clnorm_dtype)below[i][1]);
            ck_assert(L.column_sweep == 0 && memcmp(&L, &O, sizeof L) == 0);
        }
        ck_assert_uint_eq(plan_of(ctx, CLNORM_PLAN_BACKWARD_DX | (r ? RES : 0), 32768, CLNORM_F32).column_sweep, 0);
    }
    ck_assert_uint_eq(plan_of(ctx, 0, 32768, CLNORM_F32).column_sweep, 0);
    /* rows == 0: no kernel runs, the plan still answers (one group in its arithmetic) */
    clnorm_launch_info Z;
    CLNORM_OK(ctx, clnorm_launch_plan(ctx, BW, 0, 32768, CLNORM_F32, &Z));
    ck_assert_uint_eq(Z.work_groups, 0);
    clnorm_context_release(ctx);
    /* the dx-only layout's own groups (colsweep_groups 0), and one group per compute unit, whose
     * share of a 65536-column fp32 row fits a group only on devices of 16 or more units */
    snprintf(tune, sizeof tune, "%s,bwd_colsweep_cols=1,bwd_colsweep16_cols=1,bwd_colsweep_groups=1", nv);
    ctx = gpu_context_with_tune2(NV_BWD_BASE, tune);
    assert_sweep_plan(ctx, off, BW, 65536, CLNORM_F32, compute_units(ctx));
    assert_sweep_plan(ctx, off, BW | RES, 4096, CLNORM_BF16, compute_units(ctx));
    clnorm_context_release(ctx);
    snprintf(tune, sizeof tune, "%s,bwd_colsweep_cols=1,bwd_colsweep16_cols=1,bwd_colsweep_groups=0", nv);
    ctx = gpu_context_with_tune2(NV_BWD_BASE, tune);
    assert_sweep_plan(ctx, off, BW, 4096, CLNORM_F32, plan_of(ctx, CLNORM_PLAN_BACKWARD_DX, 4096, CLNORM_F32).work_groups);
    clnorm_context_release(ctx);
    /* not with the contiguous row schedule (contig=1: the sweep follows the round-robin waves) */
    snprintf(tune, sizeof tune, "%s,bwd_colsweep_cols=1,bwd_colsweep16_cols=1,contig=1", nv);
    ctx = gpu_context_with_tune2(NV_BWD_BASE, tune);
    ck_assert_uint_eq(plan_of(ctx, BW, 32768, CLNORM_F32).column_sweep, 0);
    clnorm_context_release(ctx);
    clnorm_context_release(off);
}
END_TEST

/* colsweep_stream: a call with dweight/dbias whose plan would stream the row with the sums in the
 * workspace (no register cache, no sums in registers, no sweep) sweeps columns instead, below the
 * colsweep thresholds too; calls whose sums stay in registers, dx-only calls and the forward keep
 * their plans. Under the NVIDIA row's keys the long rows that alignment narrows stream (fp32
 * 12287 and 16383, bf16 12289 / 24575 at one element, 20482 at two and 16388 at four); their
 * aligned neighbours and the narrowed rows whose sums fit (fp32 12286 / 16382 at two elements,
 * bf16 12284 at four) read the row twice with the sums in registers. */
static bool plan_streams(const clnorm_launch_info *L)
{
    return L->register_cache == 0 && L->register_accumulators == 0 && L->column_sweep == 0 && L->local_row == 0 &&
           L->items_per_row > 1;
}
START_TEST(plan_colsweep_stream_rule)
{
    if (!groups_of_at_least(1024, "plan_colsweep_stream_rule"))
        return;
    const char *nv = NV_SWEEP_BASE "," NV_SWEEP_ROW;
    char tune[512];
    snprintf(tune, sizeof tune, "%s,bwd_colsweep_stream=1", nv);
    clnorm_context *ctx = gpu_context_with_tune2(NV_BWD_BASE, tune);
    snprintf(tune, sizeof tune, "%s,bwd_colsweep_stream=0", nv);
    clnorm_context *off = gpu_context_with_tune2(NV_BWD_BASE, tune);
    const int BW = 1, RES = CLNORM_PLAN_BACKWARD_RES;
    const size_t g = 64 * compute_units(ctx);
    const struct { size_t cols; clnorm_dtype dt; bool streams; } shapes[] = {
        {12287, CLNORM_F32, true},   {16383, CLNORM_F32, true},   {12289, CLNORM_BF16, true},
        {24575, CLNORM_BF16, true},  {20482, CLNORM_BF16, true},  {16388, CLNORM_BF16, true},
        {12288, CLNORM_F32, false},  {16384, CLNORM_F32, false},  {16384, CLNORM_BF16, false},
        {24576, CLNORM_BF16, false}, {1023, CLNORM_BF16, false},
        /* narrowed, but the sums stay in registers (2-element fp32 vectors, 4-element bf16 ones
         * up to 16380): untouched */
        {12286, CLNORM_F32, false},  {16382, CLNORM_F32, false},  {12284, CLNORM_BF16, false},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (int r = 0; r < 2; ++r) {
            const int op = BW | (r ? RES : 0);
            const size_t cols = shapes[i].cols;
            const clnorm_launch_info O = plan_of(off, op, cols, shapes[i].dt);
            ck_assert_msg(plan_streams(&O) == shapes[i].streams, "cols %zu: streams %d without the rule", cols,
                          (int)plan_streams(&O));
            if (shapes[i].streams) {
                ck_assert_uint_gt(plan_of(ctx, op, cols, shapes[i].dt).column_sweep, 0);
                assert_sweep_plan(ctx, off, op, cols, shapes[i].dt, g);
            } else {
                const clnorm_launch_info L = plan_of(ctx, op, cols, shapes[i].dt);
                ck_assert_msg(memcmp(&L, &O, sizeof L) == 0, "cols %zu: the plan changed", cols);
            }
            /* dx-only calls and the forward: untouched */
            const int dx = CLNORM_PLAN_BACKWARD_DX | (r ? RES : 0);
            const clnorm_launch_info D = plan_of(ctx, dx, cols, shapes[i].dt), DO = plan_of(off, dx, cols, shapes[i].dt);
            ck_assert(memcmp(&D, &DO, sizeof D) == 0);
        }
    const clnorm_launch_info F = plan_of(ctx, 0, 12287, CLNORM_F32), FO = plan_of(off, 0, 12287, CLNORM_F32);
    ck_assert(memcmp(&F, &FO, sizeof F) == 0);
    clnorm_context_release(ctx);
    /* not with the contiguous row schedule */
    snprintf(tune, sizeof tune, "%s,bwd_colsweep_stream=1,contig=1", nv);
    ctx = gpu_context_with_tune2(NV_BWD_BASE, tune);
    const clnorm_launch_info C = plan_of(ctx, BW, 12287, CLNORM_F32);
    ck_assert(plan_streams(&C));
    clnorm_context_release(ctx);
    clnorm_context_release(off);
}
END_TEST

/* phase_reread: with row phases, calls with dweight/dbias whose frame's plan reads the row twice
 * with the sums in registers take phases in that regime (PHASE without the register cache)
 * instead of the column sweep (colsweep_stream) their narrowed plan would take; the calls whose
 * frame is cached, the aligned rows, the dx-only calls and the forward keep their plans, and a
 * frame too long for the sums in registers (bf16 32767) keeps the sweep */
START_TEST(plan_phase_reread_rule)
{
    if (!groups_of_at_least(1024, "plan_phase_reread_rule"))
        return;
    const char *nv = NV_SWEEP_BASE "," NV_SWEEP_ROW ",bwd_colsweep_stream=1,phase=1,phase_skip=256";
    char tune[512];
    snprintf(tune, sizeof tune, "%s,phase_reread=1", nv);
    clnorm_context *ctx = gpu_context_with_tune2(NV_BWD_BASE, tune);
    snprintf(tune, sizeof tune, "%s,phase_reread=0", nv);
    clnorm_context *off = gpu_context_with_tune2(NV_BWD_BASE, tune);
    const struct { size_t cols; clnorm_dtype dt; unsigned phase; } shapes[] = {
        {12287, CLNORM_F32, 4}, {16383, CLNORM_F32, 4}, {12289, CLNORM_BF16, 8}, {24575, CLNORM_BF16, 8},
        {20482, CLNORM_BF16, 4}, {32767, CLNORM_BF16, 0}, {16384, CLNORM_BF16, 0}, {1023, CLNORM_BF16, 8},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (int r = 0; r < 2; ++r) {
            const int op = 1 | (r ? CLNORM_PLAN_BACKWARD_RES : 0);
            const size_t cols = shapes[i].cols;
            const clnorm_launch_info L = plan_of(ctx, op, cols, shapes[i].dt), O = plan_of(off, op, cols, shapes[i].dt);
            const bool reread = shapes[i].phase && O.row_phase == 0;
            ck_assert_msg(L.row_phase == shapes[i].phase, "cols %zu: row_phase %u", cols, L.row_phase);
            if (reread) {
                /* phased, read twice with the sums in registers, one row per item; swept without */
                ck_assert(L.register_cache == 0 && L.register_accumulators > 0 && L.column_sweep == 0 &&
                          L.rows_per_item == 1 && L.reread_vectors == L.register_accumulators);
                ck_assert_msg(L.work_groups % L.row_phase == 0, "cols %zu: %zu groups", cols, L.work_groups);
                ck_assert_uint_gt(O.column_sweep, 0);
            } else {
                ck_assert_msg(memcmp(&L, &O, sizeof L) == 0, "cols %zu: the plan changed", cols);
            }
            const int dx = CLNORM_PLAN_BACKWARD_DX | (r ? CLNORM_PLAN_BACKWARD_RES : 0);
            const clnorm_launch_info D = plan_of(ctx, dx, cols, shapes[i].dt), DO = plan_of(off, dx, cols, shapes[i].dt);
            ck_assert(memcmp(&D, &DO, sizeof D) == 0);
        }
    /* bf16 1023's frame is cached either way: the same phased plan; 32767 and 16384 keep theirs */
    ck_assert_uint_gt(plan_of(ctx, 1, 32767, CLNORM_BF16).column_sweep, 0);
    const clnorm_launch_info F = plan_of(ctx, 0, 12287, CLNORM_F32), FO = plan_of(off, 0, 12287, CLNORM_F32);
    ck_assert(memcmp(&F, &FO, sizeof F) == 0);
    clnorm_context_release(ctx);
    clnorm_context_release(off);
}
END_TEST

/* The balanced grid (bwd_balance / bwd_balance_rounds): a persistent backward grid of G groups over
 * B row blocks running R rounds takes, where R is at most balance_rounds, the fewest groups that
 * still run R rounds, at most balance percent fewer; never more groups, and the forward untouched
 * (fp32 plans at cols 2048) */
static clnorm_launch_info plan_rows(clnorm_context *ctx, int op, size_t rows)
{
    return plan_at(ctx, op, rows, 2048, CLNORM_F32);
}

static double fill_of(size_t blocks, size_t g)
{
    return (double)blocks / (double)(g * ((blocks + g - 1) / g));
}

START_TEST(plan_balance_rule)
{
    if (!groups_of_at_least(256, "plan_balance_rule"))
        return;
    /* groups of one 256-item row each (cols 2048, 2 vectors per item), as many per compute unit as
     * make at least 64 groups in all (5 % of them at least 3) but few enough for the loops below
     * (CI's PoCL, 2 units: 32 each; the H200, 132 units: 1) */
    clnorm_context *probe = test_context();
    const size_t per_cu = (64 + compute_units(probe) - 1) / compute_units(probe);
    char base[256];
    snprintf(base, sizeof base, "vec_bytes=16,bwd_target=2,bwd_tpr_max=256,bwd_wg=256,bwd_groups=%zu,bwd_ncache=2,"
             "fwd_groups=%zu", per_cu, per_cu);
    clnorm_context *off = gpu_context_with_tune2(base, "bwd_balance=0"),
                   *on = gpu_context_with_tune2(base, "bwd_balance=5,bwd_balance_rounds=32"),
                   *any = gpu_context_with_tune2(base, "bwd_balance=5,bwd_balance_rounds=0"),
                   *fwd = gpu_context_with_tune2(base, "fwd_balance=0"),
                   *fwd_on = gpu_context_with_tune2(base, "fwd_balance=5");
    const int ops[] = {1, 1 | CLNORM_PLAN_BACKWARD_RES, CLNORM_PLAN_BACKWARD_DX};
    for (size_t o = 0; o < sizeof ops / sizeof *ops; ++o) {
        const clnorm_launch_info big = plan_rows(off, ops[o], 1 << 22);
        const size_t G = big.work_groups, per = (size_t)big.rows_per_group * big.rows_per_item;
        ck_assert(G >= 64 && G < 64 + compute_units(probe));
        ck_assert_uint_eq(big.items_per_row, 256);
        /* 32 rounds of G - 1 groups: G - 1 (G groups would run 31 full rounds and one of G - 32) */
        size_t blocks = 32 * (G - 1);
        clnorm_launch_info L = plan_rows(on, ops[o], blocks * per);
        ck_assert_uint_eq(L.work_groups, G - 1);
        ck_assert_uint_eq(plan_rows(off, ops[o], blocks * per).work_groups, G);
        /* 33 rounds: over balance_rounds, unchanged; with no bound on rounds, balanced */
        blocks = 33 * (G - 1);
        ck_assert_uint_eq(plan_rows(on, ops[o], blocks * per).work_groups, G);
        ck_assert_uint_eq(plan_rows(any, ops[o], blocks * per).work_groups, G - 1);
        /* a multiple of G: already full, unchanged; no more blocks than groups: one each */
        ck_assert_uint_eq(plan_rows(on, ops[o], 7 * G * per).work_groups, G);
        ck_assert_uint_eq(plan_rows(on, ops[o], (G - 3) * per).work_groups, G - 3);
        /* every block count from G + 1 to 40G (no bound on rounds): as many rounds as G groups
         * run, in the fewest groups that do, but at most 5 % fewer; and no count in that range
         * with as many rounds is fuller */
        const size_t lo = G - G * 5 / 100;
        for (blocks = G + 1; blocks <= 40 * G; ++blocks) {
            const size_t g = plan_rows(any, ops[o], blocks * per).work_groups;
            const size_t R = (blocks + G - 1) / G, fewest = (blocks + R - 1) / R;
            ck_assert_uint_eq(g, fewest > lo ? fewest : lo);
            ck_assert_uint_eq((blocks + g - 1) / g, R);
            for (size_t h = lo; h <= G; ++h)
                if ((blocks + h - 1) / h == R)
                    ck_assert(fill_of(blocks, h) <= fill_of(blocks, g) + 1e-9);
        }
    }
    /* the forward's persistent grid (fwd_groups) takes fwd_balance, not bwd_balance */
    const clnorm_launch_info F = plan_rows(fwd, 0, 1 << 22);
    if (F.work_groups < ((size_t)1 << 22) / ((size_t)F.rows_per_group * F.rows_per_item)) { /* persistent */
        const size_t G = F.work_groups, per = (size_t)F.rows_per_group * F.rows_per_item;
        ck_assert_uint_eq(plan_rows(fwd, 0, 32 * (G - 1) * per).work_groups, G);
        ck_assert_uint_eq(plan_rows(fwd_on, 0, 32 * (G - 1) * per).work_groups, G - 1);
        clnorm_context *bwd_only = gpu_context_with_tune2(base, "bwd_balance=5,bwd_balance_rounds=32");
        ck_assert_uint_eq(plan_rows(bwd_only, 0, 32 * (G - 1) * per).work_groups, G);
        clnorm_context_release(bwd_only);
    }
    clnorm_context_release(off);
    clnorm_context_release(on);
    clnorm_context_release(any);
    clnorm_context_release(fwd);
    clnorm_context_release(fwd_on);
}
END_TEST

/* stream_tpr: dx-only rows that would stream at the derived items per row take that many items
 * (read twice where nacc vectors then hold them); rows that do not stream, and calls with
 * dweight/dbias, keep their plans */
START_TEST(plan_stream_tpr_rule)
{
    if (!groups_of_at_least(256, "plan_stream_tpr_rule"))
        return;
    const char *base = "vec_bytes=16,bwd_target=2,bwd_tpr_max=32,bwd_tpr_max_cached=0,bwd_ncache=1,bwd_ncache_dx=1,"
                       "bwd_nacc=2,bwd_acc_tpr_max=0";
    clnorm_context *off = gpu_context_with_tune2(base, "bwd_stream_tpr=0"),
                   *on = gpu_context_with_tune2(base, "bwd_stream_tpr=256");
    const int DX = CLNORM_PLAN_BACKWARD_DX, RES = CLNORM_PLAN_BACKWARD_RES;
    for (int r = 0; r < 2; ++r) {
        const int op = DX | (r ? RES : 0);
        /* 1024 vectors: streamed at 32 items, and still at 256 (4 vectors > nacc) */
        clnorm_launch_info L = plan_of(off, op, 4096, CLNORM_F32);
        ck_assert(L.items_per_row == 32 && L.register_cache == 0 && L.reread_vectors == 0);
        L = plan_of(on, op, 4096, CLNORM_F32);
        ck_assert(L.items_per_row == 256 && L.register_cache == 0 && L.reread_vectors == 0);
        /* 512 vectors: 256 items x 2, read twice */
        L = plan_of(on, op, 2048, CLNORM_F32);
        ck_assert(L.items_per_row == 256 && L.register_cache == 0 && L.reread_vectors == 2);
        /* 64 vectors: 32 items x 2 read twice already (not streamed); 32 vectors: 16 items x 2
         * likewise: unchanged */
        const size_t kept[] = {256, 128};
        for (size_t i = 0; i < 2; ++i) {
            const clnorm_launch_info A = plan_of(on, op, kept[i], CLNORM_F32), B = plan_of(off, op, kept[i], CLNORM_F32);
            ck_assert(A.items_per_row <= 32 && A.reread_vectors == 2 && memcmp(&A, &B, sizeof A) == 0);
        }
    }
    /* no more items than the row's vectors, in a power of two: 250 vectors (cols 1000) at
     * stream_tpr 1024 take 256 */
    clnorm_context *wide = gpu_context_with_tune2(base, "bwd_stream_tpr=1024");
    ck_assert_uint_eq(plan_of(wide, DX, 1000, CLNORM_F32).items_per_row, 256);
    ck_assert_uint_eq(plan_of(wide, DX, 4096, CLNORM_F32).items_per_row, 1024);
    clnorm_context_release(wide);
    /* calls with dweight/dbias and the forward: the plan without the rule */
    const int others[] = {1, 1 | RES, 0};
    for (size_t i = 0; i < 3; ++i) {
        const clnorm_launch_info A = plan_of(on, others[i], 4096, CLNORM_F32), B = plan_of(off, others[i], 4096, CLNORM_F32);
        ck_assert(memcmp(&A, &B, sizeof A) == 0);
    }
    clnorm_context_release(off);
    clnorm_context_release(on);
}
END_TEST

/* chan / chan16: the forward's statistics from one read (one_read_stats) only where the row
 * streams, its items are a power of two and each holds the same number of vectors, in chunks of
 * the largest power of two up to the key that divides that number; chan16 in all-16-bit calls,
 * chan in the others; never in the backward */
START_TEST(plan_chan_rule)
{
    if (!groups_of_at_least(1024, "plan_chan_rule"))
        return;
    /* one vector an item cached: longer rows stream, in 1024-item groups */
    const char *base = "vec_bytes=16,fwd_target=4,fwd_target16=4,fwd_ncache=1,fwd_groups=0,fwd_fit16=0,fwd_fit16_deep=0";
    clnorm_context *off = gpu_context_with_tune2(base, "fwd_chan=0,fwd_chan16=0"),
                   *on = gpu_context_with_tune2(base, "fwd_chan=4,fwd_chan16=2");
    /* fp32: 4096 vectors (cols 16384), 4 an item: one chunk of 4; the plan otherwise unchanged */
    clnorm_launch_info L = plan_of(on, 0, 16384, CLNORM_F32), B = plan_of(off, 0, 16384, CLNORM_F32);
    ck_assert(L.items_per_row == 1024 && L.register_cache == 0 && L.one_read_stats == 4);
    ck_assert(B.one_read_stats == 0);
    B.one_read_stats = L.one_read_stats;
    ck_assert(memcmp(&L, &B, sizeof L) == 0);
    static const struct {
        size_t cols;
        clnorm_dtype dt;
        unsigned items, cache, chan; /* items 0: any */
    } cases[] = {
        {32768, CLNORM_F32, 1024, 0, 4},  /* 8192 vectors, 8 an item: two chunks */
        {16384, CLNORM_BF16, 1024, 0, 2}, /* 2048 vectors (8 elements each), 2 an item: chan16's 2, not chan's 4 */
        {24576, CLNORM_F32, 1024, 0, 2},  /* 6144 vectors: 6 an item, chunks of 2 (4 does not divide 6) */
        {20480, CLNORM_F32, 1024, 0, 1},  /* 5120 vectors: 5 an item, chunks of 1 */
        {12288, CLNORM_BF16, 768, 0, 0},  /* 1536 vectors, 768 x 2: chunks fit, but 768 items are not a
                                             power of two (the merge across them pairs halves) */
        {16000, CLNORM_F32, 0, 0, 0},     /* 4000 vectors: the items would hold unequal shares */
        {2048, CLNORM_F32, 0, 1, 0},      /* cached (512 items x 1): keeps its reads */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        L = plan_of(on, 0, cases[i].cols, cases[i].dt);
        ck_assert_msg((!cases[i].items || L.items_per_row == cases[i].items) && L.register_cache == cases[i].cache &&
                          L.one_read_stats == cases[i].chan,
                      "cols %zu: %u items, cache %u, one_read_stats %u", cases[i].cols, L.items_per_row,
                      L.register_cache, L.one_read_stats);
    }
    /* the backward: never */
    const int ops[] = {1, CLNORM_PLAN_BACKWARD_DX, 1 | CLNORM_PLAN_BACKWARD_RES};
    for (size_t i = 0; i < 3; ++i) {
        const clnorm_launch_info X = plan_of(on, ops[i], 16384, CLNORM_F32), Y = plan_of(off, ops[i], 16384, CLNORM_F32);
        ck_assert(X.one_read_stats == 0 && memcmp(&X, &Y, sizeof X) == 0);
    }
    clnorm_context_release(off);
    clnorm_context_release(on);
}
END_TEST

static bool device_has_nv_attributes(const clnorm_context *ctx);

/* acc_local16 (the NVIDIA table's values, on since session 41: 1, from 3
 * vectors deep, cache16_lacc 4): all-16-bit calls with dweight/dbias whose row is cached in
 * full-width vectors in tpr_max16 items keep one sum vector per item in local memory, and rows 4
 * deep (beyond ncache 3) are cached where that applies */
START_TEST(plan_acc_local16_rule)
{
    if (!groups_of_at_least(512, "plan_acc_local16_rule"))
        return;
    const char *base = ACC16_BASE;
    clnorm_context *ctx = gpu_context_with_tune2(base, ACC16_ON);
    const int RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_launch_info L = plan_of(ctx, 1, 16384, CLNORM_BF16); /* 512 items x 4: beyond ncache */
    ck_assert_msg(L.items_per_row == 512 && L.register_cache == 4 && L.local_accumulators == 1 && L.raw_cache == 1,
                  "16384: %u items, cache %u, local %u", L.items_per_row, L.register_cache, L.local_accumulators);
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_BF16);
    ck_assert(L.register_cache == 4 && L.local_accumulators == 1);
    L = plan_of(ctx, 1, 12288, CLNORM_BF16); /* 3 deep, within ncache */
    ck_assert(L.register_cache == 3 && L.local_accumulators == 1);
    L = plan_of(ctx, 1, 8192, CLNORM_BF16); /* 2 deep: below acc_local16_nc */
    ck_assert(L.register_cache == 2 && L.local_accumulators == 0);
    L = plan_of(ctx, 1, 16392, CLNORM_BF16); /* 5 deep: beyond cache16_lacc, read twice */
    ck_assert(L.register_cache == 0 && L.local_accumulators == 0);
    L = plan_of(ctx, 1, 16380, CLNORM_BF16); /* 4-element vectors: not full width */
    ck_assert(L.vector_width == 4 && L.register_cache == 0 && L.local_accumulators == 0);
    L = plan_of(ctx, 1, 16384, CLNORM_F32); /* fp32: no */
    ck_assert(L.register_cache == 0 && L.local_accumulators == 0);
    L = plan_of(ctx, CLNORM_PLAN_BACKWARD_DX, 16384, CLNORM_BF16); /* no sums */
    ck_assert(L.local_accumulators == 0);
    clnorm_context_release(ctx);
    /* without acc_local16 the row 4 deep is read twice, whatever cache16_lacc says */
    ctx = gpu_context_with_tune2(base, "bwd_acc_local16=0,bwd_acc_local16_nc=3,bwd_cache16_lacc=4");
    L = plan_of(ctx, 1, 16384, CLNORM_BF16);
    ck_assert(L.register_cache == 0 && L.local_accumulators == 0);
    clnorm_context_release(ctx);
    /* 2 of the 4 vectors: 2 x 2 x 512 items x 32 bytes beside the row sums' 512 + 16 float2, where
     * local memory holds them (the H100's 48 KiB does not: the row is then read twice) */
    ctx = gpu_context_with_tune2(base, "bwd_acc_local16=2,bwd_acc_local16_nc=3,bwd_cache16_lacc=4");
    cl_ulong lmem = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
    const bool fits = 2u * 2 * 512 * 32 + (512 + 16) * 8 <= lmem;
    L = plan_of(ctx, 1, 16384, CLNORM_BF16);
    ck_assert_msg(fits ? L.register_cache == 4 && L.local_accumulators == 2 : L.register_cache == 0 && L.local_accumulators == 0,
                  "local memory %llu bytes: cache %u, %u local sum vectors", (unsigned long long)lmem, L.register_cache,
                  L.local_accumulators);
    clnorm_context_release(ctx);
    /* the L2 prefetch of the next row block (NVIDIA only: 0 elsewhere) from bwd_prefetch16_cols,
     * but not where a row without a residual gradient is cached more than
     * bwd_prefetch16_nores_nc_max vectors deep (the table's 3: 16384 4 deep) */
    const unsigned on = device_has_nv_attributes(test_context()) ? 1 : 0;
    const char *lacc = ACC16_ON ",bwd_prefetch16_cols=12288";
    char spec[512];
    snprintf(spec, sizeof spec, "%s,%s", lacc, "bwd_prefetch16_nores_nc_max=0");
    ctx = gpu_context_with_tune2(base, spec);
    snprintf(spec, sizeof spec, "%s,%s", lacc, "bwd_prefetch16_nores_nc_max=3");
    clnorm_context *bound = gpu_context_with_tune2(base, spec);
    snprintf(spec, sizeof spec, "%s,%s", lacc, "bwd_prefetch16_nores_nc_max=4");
    clnorm_context *bound4 = gpu_context_with_tune2(base, spec);
    L = plan_of(bound, 1, 16384, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 4 && L.l2_prefetch == 0, "16384: cache %u, prefetch %u", L.register_cache,
                  L.l2_prefetch);
    ck_assert_uint_eq(plan_of(bound, 1 | RES, 16384, CLNORM_BF16).l2_prefetch, on);  /* a residual gradient */
    ck_assert_uint_eq(plan_of(bound, 1, 12288, CLNORM_BF16).l2_prefetch, on);        /* 3 deep */
    ck_assert_uint_eq(plan_of(bound, 1, 8192, CLNORM_BF16).l2_prefetch, 0);          /* below prefetch16_cols */
    ck_assert_uint_eq(plan_of(bound4, 1, 16384, CLNORM_BF16).l2_prefetch, on);       /* within the bound */
    ck_assert_uint_eq(plan_of(ctx, 1, 16384, CLNORM_BF16).l2_prefetch, on);          /* no bound */
    ck_assert_uint_eq(plan_of(bound, CLNORM_PLAN_BACKWARD_DX, 16384, CLNORM_BF16).l2_prefetch, 0); /* no sums */
    clnorm_context_release(ctx);
    clnorm_context_release(bound);
    clnorm_context_release(bound4);
    /* the residual gradient loaded early (bwd_dr_early's budget holds 512 x 4 x 16 bytes), but not
     * in these rows cached more than bwd_dr_early16_nc_max vectors deep (the NVIDIA table's 3), where
     * the kernel gets the butterfly back on NVIDIA */
    const char *early = ACC16_ON ",bwd_dr_early=32768,bwd_ncache_dx=4";
    snprintf(spec, sizeof spec, "%s,%s", early, "bwd_dr_early16_nc_max=3");
    bound = gpu_context_with_tune2(base, spec);
    snprintf(spec, sizeof spec, "%s,%s", early, "bwd_dr_early16_nc_max=4");
    bound4 = gpu_context_with_tune2(base, spec);
    snprintf(spec, sizeof spec, "%s,%s", early, "bwd_dr_early16_nc_max=0");
    ctx = gpu_context_with_tune2(base, spec);
    L = plan_of(bound, 1 | RES, 16384, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 4 && L.local_accumulators == 1 && L.residual_early == 0,
                  "16384: cache %u, local %u, early %u", L.register_cache, L.local_accumulators, L.residual_early);
    L = plan_of(bound, 1 | RES, 12288, CLNORM_BF16); /* 3 deep: early */
    ck_assert_msg(L.register_cache == 3 && L.residual_early == 1, "12288: cache %u, early %u", L.register_cache,
                  L.residual_early);
    ck_assert_uint_eq(plan_of(bound4, 1 | RES, 16384, CLNORM_BF16).residual_early, 1); /* within the bound */
    ck_assert_uint_eq(plan_of(ctx, 1 | RES, 16384, CLNORM_BF16).residual_early, 1);    /* no bound */
    L = plan_of(bound, CLNORM_PLAN_BACKWARD_DX | RES, 16384, CLNORM_BF16); /* no sums: early */
    ck_assert_msg(L.register_cache == 4 && L.residual_early == 1, "dx_res 16384: cache %u, early %u", L.register_cache,
                  L.residual_early);
    clnorm_context_release(ctx);
    /* bwd_dr_early16_cols_min (NVIDIA's 15361 since 0.34.0; here 15368, a width the rule then
     * takes): the 4-deep rows below it keep the early load */
    snprintf(spec, sizeof spec, "%s,%s", early, "bwd_dr_early16_nc_max=3,bwd_dr_early16_cols_min=15368");
    ctx = gpu_context_with_tune2(base, spec);
    static const size_t keep[] = {14336, 15360}, drop[] = {15368, 16384};
    for (int i = 0; i < 2; ++i) {
        L = plan_of(ctx, 1 | RES, keep[i], CLNORM_BF16);
        ck_assert_msg(L.register_cache == 4 && L.local_accumulators == 1 && L.residual_early == 1,
                      "%zu, cols_min: cache %u, local %u, early %u", keep[i], L.register_cache, L.local_accumulators,
                      L.residual_early);
        ck_assert_uint_eq(plan_of(bound, 1 | RES, keep[i], CLNORM_BF16).residual_early, 0); /* no cols_min */
        L = plan_of(ctx, 1 | RES, drop[i], CLNORM_BF16);
        ck_assert_msg(L.register_cache == 4 && L.local_accumulators == 1 && L.residual_early == 0,
                      "%zu, cols_min: cache %u, local %u, early %u", drop[i], L.register_cache, L.local_accumulators,
                      L.residual_early);
    }
    clnorm_context_release(ctx);
    clnorm_context_release(bound);
    clnorm_context_release(bound4);
}
END_TEST

/* acc_local16's bounds: not in layouts other than tpr_max16 items (nor the fill rule's, where
 * tpr_max16 is 0), not where acc_local16 would take every sum vector, and cache16_lacc's deeper row
 * only where the local sums fit for the widest group the plan can take (bwd_wg's row slots) */
START_TEST(plan_acc_local16_bounds)
{
    if (!groups_of_at_least(1024, "plan_acc_local16_bounds"))
        return;
    const char *base = ACC16_BASE;
    clnorm_context *ctx = gpu_context_with_tune2(base, ACC16_ON);
    clnorm_launch_info L = plan_of(ctx, 1, 5120, CLNORM_BF16); /* 256 items x 3: not tpr_max16's layout */
    ck_assert(L.items_per_row == 256 && L.register_cache == 3 && L.local_accumulators == 0);
    clnorm_context_release(ctx);
    /* the fill rule's 64 x 5 at 2560 (tpr_max16 0): its own depth, the sums in registers */
    ctx = gpu_context_with_tune2(base, ACC16_ON ",bwd_fill16=5,bwd_tpr_max16=0");
    L = plan_of(ctx, 1, 2560, CLNORM_BF16);
    ck_assert(L.items_per_row == 64 && L.register_cache == 5 && L.local_accumulators == 0);
    clnorm_context_release(ctx);
    /* acc_local16 4 of a 4-deep row's 4 sum vectors: not fewer than all, so no deeper cache */
    ctx = gpu_context_with_tune2(base, "bwd_acc_local16=4,bwd_acc_local16_nc=3,bwd_cache16_lacc=4");
    L = plan_of(ctx, 1, 16384, CLNORM_BF16);
    ck_assert(L.register_cache == 0 && L.local_accumulators == 0);
    clnorm_context_release(ctx);
    /* 9216 bf16 in 16-element vectors: 64 items x 9, 8 sum vectors local. In 64-item groups 2 x 8 x
     * 64 x 64 bytes; with bwd_wg 1024 (16 rows per group) 2 x 8 x 1024 x 64 bytes, past 1 MiB */
    cl_ulong lmem = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
    const char *deep = "vec_bytes=32,bwd_nacc=16,bwd_tpr_max16=0,bwd_target16=9,bwd_ncache=8,bwd_acc_local16=8,"
                       "bwd_acc_local16_nc=9,bwd_cache16_lacc=9";
    static const unsigned wgs[] = {64, 1024}; /* 1 and 16 rows per group */
    for (size_t i = 0; i < 2; ++i) {
        char spec[512];
        snprintf(spec, sizeof spec, "%s,bwd_wg=%u", deep, wgs[i]);
        ctx = gpu_context_with_tune2(base, spec);
        /* the local sums and the row sums' scratch (an item's float2 and a warp's) */
        const bool fits = !lmem || 2u * 8 * wgs[i] * 64 + (wgs[i] + wgs[i] / 32) * 8 <= lmem;
        L = plan_of(ctx, 1, 9216, CLNORM_BF16);
        ck_assert_msg(L.items_per_row == 64 && L.rows_per_group == wgs[i] / 64 &&
                          (fits ? L.register_cache == 9 && L.local_accumulators == 8
                                : L.register_cache == 0 && L.local_accumulators == 0),
                      "local memory %llu bytes, %u-item groups: cache %u, local %u", (unsigned long long)lmem, wgs[i],
                      L.register_cache, L.local_accumulators);
        clnorm_context_release(ctx);
    }
}
END_TEST

/* dr_early counts the whole group's cached bytes: items x row slots x rows per item x vectors x
 * vector bytes (bf16 backward_res at 1024: 64 x 4 x 2 x 2 x 16 = 16384) */
START_TEST(plan_dr_early_group_bytes)
{
    if (!groups_of_at_least(256, "plan_dr_early_group_bytes"))
        return;
    const char *base = SLOTS16_BASE;
    clnorm_context *at = gpu_context_with_tune2(base, "bwd_dr_early=16384"),
                   *below = gpu_context_with_tune2(base, "bwd_dr_early=16383");
    const int RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_launch_info L = plan_of(at, 1 | RES, 1024, CLNORM_BF16);
    ck_assert(L.items_per_row == 64 && L.rows_per_group == 4 && L.rows_per_item == 2 && L.register_cache == 2 &&
              L.residual_early == 1);
    ck_assert_uint_eq(plan_of(below, 1 | RES, 1024, CLNORM_BF16).residual_early, 0);
    /* 4096: 256 x 1 x 2 x 2 x 16, the same bytes */
    ck_assert_uint_eq(plan_of(at, 1 | RES, 4096, CLNORM_BF16).residual_early, 1);
    ck_assert_uint_eq(plan_of(below, 1 | RES, 4096, CLNORM_BF16).residual_early, 0);
    clnorm_context_release(at);
    clnorm_context_release(below);
}
END_TEST

/* acc_local16's rule only at the table's full vector width and outside row phases: a bf16 row
 * narrowed to 4-element vectors (8188, 6140 columns) or in a phase frame (12281: the frame 3
 * deep) keeps every sum in registers, and a frame 4 deep is not cached at all */
START_TEST(plan_acc_local16_width_and_frame)
{
    if (!groups_of_at_least(1024, "plan_acc_local16_width_and_frame"))
        return;
    const char *lacc = ACC16_BASE "," ACC16_ON;
    clnorm_context *ctx = gpu_context_with_tune(lacc);
    clnorm_launch_info L = plan_of(ctx, 1, 8188, CLNORM_BF16);
    ck_assert_msg(L.vector_width == 4 && L.register_cache == 0 && L.local_accumulators == 0,
                  "8188: vec %u, cache %u, local %u", L.vector_width, L.register_cache, L.local_accumulators);
    L = plan_of(ctx, 1, 6140, CLNORM_BF16);
    ck_assert_msg(L.vector_width == 4 && L.register_cache == 3 && L.local_accumulators == 0,
                  "6140: vec %u, cache %u, local %u", L.vector_width, L.register_cache, L.local_accumulators);
    clnorm_context_release(ctx);
    ctx = gpu_context_with_tune2(lacc, "phase=1,phase_skip=0");
    L = plan_of(ctx, 1, 12281, CLNORM_BF16);
    ck_assert_msg(L.row_phase == 8 && L.register_cache == 3 && L.local_accumulators == 0,
                  "12281: phase %u, cache %u, local %u", L.row_phase, L.register_cache, L.local_accumulators);
    L = plan_of(ctx, 1, 12287, CLNORM_BF16);
    ck_assert_msg(L.row_phase == 0 && L.register_cache == 0, "12287: phase %u, cache %u", L.row_phase, L.register_cache);
    clnorm_context_release(ctx);
}
END_TEST

/* bwd_dr_early16_nc_max counts acc_local16's rows only: with a bound of 2 the 3-deep row with
 * local sums is not early, the 2-deep row (no local sums, below acc_local16_nc) still is */
START_TEST(plan_dr_early16_only_acc_local16_rows)
{
    if (!groups_of_at_least(512, "plan_dr_early16_only_acc_local16_rows"))
        return;
    clnorm_context *ctx = gpu_context_with_tune(ACC16_BASE "," ACC16_ON
                                                ",bwd_dr_early=32768,bwd_ncache_dx=4,bwd_dr_early16_nc_max=2");
    const int RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_launch_info L = plan_of(ctx, 1 | RES, 12288, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 3 && L.local_accumulators == 1 && L.residual_early == 0,
                  "12288: cache %u, local %u, early %u", L.register_cache, L.local_accumulators, L.residual_early);
    L = plan_of(ctx, 1 | RES, 8192, CLNORM_BF16);
    ck_assert_msg(L.local_accumulators == 0 && L.residual_early == 1, "8192: local %u, early %u", L.local_accumulators,
                  L.residual_early);
    clnorm_context_release(ctx);
}
END_TEST

/* Rows per item only where the row is cached or the sums are not in registers: f32 8192 at 512
 * items (4 vectors, beyond a cache of 2) reads its row twice with register sums, one row per item;
 * 4096 (2 deep, cached) takes bwd_rpi's 2 */
START_TEST(plan_rpi_not_twice_read)
{
    if (!groups_of_at_least(512, "plan_rpi_not_twice_read"))
        return;
    clnorm_context *ctx = gpu_context_with_tune("vec_bytes=16,bwd_target=2,bwd_tpr_max=512,bwd_tpr_max_cached=0,"
                                                "bwd_ncache=2,bwd_nacc=8,bwd_wg=256,bwd_rpi=2");
    clnorm_launch_info L = plan_of(ctx, 1, 8192, CLNORM_F32);
    ck_assert_msg(L.register_cache == 0 && L.register_accumulators == 4 && L.rows_per_item == 1,
                  "8192: cache %u, acc %u, rpi %u", L.register_cache, L.register_accumulators, L.rows_per_item);
    ck_assert_uint_eq(plan_of(ctx, 1, 4096, CLNORM_F32).rows_per_item, 2);
    clnorm_context_release(ctx);
}
END_TEST

/* bwd_pipe_vecs counts one register set's vectors over the whole group: items x row slots x rows
 * per item x depth, at bf16 1024 with the residual gradient 64 x 4 x 2 x 2 = 1024 */
START_TEST(plan_pipe_vecs_whole_group)
{
    if (!groups_of_at_least(256, "plan_pipe_vecs_whole_group"))
        return;
    const char *base = SLOTS16_BASE;
    const int RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_context *below = gpu_context_with_tune2(base, "bwd_pipe_vecs=512"),
                   *at = gpu_context_with_tune2(base, "bwd_pipe_vecs=1024");
    clnorm_launch_info L = plan_of(below, 1 | RES, 1024, CLNORM_BF16);
    ck_assert_msg(L.items_per_row == 64 && L.rows_per_group == 4 && L.rows_per_item == 2 && L.register_cache == 2 &&
                      L.pipelined == 0,
                  "1024: %u items, %u slots, rpi %u, cache %u, pipelined %u", L.items_per_row, L.rows_per_group,
                  L.rows_per_item, L.register_cache, L.pipelined);
    ck_assert_uint_eq(plan_of(at, 1 | RES, 1024, CLNORM_BF16).pipelined, 1);
    clnorm_context_release(below);
    clnorm_context_release(at);
}
END_TEST

/* The forward pipelines only on a persistent grid: with fwd_groups 0, one group per row (4096 rows)
 * and no pipeline */
START_TEST(plan_fwd_pipe_needs_persistent_grid)
{
    if (!groups_of_at_least(512, "plan_fwd_pipe_needs_persistent_grid"))
        return;
    clnorm_context *ctx = gpu_context_with_tune("vec_bytes=16,fwd_target=4,fwd_target16=4,fwd_tpr_max=512,fwd_wg=128,"
                                                "fwd_ncache=8,fwd_pipe=1,fwd_pipe_cols=5120,fwd_raw16=0,fwd_groups=0");
    clnorm_launch_info L = plan_of(ctx, 0, 8192, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 4 && L.pipelined == 0 && L.work_groups == 4096, "8192: cache %u, pipelined %u, %zu groups",
                  L.register_cache, L.pipelined, (size_t)L.work_groups);
    clnorm_context_release(ctx);
}
END_TEST

/* The fp32 residual calls' local sum vectors: deeper dx batches (dxb_res) with no tpr_max bound
 * at all (1024 items), and the local-memory test counts every row slot of the group (256 items x
 * 4 slots: 2 x 8 vectors of 64 bytes x 1024 items, just over PoCL's 1 MiB, so no local sums there;
 * one slot's 256 items would have fit) */
START_TEST(plan_acc_local_res_edges)
{
    if (!groups_of_at_least(1024, "plan_acc_local_res_edges"))
        return;
    const int RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_context *ctx = gpu_context_with_tune("vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=0,bwd_tpr_max_cached=0,"
                                                "bwd_ncache=2,bwd_nacc=8,bwd_wg=256,bwd_groups=4,bwd_dxb=2,"
                                                "bwd_acc_local_res=1,bwd_dxb_res=3");
    clnorm_launch_info L = plan_of(ctx, 1 | RES, 16384, CLNORM_F32);
    ck_assert_msg(L.items_per_row == 1024 && L.local_accumulators == 1 && L.reread_batch == 3,
                  "16384: %u items, local %u, batch %u", L.items_per_row, L.local_accumulators, L.reread_batch);
    clnorm_context_release(ctx);
    cl_ulong lmem = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
    ctx = gpu_context_with_tune("vec_bytes=64,bwd_tpr=256,bwd_wg=1024,bwd_ncache=0,bwd_nacc=16,bwd_dxb=2,"
                                "bwd_acc_local_res=8,bwd_dxb_res=3");
    const bool fits = !lmem || 2u * 8 * 1024 * 64 + (1024 + 32) * 8 <= lmem;
    L = plan_of(ctx, 1 | RES, 49152, CLNORM_F32);
    ck_assert_msg(L.items_per_row == 256 && L.rows_per_group == 4 && L.register_accumulators == 12 &&
                      L.local_accumulators == (fits ? 8u : 0u) && L.reread_batch == (fits ? 3u : 2u),
                  "49152: %u items, %u slots, acc %u, local %u, batch %u (local memory %llu)", L.items_per_row,
                  L.rows_per_group, L.register_accumulators, L.local_accumulators, L.reread_batch,
                  (unsigned long long)lmem);
    clnorm_context_release(ctx);
}
END_TEST

/* acc_local16's local-memory test counts rows per item (bwd_rpi16=4: 4 x the sums): where local
 * memory is 48 KiB (NVIDIA) the 16384 row is then read twice and the 12288 row keeps its sums in
 * registers; PoCL's 1 MiB holds both */
START_TEST(plan_acc_local16_rows_per_item_fit)
{
    if (!groups_of_at_least(1024, "plan_acc_local16_rows_per_item_fit"))
        return;
    cl_ulong lmem = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
    clnorm_context *ctx = gpu_context_with_tune(ACC16_BASE "," ACC16_ON ",bwd_rpi16=4");
    const bool f4 = !lmem || 2u * 512 * 8 * 4 + (512 + 16) * 8 * 4 <= lmem;
    clnorm_launch_info L = plan_of(ctx, 1, 16384, CLNORM_BF16);
    ck_assert_msg(f4 ? L.register_cache == 4 && L.local_accumulators == 1 && L.rows_per_item == 4 : L.register_cache == 0,
                  "16384 (local memory %llu): cache %u, local %u, rpi %u", (unsigned long long)lmem, L.register_cache,
                  L.local_accumulators, L.rows_per_item);
    L = plan_of(ctx, 1, 12288, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 3 && L.rows_per_item == 4 && L.local_accumulators == (f4 ? 1u : 0u),
                  "12288: cache %u, rpi %u, local %u", L.register_cache, L.rows_per_item, L.local_accumulators);
    clnorm_context_release(ctx);
}
END_TEST

/* The device-name refinement on the caller's real device (the NVIDIA row, no CLNORM_TUNE and no
 * CLNORM_DEVICE_CLASS): an H200's plans for the 4-deep 16-bit backward rows are those of its
 * settings (bwd_dr_early16_cols_min 0, bwd_prefetch16_nores_nc_max 0), any other NVIDIA GPU's
 * those of the row's (15361, 3), and the two differ (at 16384 without a residual gradient, the
 * prefetch). The white-box test in test_program_cache checks the rule on described devices; this
 * one checks that a context takes it. Elsewhere: skipped. */
static clnorm_context *device_context_with_tune(const char *tune) { return class_context_with_tune(NULL, tune); }

START_TEST(plan_device_name_refinement)
{
    char vendor[256] = "", name[256] = "";
    const cl_device_id dev = clnorm_context_device(test_context());
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL));
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL));
    if (!strstr(vendor, "NVIDIA")) {
        fprintf(stderr, "plan_device_name_refinement: skipped, not an NVIDIA device\n");
        return;
    }
    const bool h200 = strstr(name, "H200") != NULL;
    static const char *const h200_keys = "bwd_dr_early16_cols_min=0,bwd_prefetch16_nores_nc_max=0",
                             *const row_keys = "bwd_dr_early16_cols_min=15361,bwd_prefetch16_nores_nc_max=3";
    clnorm_context *plain = device_context_with_tune(NULL), *mine = device_context_with_tune(h200 ? h200_keys : row_keys),
                   *other = device_context_with_tune(h200 ? row_keys : h200_keys);
    static const size_t cols[] = {12288, 13312, 14336, 15360, 16384};
    int differ = 0;
    for (int i = 0; i < 5; ++i)
        for (int res = 0; res < 2; ++res) {
            const int op = 1 | (res ? CLNORM_PLAN_BACKWARD_RES : 0);
            const clnorm_launch_info a = plan_of(plain, op, cols[i], CLNORM_BF16), b = plan_of(mine, op, cols[i], CLNORM_BF16),
                                     c = plan_of(other, op, cols[i], CLNORM_BF16);
            ck_assert_msg(!memcmp(&a, &b, sizeof a), "%s: bf16 %zu%s: the plain context's plan is not the %s settings'",
                          name, cols[i], res ? " res" : "", h200 ? "H200" : "NVIDIA row");
            differ += memcmp(&a, &c, sizeof a) != 0;
        }
    /* (measured on these two: other NVIDIA GPUs may plan these widths without 4-deep rows) */
    if (h200 || strstr(name, "H100"))
        ck_assert_msg(differ > 0, "%s: the H200's and the row's settings gave the same plans", name);
    clnorm_context_release(plain);
    clnorm_context_release(mine);
    clnorm_context_release(other);
}
END_TEST

/* The row sums' butterfly (plans only: shfl=1 asks for NVIDIA's shuffles, which no kernel here is
 * built with): from bwd_bfly_tpr items, not in rows of one warp, and not in backward calls with
 * dweight/dbias whose residual gradient is loaded early (bwd_dr_early16_nc_max takes 16384's
 * early load away, and gives it the butterfly back); the dx-only calls keep it, early or not */
START_TEST(plan_bfly_rule)
{
    if (!groups_of_at_least(512, "plan_bfly_rule"))
        return;
    const char *base = ACC16_BASE "," ACC16_ON ",shfl=1,red_lanes=32,bwd_dr_early=32768,bwd_ncache_dx=4,bwd_bfly_tpr=512";
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    clnorm_context *rule = gpu_context_with_tune2(base, "bwd_dr_early16_nc_max=3"),
                   *none = gpu_context_with_tune2(base, "bwd_dr_early16_nc_max=0");
    clnorm_launch_info L = plan_of(rule, 1 | RES, 16384, CLNORM_BF16);
    ck_assert_msg(L.items_per_row == 512 && L.residual_early == 0 && L.row_sum_butterfly == 1,
                  "16384 res: %u items, early %u, butterfly %u", L.items_per_row, L.residual_early, L.row_sum_butterfly);
    L = plan_of(none, 1 | RES, 16384, CLNORM_BF16);
    ck_assert_msg(L.residual_early == 1 && L.row_sum_butterfly == 0, "16384 res, no bound: early %u, butterfly %u",
                  L.residual_early, L.row_sum_butterfly);
    L = plan_of(rule, 1 | RES, 12288, CLNORM_BF16); /* 3 deep: early, the loop */
    ck_assert_msg(L.residual_early == 1 && L.row_sum_butterfly == 0, "12288 res: early %u, butterfly %u",
                  L.residual_early, L.row_sum_butterfly);
    ck_assert_uint_eq(plan_of(rule, 1, 12288, CLNORM_BF16).row_sum_butterfly, 1);      /* no residual gradient */
    ck_assert_uint_eq(plan_of(rule, DX | RES, 16384, CLNORM_BF16).row_sum_butterfly, 1); /* no sums */
    ck_assert_uint_eq(plan_of(rule, DX | RES, 16384, CLNORM_BF16).residual_early, 1);
    L = plan_of(rule, 1, 4096, CLNORM_BF16); /* fewer items than bwd_bfly_tpr */
    ck_assert_msg(L.items_per_row < 512 && L.row_sum_butterfly == 0, "4096: %u items, butterfly %u", L.items_per_row,
                  L.row_sum_butterfly);
    ck_assert_uint_eq(plan_of(rule, 0, 16384, CLNORM_BF16).row_sum_butterfly, 0); /* fwd_bfly_tpr 0 here: off */
    clnorm_context_release(rule);
    clnorm_context_release(none);
    /* not without the shuffles */
    clnorm_context *noshfl = gpu_context_with_tune(
        "shfl=0,vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,bwd_tpr_max16=512,bwd_ncache=3,bwd_nacc=8,"
        "bwd_wg=256,bwd_bfly_tpr=512");
    ck_assert_uint_eq(plan_of(noshfl, 1, 16384, CLNORM_BF16).row_sum_butterfly, 0);
    clnorm_context_release(noshfl);
}
END_TEST

/* acc_tpr_max: more items only where nacc vectors then take a row the cache does not (at exactly
 * the cache's depth the row would be cached, which the tpr_max_cached rule alone decides) */
START_TEST(plan_acc_tpr_not_cached)
{
    if (!groups_of_at_least(1024, "plan_acc_tpr_not_cached"))
        return;
    clnorm_context *ctx = gpu_context_with_tune("vec_bytes=16,bwd_target=2,bwd_ncache=2,bwd_nacc=2,bwd_tpr_max=512,"
                                                "bwd_tpr_max_cached=0,bwd_acc_tpr_max=1024,bwd_wg=256");
    clnorm_launch_info L = plan_of(ctx, 1, 8192, CLNORM_F32); /* 1024 x 2 would be cached: 512 x 4 streamed */
    ck_assert(L.items_per_row == 512 && L.register_cache == 0 && L.register_accumulators == 0);
    clnorm_context_release(ctx);
}
END_TEST

/* acc_local_res: fp32 calls with dweight/dbias and a residual gradient in the twice-read regime
 * (sums in registers, row not cached) keep that many sum vectors per item in local memory and
 * re-read in batches of dxb_res; nowhere else */
START_TEST(plan_acc_local_res_rule)
{
    if (!groups_of_at_least(512, "plan_acc_local_res_rule"))
        return;
    const char *base = "vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,bwd_tpr_max_cached=0,bwd_tpr_max16=512,"
                       "bwd_ncache=2,bwd_nacc=8,bwd_wg=256,bwd_groups=4,bwd_dxb=2,bwd_dxb16=0";
    clnorm_context *ctx = gpu_context_with_tune2(base, "bwd_acc_local_res=1,bwd_dxb_res=3");
    const int RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_launch_info L = plan_of(ctx, 1 | RES, 16384, CLNORM_F32); /* 512 items x 8 sum vectors */
    ck_assert(L.register_cache == 0 && L.register_accumulators == 8 && L.local_accumulators == 1 && L.reread_batch == 3);
    L = plan_of(ctx, 1, 16384, CLNORM_F32); /* no residual gradient */
    ck_assert(L.register_accumulators == 8 && L.local_accumulators == 0 && L.reread_batch == 2);
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_BF16); /* 16-bit (in loop mode here) */
    ck_assert(L.register_cache == 0 && L.local_accumulators == 0 && L.reread_batch == 0);
    L = plan_of(ctx, 1 | RES, 4096, CLNORM_F32); /* cached */
    ck_assert(L.register_cache == 2 && L.local_accumulators == 0 && L.reread_batch == 0);
    L = plan_of(ctx, 1 | RES, 65536, CLNORM_F32); /* sums in the workspace */
    ck_assert(L.register_accumulators == 0 && L.local_accumulators == 0 && L.reread_batch == 0);
    L = plan_of(ctx, CLNORM_PLAN_BACKWARD_DX | RES, 16384, CLNORM_F32); /* no sums at all */
    ck_assert(L.local_accumulators == 0);
    ck_assert_uint_eq(plan_of(ctx, 0, 16384, CLNORM_F32).local_accumulators, 0);
    clnorm_context_release(ctx);
    /* as many as the sums themselves: none (8192: 4 sum vectors), and its batches stay dxb's */
    ctx = gpu_context_with_tune2(base, "bwd_acc_local_res=4,bwd_dxb_res=3");
    L = plan_of(ctx, 1 | RES, 8192, CLNORM_F32);
    ck_assert(L.register_accumulators == 4 && L.local_accumulators == 0 && L.reread_batch == 2);
    /* 16384: 4 of 8, where local memory holds 2 x 4 x 512 items x 16 bytes beside the row sums'
     * 512 + 16 float2 (the H200's 48 KiB does not: no local sums, dxb's batches) */
    cl_ulong lmem = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
    const bool fits = 2u * 4 * 512 * 16 + (512 + 16) * 8 <= lmem;
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_F32);
    ck_assert_msg(fits ? L.local_accumulators == 4 && L.reread_batch == 3 : L.local_accumulators == 0 && L.reread_batch == 2,
                  "local memory %llu bytes: %u local sum vectors, batches of %u", (unsigned long long)lmem,
                  L.local_accumulators, L.reread_batch);
    clnorm_context_release(ctx);
    /* dxb_res 0: dxb's batches; 16-bit calls in batches too: still none, and dxb16's batches */
    ctx = gpu_context_with_tune2(base, "bwd_acc_local_res=1,bwd_dxb16=2");
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_F32);
    ck_assert(L.local_accumulators == 1 && L.reread_batch == 2);
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_BF16);
    ck_assert(L.register_cache == 0 && L.local_accumulators == 0 && L.reread_batch == 2);
    clnorm_context_release(ctx);
    /* the loop (dxb 0): the local sums all the same, dxb_res's batches */
    ctx = gpu_context_with_tune2(base, "bwd_dxb=0,bwd_acc_local_res=1,bwd_dxb_res=3");
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_F32);
    ck_assert(L.local_accumulators == 1 && L.reread_batch == 3);
    L = plan_of(ctx, 1, 16384, CLNORM_F32);
    ck_assert(L.local_accumulators == 0 && L.reread_batch == 0);
    clnorm_context_release(ctx);
}
END_TEST

/* acc_groups caps the persistent grid of the twice-read regime (sums in registers, row not cached)
 * per compute unit, and only there */
START_TEST(plan_acc_groups_cap)
{
    if (!groups_of_at_least(512, "plan_acc_groups_cap"))
        return;
    const char *base = "vec_bytes=16,bwd_target=2,bwd_tpr_max=512,bwd_tpr_max_cached=0,bwd_ncache=2,bwd_nacc=8,"
                       "bwd_wg=256,bwd_groups=4";
    clnorm_context *a = gpu_context_with_tune(base), *b = gpu_context_with_tune2(base, "bwd_acc_groups=1");
    /* 8192 fp32: 512 items x 4 vectors of sums, not cached: 4 x 256 items = 2 groups of 512 per
     * compute unit, capped at 1 */
    clnorm_launch_info La = plan_of(a, 1, 8192, CLNORM_F32), Lb = plan_of(b, 1, 8192, CLNORM_F32);
    ck_assert(La.register_cache == 0 && La.register_accumulators == 4 && Lb.register_accumulators == 4);
    ck_assert_uint_eq(La.work_groups, 2 * Lb.work_groups);
    /* cached rows, dx-only calls and sums in the workspace keep their grid */
    ck_assert_uint_eq(plan_of(a, 1, 4096, CLNORM_F32).work_groups, plan_of(b, 1, 4096, CLNORM_F32).work_groups);
    ck_assert_uint_eq(plan_of(a, CLNORM_PLAN_BACKWARD_DX, 8192, CLNORM_F32).work_groups,
                      plan_of(b, CLNORM_PLAN_BACKWARD_DX, 8192, CLNORM_F32).work_groups);
    ck_assert_uint_eq(plan_of(a, 1, 65536, CLNORM_F32).work_groups, plan_of(b, 1, 65536, CLNORM_F32).work_groups);
    clnorm_context_release(a);
    clnorm_context_release(b);
}
END_TEST

/* groups16 / groups16_res: the persistent grid of cached all-16-bit calls with dweight/dbias (and
 * with a residual gradient) takes that many groups per compute unit of the table's size; other
 * calls keep groups_per_cu */
START_TEST(plan_groups16_rule)
{
    if (!groups_of_at_least(1024, "plan_groups16_rule"))
        return;
    const size_t cus = compute_units(test_context());
    const char *base = "vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,bwd_tpr_max_cached=0,bwd_tpr_max16=512,"
                       "bwd_ncache=3,bwd_nacc=8,bwd_wg=256,bwd_groups=4,bwd_rpi16=1,bwd_rpi16_res=1,bwd_fill16=0,"
                       "bwd_acc_groups=0,bwd_pipe=0";
    clnorm_context *a = gpu_context_with_tune(base), *b = gpu_context_with_tune2(base, "bwd_groups16=2,bwd_groups16_res=1");
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    /* bf16 at cols 4096: 512 vectors of 8, 256 items x 2 cached, one row a group */
    clnorm_launch_info La = plan_of(a, 1, 4096, CLNORM_BF16), Lb = plan_of(b, 1, 4096, CLNORM_BF16);
    ck_assert(La.register_cache == 2 && La.work_group_size == 256 && Lb.register_cache == 2);
    ck_assert_uint_eq(La.work_groups, 4 * cus);
    ck_assert_uint_eq(Lb.work_groups, 2 * cus);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 4096, CLNORM_BF16).work_groups, 4 * cus);
    ck_assert_uint_eq(plan_of(b, 1 | RES, 4096, CLNORM_BF16).work_groups, cus);
    /* bf16 at cols 8192: 512-item groups, half as many (the residual gradient's: at least one) */
    ck_assert_uint_eq(plan_of(b, 1, 8192, CLNORM_BF16).work_group_size, 512);
    ck_assert_uint_eq(plan_of(b, 1, 8192, CLNORM_BF16).work_groups, cus);
    ck_assert_uint_eq(plan_of(b, 1 | RES, 8192, CLNORM_BF16).work_groups, cus);
    /* not: fp32, dx-only calls, rows not cached (bf16 at 65536: 8192 vectors, 16 per item) */
    ck_assert_uint_eq(plan_of(b, 1, 4096, CLNORM_F32).work_groups, plan_of(a, 1, 4096, CLNORM_F32).work_groups);
    ck_assert_uint_eq(plan_of(b, DX, 4096, CLNORM_BF16).work_groups, plan_of(a, DX, 4096, CLNORM_BF16).work_groups);
    ck_assert_uint_eq(plan_of(b, DX | RES, 4096, CLNORM_BF16).work_groups,
                      plan_of(a, DX | RES, 4096, CLNORM_BF16).work_groups);
    ck_assert_uint_eq(plan_of(b, 1, 65536, CLNORM_BF16).register_cache, 0);
    ck_assert_uint_eq(plan_of(b, 1, 65536, CLNORM_BF16).work_groups, plan_of(a, 1, 65536, CLNORM_BF16).work_groups);
    clnorm_context_release(a);
    clnorm_context_release(b);
}
END_TEST

/* short16_*: all-16-bit calls with dweight/dbias of at most short16_cols columns take narrower
 * vectors and their own groups per compute unit (with a residual gradient: fewer vectors per item
 * and their own groups); longer rows, fp32 calls and dx-only calls keep the table's plan */
START_TEST(plan_short16_rule)
{
    if (!groups_of_at_least(1024, "plan_short16_rule"))
        return;
    const size_t cus = compute_units(test_context());
    const char *base = "vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,bwd_tpr_max_cached=0,bwd_tpr_max16=512,"
                       "bwd_ncache=3,bwd_nacc=8,bwd_wg=256,bwd_groups=4,bwd_rpi16=1,bwd_rpi16_res=2,bwd_fill16=0,"
                       "bwd_acc_groups=0,bwd_pipe=0,bwd_groups16=2,bwd_groups16_res=1";
    clnorm_context *a = gpu_context_with_tune(base),
                   *b = gpu_context_with_tune2(base, "bwd_short16_cols=64,bwd_short16_vec_bytes=8,bwd_short16_groups=3,"
                                                     "bwd_short16_target_res=1,bwd_short16_groups_res=3");
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    /* (2^20 rows: enough row blocks for every grid below on any device of up to 1024 units) */
#define plan_s(ctx, op, cols, dt) plan_at(ctx, op, (size_t)1 << 20, cols, dt)
    /* bf16 at cols 64: 8 vectors of 8, 4 items x 2 (64 rows of 4 items a group, 2 groups of 256
     * items per compute unit) -> 16 vectors of 4, 8 items x 2, 3 groups */
    clnorm_launch_info La = plan_s(a, 1, 64, CLNORM_BF16), Lb = plan_s(b, 1, 64, CLNORM_BF16);
    ck_assert(La.vector_width == 8 && La.items_per_row == 4 && La.register_cache == 2);
    ck_assert_uint_eq(La.work_groups, 2 * cus);
    ck_assert(Lb.vector_width == 4 && Lb.items_per_row == 8 && Lb.register_cache == 2);
    ck_assert_uint_eq(Lb.work_groups, 3 * cus);
    /* with the residual gradient: 8 items x 1 vector of 8, 3 groups instead of 1 */
    La = plan_s(a, 1 | RES, 64, CLNORM_BF16);
    Lb = plan_s(b, 1 | RES, 64, CLNORM_BF16);
    ck_assert(La.vector_width == 8 && La.items_per_row == 4);
    ck_assert_uint_eq(La.work_groups, cus);
    ck_assert(Lb.vector_width == 8 && Lb.items_per_row == 8 && Lb.register_cache == 1);
    ck_assert_uint_eq(Lb.work_groups, 3 * cus);
    /* cols 32 too; 48 only with the residual gradient (a power of two without it); not: cols
     * 128, fp32, dx-only calls */
    ck_assert_uint_eq(plan_s(b, 1, 32, CLNORM_BF16).vector_width, 4);
    ck_assert_uint_eq(plan_s(b, 1, 48, CLNORM_BF16).vector_width, 8);
    ck_assert_uint_eq(plan_s(b, 1, 48, CLNORM_BF16).work_groups, plan_s(a, 1, 48, CLNORM_BF16).work_groups);
    ck_assert_uint_eq(plan_s(b, 1 | RES, 48, CLNORM_BF16).work_groups, 3 * cus);
    ck_assert_uint_eq(plan_s(b, 1, 128, CLNORM_BF16).vector_width, 8);
    ck_assert_uint_eq(plan_s(b, 1, 128, CLNORM_BF16).work_groups, plan_s(a, 1, 128, CLNORM_BF16).work_groups);
    ck_assert_uint_eq(plan_s(b, 1 | RES, 128, CLNORM_BF16).items_per_row, plan_s(a, 1 | RES, 128, CLNORM_BF16).items_per_row);
    ck_assert_uint_eq(plan_s(b, 1, 64, CLNORM_F32).vector_width, plan_s(a, 1, 64, CLNORM_F32).vector_width);
    ck_assert_uint_eq(plan_s(b, 1, 64, CLNORM_F32).work_groups, plan_s(a, 1, 64, CLNORM_F32).work_groups);
    ck_assert_uint_eq(plan_s(b, DX, 64, CLNORM_BF16).vector_width, 8);
    ck_assert_uint_eq(plan_s(b, DX, 64, CLNORM_BF16).work_groups, plan_s(a, DX, 64, CLNORM_BF16).work_groups);
    ck_assert_uint_eq(plan_s(b, DX | RES, 64, CLNORM_BF16).items_per_row, plan_s(a, DX | RES, 64, CLNORM_BF16).items_per_row);
    clnorm_context_release(a);
    clnorm_context_release(b);
    /* the short rows' groups only where the row is cached: with bwd_ncache 0 the short16 layout
     * keeps its vectors but not its group counts */
    char spec[768];
    snprintf(spec, sizeof spec, "%s,bwd_ncache=0,bwd_short16_cols=64,bwd_short16_vec_bytes=8,bwd_short16_target_res=1", base);
    clnorm_context *c = gpu_context_with_tune(spec);
    clnorm_context *d = gpu_context_with_tune2(spec, "bwd_short16_groups=3,bwd_short16_groups_res=3");
    for (int o = 0; o < 2; ++o) {
        const int op = o ? 1 | RES : 1;
        const clnorm_launch_info Lc = plan_s(c, op, 64, CLNORM_BF16), Ld = plan_s(d, op, 64, CLNORM_BF16);
        ck_assert_msg(Ld.register_cache == 0 && Ld.work_groups == Lc.work_groups && Ld.work_groups != 3 * cus,
                      "op %d: cache %u, %zu groups against %zu", op, Ld.register_cache, Ld.work_groups, Lc.work_groups);
    }
    clnorm_context_release(c);
    clnorm_context_release(d);
}
#undef plan_s
END_TEST

/* Whether ctx's device reports NVIDIA's compute capability (cl_nv_device_attribute_query): the
 * plan's inline-PTX paths (the L2 prefetch) need it, whatever the table row */
static bool device_has_nv_attributes(const clnorm_context *ctx)
{
    size_t n = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_EXTENSIONS, 0, NULL, &n));
    char *ext = xcalloc(n + 1, 1);
    CL_OK(clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_EXTENSIONS, n, ext, NULL));
    const bool nv = strstr(ext, "cl_nv_device_attribute_query") != NULL;
    free(ext);
    return nv;
}

/* The pipelined forward's L2 prefetch two row blocks ahead (fwd_pipe_prefetch_cols): pipelined
 * calls whose x is cached in fp32, from that many cols on, on NVIDIA devices only (inline PTX);
 * not the raw cache, not unpipelined calls; elsewhere l2_prefetch stays 0 whatever the key. And
 * the backward's one block ahead (bwd_prefetch16_cols) where its sums are in registers. */
START_TEST(plan_fwd_prefetch_rule)
{
    if (!groups_of_at_least(512, "plan_fwd_prefetch_rule"))
        return;
    const unsigned on = device_has_nv_attributes(test_context()) ? 2 : 0;
    const char *base = "vec_bytes=16,fwd_target=4,fwd_target16=4,fwd_tpr_max=512,fwd_wg=128,fwd_ncache=8,fwd_groups=4,"
                       "fwd_pipe=1,fwd_pipe_cols=0,fwd_fit16=0,fwd_fit16_deep=0,fwd_raw16_vecs=0,fwd_raw16=0";
    clnorm_context *a = gpu_context_with_tune2(base, "fwd_pipe_prefetch_cols=2048"),
                   *raw = gpu_context_with_tune2(base, "fwd_pipe_prefetch_cols=2048,fwd_raw16=1"),
                   *off = gpu_context_with_tune2(base, "fwd_pipe_prefetch_cols=0");
    const size_t rows = (size_t)1 << 16;
    /* bf16 / fp16 at 4096 and at the bound, 2048: 128 / 64 items x 4 vectors of 8, pipelined */
    const size_t cols[] = {4096, 2048};
    const clnorm_dtype dts[] = {CLNORM_BF16, CLNORM_F16};
    for (size_t i = 0; i < 2; ++i)
        for (size_t j = 0; j < 2; ++j) {
            const clnorm_launch_info L = plan_at(a, 0, rows, cols[i], dts[j]);
            ck_assert_msg(L.pipelined && !L.raw_cache && L.l2_prefetch == on, "cols %zu: pipelined %u raw %u l2_prefetch %u",
                          cols[i], L.pipelined, L.raw_cache, L.l2_prefetch);
            ck_assert_uint_eq(plan_at(off, 0, rows, cols[i], dts[j]).l2_prefetch, 0);
        }
    /* below the bound; the raw cache; an fp32 call (not pipelined: fwd_pipe 1) */
    clnorm_launch_info L = plan_at(a, 0, rows, 1024, CLNORM_BF16);
    ck_assert(L.pipelined && L.l2_prefetch == 0);
    L = plan_at(raw, 0, rows, 4096, CLNORM_BF16);
    ck_assert(L.pipelined && L.raw_cache && L.l2_prefetch == 0);
    L = plan_at(a, 0, rows, 4096, CLNORM_F32);
    ck_assert(!L.pipelined && L.l2_prefetch == 0);
    /* the backward: none from the forward's key; one block ahead with bwd_prefetch16_cols where the
     * bf16 row at 16384 is read twice, its sums in 4 of bwd_nacc's 8 vectors */
    ck_assert_uint_eq(plan_at(a, 1, rows, 16384, CLNORM_BF16).l2_prefetch, 0);
    clnorm_context *b = gpu_context_with_tune(NV_BWD_BASE ",bwd_tpr_max16=512,bwd_prefetch16_cols=8192");
    L = plan_at(b, 1, rows, 16384, CLNORM_BF16);
    ck_assert(L.register_cache == 0 && L.register_accumulators == 4 && L.l2_prefetch == on / 2);
    ck_assert_uint_eq(plan_at(b, 1, rows, 4096, CLNORM_BF16).l2_prefetch, 0);
    clnorm_context_release(a);
    clnorm_context_release(raw);
    clnorm_context_release(off);
    clnorm_context_release(b);
}
END_TEST

/* The L2 prefetch of the row block being read too (l2_prefetch_current; NVIDIA only, 0 elsewhere):
 * from bwd_prefetch_cur_cols in calls with dweight/dbias whose widest element is 4 bytes and whose
 * row is read twice beside the sums in registers, with or without a residual gradient (the next
 * block's prefetch then on whatever bwd_prefetch_cols says); in all-16-bit calls with a residual
 * gradient where bwd_prefetch16_cols has the prefetch on (bwd_prefetch16_cur_res); never where
 * the fp32 row is cached, without sums (dx only) or in 16-bit calls without a residual gradient */
START_TEST(plan_prefetch_current_rule)
{
    if (!groups_of_at_least(512, "plan_prefetch_current_rule"))
        return;
    const unsigned on = device_has_nv_attributes(test_context()) ? 1 : 0;
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    const char *keys = "bwd_prefetch_cols=0,bwd_prefetch16_cols=8192,bwd_prefetch_cur_cols=8192,bwd_prefetch16_cur_res=1";
    clnorm_context *ctx = gpu_context_with_tune2(NV_BWD_BASE, keys),
                   *off = gpu_context_with_tune2(NV_BWD_BASE, "bwd_prefetch_cols=0,bwd_prefetch16_cols=8192,"
                                                              "bwd_prefetch_cur_cols=0,bwd_prefetch16_cur_res=0"),
                   *above = gpu_context_with_tune2(NV_BWD_BASE, "bwd_prefetch_cols=0,bwd_prefetch_cur_cols=16385");
    /* fp32 at 16384: 512 items x 8 sum vectors, the row read twice */
    clnorm_launch_info L = plan_of(ctx, 1, 16384, CLNORM_F32);
    ck_assert_msg(L.items_per_row == 512 && L.register_cache == 0 && L.register_accumulators == 8 &&
                      L.l2_prefetch == on && L.l2_prefetch_current == on,
                  "fp32 16384: %u items, cache %u, sums %u, prefetch %u / %u", L.items_per_row, L.register_cache,
                  L.register_accumulators, L.l2_prefetch, L.l2_prefetch_current);
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_F32);
    ck_assert(L.register_cache == 0 && L.l2_prefetch == on && L.l2_prefetch_current == on);
    L = plan_of(ctx, 1, 8192, CLNORM_F32); /* 4 vectors, beyond bwd_ncache's 3: read twice, from the key on */
    ck_assert(L.register_cache == 0 && L.l2_prefetch == on && L.l2_prefetch_current == on);
    L = plan_of(ctx, 1, 6144, CLNORM_F32); /* 3 vectors: cached, and below the key */
    ck_assert(L.register_cache == 3 && L.l2_prefetch == 0 && L.l2_prefetch_current == 0);
    L = plan_of(ctx, DX, 16384, CLNORM_F32); /* no sums */
    ck_assert(L.l2_prefetch == 0 && L.l2_prefetch_current == 0);
    L = plan_of(ctx, DX | RES, 16384, CLNORM_F32);
    ck_assert(L.l2_prefetch == 0 && L.l2_prefetch_current == 0);
    L = plan_of(above, 1, 16384, CLNORM_F32); /* below the key */
    ck_assert(L.register_cache == 0 && L.l2_prefetch == 0 && L.l2_prefetch_current == 0);
    L = plan_of(off, 1 | RES, 16384, CLNORM_F32);
    ck_assert(L.register_cache == 0 && L.l2_prefetch == 0 && L.l2_prefetch_current == 0);
    /* bf16 at 16384: read twice, sums in 4 of the 8 vectors, the next block prefetched from
     * bwd_prefetch16_cols; the block being read too only with a residual gradient */
    L = plan_of(ctx, 1 | RES, 16384, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 0 && L.register_accumulators == 4 && L.l2_prefetch == on &&
                      L.l2_prefetch_current == on,
                  "bf16 16384 with a residual gradient: cache %u, sums %u, prefetch %u / %u", L.register_cache,
                  L.register_accumulators, L.l2_prefetch, L.l2_prefetch_current);
    L = plan_of(ctx, 1, 16384, CLNORM_BF16);
    ck_assert(L.l2_prefetch == on && L.l2_prefetch_current == 0);
    L = plan_of(ctx, 1 | RES, 4096, CLNORM_BF16); /* below bwd_prefetch16_cols: neither */
    ck_assert(L.l2_prefetch == 0 && L.l2_prefetch_current == 0);
    L = plan_of(off, 1 | RES, 16384, CLNORM_BF16);
    ck_assert(L.l2_prefetch == on && L.l2_prefetch_current == 0);
    /* the forward never */
    ck_assert_uint_eq(plan_of(ctx, 0, 16384, CLNORM_F32).l2_prefetch_current, 0);
    /* with bwd_prefetch16_cur_dr, 2 (the residual gradient's rows too) where the 16-bit row is
     * cached (12288: 3 deep) and the residual gradient not loaded early; 1 where it is, in rows
     * read twice, in fp32 calls, and without the key */
    char spec[512];
    snprintf(spec, sizeof spec, "%s,bwd_prefetch16_cur_dr=1,bwd_dr_early=0", keys);
    clnorm_context *dr = gpu_context_with_tune2(NV_BWD_BASE, spec);
    snprintf(spec, sizeof spec, "%s,bwd_prefetch16_cur_dr=1,bwd_dr_early=1048576", keys);
    clnorm_context *early = gpu_context_with_tune2(NV_BWD_BASE, spec);
    L = plan_of(dr, 1 | RES, 12288, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 3 && L.residual_early == 0 && L.l2_prefetch == on && L.l2_prefetch_current == 2 * on,
                  "bf16 12288, not early: cache %u, early %u, prefetch %u / %u", L.register_cache, L.residual_early,
                  L.l2_prefetch, L.l2_prefetch_current);
    L = plan_of(early, 1 | RES, 12288, CLNORM_BF16);
    ck_assert_msg(L.register_cache == 3 && L.residual_early == 1 && L.l2_prefetch_current == on,
                  "bf16 12288, early: cache %u, early %u, prefetch %u", L.register_cache, L.residual_early,
                  L.l2_prefetch_current);
    ck_assert_uint_eq(plan_of(dr, 1 | RES, 16384, CLNORM_BF16).l2_prefetch_current, on); /* read twice */
    ck_assert_uint_eq(plan_of(dr, 1 | RES, 16384, CLNORM_F32).l2_prefetch_current, on);  /* fp32 */
    ck_assert_uint_eq(plan_of(dr, 1, 12288, CLNORM_BF16).l2_prefetch_current, 0);        /* no residual gradient */
    snprintf(spec, sizeof spec, "%s,bwd_dr_early=0", keys);
    clnorm_context *nokey = gpu_context_with_tune2(NV_BWD_BASE, spec);
    ck_assert_uint_eq(plan_of(nokey, 1 | RES, 12288, CLNORM_BF16).l2_prefetch_current, on);
    clnorm_context_release(ctx);
    clnorm_context_release(off);
    clnorm_context_release(above);
    clnorm_context_release(dr);
    clnorm_context_release(early);
    clnorm_context_release(nokey);
}
END_TEST

/* The second read goes in batches only in calls with dweight/dbias (sums in registers, row not
 * cached), by element width; a dx-only call whose row is not cached keeps the loop */
START_TEST(plan_reread_batch_rule)
{
    if (!groups_of_at_least(512, "plan_reread_batch_rule"))
        return;
    clnorm_context *ctx = gpu_context_with_tune("vec_bytes=16,bwd_target=2,bwd_target16=2,bwd_tpr_max=512,"
                                                "bwd_tpr_max_cached=0,bwd_tpr_max16=0,bwd_ncache=2,bwd_ncache_dx=0,"
                                                "bwd_nacc=8,bwd_dxb=2,bwd_dxb16=3");
    clnorm_launch_info L = plan_of(ctx, 1, 8192, CLNORM_F32); /* 2048 vectors: 512 x 4, sums in registers */
    ck_assert(L.register_cache == 0 && L.register_accumulators == 4 && L.reread_batch == 2);
    L = plan_of(ctx, 1 | CLNORM_PLAN_BACKWARD_RES, 8192, CLNORM_F32);
    ck_assert(L.register_cache == 0 && L.reread_batch == 2);
    L = plan_of(ctx, 1, 16384, CLNORM_BF16); /* 2048 vectors of 8 bf16 */
    ck_assert(L.register_cache == 0 && L.register_accumulators == 4 && L.reread_batch == 3);
    L = plan_of(ctx, CLNORM_PLAN_BACKWARD_DX, 8192, CLNORM_F32);
    ck_assert(L.register_cache == 0 && L.register_accumulators == 0 && L.reread_batch == 0);
    L = plan_of(ctx, 1, 4096, CLNORM_F32); /* 1024 vectors: 512 x 2, cached */
    ck_assert(L.register_cache == 2 && L.reread_batch == 0);
    L = plan_of(ctx, 1, 65536, CLNORM_F32); /* 32 vectors per item: the sums stream through the workspace */
    ck_assert(L.register_cache == 0 && L.register_accumulators == 0 && L.reread_batch == 0);
    clnorm_context_release(ctx);
}
END_TEST


/* Whether the test device is PoCL's CPU device on this x86 host, and the host has no AVX-512: the
 * library then takes local_row_kib_avx2 as the local row's bound (params.c). */
static bool pocl_x86_without_avx512(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    cl_device_type type = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_TYPE, sizeof type, &type, NULL));
    __builtin_cpu_init();
    return (type & CL_DEVICE_TYPE_CPU) && test_pocl_platform() && !__builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

/* The backward's local row on AVX512_BF16 PoCL hosts: by default within the host's L1 data cache as
 * well as the table's 48 KiB (session 36's Zen 4 has 32 KiB and lost with 48); an explicit
 * bwd_local_row_kib_intel_bf16 is taken as given. Dx-only rows, one per item, without the weight's
 * copy need 2 * cols floats: `fit` columns are the widest within the bound, `over` 16 more. */
START_TEST(plan_bwd_local_row_fits_l1d)
{
    const bool bf16 = test_pocl_x86_avx512_bf16();
#ifdef _SC_LEVEL1_DCACHE_SIZE
    const long l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
#else
    const long l1d = 0;
#endif
    /* (under 1 KiB: unknown to the library too, which keeps the table's 48) */
    const size_t kib = l1d >= 1024 && l1d / 1024 < 48 ? (size_t)l1d / 1024 : 48;
    const size_t fit = kib * 1024 / 8 / 16 * 16, over = fit + 16;
    const int DX = CLNORM_PLAN_BACKWARD_DX;
    clnorm_context *dflt = class_context_with_tune("cpu", "bwd_local_row_kib_avx2=0"),
                   *given = class_context_with_tune("cpu", "bwd_local_row_kib_avx2=0,bwd_local_row_kib_intel_bf16=48");
    ck_assert_uint_eq(plan_of(dflt, DX, fit, CLNORM_BF16).local_row, bf16);
    ck_assert_uint_eq(plan_of(dflt, DX, over, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(given, DX, fit, CLNORM_BF16).local_row, bf16);
    ck_assert_uint_eq(plan_of(given, DX, over, CLNORM_BF16).local_row, bf16 && over * 8 <= 48 * 1024);
    clnorm_context_release(dflt);
    clnorm_context_release(given);
}
END_TEST

/* The AVX512_BF16 store (common.cl's vcvtneps2bf16 with its zero-exponent fix-up) is taken only
 * after probe.c's bitwise check of it passes; a probe that fails falls back to the portable rounding
 * with the same results, so no other test would notice. Here, from the options CLNORM_BUILD_LOG
 * writes to a file: a fresh context's bf16 forward and backward kernels (the table's own plans:
 * CLNORM_TUNE and CLNORM_DEVICE_CLASS unset while it is made) build with X86_BF16 on a PoCL host
 * whose CPU has AVX512_BF16, and without it anywhere else. */
START_TEST(x86_bf16_stores_where_the_cpu_has_them)
{
    const bool want = test_pocl_x86_avx512_bf16();
    char path[] = "/tmp/clnorm-build-log-XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    static const char *const vars[] = {"CLNORM_BUILD_LOG", "CLNORM_TUNE", "CLNORM_DEVICE_CLASS"};
    char *saved[3];
    for (int i = 0; i < 3; ++i) {
        saved[i] = save_env(vars[i]);
        unsetenv(vars[i]);
    }
    setenv("CLNORM_BUILD_LOG", path, 1);
    clnorm_context *ctx = NULL;
    const clnorm_status st = clnorm_context_create(NULL, &ctx);
    for (int i = 1; i < 3; ++i) /* the context has read them; the log is read per build */
        restore_env(vars[i], saved[i]);
    ck_assert_msg(st == CLNORM_SUCCESS, "%s", clnorm_context_last_error(NULL));
    const case_cfg c = case_basic(16, 1024, CLNORM_BF16, CLNORM_BF16, AFF_WB, LAY_DENSE, 0x86bf16);
    run_forward_case(ctx, &c);
    run_backward_case(ctx, &c);
    clnorm_context_release(ctx);
    restore_env(vars[0], saved[0]);
    FILE *log = fopen(path, "r");
    ck_assert_ptr_nonnull(log);
    char line[4096];
    /* the forward's and the backward's programs (not the dweight/dbias reduction's: fp32 sums) */
    size_t builds = 0, x86 = 0;
    while (fgets(line, sizeof line, log))
        if (!strncmp(line, "clnorm: built clnorm_forward ", 29) || !strncmp(line, "clnorm: built clnorm_backward ", 30)) {
            ++builds;
            x86 += strstr(line, "-DX86_BF16") != NULL;
        }
    fclose(log);
    remove(path);
    ck_assert_uint_ge(builds, 2);
    if (want)
        ck_assert_msg(x86 == builds, "%zu of %zu builds with X86_BF16 on an AVX512_BF16 host", x86, builds);
    else
        ck_assert_msg(x86 == 0, "%zu builds with X86_BF16 on a host without AVX512_BF16", x86);
}
END_TEST

/* CLNORM_BUILD_LOG naming a file that cannot be opened: the build still succeeds, and the log goes
 * to stderr after a note that says why. stderr is redirected to a file around the calls only, and
 * restored before any assertion (a failed one would leave the process's stderr in the file). */
static void build_log_stderr(const char *bad)
{
    char path[] = "/tmp/clnorm-stderr-XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char *saved = save_env("CLNORM_BUILD_LOG");
    setenv("CLNORM_BUILD_LOG", bad, 1);
    fflush(stderr);
    const int old = dup(STDERR_FILENO);
    const int redirected = old >= 0 && dup2(fd, STDERR_FILENO) >= 0;
    clnorm_context *ctx = NULL;
    clnorm_status st = redirected ? clnorm_context_create(NULL, &ctx) : CLNORM_NULL_ARGUMENT;
    cl_int err = CL_SUCCESS;
    cl_mem bx = NULL, by = NULL;
    if (st == CLNORM_SUCCESS) {
        float x[4 * 64];
        for (int i = 0; i < 4 * 64; ++i)
            x[i] = (float)(i % 13) * 0.25f - 1.0f;
        cl_context c = clnorm_context_cl_context(ctx);
        bx = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
        if (err == CL_SUCCESS)
            by = clCreateBuffer(c, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
        if (err == CL_SUCCESS) {
            const clnorm_matrix X = {bx, 0, 0, CLNORM_F32}, Y = {by, 0, 0, CLNORM_F32};
            st = clnorm_layer_norm_forward(ctx, 4, 64, 1e-5f, &X, NULL, NULL, &Y, NULL, NULL, 0, NULL, NULL);
            if (st == CLNORM_SUCCESS)
                err = clFinish(clnorm_context_queue(ctx));
        }
    }
    fflush(stderr);
    if (redirected)
        dup2(old, STDERR_FILENO);
    if (old >= 0)
        close(old);
    close(fd);
    restore_env("CLNORM_BUILD_LOG", saved);
    if (bx)
        clReleaseMemObject(bx);
    if (by)
        clReleaseMemObject(by);
    clnorm_context_release(ctx);
    ck_assert_msg(redirected, "stderr could not be redirected");
    ck_assert_msg(st == CLNORM_SUCCESS && err == CL_SUCCESS, "status %d (%s), OpenCL %d", st, clnorm_status_string(st), err);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char text[8192];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    remove(path);
    if (strcmp(bad, "0") == 0) { /* "0": the switch off, nothing written */
        ck_assert_msg(!strstr(text, "clnorm: built"), "CLNORM_BUILD_LOG=0 logged: %.200s", text);
        return;
    }
    ck_assert_msg(strstr(text, "cannot append to /nonexistent-clnorm-dir/build.log"), "no note on stderr: %.200s", text);
    ck_assert_msg(strstr(text, "clnorm: built clnorm_forward"), "no build log on stderr: %.200s", text);
}

START_TEST(build_log_unopenable_file_falls_back_to_stderr)
{
    build_log_stderr("/nonexistent-clnorm-dir/build.log");
}
END_TEST

/* CLNORM_BUILD_LOG=0 is the switch off: a build writes nothing to stderr */
START_TEST(build_log_zero_is_off)
{
    build_log_stderr("0");
}
END_TEST

/* The CPU row's forward on a CPU device converts weight, bias and an all-16-bit row to fp32 once
 * into local memory when their (2 + rows per item) * cols floats fit local_row_kib (local_row_kib_avx2
 * on PoCL x86 hosts without AVX-512, local_row_kib_intel_bf16 on AVX512_BF16 ones); the CPU
 * row takes one row per item from cols 513 (on AVX512_BF16 hosts from 32769), so 12 KiB is
 * cols 1024 exactly, 48 KiB cols 4096 (the kernel's row-sum scratch is checked against the
 * device's local memory, not against the table's size). */
START_TEST(plan_local_row_rule)
{
    const bool avx2 = pocl_x86_without_avx512();
    const unsigned cpu = test_device_is_cpu(); /* the local row is a CPU-device mode */
    clnorm_context *a = class_context_with_tune("cpu", "local_row_kib=12,local_row_kib_avx2=48,local_row_kib_intel_bf16=0"),
                   *off = class_context_with_tune("cpu", "local_row_kib=0,local_row_kib_avx2=0,local_row_kib_intel_bf16=0");
    ck_assert_uint_eq(plan_of(a, 0, 1024, CLNORM_BF16).local_row, cpu);
    ck_assert_uint_eq(plan_of(a, 0, 1024, CLNORM_F16).local_row, cpu);
    ck_assert_uint_eq(plan_of(a, 0, 256, CLNORM_BF16).local_row, cpu);
    ck_assert_uint_eq(plan_of(a, 0, 1025, CLNORM_BF16).local_row, avx2);
    ck_assert_uint_eq(plan_of(a, 0, 4096, CLNORM_BF16).local_row, avx2);
    ck_assert_uint_eq(plan_of(a, 0, 4097, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(a, 0, 1024, CLNORM_F32).local_row, 0);
    ck_assert_uint_eq(plan_of(off, 0, 1024, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(off, 0, 256, CLNORM_BF16).local_row, 0);
    clnorm_context_release(a);
    clnorm_context_release(off);
    /* local_row_kib_intel_bf16 instead of local_row_kib on PoCL x86 hosts whose CPU has
     * AVX512_BF16 (and AVX-512: PoCL generates AVX-512 code); 0 there: local_row_kib */
    const bool avx512_bf16 = test_pocl_x86_avx512_bf16();
    a = class_context_with_tune("cpu", "local_row_kib=12,local_row_kib_avx2=0,local_row_kib_intel_bf16=48");
    off = class_context_with_tune("cpu", "local_row_kib=12,local_row_kib_avx2=0,local_row_kib_intel_bf16=0");
    ck_assert_uint_eq(plan_of(a, 0, 1024, CLNORM_BF16).local_row, cpu && !avx2);
    ck_assert_uint_eq(plan_of(a, 0, 4096, CLNORM_BF16).local_row, avx512_bf16);
    ck_assert_uint_eq(plan_of(a, 0, 4096, CLNORM_F16).local_row, avx512_bf16);
    ck_assert_uint_eq(plan_of(a, 0, 4097, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(a, 0, 4096, CLNORM_F32).local_row, 0);
    ck_assert_uint_eq(plan_of(off, 0, 1024, CLNORM_BF16).local_row, cpu && !avx2);
    ck_assert_uint_eq(plan_of(off, 0, 1025, CLNORM_BF16).local_row, 0);
    clnorm_context_release(a);
    clnorm_context_release(off);
    /* the backward's x-hat and g, 2 * rows-per-item * cols floats (and the weight's copy where cols
     * more fit): on AVX2 PoCL hosts only; 144 KiB is cols 4608 with 4 rows per item (the CPU row's
     * from cols 2048), cols 18432 one at a time */
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    a = class_context_with_tune("cpu", "bwd_local_row_kib_avx2=144,bwd_local_row_kib_intel_bf16=0,bwd_rpi16=4,"
                                       "bwd_rpi_cols=2048,bwd_rpi16_avx2=0");
    off = class_context_with_tune("cpu", "bwd_local_row_kib_avx2=0,bwd_local_row_kib_intel_bf16=0");
    ck_assert_uint_eq(plan_of(a, 1, 4096, CLNORM_BF16).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(a, 1, 4096, CLNORM_BF16).local_row, avx2);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 256, CLNORM_BF16).local_row, avx2);
    ck_assert_uint_eq(plan_of(a, DX, 18432, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(a, DX, 18432, CLNORM_BF16).local_row, avx2);
    ck_assert_uint_eq(plan_of(a, DX, 18440, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(a, 1, 4608, CLNORM_BF16).local_row, avx2);
    ck_assert_uint_eq(plan_of(a, 1, 4616, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(a, 1, 1024, CLNORM_F32).local_row, 0);
    ck_assert_uint_eq(plan_of(off, 1, 1024, CLNORM_BF16).local_row, 0);
    clnorm_context_release(a);
    clnorm_context_release(off);
    /* ... and on AVX512_BF16 PoCL hosts within bwd_local_row_kib_intel_bf16 instead: 48 KiB
     * is 4096 columns one row at a time with the weight's copy (3 * cols floats), 6144 without it;
     * 4 rows per item (from cols 2048 with dweight/dbias) need 9 * cols floats, the 2 of calls with
     * a residual gradient (bwd_rpi16_res) 5 * cols, 4 * cols without the weight's copy: up to
     * cols 3072 */
    a = class_context_with_tune("cpu", "bwd_local_row_kib_avx2=0,bwd_local_row_kib_intel_bf16=48,bwd_rpi16=4,"
                                       "bwd_rpi_cols=2048,bwd_rpi16_avx2=0");
    ck_assert_uint_eq(plan_of(a, 1, 1024, CLNORM_BF16).local_row, avx512_bf16);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 256, CLNORM_BF16).local_row, avx512_bf16);
    ck_assert_uint_eq(plan_of(a, DX, 4096, CLNORM_F16).local_row, avx512_bf16);
    {
        clnorm_context *r = class_context_with_tune("cpu", "bwd_local_row_kib_avx2=0,bwd_local_row_kib_intel_bf16=48,"
                                                           "bwd_rpi16=4,bwd_rpi16_res=2,bwd_rpi_cols=2048,bwd_rpi16_avx2=0");
        const clnorm_launch_info r1 = plan_of(r, 1 | RES, 2048, CLNORM_BF16), r2 = plan_of(r, 1 | RES, 3073, CLNORM_BF16);
        ck_assert(r1.local_row == avx512_bf16 && r2.local_row == 0);
        ck_assert_uint_eq(r1.rows_per_item, 2);
        clnorm_context_release(r);
    }
    ck_assert_uint_eq(plan_of(a, DX, 6144, CLNORM_BF16).local_row, avx512_bf16);
    ck_assert_uint_eq(plan_of(a, DX, 6152, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(a, 1, 2048, CLNORM_BF16).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(a, 1, 2048, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(a, DX, 1024, CLNORM_F32).local_row, 0);
    clnorm_context_release(a);
    /* ... and such hosts take bwd_rpi16_avx2 rows per item in 16-bit calls (fp32: bwd_rpi) */
    a = class_context_with_tune("cpu", "bwd_rpi=4,bwd_rpi16=4,bwd_rpi_cols=2048,bwd_rpi16_avx2=2,bwd_rpi16_res=0");
    ck_assert_uint_eq(plan_of(a, 1, 4096, CLNORM_BF16).rows_per_item, avx2 ? 2 : 4);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 4096, CLNORM_BF16).rows_per_item, avx2 ? 2 : 4);
    ck_assert_uint_eq(plan_of(a, 1, 4096, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(a, 1, 1024, CLNORM_BF16).rows_per_item, 1);
    clnorm_context_release(a);
    /* ... and calls with a residual gradient take bwd_rpi_res / bwd_rpi16_res rows per item (the
     * CPU row's 2; AVX2 hosts keep bwd_rpi in 32-bit calls, and bwd_rpi16_avx2 comes first in
     * 16-bit ones), but for the short rows
     * (bwd_rpi_short_cols / bwd_rpi16_short_cols), which keep bwd_rpi / bwd_rpi16 */
    a = class_context_with_tune("cpu", "");
    ck_assert_uint_eq(plan_of(a, 1 | RES, 4096, CLNORM_F32).rows_per_item, avx2 ? 4 : 2);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 65536, CLNORM_F32).rows_per_item, avx2 ? 4 : 2);
    ck_assert_uint_eq(plan_of(a, 1, 4096, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 16384, CLNORM_BF16).rows_per_item, avx2 ? 1 : 2);
    ck_assert_uint_eq(plan_of(a, 1, 16384, CLNORM_BF16).rows_per_item, avx2 ? 1 : 4);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 16, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 1024, CLNORM_F32).rows_per_item, 1); /* below bwd_rpi_cols */
    clnorm_context_release(a);
    a = class_context_with_tune("cpu", "bwd_rpi_res=0,bwd_rpi16_res=4,bwd_rpi16=2");
    ck_assert_uint_eq(plan_of(a, 1 | RES, 4096, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(a, 1 | RES, 4096, CLNORM_F32).rows_per_item, plan_of(a, 1, 4096, CLNORM_F32).rows_per_item);
    if (!avx2) { /* (AVX2 hosts: bwd_rpi16_avx2 first, and their local rows) */
        ck_assert_uint_eq(plan_of(a, 1 | RES, 16384, CLNORM_BF16).rows_per_item, 4);
        ck_assert_uint_eq(plan_of(a, 1, 16384, CLNORM_BF16).rows_per_item, 2);
        ck_assert_uint_eq(plan_of(a, 1 | RES, 256, CLNORM_BF16).rows_per_item, 2); /* short: bwd_rpi16 */
    }
    clnorm_context_release(a);
}
END_TEST

/* The forward's rows per item (fwd_rpi16, up to fwd_rpi_cols_max): 16-bit calls with the local
 * row only, (2 + rows) * cols floats of it; where that does not fit, half as many rows, down to
 * one row with the local row (or none). */
START_TEST(plan_fwd_rows_per_item_rule)
{
    const unsigned cpu = test_device_is_cpu(), two = cpu ? 2 : 1;
    clnorm_context *a = class_context_with_tune("cpu", "local_row_kib=16,local_row_kib_avx2=16,local_row_kib_intel_bf16=16,fwd_rpi16=2,fwd_rpi_cols_max=4096,fwd_rpi_cols_max_intel_bf16=0,"
                                                        "fwd_rpi4_cols_intel_bf16=0"),
                   *b = class_context_with_tune("cpu", "local_row_kib=512,local_row_kib_avx2=512,local_row_kib_intel_bf16=512,fwd_rpi16=4,fwd_rpi_cols_max=2048,"
                                                       "fwd_rpi_cols_max_intel_bf16=0,fwd_rpi4_cols_intel_bf16=0,"
                                                       "bwd_rpi16=1,bwd_rpi16_avx2=1"),
                   *g = class_context_with_tune("gpu", "fwd_rpi16=2,fwd_rpi_cols_max=0");
    ck_assert_uint_eq(plan_of(a, 0, 256, CLNORM_BF16).rows_per_item, two);
    ck_assert_uint_eq(plan_of(a, 0, 256, CLNORM_BF16).local_row, cpu);
    ck_assert_uint_eq(plan_of(a, 0, 1024, CLNORM_F16).rows_per_item, two); /* 16 KiB */
    ck_assert_uint_eq(plan_of(a, 0, 1025, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(a, 0, 1025, CLNORM_BF16).local_row, cpu); /* one row: 12 KiB */
    ck_assert_uint_eq(plan_of(a, 0, 2048, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(a, 0, 2048, CLNORM_BF16).local_row, 0);
    ck_assert_uint_eq(plan_of(a, 0, 256, CLNORM_F32).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(b, 0, 2048, CLNORM_BF16).rows_per_item, cpu ? 4 : 1);
    ck_assert_uint_eq(plan_of(b, 0, 2049, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(b, 0, 2049, CLNORM_BF16).local_row, cpu);
    ck_assert_uint_eq(plan_of(g, 0, 256, CLNORM_BF16).rows_per_item, 1);
    /* the backward keeps its own rule (bwd_rpi*: a leak of fwd_rpi16 would give 4 here) */
    ck_assert_uint_eq(plan_of(b, 1, 2048, CLNORM_BF16).rows_per_item, 1);
    /* where 4 rows do not fit the bound but 2 do, 2 (24 KiB: 6 * 1024 floats > 16 KiB >= 4 * 1024) */
    clnorm_context *h = class_context_with_tune("cpu", "local_row_kib=16,local_row_kib_avx2=16,local_row_kib_intel_bf16=16,fwd_rpi16=4,fwd_rpi_cols_max=0,"
                                                        "fwd_rpi_cols_max_intel_bf16=0,fwd_rpi4_cols_intel_bf16=0");
    ck_assert_uint_eq(plan_of(h, 0, 1024, CLNORM_BF16).rows_per_item, two);
    ck_assert_uint_eq(plan_of(h, 0, 1024, CLNORM_BF16).local_row, cpu);
    clnorm_context_release(h);
    /* fwd_rpi_cols_max_intel_bf16 instead of fwd_rpi_cols_max on AVX512_BF16 PoCL hosts */
    const bool avx512_bf16 = test_pocl_x86_avx512_bf16();
    h = class_context_with_tune("cpu", "local_row_kib=512,local_row_kib_avx2=512,local_row_kib_intel_bf16=512,fwd_rpi16=2,"
                                       "fwd_rpi_cols_max=512,fwd_rpi_cols_max_intel_bf16=4096,fwd_rpi4_cols_intel_bf16=0");
    ck_assert_uint_eq(plan_of(h, 0, 512, CLNORM_BF16).rows_per_item, two);
    ck_assert_uint_eq(plan_of(h, 0, 4096, CLNORM_BF16).rows_per_item, avx512_bf16 ? 2 : 1);
    ck_assert_uint_eq(plan_of(h, 0, 4096, CLNORM_BF16).local_row, cpu);
    ck_assert_uint_eq(plan_of(h, 0, 4104, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(h, 0, 4096, CLNORM_F32).rows_per_item, 1);
    clnorm_context_release(h);
    /* ... and fwd_rpi4_cols_intel_bf16: 4 rows up to those cols there (the backward keeps its own) */
    h = class_context_with_tune("cpu", "local_row_kib=512,local_row_kib_avx2=512,local_row_kib_intel_bf16=512,fwd_rpi16=2,"
                                       "fwd_rpi_cols_max=512,fwd_rpi_cols_max_intel_bf16=0,fwd_rpi4_cols_intel_bf16=256,"
                                       "bwd_rpi16=2,bwd_rpi16_avx2=2,bwd_rpi_cols=0");
    ck_assert_uint_eq(plan_of(h, 0, 256, CLNORM_BF16).rows_per_item, avx512_bf16 ? 4 : two);
    ck_assert_uint_eq(plan_of(h, 0, 64, CLNORM_F16).rows_per_item, avx512_bf16 ? 4 : two);
    ck_assert_uint_eq(plan_of(h, 0, 264, CLNORM_BF16).rows_per_item, two);
    ck_assert_uint_eq(plan_of(h, 0, 256, CLNORM_F32).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(h, 1, 256, CLNORM_BF16).rows_per_item, 2); /* the backward's bwd_rpi16 */
    clnorm_context_release(h);
    clnorm_context_release(a);
    clnorm_context_release(b);
    clnorm_context_release(g);
}
END_TEST

/* Short rows on CPUs, several at a time: the forward's 4-byte-widest rows of up to rpi4_cols32 (64 in
 * the CPU row) in the local row, 4 rows per item (a CPU-device mode); the backward with
 * dweight/dbias below rpi_cols too, up to rpi_short_cols (fp32, 16) / rpi16_short_cols (16-bit,
 * 256; its rpi16 rows, 1 on AVX2 PoCL hosts, whose bwd_rpi16_avx2 is 1), with or without
 * dweight/dbias (without them only there, not from rpi_cols on); all of it off with the keys 0. */
START_TEST(plan_short_rows_rule)
{
    const unsigned cpu = test_device_is_cpu();
    const unsigned r16 = pocl_x86_without_avx512() ? 1 : 4;
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    clnorm_context *on = class_context_with_tune("cpu", "fwd_rpi4_cols32=64,bwd_rpi_short_cols=16,bwd_rpi16_short_cols=256"),
                   *off = class_context_with_tune("cpu", "fwd_rpi4_cols32=0,bwd_rpi_short_cols=0,bwd_rpi16_short_cols=0");
    clnorm_launch_info L = plan_of(on, 0, 64, CLNORM_F32);
    ck_assert(L.rows_per_item == (cpu ? 4u : 1u) && L.local_row == cpu);
    L = plan_of(on, 0, 16, CLNORM_F32);
    ck_assert(L.rows_per_item == (cpu ? 4u : 1u) && L.local_row == cpu);
    L = plan_of(on, 0, 65, CLNORM_F32);
    ck_assert(L.rows_per_item == 1 && L.local_row == 0);
    L = plan_of(off, 0, 64, CLNORM_F32);
    ck_assert(L.rows_per_item == 1 && L.local_row == 0);
    ck_assert_uint_eq(plan_of(on, 1, 16, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(on, 1 | RES, 16, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(on, 1, 17, CLNORM_F32).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(on, DX, 16, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(on, DX | RES, 17, CLNORM_F32).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(on, DX, 4096, CLNORM_F32).rows_per_item, 1); /* not from rpi_cols */
    ck_assert_uint_eq(plan_of(off, 1, 16, CLNORM_F32).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(on, 1, 256, CLNORM_BF16).rows_per_item, r16);
    ck_assert_uint_eq(plan_of(on, 1 | RES, 64, CLNORM_F16).rows_per_item, r16);
    ck_assert_uint_eq(plan_of(on, 1, 257, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(on, DX, 256, CLNORM_BF16).rows_per_item, r16);
    ck_assert_uint_eq(plan_of(on, DX | RES, 257, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(off, DX, 64, CLNORM_BF16).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(off, 1, 256, CLNORM_BF16).rows_per_item, 1);
    clnorm_context_release(on);
    clnorm_context_release(off);
    /* the CPU row's own values: 128, 16, 256 */
    clnorm_context *table = class_context_with_tune("cpu", "");
    ck_assert_uint_eq(plan_of(table, 0, 128, CLNORM_F32).rows_per_item, cpu ? 4 : 1);
    ck_assert_uint_eq(plan_of(table, 0, 129, CLNORM_F32).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(table, DX, 16, CLNORM_F32).rows_per_item, 4);
    ck_assert_uint_eq(plan_of(table, 1, 17, CLNORM_F32).rows_per_item, 1);
    ck_assert_uint_eq(plan_of(table, 1 | RES, 256, CLNORM_BF16).rows_per_item, r16);
    ck_assert_uint_eq(plan_of(table, DX, 257, CLNORM_BF16).rows_per_item, 1);
    clnorm_context_release(table);
}
END_TEST

/* The CPU row's unaligned vectors (unaligned_bytes, 16 there; CPU devices only): where cols would
 * narrow the vectors below 16 bytes, the table's 64-byte ones instead, unaligned, the row's last
 * cols % 16 elements one at a time; not where the narrowed ones keep 16 bytes or more; never in the
 * GPU rows; not with unaligned_bytes=0; and not where a tuned CPU table makes the call another
 * layout than the streaming one-item row (here the register cache): then the narrowed vectors. */
START_TEST(plan_unaligned_rule)
{
    const unsigned cpu_dev = test_device_is_cpu(); /* a CPU-device mode, as the local row */
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    clnorm_context *cpu = class_context_with_tune("cpu", "unaligned_bytes=16"),
                   *off = class_context_with_tune("cpu", "unaligned_bytes=0"),
                   *gpu = class_context_with_tune("gpu", "fwd_tpr=0"),
                   *cached = class_context_with_tune("cpu", "unaligned_bytes=16,fwd_ncache=4");
    const struct {
        size_t cols;
        clnorm_dtype dt;
        unsigned narrowed, unaligned; /* the narrowed width; whether the CPU row keeps 16 instead */
    } c[] = {
        {1023, CLNORM_F32, 1, 1}, {1023, CLNORM_BF16, 1, 1}, {1002, CLNORM_F32, 2, 1}, {1002, CLNORM_BF16, 2, 1},
        {1004, CLNORM_BF16, 4, 1}, {1004, CLNORM_F16, 4, 1}, {1004, CLNORM_F32, 4, 0}, {1000, CLNORM_F32, 8, 0},
        {1000, CLNORM_BF16, 8, 0}, {3, CLNORM_F32, 1, 1}, {1024, CLNORM_BF16, 16, 0},
    };
    const int ops[] = {0, 1, 1 | RES, DX, DX | RES};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
            const clnorm_launch_info p = plan_of(cpu, ops[o], c[i].cols, c[i].dt),
                                     q = plan_of(off, ops[o], c[i].cols, c[i].dt);
            const unsigned u = c[i].unaligned && cpu_dev;
            ck_assert_msg(p.unaligned == u && p.vector_width == (u ? 16u : c[i].narrowed),
                          "cols %zu dtype %d op %d: unaligned %u width %u", c[i].cols, (int)c[i].dt, ops[o], p.unaligned,
                          p.vector_width);
            ck_assert_uint_eq(p.items_per_row, 1);
            ck_assert_uint_eq(p.register_cache, 0);
            ck_assert_uint_eq(q.unaligned, 0);
            ck_assert_uint_eq(q.vector_width, c[i].narrowed);
            const clnorm_launch_info g = plan_of(gpu, ops[o], c[i].cols, c[i].dt);
            ck_assert_uint_eq(g.unaligned, 0);
        }
    }
    /* the forward's register cache (4 vectors per item) takes a 63-element row in 16-element
     * vectors, not in the one-element ones: the rule keeps those, aligned, and the row streams */
    clnorm_launch_info r = plan_of(cached, 0, 63, CLNORM_F32);
    ck_assert_uint_eq(r.unaligned, 0);
    ck_assert_uint_eq(r.vector_width, 1);
    ck_assert_uint_eq(r.register_cache, 0);
    ck_assert_uint_eq(plan_of(cached, 0, 64, CLNORM_F32).register_cache, 4);
    /* ... and so where it would take other layouts the kernels do not give a tail: the forward's
     * one-read statistics, the backward's sums in registers (16 vectors: a 101-element row's 7
     * unaligned ones), several items per row */
    clnorm_context *chan = class_context_with_tune("cpu", "unaligned_bytes=16,fwd_chan=4"),
                   *nacc = class_context_with_tune("cpu", "unaligned_bytes=16,bwd_nacc=16"),
                   *tpr = class_context_with_tune("cpu", "unaligned_bytes=16,fwd_tpr=4,fwd_wg=4");
    r = plan_of(chan, 0, 1023, CLNORM_F32);
    ck_assert(r.unaligned == 0 && r.vector_width == 1 && r.one_read_stats == 1);
    r = plan_of(nacc, 1, 101, CLNORM_F32);
    ck_assert(r.unaligned == 0 && r.vector_width == 1 && r.register_accumulators == 0);
    ck_assert_uint_eq(plan_of(nacc, 1, 112, CLNORM_F32).register_accumulators, 7);
    r = plan_of(tpr, 0, 1023, CLNORM_BF16);
    ck_assert(r.unaligned == 0 && r.vector_width == 1 && r.items_per_row == 4);
    clnorm_context_release(chan);
    clnorm_context_release(nacc);
    clnorm_context_release(tpr);
    clnorm_context_release(cpu);
    clnorm_context_release(off);
    clnorm_context_release(gpu);
    clnorm_context_release(cached);
}
END_TEST

/* Row phases (table keys phase and phase_skip; by default the NVIDIA row's backward calls but
 * the all-16-bit dx-only ones): where cols would narrow the vectors, the GPU row's backward
 * keeps the table's width (16 bytes) in register-cache plans, rows of one phase class width /
 * gcd(width, cols) apart (dense rows: the stride is cols), the grid in whole classes; not where
 * cols is a multiple of the width, not with phase=0, not with fewer rows than a period, not where
 * the row streams, never in the CPU row, and never in the forward (since 0.20.0, whatever
 * phase_skip says). */
/* the phased-rule cases of plan_row_phase_rule: the GPU row with the keys they share, and extra */
#define PHASE_RULE_BASE                                                                                 \
    "phase=1,phase_skip=0,bwd_pipe=1,bwd_rpi16_res=2,bwd_fill16=5,bwd_ncache=3,bwd_phase_target16_res=4," \
    "bwd_phase_rpi16_res=1"
static clnorm_context *phase_rule_context(const char *extra)
{
    return *extra ? gpu_context_with_tune2(PHASE_RULE_BASE, extra) : gpu_context_with_tune(PHASE_RULE_BASE);
}

START_TEST(plan_row_phase_rule)
{
    const int RES = CLNORM_PLAN_BACKWARD_RES, DX = CLNORM_PLAN_BACKWARD_DX;
    clnorm_context *on = class_context_with_tune("gpu", "phase=1,phase_skip=0"),
                   *off = class_context_with_tune("gpu", "phase=0"),
                   *cpu = class_context_with_tune("cpu", "phase=1,phase_skip=0");
    const struct {
        size_t cols;
        clnorm_dtype dt;
        unsigned width, period, narrowed;
    } c[] = {
        {1023, CLNORM_F32, 4, 4, 1}, {1023, CLNORM_BF16, 8, 8, 1}, {1022, CLNORM_F32, 4, 2, 2},
        {1022, CLNORM_BF16, 8, 4, 2}, {1020, CLNORM_F16, 8, 2, 4}, {37, CLNORM_F32, 4, 4, 1},
        {1024, CLNORM_F32, 4, 0, 4}, {1000, CLNORM_BF16, 8, 0, 8},
    };
    const int ops[] = {0, 1, 1 | RES, DX, DX | RES};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
            const clnorm_launch_info p = plan_of(on, ops[o], c[i].cols, c[i].dt), q = plan_of(off, ops[o], c[i].cols, c[i].dt);
            if (ops[o] == 0) { /* the forward: the narrowed plan, as with phase=0 */
                ck_assert_msg(p.row_phase == 0 && p.vector_width == c[i].narrowed,
                              "forward, cols %zu dtype %d: row phase %u, width %u", c[i].cols, (int)c[i].dt,
                              p.row_phase, p.vector_width);
                ck_assert(p.items_per_row == q.items_per_row && p.register_cache == q.register_cache &&
                          p.work_groups == q.work_groups && p.pipelined == q.pipelined);
                continue;
            }
            ck_assert_msg(p.row_phase == c[i].period && p.vector_width == c[i].width,
                          "cols %zu dtype %d op %d: row phase %u, width %u", c[i].cols, (int)c[i].dt, ops[o], p.row_phase,
                          p.vector_width);
            ck_assert(p.register_cache > 0 && p.unaligned == 0);
            if (p.row_phase)
                ck_assert_uint_eq(p.work_groups % p.row_phase, 0);
            ck_assert(q.row_phase == 0 && q.vector_width == c[i].narrowed);
            ck_assert_uint_eq(plan_of(cpu, ops[o], c[i].cols, c[i].dt).row_phase, 0);
            /* fewer rows than a period: the narrowed plan */
            if (c[i].period > 1)
                ck_assert_uint_eq(plan_at(on, ops[o], c[i].period - 1, c[i].cols, c[i].dt).row_phase, 0);
        }
    }
    /* phase_skip: bit o (1 backward, 2 with a residual gradient, 3 dx only, 4 dx only with a
     * residual gradient), + 5 in all-16-bit calls, keeps that call narrowed, and only that call;
     * bits 0 and 5 (the forward's until 0.20.0) change nothing */
    for (unsigned bit = 0; bit < 10; ++bit) {
        char tune[48];
        snprintf(tune, sizeof tune, "phase=1,phase_skip=%u", 1u << bit);
        clnorm_context *skip = class_context_with_tune("gpu", tune);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
            for (int sixteen = 0; sixteen < 2; ++sixteen) {
                const clnorm_launch_info p = plan_of(skip, ops[o], 1023, sixteen ? CLNORM_BF16 : CLNORM_F32);
                const bool skipped = o == 0 || bit == o + (sixteen ? 5u : 0u);
                ck_assert_msg(skipped ? p.row_phase == 0 && p.vector_width == 1 : p.row_phase == (sixteen ? 8u : 4u),
                              "phase_skip %u, op %d, 16-bit %d: row phase %u, width %u", 1u << bit, ops[o], sixteen,
                              p.row_phase, p.vector_width);
            }
        }
        clnorm_context_release(skip);
    }
    /* bwd_phase_rpi16_res / bwd_phase_nopipe16_res: the phased all-16-bit residual backward's
     * own rows per item and pipeline, in its frame's plan only (not the other phased calls, not
     * the unphased ones) */
    {
        clnorm_context *b = class_context_with_tune("gpu", "phase=1,phase_skip=0,bwd_pipe=2,bwd_rpi16_res=2"),
                       *r = class_context_with_tune("gpu", "phase=1,phase_skip=0,bwd_pipe=2,bwd_rpi16_res=2,"
                                                           "bwd_phase_rpi16_res=1,bwd_phase_nopipe16_res=1");
        const size_t pc[] = {1023, 2047};
        for (size_t i = 0; i < 2; ++i) {
            const clnorm_launch_info b5 = plan_of(b, 1 | RES, pc[i], CLNORM_BF16), r5 = plan_of(r, 1 | RES, pc[i], CLNORM_BF16),
                                     r1 = plan_of(r, 1, pc[i], CLNORM_BF16);
            ck_assert(b5.row_phase == 8 && b5.rows_per_item == 2 && b5.pipelined == 1);
            ck_assert(r5.row_phase == 8 && r5.rows_per_item == 1 && r5.pipelined == 0);
            ck_assert(r1.row_phase == 8 && r1.pipelined == 1);
        }
        const clnorm_launch_info u = plan_of(r, 1 | RES, 1024, CLNORM_BF16), f = plan_of(r, 1 | RES, 1023, CLNORM_F32);
        ck_assert(u.row_phase == 0 && u.rows_per_item == 2 && u.pipelined == 1);
        ck_assert(f.row_phase == 4 && f.pipelined == 1);
        clnorm_context_release(b);
        clnorm_context_release(r);
    }
    /* ... bwd_phase_nopipe16_res N: not pipelined only where the cache is at least N vectors deep
     * (one row per item deepens 1023's frame to 5 vectors through the fill rule, 3001's stays at
     * 3); bwd_phase_pipe16_res_wg_max: not pipelined either where the group takes more items
     * (7001: 512 x 2), with or without bwd_phase_nopipe16_res; neither touches the calls without
     * a residual gradient */
    {
        struct {
            const char *extra;
            size_t cols;
            unsigned rpi, ncache, pipe;
        } const c[] = {
            {"", 1023, 1, 5, 1},
            {"", 3001, 1, 3, 1},
            {"bwd_phase_nopipe16_res=4", 1023, 1, 5, 0},
            {"bwd_phase_nopipe16_res=4", 3001, 1, 3, 1},
            {"bwd_phase_nopipe16_res=4", 4095, 1, 5, 0},
            {"bwd_phase_nopipe16_res=4", 3583, 1, 2, 1},
            {"bwd_phase_nopipe16_res=5", 1023, 1, 5, 0},
            {"bwd_phase_nopipe16_res=6", 1023, 1, 5, 1},
            {"bwd_phase_nopipe16_res=3", 3001, 1, 3, 0},
            {"bwd_phase_nopipe16_res=4", 7001, 1, 2, 1},
            {"bwd_phase_nopipe16_res=4,bwd_phase_pipe16_res_wg_max=256", 7001, 1, 2, 0},
            {"bwd_phase_nopipe16_res=4,bwd_phase_pipe16_res_wg_max=512", 7001, 1, 2, 1},
            {"bwd_phase_nopipe16_res=4,bwd_phase_pipe16_res_wg_max=256", 3583, 1, 2, 1},
            {"bwd_phase_pipe16_res_wg_max=256", 7001, 1, 2, 0},
            {"bwd_phase_pipe16_res_wg_max=256", 3583, 1, 2, 1},
        };
        for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
            clnorm_context *t = phase_rule_context(c[i].extra);
            const clnorm_launch_info p = plan_of(t, 1 | RES, c[i].cols, CLNORM_BF16), q = plan_of(t, 1, c[i].cols, CLNORM_BF16);
            ck_assert_msg(p.row_phase == 8 && p.rows_per_item == c[i].rpi && p.register_cache == c[i].ncache &&
                              p.pipelined == c[i].pipe,
                          "%s at %zu: phase %u, rows per item %u, cache %u, pipelined %u", c[i].extra, c[i].cols, p.row_phase,
                          p.rows_per_item, p.register_cache, p.pipelined);
            ck_assert_msg(q.row_phase == 8 && q.pipelined == 1, "%s at %zu without the residual gradient", c[i].extra,
                          c[i].cols);
            clnorm_context_release(t);
        }
    }
    /* bwd_phase_nopipe16 N: the phased all-16-bit backward without a residual gradient not
     * pipelined where its cache is at least N vectors deep (1023 / 2047 / 4095: 5 vectors; 3001 /
     * 511: 3); not the calls with one (bwd_phase_nopipe16_res's), not fp32 calls */
    {
        struct {
            const char *extra;
            size_t cols;
            unsigned ncache, pipe;
        } const c[] = {
            {"", 1023, 5, 1},
            {"bwd_phase_nopipe16=4", 1023, 5, 0},
            {"bwd_phase_nopipe16=4", 2047, 5, 0},
            {"bwd_phase_nopipe16=4", 4095, 5, 0},
            {"bwd_phase_nopipe16=4", 3001, 3, 1},
            {"bwd_phase_nopipe16=4", 511, 3, 1},
            {"bwd_phase_nopipe16=5", 1023, 5, 0},
            {"bwd_phase_nopipe16=6", 1023, 5, 1},
            {"bwd_phase_nopipe16=3", 3001, 3, 0},
        };
        clnorm_context *b = phase_rule_context("");
        for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
            clnorm_context *t = phase_rule_context(c[i].extra);
            const clnorm_launch_info p = plan_of(t, 1, c[i].cols, CLNORM_BF16), q = plan_of(t, 1 | RES, c[i].cols, CLNORM_BF16),
                                     f = plan_of(t, 1, c[i].cols, CLNORM_F32), fb = plan_of(b, 1, c[i].cols, CLNORM_F32);
            ck_assert_msg(p.row_phase == 8 && p.register_cache == c[i].ncache && p.pipelined == c[i].pipe,
                          "%s at %zu: phase %u, cache %u, pipelined %u", c[i].extra, c[i].cols, p.row_phase,
                          p.register_cache, p.pipelined);
            ck_assert_msg(q.row_phase == 8 && q.pipelined == 1, "%s at %zu with the residual gradient", c[i].extra,
                          c[i].cols);
            ck_assert_msg(f.row_phase == 4 && f.pipelined == fb.pipelined && f.register_cache == fb.register_cache,
                          "%s at %zu, fp32", c[i].extra, c[i].cols);
            /* (an unphased row, 128 x 5, keeps its pipeline) */
            const clnorm_launch_info u = plan_of(t, 1, 5120, CLNORM_BF16);
            ck_assert(u.row_phase == 0 && u.register_cache == 5 && u.pipelined == 1);
            clnorm_context_release(t);
        }
        clnorm_context_release(b);
        /* (fp32 phased calls and all-16-bit dx-only ones, pipelined under bwd_pipe=2, stay so) */
        clnorm_context *f2 = gpu_context_with_tune("phase=1,phase_skip=0,bwd_pipe=2,bwd_phase_nopipe16=1");
        const clnorm_launch_info f = plan_of(f2, 1, 1023, CLNORM_F32), d = plan_of(f2, DX, 1023, CLNORM_BF16),
                                 b16 = plan_of(f2, 1, 1023, CLNORM_BF16);
        ck_assert(f.row_phase == 4 && f.register_cache == 2 && f.pipelined == 1);
        ck_assert(d.row_phase == 8 && d.register_cache == 2 && d.pipelined == 1);
        ck_assert(b16.row_phase == 8 && b16.register_cache == 2 && b16.pipelined == 0);
        clnorm_context_release(f2);
    }
    /* bwd_phase_nofill16_tpr N: in row-phase frames the 16-bit fill rule only where it ends at
     * more than N items per row (1023 / 2047 / 4095 fill to 32 / 64 / 128 items x 5 vectors,
     * 8191 to 256 x 5); with or without the residual gradient; not unphased rows (5120) */
    {
        struct {
            const char *extra;
            size_t cols;
            unsigned tpr, ncache;
        } const c[] = {
            {"", 1023, 32, 5},
            {"", 4095, 128, 5},
            {"bwd_phase_nofill16_tpr=128", 1023, 64, 3},
            {"bwd_phase_nofill16_tpr=128", 2047, 128, 3},
            {"bwd_phase_nofill16_tpr=128", 4095, 256, 3},
            {"bwd_phase_nofill16_tpr=128", 8191, 256, 5},
            {"bwd_phase_nofill16_tpr=64", 2047, 128, 3},
            {"bwd_phase_nofill16_tpr=64", 4095, 128, 5},
            {"bwd_phase_nofill16_tpr=32", 2047, 64, 5},
        };
        for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
            clnorm_context *t = phase_rule_context(c[i].extra);
            for (int res = 0; res < 2; ++res) {
                const clnorm_launch_info p = plan_of(t, 1 | (res ? RES : 0), c[i].cols, CLNORM_BF16);
                ck_assert_msg(p.row_phase == 8 && p.items_per_row == c[i].tpr && p.register_cache == c[i].ncache,
                              "%s at %zu (residual %d): phase %u, %u items x %u", c[i].extra, c[i].cols, res,
                              p.row_phase, p.items_per_row, p.register_cache);
            }
            const clnorm_launch_info u = plan_of(t, 1, 5120, CLNORM_BF16);
            ck_assert(u.row_phase == 0 && u.items_per_row == 128 && u.register_cache == 5);
            clnorm_context_release(t);
        }
    }
    /* the backward's row streams past the GPU row's register cache (a frame of 16385 vectors):
     * narrowed */
    const clnorm_launch_info s = plan_of(on, DX, 65537, CLNORM_F32);
    ck_assert(s.row_phase == 0 && s.vector_width == 1 && s.register_cache == 0);
    clnorm_context_release(on);
    clnorm_context_release(off);
    clnorm_context_release(cpu);
}
END_TEST

/* bwd_phase_pipe_dx16 N (with _wg_max M): the phased all-16-bit calls without dweight/dbias
 * pipelined where the cache is at least N vectors deep and the group at most M items; the dx-only
 * ones then take phases only so, and only where the vectors narrow to phase_vec_max elements
 * (2-vector caches and 8194's 2-element vectors: narrowed; dx_res keeps its unpipelined phases);
 * fp32 calls and those with dweight/dbias unchanged */
START_TEST(plan_phase_pipe_dx16_rule)
{
    if (!groups_of_at_least(512, "plan_phase_pipe_dx16_rule"))
        return;
    const int DX = CLNORM_PLAN_BACKWARD_DX, RES = CLNORM_PLAN_BACKWARD_RES;
    clnorm_context *on = phase_rule_context("phase_vec_max=1,bwd_phase_pipe_dx16=3,bwd_phase_pipe_dx16_wg_max=512"),
                   *off = phase_rule_context("phase_vec_max=1"),
                   *any = phase_rule_context("phase_vec_max=0,bwd_phase_pipe_dx16=3,bwd_phase_pipe_dx16_wg_max=512"),
                   *wg = phase_rule_context("phase_vec_max=1,bwd_phase_pipe_dx16=3,bwd_phase_pipe_dx16_wg_max=256"),
                   *deep2 = phase_rule_context("phase_vec_max=1,bwd_phase_pipe_dx16=2,bwd_phase_pipe_dx16_wg_max=512");
    /* 3-vector caches (64 / 128 / 512 items): pipelined with the key, phased unpipelined without */
    const size_t deep[] = {1023, 3001, 8191};
    for (size_t i = 0; i < sizeof deep / sizeof deep[0]; ++i)
        for (int r = 0; r < 2; ++r) {
            const int op = DX | (r ? RES : 0);
            const clnorm_launch_info L = plan_of(on, op, deep[i], CLNORM_BF16), O = plan_of(off, op, deep[i], CLNORM_BF16);
            ck_assert_msg(L.row_phase == 8 && L.register_cache == 3 && L.pipelined == 1, "cols %zu (residual %d): phase %u, cache %u, pipelined %u",
                          deep[i], r, L.row_phase, L.register_cache, L.pipelined);
            ck_assert_msg(O.row_phase == 8 && O.pipelined == 0, "cols %zu (residual %d) without the key", deep[i], r);
            ck_assert_uint_eq(L.work_groups % 8, 0);
        }
    /* 2-vector caches (255, 767): dx narrowed, dx_res phased and unpipelined; pipelined with N = 2 */
    const size_t shallow[] = {255, 767};
    for (size_t i = 0; i < 2; ++i) {
        const clnorm_launch_info D = plan_of(on, DX, shallow[i], CLNORM_BF16), R = plan_of(on, DX | RES, shallow[i], CLNORM_BF16),
                                 D2 = plan_of(deep2, DX, shallow[i], CLNORM_BF16);
        ck_assert_msg(D.row_phase == 0 && D.vector_width == 1, "cols %zu: dx phase %u", shallow[i], D.row_phase);
        ck_assert_msg(R.row_phase == 8 && R.register_cache == 2 && R.pipelined == 0, "cols %zu: dx_res", shallow[i]);
        ck_assert_msg(D2.row_phase == 8 && D2.register_cache == 2 && D2.pipelined == 1, "cols %zu: N = 2", shallow[i]);
    }
    /* the group bound: 8191's 512 items over 256: dx narrowed, dx_res phased unpipelined; 3001's
     * 128 x 2 rows still pipelined */
    const clnorm_launch_info W = plan_of(wg, DX, 8191, CLNORM_BF16), WR = plan_of(wg, DX | RES, 8191, CLNORM_BF16),
                             W3 = plan_of(wg, DX, 3001, CLNORM_BF16);
    ck_assert(W.row_phase == 0 && WR.row_phase == 8 && WR.pipelined == 0 && W3.row_phase == 8 && W3.pipelined == 1);
    /* 2-element vectors (8194): narrowed under phase_vec_max 1, phased with period 4 without it */
    const clnorm_launch_info V = plan_of(on, DX, 8194, CLNORM_BF16), VA = plan_of(any, DX, 8194, CLNORM_BF16);
    ck_assert(V.row_phase == 0 && V.vector_width == 2);
    ck_assert(VA.row_phase == 4 && VA.vector_width == 8 && VA.pipelined == 1);
    /* fp32 dx calls and every call with dweight/dbias: the plans without the key */
    const size_t same[] = {255, 1023, 3001, 8191};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; ++i) {
        const int ops[] = {DX, DX | RES, 1, 1 | RES};
        for (int o = 0; o < 4; ++o) {
            const clnorm_launch_info F = plan_of(on, ops[o], same[i], CLNORM_F32), FO = plan_of(off, ops[o], same[i], CLNORM_F32);
            ck_assert_msg(memcmp(&F, &FO, sizeof F) == 0, "fp32 op %d at %zu", ops[o], same[i]);
            if (o >= 2) {
                const clnorm_launch_info B = plan_of(on, ops[o], same[i], CLNORM_BF16), BO = plan_of(off, ops[o], same[i], CLNORM_BF16);
                ck_assert_msg(memcmp(&B, &BO, sizeof B) == 0, "bf16 op %d at %zu", ops[o], same[i]);
            }
        }
    }
    /* bwd_phase_pipe_dx32: the phased fp32 dx-only calls pipelined where the row takes tpr_max
     * (512) items: 3583 / 4095 / 6001; not 3001's 256 items, not dx_res, not 16-bit calls, not
     * calls with dweight/dbias */
    clnorm_context *p32 = phase_rule_context("phase_vec_max=1,bwd_phase_pipe_dx32=1");
    const size_t f512[] = {3583, 4095, 6001};
    for (size_t i = 0; i < 3; ++i) {
        const clnorm_launch_info L = plan_of(p32, DX, f512[i], CLNORM_F32), O = plan_of(off, DX, f512[i], CLNORM_F32);
        ck_assert_msg(L.row_phase == 4 && L.items_per_row == 512 && L.pipelined == 1, "fp32 dx at %zu: phase %u, %u items, pipelined %u",
                      f512[i], L.row_phase, L.items_per_row, L.pipelined);
        ck_assert(O.row_phase == 4 && O.items_per_row == 512 && O.pipelined == 0);
    }
    const struct {
        int op;
        size_t cols;
        clnorm_dtype dt;
    } kept[] = {{DX, 3001, CLNORM_F32}, {DX, 1023, CLNORM_F32}, {DX | RES, 4095, CLNORM_F32}, {1, 4095, CLNORM_F32},
                {DX, 1023, CLNORM_BF16}, {DX, 4095, CLNORM_BF16}};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; ++i) {
        const clnorm_launch_info L = plan_of(p32, kept[i].op, kept[i].cols, kept[i].dt),
                                 O = plan_of(off, kept[i].op, kept[i].cols, kept[i].dt);
        ck_assert_msg(memcmp(&L, &O, sizeof L) == 0, "op %d at %zu (dtype %d): the plan changed", kept[i].op, kept[i].cols,
                      (int)kept[i].dt);
    }
    /* unphased plans (aligned widths) are not the rules' business */
    const size_t aligned[] = {1024, 4096};
    for (size_t i = 0; i < 2; ++i)
        for (int r = 0; r < 2; ++r) {
            const int op = DX | (r ? RES : 0);
            const clnorm_launch_info A = plan_of(on, op, aligned[i], CLNORM_BF16), AO = plan_of(off, op, aligned[i], CLNORM_BF16),
                                     F = plan_of(p32, op, aligned[i], CLNORM_F32), FO = plan_of(off, op, aligned[i], CLNORM_F32);
            ck_assert_msg(A.row_phase == 0 && memcmp(&A, &AO, sizeof A) == 0, "bf16 op %d at %zu", op, aligned[i]);
            ck_assert_msg(F.row_phase == 0 && memcmp(&F, &FO, sizeof F) == 0, "fp32 op %d at %zu", op, aligned[i]);
        }
    clnorm_context_release(p32);
    clnorm_context_release(on);
    clnorm_context_release(off);
    clnorm_context_release(any);
    clnorm_context_release(wg);
    clnorm_context_release(deep2);
}
END_TEST

/* bwd_phase_dx16_res_vec_max V and _deep D: the all-16-bit dx_res calls (a residual gradient, no
 * dweight/dbias) take phases only where the alignment narrows the vectors to at most V elements,
 * and, narrowed to 2 or more, only where the phased cache is shallower than D vectors. With
 * NVIDIA's long-row keys (1024 items x 2-4 vectors of 8): 16388 / 28676 (4 elements) kept
 * narrowed; 24578 (2 elements, 4 deep) kept; 12290 / 20482 (2 elements, 2 / 3 deep) and 24575 (1
 * element, 4 deep) phased; dx, the calls with dweight/dbias and fp32 unchanged. bwd_phase_dx32_deep:
 * the depth bound for the fp32 dx and dx_res calls (below) */
START_TEST(plan_phase_dx_deep_rule)
{
    if (!groups_of_at_least(1024, "plan_phase_dx_deep_rule"))
        return;
    const int DX = CLNORM_PLAN_BACKWARD_DX, RES = CLNORM_PLAN_BACKWARD_RES;
#define LONG_RES "vec_bytes=16,bwd_tpr_max=512,bwd_wg=256,bwd_nacc=8,bwd_target=2,bwd_target16=2,bwd_tpr_max_cached=1024,bwd_ncache_dx=4"
    clnorm_context *off = phase_rule_context(LONG_RES), *both = phase_rule_context(LONG_RES ",bwd_phase_dx16_res_vec_max=2,bwd_phase_dx16_res_deep=4"),
                   *vmax = phase_rule_context(LONG_RES ",bwd_phase_dx16_res_vec_max=2"),
                   *deep = phase_rule_context(LONG_RES ",bwd_phase_dx16_res_deep=4"),
                   *deep3 = phase_rule_context(LONG_RES ",bwd_phase_dx16_res_deep=3"),
                   *nophase = phase_rule_context(LONG_RES ",phase=0");
    const struct {
        size_t cols;
        unsigned narrow, depth;
        bool vmax_kept, deep_kept, deep3_kept;
    } cases[] = {{16388, 4, 3, true, false, true},  {28676, 4, 4, true, true, true},    {24578, 2, 4, false, true, true},
                 {12290, 2, 2, false, false, false}, {20482, 2, 3, false, false, true}, {24575, 1, 4, false, false, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const size_t c = cases[i].cols;
        const clnorm_launch_info O = plan_of(off, DX | RES, c, CLNORM_BF16), N = plan_of(nophase, DX | RES, c, CLNORM_BF16);
        ck_assert_msg(O.row_phase > 1 && O.register_cache == cases[i].depth && N.row_phase == 0 && N.vector_width == cases[i].narrow,
                      "%zu without the keys: phase %u, depth %u; narrowed to %u", c, O.row_phase, O.register_cache, N.vector_width);
        const struct {
            clnorm_context *ctx;
            bool kept;
            const char *name;
        } rules[] = {{both, cases[i].vmax_kept || cases[i].deep_kept, "both"},
                     {vmax, cases[i].vmax_kept, "vec_max 2"},
                     {deep, cases[i].deep_kept, "deep 4"},
                     {deep3, cases[i].deep3_kept, "deep 3"}};
        for (int r = 0; r < 4; ++r) {
            const clnorm_launch_info L = plan_of(rules[r].ctx, DX | RES, c, CLNORM_BF16);
            ck_assert_msg(memcmp(&L, rules[r].kept ? &N : &O, sizeof L) == 0, "%zu under %s: phase %u, expected %s", c, rules[r].name,
                          L.row_phase, rules[r].kept ? "the narrowed plan" : "phases");
        }
        /* dx, the calls with dweight/dbias (with and without the residual) and fp32: unchanged */
        const int ops[] = {DX, 1, 1 | RES, DX | RES};
        for (int o = 0; o < 4; ++o) {
            const clnorm_dtype dt = ops[o] == (DX | RES) ? CLNORM_F32 : CLNORM_BF16;
            const clnorm_launch_info B = plan_of(both, ops[o], c, dt), BO = plan_of(off, ops[o], c, dt);
            ck_assert_msg(memcmp(&B, &BO, sizeof B) == 0, "op %d (dtype %d) at %zu changed", ops[o], (int)dt, c);
        }
    }
    /* bwd_phase_dx32_deep D: the same depth bound for the calls with a 32-bit tensor without
     * dweight/dbias (dx and dx_res), narrowed to 2 elements or more: fp32 12290 / 14338 (2
     * elements, 4 deep) kept at 4; 10242 (3 deep) phased at 4, kept at 3; 12287 (1 element, 4
     * deep) phased; the fp32 calls with dweight/dbias (10242) and the 16-bit dx_res (24578) as
     * without the key */
    clnorm_context *d32 = phase_rule_context(LONG_RES ",bwd_phase_dx32_deep=4"), *d32_3 = phase_rule_context(LONG_RES ",bwd_phase_dx32_deep=3");
    const struct {
        size_t cols;
        bool kept4, kept3;
    } f32_cases[] = {{12290, true, true}, {14338, true, true}, {10242, false, true}, {12287, false, false}};
    for (size_t i = 0; i < sizeof f32_cases / sizeof f32_cases[0]; ++i)
        for (int r = 0; r < 2; ++r) {
            const size_t c = f32_cases[i].cols;
            const int op = DX | (r ? RES : 0);
            const clnorm_launch_info O = plan_of(off, op, c, CLNORM_F32), N = plan_of(nophase, op, c, CLNORM_F32),
                                     L4 = plan_of(d32, op, c, CLNORM_F32), L3 = plan_of(d32_3, op, c, CLNORM_F32);
            ck_assert_msg(O.row_phase > 1 && N.row_phase == 0, "fp32 op %d at %zu without the key: phase %u", op, c, O.row_phase);
            ck_assert_msg(memcmp(&L4, f32_cases[i].kept4 ? &N : &O, sizeof L4) == 0, "fp32 op %d at %zu, depth 4: phase %u", op, c,
                          L4.row_phase);
            ck_assert_msg(memcmp(&L3, f32_cases[i].kept3 ? &N : &O, sizeof L3) == 0, "fp32 op %d at %zu, depth 3: phase %u", op, c,
                          L3.row_phase);
        }
    const clnorm_launch_info P3 = plan_of(d32_3, 1, 10242, CLNORM_F32), PO = plan_of(off, 1, 10242, CLNORM_F32);
    ck_assert_msg(PO.row_phase > 1 && memcmp(&P3, &PO, sizeof P3) == 0, "fp32 backward at 10242: phase %u", P3.row_phase);
    const clnorm_launch_info H3 = plan_of(d32_3, DX | RES, 24578, CLNORM_BF16), HO = plan_of(off, DX | RES, 24578, CLNORM_BF16);
    ck_assert_msg(HO.row_phase > 1 && memcmp(&H3, &HO, sizeof H3) == 0, "bf16 dx_res at 24578: phase %u", H3.row_phase);
    clnorm_context_release(d32);
    clnorm_context_release(d32_3);
#undef LONG_RES
    clnorm_context_release(off);
    clnorm_context_release(both);
    clnorm_context_release(vmax);
    clnorm_context_release(deep);
    clnorm_context_release(deep3);
    clnorm_context_release(nophase);
}
END_TEST

/* bwd_phase_pipe_dx16_nores N (with _tpr T): the phased all-16-bit dx-only calls without a residual
 * gradient pipelined (so phased) from N vectors deep where that is below bwd_phase_pipe_dx16's
 * depth, in rows of at least T items and frames that fill more than 5/8 of the items' vectors
 * (a depth above that one changes nothing; bwd_phase_pipe_dx16 off, nothing pipelined; this row
 * at 32 items x 2: 315, 41 of 64 vectors, yes; 313, 40, no; 255, 33, no); dx_res, fp32 and the
 * calls with dweight/dbias keep their plans. bwd_phase_pipe_dx16_reread_cols C: the dx-only calls at any narrowed width take
 * phases where the narrowed plan re-reads the row, up to C columns (8194, 2 elements: phased
 * with period 4; 126, a narrowed plan that holds the row: kept). bwd_phase_pipe_dx16_keep_tpr K:
 * not where the narrowed plan holds the row in at most K items (75 / 95, 32 items x 3, kept; with
 * bwd_narrow_item_bytes 16, 249's narrowed plan takes 32 items re-reading the row: phased) */
START_TEST(plan_phase_pipe_dx16_nores_rule)
{
    if (!groups_of_at_least(512, "plan_phase_pipe_dx16_nores_rule"))
        return;
    const int DX = CLNORM_PLAN_BACKWARD_DX, RES = CLNORM_PLAN_BACKWARD_RES;
#define DX16 "phase_vec_max=1,bwd_phase_pipe_dx16=3,bwd_phase_pipe_dx16_wg_max=512"
    clnorm_context *on = phase_rule_context(DX16), *nores = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_nores=2,bwd_phase_pipe_dx16_nores_tpr=8"),
                   *anytpr = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_nores=2"),
                   *same = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_nores=4"),
                   *nodx16 = phase_rule_context("phase_vec_max=1,bwd_phase_pipe_dx16=0,bwd_phase_pipe_dx16_nores=2"),
                   *nodx16_off = phase_rule_context("phase_vec_max=1,bwd_phase_pipe_dx16=0"),
                   *rr = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_reread_cols=13824"),
                   *rr_low = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_reread_cols=8192"),
                   *rr_held = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_reread_cols=13824,bwd_ncache_dx=4,bwd_tpr_max_cached=1024");
    /* 2-vector frames filled past 5/8: phased and pipelined; narrowed before */
    const size_t filled[] = {75, 121, 315, 383, 767, 1535};
    for (size_t i = 0; i < sizeof filled / sizeof filled[0]; ++i) {
        const clnorm_launch_info L = plan_of(nores, DX, filled[i], CLNORM_BF16), O = plan_of(on, DX, filled[i], CLNORM_BF16);
        ck_assert_msg(L.row_phase == 8 && L.register_cache == 2 && L.pipelined == 1, "cols %zu: phase %u, cache %u, pipelined %u",
                      filled[i], L.row_phase, L.register_cache, L.pipelined);
        ck_assert_msg(O.row_phase == 0 && O.vector_width == 1, "cols %zu without the key: phase %u", filled[i], O.row_phase);
    }
    /* rows of fewer than bwd_phase_pipe_dx16_nores_tpr items (7: 1 item, 47 / 57: 4 items) keep
     * their plans; pipelined in phases without that bound */
    const size_t few[] = {7, 47, 57};
    for (size_t i = 0; i < 3; ++i) {
        const clnorm_launch_info L = plan_of(nores, DX, few[i], CLNORM_BF16), O = plan_of(on, DX, few[i], CLNORM_BF16),
                                 A = plan_of(anytpr, DX, few[i], CLNORM_BF16);
        ck_assert_msg(memcmp(&L, &O, sizeof L) == 0 && L.row_phase == 0, "cols %zu: phase %u", few[i], L.row_phase);
        ck_assert_msg(A.row_phase == 8 && A.items_per_row < 8 && A.pipelined == 1, "cols %zu, any items: phase %u, %u items", few[i],
                      A.row_phase, A.items_per_row);
    }
    clnorm_context_release(anytpr);
    /* bwd_phase_pipe_dx16_keep_tpr K: the narrowed plan kept where it holds the row in at most K
     * items (75 / 95: 32 items x 3, kept at 32, phased at 16); 97 / 121 (64 items x 2) and 249
     * (128 items x 2) phased; the other ops unchanged */
    clnorm_context *keep = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_nores=2,bwd_phase_pipe_dx16_nores_tpr=8,bwd_phase_pipe_dx16_keep_tpr=32"),
                   *keep16 = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_nores=2,bwd_phase_pipe_dx16_nores_tpr=8,bwd_phase_pipe_dx16_keep_tpr=16");
    const size_t warp_cached[] = {75, 95};
    for (size_t i = 0; i < 2; ++i) {
        const clnorm_launch_info K = plan_of(keep, DX, warp_cached[i], CLNORM_BF16), O = plan_of(on, DX, warp_cached[i], CLNORM_BF16),
                                 K16 = plan_of(keep16, DX, warp_cached[i], CLNORM_BF16);
        ck_assert_msg(memcmp(&K, &O, sizeof K) == 0 && K.row_phase == 0 && K.items_per_row == 32 && K.register_cache == 3,
                      "cols %zu kept: phase %u, %u items x %u", warp_cached[i], K.row_phase, K.items_per_row, K.register_cache);
        ck_assert_msg(K16.row_phase == 8 && K16.pipelined == 1, "cols %zu, keep 16: phase %u", warp_cached[i], K16.row_phase);
    }
    const size_t past_warp[] = {97, 121, 249};
    for (size_t i = 0; i < 3; ++i) {
        const clnorm_launch_info K = plan_of(keep, DX, past_warp[i], CLNORM_BF16), N = plan_of(nores, DX, past_warp[i], CLNORM_BF16);
        ck_assert_msg(memcmp(&K, &N, sizeof K) == 0 && K.row_phase == 8 && K.pipelined == 1, "cols %zu: phase %u", past_warp[i],
                      K.row_phase);
    }
    const size_t short_cols[] = {1, 3, 7, 23, 31, 59, 63, 75, 95};
    const int other_ops[] = {DX | RES, 1, 1 | RES};
    for (size_t i = 0; i < sizeof short_cols / sizeof short_cols[0]; ++i)
        for (int o = 0; o < 3; ++o) {
            const clnorm_launch_info K = plan_of(keep, other_ops[o], short_cols[i], CLNORM_BF16),
                                     N = plan_of(nores, other_ops[o], short_cols[i], CLNORM_BF16);
            ck_assert_msg(memcmp(&K, &N, sizeof K) == 0, "op %d at %zu", other_ops[o], short_cols[i]);
        }
    /* ... only where it holds the row: with bwd_narrow_item_bytes 16, 249's narrowed plan takes 32
     * items re-reading the row (NVIDIA's), phased all the same */
    clnorm_context *keep_nib = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_nores=2,bwd_phase_pipe_dx16_nores_tpr=8,"
                                                       "bwd_phase_pipe_dx16_keep_tpr=32,bwd_narrow_item_bytes=16"),
                   *nib = phase_rule_context(DX16 ",bwd_narrow_item_bytes=16");
    const clnorm_launch_info KN = plan_of(keep_nib, DX, 249, CLNORM_BF16), NN = plan_of(nib, DX, 249, CLNORM_BF16);
    ck_assert_msg(NN.row_phase == 0 && NN.items_per_row == 32 && NN.register_cache == 0, "249 narrowed: phase %u, %u items x %u",
                  NN.row_phase, NN.items_per_row, NN.register_cache);
    ck_assert_msg(KN.row_phase == 8 && KN.pipelined == 1, "249 with bwd_narrow_item_bytes 16: phase %u", KN.row_phase);
    clnorm_context_release(keep_nib);
    clnorm_context_release(nib);
    clnorm_context_release(keep);
    clnorm_context_release(keep16);
    /* bwd_phase_pipe_dx16 off: phased, not pipelined, whatever the depth key says */
    for (int r = 0; r < 2; ++r) {
        const clnorm_launch_info N = plan_of(nodx16, DX | (r ? RES : 0), 1023, CLNORM_BF16);
        ck_assert_msg(N.row_phase == 8 && N.pipelined == 0, "without bwd_phase_pipe_dx16 (residual %d): phase %u, pipelined %u", r,
                      N.row_phase, N.pipelined);
    }
    /* the fill bound (255, 313), the residual calls, a depth above bwd_phase_pipe_dx16's,
     * bwd_phase_pipe_dx16 off, fp32 and the calls with dweight/dbias: the plans without the key */
    const size_t kept_cols[] = {255, 313, 315, 767, 1023, 3001};
    for (size_t i = 0; i < sizeof kept_cols / sizeof kept_cols[0]; ++i) {
        const size_t c = kept_cols[i];
        const int ops[] = {DX | RES, 1, 1 | RES, DX};
        for (int o = 0; o < 4; ++o) {
            const clnorm_launch_info S = plan_of(same, ops[o], c, CLNORM_BF16), SO = plan_of(on, ops[o], c, CLNORM_BF16),
                                     N = plan_of(nodx16, ops[o], c, CLNORM_BF16), NO = plan_of(nodx16_off, ops[o], c, CLNORM_BF16),
                                     F = plan_of(nores, ops[o], c, CLNORM_F32), FO = plan_of(on, ops[o], c, CLNORM_F32);
            ck_assert_msg(memcmp(&S, &SO, sizeof S) == 0, "depth 4 op %d at %zu", ops[o], c);
            ck_assert_msg(memcmp(&N, &NO, sizeof N) == 0, "without bwd_phase_pipe_dx16, op %d at %zu", ops[o], c);
            ck_assert_msg(memcmp(&F, &FO, sizeof F) == 0, "fp32 op %d at %zu", ops[o], c);
            if (ops[o] != DX || (c != 315 && c != 767)) { /* (those two: the rule's own, above) */
                const clnorm_launch_info B = plan_of(nores, ops[o], c, CLNORM_BF16);
                ck_assert_msg(memcmp(&B, &SO, sizeof B) == 0, "bf16 op %d at %zu", ops[o], c);
            }
        }
    }
    /* 2-element widths whose narrowed plan re-reads the row: phased, period 4, pipelined, up to
     * the bound; 126's narrowed plan holds the row: kept; dx_res and fp32 kept */
    const clnorm_launch_info R = plan_of(rr, DX, 8194, CLNORM_BF16), RO = plan_of(on, DX, 8194, CLNORM_BF16),
                             RL = plan_of(rr_low, DX, 8194, CLNORM_BF16);
    ck_assert_msg(R.row_phase == 4 && R.vector_width == 8 && R.pipelined == 1, "8194: phase %u, vec %u, pipelined %u", R.row_phase,
                  R.vector_width, R.pipelined);
    ck_assert(RO.row_phase == 0 && RO.vector_width == 2 && RO.register_cache == 0);
    ck_assert(memcmp(&RL, &RO, sizeof RL) == 0);
    clnorm_context *rr_at = phase_rule_context(DX16 ",bwd_phase_pipe_dx16_reread_cols=8194");
    ck_assert(plan_of(rr_at, DX, 8194, CLNORM_BF16).row_phase == 4); /* (the bound is inclusive) */
    clnorm_context_release(rr_at);
    const struct {
        int op;
        size_t cols;
        clnorm_dtype dt;
    } rkept[] = {{DX, 126, CLNORM_BF16}, {DX | RES, 8194, CLNORM_BF16}, {1, 8194, CLNORM_BF16}, {DX, 8194, CLNORM_F32},
                 {DX, 8193, CLNORM_F32}};
    for (size_t i = 0; i < sizeof rkept / sizeof rkept[0]; ++i) {
        const clnorm_launch_info L = plan_of(rr, rkept[i].op, rkept[i].cols, rkept[i].dt),
                                 O = plan_of(on, rkept[i].op, rkept[i].cols, rkept[i].dt);
        ck_assert_msg(memcmp(&L, &O, sizeof L) == 0, "op %d at %zu (dtype %d): the plan changed", rkept[i].op, rkept[i].cols,
                      (int)rkept[i].dt);
    }
    const clnorm_launch_info K = plan_of(rr, DX, 126, CLNORM_BF16);
    ck_assert(K.row_phase == 0 && K.vector_width == 2 && K.register_cache > 0);
    /* narrowed plans that hold the row (NVIDIA's up to 8192 columns: its ncache_dx, tpr_max_cached)
     * stay narrowed; 8194, past them, phased */
    const size_t held[] = {1022, 2046};
    for (size_t i = 0; i < 2; ++i) {
        const clnorm_launch_info H = plan_of(rr_held, DX, held[i], CLNORM_BF16);
        ck_assert_msg(H.row_phase == 0 && H.vector_width == 2 && H.register_cache > 0, "%zu: phase %u, cache %u", held[i], H.row_phase,
                      H.register_cache);
    }
    ck_assert(plan_of(rr_held, DX, 8194, CLNORM_BF16).row_phase == 4);
#undef DX16
    clnorm_context_release(on);
    clnorm_context_release(nores);
    clnorm_context_release(same);
    clnorm_context_release(nodx16);
    clnorm_context_release(nodx16_off);
    clnorm_context_release(rr);
    clnorm_context_release(rr_low);
    clnorm_context_release(rr_held);
}
END_TEST

/* The narrowed-vector rules' bounds (session 28): fwd_narrow_from_bytes, narrow_item_bytes' raise
 * only where the plan at the table's target gives each item at most that many bytes of the row;
 * phase_cached_tpr_max, phase_cached_skip only where the narrowed plan takes at most that many
 * items per row (else the call takes row phases); bwd_narrow_from_bytes, the backward's raise
 * likewise. All 0: no bound, session 26's plans. */
START_TEST(plan_narrow_bound_rules)
{
    if (!groups_of_at_least(1024, "plan_narrow_bound_rules"))
        return;
    const char *base = "phase=1,phase_skip=768,phase_vec_max=1,phase_cached_skip=30,fwd_narrow_item_bytes=32,"
                       "fwd_narrow_vec_max=1,bwd_narrow_item_bytes=16,bwd_ncache=3,bwd_ncache_wide=6,"
                       "fwd_tpr_max16=1024,bwd_tpr_max_cached=1024,bwd_ncache_dx=4";
    clnorm_context *on = gpu_context_with_tune2(base, "fwd_narrow_from_bytes=16,phase_cached_tpr_max=512"),
                   *off = gpu_context_with_tune2(base, "fwd_narrow_from_bytes=0,phase_cached_tpr_max=0");
    const int DX = CLNORM_PLAN_BACKWARD_DX, RES = CLNORM_PLAN_BACKWARD_RES;
    /* the forward, fp32 one-element vectors, target 4 (tpr_max 512), raised to 8: cols 2047 at the
     * target 512 x 4 (16 bytes): raised to 256 x 8 with the bound too; 2049 (512 x 5, 20 bytes)
     * and 3001 (512 x 6): raised only without it; bf16 at 3001 (768 x 4, 8 bytes): raised */
    const struct {
        size_t cols;
        clnorm_dtype dt;
        unsigned tpr_on, nc_on, tpr_off, nc_off;
    } f[] = {
        {2047, CLNORM_F32, 256, 8, 256, 8},
        {2049, CLNORM_F32, 512, 5, 288, 8},
        {3001, CLNORM_F32, 512, 6, 384, 8},
        {3001, CLNORM_BF16, 384, 8, 384, 8},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) {
        const clnorm_launch_info a = plan_of(on, 0, f[i].cols, f[i].dt), b = plan_of(off, 0, f[i].cols, f[i].dt);
        ck_assert_msg(a.vector_width == 1 && a.items_per_row == f[i].tpr_on && a.register_cache == f[i].nc_on,
                      "forward cols %zu dtype %d, bound: %u x %u", f[i].cols, (int)f[i].dt, a.items_per_row,
                      a.register_cache);
        ck_assert_msg(b.vector_width == 1 && b.items_per_row == f[i].tpr_off && b.register_cache == f[i].nc_off,
                      "forward cols %zu dtype %d, no bound: %u x %u", f[i].cols, (int)f[i].dt, b.items_per_row,
                      b.register_cache);
    }
    /* fp32 backward calls whose narrowed plan caches the row: at 512 items (1535, 2047) narrowed
     * either way; at 1024 (2049, 3001) phases with the bound, narrowed without it */
    const int ops[] = {1, 1 | RES, DX, DX | RES};
    const size_t cols[] = {1535, 2047, 2049, 3001};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; ++i) {
            const clnorm_launch_info a = plan_of(on, ops[o], cols[i], CLNORM_F32),
                                     b = plan_of(off, ops[o], cols[i], CLNORM_F32);
            ck_assert_msg(b.row_phase == 0 && b.vector_width == 1 && b.register_cache > 0,
                          "op %d cols %zu, no bound: phase %u width %u cache %u", ops[o], cols[i], b.row_phase,
                          b.vector_width, b.register_cache);
            if (b.items_per_row <= 512)
                ck_assert(a.row_phase == 0 && a.items_per_row == b.items_per_row && a.register_cache == b.register_cache);
            else
                ck_assert_msg(a.row_phase == 4 && a.vector_width == 4, "op %d cols %zu, bound: phase %u width %u",
                              ops[o], cols[i], a.row_phase, a.vector_width);
            /* (2049 and 3001 take 1024 items narrowed, in every op here) */
            ck_assert_uint_eq(b.items_per_row, i < 2 ? 512 : 1024);
        }
    }
    /* bwd_narrow_from_bytes, the backward's own bound: fp32 at cols 1023, target 2, gives 512 x 2
     * (8 bytes) unraised, 256 x 4 raised (bwd_narrow_item_bytes 16): kept at a bound of 8, not
     * at 4 */
    for (unsigned bound = 4; bound <= 8; bound += 4) {
        char extra[64];
        snprintf(extra, sizeof extra, "bwd_narrow_from_bytes=%u", bound);
        clnorm_context *bb = gpu_context_with_tune2(base, extra);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o += 2) { /* (with and without dweight/dbias) */
            const clnorm_launch_info p = plan_of(bb, ops[o], 1023, CLNORM_F32);
            ck_assert_msg(p.vector_width == 1 && p.items_per_row == (bound == 8 ? 256u : 512u) &&
                              p.register_cache == (bound == 8 ? 4u : 2u),
                          "bwd_narrow_from_bytes %u, op %d: %u x %u", bound, ops[o], p.items_per_row, p.register_cache);
        }
        clnorm_context_release(bb);
    }
    clnorm_context_release(on);
    clnorm_context_release(off);
}
END_TEST

/* A kernel variant is looked up by its key, and its by-value arguments are set only when they
 * change (layer_norm.c): calls of one variant (same cols and dtypes) that differ only in rows, eps,
 * offsets, row strides, flags (which of weight, bias, mean, rstd, dweight, dbias, dresidual are
 * given) or freshly created buffers must each run with their own values. Each pass runs the cases
 * in turn, so that every argument changes between consecutive calls; the second pass builds no
 * program (the variants' keys are known). Every result is checked against the float64 reference. */
/* Row phases read each frame's first and last vector whole only where every row tensor the kernel
 * reads (x, dy, the residual gradient) holds its last row's whole frame in its buffer: bf16 rows of
 * 1023 elements, 61 rows (the aligned vector holding their last element reaches 5 elements past
 * it), in buffers of exactly 61 x 1023 elements or 8 elements longer (NaN there: it must never
 * reach a sum). In a fresh context, a call whose buffers are all longer builds the whole-edge dx
 * kernel; a call where x, dy, the residual gradient or all three are exact then builds the
 * element-by-element one; a third call, all longer again, builds nothing. All give the same
 * bits: the edges' lanes outside the row add nothing. */
static cl_mem phase_buffer(clnorm_context *ctx, const uint16_t *data, size_t n, size_t extra)
{
    cl_int err;
    cl_mem m = clCreateBuffer(clnorm_context_cl_context(ctx), CL_MEM_READ_WRITE, (n + extra) * 2, NULL, &err);
    CL_OK(err);
    uint16_t *fill = xmalloc((n + extra) * 2);
    memcpy(fill, data, n * 2);
    for (size_t i = n; i < n + extra; ++i)
        fill[i] = 0x7fc1;
    CL_OK(clEnqueueWriteBuffer(clnorm_context_queue(ctx), m, CL_TRUE, 0, (n + extra) * 2, fill, 0, NULL, NULL));
    free(fill);
    return m;
}

enum { PH_ROWS = 61, PH_COLS = 1023, PH_N = PH_ROWS * PH_COLS };
typedef struct {
    uint16_t *x, *dy, *dr, w[PH_COLS];
    float mean[PH_ROWS], rstd[PH_ROWS];
} phase_data;

/* one backward with dweight, dbias and the residual gradient; dx and the sums into dx_out, g_out */
static void phase_call(clnorm_context *ctx, const phase_data *d, const size_t extra[3], uint16_t *dx_out, float *g_out)
{
    cl_int err;
    const cl_context clctx = clnorm_context_cl_context(ctx);
    cl_mem xb = phase_buffer(ctx, d->x, PH_N, extra[0]), dyb = phase_buffer(ctx, d->dy, PH_N, extra[1]),
           drb = phase_buffer(ctx, d->dr, PH_N, extra[2]), w = phase_buffer(ctx, d->w, PH_COLS, 0);
    /* (outputs poisoned with NaN: an element the call leaves unwritten fails the finite checks) */
    uint16_t *poison = xmalloc(PH_N * 2);
    for (size_t i = 0; i < PH_N; ++i)
        poison[i] = 0x7fc1;
    cl_mem dx = phase_buffer(ctx, poison, PH_N, 0);
    free(poison);
    float gpoison[2 * PH_COLS];
    for (size_t i = 0; i < 2 * PH_COLS; ++i)
        gpoison[i] = NAN;
    cl_mem st = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof d->mean, (void *)d->mean, &err);
    CL_OK(err);
    cl_mem sr = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof d->rstd, (void *)d->rstd, &err);
    CL_OK(err);
    cl_mem g = clCreateBuffer(clctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof gpoison, gpoison, &err);
    CL_OK(err);
    const clnorm_matrix mx = {xb, 0, 0, CLNORM_BF16}, mdy = {dyb, 0, 0, CLNORM_BF16}, mdr = {drb, 0, 0, CLNORM_BF16},
                        mdx = {dx, 0, 0, CLNORM_BF16};
    const clnorm_vector vw = {w, 0, CLNORM_BF16}, vm = {st, 0, CLNORM_F32}, vr = {sr, 0, CLNORM_F32},
                        vdw = {g, 0, CLNORM_F32}, vdb = {g, PH_COLS, CLNORM_F32};
    CLNORM_OK(ctx, clnorm_layer_norm_backward(ctx, PH_ROWS, PH_COLS, &mdy, &mx, &vw, &vm, &vr, &mdr, &mdx, &vdw, &vdb, 0,
                                              NULL, NULL));
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), dx, CL_TRUE, 0, PH_N * 2, dx_out, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), g, CL_TRUE, 0, 2 * PH_COLS * sizeof(float), g_out, 0, NULL,
                              NULL));
    cl_mem all[] = {xb, dyb, drb, w, dx, st, sr, g};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        CL_OK(clReleaseMemObject(all[i]));
}

START_TEST(phase_edges_follow_buffers)
{
    phase_data *d = xmalloc(sizeof *d);
    d->x = xmalloc(PH_N * 2);
    d->dy = xmalloc(PH_N * 2);
    d->dr = xmalloc(PH_N * 2);
    rng r;
    rng_seed(&r, 0x9a5e30u);
    for (size_t i = 0; i < PH_N; ++i) {
        d->x[i] = f32_to_bf16((float)rng_normal(&r));
        d->dy[i] = f32_to_bf16((float)rng_normal(&r));
        d->dr[i] = f32_to_bf16((float)rng_normal(&r));
    }
    for (size_t c = 0; c < PH_COLS; ++c)
        d->w[c] = f32_to_bf16((float)rng_range(&r, 0.5, 1.5));
    for (size_t i = 0; i < PH_ROWS; ++i) {
        double m = 0, v = 0;
        for (size_t c = 0; c < PH_COLS; ++c)
            m += bf16_to_f32(d->x[i * PH_COLS + c]);
        m /= PH_COLS;
        for (size_t c = 0; c < PH_COLS; ++c)
            v += (bf16_to_f32(d->x[i * PH_COLS + c]) - m) * (bf16_to_f32(d->x[i * PH_COLS + c]) - m);
        d->mean[i] = (float)m;
        d->rstd[i] = (float)(1.0 / sqrt(v / PH_COLS + 1e-5));
    }
    uint16_t *dx0 = xmalloc(PH_N * 2), *dx1 = xmalloc(PH_N * 2);
    float g0[2 * PH_COLS], g1[2 * PH_COLS];
    /* the second call's buffers, elements past the rows (x, dy, the residual gradient): one or all
     * exact */
    static const size_t longer[3] = {8, 8, 8}, exact[][3] = {{0, 8, 8}, {8, 0, 8}, {8, 8, 0}, {0, 0, 0}};
    for (size_t e = 0; e < sizeof exact / sizeof exact[0]; ++e) {
        clnorm_context *ctx = class_context_with_tune("gpu", "phase=1,phase_skip=0");
        const clnorm_launch_info p = plan_at(ctx, 1 | CLNORM_PLAN_BACKWARD_RES, PH_ROWS, PH_COLS, CLNORM_BF16);
        ck_assert(p.row_phase == 8 && p.vector_width == 8);
        phase_call(ctx, d, longer, dx0, g0);
        const size_t n0 = clnorm_context_program_count(ctx);
        phase_call(ctx, d, exact[e], dx1, g1);
        ck_assert_msg(clnorm_context_program_count(ctx) == n0 + 1,
                      "x %zu, dy %zu, dres %zu elements longer: %zu programs after %zu, expected one more", exact[e][0],
                      exact[e][1], exact[e][2], clnorm_context_program_count(ctx), n0);
        ck_assert_msg(memcmp(dx1, dx0, PH_N * 2) == 0 && memcmp(g1, g0, sizeof g0) == 0,
                      "x %zu, dy %zu, dres %zu elements longer: dx or dweight/dbias differ", exact[e][0], exact[e][1],
                      exact[e][2]);
        phase_call(ctx, d, longer, dx1, g1);
        ck_assert_uint_eq(clnorm_context_program_count(ctx), n0 + 1);
        ck_assert(memcmp(dx1, dx0, PH_N * 2) == 0 && memcmp(g1, g0, sizeof g0) == 0);
        clnorm_context_release(ctx);
    }
    for (size_t i = 0; i < 2 * PH_COLS; ++i)
        ck_assert_msg(isfinite(g0[i]), "dweight/dbias[%zu] = %g", i, (double)g0[i]);
    for (size_t i = 0; i < PH_N; ++i)
        ck_assert_msg(isfinite(bf16_to_f32(dx0[i])), "dx[%zu] is not finite", i);
    free(dx0);
    free(dx1);
    free(d->x);
    free(d->dy);
    free(d->dr);
    free(d);
}
END_TEST

/* Two dx-only calls whose plans differ only in one flag of clnorm_launch_info (at field, a byte
 * offset) must not share a kernel variant. The pair is found by scanning widths step apart from
 * step on, so it follows the host (its L1d sets the CPU's local row). In a fresh context the call
 * of width first runs, then the other, each checked in full, and the second must build a program
 * of its own. Returns false (skipped) where no pair exists on this device. */
/* the byte offset of a clnorm_launch_info field, which must be an unsigned (compile-time check) */
#define LAUNCH_FLAG(f)                                                                                                \
    (offsetof(clnorm_launch_info, f) + 0 * sizeof(char[sizeof(((clnorm_launch_info *)0)->f) == sizeof(unsigned) ? 1 : -1]))
static bool variant_key_pair(size_t field, size_t step, bool first_with, int affine, uint64_t seed)
{
    clnorm_context *probe = NULL;
    ck_assert_int_eq(clnorm_context_create(NULL, &probe), CLNORM_SUCCESS);
    size_t with = 0, without = 0;
    for (size_t c = step; c <= 65536 && !with; c += step) {
        clnorm_launch_info a, b; /* zeroed: memcmp below reads their padding too */
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        if (clnorm_launch_plan(probe, CLNORM_PLAN_BACKWARD_DX, 16, c, CLNORM_BF16, &a) ||
            clnorm_launch_plan(probe, CLNORM_PLAN_BACKWARD_DX, 16, c + step, CLNORM_BF16, &b))
            break;
        unsigned *fa = (unsigned *)((char *)&a + field), *fb = (unsigned *)((char *)&b + field);
        if (*fa && !*fb) {
            *fa = *fb = 0;
            if (!memcmp(&a, &b, sizeof a)) {
                with = c;
                without = c + step;
            }
        }
    }
    clnorm_context_release(probe);
    if (!with)
        return false;
    const size_t first = first_with ? with : without, second = first_with ? without : with;
    clnorm_context *ctx = NULL;
    ck_assert_int_eq(clnorm_context_create(NULL, &ctx), CLNORM_SUCCESS);
    case_cfg c = case_basic(16, first, CLNORM_BF16, CLNORM_BF16, affine, LAY_DENSE, seed);
    run_backward_case(ctx, &c);
    const size_t programs = clnorm_context_program_count(ctx);
    c = case_basic(16, second, CLNORM_BF16, CLNORM_BF16, affine, LAY_DENSE, seed + 1);
    run_backward_case(ctx, &c);
    ck_assert_msg(clnorm_context_program_count(ctx) > programs, "cols %zu after %zu: %zu programs, %zu before", second,
                  first, clnorm_context_program_count(ctx), programs);
    clnorm_context_release(ctx);
    return true;
}

/* The local row (CPU devices: the 16-bit backward's row in local memory up to the host's L1d):
 * the wider call without it first, then the narrower one with it (a key without KEY_LOCAL_ROW
 * gave the second call the first's kernel: CL_INVALID_ARG_INDEX, or a wrong dx). */
START_TEST(variant_key_local_row)
{
    if (!variant_key_pair(LAUNCH_FLAG(local_row), 512, false, AFF_NONE, 0x10ca1u))
        fprintf(stderr, "variant_key_local_row: skipped, no neighbouring widths differ only in the local row here\n");
}
END_TEST

/* The weight's fp32 copy beside the local row (local_weight), with a weight in the calls: the
 * narrower call with the copy first (a key without KEY_LOCAL_W gave the LOCAL_W program of cols
 * 2560 to 2816, whose local buffer has no room for the copy). */
START_TEST(variant_key_local_weight)
{
    if (!variant_key_pair(LAUNCH_FLAG(local_weight), 256, true, AFF_W_DX, 0x10cb1u))
        fprintf(stderr, "variant_key_local_weight: skipped, no neighbouring widths differ only in the local weight here\n");
}
END_TEST

START_TEST(variant_args_follow_calls)
{
    clnorm_context *ctx = test_context();
    static const int layouts[] = {LAY_DENSE, LAY_PAD_ALIGNED, LAY_DENSE_OFFSET, LAY_SHARED};
    static const float eps[] = {1e-5f, 0.25f, 0.0f, 3.0f};
    size_t programs = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < 4; ++i) {
            case_cfg c = case_basic(5 + 4 * (size_t)i, 256, _i ? CLNORM_BF16 : CLNORM_F32, CLNORM_F32,
                                    i % 2 ? AFF_WB : AFF_W, layouts[i], 0x7a11u + (uint64_t)(4 * pass + i));
            c.eps = eps[i];
            c.stats = i % 2 ? STATS_BOTH : STATS_MEAN;
            run_forward_case(ctx, &c);
            c.affine = i % 2 ? AFF_WB : AFF_B;
            c.residual = i % 2 ? RES_SEPARATE : RES_NONE;
            run_backward_case(ctx, &c);
        }
        if (pass == 0)
            programs = clnorm_context_program_count(ctx);
        else
            ck_assert_uint_eq(clnorm_context_program_count(ctx), programs);
    }
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("basics");
    tcase_add_test(tc, version_matches_header);
    tcase_add_test(tc, status_strings);
    tcase_add_test(tc, release_null_is_noop);
    tcase_add_test(tc, create_null_output_pointer);
    suite_add_tcase(s, tc);
    tc = tcase_create("context");
    tcase_add_test(tc, accessors);
    tcase_add_test(tc, last_error_follows_calls);
    tcase_add_test(tc, unknown_device_spec);
    tcase_add_test(tc, last_error_is_per_context);
    tcase_add_test(tc, create_clears_earlier_error);
    tcase_add_test(tc, create_from_queue_failures);
    tcase_add_test(tc, program_count_absolute);
    tcase_add_test(tc, select_device_matches_context);
    tcase_add_test(tc, select_device_specs);
    tcase_add_test(tc, create_from_in_order_queue);
    tcase_add_test(tc, create_from_out_of_order_queue);
    tcase_add_test(tc, launch_plans);
    tcase_add_test(tc, plan_rules_nvidia_layouts);
    tcase_add_test(tc, plan_fill_rule_keeps_dx16_items);
    tcase_add_test(tc, plan_reread_batch_rule);
    tcase_add_test(tc, plan_fill16_rule);
    tcase_add_test(tc, plan_acc_groups_cap);
    tcase_add_test(tc, plan_fwd16_rules);
    tcase_add_test(tc, plan_acc_local_res_rule);
    tcase_add_test(tc, plan_acc_local16_rule);
    tcase_add_test(tc, plan_acc_local16_bounds);
    tcase_add_test(tc, plan_dr_early_group_bytes);
    tcase_add_test(tc, plan_acc_local16_width_and_frame);
    tcase_add_test(tc, plan_dr_early16_only_acc_local16_rows);
    tcase_add_test(tc, plan_rpi_not_twice_read);
    tcase_add_test(tc, plan_pipe_vecs_whole_group);
    tcase_add_test(tc, plan_fwd_pipe_needs_persistent_grid);
    tcase_add_test(tc, plan_acc_local_res_edges);
    tcase_add_test(tc, plan_acc_local16_rows_per_item_fit);
    tcase_add_test(tc, plan_bfly_rule);
    tcase_add_test(tc, plan_device_name_refinement);
    tcase_add_test(tc, plan_acc_tpr_not_cached);
    tcase_add_test(tc, plan_wide_and_acc_tpr_rules);
    tcase_add_test(tc, plan_colsweep_rule);
    tcase_add_test(tc, plan_colsweep_stream_rule);
    tcase_add_test(tc, plan_phase_reread_rule);
    tcase_add_test(tc, plan_balance_rule);
    tcase_add_test(tc, plan_stream_tpr_rule);
    tcase_add_test(tc, plan_chan_rule);
    tcase_add_test(tc, plan_groups16_rule);
    tcase_add_test(tc, plan_short16_rule);
    tcase_add_test(tc, plan_fwd_prefetch_rule);
    tcase_add_test(tc, plan_prefetch_current_rule);
    tcase_add_test(tc, plan_local_row_rule);
    tcase_add_test(tc, plan_bwd_local_row_fits_l1d);
    tcase_add_test(tc, x86_bf16_stores_where_the_cpu_has_them);
    tcase_add_test(tc, build_log_unopenable_file_falls_back_to_stderr);
    tcase_add_test(tc, build_log_zero_is_off);
    tcase_add_test(tc, plan_fwd_rows_per_item_rule);
    tcase_add_test(tc, plan_unaligned_rule);
    tcase_add_test(tc, plan_row_phase_rule);
    tcase_add_test(tc, plan_phase_pipe_dx16_rule);
    tcase_add_test(tc, plan_phase_pipe_dx16_nores_rule);
    tcase_add_test(tc, plan_phase_dx_deep_rule);
    tcase_add_test(tc, plan_narrow_bound_rules);
    tcase_add_test(tc, plan_short_rows_rule);
    tcase_add_test(tc, phase_edges_follow_buffers);
    tcase_add_loop_test(tc, variant_args_follow_calls, 0, 2);
    tcase_add_test(tc, variant_key_local_row);
    tcase_add_test(tc, variant_key_local_weight);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(api_suite());
}
