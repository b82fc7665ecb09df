#!/usr/bin/env bash
# The next GPU session's measurements, kept in the tree so that they survive a fresh checkout
# (.gpu/ is git-ignored and lost with it). One stage per device call, each well under the
# 10-minute limit of a call:
#
#   bash ../shared/gpu/fetch-debs.sh          # here, once per checkout: fills .gpu/
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh tune"
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh ab"
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh suite"
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh odd"     (session 27's leads, below)
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh full"    (the headline table, overhead)
#   run  carry [".gpu"]  command "SURVEY_COLS=... SURVEY_VARIANTS='new= old=...' bash bench/next-gpu-run.sh survey"
#
# Session 47: no device came (every start failed or was refused). Due next is session 46's list
# below, which the `due` stage runs in one call on whichever card comes (H200: the rule against its
# keys off and the dr key, then the suite in what is left of DEADLINE; other cards: the whole suite):
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh due"     then "bash bench/next-gpu-run.sh full"
# Session 46 (0.35.0, eight calls, all on an H100): session 45's prefetch switches ran. The block
# being read asked of L2 at its start (PF_CUR), the next block after the first read (PF_LATE), won
# where the F32 row is read twice beside register sums (16384 0.75 / 0.81 -> 0.78 / 0.87, 13312-15360
# +8-13 %) and in BF16 rows with the residual gradient (+3-7 %): 0.35.0 ships it (bwd_prefetch_cur_cols,
# bwd_prefetch16_cur_res, launch flag l2_prefetch_current); the whole suite passed on the H100
# (133/133). This block's residual-gradient rows too (PF_DR=2) gained 9 % at BF16 16384 only (the one
# H100 width whose residual gradient is read late), lost elsewhere: a key no table row sets
# (bwd_prefetch16_cur_dr). Due next:
#   on an H200 (no 0.35.0 figure there): the rule against its keys off, and the residual gradient's
#   rows, which the H200 reads late at every 4-deep width (13312-16384):
#     TUNES_DTYPE=f32 TUNES_SHAPES='8192x16384 9362x14336 10082x13312' TUNES_VARIANTS='new= off=bwd_prefetch_cur_cols=0
#       new2= off2=bwd_prefetch_cur_cols=0' bash bench/next-gpu-run.sh tunes
#     TUNES_DTYPE=bf16 TUNES_SHAPES='8192x16384 8738x15360 9362x14336 10082x13312' TUNES_VARIANTS='new=
#       off=bwd_prefetch16_cur_res=0 dr=bwd_prefetch16_cur_dr=1 new2= dr2=bwd_prefetch16_cur_dr=1' bash bench/next-gpu-run.sh tunes
#   then the suite (its test_backward_nv_prefetch_dr / test_hostile_nv_prefetch_dr run PF_DR=2 on
#   every cached 16-bit row with a residual gradient) and `full`; if dr wins on the H200, turn it on
#   there (clnorm__params_fit_device) and on the H100 at 16384 only if a bound can say so
# Session 45 (0.34.0, three calls on an H200): the refinement as shipped gave what its variants
# predicted (BF16 backward 0.80-0.82 at 13312-16384, backward_res 0.71-0.75 at 13312-15360), the
# whole suite passed (133/133) and --full is docs/h200-full.json (BF16 backward 16384 0.81, fused
# 1.27x). F32 16384's leads lost (local keep of dx's second read, L2 prefetch, two groups with
# -cl-nv-maxrregcount=64, 1024 items). Due next (no start came for them this session; run in
# session 46 on an H100, after which PF_PART, PF_DY and PF_DR=1 left backward.cl):
#   on an H200 (then an H100): the L2-prefetch experiments that backward.cl's PF_PART / PF_DY /
#   PF_DR / PF_CUR / PF_NEXT switches hold (build options only; a guess: F32 16384's next-row
#   prefetch, 17 MB a wave on top of the rows being read, thrashes L2, where BF16's half-size rows
#   fit; PF_CUR instead asks for the row being read, whose loads the sums' registers keep from all
#   being in flight at once), with registers:
#     REGS_DTYPE=f32 REGS_SHAPES=8192x16384 REGS_VARIANTS='base= cur=@-DNV_PREFETCH,-DPF_CUR=1,-DPF_NEXT=0
#       curdr=@-DNV_PREFETCH,-DPF_CUR=1,-DPF_NEXT=0,-DPF_DR=2 pf2=bwd_nacc=16@-DPF_PART=2
#       pf1=bwd_nacc=16@-DPF_PART=1 fpf2=@-DNV_PREFETCH,-DPF_PART=2 base2= cur2=@-DNV_PREFETCH,-DPF_CUR=1,-DPF_NEXT=0'
#       bash bench/next-gpu-run.sh regs
#     (bwd_nacc=16 lifts the "at most half of nacc" bound so the fp32 16384 rows take the prefetch;
#     -DNV_PREFETCH forces it into every backward program, the residual gradient's too; the whole
#     next-row prefetch, `pf=bwd_nacc=16`, lost 20 % in session 45)
#     REGS_DTYPE=bf16 REGS_SHAPES='8192x16384 9362x14336' REGS_VARIANTS='base= p2=@-DPF_PART=2
#       dr2=@-DPF_DR=2 dr1=@-DPF_DR=1 cur=@-DPF_CUR=1,-DPF_NEXT=0 base2= dr22=@-DPF_DR=2' bash bench/next-gpu-run.sh regs
#     (PF_DR=2: this block's residual-gradient row into L2 at the block's start, which the H200's
#     rows read late since 0.34.0; on the H100 the next block's (PF_DR=1) lost 10 % in session 42)
#   on an H100: SUITE_REGEX='colsweep|pipe_narrow|gpu_shapes_wide|stream_tpr' bash bench/next-gpu-run.sh suite
# Session 44 (0.34.0, two calls on an H100, one on an H200): 0.33.0's kernels passed 122 of the
# suite's 131 tests on the H100 (bench_vs_onednn_smoke is not built there; none failed; nine ran
# out of time in `ship`'s first set); --full
# of 0.34.0 on both is docs/h100-full.json and docs/h200-full.json. The H100 and the H200 want
# opposite settings in the 4-deep BF16 backward rows of 13312-16384, so 0.34.0 refines NVIDIA's
# row by device name (clnorm__params_fit_device: an H200 takes bwd_dr_early16_cols_min=0 and
# bwd_prefetch16_nores_nc_max=0; measured only as those CLNORM_TUNE variants). Due next:
#   on an H200: the refinement itself (the plain table against the H100's settings; every op checked)
#     run  carry [".gpu"]  command "TUNES_SHAPES='10082x13312 9362x14336 8738x15360 8192x16384' TUNES_VARIANTS='new= h100=bwd_dr_early16_cols_min=15361,bwd_prefetch16_nores_nc_max=3 new2= h1002=bwd_dr_early16_cols_min=15361,bwd_prefetch16_nores_nc_max=3' bash bench/next-gpu-run.sh tunes"
#     then SUITE_TIMEOUT=560 bash bench/next-gpu-run.sh suite (test_api's plan_device_name_refinement,
#     which checks that an H200 context takes the refinement and is skipped off NVIDIA, and the
#     rest of 0.34.0's suite: it has not run on an H200 or, since its first commit, on an H100)
#   on an H100: the nine tests that did not finish:
#     SUITE_REGEX='colsweep|pipe_narrow|gpu_shapes_wide|stream_tpr' bash bench/next-gpu-run.sh suite
# Session 43 (0.33.0, an H200, five calls, then every start failed or was refused): 0.32.1's whole
# suite passed (131/131), its --full is docs/h200-full.json, test_large passed (0.81 s). The BF16
# 16384 rows with dweight/dbias and the residual gradient no longer load it early
# (bwd_dr_early16_nc_max 3: `tunes` on the H200, 0.66 -> 0.75 of the copy, every op checked); that
# commit's suite and A/B did not run. Due next:
#   run  carry [".gpu"]  command "SHIP_FIRST='test_api|gpu_shapes|hostile' SHIP_SHAPES='8192x16384 9362x14336 10922x12288' SHIP_AB='new= old=bwd_dr_early16_nc_max=0' SHIP_DEADLINE=560 bash bench/next-gpu-run.sh ship"
#     (on an H200 and on an H100: the H100 gained 0.5 % from the early load off in session 42)
#     (its test_api also runs session 43's new plan tests on NVIDIA for the first time, among them
#     plan_acc_local16_rows_per_item_fit, which only bites where local memory is 48 KiB)
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh full"  (its new `overhead queries`
#     line: what the 30 clGetMemObjectInfo of a forward's validation cost on NVIDIA's driver; on
#     session 43's H200 host clnorm's forward took 3.2 µs above a 6.1 µs driver floor)
#   leads on the H200 (its 16384 rows fall further behind the copy than the H100's): BF16 backward
#     without a residual gradient 0.78 (H100 0.93): the prefetch back on there
#     (TUNES_SHAPES=8192x16384 TUNES_VARIANTS="new= pf=bwd_prefetch16_nores_nc_max=0 new2= pf2=bwd_prefetch16_nores_nc_max=0"
#     bash bench/next-gpu-run.sh tunes; it lost 13 % on the H100); F32 with dweight/dbias 0.64 / 0.70
# Session 42 (0.32.1: host checks and messages, no kernel or plan change; an H100, seven calls):
# the whole suite of 0.32.0 and of 0.32.1 passed (131/131 each); the prefetch bound's two mutants
# fail test_api on NVIDIA. The BF16 16384 residual-gradient leads lost or tied (early load's
# bound, no prefetch, early load off, dres prefetched too: -10 %). Due next:
#   run  carry [".gpu"]  command "SUITE_TIMEOUT=480 bash bench/next-gpu-run.sh suite"  (new tests
#     after the GPU runs: reference counts of the caller's cl_context and queue after release and
#     after failed calls, test_device_select's oversized specs, test_errors' host_ptr cases; all
#     passed on PoCL only)
#   `full` and `suite` on an H200 (its table is session 36's, 0.28.0)
#   run  carry [".gpu"]  command "bash bench/next-gpu-run.sh large"   (the 64-bit size test,
#     ~40 GiB of device memory: no GPU run of it is on record in docs/PERFORMANCE.md)
# Session 41 (0.32.0, an H100, six calls): acc_local16 on (the whole suite passed with it, 131/131,
# and --full); the 16384 BF16 backward without a residual gradient skips the L2 prefetch
# (bwd_prefetch16_nores_nc_max 3: 0.81 -> 0.93 of the copy). Due next, in this order:
#   run  carry [".gpu"]  command "SUITE_TIMEOUT=560 bash bench/next-gpu-run.sh suite"
#     (the whole suite of 0.32.0: ~50 of its tests did not run on the final code; -j4 takes
#     ~360 s on an H100; 14 tests at once at -j6 pushed test_api past its old 120 s limit, now 300 s)
#   `full` and `suite` on an H200 (its table is session 36's, 0.28.0)
#   the new prefetch bound's mutations on NVIDIA (test_api plan_acc_local16_rule: the bound's
#     `>` as `>=`, the residual-gradient test dropped), and its registers:
#     PTX_SHAPES="8192x16384" bash bench/next-gpu-run.sh ptx  (with and without
#     CLNORM_TUNE=bwd_prefetch16_nores_nc_max=0)
#   leads at 16384: BF16 with the residual gradient 0.83 (fused 1.28x; 1.4x needs ~0.40 ms;
#     untried there: the residual gradient loaded early, bwd_dr_early=65536, and the prefetch off
#     at 12288 with it, +1.4 % in session 41), F32 with dweight/dbias 0.75 / 0.81 (no --tune
#     candidate moved it)
# Session 40 (0.31.1: a host fix and tests, no kernel or plan change): no device call ran (every
# start failed or was refused); session 39's list below is still due, unchanged.
# Session 39 (0.31.0): 0.30.0's whole suite passed on an H100 (125/125) and its --full is
# docs/h100-full.json. New, measured by --tune only (H100, bf16 backward 16384 0.382 -> 0.340 ms,
# with the residual gradient 0.494 -> 0.436, 12288 0.311 -> 0.292): one sum vector per item in
# local memory beside the cached 16-bit row (acc_local16), shipped OFF (NV_ACC_LOCAL16 0 in
# src/params.c) because no checked run was possible. Due next, in this order:
#   run  carry [".gpu"]  command "SUITE_REGEX=acc_local16 bash bench/next-gpu-run.sh suite"
#   run  carry [".gpu"]  command "CLNORM_TUNE=bwd_acc_local16=1 bash bench/next-gpu-run.sh full"
# (--full checks every op against float64, 12288 and 16384 included); if both pass, set
# NV_ACC_LOCAL16 1, then the whole `suite` and `full` on an H200.
# Session 38 (0.30.0: host-side checks and packaging, no kernel change): two late calls on an H100.
# test_bf16_store's NV_CVT path gave the canonical NaN 0x7FFF for NaN inputs (the test now takes
# any quiet NaN there); then 97 of 125 tests passed, none failed, before the budget ran out.
# clinfo: no cl_ext_buffer_device_address. Due next: the whole `suite` of 0.30.0 (the last 28
# gpu_shapes / nv_* variants did not run) and `full` on an H200.
# Session 37 (0.29.0: the AVX512_BF16 store without a branch, PoCL x86 only; test_bf16_store new,
# with an NV_CVT path on sm_80+; CLNORM_BUILD_LOG=<path>): no device call ran (every start failed or
# was refused). Due next: `suite` of 0.29.0 (its kernels for NVIDIA are 0.28.0's token for token,
# but test_bf16_store's NV_CVT / portable paths and test_api's build-log check have not run there).
# Session 36 (0.28.0: the one library change is in the CPU row; an H100, two calls): 0.27.0's whole
# suite (122/122), --full (docs/h100-full.json) and the ptx check below: the phased 1024 x 4 dx_res
# frame takes 64 registers with 1-1.4 KiB of spills (session 34's rules keep those rows narrowed).
# Due next: `full` and `suite` on an H200 (none since session 19 / 30).
# Session 35 (no library change; nine device starts failed, two calls ran on an H100): x kept in
# registers where a row is read twice (bwd_xkeep, fwd_xkeep; commit a810e1a) lost nearly
# everywhere and was removed (docs/PERFORMANCE.md). New: the `grid` stage (--tune over given
# candidates, alternated in one process per shape: seconds, not a whole bench per variant), e.g.
#   GRID_DTYPE=bf16 GRID_SHAPES="8192x16384" GRID_BWD="bwd_groups16=2;bwd_groups16=1;bwd_groups16=2;bwd_groups16=1" \
#     bash bench/next-gpu-run.sh grid
# Due next (session 34's list stands): the whole suite of 0.27.0 (its rules ran test_api /
# test_backward / test_plan_edges / test_failures; session 35's calls ran test_backward's
# gpu_shapes variants and test_determinism only), `full` and `suite` on an H200, the ptx check
# below.
# Session 34 (0.27.0, an H100, ten calls): 0.26.0's whole suite (122/122); narrowed plans kept
# where the phases lost: 16-bit dx rows held in a warp's 32 items (bwd_phase_pipe_dx16_keep_tpr),
# long 16-bit dx_res rows at 4-element widths and 2-element ones 4 vectors deep
# (bwd_phase_dx16_res_vec_max, _deep), fp32 dx / dx_res at 2-element widths 4 deep
# (bwd_phase_dx32_deep). Due next:
#   - the whole suite of 0.27.0 (its rules ran test_api / test_backward / test_plan_edges /
#     test_failures only), and `full` and `suite` on an H200;
#   - the long one-element and 4-element rows still read 0.45-0.74 (BF16 dx 16388-28676 0.61-0.67,
#     dx_res 0.70-0.74; F32 dx 16381-24575 0.52-0.73): their 1024-item plans; the phased 1024 x 4
#     cache's registers before any new layout (the 64-register reading is unmeasured):
#       CLNORM_TUNE=bwd_phase_dx16_res_vec_max=0,bwd_phase_dx16_res_deep=0 \
#       PTX_SHAPES="5460x24580 5460x24578 10920x12290" bash bench/next-gpu-run.sh ptx
#   - F32 dx at one-element widths 4 deep was mixed (12287 / 14335 narrowed won by 5 %, 16381 phased
#     by 19 %).
# Session 33 (0.26.0, an H100; device starts failed or were refused eleven times, six calls ran):
# 0.25.0's --full (docs/h100-full.json) and whole suite (122/122); the phased 16-bit dx-only calls
# without a residual gradient pipelined from 2 vectors deep where the frame fills over 5/8 of the
# cache and the row takes at least 8 items (bwd_phase_pipe_dx16_nores 2, _tpr 8) and at
# 2-element widths whose narrowed plan re-reads the row up to 13824 columns
# (bwd_phase_pipe_dx16_reread_cols). Due next:
#   - `full` and the whole `suite` on an H200 (none lent since session 30's one call), and the
#     whole suite of 0.26.0 (its last call ran 56 tests, all passed, before its time limit);
#   - the 0.26.0 rules at more widths (75-99, 155-249, 2-element 10000-13800): `survey` with
#       SURVEY_OPS='^backward_dx$' SURVEY_VARIANTS="new= old=bwd_phase_pipe_dx16_nores=0,bwd_phase_pipe_dx16_reread_cols=0";
#   - dx_res at 2-vector widths (phased, not pipelined) reads 0.56-0.92 and lost 1-11 % pipelined:
#     127 / 255 at 0.56 / 0.58 are its slowest;
#   - 4-element widths from 16388 whose narrowed plan re-reads (not in the column bound).
# Session 32 (0.25.0, an H100 again, the H200 asked for): 0.24.0's --full and whole suite
# (122/122); the phased all-16-bit calls without dweight/dbias pipelined (bwd_phase_pipe_dx16 3,
# _wg_max 512; BF16 dx 0.38-0.58 -> 0.63-0.88, dx_res 0.48-0.78 -> 0.77-0.96 at odd widths).
# Due next:
#   - `full` and the whole `suite` on an H200 under 0.25.0 (no H200 table since session 19);
#   - BF16 dx at 2-element widths (cols 2 mod 4 from 8194) phased and pipelined won up to 13314
#     and lost from 14338 (`phase_vec_max=0` phases them, and other ops' 2-element rows too):
#     a cols bound;
#   - BF16 dx (no residual) at 2-vector caches: pipelined in phases it won at 767 / 1535 (0.58 /
#     0.51 -> 0.83 / 0.86) and lost at 255 (0.58 -> 0.51); `bwd_phase_pipe_dx16=2` takes them
#     all (with dx_res, which lost 1-11 % there): survey 3-505, 755-1017, 1529-2041, 3067-4089,
#     6131-8177 before a rule;
#   - the fp32 dx rule (bwd_phase_pipe_dx32, 512-item rows) measured at 3583 / 4095 / 6001
#     only; fp32 dx_res pipelined lost (4095 0.97 -> 0.84).
# Session 31 (0.24.0, an H100): the whole suite of 0.23.0 passed (119/119); the long rows that
# alignment narrows with dweight/dbias (fp32 odd cols 12287-16383; 16-bit 12282-32767 not a
# multiple of 4, and from 16388 those of 4 mod 8) sweep columns instead of streaming with the sums in the workspace
# (bwd_colsweep_stream; BF16 backward 0.09 -> 0.41-0.47); the phased forward lost again with whole
# edges (BF16 1023 0.25 against 0.60 narrowed), and neither the edges nor the weight's phase is
# why. Due next:
#   - `full` and the whole `suite` on an H200 under 0.24.0 (this session's card was an H100);
#   - phases in the twice-read regime are in the kernels (CLNORM_TUNE phase_reread=1) but lost
#     on the H100 (BF16 12287 0.10 against the sweep's 0.40: 64 registers and 1.5-1.7 KiB of
#     spills; the weight re-read instead of cached: 128 registers, still 0.13). A version the
#     compiler keeps in registers could reach the aligned neighbours' 0.62 (16384);
#   - the fused residual gradient at those widths in BF16: 7-14 % slower than the unfused
#     baseline under the sweep (12287 0.369 against 0.398).
# Session 30 (0.23.0, an H100 and an H200): row-phase kernels read each frame's first and last
# vector whole where the buffers hold them (PH_WIDE_LOADS), all-16-bit dx_res calls in phases,
# bwd_phase_nopipe16 4 and bwd_phase_nofill16_tpr 128 (docs/PERFORMANCE.md). The whole suite
# passed on an H100 with the wide loads (before the three rules; test_backward, test_api and
# test_backward_nv_phase after them). Due next:
#   - `suite` and `full` under 0.23.0 (the H200 table is session 19's; session 30's --full ran
#     0.22.0 on an H100);
#   - (done in session 31: the phased forward with whole edge vectors, measured in a scratch
#     build of f046a8b; it lost, docs/PERFORMANCE.md)
#   - the rules at more widths on both cards: `tunes` with
#       TUNES_VARIANTS="new= old=phase_edge_elems=1,phase_skip=768,bwd_phase_nopipe16=0,bwd_phase_nofill16_tpr=0"
# Session 29 (0.22.0): the phased BF16 residual backward pipelined only where its cache holds
# fewer than 4 vectors and its group at most 256 items.
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
# split: the phased BF16 residual backward's keys per width (SPLIT_COLS, SPLIT_VARIANTS).
# full:  `clnorm-bench --full` with its JSON, and `--overhead` twice.
# ptx:   each program of some shapes (PTX_SHAPES) rebuilt with -cl-nv-verbose, its PTX kept.
# opts:  extra build options A/B (OPTS_VARIANTS, OPTS_SHAPES), with each build's registers.
# tunes: CLNORM_TUNE variants (TUNES_VARIANTS, TUNES_SHAPES, TUNES_DTYPE), every op.
#
# Logs, tables and JSON go under $OUT (the device tool brings them back).
set -uo pipefail
stage=${1:?usage: next-gpu-run.sh due|tune|ab|suite|odd|split|full|ptx|regs|opts|tunes|survey|grid|ship|large}
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
# session 28's rules off (v0.21.0): the forward's raise bound, phase_cached_skip's items bound,
# the phased all-16-bit residual backward's own rows per item and pipeline
rules28_off="fwd_narrow_from_bytes=0,phase_cached_tpr_max=0,bwd_phase_rpi16_res=0,bwd_phase_nopipe16_res=0"

# /tmp/clnorm-plan OP ROWS COLS DTYPE ...: each shape's launch plan under the current CLNORM_TUNE
# split_variant "name=tune@options": k (name), t (CLNORM_TUNE) and o (CLNORM_BUILD_OPTIONS, ',' for
# ' '; empty without '@')
split_variant() {
    k=${1%%=*}; t=${1#*=}; o=
    case "$t" in *@*) o=${t#*@}; o=${o//,/ }; t=${t%%@*};; esac
}

build_plan_tool() {
cat > /tmp/clnorm-plan.c <<'PLAN'
#include <clnorm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
clnorm_context *ctx = NULL;
if (clnorm_context_create(NULL, &ctx) != CLNORM_SUCCESS) { fprintf(stderr, "%s\n", clnorm_context_last_error(NULL)); return 1; }
for (int i = 1; i + 3 < argc + 0 && i < argc; i += 4) {
    int op = atoi(argv[i]); size_t rows = strtoull(argv[i+1],0,10), cols = strtoull(argv[i+2],0,10);
    clnorm_dtype dt = !strcmp(argv[i+3],"bf16") ? CLNORM_BF16 : CLNORM_F32;
    clnorm_launch_info L; memset(&L, 0, sizeof L);
    if (clnorm_launch_plan(ctx, op, rows, cols, dt, &L)) { printf("err %s\n", clnorm_context_last_error(ctx)); continue; }
    printf("op %d %s %zux%zu: phase %u vec %u tpr %u rpw %u wg %u ncache %u nacc %u groups %zu rpi %u raw %u pipe %u reread %u lacc %u lrow %u rvec %u cs %u 1read %u l2pf %u unal %u\n",
           op, argv[i+3], rows, cols, L.row_phase, L.vector_width, L.items_per_row, L.rows_per_group, L.work_group_size, L.register_cache,
           L.register_accumulators, (size_t)L.work_groups, L.rows_per_item, L.raw_cache, L.pipelined, L.reread_batch,
           L.local_accumulators, L.local_row, L.reread_vectors, L.column_sweep, L.one_read_stats, L.l2_prefetch, L.unaligned);
}
clnorm_context_release(ctx);
}
PLAN
gcc -O1 -I include -I "$b/include" -I "$b" /tmp/clnorm-plan.c -o /tmp/clnorm-plan -L"$b" -lclnorm -lOpenCL -Wl,-rpath,"$b" 2>&1 | tail -3
}

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
    # (AB_SHAPES: a subset, where one call's 10 minutes do not hold all five; AB_OLD: the
    # tuning keys of "old", by default session 26's five rules off; for session 28's rules:
    # AB_OLD=rules28; AB_DTYPE: one dtype only)
    for shape in ${AB_SHAPES:-44724x3001 22362x6002 16388x8190 32824x4089 526344x255}; do
        for which in new1 old new2; do
            tune=""
            [ "$which" = old ] && tune=${AB_OLD:-$old_keys}
            [ "$tune" = rules28 ] && tune=$rules28_off
            env ${tune:+CLNORM_TUNE=$tune} timeout ${AB_TIMEOUT:-100} "$b/clnorm-bench" --device nvidia --reps 10 ${AB_DTYPE:+--dtype $AB_DTYPE} --shape "$shape" \
                --json "$out/ab_${shape}_$which.json" > "$out/ab_${shape}_$which.txt" 2>&1
            echo "ab $shape $which: exit $?"
        done
        cat "$out/ab_${shape}_new1.txt" "$out/ab_${shape}_old.txt"
    done
    # (the device tool brings back at most 8 files: the runs' tables and JSON in one archive)
    (cd "$out" && tar -cf ab.tar ab_*.json ab_*.txt && rm -f ab_*.json ab_*.txt)
    ;;
suite)
    (cd "$b" && timeout ${SUITE_TIMEOUT:-560} ctest --output-on-failure -j4 ${SUITE_REGEX:+-R "$SUITE_REGEX"}) > "$out/suite.log" 2>&1
    echo "suite: exit $?"
    grep -E "tests passed|Failed|Skipped|Total Test" "$out/suite.log" | tail -30
    ;;
odd)
    # Session 27's lead: session 26's rules lost at cols 3001 (F32 forward 0.955 -> 0.717, dx
    # 0.970 -> 0.745; run 3 of session 27). F32 at more one-element widths: the rules (new),
    # all five keys 0 (old), the forward's raise off (fwdnb0), dx back to phases (cskip6), with
    # each plan; the phased BF16 residual backward without its pipeline, at one row per item,
    # both (the new phase-only keys); the BF16 forward's raise at non-power-of-two item counts.
    build_plan_tool
    run() { # name tune dtype shape
      env ${2:+CLNORM_TUNE=$2} timeout 60 "$b/clnorm-bench" --device nvidia --reps 10 --dtype "$3" --shape "$4" 2>&1 |
        awk -v n="$1" -v s="$4" '$1~/^(forward|backward|backward_res|backward_dx|backward_dx_res)$/{printf "%s %s %s %s %s\n", s, n, $1, $2, $8} /checks:/{print s, n, $0}'
    }
    for c in ${ODD_F32_COLS:-255 1023 1535 2047 2559 3001 3583 4095 5001 7001}; do
      r=$(( (1 << 27) / c )); s=${r}x$c
      for k in new old fwdnb0 cskip6; do
        case $k in new) t="";; old) t=$old_keys;; fwdnb0) t="fwd_narrow_item_bytes=0";; cskip6) t="phase_cached_skip=6";; esac
        run $k "$t" f32 $s
      done
      for k in dflt new; do CLNORM_TUNE="$([ $k = dflt ] && echo "" || echo "phase_cached_skip=6")" /tmp/clnorm-plan 0 $r $c f32 2 $r $c f32 1 $r $c f32 | sed "s/^/$k /"; done
      CLNORM_TUNE=$old_keys /tmp/clnorm-plan 0 $r $c f32 2 $r $c f32 | sed "s/^/old /"
    done > "$out/f32.txt"
    for c in ${ODD_BF16_COLS:-1023 2047 4095 8191}; do
      r=$(( (1 << 27) / c )); s=${r}x$c
      for k in dflt pipe0 rpi1 both; do
        case $k in dflt) t="";; pipe0) t="bwd_phase_nopipe16_res=1";; rpi1) t="bwd_phase_rpi16_res=1";; both) t="bwd_phase_nopipe16_res=1,bwd_phase_rpi16_res=1";; esac
        run $k "$t" bf16 $s
      done
      /tmp/clnorm-plan 5 $r $c bf16 | sed "s/^/dflt /"; CLNORM_TUNE=bwd_phase_rpi16_res=1 /tmp/clnorm-plan 5 $r $c bf16 | sed "s/^/rpi1 /"; CLNORM_TUNE=bwd_phase_nopipe16_res=1,bwd_phase_rpi16_res=1 /tmp/clnorm-plan 5 $r $c bf16 | sed "s/^/both /"
    done > "$out/bf16.txt"
    for c in ${ODD_FWD16_COLS:-1535 2559 3001 3583}; do
      r=$(( (1 << 27) / c )); s=${r}x$c
      run new "" bf16 $s; run fwdnb0 fwd_narrow_item_bytes=0 bf16 $s
      /tmp/clnorm-plan 0 $r $c bf16 2 $r $c bf16 | sed "s/^/new /"; CLNORM_TUNE=fwd_narrow_item_bytes=0 /tmp/clnorm-plan 0 $r $c bf16 | sed "s/^/fwdnb0 /"
    done > "$out/bf16fwd.txt"
    wc -l "$out"/*.txt
    ;;
split)
    # The phased BF16 residual backward's keys per width, each plan printed (op 5 = backward
    # with dweight/dbias and a residual): the row's (new) against 0.21.0's (never pipelined) and
    # 0.20.0's (neither key) by default; SPLIT_VARIANTS: other "name=tune" variants.
    build_plan_tool
    for c in ${SPLIT_COLS:-255 1023 2047 2559 3001 3583 4095 6002 8191}; do
      r=$(( (1 << 27) / c )); s=${r}x$c
      for v in ${SPLIT_VARIANTS:-new= c21=bwd_phase_nopipe16_res=1,bwd_phase_pipe16_res_wg_max=0 \
               neither=bwd_phase_rpi16_res=0,bwd_phase_nopipe16_res=0}; do
        k=${v%%=*}; t=${v#*=}
        env ${t:+CLNORM_TUNE=$t} timeout 60 "$b/clnorm-bench" --device nvidia --reps 10 --dtype bf16 --shape "$s" 2>&1 |
          awk -v n="$k" -v s="$s" '$1~/^(backward_res|unfused)$/{printf "%s %s %s %s\n", s, n, $1, $8} /checks:/{print s, n, $0}'
        env ${t:+CLNORM_TUNE=$t} /tmp/clnorm-plan 5 $r $c bf16 | sed "s/^/$k /"
      done
    done > "$out/split.txt"
    cat "$out/split.txt"
    ;;
tunes)
    # CLNORM_TUNE variants ("name=tune" list, TUNES_VARIANTS) at shapes (TUNES_SHAPES) in one dtype
    # (TUNES_DTYPE), every op's fraction of the copy and the checks, one run each; a variant
    # "name=tune@options" also sets CLNORM_BUILD_OPTIONS (experimental kernel -D switches; ',' for ' ')
    for s in ${TUNES_SHAPES:-131200x1023}; do
      for v in ${TUNES_VARIANTS:-new=}; do
        split_variant "$v"
        env ${t:+CLNORM_TUNE=$t} ${o:+"CLNORM_BUILD_OPTIONS=$o"} timeout 60 "$b/clnorm-bench" --device nvidia --reps 10 --dtype ${TUNES_DTYPE:-bf16} --shape "$s" 2>&1 |
          awk -v n="$k" -v s="$s" '$1~/^(forward|backward|backward_res|backward_dx|backward_dx_res|unfused)$/{printf "%s %s %s %s\n", s, n, $1, $8} /checks:/{print s, n, $0} /rror/{print s, n, substr($0, 1, 300)}'
      done
    done > "$out/tunes_${TUNES_DTYPE:-bf16}.txt"
    cat "$out/tunes_${TUNES_DTYPE:-bf16}.txt"
    ;;
opts)
    # Extra build options A/B (OPTS_VARIANTS "name=options" list, options with ',' for ' '),
    # alternated per shape (OPTS_SHAPES, OPTS_DTYPES), with each build's registers (-cl-nv-verbose).
    # The options reach every program of a call (forward, backward, reduction). Session 30 timed
    # whole phase edges here as wide=-DPH_WIDE_LOADS before the host chose them (the macro is
    # host-set now: CLNORM_TUNE=phase_edge_elems=1 is the A/B, and the macro would fail the
    # forward's builds and skip the host's buffer check)
    for s in ${OPTS_SHAPES:-131200x1023 65568x2047 44724x3001 32776x4095}; do
      for round in 1 2; do
        for v in ${OPTS_VARIANTS:-base= verbose=-cl-nv-verbose}; do
          k=${v%%=*}; o=${v#*=}; o=${o//,/ }
          for dt in ${OPTS_DTYPES:-bf16}; do
            CLNORM_BUILD_LOG=1 CLNORM_BUILD_OPTIONS="-cl-nv-verbose $o" timeout 60 "$b/clnorm-bench" --device nvidia --reps 10 --dtype $dt --shape "$s" \
                2> "/tmp/opts.log" | awk -v n="$k$round" -v s="$s" -v d=$dt '$1~/^(forward|backward|backward_res|backward_dx|backward_dx_res|unfused)$/{printf "%s %s %s %s %s\n", s, d, n, $1, $8} /checks:/{print s, d, n, $0}'
            [ $round = 1 ] && echo "$s $dt $k regs: $(grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' /tmp/opts.log | grep -v '^0 bytes' | tr '\n' ' ')"
          done
        done
      done
    done > "$out/opts.txt"
    cat "$out/opts.txt"
    ;;
regs)
    # Each variant's ("name=tune@options", REGS_VARIANTS) programs at REGS_SHAPES in REGS_DTYPE:
    # per built program its kernel, its shape macros, registers and spills (-cl-nv-verbose), and
    # the run's fractions of the copy (one bench run per variant and shape, every op checked)
    for s in ${REGS_SHAPES:-8192x16384}; do
      for v in ${REGS_VARIANTS:-base=}; do
        split_variant "$v"
        env ${t:+CLNORM_TUNE=$t} CLNORM_BUILD_LOG=1 CLNORM_BUILD_OPTIONS="-cl-nv-verbose${o:+ $o}" timeout 60 \
            "$b/clnorm-bench" --device nvidia --reps 5 --dtype ${REGS_DTYPE:-f32} --shape "$s" > /tmp/regs.txt 2> /tmp/regs.log
        awk -v n="$k" -v s="$s" '$1~/^(forward|backward|backward_res|backward_dx|backward_dx_res|unfused)$/{printf "%s %s %s %s\n", s, n, $1, $8} /checks:/{print s, n, $0}' /tmp/regs.txt
        awk -v n="$k" -v s="$s" '/^clnorm: built/{k=$3; m=""; for(i=4;i<=NF;i++) if ($i ~ /^-D(TPR|NCACHE|NACC|RPI|DXB|NACC_LOCAL|NV_PREFETCH|PIPE|DR_EARLY|PARTIALS|CACHE_RAW)/) m=m" "$i}
            /spill stores/{match($0,/[0-9]+ bytes spill stores/); st=substr($0,RSTART,RLENGTH-19); match($0,/[0-9]+ bytes spill loads/); ld=substr($0,RSTART,RLENGTH-18)}
            /Used [0-9]+ registers/{match($0,/Used [0-9]+ registers/); r=substr($0,RSTART+5,RLENGTH-15);
                           if (k ~ /backward/) printf "%s %s regs %s spill %s/%s %s%s\n", s, n, r, st, ld, k, m}' /tmp/regs.log | sort -u
      done
    done > "$out/regs.txt"
    cat "$out/regs.txt"
    ;;
ptx)
    # What NVIDIA's compiler makes of the kernels of some shapes (PTX_SHAPES, BF16): each program
    # a bench run builds (CLNORM_BUILD_LOG prints its options) rebuilt by clnorm-kernel-log with
    # -cl-nv-verbose (registers, spills) and its PTX written, all in one archive.
    mkdir -p /tmp/ptx && rm -f /tmp/ptx/*
    for s in ${PTX_SHAPES:-131200x1023 131072x1024}; do
        CLNORM_BUILD_LOG=1 timeout 60 "$b/clnorm-bench" --device nvidia --reps 2 --dtype bf16 --shape "$s" \
            > "/tmp/ptx/bench_$s.txt" 2> "/tmp/ptx/build_$s.log"
        echo "bench $s: exit $?"
        grep -E "^(forward|backward)" "/tmp/ptx/bench_$s.txt"
        grep -o 'clnorm: built [a-z_]* with "[^"]*"' "/tmp/ptx/build_$s.log" | sort -u | nl -w1 -s' ' |
        while read -r n _ _ kname _ opts; do
            opts=${opts#\"}; opts=${opts%\"}
            file=cl/backward.cl
            case $kname in *forward*) file=cl/forward.cl;; *reduce*) file=cl/reduce.cl;; esac
            echo "$s $n $kname $opts" >> /tmp/ptx/index.txt
            "$b/clnorm-kernel-log" cl "$file" "-cl-nv-verbose $opts" "/tmp/ptx/${s}_$n.ptx" > "/tmp/ptx/${s}_$n.log" 2>&1
            echo "$s $n $kname: $(grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)' "/tmp/ptx/${s}_$n.log" | tr '\n' ' ')"
        done
    done
    (cd /tmp/ptx && tar -czf "$out/ptx.tar.gz" .)
    ;;
survey)
    # CLNORM_TUNE variants alternated per width (SURVEY_COLS, rows = 2^27 / cols; SURVEY_VARIANTS
    # "name=tune" list; SURVEY_ROUNDS), one dtype (SURVEY_DTYPE), the ops matching SURVEY_OPS;
    # each line flushed as it comes, so a run cut by the time limit keeps what it measured
    for c in ${SURVEY_COLS:-1022}; do
      s=$(( (1 << 27) / c ))x$c
      for round in $(seq 1 ${SURVEY_ROUNDS:-2}); do
        for v in ${SURVEY_VARIANTS:-new=}; do
          k=${v%%=*}; t=${v#*=}
          env ${t:+CLNORM_TUNE=$t} timeout 60 "$b/clnorm-bench" --device nvidia --reps 10 --dtype ${SURVEY_DTYPE:-bf16} --shape "$s" 2>&1 |
            awk -v n="$k$round" -v s="$s" -v ops="${SURVEY_OPS:-^backward_dx}" '$1~ops{printf "%s %s %s %s %s\n", s, n, $1, $2, $8; fflush()} /checks:/ && !/ 0 failed/{print s, n, $0; fflush()}'
        done
      done
    done | tee -a "$out/survey_${SURVEY_DTYPE:-bf16}.txt"
    ;;
grid)
    # --tune over given grids (GRID_FWD / GRID_BWD / GRID_DX / GRID_RES: ';'-separated CLNORM_TUNE
    # candidates, repeated in the grid to alternate them; unset: that op is not timed) at
    # GRID_SHAPES (RxC) in GRID_DTYPE; one process per shape, the candidates' lines as they come
    for s in ${GRID_SHAPES:-2048x65536}; do
        # (env: a NAME=value word that comes from an expansion is not an assignment to the shell)
        env CLNORM_BENCH_TUNE_FWD="${GRID_FWD:-}" CLNORM_BENCH_TUNE_BWD="${GRID_BWD:-}" \
            ${GRID_DX:+"CLNORM_BENCH_TUNE_DX=$GRID_DX"} ${GRID_RES:+"CLNORM_BENCH_TUNE_RES=$GRID_RES"} \
            timeout ${GRID_TIMEOUT:-120} "$b/clnorm-bench" --device nvidia --tune --reps ${GRID_REPS:-10} \
            --dtype ${GRID_DTYPE:-f32} --shape "$s" 2>&1 | grep -E '^tune|rror' | tee -a "$out/grid_${GRID_DTYPE:-f32}.txt"
    done
    ;;
full)
    # The headline table (`--full`, every op checked against the float64 reference) and the
    # host time of one enqueue (`--overhead`), twice each: the JSON is what docs/h200-full.json
    # holds and bench/plot.py draws.
    timeout ${FULL_TIMEOUT:-400} "$b/clnorm-bench" --device nvidia --full --reps 20 --json "$out/full.json" > "$out/full.txt" 2>&1
    echo "full: exit $?"
    grep -E "checks|copy" "$out/full.txt" | head -20
    for i in 1 2; do timeout 60 "$b/clnorm-bench" --device nvidia --overhead > "$out/overhead_$i.txt" 2>&1; echo "overhead $i: exit $?"; done
    cat "$out"/overhead_*.txt
    ;;
large)
    # The 64-bit size test (tests/test_large.c: rows x cols past 2^32 elements, ~40 GiB), built
    # with -DCLNORM_LARGE_TESTS=ON in a tree of its own
    if { cmake -S . -B /tmp/bl -DCMAKE_BUILD_TYPE=Release -DCLNORM_LARGE_TESTS=ON &&
         cmake --build /tmp/bl -j16 --target test_large; } > "$out/build_large.log" 2>&1; then
        (cd /tmp/bl && CLNORM_DEVICE=nvidia timeout ${LARGE_TIMEOUT:-500} ctest -L large --output-on-failure) > "$out/large.log" 2>&1
        echo "large: exit $?"
        tail -15 "$out/large.log"
    else
        echo "large: build failed"
        tail -20 "$out/build_large.log"
    fi
    ;;
ship)
    # A table change checked and measured in one call (its edit left uncommitted in the tree that
    # the device tool copies): the tests matching SHIP_FIRST first, then `--full` (every op
    # checked), then the SHIP_AB variants ("name=tune" list) at SHIP_SHAPES in SHIP_DTYPE,
    # alternated SHIP_ROUNDS times, then the rest of the suite until SHIP_DEADLINE seconds after
    # the script began (what did not run is listed in suite_rest.log as not run)
    (cd "$b" && timeout 200 ctest --output-on-failure -j4 -R "${SHIP_FIRST:?}") > "$out/suite_first.log" 2>&1
    echo "first: exit $?"
    grep -E "tests passed|Failed|\*\*\*" "$out/suite_first.log" | tail -10
    timeout 150 "$b/clnorm-bench" --device nvidia --full --reps 20 --json "$out/full.json" > "$out/full.txt" 2>&1
    echo "full: exit $?"
    grep -E "checks" "$out/full.txt"
    for round in $(seq "${SHIP_ROUNDS:-2}"); do
      for s in ${SHIP_SHAPES:?}; do
        for v in ${SHIP_AB:?}; do
          k=${v%%=*}; t=${v#*=}
          env ${t:+CLNORM_TUNE=$t} timeout 40 "$b/clnorm-bench" --device nvidia --reps 20 --dtype "${SHIP_DTYPE:-bf16}" --shape "$s" 2>&1 |
            awk -v n="$k" -v s="$s" -v r="$round" '$1~/^(forward|backward|backward_res|backward_dx|backward_dx_res|unfused|copy)$/{print r, s, n, $0} /checks:/{print r, s, n, $0}'
        done
      done
    done > "$out/ab.txt"
    cat "$out/ab.txt"
    left=$(( ${SHIP_DEADLINE:-560} - SECONDS ))
    if [ "$left" -gt 30 ]; then
        (cd "$b" && timeout "$left" ctest --output-on-failure -j6 -E "$SHIP_FIRST") > "$out/suite_rest.log" 2>&1
        echo "rest (${left} s): exit $?"
        grep -E "tests passed|Failed|\*\*\*|Total Test" "$out/suite_rest.log" | tail -30
    fi
    ;;
due)
    # What is due next, by card, in one call (session 47: starts were scarce, so one call has to
    # serve whichever card comes). H200: the 0.35.0 prefetch rule against its keys off and the
    # dr key (`tunes`, below), then the suite (DUE_SUITE_REGEX; default the backward, hostile,
    # plan_edges and test_api tests: 0.35.0's kernels and plan rules) in what is left of DEADLINE seconds. Any other card: the whole suite.
    # DUE_F32_SHAPES / DUE_F32_VARIANTS / DUE_BF16_SHAPES / DUE_BF16_VARIANTS shrink the tunes.
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    echo "due on: $gpu"
    case "$gpu" in
    *H200*)
        suite_re=${DUE_SUITE_REGEX-backward|hostile|plan_edges|test_api}
        TUNES_DTYPE=f32 TUNES_SHAPES=${DUE_F32_SHAPES:-'8192x16384 9362x14336 10082x13312'} \
            TUNES_VARIANTS=${DUE_F32_VARIANTS:-'new= off=bwd_prefetch_cur_cols=0 new2='} bash "$0" tunes
        TUNES_DTYPE=bf16 TUNES_SHAPES=${DUE_BF16_SHAPES:-'8192x16384 8738x15360 9362x14336 10082x13312'} \
            TUNES_VARIANTS=${DUE_BF16_VARIANTS:-'new= off=bwd_prefetch16_cur_res=0 dr=bwd_prefetch16_cur_dr=1 new2='} bash "$0" tunes
        ;;
    *) suite_re=${DUE_SUITE_REGEX-} ;;
    esac
    left=$(( ${DEADLINE:-545} - SECONDS ))
    echo "suite gets ${left} s"
    (cd "$b" && timeout "$left" ctest --output-on-failure -j8 --timeout 400 ${suite_re:+-R "$suite_re"}) > "$out/suite.log" 2>&1
    echo "suite: exit $?"
    grep -E "tests passed|Failed|\*\*\*|Not Run|Total Test" "$out/suite.log" | tail -40
    ;;
*)
    echo "unknown stage $stage" >&2
    exit 2
    ;;
esac
