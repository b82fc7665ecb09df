/* clnorm-bench — memory-bandwidth benchmark of clnorm's LayerNorm forward and backward.
 *
 * LayerNorm is bandwidth bound, so each op is reported as GB/s of the tensors it must move and as a
 * fraction of a plain float4 copy measured in the same run on a buffer of the same size. Every op
 * is also checked against a float64 host reference; any mismatch makes the exit status nonzero.
 * Usage: clnorm-bench --help. */
#include "bench_case.h"
#include "bench_kernels.h"
#include "check.h"
#include "report.h"
#include "timing.h"
#include "tune.h"
#include "overhead.h"
#ifdef CLNORM_HAVE_ONEDNN
#include "onednn.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- What is measured. Extend here. -------------------------------------------------------- */

typedef struct bench_shape {
    const char *set; /* "quick" or "full" */
    size_t rows, cols;
    int headline;    /* 0: an extra shape, reported after the headline ones ("headline": false in JSON) */
} bench_shape;

/* Elements per tensor. Quick: 256 MiB per F32 tensor, well beyond the CPU caches (64 MiB still
 * sits partly in cache on the CI machine and reads ~2x faster than memory). Full: 512 MiB, for
 * GPUs, where smaller tensors leave launch overhead visible next to a ~0.1 ms kernel. */
#define QUICK_ELEMS ((size_t)1 << 26)
#define FULL_ELEMS ((size_t)1 << 27)

/* The headline shapes of each set come first. The full set's extra shapes cover the widths of
 * common models, the extremes (64, 65536) and an odd width (1023: no vector divides it, so every
 * row and every access is misaligned); rows = 2^27 / cols rounded down, so a tensor has at most
 * 2^27 elements (non-power-of-two cols leave a few fewer). */
static const bench_shape SHAPES[] = {
    {"quick", QUICK_ELEMS / 256, 256, 1},
    {"quick", QUICK_ELEMS / 1024, 1024, 1},
    {"quick", QUICK_ELEMS / 4096, 4096, 1},
    {"full", FULL_ELEMS / 256, 256, 1},
    {"full", FULL_ELEMS / 1024, 1024, 1},
    {"full", FULL_ELEMS / 4096, 4096, 1},
    {"full", FULL_ELEMS / 8192, 8192, 1},
    {"full", FULL_ELEMS / 16384, 16384, 1},
    {"full", FULL_ELEMS / 64, 64, 0},
    {"full", FULL_ELEMS / 768, 768, 0},
    {"full", FULL_ELEMS / 1023, 1023, 0},
    {"full", FULL_ELEMS / 2048, 2048, 0},
    {"full", FULL_ELEMS / 5120, 5120, 0},
    {"full", FULL_ELEMS / 12288, 12288, 0},
    {"full", FULL_ELEMS / 32768, 32768, 0},
    {"full", FULL_ELEMS / 65536, 65536, 0},
};

static const clnorm_dtype DTYPES[] = {CLNORM_F32, CLNORM_BF16};

#define QUICK_REPS 10
#define FULL_REPS 20
#define WARMUP_REPS 1
#define DEFAULT_SEED 20240611u

#define NUM_SHAPES (sizeof SHAPES / sizeof SHAPES[0])
#define NUM_DTYPES (sizeof DTYPES / sizeof DTYPES[0])

static const char TIMING_METHOD[] =
    "device time from OpenCL profiling: END of a call's last command minus END of an empty 1-item kernel "
    "enqueued just before it on the in-order queue (covers every kernel of a multi-kernel call)";

/* ---- options ------------------------------------------------------------------------------- */

typedef struct options {
    const char *set;
    const char *device; /* NULL: CLNORM_DEVICE, then the default policy */
    const char *json;
    const char *csv;
    int reps;           /* 0: the set's default */
    size_t rows, cols;  /* --shape: one custom shape instead of the set's (0: none) */
    unsigned long long seed;
    int verbose;
    int tune;           /* --tune: search launch parameters instead of the table */
    int overhead;       /* --overhead: host time per enqueue instead of the table */
    const char *vs;     /* --vs LIBRARY: also time that library's layer norm ("onednn"), NULL: none */
    int dtype;          /* --dtype: only this one of DTYPES (-1: all) */
} options;

#define ONEDNN_MISSING \
    "clnorm-bench was built without oneDNN; install it (Debian: apt-get install libdnnl-dev), then reconfigure " \
    "and rebuild (cmake -S . -B build && cmake --build build)"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: clnorm-bench [--quick | --full | --shape ROWSxCOLS] [--device SPEC] [--reps N] [--json FILE]\n"
        "                    [--csv FILE] [--seed N] [--dtype f32|bf16] [--verbose] [--tune] [--overhead]\n"
        "                    [--vs onednn]\n"
        "\n"
        "Times clnorm's LayerNorm forward, backward (dx, dweight, dbias), backward with the fused\n"
        "residual gradient, the unfused baseline (backward + separate add) and the backward without\n"
        "dweight/dbias (backward_dx, backward_dx_res: dx only) against a float4 copy, and checks each\n"
        "result against a float64 host reference. Exit status 1 when a check fails or a call errs.\n"
        "\n"
        "  --quick        cols 256, 1024, 4096 with 2^26 elements per tensor, F32 and BF16 (default)\n"
        "  --full         cols 256 ... 16384 with 2^27 elements per tensor, F32 and BF16; then the extra\n"
        "                 shapes cols 64, 768, 1023, 2048, 5120, 12288, 32768, 65536 (rows = 2^27 / cols)\n"
        "  --shape RxC    only this shape (e.g. 1000x768), F32 and BF16: for quick experiments\n"
        "  --device SPEC  device spec as for clnorm_context_create (\"gpu\", \"nvidia\", \"pocl\", \"0:1\", ...);\n"
        "                 default: the CLNORM_DEVICE environment variable, then the default policy\n"
        "  --reps N       timed repetitions per op, median reported (default %d quick, %d full)\n"
        "  --json FILE    also write the results as JSON\n"
        "  --csv FILE     also write the results as CSV (header line, then op,dtype,rows,cols,ms,gbps,\n"
        "                 copy_gbps,fraction,headline,impl,speedup; bench/plot.py draws either file)\n"
        "  --seed N       seed of the random inputs (default %u)\n"
        "  --dtype T      only this storage type (f32 or bf16; default both; not with --overhead)\n"
        "  --verbose      print every repetition's time to stderr\n"
        "  --overhead     host time of one forward / backward enqueue (median over 10000 calls of a\n"
        "                 64x256 F32 shape, no wait per call), the driver's floor and parts of the\n"
        "                 forward's time (buffer queries, buffer arguments, launch plan) instead of the table\n"
        "  --tune         for each shape of the set: time forward and backward under a grid of\n"
        "                 CLNORM_TUNE launch parameters and print the best (the table entry to use)\n"
        "  --vs onednn    for each shape of the set: clnorm's forward and backward, then oneDNN's CPU layer\n"
        "                 normalization (forward training with scale/shift; backward with diff_scale/shift)\n"
        "                 on the same inputs in host memory, wall-clock medians, checked against the same\n"
        "                 reference; prints both rows and clnorm/oneDNN = oneDNN's time / clnorm's.\n"
        "                 %s\n"
        "  --help         this text\n",
        QUICK_REPS, FULL_REPS, DEFAULT_SEED,
#ifdef CLNORM_HAVE_ONEDNN
        "This build has it."
#else
        "Not in this build (built without oneDNN: install libdnnl-dev, reconfigure, rebuild)."
#endif
    );
}

/* Accepts "--name value" and "--name=value". Returns the value or NULL if this is not --name. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (argv[*i][len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse_unsigned(const char *s, unsigned long long *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return *end == '\0' && errno != ERANGE ? 0 : -1; /* (out of range: not clamped to the maximum) */
}

/* Returns 0 to run, 1 to exit successfully (--help), 2 on a usage error. */
static int parse_options(int argc, char **argv, options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->set = "quick";
    o->device = NULL;
    o->json = NULL;
    o->csv = NULL;
    o->reps = 0;
    o->rows = o->cols = 0;
    o->seed = DEFAULT_SEED;
    o->dtype = -1;
    o->verbose = 0;
    for (i = 1; i < argc; ++i) {
        const char *v;
        int missing = 0;
        unsigned long long n;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(argv[i], "--quick")) {
            o->set = "quick";
        } else if (!strcmp(argv[i], "--full")) {
            o->set = "full";
        } else if (!strcmp(argv[i], "--verbose")) {
            o->verbose = 1;
        } else if (!strcmp(argv[i], "--tune")) {
            o->tune = 1;
        } else if (!strcmp(argv[i], "--overhead")) {
            o->overhead = 1;
        } else if ((v = option_value(argc, argv, &i, "--vs", &missing)) != NULL) {
            if (strcmp(v, "onednn") != 0) {
                fprintf(stderr, "clnorm-bench: --vs knows only 'onednn', not '%s'\n", v);
                return 2;
            }
#ifndef CLNORM_HAVE_ONEDNN
            fprintf(stderr, "clnorm-bench: --vs onednn: %s\n", ONEDNN_MISSING);
            return 2;
#endif
            o->vs = v;
        } else if ((v = option_value(argc, argv, &i, "--device", &missing)) != NULL) {
            o->device = v;
        } else if ((v = option_value(argc, argv, &i, "--json", &missing)) != NULL) {
            o->json = v;
        } else if ((v = option_value(argc, argv, &i, "--csv", &missing)) != NULL) {
            o->csv = v;
        } else if ((v = option_value(argc, argv, &i, "--reps", &missing)) != NULL) {
            if (parse_unsigned(v, &n) != 0 || n < 1 || n > 100000) {
                fprintf(stderr, "clnorm-bench: --reps wants a number from 1 to 100000, not '%s'\n", v);
                return 2;
            }
            o->reps = (int)n;
        } else if ((v = option_value(argc, argv, &i, "--shape", &missing)) != NULL) {
            unsigned long long r = 0, c = 0;
            char x = 0, extra = 0;
            if (sscanf(v, "%llu%c%llu%c", &r, &x, &c, &extra) != 3 || x != 'x' || r < 1 || c < 1 ||
                r > (size_t)-1 / c) {
                fprintf(stderr, "clnorm-bench: --shape wants ROWSxCOLS (both >= 1), not '%s'\n", v);
                return 2;
            }
            o->set = "custom";
            o->rows = (size_t)r;
            o->cols = (size_t)c;
        } else if ((v = option_value(argc, argv, &i, "--dtype", &missing)) != NULL) {
            if (strcmp(v, "f32") != 0 && strcmp(v, "bf16") != 0) {
                fprintf(stderr, "clnorm-bench: --dtype wants f32 or bf16, not '%s'\n", v);
                return 2;
            }
            o->dtype = strcmp(v, "f32") == 0 ? 0 : 1; /* the index in DTYPES */
        } else if ((v = option_value(argc, argv, &i, "--seed", &missing)) != NULL) {
            if (parse_unsigned(v, &n) != 0) {
                fprintf(stderr, "clnorm-bench: --seed wants a non-negative number, not '%s'\n", v);
                return 2;
            }
            o->seed = n;
        } else {
            if (missing)
                fprintf(stderr, "clnorm-bench: %s needs a value\n", argv[i]);
            else
                fprintf(stderr, "clnorm-bench: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (o->vs && (o->tune || o->overhead)) {
        fprintf(stderr, "clnorm-bench: --vs does not combine with --%s\n", o->tune ? "tune" : "overhead");
        return 2;
    }
    if (o->dtype >= 0 && o->overhead) {
        fprintf(stderr, "clnorm-bench: --dtype does not combine with --overhead (which times F32)\n");
        return 2;
    }
    if (o->reps == 0)
        o->reps = strcmp(o->set, "full") == 0 ? FULL_REPS : QUICK_REPS;
    return 0;
}

/* ---- device and context -------------------------------------------------------------------- */

static char *device_string(cl_device_id dev, cl_device_info what)
{
    size_t size = 0;
    char *s;
    if (clGetDeviceInfo(dev, what, 0, NULL, &size) != CL_SUCCESS)
        size = 0;
    s = malloc(size + 1);
    if (!s)
        return NULL;
    if (size == 0 || clGetDeviceInfo(dev, what, size, s, NULL) != CL_SUCCESS)
        size = 0;
    s[size] = '\0';
    return s;
}

static char *platform_name(cl_device_id dev)
{
    cl_platform_id p;
    size_t size = 0;
    char *s;
    if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof p, &p, NULL) != CL_SUCCESS ||
        clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, NULL, &size) != CL_SUCCESS)
        size = 0;
    s = malloc(size + 1);
    if (!s)
        return NULL;
    if (size == 0 || clGetPlatformInfo(p, CL_PLATFORM_NAME, size, s, NULL) != CL_SUCCESS)
        size = 0;
    s[size] = '\0';
    return s;
}

/* The timing needs an in-order queue with profiling. clnorm_context_create promises one; should a
 * library build ever differ, run on our own such queue through clnorm_context_create_from_queue. */
static int ensure_profiling_queue(clnorm_context **ctx)
{
    cl_command_queue q = clnorm_context_queue(*ctx);
    cl_command_queue_properties props = 0;
    cl_command_queue own;
    clnorm_context *replacement = NULL;
    cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clnorm-bench: clGetCommandQueueInfo: %s\n", clnorm_status_string(err));
        return err;
    }
    if ((props & CL_QUEUE_PROFILING_ENABLE) && !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        return CL_SUCCESS;
    fprintf(stderr, "clnorm-bench: the context's queue is not an in-order profiling queue; using our own\n");
    own = clCreateCommandQueue(
        clnorm_context_cl_context(*ctx), clnorm_context_device(*ctx), CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clnorm-bench: clCreateCommandQueue: %s\n", clnorm_status_string(err));
        return err;
    }
    err = clnorm_context_create_from_queue(own, &replacement);
    clReleaseCommandQueue(own); /* the new context retained it */
    if (err != CLNORM_SUCCESS) {
        fprintf(stderr, "clnorm-bench: clnorm_context_create_from_queue: %s: %s\n", clnorm_status_string(err),
            clnorm_context_last_error(NULL));
        return err;
    }
    clnorm_context_release(*ctx);
    *ctx = replacement;
    return CL_SUCCESS;
}

static double now_seconds(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Prints one case's results: each clnorm row, then the rows of the library compared with (--vs)
 * for the same op, with their speed ratio; rows without a clnorm counterpart last. */
static void print_case(const bench_header *hdr, bench_result *r, int n)
{
    int i, j;
    for (i = 0; i < n; ++i) {
        if (strcmp(r[i].impl, "clnorm") != 0)
            continue;
        report_line(stdout, hdr, &r[i]);
        for (j = 0; j < n; ++j) {
            if (strcmp(r[j].impl, "clnorm") == 0 || strcmp(r[j].op, r[i].op) != 0)
                continue;
            r[j].speedup = r[j].ms / r[i].ms; /* NAN when either was not measured */
            report_line(stdout, hdr, &r[j]);
        }
    }
    for (j = 0; j < n; ++j) {
        int matched = 0;
        if (strcmp(r[j].impl, "clnorm") == 0)
            continue;
        for (i = 0; i < n; ++i)
            matched |= strcmp(r[i].impl, "clnorm") == 0 && strcmp(r[i].op, r[j].op) == 0;
        if (!matched)
            report_line(stdout, hdr, &r[j]);
    }
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    options o;
    clnorm_context *ctx = NULL;
    bench_kernels kernels;
    bench_env env;
    bench_header hdr;
    bench_vs_info vs_info;
#ifdef CLNORM_HAVE_ONEDNN
    bench_hook *hook = NULL;
#endif
    bench_result *results = NULL;
    check_stats cs = {0, 0, 0.0, "", 0, 0};
    char *dev_name = NULL, *driver = NULL, *dev_version = NULL, *platform = NULL;
    char date[32] = "";
    int nresults = 0, errors = 0, skipped = 0, rc, kernels_ok = 0, extra_said = 0;
    cl_uint compute_units = 0;
    size_t s, d;
    double t_start = now_seconds();
    time_t now = time(NULL);
    clnorm_status st;

    rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc == 1 ? 0 : 2;

    st = clnorm_context_create(o.device, &ctx);
    if (st != CLNORM_SUCCESS) {
        fprintf(stderr, "clnorm-bench: clnorm_context_create(%s%s%s): %s\n%s\n", o.device ? "\"" : "",
            o.device ? o.device : "NULL", o.device ? "\"" : "", clnorm_status_string(st),
            clnorm_context_last_error(NULL));
        return 1;
    }
    if (ensure_profiling_queue(&ctx) != CL_SUCCESS) {
        clnorm_context_release(ctx);
        return 1;
    }

    memset(&env, 0, sizeof env);
    env.ctx = ctx;
    env.context = clnorm_context_cl_context(ctx);
    env.device = clnorm_context_device(ctx);
    env.queue = clnorm_context_queue(ctx);
    env.reps = o.reps;
    env.warmup = WARMUP_REPS;
    env.seed = o.seed;
    env.verbose = o.verbose;
    if (clGetDeviceInfo(env.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof env.max_alloc, &env.max_alloc, NULL) !=
            CL_SUCCESS ||
        clGetDeviceInfo(env.device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof env.global_mem, &env.global_mem, NULL) !=
            CL_SUCCESS) {
        fprintf(stderr, "clnorm-bench: clGetDeviceInfo failed\n");
        clnorm_context_release(ctx);
        return 1;
    }

    st = bench_kernels_create(env.context, env.device, &kernels);
    if (st != CL_SUCCESS) {
        fprintf(stderr, "clnorm-bench: building the benchmark's own kernels: %s\n", clnorm_status_string(st));
        errors = 1;
        goto done;
    }
    kernels_ok = 1;
    env.kernels = &kernels;

    dev_name = device_string(env.device, CL_DEVICE_NAME);
    driver = device_string(env.device, CL_DRIVER_VERSION);
    dev_version = device_string(env.device, CL_DEVICE_VERSION);
    platform = platform_name(env.device);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (clGetDeviceInfo(env.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof compute_units, &compute_units, NULL) !=
        CL_SUCCESS)
        compute_units = 0;
    memset(&hdr, 0, sizeof hdr);
    memset(&vs_info, 0, sizeof vs_info);
    hdr.device = dev_name ? dev_name : "?";
    hdr.platform = platform ? platform : "?";
    hdr.driver = driver ? driver : "?";
    hdr.device_version = dev_version ? dev_version : "?";
    hdr.compute_units = compute_units;
    hdr.date = date;
    hdr.set = o.set;
    hdr.timing = TIMING_METHOD;
    hdr.reps = o.reps;
    hdr.warmup = WARMUP_REPS;
#ifdef CLNORM_HAVE_ONEDNN
    if (o.vs) {
        hook = onednn_hook_create(&vs_info);
        if (!hook) {
            errors = 1;
            goto done;
        }
        hdr.vs = &vs_info;
        env.hook = hook;
        /* The ops oneDNN has too: forward (y, mean, variance) and backward (dx, dweight, dbias). */
        env.op_mask = (1u << BENCH_OP_FORWARD) | (1u << BENCH_OP_BACKWARD);
    }
#endif
    report_header(stdout, &hdr);
    if (o.tune && getenv("CLNORM_TUNE") && *getenv("CLNORM_TUNE"))
        printf("# tune: every candidate on top of CLNORM_TUNE=%s (its keys first, the candidate's after them)\n",
               getenv("CLNORM_TUNE"));

    if (o.overhead) {
        errors += bench_overhead(&env, 64, 256, 10000);
        goto done;
    }
    results = calloc((NUM_SHAPES + 1) * NUM_DTYPES * BENCH_MAX_CASE_RESULTS, sizeof *results);
    if (!results) {
        fprintf(stderr, "clnorm-bench: out of host memory\n");
        errors = 1;
        goto done;
    }
    for (s = 0; s <= NUM_SHAPES; ++s) {
        /* Index NUM_SHAPES stands for the --shape one. */
        size_t rows = s < NUM_SHAPES ? SHAPES[s].rows : o.rows, cols = s < NUM_SHAPES ? SHAPES[s].cols : o.cols;
        int headline = s < NUM_SHAPES ? SHAPES[s].headline : 1;
        if (s < NUM_SHAPES ? strcmp(SHAPES[s].set, o.set) != 0 : o.rows == 0)
            continue;
        if (!headline && !extra_said) {
            printf("# extra shapes (not in the headline table; \"headline\": false in the JSON)\n");
            extra_said = 1;
        }
        for (d = 0; d < NUM_DTYPES; ++d) {
            int n = 0, i;
            if (o.dtype >= 0 && (size_t)o.dtype != d)
                continue;
            if (o.tune) {
                errors += bench_tune_shape(&env, rows, cols, DTYPES[d]);
                continue;
            }
            int outcome = bench_case_run(&env, rows, cols, DTYPES[d], results + nresults, &n, &cs);
            for (i = 0; i < n; ++i)
                results[nresults + i].headline = headline;
            print_case(&hdr, results + nresults, n);
            nresults += n;
            if (outcome == BENCH_CASE_ERROR)
                errors += 1;
            else if (outcome == BENCH_CASE_SKIPPED)
                skipped += 1;
        }
    }

    if (o.json && report_json(o.json, &hdr, results, nresults) != 0)
        errors += 1;
    if (o.csv && report_csv(o.csv, results, nresults) != 0)
        errors += 1;
    printf("# checks: %ld values compared, %ld failed; largest error/tolerance of the passing ones %.3g (%s)\n",
        cs.values, cs.failures, cs.worst, cs.worst_at);
    if (skipped)
        printf("# %d case(s) skipped: too large for the device\n", skipped);
    if (errors)
        printf("# %d case(s) failed to run (see stderr)\n", errors);
    printf("# wall time: %.1f s\n", now_seconds() - t_start);

done:
    free(results);
    free(dev_name);
    free(driver);
    free(dev_version);
    free(platform);
    if (kernels_ok)
        bench_kernels_release(&kernels);
#ifdef CLNORM_HAVE_ONEDNN
    onednn_hook_release(hook);
#endif
    clnorm_context_release(ctx);
    return errors || cs.failures ? 1 : 0;
}
