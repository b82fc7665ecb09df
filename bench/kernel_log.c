/* clnorm-kernel-log — a developer's tool: builds cl/kernel_args.h + cl/common.cl + one kernel file with the given
 * options on the device clnorm would pick (CLNORM_DEVICE, else the default policy) and prints the
 * compiler's log; optionally writes the program binary (PTX on NVIDIA). With NVIDIA's
 * `-cl-nv-verbose` the log holds each kernel's register count and spills, which is how the
 * register cost of a launch shape is read (docs/PERFORMANCE.md). Not installed.
 *
 *   clnorm-kernel-log CL_DIR FILE.cl "OPTIONS" [BINARY_OUT]
 *   e.g. clnorm-kernel-log cl cl/backward.cl "-cl-nv-verbose -DPACKED_ARGS -DVEC=4 -DTPR=128 -DRPW=2 -DNCACHE=2 -DNACC=2"
 *   (-DPACKED_ARGS as the library builds for NVIDIA; CLNORM_BUILD_LOG=1 prints every option a
 *   call's variant takes) */
#include <clnorm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = malloc((size_t)len + 1)) || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "clnorm-kernel-log: cannot read %s\n", path);
        free(buf);
        buf = NULL;
    } else {
        buf[len] = '\0';
        *n = (size_t)len;
    }
    if (f)
        fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: clnorm-kernel-log CL_DIR FILE.cl \"OPTIONS\" [BINARY_OUT]\n");
        return 2;
    }
    cl_platform_id platform;
    cl_device_id device;
    clnorm_status st = clnorm_select_device(NULL, &platform, &device);
    if (st != CLNORM_SUCCESS) {
        fprintf(stderr, "clnorm-kernel-log: %s: %s\n", clnorm_status_string(st), clnorm_context_last_error(NULL));
        return 1;
    }
    /* as the library assembles a program: the argument slots' names, the helpers, the kernel */
    char args[4096], common[4096];
    if ((size_t)snprintf(args, sizeof args, "%s/kernel_args.h", argv[1]) >= sizeof args ||
        (size_t)snprintf(common, sizeof common, "%s/common.cl", argv[1]) >= sizeof common) {
        fprintf(stderr, "clnorm-kernel-log: CL_DIR is too long (%zu characters)\n", strlen(argv[1]));
        return 2;
    }
    size_t len[3] = {0, 0, 0};
    char *src[3] = {slurp(args, &len[0]), slurp(common, &len[1]), slurp(argv[2], &len[2])};
    cl_int err = CL_SUCCESS;
    cl_context ctx = NULL;
    cl_program prog = NULL;
    int rc = 1;
    if (!src[0] || !src[1] || !src[2])
        goto out;
    ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        prog = clCreateProgramWithSource(ctx, 3, (const char **)src, len, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clnorm-kernel-log: %s\n", clnorm_status_string(err));
        goto out;
    }
    cl_int build = clBuildProgram(prog, 1, &device, argv[3], NULL, NULL);
    size_t n = 0;
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = '\0';
        printf("%s %s: %s\n%s\n", argv[2], argv[3], clnorm_status_string(build), log);
    }
    free(log);
    rc = build != CL_SUCCESS;
    if (build == CL_SUCCESS && argc == 5) {
        size_t bytes = 0;
        unsigned char *bin = NULL;
        if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, NULL) == CL_SUCCESS &&
            (bin = malloc(bytes ? bytes : 1)) &&
            clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS) {
            FILE *f = fopen(argv[4], "wb");
            rc = !f || fwrite(bin, 1, bytes, f) != bytes;
            if (f)
                fclose(f);
        } else {
            rc = 1;
        }
        if (rc)
            fprintf(stderr, "clnorm-kernel-log: writing the binary to %s failed\n", argv[4]);
        free(bin);
    }
out:
    if (prog)
        clReleaseProgram(prog);
    if (ctx)
        clReleaseContext(ctx);
    free(src[0]);
    free(src[1]);
    free(src[2]);
    return rc;
}
