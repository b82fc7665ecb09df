/* clnorm-bench — device timing of a repeated sequence of commands with profiling events.
 *
 * Method (also printed in the output header): a clnorm call may enqueue several kernels and gives
 * back only the event of the last one, and markers carry no reliable profiling times on every
 * driver. So each repetition enqueues an empty one-item "stamp" kernel first, then the measured
 * commands; on an in-order queue the first measured command cannot start before the stamp ends,
 * so   time = END(last measured command) - END(stamp)   covers every command of the repetition,
 * including the gaps between them. The only extra is the launch gap right after the stamp (a few
 * microseconds on a GPU), paid equally by the copy yardstick, which is timed the same way.
 * All repetitions are enqueued behind a user event that is released only once everything is
 * queued, so the device never waits on the host's enqueue calls between repetitions. */
#ifndef CLNORM_BENCH_TIMING_H
#define CLNORM_BENCH_TIMING_H

#include "bench_kernels.h"

/* Enqueues one repetition on the queue and returns in *last the event of its last command (the
 * caller releases it). Returns CL_SUCCESS or a clnorm/OpenCL status, after printing the reason. */
typedef int (*bench_rep_fn)(void *arg, cl_event *last);

/* Runs n repetitions untimed and waits for them (program builds, first touch, workspace). */
int timing_warmup(cl_command_queue q, int n, bench_rep_fn fn, void *arg);

/* Runs reps timed repetitions; writes each one's device time in milliseconds to ms[0..reps-1]. */
int timing_measure(cl_context context, cl_command_queue q, const bench_kernels *k, int reps, bench_rep_fn fn,
    void *arg, double *ms);

/* The same for a pair: each repetition runs fn_a then fn_b back to back after one stamp;
 * ms_a[i] = END(a) - END(stamp), ms_b[i] = END(b) - END(a). Used to time an op right after the copy
 * yardstick, so that each repetition gives a ratio of two neighbouring measurements. */
int timing_measure_pair(cl_context context, cl_command_queue q, const bench_kernels *k, int reps, bench_rep_fn fn_a,
    void *arg_a, double *ms_a, bench_rep_fn fn_b, void *arg_b, double *ms_b);

/* Median of n values (sorts v). */
double timing_median(double *v, int n);

#endif
