/* White-box: the program cache (programs.c) and the last-error buffer (errors.c), linked against
 * the static library with its internal header. The public API reaches clnorm__get_program's
 * lookup only when two variant keys give the same options string, which no other test does, so
 * the lookup (id and options both compared, every entry searched) is checked here directly; and
 * messages longer than the 16 KiB buffer (a long compiler log) are cut with a visible mark. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "internal.h"

START_TEST(lookup_finds_every_entry_by_id_and_options)
{
    clnorm_context *ctx = NULL;
    CLNORM_OK(NULL, clnorm_context_create(NULL, &ctx));
    /* a backward with dweight: the dx kernel, then the reduction (the last entry) */
    const size_t rows = 3, cols = 64;
    float host[3 * 64];
    for (size_t i = 0; i < rows * cols; ++i)
        host[i] = (float)(i % 11) * 0.5f - 2.0f;
    float stats[6] = {0, 0, 0, 1, 1, 1};
    cl_int err;
    cl_context c = clnorm_context_cl_context(ctx);
    cl_mem bx = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
    CL_OK(err);
    cl_mem bdx = clCreateBuffer(c, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
    CL_OK(err);
    cl_mem bs = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof stats, stats, &err);
    CL_OK(err);
    cl_mem bdw = clCreateBuffer(c, CL_MEM_READ_WRITE, cols * sizeof(float), NULL, &err);
    CL_OK(err);
    const clnorm_matrix X = {bx, 0, 0, CLNORM_F32}, DX = {bdx, 0, 0, CLNORM_F32};
    const clnorm_vector M = {bs, 0, CLNORM_F32}, R = {bs, 3, CLNORM_F32}, DW = {bdw, 0, CLNORM_F32};
    CLNORM_OK(ctx, clnorm_layer_norm_backward(ctx, rows, cols, &X, &X, NULL, &M, &R, NULL, &DX, &DW, NULL, 0, NULL, NULL));
    CL_OK(clFinish(clnorm_context_queue(ctx)));
    const size_t n = ctx->nprograms;
    ck_assert_uint_ge(n, 2);
    for (size_t e = 0; e < n; ++e) { /* the same (id, options): the same entry, nothing built */
        char *opt = strdup(ctx->programs[e].options);
        size_t got = SIZE_MAX;
        CLNORM_OK(ctx, clnorm__get_program(ctx, ctx->programs[e].id, opt, &got));
        ck_assert_uint_eq(got, e);
        ck_assert_uint_eq(ctx->nprograms, n);
        free(opt);
    }
    /* another kernel with the reduction's options is another program (here: one that fails to
     * build, the forward's parameters being absent), never the reduction's entry */
    const size_t last = n - 1;
    ck_assert_int_eq(ctx->programs[last].id, CLNORM_K_REDUCE);
    char *opt = strdup(ctx->programs[last].options);
    size_t got = SIZE_MAX;
    const clnorm_status st = clnorm__get_program(ctx, CLNORM_K_FORWARD, opt, &got);
    ck_assert_msg(st != CLNORM_SUCCESS || got != last, "the forward was given the reduction's program");
    free(opt);
    /* options that only begin with a cached entry's are other options: a new program */
    const size_t before = ctx->nprograms;
    const size_t olen = strlen(ctx->programs[last].options);
    char *longer = malloc(olen + sizeof " -DCLNORM_TEST_EXTRA=1");
    ck_assert_ptr_nonnull(longer);
    memcpy(longer, ctx->programs[last].options, olen);
    strcpy(longer + olen, " -DCLNORM_TEST_EXTRA=1");
    got = SIZE_MAX;
    CLNORM_OK(ctx, clnorm__get_program(ctx, CLNORM_K_REDUCE, longer, &got));
    ck_assert_msg(got == before && ctx->nprograms == before + 1, "options extending a cached entry's reused it");
    ck_assert_str_eq(ctx->programs[got].options, longer);
    free(longer);

    /* the variant memo maps a key to the program index it was given, not to its own slot */
    clnorm_variant_key k;
    memset(&k, 0xEE, sizeof k);
    ck_assert_uint_eq(clnorm__variant_find(ctx, &k), SIZE_MAX);
    CLNORM_OK(ctx, clnorm__variant_add(ctx, &k, 12345));
    ck_assert_uint_eq(clnorm__variant_find(ctx, &k), 12345);
    k.v[15] ^= 1; /* every word of the key counts */
    ck_assert_uint_eq(clnorm__variant_find(ctx, &k), SIZE_MAX);
    clReleaseMemObject(bx);
    clReleaseMemObject(bdx);
    clReleaseMemObject(bs);
    clReleaseMemObject(bdw);
    clnorm_context_release(ctx);
}
END_TEST

START_TEST(long_messages_are_cut_with_a_mark)
{
    static char big[20000];
    memset(big, 'L', sizeof big - 1);
    static const char mark[] = " ...[truncated]";
    clnorm__fail(NULL, CLNORM_BUILD_FAILED, "%s", big);
    const char *m = clnorm_context_last_error(NULL);
    ck_assert_uint_eq(strlen(m), 16383);
    ck_assert_str_eq(m + strlen(m) - strlen(mark), mark);
    clnorm__fail(NULL, CLNORM_BUILD_FAILED, "short; build log:\n");
    clnorm__fail_append(big);
    m = clnorm_context_last_error(NULL);
    ck_assert_uint_eq(strlen(m), 16383);
    ck_assert_int_eq(strncmp(m, "short; build log:\n", 18), 0);
    ck_assert_str_eq(m + strlen(m) - strlen(mark), mark);
    /* at the boundary: a text of exactly 16383 characters fits, one more is cut */
    static char tail[16384];
    memset(tail, 'T', 16383 - 18);
    clnorm__fail(NULL, CLNORM_BUILD_FAILED, "short; build log:\n");
    clnorm__fail_append(tail);
    m = clnorm_context_last_error(NULL);
    ck_assert_uint_eq(strlen(m), 16383);
    ck_assert_int_eq(m[16382], 'T');
    tail[16383 - 18] = 'T';
    clnorm__fail(NULL, CLNORM_BUILD_FAILED, "short; build log:\n");
    clnorm__fail_append(tail);
    m = clnorm_context_last_error(NULL);
    ck_assert_uint_eq(strlen(m), 16383);
    ck_assert_str_eq(m + strlen(m) - strlen(mark), mark);
    clnorm__clear_error(NULL);
}
END_TEST

/* The table's device-name refinements (clnorm__params_fit_device), on device descriptions that no
 * CI host has: an NVIDIA H200 takes its own bounds for the 4-deep 16-bit backward rows; an H100
 * keeps the NVIDIA row's; and a row that is not NVIDIA's keeps its values even for a device named
 * H200 (the NVIDIA row with its vendor taken away, so that the kept values are not 0).
 * CLNORM_DEVICE_CLASS, which picks a row by type, is unset here and restored. */
static clnorm_device_params fitted(const clnorm_device_params *row, const char *name)
{
    clnorm_device_info info;
    memset(&info, 0, sizeof info);
    info.type = CL_DEVICE_TYPE_GPU;
    strcpy(info.vendor, "NVIDIA Corporation");
    strcpy(info.name, name);
    clnorm_device_params p = *row;
    clnorm__params_fit_host(&p, &info);
    clnorm__params_fit_device(&p, &info);
    return p;
}

START_TEST(device_name_refinements)
{
    const char *cls = getenv("CLNORM_DEVICE_CLASS");
    char *saved = cls ? strdup(cls) : NULL;
    unsetenv("CLNORM_DEVICE_CLASS");
    clnorm_device_info nv;
    memset(&nv, 0, sizeof nv);
    nv.type = CL_DEVICE_TYPE_GPU;
    strcpy(nv.vendor, "NVIDIA Corporation");
    const clnorm_device_params *row = clnorm__params_for(&nv);
    if (saved) {
        setenv("CLNORM_DEVICE_CLASS", saved, 1);
        free(saved);
    }
    ck_assert_str_eq(row->vendor, "NVIDIA");
    const clnorm_device_params h100 = fitted(row, "NVIDIA H100 80GB HBM3"), h200 = fitted(row, "NVIDIA H200");
    ck_assert_uint_eq(h100.bwd.dr_early16_cols_min, 15361);
    ck_assert_uint_eq(h100.bwd.prefetch16_nores_nc_max, 3);
    ck_assert_uint_eq(h200.bwd.dr_early16_cols_min, 0);
    ck_assert_uint_eq(h200.bwd.prefetch16_nores_nc_max, 0);
    ck_assert_uint_eq(h200.bwd.dr_early16_nc_max, h100.bwd.dr_early16_nc_max); /* the rule itself stays */
    clnorm_device_params other_row = *row;
    other_row.vendor = NULL; /* a row that is not NVIDIA's: the generic GPU row's way */
    const clnorm_device_params other = fitted(&other_row, "NVIDIA H200");
    ck_assert_uint_eq(other.bwd.dr_early16_cols_min, 15361);
    ck_assert_uint_eq(other.bwd.prefetch16_nores_nc_max, 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("program_cache");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, lookup_finds_every_entry_by_id_and_options);
    tcase_add_test(tc, long_messages_are_cut_with_a_mark);
    tcase_add_test(tc, device_name_refinements);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
