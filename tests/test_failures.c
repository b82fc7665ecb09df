/* Failure paths: a program that fails to build (CLNORM_BUILD_OPTIONS forcing a compile error)
 * returns CLNORM_BUILD_FAILED with the compiler's log in last_error, writes nothing, and a new
 * context made once the option is gone works; CLNORM_BUILD_OPTIONS reaches the compiler whole or
 * fails context creation; a malformed CLNORM_TUNE fails context creation with
 * CLNORM_INVALID_ENVIRONMENT; a workspace the device refuses surfaces OpenCL's error unchanged. Leaks on these paths are caught by the ASan run (.ci/run). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { R = 5, C = 40 };

/* forward on fresh buffers; returns the status and whether y came back untouched */
static clnorm_status forward_once(clnorm_context *ctx, int *untouched)
{
    cl_context c = clnorm_context_cl_context(ctx);
    float x[R * C], y[R * C], y0[R * C];
    for (int i = 0; i < R * C; ++i)
        x[i] = (float)(i % 7) - 2.5f;
    memset(y0, 0xA5, sizeof y0);
    cl_int err;
    cl_mem bx = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    CL_OK(err);
    cl_mem by = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y0, y0, &err);
    CL_OK(err);
    const clnorm_matrix X = {bx, 0, 0, CLNORM_F32}, Y = {by, 0, 0, CLNORM_F32};
    clnorm_status st = clnorm_layer_norm_forward(ctx, R, C, 1e-5f, &X, NULL, NULL, &Y, NULL, NULL, 0, NULL, NULL);
    CL_OK(clEnqueueReadBuffer(clnorm_context_queue(ctx), by, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));
    *untouched = memcmp(y, y0, sizeof y) == 0;
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    return st;
}

/* clnorm_context_create under CLNORM_BUILD_OPTIONS=opt (unset again after); *ctx is poisoned
 * first, so a failure must reset it to NULL */
static clnorm_status create_with_build_options(const char *opt, clnorm_context **ctx)
{
    *ctx = (clnorm_context *)&opt;
    setenv("CLNORM_BUILD_OPTIONS", opt, 1);
    clnorm_status st = clnorm_context_create(NULL, ctx);
    unsetenv("CLNORM_BUILD_OPTIONS");
    return st;
}

START_TEST(build_failure_reports_log_and_recovers)
{
    clnorm_context *ctx = NULL;
    /* floatv (the vector type every kernel declares through common.cl) defined as "(" is a syntax error in any kernel variant */
    CLNORM_OK(NULL, create_with_build_options("-Dfloatv=(", &ctx));
    int untouched = 0;
    clnorm_status st = forward_once(ctx, &untouched);
    ck_assert_msg(st == CLNORM_BUILD_FAILED, "status %s", clnorm_status_string(st));
    const char *msg = clnorm_context_last_error(ctx);
    ck_assert_msg(strstr(msg, "build log") && strstr(msg, "-Dfloatv=("), "message: %s", msg);
    ck_assert_msg(strlen(strstr(msg, "build log")) > strlen("build log:\n") + 10, "no compiler log: %s", msg);
    ck_assert_msg(untouched, "y was written by a call that failed");
    /* the same context keeps failing the same way (failed builds are not cached as successes) */
    ck_assert_int_eq(forward_once(ctx, &untouched), CLNORM_BUILD_FAILED);
    clnorm_context_release(ctx);

    CLNORM_OK(NULL, clnorm_context_create(NULL, &ctx)); /* option gone: a new context works */
    CLNORM_OK(ctx, forward_once(ctx, &untouched));
    ck_assert_msg(!untouched, "the successful call wrote nothing");
    ck_assert_str_eq(clnorm_context_last_error(ctx), "");
    clnorm_context_release(ctx);
}
END_TEST

/* CLNORM_BUILD_OPTIONS up to its documented 1024 characters reaches the compiler whole (its last
 * option, a syntax error, fails the build: nothing was cut off); one character more fails context
 * creation (it once went through a 1024-byte buffer, and its end was dropped silently) */
START_TEST(long_build_options_whole_or_refused)
{
    char opt[1026];
    const char *tail = " -Dfloatv=(";
    memset(opt, 0, sizeof opt);
    size_t n = 0;
    for (int i = 0; n + 16 + strlen(tail) < 1024; ++i)
        n += (size_t)snprintf(opt + n, sizeof opt - n, "-DCLNORM_PAD%d=1 ", i);
    while (n + strlen(tail) < 1024)
        opt[n++] = ' ';
    memcpy(opt + n, tail, strlen(tail) + 1);
    ck_assert_uint_eq(strlen(opt), 1024);
    clnorm_context *ctx = NULL;
    CLNORM_OK(NULL, create_with_build_options(opt, &ctx));
    int untouched = 0;
    clnorm_status st = forward_once(ctx, &untouched);
    ck_assert_msg(st == CLNORM_BUILD_FAILED, "status %s: the options' end did not reach the compiler", clnorm_status_string(st));
    ck_assert_msg(strstr(clnorm_context_last_error(ctx), "-Dfloatv=("), "message: %s", clnorm_context_last_error(ctx));
    ck_assert_msg(untouched, "y was written by a call that failed");
    clnorm_context_release(ctx);

    strcat(opt, " ");
    ck_assert_uint_eq(strlen(opt), 1025);
    st = create_with_build_options(opt, &ctx);
    ck_assert_msg(st == CLNORM_INVALID_ENVIRONMENT, "status %s", clnorm_status_string(st));
    ck_assert_ptr_null(ctx);
    ck_assert_msg(strstr(clnorm_context_last_error(NULL), "CLNORM_BUILD_OPTIONS") &&
                      strstr(clnorm_context_last_error(NULL), "1025"),
                  "message: %s", clnorm_context_last_error(NULL));
}
END_TEST

START_TEST(malformed_tune_fails_context_creation)
{
    const char *bad[] = {"fwd_tpr=3", "nonsense=1", "fwd_wg", "bwd_nacc=4;x", "vec_bytes=128",
                         "shfl=2", "perm=2", "contig=7", "red_lanes=3", "red_lanes=64", "bwd_rpi=3",
                         "bwd_rpi16=8", "bwd_rpi=0", "bwd_raw16=2", "zext=2", "x86bf16=5", "bwd_rpi_cols=-1",
                         "nt_kib=x", "fwd_groups=65", "bwd_pipe=3", "bwd_tpr_max_cached=768",
                         "bwd_tpr_max16=2048", "bwd_ncache_dx=17", "bwd_ncache=-1", "bwd_rpi16_res=3", "bwd_rpi_res=3", "bwd_rpi_res=8", "fwd_rpi_res=2", "bwd_dr_early=y",
                         "bwd_rpi_cols_max=-2", "local_row_kib=2000000", "local_row_kib_intel_bf16=2000000", "local_row_kib_intel_bf16=q",
                         "bwd_local_row_kib_intel_bf16=2000000", "bwd_local_row_kib_intel_bf16=-1",
                         "fwd_rpi_cols_max_intel_bf16=z", "fwd_rpi4_cols_intel_bf16=1073741825", "bwd_dx16_cols=z", "fwd_raw16=2", "fwd_pipe=3",
                         "bwd_prefetch16_cols=q", "bwd_prefetch16_nores_nc_max=17", "bwd_dr_early16_nc_max=17", "bwd_dr_early16_cols_min=1073741825", "fwd_pipe_cols=x", "fwd_ncache=17", "bwd_dxb=17",
                         "bwd_dxb16=-1", "bwd_pipe_vecs=2000000", "bwd_fill16=17", "bwd_prefetch_cols=z", "bwd_acc_groups=65",
                         "fwd_pipe_prefetch_cols=x", "fwd_pipe_prefetch_cols=1073741825",
                         "fwd_fit16=17", "fwd_fit16_tpr=1025", "fwd_raw16_vecs=2000000", "fwd_tpr_max16=100",
                         "bwd_acc_local_res=17", "bwd_acc_local16=17", "bwd_acc_local16_nc=-1", "bwd_cache16_lacc=99", "bwd_dxb_res=-3", "fwd_fit16_deep=17", "fwd_fit16_deep_tpr=2048",
                         "bwd_groups16=65", "bwd_groups16_res=-1", "local_row_kib_avx2=2000000", "bwd_local_row_kib_avx2=-1", "bwd_rpi16_avx2=3",
                         "fwd_rpi16=3", "fwd_rpi16=8", "fwd_rpi16=0", "fwd_rpi_cols=-1", "fwd_rpi_cols_max=x", "fwd_rpi=2",
                         "fwd_bfly_tpr=1025", "bwd_bfly_tpr=-1", "fwd_bfly_cols_max=y", "bfly_tpr=512",
                         "bwd_cached_nc=17", "bwd_ncache_wide=-1", "bwd_acc_tpr_max=768", "bwd_acc_tpr_max=2048",
                         "bwd_dxb_dx=17", "bwd_groups_res=65", "fwd_ncache_wide=6", "bwd_colsweep_cols=-1",
                         "bwd_colsweep16_cols=x", "bwd_colsweep_groups=65", "fwd_colsweep_cols=1", "bwd_colsweep_stream=2", "phase_reread=2", "phase_reread=-1",
                         "fwd_colsweep_stream=1",
                         "bwd_balance=51", "fwd_balance=51", "bwd_balance_rounds=-1", "fwd_balance_rounds=x",
                         "bwd_stream_tpr=768", "bwd_stream_tpr=2048", "fwd_stream_tpr=1024",
                         "fwd_chan=3", "fwd_chan=32", "fwd_chan16=-1", "bwd_chan=2",
                         "bwd_short16_cols=-1", "bwd_short16_cols=1073741825", "packed=2", "phase=2", "phase_edge_elems=2", "bwd_short16_vec_bytes=12", "bwd_short16_vec_bytes=128",
                         "bwd_short16_groups=65", "bwd_short16_target_res=65", "bwd_short16_groups_res=x", "fwd_short16_cols=64",
                         "unaligned_bytes=65", "unaligned_bytes=x", "unaligned=1", "nt_unaligned_bytes=65", "nt_unaligned_bytes=-1", "nt_unaligned_row_bytes=1073741825", "nt_unaligned_row_bytes=q", "phase_skip=1024", "phase_skip=-1", "fwd_phase_groups=2" /* gone in 0.20.0 */, "fwd_narrow_item_bytes=1025", "bwd_narrow_item_bytes=-1",
                         "narrow_item_bytes=16", "bwd_phase_target16_res=65", "bwd_phase_rpi16_res=3", "bwd_phase_nopipe16_res=17", "bwd_phase_pipe16_res_wg_max=1025", "bwd_phase_nopipe16=17", "bwd_phase_nofill16_tpr=1025", "bwd_phase_pipe_dx16=17", "bwd_phase_pipe_dx16=-1", "bwd_phase_pipe_dx16_wg_max=1025", "bwd_phase_pipe_dx32=2", "bwd_phase_pipe_dx16_nores=17", "bwd_phase_pipe_dx16_nores_tpr=1025", "bwd_phase_pipe_dx16_reread_cols=1073741825", "bwd_phase_pipe_dx16_keep_tpr=1025", "bwd_phase_pipe_dx16_keep_tpr=-1", "bwd_phase_dx16_res_vec_max=65", "bwd_phase_dx16_res_deep=17", "bwd_phase_dx16_res_deep=x", "bwd_phase_dx32_deep=17", "fwd_phase_pipe_dx16=3", "fwd_phase_target16_res=4",
                         "phase_vec_max=65", "phase_vec_max=x", "phase_cached_skip=1024", "fwd_narrow_vec_max=65",
                         "bwd_narrow_vec_max=-1", "fwd_narrow_from_bytes=1025", "bwd_narrow_from_bytes=-1",
                         "narrow_from_bytes=16", "phase_cached_tpr_max=1025", "phase_cached_tpr_max=x", "fwd_rpi4_cols32=1073741825",
                         "fwd_rpi4_cols32=-1", "bwd_rpi_short_cols=q", "bwd_rpi16_short_cols=1073741825", "fwd_rpi_short_cols=16",
                         "pf_bytes=1048577", "pf_bytes=-1", "pf_bytes=k", "fwd_pf_bytes=1024", "pf_l2_bytes=1073741825", "pf_l2_bytes=x", "fwd_rowwise_kib=1048577", "fwd_rowwise_kib=-2", "rowwise_kib=16",
                         /* values: digits only (a sign, spaces or a wrap-around are not numbers here) */
                         "fwd_tpr=-18446744073709551552", "fwd_tpr= 64", "fwd_tpr=+64", "fwd_wg=99999999999999999999999",
                         "fwd_tpr=64 ", "fwd_tpr=", "=64", "fwd_tpr=0x40"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        clnorm_context *ctx = (clnorm_context *)&bad; /* must be reset to NULL */
        setenv("CLNORM_TUNE", bad[i], 1);
        clnorm_status st = clnorm_context_create(NULL, &ctx);
        unsetenv("CLNORM_TUNE");
        ck_assert_msg(st == CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE=%s: %s", bad[i], clnorm_status_string(st));
        ck_assert_ptr_null(ctx);
        ck_assert_msg(strstr(clnorm_context_last_error(NULL), "CLNORM_TUNE"), "message: %s",
                      clnorm_context_last_error(NULL));
    }
    /* the message names what is wrong: a value that stops early is a separator error at its first
     * character past the digits (not the range error of the digits before it) */
    static const char *const said[][2] = {
        {"vec_bytes=0x10", "expected ',' at \"x10\""}, {"shfl=1x", "expected ',' at \"x\""},
        {"fwd_tpr=64;bwd_tpr=64", "expected ',' at \";bwd_tpr=64\""}, {"vec_bytes=3", "vec_bytes=3: expected a power of two"},
        {"shfl=2", "shfl=2: expected 0 or 1"}, {"no_such_key=1", "unknown key \"no_such_key\""},
        {"fwd_tpr= 64", "expected key=value"}};
    for (size_t i = 0; i < sizeof said / sizeof *said; ++i) {
        clnorm_context *ctx = NULL;
        setenv("CLNORM_TUNE", said[i][0], 1);
        clnorm_status st = clnorm_context_create(NULL, &ctx);
        unsetenv("CLNORM_TUNE");
        ck_assert_msg(st == CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE=%s: %s", said[i][0], clnorm_status_string(st));
        ck_assert_msg(strstr(clnorm_context_last_error(NULL), said[i][1]), "CLNORM_TUNE=%s: message \"%s\" does not say %s",
                      said[i][0], clnorm_context_last_error(NULL), said[i][1]);
    }
    clnorm_context *ctx = NULL;
    setenv("CLNORM_TUNE", "fwd_target=2,fwd_target16=8,bwd_target16=2,fwd_tpr_max=512,bwd_groups=2,shfl=0,bwd_rpi=2,"
                          "bwd_rpi16=4,bwd_raw16=1,bwd_rpi_cols=0,zext=0,x86bf16=0,nt_kib=0,nt_unaligned_bytes=32,nt_unaligned_row_bytes=4096,fwd_groups=0,bwd_pipe=2,"
                          "bwd_tpr_max_cached=1024,bwd_tpr_max16=0,bwd_ncache_dx=4,bwd_rpi16_res=2,bwd_rpi_res=2,bwd_dr_early=0,"
                          "bwd_rpi_cols_max=4096,local_row_kib=0,local_row_kib_intel_bf16=512,bwd_local_row_kib_intel_bf16=48,fwd_rpi_cols_max_intel_bf16=32768,fwd_rpi4_cols_intel_bf16=256,bwd_dx16_cols=16384,fwd_raw16=1,fwd_pipe=2,fwd_pipe_cols=0,"
                          "bwd_prefetch16_cols=12288,bwd_prefetch16_nores_nc_max=3,bwd_dr_early16_nc_max=3,bwd_dr_early16_cols_min=15361,fwd_ncache=3,bwd_ncache=5,bwd_dxb=3,bwd_dxb16=16,bwd_pipe_vecs=0,"
                          "bwd_fill16=5,bwd_prefetch_cols=8192,fwd_pipe_prefetch_cols=12288,bwd_acc_groups=1,fwd_fit16=6,fwd_fit16_tpr=256,"
                          "fwd_raw16_vecs=6144,fwd_tpr_max16=1024,bwd_acc_local_res=1,bwd_acc_local16=0,bwd_acc_local16_nc=3,bwd_cache16_lacc=4,bwd_dxb_res=3,fwd_fit16_deep=8,"
                          "fwd_fit16_deep_tpr=128,bwd_groups16=2,bwd_groups16_res=1,local_row_kib_avx2=48,bwd_local_row_kib_avx2=64,bwd_rpi16_avx2=2,"
                          "fwd_rpi16=4,fwd_rpi_cols=256,fwd_rpi_cols_max=1024,fwd_bfly_tpr=512,bwd_bfly_tpr=1024,fwd_bfly_cols_max=32768,"
                          "bwd_bfly_cols_max=0,bwd_cached_nc=2,bwd_ncache_wide=6,bwd_acc_tpr_max=1024,bwd_dxb_dx=2,bwd_groups_res=3,"
                          "bwd_colsweep_cols=16385,bwd_colsweep16_cols=32768,bwd_colsweep_groups=1,bwd_colsweep_stream=1,fwd_balance=0,"
                          "bwd_balance=5,fwd_balance_rounds=0,bwd_balance_rounds=32,bwd_stream_tpr=1024,fwd_chan=8,fwd_chan16=2,"
                          "bwd_short16_cols=64,bwd_short16_vec_bytes=8,bwd_short16_groups=3,bwd_short16_target_res=1,"
                          "bwd_short16_groups_res=2,packed=1,phase=1,phase_skip=1023,unaligned_bytes=64,fwd_rpi4_cols32=128,bwd_rpi_short_cols=32,"
                          "bwd_rpi16_short_cols=512,pf_bytes=4096,pf_l2_bytes=0,fwd_rowwise_kib=64,fwd_narrow_item_bytes=32,"
                          "bwd_narrow_item_bytes=16,bwd_phase_target16_res=4,bwd_phase_rpi16_res=1,bwd_phase_nopipe16_res=16,bwd_phase_pipe16_res_wg_max=1024,bwd_phase_nopipe16=16,bwd_phase_nofill16_tpr=1024,bwd_phase_pipe_dx16=16,bwd_phase_pipe_dx16_wg_max=1024,bwd_phase_pipe_dx32=1,bwd_phase_pipe_dx16_nores=16,bwd_phase_pipe_dx16_nores_tpr=1024,bwd_phase_pipe_dx16_reread_cols=1073741824,bwd_phase_pipe_dx16_keep_tpr=1024,bwd_phase_dx16_res_vec_max=64,bwd_phase_dx16_res_deep=16,bwd_phase_dx32_deep=16,phase_edge_elems=1,phase_reread=1,phase_vec_max=1,phase_cached_skip=30,fwd_narrow_vec_max=1,"
                          "bwd_narrow_vec_max=0,fwd_narrow_from_bytes=16,bwd_narrow_from_bytes=0,phase_cached_tpr_max=512",
           1);
    clnorm_status st = clnorm_context_create(NULL, &ctx);
    unsetenv("CLNORM_TUNE");
    CLNORM_OK(NULL, st);
    int untouched = 1;
    CLNORM_OK(ctx, forward_once(ctx, &untouched));
    ck_assert(!untouched);
    clnorm_context_release(ctx);
}
END_TEST

/* Failures on the caller's queue release exactly what they took: a context that CLNORM_TUNE or an
 * overlong CLNORM_BUILD_OPTIONS refuses (ctx left NULL), and a context whose program failed to
 * build (the failed cl_program holds the cl_context), leave both reference counts as they were. */
START_TEST(caller_queue_failures_release_what_they_took)
{
    cl_int err;
    cl_device_id dev = clnorm_context_device(test_context());
    cl_context clctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_OK(err);
    cl_command_queue q = clCreateCommandQueue(clctx, dev, 0, &err);
    CL_OK(err);
    const cl_uint cr = context_refs_now(clctx), qr = queue_refs_now(q);
    clnorm_context *ctx = (clnorm_context *)&err;

    char *saved_tune = save_env("CLNORM_TUNE");
    setenv("CLNORM_TUNE", "nonsense=1", 1);
    ck_assert_int_eq(clnorm_context_create_from_queue(q, &ctx), CLNORM_INVALID_ENVIRONMENT);
    restore_env("CLNORM_TUNE", saved_tune);
    ck_assert_ptr_null(ctx);
    ck_assert_uint_eq(settled_context_refs(clctx, cr), cr);
    ck_assert_uint_eq(settled_queue_refs(q, qr), qr);

    char *saved_opts = save_env("CLNORM_BUILD_OPTIONS");
    char opt[1100];
    memset(opt, ' ', sizeof opt - 1);
    opt[sizeof opt - 1] = '\0';
    setenv("CLNORM_BUILD_OPTIONS", opt, 1);
    ctx = (clnorm_context *)&err;
    ck_assert_int_eq(clnorm_context_create_from_queue(q, &ctx), CLNORM_INVALID_ENVIRONMENT);
    ck_assert_ptr_null(ctx);
    ck_assert_uint_eq(settled_context_refs(clctx, cr), cr);
    ck_assert_uint_eq(settled_queue_refs(q, qr), qr);

    setenv("CLNORM_BUILD_OPTIONS", "-Dfloatv=(", 1);
    CLNORM_OK(NULL, clnorm_context_create_from_queue(q, &ctx));
    restore_env("CLNORM_BUILD_OPTIONS", saved_opts);
    int untouched = 0;
    ck_assert_int_eq(forward_once(ctx, &untouched), CLNORM_BUILD_FAILED);
    clnorm_context_release(ctx);
    CL_OK(clFinish(q));
    ck_assert_uint_eq(settled_context_refs(clctx, cr), cr);
    ck_assert_uint_eq(settled_queue_refs(q, qr), qr);
    CL_OK(clReleaseCommandQueue(q));
    CL_OK(clReleaseContext(clctx));
}
END_TEST

/* The backward's workspace (2 * cols fp32 sums per partial row, at least one row) is made larger
 * than the device allows for one buffer: the OpenCL error comes back unchanged, with a message. */
START_TEST(workspace_allocation_refused_surfaces_opencl_error)
{
    clnorm_context *ctx = test_context();
    cl_context c = clnorm_context_cl_context(ctx);
    cl_ulong max_alloc = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(ctx), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
    const size_t cols = (size_t)(max_alloc / 8) + 64; /* 8 * cols bytes of workspace > max_alloc */
    cl_int err;
    cl_mem t[3];
    for (int i = 0; i < 3; ++i) { /* bf16 rows of cols: max_alloc / 4 bytes each, never touched */
        t[i] = clCreateBuffer(c, CL_MEM_READ_WRITE, cols * 2, NULL, &err);
        CL_OK(err);
    }
    float stats[2] = {0.0f, 1.0f};
    cl_mem s = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof stats, stats, &err);
    CL_OK(err);
    cl_mem dwb = clCreateBuffer(c, CL_MEM_READ_WRITE, cols * 2, NULL, &err);
    CL_OK(err);
    const clnorm_matrix DY = {t[0], 0, 0, CLNORM_BF16}, X = {t[1], 0, 0, CLNORM_BF16}, DX = {t[2], 0, 0, CLNORM_BF16};
    const clnorm_vector M = {s, 0, CLNORM_F32}, R = {s, 1, CLNORM_F32}, DW = {dwb, 0, CLNORM_BF16};
    clnorm_status st = clnorm_layer_norm_backward(ctx, 1, cols, &DY, &X, NULL, &M, &R, NULL, &DX, &DW, NULL, 0, NULL, NULL);
    ck_assert_msg(st == CL_INVALID_BUFFER_SIZE || st == CL_MEM_OBJECT_ALLOCATION_FAILURE || st == CL_OUT_OF_RESOURCES,
                  "status %d (%s): %s", st, clnorm_status_string(st), clnorm_context_last_error(ctx));
    ck_assert_msg(strstr(clnorm_context_last_error(ctx), "workspace"), "message: %s", clnorm_context_last_error(ctx));
    /* the context stays usable */
    int untouched = 1;
    CLNORM_OK(ctx, forward_once(ctx, &untouched));
    for (int i = 0; i < 3; ++i)
        clReleaseMemObject(t[i]);
    clReleaseMemObject(s);
    clReleaseMemObject(dwb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("failures");
    TCase *tc = tcase_create("failures");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, build_failure_reports_log_and_recovers);
    tcase_add_test(tc, long_build_options_whole_or_refused);
    tcase_add_test(tc, malformed_tune_fails_context_creation);
    tcase_add_test(tc, workspace_allocation_refused_surfaces_opencl_error);
    tcase_add_test(tc, caller_queue_failures_release_what_they_took);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
