/* clnorm-bench — stamp-to-end device timing (see timing.h for why). */
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>

int timing_warmup(cl_command_queue q, int n, bench_rep_fn fn, void *arg)
{
    int i, st;
    for (i = 0; i < n; ++i) {
        cl_event last = NULL;
        st = fn(arg, &last);
        if (st != CL_SUCCESS)
            return st;
        clReleaseEvent(last);
    }
    st = clFinish(q);
    if (st != CL_SUCCESS)
        fprintf(stderr, "clnorm-bench: clFinish after the warm-up: %s\n", clnorm_status_string(st));
    return st;
}

static int event_time(cl_event ev, cl_profiling_info what, cl_ulong *t)
{
    return clGetEventProfilingInfo(ev, what, sizeof *t, t, NULL);
}

int timing_measure(cl_context context, cl_command_queue q, const bench_kernels *k, int reps, bench_rep_fn fn,
    void *arg, double *ms)
{
    cl_event *stamps = calloc((size_t)reps, sizeof *stamps);
    cl_event *lasts = calloc((size_t)reps, sizeof *lasts);
    cl_event gate = NULL;
    int st = CL_SUCCESS, i, queued = 0;

    if (!stamps || !lasts) {
        free(stamps);
        free(lasts);
        fprintf(stderr, "clnorm-bench: out of host memory\n");
        return CLNORM_OUT_OF_HOST_MEMORY;
    }
    gate = clCreateUserEvent(context, &st);
    if (st != CL_SUCCESS) {
        fprintf(stderr, "clnorm-bench: clCreateUserEvent: %s\n", clnorm_status_string(st));
        goto done;
    }
    for (i = 0; i < reps; ++i) {
        st = bench_enqueue_stamp(q, k, i == 0 ? 1 : 0, i == 0 ? &gate : NULL, &stamps[i]);
        if (st != CL_SUCCESS) {
            fprintf(stderr, "clnorm-bench: enqueue of the stamp kernel: %s\n", clnorm_status_string(st));
            break;
        }
        st = fn(arg, &lasts[i]);
        if (st != CL_SUCCESS) {
            lasts[i] = NULL;
            break;
        }
        queued = i + 1;
    }
    /* Release the gate even after a failure, or clFinish would wait forever. */
    clSetUserEventStatus(gate, CL_COMPLETE);
    {
        cl_int fin = clFinish(q);
        if (st == CL_SUCCESS && fin != CL_SUCCESS) {
            fprintf(stderr, "clnorm-bench: clFinish: %s\n", clnorm_status_string(fin));
            st = fin;
        }
    }
    for (i = 0; i < queued && st == CL_SUCCESS; ++i) {
        cl_ulong t0 = 0, t1 = 0;
        st = event_time(stamps[i], CL_PROFILING_COMMAND_END, &t0);
        if (st == CL_SUCCESS)
            st = event_time(lasts[i], CL_PROFILING_COMMAND_END, &t1);
        if (st != CL_SUCCESS) {
            fprintf(stderr, "clnorm-bench: clGetEventProfilingInfo: %s (is profiling enabled on the queue?)\n",
                clnorm_status_string(st));
        } else if (t1 <= t0) {
            fprintf(stderr, "clnorm-bench: the driver reported an end time (%llu) not after the stamp (%llu)\n",
                (unsigned long long)t1, (unsigned long long)t0);
            st = CL_PROFILING_INFO_NOT_AVAILABLE;
        } else {
            ms[i] = (double)(t1 - t0) * 1e-6;
        }
    }
done:
    for (i = 0; i < reps; ++i) {
        if (stamps[i])
            clReleaseEvent(stamps[i]);
        if (lasts[i])
            clReleaseEvent(lasts[i]);
    }
    if (gate)
        clReleaseEvent(gate);
    free(stamps);
    free(lasts);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double timing_median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
