/* clnorm-bench --vs onednn — oneDNN's CPU layer normalization timed and checked next to clnorm's
 * ops, on the same inputs, with the same bytes model and the same copy yardstick. Built only when
 * CMake finds oneDNN (CLNORM_HAVE_ONEDNN). */
#ifndef CLNORM_BENCH_ONEDNN_H
#define CLNORM_BENCH_ONEDNN_H

#include "bench_case.h"
#include "report.h"

/* Creates oneDNN's CPU engine and stream and describes them in *info (its strings live as long as
 * the hook). Each case then runs, in host memory on the case's inputs:
 *   forward  (forward_training, scale and shift, mean and variance saved) -> "forward" row
 *   backward (diff_src, diff_scale, diff_shift from its own forward's mean and variance) -> "backward" row
 * both timed by wall clock (median of env->reps after env->warmup) and checked against the float64
 * reference. A dtype oneDNN cannot run gives rows without figures and the reason. Returns NULL
 * after printing why it could not start. */
bench_hook *onednn_hook_create(bench_vs_info *info);
void onednn_hook_release(bench_hook *hook);

#endif
