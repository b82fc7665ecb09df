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

/* Each repetition: stamp, then fn_a (if any), then fn_b. ms_a = END(a) - END(stamp); ms_b = END(b) -
 * END(a), or END(b) - END(stamp) without fn_a. */
static int measure_seq(cl_context context, cl_command_queue q, const bench_kernels *k, int reps, bench_rep_fn fn_a,
    void *arg_a, double *ms_a, bench_rep_fn fn_b, void *arg_b, double *ms_b)
{
    cl_event *stamps = calloc((size_t)reps, sizeof *stamps);
    cl_event *mids = calloc((size_t)reps, sizeof *mids);
    cl_event *lasts = calloc((size_t)reps, sizeof *lasts);
    cl_event gate = NULL;
    int st = CL_SUCCESS, i, queued = 0;

    if (!stamps || !mids || !lasts) {
        fprintf(stderr, "clnorm-bench: out of host memory\n");
        st = CLNORM_OUT_OF_HOST_MEMORY;
        goto done;
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
        if (fn_a && (st = fn_a(arg_a, &mids[i])) != CL_SUCCESS) {
            mids[i] = NULL;
            break;
        }
        st = fn_b(arg_b, &lasts[i]);
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
        cl_ulong t0 = 0, tm = 0, t1 = 0;
        st = event_time(stamps[i], CL_PROFILING_COMMAND_END, &t0);
        if (st == CL_SUCCESS && fn_a)
            st = event_time(mids[i], CL_PROFILING_COMMAND_END, &tm);
        if (st == CL_SUCCESS)
            st = event_time(lasts[i], CL_PROFILING_COMMAND_END, &t1);
        if (!fn_a)
            tm = t0;
        if (st != CL_SUCCESS) {
            fprintf(stderr, "clnorm-bench: clGetEventProfilingInfo: %s (is profiling enabled on the queue?)\n",
                clnorm_status_string(st));
        } else if (t1 <= tm || tm < t0 || (fn_a && tm == t0)) {
            fprintf(stderr, "clnorm-bench: the driver reported end times out of order (%llu, %llu, %llu)\n",
                (unsigned long long)t0, (unsigned long long)tm, (unsigned long long)t1);
            st = CL_PROFILING_INFO_NOT_AVAILABLE;
        } else {
            if (fn_a)
                ms_a[i] = (double)(tm - t0) * 1e-6;
            ms_b[i] = (double)(t1 - tm) * 1e-6;
        }
    }
done:
    for (i = 0; i < reps; ++i) {
        if (stamps && stamps[i])
            clReleaseEvent(stamps[i]);
        if (mids && mids[i])
            clReleaseEvent(mids[i]);
        if (lasts && lasts[i])
            clReleaseEvent(lasts[i]);
    }
    if (gate)
        clReleaseEvent(gate);
    free(stamps);
    free(mids);
    free(lasts);
    return st;
}

int timing_measure(cl_context context, cl_command_queue q, const bench_kernels *k, int reps, bench_rep_fn fn,
    void *arg, double *ms)
{
    return measure_seq(context, q, k, reps, NULL, NULL, NULL, fn, arg, ms);
}

int timing_measure_pair(cl_context context, cl_command_queue q, const bench_kernels *k, int reps, bench_rep_fn fn_a,
    void *arg_a, double *ms_a, bench_rep_fn fn_b, void *arg_b, double *ms_b)
{
    return measure_seq(context, q, k, reps, fn_a, arg_a, ms_a, fn_b, arg_b, ms_b);
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
