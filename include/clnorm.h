/*
 * clnorm — LayerNorm forward and backward (with a fused residual gradient) as OpenCL C kernels,
 * driven by a small C host library.
 *
 * One header, one library. Everything here follows ../shared/API.md (the contract):
 *   - functions are prefixed clnorm_, macros and enum values CLNORM_;
 *   - every size, offset and stride is counted in elements (size_t); device index math is 64-bit;
 *   - optional arguments are pointers, NULL meaning "absent";
 *   - each operation only enqueues on the context's queue and never blocks;
 *   - on any error nothing is enqueued, no output is touched, and clnorm_context_last_error()
 *     explains the failure in one line (the compiler log follows for build failures).
 *
 * Thread safety: every function may be called from several threads at once, on one context or on
 * several. Error messages are kept per thread (see clnorm_context_last_error).
 *
 * Environment variables read by the library:
 *   CLNORM_DEVICE         device spec used when clnorm_context_create() gets NULL (see there).
 *   CLNORM_BUILD_OPTIONS  appended to the OpenCL compiler options of every program the library builds
 *                         (read when a context is created).
 *   CLNORM_DEVICE_CLASS   "gpu" or "cpu": use that row of the launch-parameter table whatever the
 *                         device is (how CI runs the GPU kernel shapes on a CPU).
 *   CLNORM_TUNE           overrides of the launch-parameter table for contexts created while it is
 *                         set, "key=value,..." with keys vec_bytes, shfl, fwd_tpr, fwd_target, fwd_wg,
 *                         fwd_ncache, bwd_tpr, bwd_target, bwd_wg, bwd_ncache, bwd_nacc, bwd_groups
 *                         (see src/params.c; clnorm-bench --tune searches them). A malformed value
 *                         makes context creation fail with CLNORM_INVALID_ENVIRONMENT.
 */
#ifndef CLNORM_H
#define CLNORM_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

#include "clnorm_version.h" /* CLNORM_VERSION_MAJOR/_MINOR/_PATCH, generated from CMake's project() */

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols are hidden by default; only what carries CLNORM_API is exported. */
#if defined(CLNORM_STATIC)
#define CLNORM_API
#elif defined(_WIN32)
#ifdef CLNORM_BUILDING
#define CLNORM_API __declspec(dllexport)
#else
#define CLNORM_API __declspec(dllimport)
#endif
#else
#define CLNORM_API __attribute__((visibility("default")))
#endif

#define CLNORM_VERSION_NUMBER (CLNORM_VERSION_MAJOR * 10000 + CLNORM_VERSION_MINOR * 100 + CLNORM_VERSION_PATCH)

/* ---------------------------------------------------------------------------------------------
 * Status codes.
 * clnorm_status is an int: CLNORM_SUCCESS (0), a negative OpenCL error code passed through
 * unchanged (CL_OUT_OF_RESOURCES, CL_INVALID_EVENT_WAIT_LIST, ...), or one of the library's own
 * codes below, all <= -10000 (Khronos reserves 0..-9999).
 * The table generates the enum values, their names and their messages together.
 * ------------------------------------------------------------------------------------------- */
#define CLNORM_STATUS_TABLE(X)                                                                        \
    X(CLNORM_NULL_ARGUMENT, -10001, "a required argument (context, view or output pointer) is NULL") \
    X(CLNORM_NULL_BUFFER, -10002, "a view given has a NULL cl_mem buffer")                           \
    X(CLNORM_INVALID_SHAPE, -10003, "invalid shape: cols must be >= 1 and the sizes must fit size_t") \
    X(CLNORM_INVALID_STRIDE, -10004, "row_stride is neither 0 (dense) nor >= cols")                  \
    X(CLNORM_OUT_OF_BOUNDS, -10005, "a view does not fit inside its buffer")                         \
    X(CLNORM_INVALID_STATS_DTYPE, -10006, "mean and rstd must be CLNORM_F32")                        \
    X(CLNORM_INVALID_DTYPE, -10007, "unknown dtype")                                                 \
    X(CLNORM_INVALID_EPS, -10008, "eps must be finite and >= 0")                                     \
    X(CLNORM_OVERLAP, -10009, "an output overlaps an input or another output")                       \
    X(CLNORM_DEVICE_NOT_FOUND, -10010, "no OpenCL device matches the device spec")                   \
    X(CLNORM_BUILD_FAILED, -10011, "an OpenCL program failed to build")                              \
    X(CLNORM_OUT_OF_HOST_MEMORY, -10012, "host memory allocation failed")                            \
    X(CLNORM_INVALID_BUFFER, -10013, "a cl_mem is not a buffer of the context's cl_context")         \
    X(CLNORM_UNSUPPORTED_DEVICE, -10014, "the device lacks something the library needs")             \
    X(CLNORM_INVALID_ENVIRONMENT, -10015, "an environment variable read by clnorm has an invalid value")

typedef int clnorm_status;

enum {
    CLNORM_SUCCESS = 0,
#define CLNORM_X_ENUM(name, value, message) name = value,
    CLNORM_STATUS_TABLE(CLNORM_X_ENUM)
#undef CLNORM_X_ENUM
};

/* Name of a status ("CLNORM_OUT_OF_BOUNDS", "CL_INVALID_VALUE", ...) followed by a short
 * description for the library's own codes. Never NULL; unknown codes give "unknown status". */
CLNORM_API const char *clnorm_status_string(clnorm_status status);

/* major*10000 + minor*100 + patch of the library actually linked (compare with CLNORM_VERSION_NUMBER). */
CLNORM_API unsigned clnorm_version(void);

/* ---------------------------------------------------------------------------------------------
 * Tensor views.
 * ------------------------------------------------------------------------------------------- */
/* Storage type of one tensor. Math is always fp32. BF16 travels as 16-bit words (the top half of
 * an IEEE float); stores round to nearest even and keep NaN a NaN. F16 stores round to nearest even. */
typedef enum clnorm_dtype { CLNORM_F32 = 0, CLNORM_BF16 = 1, CLNORM_F16 = 2 } clnorm_dtype;

/* rows x cols elements, row-major, unit column stride. row_stride 0 means cols (dense).
 * Element (r, c) is at buffer[offset + r*row_stride + c], counted in elements of dtype. */
typedef struct clnorm_matrix {
    cl_mem buffer;
    size_t offset;
    size_t row_stride;
    clnorm_dtype dtype;
} clnorm_matrix;

/* A vector of cols (weight, bias, dweight, dbias) or rows (mean, rstd) elements at buffer[offset]. */
typedef struct clnorm_vector {
    cl_mem buffer;
    size_t offset;
    clnorm_dtype dtype;
} clnorm_vector;

/* ---------------------------------------------------------------------------------------------
 * Context: a device, a queue, the programs built for it (cached) and the backward's workspace.
 * ------------------------------------------------------------------------------------------- */
typedef struct clnorm_context clnorm_context; /* opaque */

/* Creates a context with its own cl_context and in-order queue (profiling enabled).
 * device_spec: NULL -> the CLNORM_DEVICE environment variable -> the default policy
 * (first GPU of any platform, else first accelerator, else first CPU). Spec forms:
 *   "gpu" | "cpu" | "accelerator"           first device of that type;
 *   "<text>" or "<text>:<dev>"              platform whose name or vendor contains <text>
 *                                            (case-insensitive: "nvidia", "pocl", "portable"),
 *                                            then device index <dev> or the first device whose
 *                                            name contains <dev>; without ":<dev>", device 0;
 *   "<platform index>:<device index>"       e.g. "0:1".
 * No match -> CLNORM_DEVICE_NOT_FOUND and clnorm_context_last_error(NULL) lists the devices. */
CLNORM_API clnorm_status clnorm_context_create(const char *device_spec, clnorm_context **ctx);

/* Resolves a device spec exactly as clnorm_context_create would, without creating anything.
 * device_spec NULL -> CLNORM_DEVICE -> default policy; "" -> the default policy alone (the
 * environment ignored). Writes the platform and device (either pointer may be NULL). No match ->
 * CLNORM_DEVICE_NOT_FOUND with the list of devices in clnorm_context_last_error(NULL). */
CLNORM_API clnorm_status clnorm_select_device(const char *device_spec, cl_platform_id *platform, cl_device_id *device);

/* Uses the caller's queue (and its cl_context and device). The queue is retained and released by
 * clnorm_context_release; nothing the library did not retain is released. The queue may be
 * in-order or out-of-order: the commands of one call are chained by events. */
CLNORM_API clnorm_status clnorm_context_create_from_queue(cl_command_queue queue, clnorm_context **ctx);

/* Releases the programs, the workspace and what the context retained. NULL is a no-op. */
CLNORM_API void clnorm_context_release(clnorm_context *ctx);

CLNORM_API cl_command_queue clnorm_context_queue(const clnorm_context *ctx);
CLNORM_API cl_context clnorm_context_cl_context(const clnorm_context *ctx);
CLNORM_API cl_device_id clnorm_context_device(const clnorm_context *ctx);
CLNORM_API const char *clnorm_context_device_name(const clnorm_context *ctx);

/* The one-line explanation of the last failed call made by the calling thread on ctx (ctx NULL:
 * on no context, e.g. a failed clnorm_context_create). "" when that call succeeded or there was
 * none. The text stays valid until the thread's next call into the library. */
CLNORM_API const char *clnorm_context_last_error(const clnorm_context *ctx);

/* ---------------------------------------------------------------------------------------------
 * LayerNorm.
 * Every call validates all arguments first; on error it returns a status, enqueues nothing and
 * touches no output. On success, *event (when event is not NULL) receives the event of the last
 * command enqueued — a marker when nothing had to run (rows == 0 in the forward) — and the caller
 * releases it. num_events_in_wait_list / event_wait_list are as in clEnqueueNDRangeKernel.
 * Outputs must not overlap inputs or each other except for the exact aliases allowed below.
 * ------------------------------------------------------------------------------------------- */

/* y = (x - mean) * rstd * weight + bias, with rstd = 1/sqrt(var + eps), var the biased variance
 * (divided by cols), computed in two passes in fp32. weight and bias (cols elements each) are
 * independent options. mean and rstd (CLNORM_F32, rows elements each) are written when given.
 * y may be exactly the same view as x (in place). eps must be finite and >= 0.
 * Required: ctx, x, y. */
CLNORM_API clnorm_status clnorm_layer_norm_forward(clnorm_context *ctx, size_t rows, size_t cols, float eps,
    const clnorm_matrix *x, const clnorm_vector *weight, const clnorm_vector *bias,
    const clnorm_matrix *y, const clnorm_vector *mean, const clnorm_vector *rstd,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

/* dx = rstd * (g - mean_c(g) - xhat * mean_c(g * xhat)) [+ dresidual], with g = dy * weight
 * (dy when weight is NULL) and xhat = (x - mean) * rstd, using the mean and rstd the forward saved.
 * The dresidual add happens in fp32 inside the dx kernel, before the single rounding to dx's
 * dtype. dresidual may be exactly the same view as dx (in-place accumulation).
 * dweight = sum_rows(dy * xhat) and dbias = sum_rows(dy) are written when given (also when
 * weight is NULL), reduced in a fixed order: bitwise identical from run to run on one device.
 * rows == 0 writes zeros to dweight/dbias.
 * Required: ctx, dy, x, mean, rstd, dx. The fp32 partial sums live in a workspace owned by the
 * context (grown on need, never shrunk); two calls using it never overlap on the device. */
CLNORM_API clnorm_status clnorm_layer_norm_backward(clnorm_context *ctx, size_t rows, size_t cols,
    const clnorm_matrix *dy, const clnorm_matrix *x, const clnorm_vector *weight,
    const clnorm_vector *mean, const clnorm_vector *rstd,
    const clnorm_matrix *dresidual,
    const clnorm_matrix *dx, const clnorm_vector *dweight, const clnorm_vector *dbias,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif
#endif /* CLNORM_H */
