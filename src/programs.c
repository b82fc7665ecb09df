/* clnorm — program variants: assembled from the embedded cl/ files sources, built lazily once per
 * context for each (kernel, options) pair, and cached with their kernel object. The options string
 * (PACKED_ARGS; VEC, TPR, RPW, NCACHE, NACC, RPI; CACHE_RAW and PARTIALS in the backward; the
 * device-specific modes NV_SHFL / NV_CVT / LANE_PERM / BF16_ZEXT / X86_BF16 / CONTIG_ROWS /
 * NT_STORE / CPU_PREFETCH;
 * the reduction's RL and PERM_VEC; the dtypes; then CLNORM_BUILD_OPTIONS) is the cache key. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *kernel_name;
    const unsigned char *source;
    const size_t *length;
} kernels[CLNORM_K_COUNT] = {
    [CLNORM_K_FORWARD] = {"clnorm_forward", clnorm_cl_forward, &clnorm_cl_forward_len},
    [CLNORM_K_BACKWARD] = {"clnorm_backward", clnorm_cl_backward, &clnorm_cl_backward_len},
    [CLNORM_K_REDUCE] = {"clnorm_reduce", clnorm_cl_reduce, &clnorm_cl_reduce_len},
};

/* The compiler's log of prog (malloc'ed; the caller frees it), or NULL when there is none. */
static char *build_log(const clnorm_context *ctx, cl_program prog)
{
    size_t n = 0;
    if (clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n == 0)
        return NULL;
    char *log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    if (log)
        log[n] = '\0';
    return log;
}

/* CLNORM_BUILD_LOG=1 (a developer's switch, read per build): each successful build's options and
 * compiler log go to stderr. With CLNORM_BUILD_OPTIONS=-cl-nv-verbose this gives the register count
 * and spills of every variant a program (clnorm-bench --tune) actually builds. A value with a '/'
 * is a file the lines are appended to instead (a test reads it back without touching stderr). */
static void log_build(const clnorm_context *ctx, clnorm_kernel_id id, const char *options, cl_program prog)
{
    const char *env = getenv("CLNORM_BUILD_LOG");
    if (!env || !*env || strcmp(env, "0") == 0)
        return;
    FILE *f = strchr(env, '/') ? fopen(env, "a") : stderr;
    if (!f) { /* a log file that cannot be opened does not fail the build: stderr, saying why */
        fprintf(stderr, "clnorm: CLNORM_BUILD_LOG: cannot append to %s; the log goes to stderr\n", env);
        f = stderr;
    }
    char *log = build_log(ctx, prog);
    fprintf(f, "clnorm: built %s with \"%s\"\n%s\n", kernels[id].kernel_name, options, log ? log : "");
    free(log);
    if (f != stderr)
        fclose(f);
}

static clnorm_status build(clnorm_context *ctx, clnorm_kernel_id id, const char *options, clnorm_program_entry *e)
{
    /* the argument slots' names (shared with the host), the helpers, the kernel */
    const char *src[3] = {(const char *)clnorm_cl_kernel_args, (const char *)clnorm_cl_common,
                          (const char *)kernels[id].source};
    const size_t len[3] = {clnorm_cl_kernel_args_len, clnorm_cl_common_len, *kernels[id].length};
    cl_int err;
    cl_program prog = clCreateProgramWithSource(ctx->cl_ctx, 3, src, len, &err);
    if (err != CL_SUCCESS)
        return clnorm__fail(ctx, err, "clCreateProgramWithSource failed: %s", clnorm_status_string(err));
    /* PoCL's CPU device on x86 without AVX-512 warns about every inline function that takes or
     * returns a 16-wide vector ("changes the ABI"; all of ours are inlined) and prints "N warnings
     * generated." on stderr at each build: -w keeps the caller's stderr clean. Not part of the
     * cache key (options stays what the call asked for). */
    char *wopt = NULL;
    if (ctx->info.pocl_x86) {
        wopt = malloc(strlen(options) + sizeof " -w");
        if (!wopt) {
            clReleaseProgram(prog);
            return clnorm__fail(ctx, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
        }
        strcpy(wopt, options);
        strcat(wopt, " -w");
    }
    err = clBuildProgram(prog, 1, &ctx->device, wopt ? wopt : options, NULL, NULL);
    free(wopt);
    if (err != CL_SUCCESS) {
        clnorm__fail(ctx, CLNORM_BUILD_FAILED, "building %s with options \"%s\" failed (%s); build log:\n",
                     kernels[id].kernel_name, options, clnorm_status_string(err));
        char *log = build_log(ctx, prog);
        clnorm__fail_append(log ? log : "(no build log available)");
        free(log);
        clReleaseProgram(prog);
        return CLNORM_BUILD_FAILED;
    }
    log_build(ctx, id, options, prog);
    cl_kernel k = clCreateKernel(prog, kernels[id].kernel_name, &err);
    if (err != CL_SUCCESS) {
        clReleaseProgram(prog);
        return clnorm__fail(ctx, err, "clCreateKernel(%s) failed: %s", kernels[id].kernel_name, clnorm_status_string(err));
    }
    e->id = id;
    e->program = prog;
    e->kernel = k;
    return CLNORM_SUCCESS;
}

clnorm_status clnorm__get_program(clnorm_context *ctx, clnorm_kernel_id id, const char *options, size_t *index)
{
    for (size_t i = 0; i < ctx->nprograms; ++i)
        if (ctx->programs[i].id == id && strcmp(ctx->programs[i].options, options) == 0) {
            *index = i;
            return CLNORM_SUCCESS;
        }
    if (ctx->nprograms == ctx->cap_programs) {
        size_t cap = ctx->cap_programs ? 2 * ctx->cap_programs : 16;
        clnorm_program_entry *p = realloc(ctx->programs, cap * sizeof *p);
        if (!p)
            return clnorm__fail(ctx, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
        ctx->programs = p;
        ctx->cap_programs = cap;
    }
    clnorm_program_entry e;
    memset(&e, 0, sizeof e);
    e.options = strdup(options);
    if (!e.options)
        return clnorm__fail(ctx, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
    clnorm_status st = build(ctx, id, options, &e);
    if (st != CLNORM_SUCCESS) { /* failures are not cached: a later call tries again */
        free(e.options);
        return st;
    }
    *index = ctx->nprograms;
    ctx->programs[ctx->nprograms++] = e;
    return CLNORM_SUCCESS;
}

struct clnorm_variant_memo {
    clnorm_variant_key key;
    size_t index;
};

size_t clnorm__variant_find(const clnorm_context *ctx, const clnorm_variant_key *key)
{
    for (size_t i = 0; i < ctx->nvariants; ++i)
        if (memcmp(&ctx->variants[i].key, key, sizeof *key) == 0)
            return ctx->variants[i].index;
    return SIZE_MAX;
}

clnorm_status clnorm__variant_add(clnorm_context *ctx, const clnorm_variant_key *key, size_t index)
{
    if (ctx->nvariants == ctx->cap_variants) {
        size_t cap = ctx->cap_variants ? 2 * ctx->cap_variants : 16;
        struct clnorm_variant_memo *p = realloc(ctx->variants, cap * sizeof *p);
        if (!p)
            return clnorm__fail(ctx, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
        ctx->variants = p;
        ctx->cap_variants = cap;
    }
    ctx->variants[ctx->nvariants].key = *key;
    ctx->variants[ctx->nvariants].index = index;
    ctx->nvariants++;
    return CLNORM_SUCCESS;
}

void clnorm__release_programs(clnorm_context *ctx)
{
    for (size_t i = 0; i < ctx->nprograms; ++i) {
        clReleaseKernel(ctx->programs[i].kernel);
        clReleaseProgram(ctx->programs[i].program);
        free(ctx->programs[i].options);
    }
    free(ctx->programs);
    ctx->programs = NULL;
    ctx->nprograms = ctx->cap_programs = 0;
    free(ctx->variants);
    ctx->variants = NULL;
    ctx->nvariants = ctx->cap_variants = 0;
}
