/* clnorm-bench — the benchmark's own OpenCL kernels: a float4 copy (the bandwidth yardstick), the
 * elementwise add of the unfused baseline (dx += dres) and an empty "stamp" kernel used as the
 * time origin of a measured sequence (see timing.h). */
#ifndef CLNORM_BENCH_KERNELS_H
#define CLNORM_BENCH_KERNELS_H

#include <clnorm.h>

typedef struct bench_kernels {
    cl_program program;
    cl_kernel stamp;
    cl_kernel copy_f4;
    cl_kernel add[3]; /* indexed by clnorm_dtype */
} bench_kernels;

/* Builds the program for one device; on a build failure prints the log to stderr. */
cl_int bench_kernels_create(cl_context context, cl_device_id device, bench_kernels *k);
void bench_kernels_release(bench_kernels *k);

/* Byte granularity of bench_enqueue_copy: 256 work-items of one float4 each. */
#define BENCH_COPY_GRANULE ((size_t)256 * 16)

/* out[i] = in[i] over bytes (a multiple of BENCH_COPY_GRANULE), one float4 per work-item. */
cl_int bench_enqueue_copy(cl_command_queue q, const bench_kernels *k, cl_mem in, cl_mem out, size_t bytes,
    cl_uint nwait, const cl_event *wait, cl_event *ev);

/* dst[i] = dst[i] + src[i] for n elements of dtype dt (both at offset 0), fp32 math, one rounding. */
cl_int bench_enqueue_add(cl_command_queue q, const bench_kernels *k, clnorm_dtype dt, cl_mem dst, cl_mem src,
    size_t n, cl_uint nwait, const cl_event *wait, cl_event *ev);

/* A single work-item that does nothing: its END timestamp marks when the queue reached it. */
cl_int bench_enqueue_stamp(cl_command_queue q, const bench_kernels *k, cl_uint nwait, const cl_event *wait,
    cl_event *ev);

#endif
