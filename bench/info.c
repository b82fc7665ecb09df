/* clnorm-info — lists the OpenCL platforms and devices the way clnorm sees them, and says which
 * device the library would pick: by the default policy (spec "") and by CLNORM_DEVICE (spec NULL).
 * For each device it also creates a clnorm context and prints the launch parameters the library
 * would use (clnorm_launch_plan) for a few shapes, forward and backward, F32 and BF16, and how many
 * programs that context has built (its program cache).
 * Device indices are printed as p:d, the form clnorm's device specs accept ("0:1").
 *   clnorm-info [--json] [--rows N]
 * --json prints the same content as one JSON object. Exit status 0 when at least one device exists. */
#include <clnorm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_json;                /* --json */
static size_t g_rows = 4096;      /* --rows: rows of the example shapes */
static const size_t g_cols[] = {256, 1024, 4096, 16384};
static const clnorm_dtype g_dtypes[] = {CLNORM_F32, CLNORM_BF16};
static const char *const g_env[] = {"CLNORM_DEVICE", "CLNORM_DEVICE_CLASS", "CLNORM_TUNE", "CLNORM_BUILD_OPTIONS"};

/* One string property of a platform or device; "" when the query fails. Caller frees. */
static char *platform_str(cl_platform_id p, cl_platform_info what)
{
    size_t size = 0;
    char *s;
    if (clGetPlatformInfo(p, what, 0, NULL, &size) != CL_SUCCESS)
        size = 0;
    s = malloc(size + 1);
    if (!s)
        return NULL;
    if (size == 0 || clGetPlatformInfo(p, what, size, s, NULL) != CL_SUCCESS)
        size = 0;
    s[size] = '\0';
    return s;
}

static char *device_str(cl_device_id d, cl_device_info what)
{
    size_t size = 0;
    char *s;
    if (clGetDeviceInfo(d, what, 0, NULL, &size) != CL_SUCCESS)
        size = 0;
    s = malloc(size + 1);
    if (!s)
        return NULL;
    if (size == 0 || clGetDeviceInfo(d, what, size, s, NULL) != CL_SUCCESS)
        size = 0;
    s[size] = '\0';
    return s;
}

static cl_ulong device_ulong(cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0;
    return clGetDeviceInfo(d, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static cl_uint device_uint(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    return clGetDeviceInfo(d, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

static size_t device_size(cl_device_id d, cl_device_info what)
{
    size_t v = 0;
    return clGetDeviceInfo(d, what, sizeof v, &v, NULL) == CL_SUCCESS ? v : 0;
}

/* "CPU", "GPU", "accelerator", "custom", "default", joined with '|' when several bits are set. */
static const char *type_string(cl_device_type t, char *buf, size_t len)
{
    static const struct {
        cl_device_type bit;
        const char *name;
    } names[] = {{CL_DEVICE_TYPE_CPU, "CPU"}, {CL_DEVICE_TYPE_GPU, "GPU"},
        {CL_DEVICE_TYPE_ACCELERATOR, "accelerator"}, {CL_DEVICE_TYPE_CUSTOM, "custom"},
        {CL_DEVICE_TYPE_DEFAULT, "default"}};
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
        if (t & names[i].bit) {
            int n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", names[i].name);
            if (n < 0 || (size_t)n >= len - used)
                break;
            used += (size_t)n;
        }
    }
    if (!buf[0])
        snprintf(buf, len, "unknown (0x%llx)", (unsigned long long)t);
    return buf;
}

/* Human-readable size next to the exact byte count. */
static const char *size_string(cl_ulong bytes, char *buf, size_t len)
{
    if (bytes >= (1ull << 30))
        snprintf(buf, len, "%.2f GiB (%llu bytes)", (double)bytes / (double)(1ull << 30), (unsigned long long)bytes);
    else if (bytes >= (1ull << 20))
        snprintf(buf, len, "%.2f MiB (%llu bytes)", (double)bytes / (double)(1ull << 20), (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.1f KiB (%llu bytes)", (double)bytes / 1024.0, (unsigned long long)bytes);
    return buf;
}

/* A JSON string literal (NULL: null). Bytes >= 0x80 pass through (UTF-8 stays UTF-8). */
static void json_str(const char *s)
{
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c == '\n')
            fputs("\\n", stdout);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static const char *dtype_name(clnorm_dtype dt) { return dt == CLNORM_F32 ? "f32" : dt == CLNORM_BF16 ? "bf16" : "f16"; }

typedef struct device_entry {
    cl_device_id id;
    unsigned p, d;
} device_entry;

static device_entry *g_devices;
static size_t g_num_devices;

/* The launch parameters a context on device p:d would use, and its program cache. */
static void print_plans(unsigned p, unsigned d)
{
    char spec[32];
    clnorm_context *ctx = NULL;
    size_t ic, it;
    int op, first = 1;
    clnorm_status st;
    snprintf(spec, sizeof spec, "%u:%u", p, d);
    st = clnorm_context_create(spec, &ctx);
    if (st != CLNORM_SUCCESS) {
        if (g_json) {
            printf(",\n      \"clnorm_context\": {\"ok\": false, \"status\": ");
            json_str(clnorm_status_string(st));
            printf(", \"error\": ");
            json_str(clnorm_context_last_error(NULL));
            printf("}");
        } else {
            printf("        clnorm context:     none: %s\n          %s\n", clnorm_status_string(st),
                clnorm_context_last_error(NULL));
        }
        return;
    }
    if (g_json)
        printf(",\n      \"clnorm_context\": {\"ok\": true, \"programs_built\": %zu},\n      \"launch_plans\": [",
            clnorm_context_program_count(ctx));
    else
        printf("        launch plans (clnorm_launch_plan, rows = %zu, dense tensors):\n"
               "          op          dtype   cols  vector  items/row  rows/group  group size  reg.cache  reg.acc  groups  rows/item  raw  pipe  reread  local.acc  local.row  reread.vec  col.sweep  1read  l2pf  l2pf.cur  unal  phase  early  bfly  local.w\n",
            g_rows);
    /* clnorm_launch_plan's 0, 1, 2, and the two backward calls with a residual gradient (whose
     * residual_early the others cannot show) */
    static const char *const op_names[] = {"forward", "backward", "bwd_dx", "bwd_res", "bwd_dx_res"};
    static const int op_codes[] = {0, 1, CLNORM_PLAN_BACKWARD_DX, 1 | CLNORM_PLAN_BACKWARD_RES,
                                   CLNORM_PLAN_BACKWARD_DX | CLNORM_PLAN_BACKWARD_RES};
    for (op = 0; op < 5; ++op)
        for (it = 0; it < sizeof g_dtypes / sizeof g_dtypes[0]; ++it)
            for (ic = 0; ic < sizeof g_cols / sizeof g_cols[0]; ++ic) {
                clnorm_launch_info L;
                st = clnorm_launch_plan(ctx, op_codes[op], g_rows, g_cols[ic], g_dtypes[it], &L);
                if (g_json) {
                    printf("%s\n        {\"op\": \"%s\", \"dtype\": \"%s\", \"rows\": %zu, \"cols\": %zu", first ? "" : ",",
                        op_names[op], dtype_name(g_dtypes[it]), g_rows, g_cols[ic]);
                    if (st == CLNORM_SUCCESS)
                        printf(", \"vector_width\": %u, \"items_per_row\": %u, \"rows_per_group\": %u, "
                               "\"work_group_size\": %u, \"register_cache\": %u, \"register_accumulators\": %u, "
                               "\"work_groups\": %zu, \"rows_per_item\": %u, \"raw_cache\": %u, \"pipelined\": %u, "
                               "\"reread_batch\": %u, \"local_accumulators\": %u, \"local_row\": %u, \"reread_vectors\": %u, "
                               "\"column_sweep\": %u, \"one_read_stats\": %u, \"l2_prefetch\": %u, \"unaligned\": %u, \"row_phase\": %u, "
                               "\"residual_early\": %u, \"row_sum_butterfly\": %u, \"local_weight\": %u, \"l2_prefetch_current\": %u}",
                            L.vector_width, L.items_per_row, L.rows_per_group, L.work_group_size, L.register_cache,
                            L.register_accumulators, L.work_groups, L.rows_per_item, L.raw_cache, L.pipelined,
                            L.reread_batch, L.local_accumulators, L.local_row, L.reread_vectors, L.column_sweep,
                            L.one_read_stats, L.l2_prefetch, L.unaligned, L.row_phase, L.residual_early,
                            L.row_sum_butterfly, L.local_weight, L.l2_prefetch_current);
                    else {
                        printf(", \"error\": ");
                        json_str(clnorm_status_string(st));
                        printf("}");
                    }
                } else if (st == CLNORM_SUCCESS) {
                    printf("          %-10s  %-5s %6zu  %6u  %9u  %10u  %10u  %9u  %7u  %6zu  %9u  %3u  %4u  %6u  %9u  %9u  %10u  %9u  %5u  %4u  %8u  %4u  %5u  %5u  %4u  %7u\n",
                        op_names[op], dtype_name(g_dtypes[it]), g_cols[ic], L.vector_width,
                        L.items_per_row, L.rows_per_group, L.work_group_size, L.register_cache,
                        L.register_accumulators, L.work_groups, L.rows_per_item, L.raw_cache, L.pipelined,
                        L.reread_batch, L.local_accumulators, L.local_row, L.reread_vectors, L.column_sweep,
                        L.one_read_stats, L.l2_prefetch, L.l2_prefetch_current, L.unaligned, L.row_phase,
                        L.residual_early, L.row_sum_butterfly, L.local_weight);
                } else {
                    printf("          %-10s  %-5s %6zu  %s\n", op_names[op], dtype_name(g_dtypes[it]),
                        g_cols[ic], clnorm_status_string(st));
                }
                first = 0;
            }
    if (g_json)
        printf("\n      ]");
    else
        printf("        program cache:      %zu programs built (%s; clnorm-info runs no kernel, and each new\n"
               "                            context builds its programs on first use)\n",
            clnorm_context_program_count(ctx), clnorm_context_program_count(ctx) ? "warm" : "cold");
    clnorm_context_release(ctx);
}

static void print_device(cl_device_id dev, unsigned p, unsigned d, int first)
{
    char *name = device_str(dev, CL_DEVICE_NAME);
    char *driver = device_str(dev, CL_DRIVER_VERSION);
    char *version = device_str(dev, CL_DEVICE_VERSION);
    char *clc = device_str(dev, CL_DEVICE_OPENCL_C_VERSION);
    cl_device_type type = 0;
    char buf[64];
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);

    if (g_json) {
        printf("%s\n    {\"spec\": \"%u:%u\", \"name\": ", first ? "" : ",", p, d);
        json_str(name);
        printf(", \"type\": ");
        json_str(type_string(type, buf, sizeof buf));
        printf(", \"device_version\": ");
        json_str(version);
        printf(", \"driver_version\": ");
        json_str(driver);
        printf(", \"opencl_c_version\": ");
        json_str(clc);
        printf(",\n      \"compute_units\": %u, \"max_work_group\": %zu, \"local_memory_bytes\": %llu, "
               "\"global_memory_bytes\": %llu, \"max_allocation_bytes\": %llu",
            device_uint(dev, CL_DEVICE_MAX_COMPUTE_UNITS), device_size(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE),
            (unsigned long long)device_ulong(dev, CL_DEVICE_LOCAL_MEM_SIZE),
            (unsigned long long)device_ulong(dev, CL_DEVICE_GLOBAL_MEM_SIZE),
            (unsigned long long)device_ulong(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
        print_plans(p, d);
        printf("}");
    } else {
        printf("  %u:%u  %s\n", p, d, name ? name : "");
        printf("        type:               %s\n", type_string(type, buf, sizeof buf));
        printf("        device version:     %s\n", version ? version : "");
        printf("        driver version:     %s\n", driver ? driver : "");
        printf("        OpenCL C version:   %s\n", clc ? clc : "");
        printf("        compute units:      %u\n", device_uint(dev, CL_DEVICE_MAX_COMPUTE_UNITS));
        printf("        max work-group:     %zu\n", device_size(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE));
        printf("        local memory:       %s\n", size_string(device_ulong(dev, CL_DEVICE_LOCAL_MEM_SIZE), buf, sizeof buf));
        printf("        global memory:      %s\n", size_string(device_ulong(dev, CL_DEVICE_GLOBAL_MEM_SIZE), buf, sizeof buf));
        printf("        max allocation:     %s\n", size_string(device_ulong(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE), buf, sizeof buf));
        print_plans(p, d);
    }
    free(name);
    free(driver);
    free(version);
    free(clc);
}

/* Closes a JSON platform object: its error (or null) and the end of its device list. */
static void json_platform_end(const char *error, int any_device)
{
    printf("%s], \"error\": ", any_device ? "\n  " : "");
    json_str(error);
    printf("}");
}

/* Enumerates and prints every platform and device; remembers the devices' p:d for later. */
static int list_devices(void)
{
    cl_uint np = 0, p;
    cl_platform_id *plats;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (g_json)
        printf("  \"platforms\": [");
    if (err != CL_SUCCESS || np == 0) {
        /* -1001 (CL_PLATFORM_NOT_FOUND_KHR) from the ICD loader means no platform is installed. */
        if (g_json)
            printf("],\n  \"platforms_error\": \"no OpenCL platform found (clGetPlatformIDs: %s)\",\n",
                err == CL_SUCCESS ? "0 platforms" : clnorm_status_string(err));
        else
            printf("No OpenCL platform found (clGetPlatformIDs: %s).\n",
                err == CL_SUCCESS ? "0 platforms" : clnorm_status_string(err));
        return 0;
    }
    plats = malloc(np * sizeof *plats);
    if (!plats || clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
        free(plats);
        if (g_json)
            printf("],\n  \"platforms_error\": \"clGetPlatformIDs failed\",\n");
        else
            printf("clGetPlatformIDs failed\n");
        return 0;
    }
    for (p = 0; p < np; ++p) {
        char *name = platform_str(plats[p], CL_PLATFORM_NAME);
        char *vendor = platform_str(plats[p], CL_PLATFORM_VENDOR);
        char *version = platform_str(plats[p], CL_PLATFORM_VERSION);
        cl_uint nd = 0, d;
        cl_device_id *devs = NULL;
        if (g_json) {
            printf("%s\n  {\"index\": %u, \"name\": ", p ? "," : "", p);
            json_str(name);
            printf(", \"vendor\": ");
            json_str(vendor);
            printf(", \"version\": ");
            json_str(version);
            printf(",\n   \"devices\": [");
        } else {
            printf("Platform %u: %s\n", p, name ? name : "");
            printf("  vendor: %s\n  version: %s\n", vendor ? vendor : "", version ? version : "");
        }
        free(name);
        free(vendor);
        free(version);
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (err != CL_SUCCESS || nd == 0) {
            char msg[128];
            snprintf(msg, sizeof msg, "no devices: %s", err == CL_SUCCESS ? "0 devices" : clnorm_status_string(err));
            if (g_json)
                json_platform_end(msg, 0);
            else
                printf("  (%s)\n", msg);
            continue;
        }
        devs = malloc(nd * sizeof *devs);
        {
            device_entry *grown = realloc(g_devices, (g_num_devices + nd) * sizeof *grown);
            if (!devs || !grown || clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL) != CL_SUCCESS) {
                if (grown)
                    g_devices = grown;
                free(devs);
                if (g_json)
                    json_platform_end("device query failed", 0);
                else
                    printf("  (device query failed)\n");
                continue;
            }
            g_devices = grown;
        }
        for (d = 0; d < nd; ++d) {
            g_devices[g_num_devices].id = devs[d];
            g_devices[g_num_devices].p = p;
            g_devices[g_num_devices].d = d;
            ++g_num_devices;
            print_device(devs[d], p, d, d == 0);
        }
        if (g_json)
            json_platform_end(NULL, 1);
        free(devs);
    }
    if (g_json)
        printf("\n  ],\n");
    free(plats);
    return (int)g_num_devices;
}

/* Prints which device clnorm_select_device(spec) resolves to, by p:d and name. */
static void print_selection(const char *label, const char *key, const char *spec)
{
    cl_platform_id plat = NULL;
    cl_device_id dev = NULL;
    clnorm_status st = clnorm_select_device(spec, &plat, &dev);
    char *name = NULL;
    const device_entry *found = NULL;
    size_t i;
    if (st == CLNORM_SUCCESS) {
        name = device_str(dev, CL_DEVICE_NAME);
        for (i = 0; i < g_num_devices; ++i)
            if (g_devices[i].id == dev)
                found = &g_devices[i];
    }
    if (g_json) {
        printf("    ");
        json_str(key);
        if (st != CLNORM_SUCCESS) {
            printf(": {\"spec\": null, \"name\": null, \"error\": ");
            json_str(clnorm_context_last_error(NULL));
            printf("}");
        } else {
            char pd[32];
            snprintf(pd, sizeof pd, "%u:%u", found ? found->p : 0, found ? found->d : 0);
            printf(": {\"spec\": ");
            json_str(found ? pd : NULL);
            printf(", \"name\": ");
            json_str(name ? name : "");
            printf(", \"error\": null}");
        }
    } else if (st != CLNORM_SUCCESS) {
        printf("%s: none: %s\n  %s\n", label, clnorm_status_string(st), clnorm_context_last_error(NULL));
    } else if (found) {
        printf("%s: %u:%u  %s\n", label, found->p, found->d, name ? name : "");
    } else {
        printf("%s: %s (not among the devices listed above)\n", label, name ? name : "?");
    }
    free(name);
}

static int usage(FILE *to, int status)
{
    fprintf(to, "usage: clnorm-info [--json] [--rows N]\n"
                "Lists the OpenCL devices, the one clnorm picks, and per device the launch parameters\n"
                "clnorm would use for a few shapes (N rows, default 4096) and its program cache.\n"
                "  --json    the same content as one JSON object\n");
    return status;
}

int main(int argc, char **argv)
{
    const char *env = getenv("CLNORM_DEVICE");
    unsigned v = clnorm_version();
    char libversion[32];
    size_t i;
    int n, a;
    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--json") == 0) {
            g_json = 1;
        } else if (strcmp(argv[a], "--rows") == 0 && a + 1 < argc) {
            char *end;
            unsigned long long r = strtoull(argv[++a], &end, 10);
            if (*end || end == argv[a] || argv[a][0] == '-' || r == 0 || (unsigned long long)(size_t)r != r)
                return usage(stderr, 2);
            g_rows = (size_t)r;
        } else if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
            return usage(stdout, 0);
        } else {
            return usage(stderr, 2);
        }
    }
    snprintf(libversion, sizeof libversion, "%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
    if (g_json) {
        printf("{\n  \"clnorm_info\": \"%s\", \"library_version\": \"%s\",\n  \"environment\": {", CLNORM_VERSION_STRING,
            libversion);
        for (i = 0; i < sizeof g_env / sizeof g_env[0]; ++i) {
            printf("%s\"%s\": ", i ? ", " : "", g_env[i]);
            json_str(getenv(g_env[i]));
        }
        printf("},\n");
    } else {
        printf("clnorm-info %s (library %s)\n", CLNORM_VERSION_STRING, libversion);
        for (i = 1; i < sizeof g_env / sizeof g_env[0]; ++i) /* CLNORM_DEVICE: at the end */
            if (getenv(g_env[i]))
                printf("%s=\"%s\" (applies to the launch plans below)\n", g_env[i], getenv(g_env[i]));
        printf("\n");
    }
    n = list_devices();
    if (g_json) {
        printf("  \"selection\": {\n");
        print_selection(NULL, "default_policy", "");
        printf(",\n");
        if (env)
            print_selection(NULL, "CLNORM_DEVICE", NULL);
        else
            printf("    \"CLNORM_DEVICE\": null");
        printf("\n  }\n}\n");
    } else {
        printf("\n");
        print_selection("Default policy (spec \"\")", NULL, "");
        if (env) {
            char label[256];
            snprintf(label, sizeof label, "CLNORM_DEVICE=\"%.200s\"", env);
            print_selection(label, NULL, NULL);
        } else {
            printf("CLNORM_DEVICE: unset (clnorm_context_create(NULL) uses the default policy)\n");
        }
    }
    free(g_devices);
    return n > 0 ? 0 : 1;
}
