/* clnorm-bench — the benchmark's own kernels, kept as a C string so the executable needs no files
 * at run time. OpenCL C 1.2 only: half is used through vload_half/vstore_half (no cl_khr_fp16). */
#include "bench_kernels.h"

#include <stdio.h>
#include <stdlib.h>

static const char BENCH_CL_SOURCE[] =
    "/* Time origin of a measured sequence: an in-order queue starts the next command after it. */\n"
    "__kernel void stamp(void) {}\n"
    "\n"
    "/* The bandwidth yardstick: one float4 per work-item, no loop, as fast as a copy gets. */\n"
    "__kernel void copy_f4(__global const float4 *restrict in, __global float4 *restrict out)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = in[i];\n"
    "}\n"
    "\n"
    "/* Unfused baseline dx += dres: 4 elements per work-item, the last item takes the tail. */\n"
    "inline float4 bf16x4_to_float(ushort4 v) { return as_float4(convert_uint4(v) << 16); }\n"
    "inline float bf16_to_float(ushort v) { return as_float((uint)v << 16); }\n"
    "/* Round to nearest even; NaN stays NaN (same rule as the library's stores). */\n"
    "inline ushort4 float_to_bf16x4(float4 f)\n"
    "{\n"
    "    uint4 u = as_uint4(f);\n"
    "    uint4 r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;\n"
    "    r = select(r, (u >> 16) | 0x40u, as_uint4(isnan(f)));\n"
    "    return convert_ushort4(r);\n"
    "}\n"
    "inline ushort float_to_bf16(float f)\n"
    "{\n"
    "    uint u = as_uint(f);\n"
    "    return isnan(f) ? (ushort)((u >> 16) | 0x40u) : (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);\n"
    "}\n"
    "\n"
    "__kernel void add_f32(__global float *dst, __global const float *src, ulong n)\n"
    "{\n"
    "    ulong i = get_global_id(0);\n"
    "    if (4 * i + 4 <= n) {\n"
    "        ((__global float4 *)dst)[i] += ((__global const float4 *)src)[i];\n"
    "    } else {\n"
    "        for (ulong j = 4 * i; j < n; ++j)\n"
    "            dst[j] += src[j];\n"
    "    }\n"
    "}\n"
    "\n"
    "__kernel void add_bf16(__global ushort *dst, __global const ushort *src, ulong n)\n"
    "{\n"
    "    ulong i = get_global_id(0);\n"
    "    if (4 * i + 4 <= n) {\n"
    "        __global ushort4 *d = (__global ushort4 *)dst;\n"
    "        d[i] = float_to_bf16x4(bf16x4_to_float(d[i]) + bf16x4_to_float(((__global const ushort4 *)src)[i]));\n"
    "    } else {\n"
    "        for (ulong j = 4 * i; j < n; ++j)\n"
    "            dst[j] = float_to_bf16(bf16_to_float(dst[j]) + bf16_to_float(src[j]));\n"
    "    }\n"
    "}\n"
    "\n"
    "__kernel void add_f16(__global half *dst, __global const half *src, ulong n)\n"
    "{\n"
    "    ulong i = get_global_id(0);\n"
    "    if (4 * i + 4 <= n) {\n"
    "        vstore_half4_rte(vload_half4(i, dst) + vload_half4(i, src), i, dst);\n"
    "    } else {\n"
    "        for (ulong j = 4 * i; j < n; ++j)\n"
    "            vstore_half_rte(vload_half(j, dst) + vload_half(j, src), j, dst);\n"
    "    }\n"
    "}\n";

static const char *const ADD_KERNEL_NAMES[3] = {"add_f32", "add_bf16", "add_f16"};

static void print_build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    char *log;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS || size == 0)
        return;
    log = malloc(size + 1);
    if (!log)
        return;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS) {
        log[size] = '\0';
        fprintf(stderr, "clnorm-bench: build log of the benchmark kernels:\n%s\n", log);
    }
    free(log);
}

cl_int bench_kernels_create(cl_context context, cl_device_id device, bench_kernels *k)
{
    const char *src = BENCH_CL_SOURCE;
    cl_int err;
    int i;

    k->program = NULL;
    k->stamp = k->copy_f4 = NULL;
    k->add[0] = k->add[1] = k->add[2] = NULL;

    k->program = clCreateProgramWithSource(context, 1, &src, NULL, &err);
    if (err != CL_SUCCESS)
        return err;
    err = clBuildProgram(k->program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        print_build_log(k->program, device);
        bench_kernels_release(k);
        return err;
    }
    k->stamp = clCreateKernel(k->program, "stamp", &err);
    if (err == CL_SUCCESS)
        k->copy_f4 = clCreateKernel(k->program, "copy_f4", &err);
    for (i = 0; i < 3 && err == CL_SUCCESS; ++i)
        k->add[i] = clCreateKernel(k->program, ADD_KERNEL_NAMES[i], &err);
    if (err != CL_SUCCESS)
        bench_kernels_release(k);
    return err;
}

void bench_kernels_release(bench_kernels *k)
{
    int i;
    for (i = 0; i < 3; ++i)
        if (k->add[i])
            clReleaseKernel(k->add[i]);
    if (k->copy_f4)
        clReleaseKernel(k->copy_f4);
    if (k->stamp)
        clReleaseKernel(k->stamp);
    if (k->program)
        clReleaseProgram(k->program);
    k->program = NULL;
    k->stamp = k->copy_f4 = NULL;
    k->add[0] = k->add[1] = k->add[2] = NULL;
}

cl_int bench_enqueue_copy(cl_command_queue q, const bench_kernels *k, cl_mem in, cl_mem out, size_t bytes,
    cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    size_t global = bytes / 16, local = 256;
    cl_int err;
    if (bytes == 0 || bytes % BENCH_COPY_GRANULE != 0)
        return CL_INVALID_VALUE;
    err = clSetKernelArg(k->copy_f4, 0, sizeof in, &in);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k->copy_f4, 1, sizeof out, &out);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q, k->copy_f4, 1, NULL, &global, &local, nwait, wait, ev);
    return err;
}

cl_int bench_enqueue_add(cl_command_queue q, const bench_kernels *k, clnorm_dtype dt, cl_mem dst, cl_mem src,
    size_t n, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
    size_t items = (n + 3) / 4, local = 256, global = (items + local - 1) / local * local;
    cl_ulong n64 = n;
    cl_kernel kern;
    cl_int err;
    if ((unsigned)dt > 2u || n == 0)
        return CL_INVALID_VALUE;
    kern = k->add[dt];
    err = clSetKernelArg(kern, 0, sizeof dst, &dst);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kern, 1, sizeof src, &src);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(kern, 2, sizeof n64, &n64);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(q, kern, 1, NULL, &global, &local, nwait, wait, ev);
    return err;
}

cl_int bench_enqueue_stamp(cl_command_queue q, const bench_kernels *k, cl_uint nwait, const cl_event *wait,
    cl_event *ev)
{
    size_t one = 1;
    return clEnqueueNDRangeKernel(q, k->stamp, 1, NULL, &one, &one, nwait, wait, ev);
}
