/* clnorm — contexts: create (own cl_context and queue, or the caller's queue), query, release. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static clnorm_status finish_create(clnorm_context *c, clnorm_context **out)
{
    cl_int err = clnorm__query_device(c->device, &c->info);
    if (err != CL_SUCCESS) {
        clnorm_status st = clnorm__fail(NULL, err, "querying the device failed: %s", clnorm_status_string(err));
        clnorm_context_release(c);
        return st;
    }
    c->tuned = *clnorm__params_for(&c->info);
    clnorm__params_fit_host(&c->tuned, &c->info);
    clnorm__params_fit_device(&c->tuned, &c->info);
    c->params = &c->tuned;
    const char *tune = getenv("CLNORM_TUNE");
    if (tune && *tune) {
        clnorm_status st = clnorm__params_tune(&c->tuned, tune);
        if (st != CLNORM_SUCCESS) {
            clnorm_context_release(c);
            return st;
        }
    }
    const char *opt = getenv("CLNORM_BUILD_OPTIONS");
    if (opt && strlen(opt) > CLNORM_USER_OPTIONS_MAX) {
        clnorm_context_release(c);
        return clnorm__fail(NULL, CLNORM_INVALID_ENVIRONMENT, "CLNORM_BUILD_OPTIONS is %zu characters long: at most %d",
                            strlen(opt), CLNORM_USER_OPTIONS_MAX);
    }
    if (opt && *opt) {
        c->user_options = strdup(opt);
        if (!c->user_options) {
            clnorm_context_release(c);
            return clnorm__fail(NULL, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
        }
    }
    *out = c;
    return CLNORM_SUCCESS;
}

static clnorm_context *new_context(void)
{
    clnorm_context *c = calloc(1, sizeof *c);
    if (c && pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        c = NULL;
    }
    return c;
}

clnorm_status clnorm_context_create(const char *device_spec, clnorm_context **ctx)
{
    clnorm__clear_error(NULL);
    if (!ctx)
        return clnorm__fail(NULL, CLNORM_NULL_ARGUMENT, "ctx (the output pointer) is NULL");
    *ctx = NULL;
    cl_platform_id platform;
    cl_device_id device;
    clnorm_status st = clnorm__select(device_spec, &platform, &device);
    if (st != CLNORM_SUCCESS)
        return st;
    clnorm_context *c = new_context();
    if (!c)
        return clnorm__fail(NULL, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
    c->device = device;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int err;
    c->cl_ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        c->queue = clCreateCommandQueue(c->cl_ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        clnorm_context_release(c);
        return clnorm__fail(NULL, err, "creating the OpenCL context or queue failed: %s", clnorm_status_string(err));
    }
    return finish_create(c, ctx);
}

clnorm_status clnorm_context_create_from_queue(cl_command_queue queue, clnorm_context **ctx)
{
    clnorm__clear_error(NULL);
    if (ctx) /* NULL on every failure, a NULL queue included (clnorm.h) */
        *ctx = NULL;
    if (!ctx || !queue)
        return clnorm__fail(NULL, CLNORM_NULL_ARGUMENT, "%s is NULL", ctx ? "queue" : "ctx (the output pointer)");
    cl_context cl_ctx;
    cl_device_id device;
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof cl_ctx, &cl_ctx, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL);
    if (err != CL_SUCCESS)
        return clnorm__fail(NULL, err, "queue is not a valid command queue: %s", clnorm_status_string(err));
    clnorm_context *c = new_context();
    if (!c)
        return clnorm__fail(NULL, CLNORM_OUT_OF_HOST_MEMORY, "out of host memory");
    /* Retained here, released in clnorm_context_release: never more than we retained. */
    clRetainCommandQueue(queue);
    clRetainContext(cl_ctx);
    c->queue = queue;
    c->cl_ctx = cl_ctx;
    c->device = device;
    cl_command_queue_properties props = 0;
    /* unknown properties: assume out of order (events then order our two kernels) */
    c->out_of_order = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL) != CL_SUCCESS ||
                      (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    return finish_create(c, ctx);
}

void clnorm_context_release(clnorm_context *ctx)
{
    if (!ctx)
        return;
    clnorm__release_programs(ctx);
    if (ctx->workspace_event)
        clReleaseEvent(ctx->workspace_event);
    if (ctx->workspace)
        clReleaseMemObject(ctx->workspace);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl_ctx)
        clReleaseContext(ctx->cl_ctx);
    free(ctx->wait_scratch);
    free(ctx->user_options);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

cl_command_queue clnorm_context_queue(const clnorm_context *ctx) { return ctx ? ctx->queue : NULL; }
cl_context clnorm_context_cl_context(const clnorm_context *ctx) { return ctx ? ctx->cl_ctx : NULL; }
cl_device_id clnorm_context_device(const clnorm_context *ctx) { return ctx ? ctx->device : NULL; }
const char *clnorm_context_device_name(const clnorm_context *ctx) { return ctx ? ctx->info.name : ""; }
