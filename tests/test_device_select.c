/* Device choice: every spec form picks what it says on whatever this machine has, computed here
 * independently from the OpenCL inventory. Specs whose target is absent must fail with
 * CLNORM_DEVICE_NOT_FOUND (on CI, with PoCL alone, "gpu" and "nvidia" must fail), so no case
 * passes vacuously. On the GPU machine with GPU_ENV_POCL=1 both platforms are visible. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAXP 16
#define MAXD 64

static cl_uint nplat;
static cl_platform_id plat[MAXP];
static cl_uint ndev[MAXP];
static cl_device_id dev[MAXP][MAXD];

static void inventory(void)
{
    ck_assert_msg(clGetPlatformIDs(MAXP, plat, &nplat) == CL_SUCCESS && nplat > 0, "no OpenCL platform");
    if (nplat > MAXP)
        nplat = MAXP;
    cl_uint total = 0;
    for (cl_uint p = 0; p < nplat; ++p) {
        if (clGetDeviceIDs(plat[p], CL_DEVICE_TYPE_ALL, MAXD, dev[p], &ndev[p]) != CL_SUCCESS)
            ndev[p] = 0;
        if (ndev[p] > MAXD)
            ndev[p] = MAXD;
        total += ndev[p];
    }
    ck_assert_msg(total > 0, "no OpenCL device");
}

static void lower(char *s)
{
    for (; *s; ++s)
        *s = (char)tolower((unsigned char)*s);
}

static void platform_str(cl_platform_id p, cl_platform_info what, char *buf, size_t n)
{
    CL_OK(clGetPlatformInfo(p, what, n, buf, NULL));
    lower(buf);
}

static void device_name(cl_device_id d, char *buf, size_t n)
{
    CL_OK(clGetDeviceInfo(d, CL_DEVICE_NAME, n, buf, NULL));
}

static cl_device_id first_of_type(cl_device_type t)
{
    for (cl_uint p = 0; p < nplat; ++p)
        for (cl_uint d = 0; d < ndev[p]; ++d) {
            cl_device_type dt;
            CL_OK(clGetDeviceInfo(dev[p][d], CL_DEVICE_TYPE, sizeof dt, &dt, NULL));
            if (dt & t)
                return dev[p][d];
        }
    return NULL;
}

/* Asserts that spec selects `want`, or fails with CLNORM_DEVICE_NOT_FOUND when want is NULL. */
static void expect(const char *spec, cl_device_id want)
{
    cl_device_id got = NULL;
    cl_platform_id gp = NULL;
    clnorm_status st = clnorm_select_device(spec, &gp, &got);
    if (want) {
        ck_assert_msg(st == CLNORM_SUCCESS, "spec '%s': %s: %s", spec, clnorm_status_string(st),
                      clnorm_context_last_error(NULL));
        char a[256], b[256];
        device_name(got, a, sizeof a);
        device_name(want, b, sizeof b);
        ck_assert_msg(got == want, "spec '%s' picked '%s', expected '%s'", spec, a, b);
        cl_platform_id owner;
        CL_OK(clGetDeviceInfo(got, CL_DEVICE_PLATFORM, sizeof owner, &owner, NULL));
        ck_assert_msg(owner == gp, "spec '%s': platform returned is not the device's", spec);
    } else {
        ck_assert_msg(st == CLNORM_DEVICE_NOT_FOUND, "spec '%s' should match nothing here, got %s", spec,
                      clnorm_status_string(st));
        ck_assert_msg(strlen(clnorm_context_last_error(NULL)) > 0, "spec '%s': no message", spec);
    }
}

START_TEST(test_indices)
{
    inventory();
    char spec[32];
    for (cl_uint p = 0; p < nplat; ++p) {
        for (cl_uint d = 0; d < ndev[p]; ++d) {
            snprintf(spec, sizeof spec, "%u:%u", p, d);
            expect(spec, dev[p][d]);
        }
        snprintf(spec, sizeof spec, "%u:%u", p, ndev[p]); /* one past the last device */
        expect(spec, NULL);
    }
    snprintf(spec, sizeof spec, "%u:0", nplat);
    expect(spec, NULL);
}
END_TEST

START_TEST(test_types_and_default)
{
    inventory();
    cl_device_id gpu = first_of_type(CL_DEVICE_TYPE_GPU), cpu = first_of_type(CL_DEVICE_TYPE_CPU);
    cl_device_id acc = first_of_type(CL_DEVICE_TYPE_ACCELERATOR);
    expect("gpu", gpu);
    expect("GPU", gpu);
    expect("cpu", cpu);
    expect("accelerator", acc);
    expect("", gpu ? gpu : acc ? acc : cpu); /* the default policy */
}
END_TEST

START_TEST(test_platform_names)
{
    inventory();
    /* the documented vendor words, whether or not their platform is here */
    const char *words[] = {"nvidia", "pocl", "portable"};
    char name[256], vendor[256], spec[600];
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i) {
        cl_device_id want = NULL;
        for (cl_uint p = 0; p < nplat && !want; ++p) {
            platform_str(plat[p], CL_PLATFORM_NAME, name, sizeof name);
            platform_str(plat[p], CL_PLATFORM_VENDOR, vendor, sizeof vendor);
            if ((strstr(name, words[i]) || strstr(vendor, words[i])) && ndev[p] > 0)
                want = dev[p][0];
        }
        expect(words[i], want);
    }
    /* each platform by the first word of its name, with ":<index>" and ":<name substring>" */
    for (cl_uint p = 0; p < nplat; ++p) {
        platform_str(plat[p], CL_PLATFORM_NAME, name, sizeof name);
        char *sp = strchr(name, ' ');
        if (sp)
            *sp = '\0';
        cl_uint first = p; /* an earlier platform with the same first word wins */
        for (cl_uint q = 0; q < p; ++q) {
            char other[256];
            platform_str(plat[q], CL_PLATFORM_NAME, other, sizeof other);
            if (strstr(other, name) && ndev[q] > 0) {
                first = q;
                break;
            }
        }
        if (first != p || ndev[p] == 0)
            continue;
        expect(name, dev[p][0]);
        for (cl_uint d = 0; d < ndev[p]; ++d) {
            snprintf(spec, sizeof spec, "%s:%u", name, d);
            expect(spec, dev[p][d]);
        }
        char dname[256];
        device_name(dev[p][ndev[p] - 1], dname, sizeof dname);
        cl_device_id want = NULL; /* first device of the platform whose name contains dname */
        for (cl_uint d = 0; d < ndev[p] && !want; ++d) {
            char n2[256];
            device_name(dev[p][d], n2, sizeof n2);
            if (strstr(n2, dname))
                want = dev[p][d];
        }
        snprintf(spec, sizeof spec, "%s:%s", name, dname);
        expect(spec, want);
    }
}
END_TEST

START_TEST(test_device_name_substring)
{
    inventory();
    char name[256];
    device_name(dev[nplat - 1][0], name, sizeof name);
    /* the whole name of the last platform's first device, mixed case: the first device (in
     * platform order) whose name contains it */
    cl_device_id want = NULL;
    for (cl_uint p = 0; p < nplat && !want; ++p)
        for (cl_uint d = 0; d < ndev[p] && !want; ++d) {
            char n2[256];
            device_name(dev[p][d], n2, sizeof n2);
            if (strstr(n2, name))
                want = dev[p][d];
        }
    /* unless a platform's name or vendor contains it, which is tried first */
    for (cl_uint p = 0; p < nplat; ++p) {
        char pn[256], pv[256], ln[256];
        platform_str(plat[p], CL_PLATFORM_NAME, pn, sizeof pn);
        platform_str(plat[p], CL_PLATFORM_VENDOR, pv, sizeof pv);
        snprintf(ln, sizeof ln, "%s", name);
        lower(ln);
        ck_assert_msg(!strstr(pn, ln) && !strstr(pv, ln), "device name is also a platform name; pick another");
    }
    expect(name, want);
}
END_TEST

/* The type words match only whole ("cpu", not "cpux" or "xcpu"): a longer spec is a platform or
 * device name, and matches nothing here unless some name contains it. */
START_TEST(test_type_words_whole)
{
    inventory();
    const char *specs[] = {"cpux", "xcpu", "gpux", "xgpu", "acceleratorx"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i) {
        int named = 0;
        for (cl_uint p = 0; p < nplat; ++p) {
            char pn[256], pv[256];
            platform_str(plat[p], CL_PLATFORM_NAME, pn, sizeof pn);
            platform_str(plat[p], CL_PLATFORM_VENDOR, pv, sizeof pv);
            named |= strstr(pn, specs[i]) || strstr(pv, specs[i]);
            for (cl_uint d = 0; d < ndev[p]; ++d) {
                char dn[256];
                device_name(dev[p][d], dn, sizeof dn);
                lower(dn);
                named |= strstr(dn, specs[i]) != NULL;
            }
        }
        if (!named)
            expect(specs[i], NULL);
    }
}
END_TEST

START_TEST(test_unknown_spec_lists_devices)
{
    inventory();
    cl_device_id d = NULL;
    ck_assert_int_eq(clnorm_select_device("no-such-device-xyz", NULL, &d), CLNORM_DEVICE_NOT_FOUND);
    const char *msg = clnorm_context_last_error(NULL);
    for (cl_uint p = 0; p < nplat; ++p)
        for (cl_uint i = 0; i < ndev[p]; ++i) {
            char name[256];
            device_name(dev[p][i], name, sizeof name);
            ck_assert_msg(strstr(msg, name), "the message does not list '%s': %s", name, msg);
        }
    clnorm_context *ctx = (clnorm_context *)1;
    ck_assert_int_eq(clnorm_context_create("no-such-device-xyz", &ctx), CLNORM_DEVICE_NOT_FOUND);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(clnorm_context_last_error(NULL), "no-such-device-xyz"));
}
END_TEST

START_TEST(test_environment_variable)
{
    inventory();
    char *saved = save_env("CLNORM_DEVICE");
    char spec[32];
    const cl_uint p = nplat - 1, d = ndev[p] ? ndev[p] - 1 : 0;
    snprintf(spec, sizeof spec, "%u:%u", p, d);
    setenv("CLNORM_DEVICE", spec, 1);
    expect(NULL, ndev[p] ? dev[p][d] : NULL);
    clnorm_context *ctx = NULL;
    if (ndev[p]) {
        CLNORM_OK(NULL, clnorm_context_create(NULL, &ctx));
        ck_assert_ptr_eq(clnorm_context_device(ctx), dev[p][d]);
        clnorm_context_release(ctx);
    }
    setenv("CLNORM_DEVICE", "no-such-device-xyz", 1);
    expect(NULL, NULL);
    ck_assert_ptr_nonnull(strstr(clnorm_context_last_error(NULL), "CLNORM_DEVICE"));
    unsetenv("CLNORM_DEVICE");
    cl_device_id gpu = first_of_type(CL_DEVICE_TYPE_GPU), acc = first_of_type(CL_DEVICE_TYPE_ACCELERATOR);
    expect(NULL, gpu ? gpu : acc ? acc : first_of_type(CL_DEVICE_TYPE_CPU));
    restore_env("CLNORM_DEVICE", saved);
}
END_TEST

/* Specs that cannot be taken whole: an index past cl_uint (not wrapped to a small one), a
 * platform part longer than any name (not copied past its buffer) */
START_TEST(test_oversized_specs)
{
    inventory();
    expect("0:4294967296", NULL);       /* 2^32: device 0 if cut to 32 bits */
    expect("4294967296", NULL);         /* platform 2^32 */
    expect("4294967296:0", NULL);
    char spec[1100];
    memset(spec, 'x', sizeof spec - 1);
    spec[sizeof spec - 1] = '\0';
    expect(spec, NULL);
    spec[600] = ':';                    /* a 600-character platform part, then a device */
    expect(spec, NULL);
}
END_TEST

/* "" is the default policy alone, whatever CLNORM_DEVICE says; a successful selection clears the
 * message of an earlier failure */
START_TEST(test_empty_spec_ignores_environment)
{
    inventory();
    char *saved = save_env("CLNORM_DEVICE");
    setenv("CLNORM_DEVICE", "no-such-device-xyz", 1);
    cl_device_id gpu = first_of_type(CL_DEVICE_TYPE_GPU), acc = first_of_type(CL_DEVICE_TYPE_ACCELERATOR);
    expect("", gpu ? gpu : acc ? acc : first_of_type(CL_DEVICE_TYPE_CPU));
    ck_assert_str_eq(clnorm_context_last_error(NULL), "");
    expect(NULL, NULL); /* the variable itself still counts for NULL */
    ck_assert_int_eq(clnorm_select_device("0:0", NULL, NULL), ndev[0] ? CLNORM_SUCCESS : CLNORM_DEVICE_NOT_FOUND);
    if (ndev[0])
        ck_assert_str_eq(clnorm_context_last_error(NULL), "");
    restore_env("CLNORM_DEVICE", saved);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("device_select");
    TCase *tc = tcase_create("select");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_indices);
    tcase_add_test(tc, test_types_and_default);
    tcase_add_test(tc, test_platform_names);
    tcase_add_test(tc, test_device_name_substring);
    tcase_add_test(tc, test_type_words_whole);
    tcase_add_test(tc, test_unknown_spec_lists_devices);
    tcase_add_test(tc, test_environment_variable);
    tcase_add_test(tc, test_oversized_specs);
    tcase_add_test(tc, test_empty_spec_ignores_environment);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
