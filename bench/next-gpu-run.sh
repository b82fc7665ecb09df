#!/usr/bin/env bash
# The next GPU session's measurements, kept in the tree so that they survive a fresh checkout
# (.gpu/ is git-ignored and lost with it). One stage per device call, each well under the
# 10-minute limit of a call:
#
#   bash ../shared/gpu/fetch-debs.sh          # here, once per checkout: fills .gpu/
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh tune"
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh ab"
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh suite"
#
# tune:  the phased all-16-bit residual backward (the NVIDIA row's slowest odd-width op, BF16
#        backward_res 0.30 of the copy at cols 1023 / 2047 on an H100, below the unfused
#        baseline's 0.37), --tune over its persistent groups, rows per item, early residual
#        gradient and pipeline at cols 1023 / 2047 / 4095 / 8191, with every variant's registers
#        (-cl-nv-verbose; session 26 saw 255 registers and 240 bytes of spills at 4095).
#        A win needs a phase-only key, as bwd_phase_target16_res is (params.c's plan_phase).
# ab:    session 26's narrowed-vector rules (v0.19.0) against the plans before them (all five
#        keys 0), new / old / new, at odd widths they were not measured at.
# suite: the whole CTest suite under the NVIDIA row (the forward's phase code went in 0.20.0
#        without a GPU run; its non-phased kernels are unchanged token for token).
#
# Logs, tables and JSON go under $OUT (the device tool brings them back).
set -uo pipefail
stage=${1:?usage: next-gpu-run.sh tune|ab|suite}
out=${OUT:-/tmp/out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu/gpu-env.sh
b=/tmp/b
if ! { cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release && cmake --build "$b" -j16; } > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    exit 1
fi
export CLNORM_DEVICE=nvidia CK_FORK=no
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1 || true
old_keys="fwd_narrow_item_bytes=0,bwd_narrow_item_bytes=0,phase_vec_max=0,phase_cached_skip=0,bwd_phase_target16_res=0"

case "$stage" in
tune)
    grid="bwd_groups16_res=2;bwd_groups16_res=3;bwd_groups16_res=4;bwd_rpi16_res=1;bwd_rpi16_res=4"
    grid="$grid;bwd_dr_early=0;bwd_pipe=0;bwd_pipe=0,bwd_groups16_res=2;bwd_pipe=0,bwd_groups16_res=3"
    for cols in 1023 2047 4095 8191; do
        rows=$(( (1 << 27) / cols ))
        CLNORM_BUILD_LOG=1 CLNORM_BUILD_OPTIONS=-cl-nv-verbose CLNORM_BENCH_TUNE_FWD="" CLNORM_BENCH_TUNE_BWD="" \
            CLNORM_BENCH_TUNE_DX="" CLNORM_BENCH_TUNE_RES="$grid" \
            timeout 140 "$b/clnorm-bench" --device nvidia --tune --dtype bf16 --reps 7 --shape "${rows}x${cols}" \
            > "$out/tune_$cols.txt" 2> "$out/regs_$cols.log"
        echo "tune $cols: exit $?"
        grep -iE "best|backward_res" "$out/tune_$cols.txt" | head -20
    done
    ;;
ab)
    # (AB_SHAPES: a subset, where one call's 10 minutes do not hold all five)
    for shape in ${AB_SHAPES:-44724x3001 22362x6002 16388x8190 32824x4089 526344x255}; do
        for which in new1 old new2; do
            tune=""
            [ "$which" = old ] && tune=$old_keys
            env ${tune:+CLNORM_TUNE=$tune} timeout 100 "$b/clnorm-bench" --device nvidia --reps 10 --shape "$shape" \
                --json "$out/ab_${shape}_$which.json" > "$out/ab_${shape}_$which.txt" 2>&1
            echo "ab $shape $which: exit $?"
        done
        cat "$out/ab_${shape}_new1.txt" "$out/ab_${shape}_old.txt"
    done
    ;;
suite)
    (cd "$b" && timeout 560 ctest --output-on-failure -j4) > "$out/suite.log" 2>&1
    echo "suite: exit $?"
    grep -E "tests passed|Failed|Skipped|Total Test" "$out/suite.log" | tail -30
    ;;
*)
    echo "unknown stage $stage" >&2
    exit 2
    ;;
esac
