/* clnorm — device choice: a spec string, the CLNORM_DEVICE variable, or the default policy. */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every platform and every device of each, however many (arrays sized by the count queries). */
typedef struct {
    cl_uint nplat;
    cl_platform_id *plat;
    cl_uint *ndev;
    cl_device_id **dev;
} inventory;

static void release_inventory(inventory *inv)
{
    for (cl_uint p = 0; inv->dev && p < inv->nplat; ++p)
        free(inv->dev[p]);
    free(inv->dev);
    free(inv->ndev);
    free(inv->plat);
    memset(inv, 0, sizeof *inv);
}

/* false: out of host memory (inv empty). A platform or device list that cannot be queried counts
 * as empty, as it would for the OpenCL loader's own listing. */
static bool take_inventory(inventory *inv)
{
    memset(inv, 0, sizeof *inv);
    cl_uint n = 0;
    if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0)
        return true;
    inv->plat = calloc(n, sizeof *inv->plat);
    inv->ndev = calloc(n, sizeof *inv->ndev);
    inv->dev = calloc(n, sizeof *inv->dev);
    if (!inv->plat || !inv->ndev || !inv->dev) {
        release_inventory(inv);
        return false;
    }
    if (clGetPlatformIDs(n, inv->plat, &inv->nplat) != CL_SUCCESS)
        inv->nplat = 0;
    if (inv->nplat > n)
        inv->nplat = n;
    for (cl_uint p = 0; p < inv->nplat; ++p) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(inv->plat[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
            continue;
        inv->dev[p] = calloc(nd, sizeof **inv->dev);
        if (!inv->dev[p]) {
            release_inventory(inv);
            return false;
        }
        if (clGetDeviceIDs(inv->plat[p], CL_DEVICE_TYPE_ALL, nd, inv->dev[p], &inv->ndev[p]) != CL_SUCCESS)
            inv->ndev[p] = 0;
        if (inv->ndev[p] > nd)
            inv->ndev[p] = nd;
    }
    return true;
}

bool clnorm__contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return true;
    }
    return n == 0;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; ++s)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static void platform_text(cl_platform_id p, cl_platform_info what, char *buf, size_t n)
{
    buf[0] = '\0';
    if (clGetPlatformInfo(p, what, n, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[n - 1] = '\0';
}

static void device_text(cl_device_id d, char *buf, size_t n)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, CL_DEVICE_NAME, n, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[n - 1] = '\0';
}

static cl_device_type device_type(cl_device_id d)
{
    cl_device_type t = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    return t;
}

static bool first_of_type(const inventory *inv, cl_device_type type, cl_uint *pp, cl_uint *dd)
{
    for (cl_uint p = 0; p < inv->nplat; ++p)
        for (cl_uint d = 0; d < inv->ndev[p]; ++d)
            if (device_type(inv->dev[p][d]) & type) {
                *pp = p;
                *dd = d;
                return true;
            }
    return false;
}

/* Device d of platform p by index ("1") or by name substring ("H200"). */
static bool pick_in_platform(const inventory *inv, cl_uint p, const char *dev, cl_uint *dd)
{
    if (!dev || !*dev) {
        *dd = 0;
        return inv->ndev[p] > 0;
    }
    if (all_digits(dev)) {
        unsigned long i = strtoul(dev, NULL, 10);
        *dd = (cl_uint)i;
        return i < inv->ndev[p];
    }
    char name[256];
    for (cl_uint d = 0; d < inv->ndev[p]; ++d) {
        device_text(inv->dev[p][d], name, sizeof name);
        if (clnorm__contains_nocase(name, dev)) {
            *dd = d;
            return true;
        }
    }
    return false;
}

static bool resolve(const inventory *inv, const char *spec, cl_uint *pp, cl_uint *dd)
{
    if (!*spec) /* the default policy */
        return first_of_type(inv, CL_DEVICE_TYPE_GPU, pp, dd) ||
               first_of_type(inv, CL_DEVICE_TYPE_ACCELERATOR, pp, dd) ||
               first_of_type(inv, CL_DEVICE_TYPE_CPU, pp, dd);
    if (clnorm__contains_nocase(spec, "gpu") && strlen(spec) == 3)
        return first_of_type(inv, CL_DEVICE_TYPE_GPU, pp, dd);
    if (clnorm__contains_nocase(spec, "cpu") && strlen(spec) == 3)
        return first_of_type(inv, CL_DEVICE_TYPE_CPU, pp, dd);
    if (clnorm__contains_nocase(spec, "accelerator") && strlen(spec) == 11)
        return first_of_type(inv, CL_DEVICE_TYPE_ACCELERATOR, pp, dd);

    char plat[256];
    const char *colon = strchr(spec, ':');
    size_t plen = colon ? (size_t)(colon - spec) : strlen(spec);
    if (plen >= sizeof plat)
        return false;
    memcpy(plat, spec, plen);
    plat[plen] = '\0';
    const char *dev = colon ? colon + 1 : NULL;

    if (all_digits(plat)) { /* "<platform index>:<device index>" or "<platform index>" */
        unsigned long p = strtoul(plat, NULL, 10);
        if (p >= inv->nplat)
            return false;
        *pp = (cl_uint)p;
        return pick_in_platform(inv, *pp, dev, dd);
    }
    char name[256], vendor[256];
    for (cl_uint p = 0; p < inv->nplat; ++p) {
        platform_text(inv->plat[p], CL_PLATFORM_NAME, name, sizeof name);
        platform_text(inv->plat[p], CL_PLATFORM_VENDOR, vendor, sizeof vendor);
        if ((clnorm__contains_nocase(name, plat) || clnorm__contains_nocase(vendor, plat)) && pick_in_platform(inv, p, dev, dd)) {
            *pp = p;
            return true;
        }
    }
    if (!colon) /* a device-name substring across all platforms ("H200", "skylake") */
        for (cl_uint p = 0; p < inv->nplat; ++p)
            for (cl_uint d = 0; d < inv->ndev[p]; ++d) {
                device_text(inv->dev[p][d], name, sizeof name);
                if (clnorm__contains_nocase(name, spec)) {
                    *pp = p;
                    *dd = d;
                    return true;
                }
            }
    return false;
}

static clnorm_status not_found(const inventory *inv, const char *spec, const char *from)
{
    clnorm__fail(NULL, CLNORM_DEVICE_NOT_FOUND, "no OpenCL device matches %s '%s'; devices:", from, spec);
    if (inv->nplat == 0)
        clnorm__fail_append(" none (no OpenCL platform: is an ICD such as pocl-opencl-icd installed?)");
    char line[700], pname[256], dname[256];
    for (cl_uint p = 0; p < inv->nplat; ++p) {
        platform_text(inv->plat[p], CL_PLATFORM_NAME, pname, sizeof pname);
        for (cl_uint d = 0; d < inv->ndev[p]; ++d) {
            device_text(inv->dev[p][d], dname, sizeof dname);
            cl_device_type t = device_type(inv->dev[p][d]);
            snprintf(line, sizeof line, " [%u:%u] %s (%s, platform '%s');", p, d, dname,
                     (t & CL_DEVICE_TYPE_GPU) ? "GPU" : (t & CL_DEVICE_TYPE_CPU) ? "CPU"
                     : (t & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator" : "other", pname);
            clnorm__fail_append(line);
        }
    }
    return CLNORM_DEVICE_NOT_FOUND;
}

clnorm_status clnorm__select(const char *spec, cl_platform_id *platform, cl_device_id *device)
{
    const char *from = "the device spec";
    if (!spec) {
        spec = getenv("CLNORM_DEVICE");
        from = "CLNORM_DEVICE";
        if (!spec) {
            spec = "";
            from = "the default policy";
        }
    }
    if (!*spec)
        from = "the default policy";
    inventory inv;
    if (!take_inventory(&inv))
        return clnorm__fail(NULL, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
    cl_uint p = 0, d = 0;
    clnorm_status st = CLNORM_SUCCESS;
    if (!resolve(&inv, spec, &p, &d)) {
        st = not_found(&inv, spec, from);
    } else {
        if (platform)
            *platform = inv.plat[p];
        if (device)
            *device = inv.dev[p][d];
    }
    release_inventory(&inv);
    return st;
}

clnorm_status clnorm_select_device(const char *device_spec, cl_platform_id *platform, cl_device_id *device)
{
    clnorm__clear_error(NULL);
    return clnorm__select(device_spec, platform, device);
}
