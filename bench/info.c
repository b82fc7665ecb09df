/* clnorm-info — lists the OpenCL platforms and devices the way clnorm sees them, and says which
 * device the library would pick: by the default policy (spec "") and by CLNORM_DEVICE (spec NULL).
 * Device indices are printed as p:d, the form clnorm's device specs accept ("0:1").
 * Exit status 0 when at least one device exists. */
#include <clnorm.h>

#include <stdio.h>
#include <stdlib.h>

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

typedef struct device_entry {
    cl_device_id id;
    unsigned p, d;
} device_entry;

static device_entry *g_devices;
static size_t g_num_devices;

static void print_device(cl_device_id dev, unsigned p, unsigned d)
{
    char *name = device_str(dev, CL_DEVICE_NAME);
    char *driver = device_str(dev, CL_DRIVER_VERSION);
    char *version = device_str(dev, CL_DEVICE_VERSION);
    char *clc = device_str(dev, CL_DEVICE_OPENCL_C_VERSION);
    cl_device_type type = 0;
    char buf[64];
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);

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
    free(name);
    free(driver);
    free(version);
    free(clc);
}

/* Enumerates and prints every platform and device; remembers the devices' p:d for later. */
static int list_devices(void)
{
    cl_uint np = 0, p;
    cl_platform_id *plats;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err != CL_SUCCESS || np == 0) {
        /* -1001 (CL_PLATFORM_NOT_FOUND_KHR) from the ICD loader means no platform is installed. */
        printf("No OpenCL platform found (clGetPlatformIDs: %s).\n",
            err == CL_SUCCESS ? "0 platforms" : clnorm_status_string(err));
        return 0;
    }
    plats = malloc(np * sizeof *plats);
    if (!plats || clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
        free(plats);
        printf("clGetPlatformIDs failed\n");
        return 0;
    }
    for (p = 0; p < np; ++p) {
        char *name = platform_str(plats[p], CL_PLATFORM_NAME);
        char *vendor = platform_str(plats[p], CL_PLATFORM_VENDOR);
        char *version = platform_str(plats[p], CL_PLATFORM_VERSION);
        cl_uint nd = 0, d;
        cl_device_id *devs = NULL;
        printf("Platform %u: %s\n", p, name ? name : "");
        printf("  vendor: %s\n  version: %s\n", vendor ? vendor : "", version ? version : "");
        free(name);
        free(vendor);
        free(version);
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (err != CL_SUCCESS || nd == 0) {
            printf("  (no devices: %s)\n", err == CL_SUCCESS ? "0 devices" : clnorm_status_string(err));
            continue;
        }
        devs = malloc(nd * sizeof *devs);
        {
            device_entry *grown = realloc(g_devices, (g_num_devices + nd) * sizeof *grown);
            if (!devs || !grown || clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL) != CL_SUCCESS) {
                if (grown)
                    g_devices = grown;
                free(devs);
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
            print_device(devs[d], p, d);
        }
        free(devs);
    }
    free(plats);
    return (int)g_num_devices;
}

/* Prints which device clnorm_select_device(spec) resolves to, by p:d and name. */
static void print_selection(const char *label, const char *spec)
{
    cl_platform_id plat = NULL;
    cl_device_id dev = NULL;
    clnorm_status st = clnorm_select_device(spec, &plat, &dev);
    size_t i;
    if (st != CLNORM_SUCCESS) {
        printf("%s: none: %s\n  %s\n", label, clnorm_status_string(st), clnorm_context_last_error(NULL));
        return;
    }
    for (i = 0; i < g_num_devices; ++i) {
        if (g_devices[i].id == dev) {
            char *name = device_str(dev, CL_DEVICE_NAME);
            printf("%s: %u:%u  %s\n", label, g_devices[i].p, g_devices[i].d, name ? name : "");
            free(name);
            return;
        }
    }
    {
        char *name = device_str(dev, CL_DEVICE_NAME);
        printf("%s: %s (not among the devices listed above)\n", label, name ? name : "?");
        free(name);
    }
}

int main(int argc, char **argv)
{
    const char *env = getenv("CLNORM_DEVICE");
    int n;
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: clnorm-info\nLists the OpenCL devices and the one clnorm picks.\n");
        return 2;
    }
    unsigned v = clnorm_version();
    printf("clnorm-info %s (library %u.%u.%u)\n\n", CLNORM_VERSION_STRING, v / 10000, v / 100 % 100, v % 100);
    n = list_devices();
    printf("\n");
    print_selection("Default policy (spec \"\")", "");
    if (env) {
        char label[256];
        snprintf(label, sizeof label, "CLNORM_DEVICE=\"%.200s\"", env);
        print_selection(label, NULL);
    } else {
        printf("CLNORM_DEVICE: unset (clnorm_context_create(NULL) uses the default policy)\n");
    }
    free(g_devices);
    return n > 0 ? 0 : 1;
}
