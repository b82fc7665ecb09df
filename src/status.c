/* clnorm — status names and messages, and the version. */
#include "internal.h"

/* OpenCL's own codes by name, so a passed-through error reads as itself. */
#define CLNORM_CL_ERRORS(X)                                                                              \
    X(CL_DEVICE_NOT_FOUND) X(CL_DEVICE_NOT_AVAILABLE) X(CL_COMPILER_NOT_AVAILABLE)                         \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE) X(CL_OUT_OF_RESOURCES) X(CL_OUT_OF_HOST_MEMORY)                    \
    X(CL_PROFILING_INFO_NOT_AVAILABLE) X(CL_MEM_COPY_OVERLAP) X(CL_IMAGE_FORMAT_MISMATCH)                 \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED) X(CL_BUILD_PROGRAM_FAILURE) X(CL_MAP_FAILURE)                        \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET) X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                   \
    X(CL_COMPILE_PROGRAM_FAILURE) X(CL_LINKER_NOT_AVAILABLE) X(CL_LINK_PROGRAM_FAILURE)                   \
    X(CL_DEVICE_PARTITION_FAILED) X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) X(CL_INVALID_VALUE)                 \
    X(CL_INVALID_DEVICE_TYPE) X(CL_INVALID_PLATFORM) X(CL_INVALID_DEVICE) X(CL_INVALID_CONTEXT)           \
    X(CL_INVALID_QUEUE_PROPERTIES) X(CL_INVALID_COMMAND_QUEUE) X(CL_INVALID_HOST_PTR)                    \
    X(CL_INVALID_MEM_OBJECT) X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) X(CL_INVALID_IMAGE_SIZE)               \
    X(CL_INVALID_SAMPLER) X(CL_INVALID_BINARY) X(CL_INVALID_BUILD_OPTIONS) X(CL_INVALID_PROGRAM)          \
    X(CL_INVALID_PROGRAM_EXECUTABLE) X(CL_INVALID_KERNEL_NAME) X(CL_INVALID_KERNEL_DEFINITION)            \
    X(CL_INVALID_KERNEL) X(CL_INVALID_ARG_INDEX) X(CL_INVALID_ARG_VALUE) X(CL_INVALID_ARG_SIZE)           \
    X(CL_INVALID_KERNEL_ARGS) X(CL_INVALID_WORK_DIMENSION) X(CL_INVALID_WORK_GROUP_SIZE)                  \
    X(CL_INVALID_WORK_ITEM_SIZE) X(CL_INVALID_GLOBAL_OFFSET) X(CL_INVALID_EVENT_WAIT_LIST)                \
    X(CL_INVALID_EVENT) X(CL_INVALID_OPERATION) X(CL_INVALID_GL_OBJECT) X(CL_INVALID_BUFFER_SIZE)         \
    X(CL_INVALID_MIP_LEVEL) X(CL_INVALID_GLOBAL_WORK_SIZE) X(CL_INVALID_PROPERTY)                         \
    X(CL_INVALID_IMAGE_DESCRIPTOR) X(CL_INVALID_COMPILER_OPTIONS) X(CL_INVALID_LINKER_OPTIONS)            \
    X(CL_INVALID_DEVICE_PARTITION_COUNT)

const char *clnorm__cl_error_name(cl_int code)
{
    switch (code) {
#define CLNORM_X_CASE(name) case name: return #name;
        CLNORM_CL_ERRORS(CLNORM_X_CASE)
#undef CLNORM_X_CASE
    /* (OpenCL 2.x / 3.0 codes: their macros are not defined at CL_TARGET_OPENCL_VERSION 120, but
     * a newer driver under the caller's queue may return them) */
    case -69: return "CL_INVALID_PIPE_SIZE";
    case -70: return "CL_INVALID_DEVICE_QUEUE";
    case -71: return "CL_INVALID_SPEC_ID";
    case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return NULL;
    }
}

const char *clnorm_status_string(clnorm_status status)
{
    switch (status) {
    case CLNORM_SUCCESS: return "CLNORM_SUCCESS: success";
#define CLNORM_X_CASE(name, value, message) case name: return #name ": " message;
        CLNORM_STATUS_TABLE(CLNORM_X_CASE)
#undef CLNORM_X_CASE
    default: break;
    }
    const char *cl = clnorm__cl_error_name(status);
    return cl ? cl : "unknown status";
}

unsigned clnorm_version(void) { return CLNORM_VERSION_NUMBER; }
