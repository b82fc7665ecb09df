/* clnorm — the per-device table and the choice of launch parameters.
 * Entries are tried in order; the first whose vendor and type match wins (vendor -> device type
 * -> default). Figures behind them: docs/PERFORMANCE.md. */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
/* Figures behind the NVIDIA row: clnorm-bench --tune on the H200 (docs/PERFORMANCE.md), with each
 * kernel variant compiled for its one register-cache regime: the forward is fastest with 128-item
 * groups, 4 vectors per item and up to 512 items per row (1024 when the row needs more than 8
 * vectors per item); the backward
 * with 2 vectors per item so that x-hat and g stay in registers (x and dy read once), up to 512
 * items per row (1024 where that keeps the row in registers: fp32 at cols 8192, dx-only calls with
 * up to 4 vectors per item), 256-item groups and 4 persistent groups per compute unit. 16-bit
 * calls cache x and dy as stored; those with dweight/dbias (whose fp32 sums cost registers, so
 * fewer items fit) pipeline the next row block's loads (bf16 cols 256-8192: 0.25-0.29 -> 0.21-0.22
 * ms); the residual gradient is loaded with x and dy (bf16 cols 1024: 0.37 -> 0.29 ms).
 * Session 4's tune runs, docs/PERFORMANCE.md. Session 5: long 16-bit dx-only rows (from 12288)
 * take 512 items x 3-4 vectors, pipelined (bf16 16384: 0.81 -> 0.96 of the copy; 12288: 0.283 ->
 * 0.209 ms). Session 6: the all-16-bit forward from cols 5120 on is pipelined on a persistent grid
 * of 4 x 128 items per compute unit, fp32 cache (bf16 at 5120/8192/12288/16384: 0.165/0.154/
 * 0.167/0.150 -> 0.143/0.144/0.157/0.147 ms; with the raw 16-bit cache the same layouts were
 * 2-4 % slower, and fp32 calls were slower pipelined at every shape, 4-8 %). The all-16-bit
 * backward with dweight/dbias from 12288 on prefetches its next row block into L2 (bf16 at
 * 12288 / 16384: 0.374 / 0.369 -> 0.326 / 0.331 ms, with the residual 0.448 / 0.449 -> 0.400 /
 * 0.408; slower at 8192 and for fp32). Session 7: a register cache of 3 vectors (rows of 5120 and
 * 12288 with dweight/dbias cached: fp32 0.525 / 0.621 -> 0.469 / 0.563 ms, bf16 12288 0.326 ->
 * 0.255), pipelined with dweight/dbias only up to 1024 vectors a register set per group; fp32 rows
 * read twice re-read in batches of 2 vectors (cols 16384: 0.654 -> 0.606 ms); the dx16 rule from
 * 8192 (bf16 dx 0.211 -> 0.208 ms). Session 8: the 16-bit fill rule to 5 vectors (bf16 with
 * dweight/dbias at 2560 / 5120 / 10240: 0.256 / 0.259 / 0.286 -> 0.221 / 0.231 / 0.242 ms), the L2
 * prefetch for fp32 calls without a residual gradient from 8192 (0.424 -> 0.404 ms; 12288 0.557 ->
 * 0.513), one twice-read group per compute unit (cols 16384: 2-4 %). Session 9: the 16-bit
 * forward's exact fit as stored (bf16 at 5120 / 6144 / 10240 / 12288: 0.144 / 0.155 / 0.165 /
 * 0.159 -> 0.136 / 0.136 / 0.141 / 0.139 ms; 8192 as 128 x 8: 0.146 -> 0.142), 1024-item 16-bit
 * forward rows, as stored where fp32 would not fit (20480 / 32768 / 65536: 0.198 / 0.196 / 0.308
 * -> 0.144 / 0.164 / 0.192), one sum vector per item in local memory and batches of 3 for fp32
 * twice-read calls with a residual gradient (cols 16384: 0.751 -> 0.715). Session 10: 2 (with a
 * residual gradient 1) persistent groups per compute unit for cached all-16-bit calls with
 * dweight/dbias, what their registers let run at once (bf16 cols 64 / 4096 / 8192: 0.301 / 0.216
 * / 0.221 -> 0.249 / 0.209 / 0.214 ms, with the residual 0.510 / 0.279 / 0.276 -> 0.322 / 0.265 /
 * 0.266). Session 19: the pipelined forward's rows cached in fp32 also prefetch the block after
 * their next one into L2 from 12288 cols (bf16 16384: 0.146 -> 0.140 ms). */
/* The NVIDIA row's row phases (PHASE, common.cl) for the backward: every fp32 (32-bit-widest)
 * backward call, and all-16-bit ones with dweight/dbias. The H200, session 24, final code,
 * fraction of the copy, narrowed -> phases, cols 1023 (131200 rows) / 4095 (32776 rows): F32
 * backward 0.549 -> 0.520 / 0.509 -> 0.706, backward_res 0.609 -> 0.552 / 0.380 -> 0.692, dx
 * 0.549 -> 0.741 / 0.684 -> 0.723, dx_res 0.643 -> 0.862 / 0.819 -> 0.845; BF16 backward 0.163
 * -> 0.275 / 0.278 -> 0.292, backward_res 0.141 -> 0.139 / 0.185 -> 0.320. Skipped: the
 * all-16-bit dx-only calls (BF16 dx 0.281 -> 0.226 / 0.319 -> 0.249, dx_res 0.271 -> 0.248 /
 * 0.292 -> 0.254). An H100 (run 1, the first weight access) agreed but for BF16 at 4095. (The
 * forward, F32 0.749 -> 0.370 / 0.687 -> 0.362 and BF16 0.366 -> 0.172 / 0.315 -> 0.161 with the
 * weight and bias in registers, takes no phases at all since 0.20.0: phase_op_bit.) */
/* Session 30, an H100, with each frame's edge vectors read whole (PH_WIDE_LOADS), BF16 dx_res,
 * narrowed -> phases: 511 0.447 -> 0.620, 1023 0.447 -> 0.542, 2047 0.455 -> 0.517, 3001 0.403
 * -> 0.776, 4095 0.436 -> 0.617 (bit 9 dropped); BF16 dx: 3001 0.475 -> 0.617, but 511 0.563 ->
 * 0.489, 1023 0.575 -> 0.429, 2047 0.584 -> 0.429, 4095 0.562 -> 0.479 (bit 8 kept). Session 32:
 * bit 8 dropped, the dx-only calls taking phases only pipelined (NV_PHASE_PIPE_DX16, below) */
#define NV_PHASE_SKIP 0u
/* Session 26 (an H100, --tune at 7 repetitions, fraction of the copy): where the narrowed plan
 * holds the row in registers, phases only where the vectors narrow to one element. At cols 1022
 * (2-element vectors) the narrowed plans won every op: F32 backward 0.721 -> 0.954,
 * backward_res 0.772 -> 0.973, dx 0.920 -> 0.965; BF16 backward 0.395 -> 0.697, backward_res
 * 0.211 -> 0.691. And the fp32 backward calls keep the narrowed
 * plan where it holds the row in registers (with bwd_narrow_item_bytes' 4 vectors per item):
 * cols 1023 phases -> narrowed, backward 0.703 -> 0.958, backward_res 0.748 -> 1.017, dx 0.904
 * -> 0.974; at 4095 the narrowed row is not cached there and phases stay (backward 0.859 against
 * 0.673), but for dx, cached in 1024 items, 0.878 -> 0.859 */
#define NV_PHASE_CACHED_SKIP ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4))
/* ... but only where that narrowed plan takes at most 512 items per row: session 27, an H100, F32
 * dx, fraction of the copy, narrowed / phases: 1535 (512 items x 3) 0.813 / 0.791; at 1024 items
 * 2559 0.699 / 0.953, 3001 0.745 / 0.970 (run 3; dx_res 0.828 / 0.987), 3583 0.797 / 0.826.
 * Session 28, the H200, 0.20.0's plans -> these: dx 2559 0.541 -> 0.841, 3001 0.589 -> 0.892,
 * 3583 0.649 -> 0.710, 4095 0.684 -> 0.723 (dx_res 0.619 / 0.678 / 0.776 / 0.818 -> 0.972 /
 * 0.988 / 0.834 / 0.843) */
#define NV_PHASE_CACHED_TPR_MAX 512
/* The phased all-16-bit residual backward (the NVIDIA row's bwd phase_rpi16_res 1 and
 * phase_nopipe16_res): one row per item, not pipelined (0.21.0: never; below: where the cache is
 * deep). Session 27, an H100, BF16
 * backward_res, fraction of the copy: --tune (run 2) rows per item 2 -> 1 at cols 2047 0.32 ->
 * 0.431; without the pipeline 4095 / 8191 0.482 / 0.510 against 0.43 / 0.42 (the pipelined
 * kernels spill 240 / 328 bytes); 1023 even (0.31-0.32). Both (run 13, indicative: a machine that
 * computed wrong results): 2047 0.306 -> 0.451, 4095 0.431 -> 0.457. Session 28, the H200,
 * 0.20.0's plans -> these: 1023 0.218 -> 0.325, 2047 0.223 -> 0.336 (one row per item deepens
 * the frame's cache from 3 to 5 vectors), 2559 0.288 -> 0.327, 4095 0.312 -> 0.349, 8191 0.303 ->
 * 0.358 (5 vectors, not pipelined); but 3001 0.379 -> 0.360 (128 x 3 either way), 3583 0.305 ->
 * 0.283, 6002 0.400 -> 0.387 (3 vectors, not pipelined), 255 0.141 -> 0.131: kept for the sum;
 * docs/PERFORMANCE.md has the lead (each key only where the cache is deep) */
/* ... not pipelined only where its register cache is at least 4 vectors deep (phase_nopipe16_res
 * 4; rows per item stay 1 everywhere). Session 29, the H200, BF16
 * backward_res, fraction of the copy, never pipelined (0.21.0) -> pipelined below 4 vectors:
 * 383 0.168 -> 0.180, 767 0.224 -> 0.254, 1279 0.316 -> 0.338, 1535 0.234 -> 0.262, 1791 0.269
 * -> 0.302, 2559 0.329 -> 0.348, 2815 0.354 -> 0.370, 3071 0.248 -> 0.275, 3327 0.263 -> 0.298,
 * 3583 0.284 -> 0.317, 3839 0.301 -> 0.339, 5119 0.346 -> 0.368; but 511 (32 x 3) 0.229 ->
 * 0.212, 7001 (512 x 2) 0.343 -> 0.316. One row per item only where it deepens the cache
 * (2 rows elsewhere, a key measured and removed) lost to this at 2559 / 2815 / 3327 / 3583: 0.287
 * / 0.342 / 0.269 / 0.305 */
#define NV_PHASE_NOPIPE16_RES 4
/* ... nor where its group takes more than 256 items (phase_pipe16_res_wg_max): session 29, the
 * H200, 512 x 2, pipelined -> not: 6500 0.328 -> 0.334, 7001 0.305 -> 0.339, 7935 0.339 ->
 * 0.376 (0.21.0: 0.342 / 0.339 / 0.373). Pipelined at 3001 (128 x 3) 0.358 -> 0.377, 6002 (256 x
 * 3) 0.386 -> 0.401; at 32 items or fewer per row about even, 511 (32 x 3) lost: 63 / 127 / 255
 * 0.122 / 0.127 / 0.129 -> 0.120 / 0.124 / 0.128, 511 0.224 -> 0.210 */
#define NV_PHASE_PIPE16_RES_WG_MAX 256
/* The phased all-16-bit backward with dweight/dbias and no residual gradient: not pipelined where
 * its register cache is at least 4 vectors deep (phase_nopipe16). Session 30, an H100, edge
 * vectors read whole, BF16 backward, pipelined -> not: 1023 (32 x 5) 0.464 -> 0.551, 2047 0.455 ->
 * 0.492, 4095 0.483 -> 0.506 (the pipelined kernels spill at 255 registers); but 3001 (128 x 3)
 * 0.770 -> 0.561, 511 (32 x 3) 0.576 -> 0.447 */
#define NV_PHASE_NOPIPE16 4
/* The phased all-16-bit backward with dweight/dbias, with or without a residual gradient: no 16-bit
 * fill rule in frames where it would end at 128 items per row or fewer, so 3 vectors per item
 * rather than 5 in half the items (phase_nofill16_tpr). Session 30, the H200, BF16, fill rule ->
 * not, backward_res / backward: 1023 (32 x 5 -> 64 x 3) 0.428 / 0.405 -> 0.530 / 0.394, 2047
 * 0.393 / 0.369 -> 0.557 / 0.424, 4095 (128 x 5 -> 256 x 3) 0.410 / 0.383 -> 0.610 / 0.477; at
 * 8191 (256 x 5 -> 512 x 3, not pipelined) it lost, 0.483 / 0.446 -> 0.392 / 0.349 */
#define NV_PHASE_NOFILL16_TPR 128
/* The phased all-16-bit backward without dweight/dbias: pipelined where its register cache is at
 * least 3 vectors deep and its group takes at most 512 items (phase_pipe_dx16,
 * phase_pipe_dx16_wg_max); the dx-only calls take phases only so, and only where the vectors
 * narrow to one element (NV_PHASE_SKIP no longer keeps them narrowed; plan_phase). Session 32, an
 * H100, BF16, fraction of the copy, 0.24.0 -> pipelined in phases: dx 511 0.564 -> 0.683, 1023
 * 0.574 -> 0.659, 1279 0.498 -> 0.809, 2047 0.583 -> 0.650, 2559 0.470 -> 0.814, 3001 0.474 ->
 * 0.881, 4095 0.562 -> 0.714, 5119 0.400 -> 0.821, 8191 (512 x 3) 0.448 -> 0.701, 12287 (512 x 4)
 * 0.501 -> 0.691; dx_res 511 0.619 -> 0.836, 1023 0.542 -> 0.796, 1279 0.690 -> 0.925, 2047 0.515
 * -> 0.798, 2559 0.688 -> 0.931, 3001 0.776 -> 0.961, 4095 0.618 -> 0.871, 5119 0.725 -> 0.933.
 * Lost: 2-vector caches, dx / dx_res 255 (32 x 2) 0.582 / 0.580 -> 0.505 / 0.514, dx_res 767 0.778
 * -> 0.770, 1535 0.798 -> 0.771 (but dx 767 0.579 -> 0.833, 1535 0.511 -> 0.857); dx 16383 (1024 x
 * 3) 0.530 -> 0.367. fp32 (not in the rule): dx 3583 / 4095 0.833 / 0.853 -> 0.967 / 0.976, but
 * dx_res 4095 0.974 -> 0.844 and 1024-item groups 8191 / 12287 0.934 / 0.720 -> 0.633 / 0.400 */
#define NV_PHASE_PIPE_DX16 3
#define NV_PHASE_PIPE_DX16_WG_MAX 512
/* ... and the calls without a residual gradient (dx only) from 2 vectors deep, where the frame
 * fills more than 5/8 of the items' vectors (phase_pipe_dx16_nores; plan_shape), and at 2-element
 * widths too where the narrowed plan re-reads the row, up to 13824 columns (phase_pipe_dx16_reread_cols;
 * plan_phase). Session 33, an H100, BF16 dx, fraction of the copy, 0.25.0 -> pipelined in phases,
 * two runs each: 2 vectors, 383 (32 x 2, 49 of 64 vectors) 0.590 -> 0.719, 505 0.564 -> 0.907, 767
 * 0.580 -> 0.829, 1001 0.565 -> 0.938, 1535 0.513 -> 0.854, 2001 0.577 -> 0.940, 3301 0.497 ->
 * 0.915, 3901 0.552 -> 0.941, 6501 0.405 -> 0.904, 8001 0.447 -> 0.939; frames of about half the
 * vectors: 255 (33 of 64) 0.584 -> 0.507, 127 (17 of 32) 0.442 -> 0.509; dx_res at 2 vectors lost
 * at every width (0.93-1.00). 2 elements, narrowed plan re-reading the row: 8194 0.609 -> 0.698,
 * 10242 0.544 -> 0.766, 12290 0.619 -> 0.686, 13314 0.664 -> 0.684, 13826 0.682 -> 0.683, 14338
 * 0.714 -> 0.662 (session 32: 16374 0.765 -> 0.635); narrowed plan caching the row: 510 / 1022 /
 * 2046 / 4094 0.863 / 0.863 / 0.867 / 0.824 -> 0.703 / 0.682 / 0.679 / 0.723 */
#define NV_PHASE_PIPE_DX16_NORES 2
/* ... in rows of at least 8 items: the verification run, 0.25.0 -> 0.26.0's first rule, dx at 7
 * (1 item x 2 vectors) 0.458 -> 0.078, 47 (4 items) 0.394 -> 0.335, but 121 (8 items) 0.425 ->
 * 0.623, 249 0.574 -> 0.865, 315 (41 of 64 vectors) 0.538 -> 0.606, 755 0.571 -> 0.836, 1523 0.509
 * -> 0.840, 3059 0.481 -> 0.890, 6131 0.395 -> 0.879, 8177 0.447 -> 0.945; 127 / 255 (the fill
 * bound) unchanged; 2 elements, 9218 0.664 -> 0.737, 13822 0.683 -> 0.683
 * (phase_pipe_dx16_nores_tpr) */
#define NV_PHASE_PIPE_DX16_NORES_TPR 8
#define NV_PHASE_PIPE_DX16_REREAD_COLS 13824
/* ... but not where the narrowed plan holds the row in registers in at most a warp's 32 items (its
 * reductions within one warp): session 34, an H100, BF16 dx, 0.26.0 (phased, 8 items x 2 vectors)
 * against the narrowed plan (1 element, 32 items x 3), two runs each: 75 0.467 / 0.508 (narrowed), 77
 * 0.467 / 0.519, 83 0.505 / 0.550, 91 0.537 / 0.587, 95 0.554 / 0.606; from 97 the narrowed plan
 * takes 64 items x 2 and the phases won: 99 0.356 -> 0.562, 103 0.369 -> 0.600, 111 0.396 -> 0.649,
 * 155 (64 x 3) 0.399 -> 0.610, 201 0.359 -> 0.757, 249 (32 items, not cached) 0.577 -> 0.853
 * (phase_pipe_dx16_keep_tpr) */
#define NV_PHASE_PIPE_DX16_KEEP_TPR 32
/* ... and the phased fp32 calls with dx only (no residual gradient) pipelined where the row
 * takes the table's most items, 512 (phase_pipe_dx32; 1024 where the row is cached,
 * tpr_max_cached, lost). Session 32, an H100, F32 dx, fraction of the copy,
 * 0.24.0 -> pipelined, two runs each: 3583 (512 x 2) 0.833 / 0.831 -> 0.967 / 0.966, 4095 (512 x
 * 3) 0.853 / 0.851 -> 0.976 / 0.981, 6001 (512 x 3) 0.959 / 0.960 -> 0.971 / 0.971, 2559 (256 x
 * 3) 0.964 / 0.970 -> 0.972 / 0.968, 3001 (256 x 3) 0.981 / 0.988 -> 0.970 / 0.967; 1024-item
 * groups lost (8191 0.934 -> 0.633, 12287 0.720 -> 0.400), and so did dx_res (4095 0.974 ->
 * 0.844, 2559 / 6001 1.003 / 1.005 -> 0.967 / 0.964) */
#define NV_PHASE_PIPE_DX32 1
/* The phased all-16-bit dx_res calls (with a residual gradient, without dweight/dbias) in long rows,
 * where the narrowed plan re-reads the row: not where the alignment narrows the vectors to 4
 * elements (phase_dx16_res_vec_max 2), nor to 2 where the phased cache would be 4 vectors deep
 * (phase_dx16_res_deep 4; every such frame here takes 1024 items, 64 registers each). Session 34,
 * an H100, BF16 dx_res, fraction of the copy, phased / narrowed, two runs each: 4 elements, 16388
 * (1024 x 3) 0.660 / 0.704, 20484 0.681 / 0.725, 24580 (1024 x 4) 0.507 / 0.732, 28676 0.488 /
 * 0.739; 2 elements, 24578 (1024 x 4) 0.488 / 0.579, 28674 0.486 / 0.582, but 1024 x 3 or 2
 * phased won: 12290 0.690 / 0.627, 16386 0.618 / 0.560, 20482 0.669 / 0.567; 1 element, phased
 * won at every depth: 12287 0.664 / 0.428, 16383 0.615 / 0.448, 20479 0.661 / 0.453, 24575
 * (1024 x 4) 0.490 / 0.458, 28671 0.491 / 0.461 */
#define NV_PHASE_DX16_RES_VEC_MAX 2
#define NV_PHASE_DX16_RES_DEEP 4
/* ... and the same depth bound for the phased calls with a 32-bit tensor without dweight/dbias (dx
 * and dx_res), narrowed to 2 elements (phase_dx32_deep 4). Session 34, an H100, F32, phased /
 * narrowed, two runs each: 4 deep (1024 items), dx / dx_res 12290 0.747 / 0.887, 0.779 / 0.883;
 * 14338 0.735 / 0.821, 0.745 / 0.820; 16378 0.741 / 0.804, 0.741 / 0.817; 3 deep, phased won:
 * 8194 0.945 / 0.698, 0.927 / 0.796; 10242 0.934 / 0.712, 0.921 / 0.789; 12282 0.917 / 0.756,
 * 0.908 / 0.793. Narrowed to 1 element, 4 deep, not in the rule: dx_res phased won (14335 0.746 /
 * 0.688, 16381 0.732 / 0.663), dx mixed (14335 0.728 / 0.773, 16381 0.732 / 0.617) */
#define NV_PHASE_DX32_DEEP 4
/* acc_local16 (session 39, an H100, `--tune`, bf16, ms, two alternations): one of each item's sum
 * vectors in local memory beside a row cached 4 deep (cols 16384, read twice before) 0.382 -> 0.340,
 * with the residual gradient 0.494 -> 0.436; 3 deep (12288) 0.311 -> 0.292. On since session 41,
 * whose H100 call ran the whole suite with it (and --full, every op checked), alternating it with
 * CLNORM_TUNE=bwd_acc_local16=0 twice, ms, off / on: 16384 backward 0.3830 / 0.3332, 0.3798 /
 * 0.3344 (0.70 -> 0.81 of the copy), with the residual gradient 0.4952 / 0.4363, 0.4912 / 0.4345
 * (0.72 -> 0.83); 12288 backward 0.3062 / 0.2909, 0.3064 / 0.2914 (0.89 -> 0.93), with the
 * residual gradient 0.3777 / 0.3788, 0.3780 / 0.3795 (a tie) */
#define NV_ACC_LOCAL16 1
/* The residual gradient not loaded early in all-16-bit calls with dweight/dbias whose row is cached
 * 4 deep beside acc_local16's local sums (bwd_dr_early16_nc_max 3: cols 12289-16384 at 512 items;
 * since 0.34.0 only from NV_DR_EARLY16_COLS_MIN, below),
 * which gives them the butterfly back and takes the early load's spills away. Session 43, an H200,
 * `tunes`, bf16, fraction of the copy, two alternations, table / bwd_dr_early=0: 8192 x 16384
 * backward_res 0.665 / 0.754, 0.659 / 0.756 (+14 %); but 10922 x 12288 (3 deep) 0.851 / 0.739,
 * 0.856 / 0.745, and the dx-only backward_dx_res 0.988 / 0.891 at 16384, so neither there. On an
 * H100 (session 42, bwd_dr_early=0, ms): 16384 0.4291 / 0.4275, 0.4297 / 0.4271 (+0.5 %), 12288
 * -10 %, 8192 -9 % */
#define NV_DR_EARLY16_NC_MAX 3
/* ... from 15361 columns on (bwd_dr_early16_cols_min): the 4-deep rows with idle items keep the
 * early load. Session 44, an H100, `tunes`, bf16 backward_res, fraction of the copy, two
 * alternations, 0.33.0's rule / no bound (bwd_dr_early16_nc_max=0): 10082 x 13312 0.831 / 0.865,
 * 0.836 / 0.879; 9362 x 14336 0.836 / 0.867, 0.833 / 0.874 (and 0.831 / 0.870, 0.835 / 0.870 in
 * `ship`); 8738 x 15360 0.834 / 0.852, 0.831 / 0.853; 8192 x 16384 0.840 / 0.840, 0.836 / 0.840
 * (`ship`: 0.834 / 0.833, 0.837 / 0.829). The H200 gains 8-12 % at 13312-15360 from the rule,
 * so it takes 0 (clnorm__params_fit_device) */
#define NV_DR_EARLY16_COLS_MIN 15361
/* Each field is documented in internal.h (clnorm_op_params, clnorm_device_params); a field left
 * out is 0, which each field's comment gives a meaning: off, none, derived, or no bound. */
static const clnorm_device_params table[] = {
    /* NVIDIA GPUs: the H200's figures above */
    {
     .vendor = "NVIDIA", .type = CL_DEVICE_TYPE_GPU, .vec_bytes = 16, .nv_shfl = true, .nv_cvt = true, .red_lanes = 32,
     .packed_args = true, .row_phase = true, .phase_skip = NV_PHASE_SKIP, .phase_vec_max = 1,
     .phase_cached_skip = NV_PHASE_CACHED_SKIP, .phase_cached_tpr_max = NV_PHASE_CACHED_TPR_MAX,
     .fwd = {.target = 4, .target16 = 4, .tpr_max = 512, .wg = 128, .ncache = 8, .groups_per_cu = 4, .rpi = 1,
             .rpi16 = 1, .tpr_max16 = 1024, .pipe = 1, .pipe_cols = 5120, .fit16 = 6, .fit16_tpr = 256,
             .fit16_deep = 8, .fit16_deep_tpr = 128, .raw16_vecs = 6144, .bfly_tpr = 512,
             .bfly_cols_max = 32768, .chan = 8, .chan16 = 2, .pipe_prefetch_cols = 12288,
             .narrow_item_bytes = 32, .narrow_vec_max = 1, .narrow_from_bytes = 16},
     .bwd = {.target = 2, .target16 = 2, .tpr_max = 512, .wg = 256, .ncache = 3, .nacc = 8, .groups_per_cu = 4,
             .rpi = 1, .rpi16 = 1, .raw16 = 1, .tpr_max_cached = 1024, .tpr_max16 = 512, .ncache_dx = 4,
             .pipe = 1, .dr_early = 32768, .dr_early16_nc_max = NV_DR_EARLY16_NC_MAX, .dr_early16_cols_min = NV_DR_EARLY16_COLS_MIN, .rpi16_res = 2, .rpi_cols_max = 4096, .dx16_cols = 8192,
             .prefetch16_cols = 12288, .prefetch16_nores_nc_max = 3, .dxb = 2, .pipe_vecs = 1024, .prefetch_cols = 8192,
             .prefetch_cur_cols = 12289, .prefetch16_cur_res = 1, .acc_groups = 1,
             .fill16 = 5, .acc_local_res = 1, .acc_local16 = NV_ACC_LOCAL16, .acc_local16_nc = 3, .cache16_lacc = 4, .dxb_res = 3, .groups16 = 2, .groups16_res = 1, .bfly_tpr = 512,
             .cached_nc = 2, .ncache_wide = 6, .acc_tpr_max = 1024, .dxb_dx = 2, .groups_res = 3,
             .colsweep_cols = 16385, .colsweep16_cols = 32768, .colsweep_groups = 1, .colsweep_stream = 1, .balance = 5,
             .balance_rounds = 32, .stream_tpr = 1024, .short16_cols = 64, .short16_vec_bytes = 8,
             .short16_groups = 3, .short16_target_res = 1, .short16_groups_res = 2, .narrow_item_bytes = 16,
             .phase_target16_res = 4, .phase_rpi16_res = 1, .phase_nopipe16_res = NV_PHASE_NOPIPE16_RES,
             .phase_pipe16_res_wg_max = NV_PHASE_PIPE16_RES_WG_MAX, .phase_nopipe16 = NV_PHASE_NOPIPE16,
             .phase_nofill16_tpr = NV_PHASE_NOFILL16_TPR, .phase_pipe_dx16 = NV_PHASE_PIPE_DX16,
             .phase_pipe_dx16_wg_max = NV_PHASE_PIPE_DX16_WG_MAX, .phase_pipe_dx32 = NV_PHASE_PIPE_DX32,
             .phase_pipe_dx16_nores = NV_PHASE_PIPE_DX16_NORES, .phase_pipe_dx16_nores_tpr = NV_PHASE_PIPE_DX16_NORES_TPR,
             .phase_pipe_dx16_keep_tpr = NV_PHASE_PIPE_DX16_KEEP_TPR,
             .phase_dx16_res_vec_max = NV_PHASE_DX16_RES_VEC_MAX, .phase_dx16_res_deep = NV_PHASE_DX16_RES_DEEP,
             .phase_dx32_deep = NV_PHASE_DX32_DEEP,
             .phase_pipe_dx16_reread_cols = NV_PHASE_PIPE_DX16_REREAD_COLS},
     .workspace_cap = 64 * MiB,
    },
    /* other GPUs: the register-cache shapes without NVIDIA's inline PTX or its tuned rules */
    {
     .vendor = NULL, .type = CL_DEVICE_TYPE_GPU, .vec_bytes = 16, .red_lanes = 32,
     .fwd = {.target = 4, .target16 = 4, .tpr_max = 512, .wg = 128, .ncache = 8, .rpi = 1, .rpi16 = 1},
     .bwd = {.target = 2, .target16 = 2, .tpr_max = 512, .wg = 256, .ncache = 2, .nacc = 8, .groups_per_cu = 4,
             .rpi = 1, .rpi16 = 1},
     .workspace_cap = 64 * MiB,
    },
    /* CPUs (PoCL): one work-item per row with 16-wide vectors; rows stream through the cache, so
     * no register cache and no barriers (PoCL turns work-groups into loops over items). Both grids
     * are persistent (4 one-item groups per compute unit), each group taking a contiguous range
     * of rows (forward with non-temporal stores: fp32 at cols 256/1024/4096 14.7/15.0/14.6 ->
     * 12.3/12.0/13.0 ms; bf16 at 1024 7.0 -> 5.9 ms; backward (hardware prefetch: 0.47-0.67 -> 0.91-0.95 of the copy for fp32 at cols 1024).
     * bf16 in natural element order by zero-extension / narrowing conversion, and stored with
     * AVX512_BF16 where the probe allows: 25-40 % less time than the permuted-lane order in the
     * bf16 forward and backward with the data in cache. Calls with dweight/dbias take 4 rows per
     * item (2 with a residual gradient on AVX-512 hosts, session 27) from cols 2048 on, where
     * the workspace rows outgrow the L1 cache (one pass over them per
     * 4 rows: bf16 at cols 2048/4096/16384 16-25 % faster, fp32 5-14 %); shorter rows are faster
     * one at a time (bf16 cols 256: 13.5 against 17.1 ms; docs/PERFORMANCE.md). The forward of
     * 16-bit rows of up to 1024 elements converts weight, bias and row to fp32 once, into local
     * memory (the L1 cache): bf16 at cols 256, compute-bound, 7.3 -> 6.5 ms; at 1024 the same;
     * fp32 gains nothing, and at cols 4096 (48 KiB, more than L1) bf16 takes 29 % longer. That was
     * an AVX-512 host; on an AVX2 one (Zen 3, no AVX-512) each bf16 conversion costs more and the
     * fp32 row gains at every length local memory holds (bf16 forward, 2^26 elements, ms, without
     * -> with: cols 512 18.6 -> 15.1, 2048 26.0 -> 21.1, 4096 21.9 -> 19.6, 8192 22.3 -> 21.6,
     * 16384 26.5 -> 21.7, 32768 20.4 -> 17.9), so such hosts take it up to 512 KiB. With the local
     * row, 16-bit rows of up to 512 elements go two at a time (forward.cl; the AVX2 host, bf16, ms,
     * one -> two rows: cols 256 15.0 -> 12.5, 512 15.1 -> 11.5; 1024 10.95 -> 11.05, 2048 11.6 ->
     * 14.5). pf_bytes: the local rows' prefetch of the item's next rows reaches at least 1 KiB
     * ahead; one block ahead (4 rows of 32 bytes at bf16 cols 16) arrived late, each row's first
     * load then waited on memory (session 21, Sapphire Rapids, 2^26 elements, fraction of the copy,
     * two alternations, one block -> 1024 bytes: forward fp32 16 0.76 / 0.74 -> 1.06 / 1.00, 64
     * 1.16 / 1.14 -> 1.52 / 1.44, bf16 16 0.30 / 0.27 -> 0.39 / 0.43; backward bf16 32 0.57 / 0.59
     * -> 0.79 / 0.79, 16 0.44 / 0.45 -> 0.48 / 0.49; 4096 bytes no better at 16 and 64, and the
     * bf16 backward at 256 6-12 % slower, where it is 3 blocks instead of 1). pf_l2_bytes: the forward's blocks of
     * at least 4 KiB are prefetched into L2 only, where into L1 they pushed out the local row the
     * item was working on (bf16 at cols 1024, 2 rows per item: 4 KiB blocks, five alternations,
     * ms, L1 -> L2: 10.24 / 10.71 / 12.19 / 12.26 / 12.49 -> 9.39 / 9.82 / 9.92 / 10.01 / 10.06;
     * 2048 8.59 / 8.78 -> 8.53 / 8.19; 16384 even; 2 KiB blocks (cols 256, 4 rows) lost 3-8 %
     * with L2, hence 4 KiB; the backward's dx pass gained 2-4 % at most, so it keeps L1).
     * fwd_rowwise_kib: the forward's local row writes y row by row up to 16 KiB of local row
     * (forward.cl: bf16 cols 256 and 1024 10-20 % faster, 4096 (64 KiB) 10 % slower, 2048 even).
     * nt_unaligned_bytes / nt_unaligned_row_bytes: calls with unaligned vectors store fp32 outputs
     * (64-byte vectors) of rows of at least 2 KiB non-temporally too, in whole lines after each
     * row's head (common.cl's OUT_HEAD; session 23, 2^26 elements, fp32 forward / backward at cols
     * 1023 27.7 / 35.2 -> 19.3 / 29.7 ms, at 4095 33.2 / 41.1 -> 20.8 / 31.2; bf16's 32-byte
     * vectors lost at 1023, fp32 at 250 columns lost 6 % in the backward). */
    {
     .vendor = NULL, .type = CL_DEVICE_TYPE_CPU, .vec_bytes = 64, .red_lanes = 8, .contig_rows = true, .unaligned_bytes = 16,
     .fwd = {.tpr = 1, .target = 1, .target16 = 1, .wg = 1, .groups_per_cu = 4, .rpi = 1, .rpi16 = 2,
             .rpi_cols_max = 512, .rpi_cols_max_intel_bf16 = 32768, .rpi4_cols_intel_bf16 = 256, .rpi4_cols32 = 128},
     .bwd = {.tpr = 1, .target = 1, .target16 = 1, .wg = 1, .groups_per_cu = 4, .rpi = 4, .rpi16 = 4,
             .rpi_cols = 2048, .rpi_short_cols = 16, .rpi16_short_cols = 256, .rpi_res = 2, .rpi16_res = 2},
     .workspace_cap = 64 * MiB, .bf16_zext = true, .x86_bf16 = true, .nt_kib = 16384, .nt_unaligned_bytes = 64,
     .nt_unaligned_row_bytes = 2048, .pf_bytes = 1024, .pf_l2_bytes = 4096, .fwd_rowwise_kib = 16,
     .local_row_kib = 12,
     .local_row_kib_avx2 = 512, .bwd_local_row_kib_avx2 = 512, .bwd_rpi16_avx2 = 1, .local_row_kib_intel_bf16 = 512,
     .bwd_local_row_kib_intel_bf16 = 48,
    },
    /* anything else (accelerators): the GPU shapes, smaller */
    {
     .vendor = NULL, .type = CL_DEVICE_TYPE_ALL, .vec_bytes = 16, .red_lanes = 8,
     .fwd = {.target = 4, .target16 = 4, .tpr_max = 256, .wg = 128, .ncache = 4, .rpi = 1, .rpi16 = 1},
     .bwd = {.target = 2, .target16 = 2, .tpr_max = 256, .wg = 128, .ncache = 2, .nacc = 2, .groups_per_cu = 4,
             .rpi = 1, .rpi16 = 1},
     .workspace_cap = 64 * MiB,
    },
};

const clnorm_device_params *clnorm__params_for(const clnorm_device_info *info)
{
    const size_t n = sizeof table / sizeof table[0];
    /* CLNORM_DEVICE_CLASS=gpu|cpu uses that table row whatever the device is: this is how CI on a
     * CPU runs the GPU kernel shapes (several items per row, register cache, local reductions). */
    const char *cls = getenv("CLNORM_DEVICE_CLASS");
    if (cls && *cls) {
        const cl_device_type want = strcasecmp(cls, "gpu") == 0 ? CL_DEVICE_TYPE_GPU
                                    : strcasecmp(cls, "cpu") == 0 ? CL_DEVICE_TYPE_CPU : 0;
        for (size_t i = 0; want && i < n; ++i)
            if (!table[i].vendor && table[i].type == want)
                return &table[i];
    }
    for (size_t i = 0; i < n; ++i)
        if ((!table[i].vendor || clnorm__contains_nocase(info->vendor, table[i].vendor)) && (info->type & table[i].type))
            return &table[i];
    return &table[n - 1];
}

void clnorm__params_fit_host(clnorm_device_params *p, const clnorm_device_info *info)
{
    /* The backward's local row on AVX512_BF16 hosts within the L1 data cache, on any host whose L1d
     * is smaller than the table's bound (Zen 4's; Intel's Cooper Lake too, unmeasured): the table's
     * 48 KiB is Sapphire Rapids' L1d, where dx-only rows of 4096 with the weight's copy (48 KiB) gained;
     * session 36's Zen 4 (32 KiB L1d; PoCL, bf16 dx-only at 16384 x 4096, --tune, two rounds, ms)
     * lost with them, 48 KiB 15.06 / 15.14 against 14.24 / 13.90 at 32 and 14.48 / 12.71 at 24,
     * and dx_res and the backward with dweight/dbias at 4096 6-9 % in --quick. */
    if (info->x86_bf16 && info->x86_l1d_kib && p->bwd_local_row_kib_intel_bf16 > info->x86_l1d_kib)
        p->bwd_local_row_kib_intel_bf16 = info->x86_l1d_kib;
}

void clnorm__params_fit_device(clnorm_device_params *p, const clnorm_device_info *info)
{
    /* The H200 (HBM3e: its copy runs at ~4.2 TB/s through OpenCL, the H100's at ~3.0) on the
     * all-16-bit backward rows cached 4 deep beside acc_local16's sums (cols 12289-16384): one
     * group per compute unit, where more of the memory traffic in flight pays on the H200 and
     * not on the H100. Session 44, fraction of the copy, bf16, two alternations each:
     * - the residual gradient not loaded early at every such width (bwd_dr_early16_cols_min 0),
     *   backward_res, NVIDIA's row (15361) / 0: H200 10082 x 13312 0.664 / 0.716, 0.667 / 0.720;
     *   9362 x 14336 0.667 / 0.733, 0.669 / 0.729; 8738 x 15360 0.667 / 0.744, 0.667 / 0.747
     *   (16384, which the row takes: 0.760 / 0.759, early 0.660). The H100 lost 2-5 % there
     *   (NV_DR_EARLY16_COLS_MIN).
     * - the L2 prefetch kept in these rows without a residual gradient
     *   (bwd_prefetch16_nores_nc_max 0), backward, row (3) / 0: H200 13312 0.731 / 0.799, 14336
     *   0.756 / 0.813, 15360 0.769 / 0.814, 16384 0.777 / 0.810 (one run each); the H100 lost
     *   13 % at 16384 (0.93 -> 0.81) and 7.5 % at 14336 with it.
     * Session 45, as shipped against the H100's settings (two alternations): backward 0.80-0.82
     * against 0.74-0.78 at 13312-16384, backward_res 0.71-0.75 against 0.67 at 13312-15360.
     * The name test also takes a GH200 (unmeasured; its memory is as fast as the H200's or
     * nearly), and nothing else NVIDIA names today. */
    if (p->vendor && strcmp(p->vendor, "NVIDIA") == 0 && clnorm__contains_nocase(info->name, "H200")) {
        p->bwd.dr_early16_cols_min = 0;
        p->bwd.prefetch16_nores_nc_max = 0;
    }
}

/* a long all-16-bit backward call without dweight/dbias and without a residual gradient
 * (op->dx16_cols; with one, 512 items x 4 vectors pipelined were slower on the H200: bf16 at cols
 * 16384 0.95 -> 0.88 of the copy) */
static bool dx16_long(const clnorm_op_params *op, bool backward, bool partials, bool dres, size_t cols,
                      size_t max_elem)
{
    return backward && !partials && !dres && max_elem == 2 && op->dx16_cols && op->tpr_max16 && op->ncache_dx &&
           cols >= op->dx16_cols;
}

static bool pow2(unsigned long v) { return v && !(v & (v - 1)); }

/* the register cache's depth limit of fp32-widest backward calls with dweight/dbias (ncache_wide
 * set) at t items per row: ncache_wide within tpr_max items, cached_nc (else ncache) above, where
 * an item has half the registers */
static unsigned wide_nc(const clnorm_op_params *op, size_t t)
{
    if (op->tpr_max && t > op->tpr_max)
        return op->cached_nc ? op->cached_nc : op->ncache;
    return op->ncache_wide;
}

/* the 16-bit forward's exact fit: nv vectors in exactly d per item, a multiple of 32 items, at most
 * cap of them (and the device's work-group limit) */
static bool exact_fit(size_t nv, unsigned d, size_t cap, size_t max_wg)
{
    return d && nv % d == 0 && (nv / d) % 32 == 0 && nv / d <= cap && nv / d <= max_wg;
}

clnorm_status clnorm__params_tune(clnorm_device_params *p, const char *spec)
{
    struct {
        const char *key;
        unsigned *field;
        unsigned long lo, hi;
        bool power_of_two; /* 0 also allowed where lo == 0 */
    } keys[] = {
        {"vec_bytes", &p->vec_bytes, 4, 64, true},
        {"fwd_tpr", &p->fwd.tpr, 0, 1024, true},     {"fwd_target", &p->fwd.target, 1, 64, false},
        {"fwd_target16", &p->fwd.target16, 1, 64, false}, {"fwd_tpr_max", &p->fwd.tpr_max, 0, 1024, true},
        {"bwd_target16", &p->bwd.target16, 1, 64, false}, {"bwd_tpr_max", &p->bwd.tpr_max, 0, 1024, true},
        {"fwd_wg", &p->fwd.wg, 1, 1024, true},       {"fwd_ncache", &p->fwd.ncache, 0, 16, false},
        {"bwd_tpr", &p->bwd.tpr, 0, 1024, true},     {"bwd_target", &p->bwd.target, 1, 64, false},
        {"bwd_wg", &p->bwd.wg, 1, 1024, true},       {"bwd_ncache", &p->bwd.ncache, 0, 16, false},
        {"bwd_nacc", &p->bwd.nacc, 0, 16, true},     {"bwd_groups", &p->bwd.groups_per_cu, 1, 64, false},
        {"fwd_groups", &p->fwd.groups_per_cu, 0, 64, false},
        {"red_lanes", &p->red_lanes, 1, 32, true},
        {"bwd_rpi", &p->bwd.rpi, 1, 4, true},        {"bwd_rpi16", &p->bwd.rpi16, 1, 4, true},
        {"fwd_rpi16", &p->fwd.rpi16, 1, 4, true},
        {"fwd_rpi_cols", &p->fwd.rpi_cols, 0, 1u << 30, false}, {"fwd_rpi_cols_max", &p->fwd.rpi_cols_max, 0, 1u << 30, false},
        {"fwd_rpi_cols_max_intel_bf16", &p->fwd.rpi_cols_max_intel_bf16, 0, 1u << 30, false},
        {"fwd_rpi4_cols_intel_bf16", &p->fwd.rpi4_cols_intel_bf16, 0, 1u << 30, false},
        {"bwd_raw16", &p->bwd.raw16, 0, 1, false},   {"fwd_raw16", &p->fwd.raw16, 0, 1, false},   {"bwd_rpi_cols", &p->bwd.rpi_cols, 0, 1u << 30, false},
        {"nt_kib", &p->nt_kib, 0, 1u << 30, false},  {"pf_bytes", &p->pf_bytes, 0, 1u << 20, false},
        {"pf_l2_bytes", &p->pf_l2_bytes, 0, 1u << 30, false}, {"fwd_rowwise_kib", &p->fwd_rowwise_kib, 0, 1u << 20, false},  {"local_row_kib", &p->local_row_kib, 0, 1u << 20, false},
        {"local_row_kib_avx2", &p->local_row_kib_avx2, 0, 1u << 20, false},
        {"local_row_kib_intel_bf16", &p->local_row_kib_intel_bf16, 0, 1u << 20, false},
        {"bwd_local_row_kib_avx2", &p->bwd_local_row_kib_avx2, 0, 1u << 20, false},
        {"bwd_local_row_kib_intel_bf16", &p->bwd_local_row_kib_intel_bf16, 0, 1u << 20, false},
        {"bwd_rpi16_avx2", &p->bwd_rpi16_avx2, 0, 4, true},
        {"bwd_tpr_max16", &p->bwd.tpr_max16, 0, 1024, true}, {"bwd_ncache_dx", &p->bwd.ncache_dx, 0, 16, false},
        {"bwd_tpr_max_cached", &p->bwd.tpr_max_cached, 0, 1024, true},
        {"bwd_pipe", &p->bwd.pipe, 0, 2, false},     {"fwd_pipe", &p->fwd.pipe, 0, 2, false},     {"bwd_dr_early", &p->bwd.dr_early, 0, 1u << 30, false},
        {"bwd_dr_early16_nc_max", &p->bwd.dr_early16_nc_max, 0, 16, false},
        {"bwd_dr_early16_cols_min", &p->bwd.dr_early16_cols_min, 0, 1u << 30, false},
        {"bwd_rpi16_res", &p->bwd.rpi16_res, 0, 4, true},   {"bwd_rpi_res", &p->bwd.rpi_res, 0, 4, true},   {"bwd_rpi_cols_max", &p->bwd.rpi_cols_max, 0, 1u << 30, false},
        {"bwd_dx16_cols", &p->bwd.dx16_cols, 0, 1u << 30, false}, {"fwd_pipe_cols", &p->fwd.pipe_cols, 0, 1u << 30, false},
        {"bwd_prefetch16_cols", &p->bwd.prefetch16_cols, 0, 1u << 30, false},
        {"bwd_prefetch16_nores_nc_max", &p->bwd.prefetch16_nores_nc_max, 0, 16, false},
        {"bwd_dxb", &p->bwd.dxb, 0, 16, false},      {"bwd_dxb16", &p->bwd.dxb16, 0, 16, false},
        {"bwd_pipe_vecs", &p->bwd.pipe_vecs, 0, 1u << 20, false},
        {"bwd_fill16", &p->bwd.fill16, 0, 16, false},
        {"bwd_prefetch_cols", &p->bwd.prefetch_cols, 0, 1u << 30, false},
        {"bwd_prefetch_cur_cols", &p->bwd.prefetch_cur_cols, 0, 1u << 30, false},
        {"bwd_prefetch16_cur_res", &p->bwd.prefetch16_cur_res, 0, 1, false},
        {"bwd_prefetch16_cur_dr", &p->bwd.prefetch16_cur_dr, 0, 1, false},
        {"fwd_pipe_prefetch_cols", &p->fwd.pipe_prefetch_cols, 0, 1u << 30, false},
        {"bwd_acc_groups", &p->bwd.acc_groups, 0, 64, false},
        {"fwd_tpr_max16", &p->fwd.tpr_max16, 0, 1024, true}, {"fwd_fit16", &p->fwd.fit16, 0, 16, false},
        {"fwd_fit16_tpr", &p->fwd.fit16_tpr, 0, 1024, false}, {"fwd_fit16_deep", &p->fwd.fit16_deep, 0, 16, false},
        {"fwd_fit16_deep_tpr", &p->fwd.fit16_deep_tpr, 0, 1024, false}, {"fwd_raw16_vecs", &p->fwd.raw16_vecs, 0, 1u << 20, false},
        {"bwd_acc_local_res", &p->bwd.acc_local_res, 0, 16, false}, {"bwd_acc_local16", &p->bwd.acc_local16, 0, 16, false},
        {"bwd_acc_local16_nc", &p->bwd.acc_local16_nc, 0, 16, false}, {"bwd_cache16_lacc", &p->bwd.cache16_lacc, 0, 16, false}, {"bwd_dxb_res", &p->bwd.dxb_res, 0, 16, false},
        {"bwd_groups16", &p->bwd.groups16, 0, 64, false}, {"bwd_groups16_res", &p->bwd.groups16_res, 0, 64, false},
        {"fwd_bfly_tpr", &p->fwd.bfly_tpr, 0, 1024, false}, {"bwd_bfly_tpr", &p->bwd.bfly_tpr, 0, 1024, false},
        {"fwd_bfly_cols_max", &p->fwd.bfly_cols_max, 0, 1u << 30, false},
        {"bwd_bfly_cols_max", &p->bwd.bfly_cols_max, 0, 1u << 30, false},
        {"bwd_cached_nc", &p->bwd.cached_nc, 0, 16, false}, {"bwd_ncache_wide", &p->bwd.ncache_wide, 0, 16, false},
        {"bwd_acc_tpr_max", &p->bwd.acc_tpr_max, 0, 1024, true}, {"bwd_dxb_dx", &p->bwd.dxb_dx, 0, 16, false},
        {"bwd_groups_res", &p->bwd.groups_res, 0, 64, false},
        {"bwd_colsweep_cols", &p->bwd.colsweep_cols, 0, 1u << 30, false},
        {"bwd_colsweep16_cols", &p->bwd.colsweep16_cols, 0, 1u << 30, false},
        {"bwd_colsweep_groups", &p->bwd.colsweep_groups, 0, 64, false},
        {"bwd_colsweep_stream", &p->bwd.colsweep_stream, 0, 1, false},
        {"fwd_balance", &p->fwd.balance, 0, 50, false}, {"bwd_balance", &p->bwd.balance, 0, 50, false},
        {"fwd_balance_rounds", &p->fwd.balance_rounds, 0, 1u << 30, false},
        {"bwd_balance_rounds", &p->bwd.balance_rounds, 0, 1u << 30, false},
        {"bwd_stream_tpr", &p->bwd.stream_tpr, 0, 1024, true},
        {"bwd_short16_cols", &p->bwd.short16_cols, 0, 1u << 30, false},
        {"bwd_short16_vec_bytes", &p->bwd.short16_vec_bytes, 0, 64, true},
        {"bwd_short16_groups", &p->bwd.short16_groups, 0, 64, false},
        {"bwd_short16_target_res", &p->bwd.short16_target_res, 0, 64, false},
        {"bwd_short16_groups_res", &p->bwd.short16_groups_res, 0, 64, false},
        {"fwd_chan", &p->fwd.chan, 0, 16, true},    {"fwd_chan16", &p->fwd.chan16, 0, 16, true},
        {"fwd_rpi4_cols32", &p->fwd.rpi4_cols32, 0, 1u << 30, false},
        {"bwd_rpi_short_cols", &p->bwd.rpi_short_cols, 0, 1u << 30, false},
        {"bwd_rpi16_short_cols", &p->bwd.rpi16_short_cols, 0, 1u << 30, false},
        {"unaligned_bytes", &p->unaligned_bytes, 0, 64, false},
        {"nt_unaligned_bytes", &p->nt_unaligned_bytes, 0, 64, false},
        {"nt_unaligned_row_bytes", &p->nt_unaligned_row_bytes, 0, 1u << 30, false},
        {"phase_skip", &p->phase_skip, 0, 1023, false},
        {"fwd_narrow_item_bytes", &p->fwd.narrow_item_bytes, 0, 1024, false},
        {"bwd_narrow_item_bytes", &p->bwd.narrow_item_bytes, 0, 1024, false},
        {"fwd_narrow_vec_max", &p->fwd.narrow_vec_max, 0, 64, false},
        {"bwd_narrow_vec_max", &p->bwd.narrow_vec_max, 0, 64, false},
        {"bwd_phase_target16_res", &p->bwd.phase_target16_res, 0, 64, false},
        {"bwd_phase_rpi16_res", &p->bwd.phase_rpi16_res, 0, 4, true},
        {"bwd_phase_nopipe16_res", &p->bwd.phase_nopipe16_res, 0, 16, false},
        {"bwd_phase_pipe16_res_wg_max", &p->bwd.phase_pipe16_res_wg_max, 0, 1024, false},
        {"bwd_phase_nopipe16", &p->bwd.phase_nopipe16, 0, 16, false},
        {"bwd_phase_pipe_dx16", &p->bwd.phase_pipe_dx16, 0, 16, false},
        {"bwd_phase_pipe_dx16_wg_max", &p->bwd.phase_pipe_dx16_wg_max, 0, 1024, false},
        {"bwd_phase_pipe_dx32", &p->bwd.phase_pipe_dx32, 0, 1, false},
        {"bwd_phase_pipe_dx16_nores", &p->bwd.phase_pipe_dx16_nores, 0, 16, false},
        {"bwd_phase_pipe_dx16_nores_tpr", &p->bwd.phase_pipe_dx16_nores_tpr, 0, 1024, false},
        {"bwd_phase_pipe_dx16_keep_tpr", &p->bwd.phase_pipe_dx16_keep_tpr, 0, 1024, false},
        {"bwd_phase_pipe_dx16_reread_cols", &p->bwd.phase_pipe_dx16_reread_cols, 0, 1u << 30, false},
        {"bwd_phase_dx16_res_vec_max", &p->bwd.phase_dx16_res_vec_max, 0, 64, false},
        {"bwd_phase_dx16_res_deep", &p->bwd.phase_dx16_res_deep, 0, 16, false},
        {"bwd_phase_dx32_deep", &p->bwd.phase_dx32_deep, 0, 16, false},
        {"bwd_phase_nofill16_tpr", &p->bwd.phase_nofill16_tpr, 0, 1024, false},
        {"phase_vec_max", &p->phase_vec_max, 0, 64, false},
        {"phase_cached_skip", &p->phase_cached_skip, 0, 1023, false},
        {"phase_cached_tpr_max", &p->phase_cached_tpr_max, 0, 1024, false},
        {"fwd_narrow_from_bytes", &p->fwd.narrow_from_bytes, 0, 1024, false},
        {"bwd_narrow_from_bytes", &p->bwd.narrow_from_bytes, 0, 1024, false},
    };
    const char *s = spec;
    while (*s) {
        char key[32];
        int n = 0;
        /* the value: decimal digits only (strtoul alone would take spaces, a sign, and wrap "-1") */
        if (sscanf(s, "%31[a-z0-9_]%n", key, &n) != 1 || s[n] != '=' || !isdigit((unsigned char)s[n + 1]))
            return clnorm__fail(NULL, CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE=\"%s\": expected key=value,... at \"%s\"",
                                spec, s);
        char *end = NULL;
        errno = 0;
        const unsigned long v = strtoul(s + n + 1, &end, 10);
        if (errno == ERANGE)
            return clnorm__fail(NULL, CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE: %s: the value is out of range", key);
        s = end;
        /* (the separator before the value's range: "vec_bytes=0x10" stops at the 'x', and its
         * error must name that, not a value 0 the user never wrote) */
        if (*s && *s != ',')
            return clnorm__fail(NULL, CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE=\"%s\": expected ',' at \"%s\"", spec, s);
        bool found = false;
        bool *flag = !strcmp(key, "shfl") ? &p->nv_shfl : !strcmp(key, "cvt") ? &p->nv_cvt
                     : !strcmp(key, "contig") ? &p->contig_rows : !strcmp(key, "perm") ? &p->lane_perm
                     : !strcmp(key, "zext") ? &p->bf16_zext : !strcmp(key, "x86bf16") ? &p->x86_bf16
                     : !strcmp(key, "packed") ? &p->packed_args : !strcmp(key, "phase") ? &p->row_phase
                     : !strcmp(key, "phase_edge_elems") ? &p->phase_edge_elems
                     : !strcmp(key, "phase_reread") ? &p->phase_reread : NULL;
        if (flag) {
            if (v > 1)
                return clnorm__fail(NULL, CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE: %s=%lu: expected 0 or 1", key, v);
            *flag = v != 0;
            found = true;
        }
        for (size_t i = 0; !found && i < sizeof keys / sizeof keys[0]; ++i) {
            if (strcmp(key, keys[i].key) != 0)
                continue;
            if (v < keys[i].lo || v > keys[i].hi || (keys[i].power_of_two && v != 0 && !pow2(v)))
                return clnorm__fail(NULL, CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE: %s=%lu: expected %s%lu..%lu", key,
                                    v, keys[i].power_of_two ? "a power of two in " : "", keys[i].lo, keys[i].hi);
            *keys[i].field = (unsigned)v;
            found = true;
        }
        if (!found)
            return clnorm__fail(NULL, CLNORM_INVALID_ENVIRONMENT, "CLNORM_TUNE: unknown key \"%s\"", key);
        if (*s == ',')
            ++s;
    }
    return CLNORM_SUCCESS;
}

/* Whether dev is PoCL's CPU device on this (x86) host: its kernels run on the CPU this code runs
 * on, as x86 code that inline assembly may address. PoCL's local CPU drivers name their device
 * "pthread-<cpu>..." (3.x) or "cpu-<cpu>..." (4+), after the LLVM CPU model they compile for; a
 * remote device would run elsewhere. */
static bool pocl_host_x86_cpu(cl_device_id dev, const clnorm_device_info *info)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    if (!(info->type & CL_DEVICE_TYPE_CPU) ||
        (strncmp(info->name, "pthread-", 8) != 0 && strncmp(info->name, "cpu-", 4) != 0))
        return false;
    cl_platform_id plat = NULL;
    char pname[256] = "";
    return clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) == CL_SUCCESS &&
           clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL) == CL_SUCCESS &&
           strstr(pname, "Portable Computing Language");
#else
    (void)dev;
    (void)info;
    return false;
#endif
}

/* ... generating AVX-512 code, on a CPU with AVX512_BF16. PoCL may target an older CPU model
 * than the one it runs on (LLVM 15 has no Zen 4), so the instruction is usable through inline
 * assembly although PoCL's compiler does not know it: the kernels use it only after a probe has
 * checked it (probe.c). The store also takes masked 16-bit subtracts on 256- and 128-bit vectors
 * (AVX512BW, AVX512VL), which every AVX512_BF16 CPU so far has; asked for all the same, since an
 * instruction the CPU lacks would end the process where the probe runs, not fail the probe. */
static bool host_cpu_has_avx512_bf16(const clnorm_device_info *info)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    if (!info->pocl_x86 || !strstr(info->name, "avx512"))
        return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
#else
    (void)info;
    return false;
#endif
}

/* The host CPU has AVX-512 (F): PoCL's kernels for it are then AVX-512 code. */
static bool host_cpu_has_avx512f(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

clnorm_status clnorm__query_device(cl_device_id dev, clnorm_device_info *info)
{
    memset(info, 0, sizeof *info);
    cl_uint align_bits = 0;
    cl_int err = clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof info->type, &info->type, NULL);
    if (!err) err = clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
    if (!err) err = clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof info->vendor - 1, info->vendor, NULL);
    if (!err) err = clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof info->compute_units, &info->compute_units, NULL);
    if (!err) err = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof info->max_work_group, &info->max_work_group, NULL);
    if (!err) err = clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof info->local_mem, &info->local_mem, NULL);
    if (!err) err = clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof info->max_alloc, &info->max_alloc, NULL);
    if (!err) err = clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    info->base_align_bytes = align_bits / 8;
    /* NVIDIA's compute capability, when the driver has cl_nv_device_attribute_query: the inline-PTX
     * bf16x2 conversion needs sm_80. Not an error when absent. */
    /* (the list's size asked first: a longer list than a fixed buffer fails the query outright) */
    size_t ext_size = 0;
    char *ext = !err && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) == CL_SUCCESS && ext_size
                    ? calloc(ext_size + 1, 1)
                    : NULL;
    if (ext && clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) == CL_SUCCESS &&
        strstr(ext, "cl_nv_device_attribute_query")) {
        cl_uint cc = 0;
        if (clGetDeviceInfo(dev, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, sizeof cc, &cc, NULL) == CL_SUCCESS)
            info->nv_cc_major = cc;
    }
    free(ext);
    info->pocl_x86 = !err && pocl_host_x86_cpu(dev, info);
    /* (x86_bf16 also selects the CPU row's *_intel_bf16 rules. They were Intel's alone until
     * session 36, whose Zen 4 host (2 cores of an AMD EPYC, PoCL 3.1, bf16, --quick, ms, medians of
     * five alternations, Intel's rules off -> on) gained with them: backward cols 256 24.8 -> 14.1,
     * 1024 22.5 -> 15.9; with the residual gradient 32.2 -> 19.6, 24.9 -> 21.5; dx-only 22.4 ->
     * 13.6, 14.8 -> 11.3; forward 4096 11.4 -> 9.1; even elsewhere. The one loss, dx-only at 4096
     * (16.1 -> 17.7), is what clnorm__params_fit_host's L1 cap answers. Session 4's Zen 4 loss
     * at 4096 was the forward's local row before session 12's loops.) */
    info->x86_bf16 = info->pocl_x86 && host_cpu_has_avx512_bf16(info);
    info->x86_no_avx512 = info->pocl_x86 && !host_cpu_has_avx512f();
#ifdef _SC_LEVEL1_DCACHE_SIZE /* (glibc's and musl's; elsewhere unknown) */
    const long l1d = info->pocl_x86 ? sysconf(_SC_LEVEL1_DCACHE_SIZE) : 0;
#else
    const long l1d = 0;
#endif
    info->x86_l1d_kib = l1d > 0 ? (unsigned)(l1d / 1024) : 0;
    if (info->compute_units == 0)
        info->compute_units = 1;
    return err;
}

static size_t next_pow2(size_t v)
{
    size_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static size_t prev_pow2(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p <<= 1;
    return p;
}

/* A persistent grid of `groups` over `blocks` row blocks (blocks > groups) runs R = ceil(blocks /
 * groups) rounds of its block loop; where blocks is not a multiple of groups, the last round runs
 * on the remainder's groups while the rest of the device idles (the H200 with one group per
 * compute unit: 4096 blocks on 132 groups, 31 full rounds and one of 4 groups). op->balance: the
 * fewest groups that still run R rounds, ceil(blocks / R), if that is at most that many percent
 * fewer (else that bound): the same number of rounds, fuller; only where R is at most
 * op->balance_rounds, where one round is a sizeable share of the call. The H200, 5 %, A/B twice
 * in one run (ms): the backward at cols 32768 (132 -> 128 groups, 32 rounds either way) fp32
 * 0.780 -> 0.730, with the residual gradient 0.934 -> 0.893, dx only 0.582 -> 0.569; bf16 0.479
 * -> 0.454, 0.556 -> 0.526, 0.202 -> 0.199; at 65536 (16 rounds) fp32 1.019 -> 1.009, 1.114 ->
 * 1.098, bf16 0.462 -> 0.447, 0.543 -> 0.532. With more rounds the tail is a smaller share and
 * the groups given up cost more than it: cols 16384 (132 -> 128 groups, 63 -> 64 rounds) fp32
 * backward 0.595 -> 0.600, with the residual gradient 0.715 -> 0.726, bf16 forward 0.144 ->
 * 0.146; short rows (528 -> 512 groups, ~125 -> 128 rounds) 0.5-1.2 % slower. So the NVIDIA row
 * balances backward grids of up to 32 rounds, and no forward grid (bf16 at 32768: 0.1519 ->
 * 0.1529). (That run took the fullest count in range, which may add a round, as at 16384 and
 * for the short rows; within 32 rounds it chose what this rule chooses at the table's shapes.) */
static size_t balance_groups(size_t groups, size_t blocks, const clnorm_op_params *op)
{
    if (!op->balance || groups < 2 || blocks <= groups)
        return groups;
    const size_t rounds = (blocks + groups - 1) / groups;
    if (op->balance_rounds && rounds > op->balance_rounds)
        return groups;
    const size_t lo = groups - groups * op->balance / 100, fewest = (blocks + rounds - 1) / rounds;
    return fewest > lo ? fewest : lo;
}

/* the register cache's depth limit at t items per row: dx-only calls ncache_dx where set,
 * fp32-widest calls with dweight/dbias (wide) wide_nc, the others ncache */
static unsigned cache_limit(const clnorm_op_params *op, bool backward, bool partials, bool wide, size_t t)
{
    return backward && !partials && op->ncache_dx ? op->ncache_dx : wide ? wide_nc(op, t) : op->ncache;
}

/* backward.cl's row-sum scratch for a group of `items` (RED_SIZE float2, one row per item) */
static size_t red_scratch_bytes(size_t items) { return (items + (items + 31) / 32) * 8; }

/* whether a backward group of `items` holds, in local memory, n of each item's dweight and dbias
 * sum vectors (NACC_LOCAL: 2 x n x items x vec floats) beside its row sums' scratch for rpi rows
 * per item (no local-memory size reported: assumed to) */
static bool local_sums_fit(const clnorm_context *ctx, unsigned n, size_t items, size_t vec, size_t rpi)
{
    return !ctx->info.local_mem ||
           2 * (size_t)n * items * vec * sizeof(float) + red_scratch_bytes(items) * rpi <= ctx->info.local_mem;
}

/* plan_shape's and plan_core's `frame`: not a row-phase frame, a frame (plan_phase) at the
 * table's phase_target16_res, or a frame at the usual target */
enum { FRAME_NONE = 0, FRAME_TARGET = 1, FRAME_PLAIN = 2 };

/* plan_core's work; `raise`: narrow_item_bytes may apply (*raised: it did) */
static clnorm_launch plan_shape(const clnorm_context *ctx, bool backward, bool partials, bool has_dres, size_t rows,
                                size_t cols, size_t align_or, size_t max_elem, bool unaligned, int frame, bool raise,
                                bool *raised)
{
    const clnorm_device_params *P = ctx->params;
    clnorm_launch L = {0};

    /* Vector width: the widest the table allows that divides cols and every offset and stride
     * (lowest set bit of their OR), so every vector access is naturally aligned. */
    const clnorm_op_params *op = backward ? &P->bwd : &P->fwd;
    /* all-16-bit backward calls with dweight/dbias on short rows (short16_cols): see below. Without
     * a residual gradient only where cols is a power of two (bf16 on the H200, ms, rule off -> on:
     * cols 32 0.302 -> 0.226, 64 0.248 -> 0.219, but 48 0.278 -> 0.289; with the residual gradient
     * 32 0.427 -> 0.303, 48 0.348 -> 0.306, 64 0.321 -> 0.266) */
    bool short16 = backward && partials && max_elem == 2 && op->short16_cols && cols <= op->short16_cols &&
                   (has_dres || (cols & (cols - 1)) == 0);
    size_t vec = P->vec_bytes / max_elem;
    if (short16 && !has_dres && op->short16_vec_bytes && op->short16_vec_bytes < P->vec_bytes)
        vec = op->short16_vec_bytes / max_elem;
    if (vec > 16)
        vec = 16;
    if (ctx->info.base_align_bytes && vec * max_elem > ctx->info.base_align_bytes)
        vec = ctx->info.base_align_bytes / max_elem;
    if (vec < 1)
        vec = 1;
    size_t low = align_or & (~align_or + 1);
    const size_t vec_asked = vec;
    while (vec > 1 && (low == 0 || low % vec != 0))
        vec /= 2;
    /* (unaligned: the caller's choice, below, for the CPU row's shape: the vectors stay full width
     * where alignment would leave them under unaligned_bytes) */
    if (unaligned && vec < vec_asked && vec * max_elem < P->unaligned_bytes) {
        vec = vec_asked;
        L.unaligned = true;
    }
    L.vec = (unsigned)vec;
    /* (the short16 rule's items and groups were measured at its own vector width only: where the
     * alignment takes a narrower one, the call gets the table's plan for that width) */
    if (vec != vec_asked)
        short16 = false;

    const size_t nv = cols / vec;
    const size_t max_wg = prev_pow2(ctx->info.max_work_group < 1024 ? ctx->info.max_work_group : 1024);
    size_t tpr = op->tpr;
    unsigned fill_nc = 0; /* the register cache's depth the 16-bit fill rule chose (0: none) */
    bool fit = false;     /* the forward's 16-bit exact-fit layout (op->fit16) */
    /* fp32 backward calls with dweight/dbias: register cache up to ncache_wide vectors deep */
    const bool wide = backward && partials && max_elem == 4 && op->ncache_wide;
    /* rows per item asked for by the table, and whether cols is in their range (applied below
     * where the row is cached or streams) */
    /* (PoCL on an x86 host without AVX-512: bwd_rpi16_avx2 for 16-bit calls; one row at a time was
     * faster there, bf16 with dweight/dbias at cols 2048 / 4096 / 16384, 2^26 elements: 43.4 /
     * 41.4 / 50.6 -> 29.9 / 33.1 / 30.1 ms, the first without and the others with the backward's
     * local row; fp32 at 4096 28.2 -> 35.3 ms, so fp32 keeps the table's 4) */
    /* (AVX512_BF16 hosts: 4 rows up to rpi4_cols_intel_bf16, the forward's short rows, whose
     * chains of dependent steps are most of a row's time; session 19, bf16, 2^26 elements, --tune,
     * ms, two rounds, 2 -> 4 rows: cols 64 27.45 / 26.75 -> 16.36 / 15.84, 128 15.98 / 15.59 ->
     * 14.08 / 14.33, 256 16.21 / 16.81 -> 15.06 / 15.29; 384 12.35 / 12.43 -> 14.59 / 14.67, 512
     * 14.54 / 14.41 -> 16.86 / 16.96, 2048 +21 %) */
    const bool rpi4 = !backward && ctx->info.x86_bf16 && op->rpi4_cols_intel_bf16 && cols <= op->rpi4_cols_intel_bf16;
    /* (the forward's short rows of 4-byte-widest calls: 4 at a time in the local row, rpi4_cols32,
     * for the same reason; PoCL, session 20's Intel host, fp32, 2^26 elements, fraction of the
     * copy, two alternations, one row streamed -> 4 in the local row: cols 16 0.22 / 0.22 -> 0.60
     * / 0.58, 32 0.64 / 0.65 -> 0.90 / 0.92, 64 0.71 / 0.73 -> 1.24 / 1.24; 128 0.95 / 1.11 ->
     * 1.20 / 1.09, even; with 8 rows 16 0.61, 32 0.98, 64 0.97. Session 21, once the rows' sums,
     * divisions and rsqrt went together (ROWS_HSUM): 128 1.09 / 1.13 / 1.02 -> 1.27 / 1.29 / 1.30,
     * three alternations, so up to 128; 256 even, 1.17-1.25 -> 1.25-1.30) */
    const bool short32 = !backward && max_elem == 4 && op->rpi4_cols32 && cols <= op->rpi4_cols32;
    const unsigned short_cols = max_elem == 2 ? op->rpi16_short_cols : op->rpi_short_cols;
    const bool short_rows = backward && short_cols && cols <= short_cols;
    /* (rpi_res / rpi16_res: calls with a residual gradient, but for the short rows below, which
     * keep rpi / rpi16. The CPU row's 2, session 27, PoCL on a Sapphire Rapids host, 2^26
     * elements, fraction of the copy, three alternations, 4 -> 2 rows per item: bf16
     * backward_res cols 2048 0.98 / 0.97 / 0.98 -> 1.09 / 1.05 / 0.98, 4096 0.95 / 0.98 / 0.99 ->
     * 0.91 / 0.97 / 0.98, 8192 0.96 / 0.92 / 0.95 -> 1.02 / 1.05 / 1.01, 16384 0.92 / 0.89 / 0.92
     * -> 0.97 / 0.99 / 0.99, 32768 0.83 / 0.84 / 0.83 -> 0.93 / 0.91 / 0.91, 65536 0.71 / 0.79 /
     * 0.73 -> 0.78 / 0.78 / 0.76; fp32 in docs/PERFORMANCE.md, session 27. Each item's rows
     * stream x, dy, the residual gradient and dx at once: with 4 rows, 16 streams) */
    const unsigned rpi_res = max_elem == 2 ? op->rpi16_res : op->rpi_res;
    const bool avx2_16 = max_elem == 2 && backward && ctx->info.x86_no_avx512 && P->bwd_rpi16_avx2;
    /* (rpi_res not on PoCL x86 hosts without AVX-512: unmeasured there, and their fp32 rows per
     * item were measured on their own in session 11; their 16-bit calls take bwd_rpi16_avx2) */
    const bool res_rows = has_dres && rpi_res && !short_rows && !(max_elem != 2 && ctx->info.x86_no_avx512);
    /* (phase_rpi16_res: the phased all-16-bit residual backward's own, in its frame's plan) */
    const bool phase_res16 = frame != FRAME_NONE && has_dres && max_elem == 2;
    const unsigned rpi_req = short32                              ? 4
                             : avx2_16                            ? P->bwd_rpi16_avx2
                             : phase_res16 && op->phase_rpi16_res ? op->phase_rpi16_res
                             : res_rows                           ? rpi_res
                             : max_elem != 2                      ? op->rpi
                             : rpi4                               ? 4
                                                                  : op->rpi16;
    /* (AVX512_BF16 hosts: rpi_cols_max_intel_bf16. The forward's 2 rows side by side in the
     * local row there (session 19, Sapphire Rapids, bf16, 2^26 elements, --tune, ms, two rounds,
     * one row -> two): 1024 14.06 / 13.84 -> 13.18 / 13.13, 2048 12.07 / 11.94 -> 9.04 / 9.09,
     * 4096 11.43 / 11.52 -> 10.46 / 10.40, 8192 12.88 / 12.70 -> 12.08 / 11.88, 16384 13.61 /
     * 13.68 -> 12.02 / 12.07, 32768 14.09 / 13.66 -> 11.97 / 12.45) */
    const unsigned rpi_max = ctx->info.x86_bf16 && op->rpi_cols_max_intel_bf16 ? op->rpi_cols_max_intel_bf16
                                                                                : op->rpi_cols_max;
    /* (the backward's short rows with dweight/dbias: rows per item below rpi_cols too, up to
     * rpi_short_cols / rpi16_short_cols, where one row per item left the core waiting on each
     * short row's sums; PoCL, session 20's Intel host, 2^26 elements, fraction of the copy, two
     * alternations, 1 row -> 4 with the local row: fp32 cols 16 0.39 / 0.38 -> 0.83 / 0.82, with
     * the residual gradient 0.61 / 0.62 -> 1.06 / 1.06, but cols 32 1.03 / 1.04 -> 1.06 / 0.94 and
     * from 64 on 1-20 % slower; bf16 64 0.78 / 0.77 -> 0.84 / 0.84, 128 0.74 / 0.72 -> 1.00 / 0.99,
     * 256 0.89 / 0.91 -> 1.18 / 1.15, with the residual gradient 0.92-1.16 -> 1.04-1.27, at 16 /
     * 32 0.30 / 0.44 -> 0.43 / 0.57 but with the residual gradient 0.52 / 0.70 -> 0.44 / 0.68;
     * 512 even, 1024 1.19 -> 0.84) */
    /* (... and there in calls without dweight/dbias too, whose long rows lose with several rows
     * per item (below): the same host, dx-only, fraction of the copy, two alternations, 1 -> 4
     * rows: fp32 16 0.38 / 0.38 -> 0.87 / 0.92, with the residual gradient 0.67 / 0.66 -> 1.07 /
     * 1.10; bf16 16 0.30 / 0.30 -> 0.46 / 0.48, 32 0.37 / 0.37 -> 0.58 / 0.56, 64 0.83 / 0.83 ->
     * 0.88 / 0.87, 128 0.80 / 0.79 -> 1.06 / 1.08, 256 1.08 / 1.07 -> 1.24 / 1.25, with the
     * residual gradient 0.46-1.22 -> 0.61-1.35) */
    const bool rpi_cols_ok = short32 || (cols >= op->rpi_cols && (!rpi_max || cols <= rpi_max)) || short_rows;
    if (tpr == 0) {
        /* Items per row: about nv / target, a power of two up to a warp (the in-warp butterflies
         * need one); above that, for the forward, a multiple of 32 (so rows like 5120 or 12288
         * elements fill every item's vectors: 0.73 -> 0.97 of the copy at 5120 on the H200), for the
         * backward a power of two (96 items per row at cols 768 gave 0.56 against 0.83 with 128);
         * at most tpr_max... */
        /* (phase_target16_res: session 26, an H100, --tune, BF16 backward_res in phases, fraction
         * of the copy, target16 2 -> 4: cols 1023 0.209 -> 0.323 (128 x 2 pipelined, 2 rows per
         * item -> 64 x 3), 2047 0.225 -> 0.329, 4095 0.452 -> 0.449 (the same plan)) */
        size_t target = short16 && has_dres && op->short16_target_res ? op->short16_target_res
                        : frame == FRAME_TARGET && has_dres && max_elem == 2 && op->phase_target16_res ? op->phase_target16_res
                        : max_elem == 2 ? op->target16
                                        : op->target;
        /* ... more where the alignment narrowed the vectors (narrow_item_bytes), so that each
         * item keeps as many bytes of loads in flight: in the forward at most the register
         * cache's depth; only for vectors of at most narrow_vec_max elements (the forward's
         * two-element vectors gained nothing) and where the row still takes a warp of items
         * (short rows would be left to a few items); plan_core drops it where the row then leaves
         * the register cache in calls with dweight/dbias (their sums would take the registers).
         * Inside a phased frame too, where the tensors' skew narrows its width below the table's
         * (phase_or). Session 26, an H100, --tune, fraction of the copy, the table's targets ->
         * these: forward at cols 1023 (one-element vectors) F32 0.958 -> 0.993 (8 vectors), BF16 0.537 -> 0.645
         * (8), at 4095 BF16 0.458 -> 0.570; at 1022 BF16 (2 elements) 0.880 -> 0.890; backward at
         * 1023 F32 0.728 -> 0.958 (4), backward_res 0.796 -> 1.017, dx 0.730 -> 0.974, BF16 dx
         * 0.410 -> 0.614 (8, read twice), at 4095 0.434 -> 0.599, at 1022 0.731 -> 0.928 (4); BF16
         * with dweight/dbias at 4 / 8 vectors, not cached: 0.238 -> 0.198 / 0.250 at 1023, 0.697
         * -> 0.194 at 1022, so not there */
        if (raise && op->narrow_item_bytes && vec < vec_asked && (!op->narrow_vec_max || vec <= op->narrow_vec_max)) {
            size_t t = op->narrow_item_bytes / (vec * max_elem);
            if (!backward && op->ncache && t > op->ncache)
                t = op->ncache;
            if (t > target && (nv + t - 1) / t >= 32) {
                target = t;
                *raised = true;
            }
        }
        const size_t want = (nv + target - 1) / target;
        tpr = want <= 32 || backward ? next_pow2(want) : (want + 31) / 32 * 32;
        const size_t want_tpr = tpr;
        /* (16-bit forward calls: tpr_max16 where set; bf16 on the H200 at cols 20480: 512 items x
         * 5 vectors 0.197 ms, 640 x 4 pipelined 0.143; 32768: 0.194 -> 0.164, with raw16_vecs) */
        const size_t cap = !backward && max_elem == 2 && op->tpr_max16 ? op->tpr_max16 : op->tpr_max;
        if (cap && tpr > cap)
            tpr = cap;
        /* ... and for the backward up to tpr_max_cached where that holds the row in registers
         * (fp32 at cols 8192 on the H200: 0.65 -> 0.42 ms with dweight/dbias; where the row still
         * streams, 1024-item groups only spill: cols 16384 0.65 -> 0.89 ms) ... */
        const size_t cached_cap = op->tpr_max_cached < max_wg ? op->tpr_max_cached : max_wg;
        /* (... in fp32 calls with dweight/dbias at most cached_nc vectors deep: three at 1024
         * items spilled, cols 12288 0.501 ms, where 512 x 6 (ncache_wide, 128 registers) took
         * 0.409; with the residual gradient 0.640 -> 0.621) */
        if (backward && cached_cap > tpr && want_tpr > tpr) {
            const size_t t = want_tpr < cached_cap ? want_tpr : cached_cap;
            if ((nv + t - 1) / t <= cache_limit(op, backward, partials, wide, t))
                tpr = t;
        }
        /* ... except in 16-bit calls with dweight/dbias where tpr_max16 says so, and in long
         * 16-bit calls without them or a residual gradient (dx16_cols), if the row then still
         * fits the cache: fewer, deeper items, pipelined below (bf16 dx at cols 16384 on the
         * H200: 1024 items x 2 vectors 0.234 ms, 512 x 4 0.224, pipelined 0.213; cols 12288
         * 0.283 -> 0.209) */
        if (backward && partials && max_elem == 2 && op->tpr_max16 && tpr > op->tpr_max16)
            tpr = op->tpr_max16;
        if (dx16_long(op, backward, partials, has_dres, cols, max_elem) && tpr > op->tpr_max16 &&
            (nv + op->tpr_max16 - 1) / op->tpr_max16 <= op->ncache_dx)
            tpr = op->tpr_max16;
        /* ... and half as many where the row, cached, would leave more than a quarter of the
         * items' vectors idle and still fits with half (rows of 5 x 2^k elements: 1024 items x 2
         * vectors for 1280 vectors at fp32 cols 5120, a persistent grid of one group per compute
         * unit; 512 x 3 on the H200: dx 0.508 -> 0.401 ms, bf16 256 x 3 0.255 -> 0.213). Not in
         * all-16-bit calls with a residual gradient: bf16 dx_res at 5120 0.284 -> 0.315 ms; nor
         * where the dx16 rule chose the items (its pipeline needs tpr_max16 of them); in calls
         * with dweight/dbias, no residual gradient and 4-byte elements only where the row took
         * more than tpr_max items (fp32 at cols 5120: 1024 x 2 0.525 ms, 512 x 3 0.469; at 320 /
         * 640 / 1280 / 2560 the halved rows were 9-12 % slower, 0.41 -> 0.45 ms). */
        if (backward && tpr > 32 && !(has_dres && max_elem == 2) &&
            !dx16_long(op, backward, partials, has_dres, cols, max_elem) &&
            !(partials && !has_dres && max_elem == 4 && tpr <= (op->tpr_max ? op->tpr_max : max_wg))) {
            const unsigned nc_max = !partials && op->ncache_dx ? op->ncache_dx : op->ncache;
            const size_t n1 = (nv + tpr - 1) / tpr, n2 = (nv + tpr / 2 - 1) / (tpr / 2);
            if (n1 <= nc_max && 4 * nv < 3 * n1 * tpr && n2 <= nc_max)
                tpr /= 2;
        }
        /* ... and in fp32 calls with dweight/dbias (ncache_wide), a cached row that leaves some of
         * the items' vectors idle: the first power-of-two count of items below tpr that takes it
         * exactly, if that is at least half of tpr_max and the fit more than ncache and at most
         * ncache_wide vectors deep (cols 5120 on the
         * H200: 512 x 3 -> 256 x 5, 0.464 -> 0.411 ms; 3072 as 256 x 3 lost, 0.408 -> 0.454; shorter
         * rows, whose halved layouts lost before, keep theirs) */
        const size_t h_min = op->tpr_max > 64 ? op->tpr_max / 2 : 32;
        if (wide && tpr > h_min && nv % tpr != 0 && (nv + tpr - 1) / tpr <= op->ncache_wide) {
            size_t h = tpr / 2;
            while (h > h_min && nv % h != 0 && nv / h <= op->ncache_wide)
                h /= 2;
            if (h >= h_min && nv % h == 0 && nv / h > op->ncache && nv / h <= op->ncache_wide)
                tpr = h;
        }
        /* ... and in 16-bit calls with dweight/dbias where fill16 says so, where the row is cached
         * and one row per item: halved for as long as that leaves fewer of the items' vectors idle
         * and the row fits fill16 vectors per item, if that ends deeper than ncache (pipelined
         * below, bf16 on the H200: cols 2560 / 5120 / 10240 0.256 / 0.259 / 0.286 -> 0.221 / 0.231 /
         * 0.242 ms, with the residual gradient 5120 / 10240 0.303 / 0.318 -> 0.294 / 0.300; where
         * it ends at ncache deep, 768 / 3072 lost 4-5 %, and with 2 rows per item 2560 with the
         * residual 0.317 -> 0.445) */
        if (backward && partials && max_elem == 2 && op->fill16 && (nv + tpr - 1) / tpr <= op->ncache &&
            !(rpi_req > 1 && rpi_cols_ok)) {
            size_t t = tpr;
            while (t > 32) {
                const size_t h = t / 2, n1 = (nv + t - 1) / t, n2 = (nv + h - 1) / h;
                if (n2 > op->fill16 || n2 * h >= n1 * t)
                    break;
                t = h;
            }
            /* (phase_nofill16_tpr: not in a row-phase frame where it would end at that many items per
             * row or fewer) */
            if ((nv + t - 1) / t > op->ncache &&
                !(frame != FRAME_NONE && op->phase_nofill16_tpr && t <= op->phase_nofill16_tpr)) {
                tpr = t;
                fill_nc = (unsigned)((nv + t - 1) / t);
            }
        }
        /* ... and in 16-bit forward calls that would be pipelined, where fit16 says so: the row as
         * stored in exactly d vectors per item, d from fit16 (at most ncache) down to target16 + 1,
         * in a multiple of 32 items up to fit16_tpr, one group per row block (bf16 on the H200,
         * ms, pipelined fp32 4-vector rows -> this: cols 5120 (128 x 5) 0.143 -> 0.136, 6144
         * (128 x 6) 0.153 -> 0.136, 12288 (256 x 6) 0.157 -> 0.140; where no such fit exists the
         * pipeline stays: 8192 as 192 x 6 with idle vectors 0.145 -> 0.157, 16384 as 256 x 8
         * 0.146 -> 0.164, 12288 as 192 x 8 0.188) */
        if (!backward && max_elem == 2 && op->fit16 && op->ncache && op->pipe && op->groups_per_cu &&
            cols >= op->pipe_cols && 2 * ((nv + tpr - 1) / tpr) <= op->ncache) {
            unsigned d = op->fit16 < op->ncache ? op->fit16 : op->ncache;
            while (d > op->target16 && !exact_fit(nv, d, op->fit16_tpr, max_wg))
                --d;
            fit = d > op->target16;
            /* (then fit16_deep vectors in at most fit16_deep_tpr items: 8192 as 128 x 8, 0.145 ->
             * 0.141 ms; wider, 8 vectors lost: 12288 as 192 x 8 0.188, 16384 as 256 x 8 0.164) */
            if (!fit && op->fit16_deep <= op->ncache && exact_fit(nv, op->fit16_deep, op->fit16_deep_tpr, max_wg)) {
                d = op->fit16_deep;
                fit = true;
            }
            if (fit)
                tpr = nv / d;
        }
        /* ... unless that leaves the forward's row too long for the register cache: then up to the
         * device's work-group limit (a 32768-element fp32 row: 1024 items x 8 vectors) */
        if (!backward && op->ncache)
            while ((nv + tpr - 1) / tpr > op->ncache && tpr * 2 <= max_wg)
                tpr *= 2;
        /* ... and a backward row that neither the cache nor nacc vectors per item take: more items,
         * up to acc_tpr_max, where nacc vectors then take it (read twice, the sums in registers,
         * instead of streamed with the sums in the workspace; fp32 at cols 32768 on the H200, 512
         * items streamed -> 1024 x 8, ms: 1.444 -> 1.240, with the residual gradient 1.537 -> 1.289,
         * dx-only 0.744 -> 0.590 with dxb_dx 2, dx_res 0.875 -> 0.745). Calls with a 16-bit widest
         * element keep their items (bf16 at 65536, 512 streamed -> 1024 x 8: dx 0.393 -> 0.605,
         * backward_res 1.130 -> 1.320) */
        if (backward && max_elem == 4 && op->acc_tpr_max && op->nacc && (nv + tpr - 1) / tpr > op->nacc) {
            size_t t = tpr;
            while ((nv + t - 1) / t > op->nacc && t * 2 <= op->acc_tpr_max && t * 2 <= max_wg)
                t *= 2;
            if ((nv + t - 1) / t <= op->nacc && (nv + t - 1) / t > cache_limit(op, backward, partials, wide, t))
                tpr = t;
        }
        /* ... and a dx-only row that would still stream (the column sweep's too): stream_tpr items,
         * where nacc vectors may then take it, read twice (the H200, 512 -> 1024 items, ms, in the
         * bench, two alternations: fp32 dx at 65536 0.826 -> 0.686 (still streamed), dx_res 0.910
         * -> 0.777, the swept backward 1.017 -> 0.908, with the residual gradient 1.104 -> 1.008;
         * bf16 dx 0.399 -> 0.297 (1024 x 8 read twice), dx_res 0.534 -> 0.386, swept 0.459 ->
         * 0.426 / 0.541 -> 0.473; at 131072 fp32 dx 1.279 -> 0.850, bf16 0.663 -> 0.438. Session
         * 14 had measured bf16 dx at 65536 as 1024 x 8 the other way round, 0.393 -> 0.605, through
         * acc_tpr_max; the same layout now, alongside the balanced grid, wins) */
        if (backward && !partials && op->stream_tpr && tpr < op->stream_tpr) {
            const size_t n = (nv + tpr - 1) / tpr, row = next_pow2(nv);
            const unsigned nc_max = op->ncache_dx ? op->ncache_dx : op->ncache;
            size_t t = op->stream_tpr < max_wg ? op->stream_tpr : max_wg;
            if (t > row) /* (no more items than the row's vectors, in a power of two) */
                t = row;
            if (n > nc_max && n > op->nacc && t > tpr)
                tpr = t;
        }
    }
    if (tpr > max_wg)
        tpr = max_wg;
    /* vectors per item: the register arrays are sized exactly */
    const size_t nc = (nv + tpr - 1) / tpr;
    L.tpr = (unsigned)tpr;
    const unsigned ncache = cache_limit(op, backward, partials, wide, tpr);
    /* all-16-bit calls with dweight/dbias: up to cache16_lacc vectors deep where acc_local16 of the
     * sum vectors then go to local memory (the acc_local16 block below; its local-memory test is repeated
     * here with the largest rows per item and row slots the plan can take) */
    /* (only in the layout it was measured in: tpr_max16 items, not the fill rule's shallower groups) */
    const bool acc16 = backward && partials && max_elem == 2 && frame == FRAME_NONE && L.vec * max_elem == P->vec_bytes &&
                       op->acc_local16 && nc >= op->acc_local16_nc && nc > op->acc_local16 && nc != fill_nc &&
                       (!op->tpr_max16 || tpr == op->tpr_max16);
    bool deep16 = acc16 && nc > ncache && op->cache16_lacc && nc <= op->cache16_lacc;
    if (deep16) {
        size_t rpw_max = op->wg / tpr > 1 ? op->wg / tpr : 1;
        while (rpw_max > 1 && rpw_max * tpr > max_wg)
            rpw_max /= 2;
        deep16 = local_sums_fit(ctx, op->acc_local16, tpr * rpw_max, L.vec, rpi_req > 1 ? rpi_req : 1);
    }
    L.ncache = nc <= ncache || nc == fill_nc || deep16 ? (unsigned)nc : 0;
    L.nacc = backward && nc <= op->nacc ? (unsigned)nc : 0;
    if (L.nacc < L.ncache)
        L.nacc = L.ncache;
    /* Rows per item: in the backward for the dweight/dbias sums' sake (one item's register sums, or
     * one pass over the workspace row, serve RPI rows), so only in calls with them; with the rows
     * in registers, or streamed (not where only the sums fit). Without the sums, side-by-side rows
     * only cost (on PoCL, dx-only bf16 at cols 4096: 14.8 -> 21.5 ms), except on the short rows of
     * rpi_short_cols / rpi16_short_cols, whose chains of dependent steps they overlap. In the forward with its
     * local row only (below), where a short row's chain of dependent steps (its sums, their
     * horizontal adds, the division, rsqrt) otherwise leaves the core waiting. */
    L.rpi = rpi_req > 1 && rpi_cols_ok && (!backward || ((partials || short_rows) && (L.ncache || !L.nacc))) ? rpi_req : 1;
    L.raw = L.ncache && max_elem == 2 && (op->raw16 || fit);
    size_t rpw = op->wg / tpr;
    if (rpw < 1)
        rpw = 1;
    while (rpw > 1 && rpw * tpr > max_wg)
        rpw /= 2;
    L.rpw = (unsigned)rpw;
    /* backward.cl's row sums take 2 * RPI floats per item, plus as many per 32 items, of local
     * memory (RED_SIZE): fewer rows per item where that would not fit */
    const size_t red_bytes = red_scratch_bytes(tpr * rpw);
    while (L.rpi > 1 && ctx->info.local_mem && red_bytes * L.rpi > ctx->info.local_mem)
        L.rpi /= 2;
    /* the residual gradient's share of the cache, per work-group: items x rows x vectors x vector
     * bytes (max_elem bounds its element size). Per group, because 1024-item groups have half the
     * registers per item of 512-item ones (fp32 dx_res at cols 16384, 64 bytes x 1024 items: 0.56
     * -> 0.72 ms early; bf16 with dweight/dbias at cols 1024, 64 bytes x 256 items: 0.45 -> 0.27) */
    L.dr_early = backward && L.ncache &&
                 (size_t)L.tpr * L.rpw * L.rpi * L.ncache * L.vec * max_elem <= op->dr_early;
    /* ... but not in acc_local16's all-16-bit rows cached more than dr_early16_nc_max vectors deep
     * from dr_early16_cols_min columns on (NV_DR_EARLY16_NC_MAX, NV_DR_EARLY16_COLS_MIN: the rows of
     * 15361-16384 cols, 4 deep with every item's fourth vector nearly all taken; on an H200,
     * clnorm__params_fit_device, every 4-deep row, 12289-16384) */
    if (L.dr_early && acc16 && op->dr_early16_nc_max && L.ncache > op->dr_early16_nc_max &&
        cols >= op->dr_early16_cols_min)
        L.dr_early = false;
    /* the forward: on a persistent grid (op->groups_per_cu), from pipe_cols on, where both register
     * sets fit ncache vectors; pipe 1: when every tensor is 16-bit */
    /* (the backward with dweight/dbias only where one register set takes at most pipe_vecs vectors
     * per work-group: their sums take registers too; bf16 at cols 12288, 512 items x 3 vectors,
     * spilled pipelined, 0.311 ms, against 0.256 without; but always in the 16-bit fill rule's
     * layouts, which lose without it: bf16 at 5120, 2 slots of 128 items x 5, 0.301 ms, 0.231 with) */
    /* (phase_nopipe16_res: the phased all-16-bit residual backward not pipelined where its cache
     * is at least that many vectors deep; phase_pipe16_res_wg_max: nor where its group takes more
     * items than that; phase_nopipe16: the same depth rule for the phased all-16-bit backward with
     * dweight/dbias and without a residual gradient) */
    const bool phase16 = frame != FRAME_NONE && partials && !has_dres && max_elem == 2;
    const bool phase_nopipe = (phase_res16 && ((op->phase_nopipe16_res && L.ncache >= op->phase_nopipe16_res) ||
                                               (op->phase_pipe16_res_wg_max && (size_t)L.tpr * L.rpw > op->phase_pipe16_res_wg_max))) ||
                              (phase16 && op->phase_nopipe16 && L.ncache >= op->phase_nopipe16);
    /* (phase_pipe_dx16: the phased all-16-bit calls without dweight/dbias pipelined too where the
     * cache is that deep and the group no larger than phase_pipe_dx16_wg_max; NV_PHASE_PIPE_DX16) */
    /* (phase_pipe_dx32: the phased calls with a 32-bit tensor, dx only, where the row takes
     * tpr_max items; NV_PHASE_PIPE_DX32) */
    /* (phase_pipe_dx16_nores: a shallower depth for the calls without a residual gradient, in
     * frames that fill more than 5/8 of the row's items' vectors (a frame of about half of them is
     * nearly a cache one vector deep, and lost) and rows of at least phase_pipe_dx16_nores_tpr
     * items (rows of 1-4 items lost); cols here is the frame's, L.vec its width; where the cache
     * is as deep as phase_pipe_dx16's, either depth passes) */
    const unsigned dx16_depth =
        !has_dres && op->phase_pipe_dx16_nores && op->phase_pipe_dx16_nores < op->phase_pipe_dx16 &&
                cols / L.vec * 8 > (size_t)5 * L.tpr * L.ncache && L.tpr >= op->phase_pipe_dx16_nores_tpr
            ? op->phase_pipe_dx16_nores
            : op->phase_pipe_dx16;
    const bool phase_pipe_dx =
        frame != FRAME_NONE && !partials &&
        (max_elem == 2 ? op->phase_pipe_dx16 && L.ncache >= dx16_depth &&
                             (!op->phase_pipe_dx16_wg_max || (size_t)L.tpr * L.rpw <= op->phase_pipe_dx16_wg_max)
                       : !has_dres && op->phase_pipe_dx32 && L.tpr == op->tpr_max);
    L.pipe = backward ? L.ncache && !phase_nopipe &&
                            (op->pipe == 2 || (op->pipe == 1 && partials && max_elem == 2) || phase_pipe_dx ||
                             (dx16_long(op, backward, partials, has_dres, cols, max_elem) && L.tpr == op->tpr_max16)) &&
                            (!partials || !op->pipe_vecs || fill_nc ||
                             (size_t)L.ncache * L.tpr * L.rpw * L.rpi <= op->pipe_vecs)
                      : L.ncache && 2 * L.ncache <= op->ncache && op->groups_per_cu && cols >= op->pipe_cols &&
                            (op->pipe == 2 || (op->pipe == 1 && max_elem == 2)) && !fit;
    /* the 16-bit forward's cache as stored where in fp32 it would take more than raw16_vecs vectors
     * per group (bf16 on the H200: 1024 items x 4 vectors pipelined at cols 32768 0.198 -> 0.164
     * ms, 1024 x 8 at 65536 0.305 -> 0.190 (spilled in fp32); 640 x 4 pipelined at 20480 kept fp32:
     * 0.143, raw 0.154) */
    if (!backward && L.ncache && max_elem == 2 && op->raw16_vecs &&
        (size_t)L.ncache * L.tpr * L.rpw * (L.pipe ? 2 : 1) > op->raw16_vecs)
        L.raw = true;
    /* with dweight/dbias only (dx-only calls gained nothing, bf16 dx_res at 12288 / 16384 lost 5 / 3
     * %), and only where the sums are in registers, in at most half of nacc's (bf16 at cols 32768,
     * nacc 8: 0.624 -> 0.735 ms with it; 65536, sums in the workspace: 1.02 -> 1.09; 12288, row
     * cached, 3 vectors: 0.271 -> 0.255); NV_PREFETCH is inline PTX: NVIDIA devices only (their
     * compute capability is known) */
    /* (not where a 16-bit row without a residual gradient is cached more than prefetch16_nores_nc_max
     * vectors deep, i.e. 4 deep beside acc_local16's local sums. Session 41, an H100, bf16, GB/s,
     * prefetch on / off, two alternations: 16384 backward 2413 / 2742, 2433 / 2743 (0.83 -> 0.96
     * of the copy in --tune), with the residual gradient 2509 / 2447, 2495 / 2421 (kept); 12288 (3
     * deep) 2766 / 2624, 2768 / 2634 (kept), with the residual gradient 2838 / 2878, 2838 / 2875
     * (kept too: off there gained 1.4 % in one run, a tie in session 42's --tune: 0.3754 / 0.3772
     * against 0.3772 / 0.3783 ms). Not its registers: the 4-deep program without a residual
     * gradient takes 128 and spills nothing either way (session 42, -cl-nv-verbose); why it
     * loses there is still open. The residual gradient prefetched too lost 10 % at 16384, 6 % at
     * 12288 (session 42)) */
    const unsigned pf_cols = max_elem == 2 ? op->prefetch16_cols : has_dres ? 0 : op->prefetch_cols;
    L.prefetch = backward && partials && pf_cols && cols >= pf_cols && ctx->info.nv_cc_major > 0 && L.nacc &&
                 2 * L.nacc <= op->nacc &&
                 !(max_elem == 2 && !has_dres && op->prefetch16_nores_nc_max && L.ncache > op->prefetch16_nores_nc_max);
    /* ... and the block being read, at its start, the next block's then asked for after the first
     * read (PF_CUR, PF_LATE): in fp32 rows read twice beside the sums in registers (whose first
     * read cannot have all its loads in flight beside 64 registers of sums; the next block alone
     * lost there, see above), with or without a residual gradient, and in all-16-bit rows with a
     * residual gradient where the prefetch is on. Session 46, an H100, fraction of the copy,
     * backward / backward_res, two alternations, table -> this: fp32 13312 0.747 / 0.820, 0.746
     * / 0.816 -> 0.841 / 0.924, 0.824 / 0.927; 14336 0.770 / 0.832, 0.772 / 0.826 -> 0.817 /
     * 0.924, 0.836 / 0.926; 15360 0.739 / 0.792, 0.738 / 0.797 -> 0.807 / 0.877, 0.799 / 0.873;
     * 16384 0.753 / 0.805, 0.754 / 0.807 -> 0.802 / 0.869, 0.789 / 0.877 (the block being read
     * alone, the next one not at all: 0.786 / 0.866, 0.782 / 0.871; fp32 rows cached in
     * registers, 11264 / 12288, gained 0-1 %); bf16 backward_res 13312 0.830 / 0.834 -> 0.896 /
     * 0.890, 14336 0.835 / 0.828 -> 0.890 / 0.901, 15360 0.817 / 0.825 -> 0.870 / 0.885, 16384
     * 0.826 / 0.825 -> 0.857 / 0.863, 12288 a tie (0.959 / 0.951 -> 0.961 / 0.960 with the block
     * being read alone); bf16 without a residual gradient: a tie at 13312-16384 and 12288 0.93 ->
     * 0.87, so not there. The fp32 32768 rows (sums in the workspace, not here) lost 7 % */
    L.pf_cur = false;
    if (backward && partials && ctx->info.nv_cc_major > 0 && L.nacc) {
        if (max_elem == 4 && !L.ncache && op->prefetch_cur_cols && cols >= op->prefetch_cur_cols)
            L.pf_cur = L.prefetch = true;
        else if (max_elem == 2 && has_dres && L.prefetch && op->prefetch16_cur_res)
            L.pf_cur = true;
    }
    /* ... and, with prefetch16_cur_dr, the residual gradient's rows of the block being read, where
     * the 16-bit row is cached and the residual gradient not loaded early (it is read after the row
     * sums). Off in every table row: measured at one width only (session 46, an H100, bf16
     * backward_res, two alternations, fraction of the copy: 16384, not loaded early, 0.859 / 0.859
     * -> 0.945 / 0.937; loaded early, 13312 / 14336 / 15360, 1-2 % slower, 12288 a tie; fp32
     * rows read twice, 14336 / 16384, 14 % slower). Due: the GPU suite with it, and an H200, whose
     * 4-deep rows at 13312-16384 all read the residual gradient late */
    L.pf_dr = L.pf_cur && max_elem == 2 && has_dres && L.ncache && !L.dr_early && op->prefetch16_cur_dr;
    /* NVIDIA's row sums: the warps' sums added by a butterfly where rows take bfly_tpr items or
     * more (one or two groups per compute unit, which spent issue slots on the loop over them; the
     * H200, ms, loop -> butterfly: bf16 forward 16384 0.1473 -> 0.1454, 32768 0.1648 -> 0.1530,
     * fp32 forward 32768 0.338 -> 0.310, fp32 dx at 8192 0.416 -> 0.395, bf16 backward_res at
     * 32768 0.727 -> 0.686; with 128 or 256 items the loop's independent loads won: bf16 forward
     * 12288 0.140 -> 0.148), up to bfly_cols_max (the forward at 65536, 1024 items x 8 or 16
     * vectors: bf16 0.196 -> 0.199, fp32 0.448 -> 0.457); not in backward calls with dweight/dbias
     * and a residual gradient whose cached row is within the early residual-gradient budget
     * (dr_early): there the butterfly raised the kernel's registers past what two 512-item groups
     * per compute unit leave (fp32 at 4096: 64 -> 73 registers, 0.519 -> 0.567 ms); without the
     * residual gradient those rows take it (loop -> butterfly, ms: fp32 8192 0.402 -> 0.397, 5120
     * 0.474 -> 0.470, bf16 12288 0.244 -> 0.241). Only rows of more than one warp: at 32 items or
     * fewer the kernels have no loop to replace. */
    L.bfly = P->nv_shfl && op->bfly_tpr && L.tpr > 32 && L.tpr >= op->bfly_tpr &&
             (!op->bfly_cols_max || cols <= op->bfly_cols_max) && !(backward && partials && has_dres && L.dr_early);
    /* dx's second read in unrolled batches where the row is not cached but the sums are */
    L.dxb = !backward || !L.nacc || L.ncache ? 0 : max_elem == 2 ? op->dxb16 : !partials ? op->dxb_dx : op->dxb;
    /* ... where fp32 calls with a residual gradient also keep acc_local_res (fewer than all) of
     * each item's sum vectors in local memory (2 x that x items x vector bytes, beside the row
     * sums' scratch), the registers freed for deeper batches (the H200 at cols 16384: 0.769 ->
     * 0.728 ms with 1 vector and batches of 3; without a residual gradient, or in 16-bit calls, it
     * gained nothing) */
    if (backward && partials && L.nacc && !L.ncache && has_dres && max_elem == 4 && op->acc_local_res &&
        op->acc_local_res < L.nacc) {
        if (local_sums_fit(ctx, op->acc_local_res, (size_t)L.tpr * L.rpw, L.vec, 1)) {
            L.acc_local = op->acc_local_res;
            /* (deeper batches only within tpr_max items: 1024-item groups have half the registers
             * per item; fp32 at cols 32768, 1024 x 8: batches of 3 1.450 ms, of 2 1.289) */
            if (op->dxb_res && (!op->tpr_max || L.tpr <= op->tpr_max))
                L.dxb = op->dxb_res;
        }
    }
    /* ... and all-16-bit calls whose row is cached (acc16 above) keep acc_local16 of each item's
     * sum vectors there: the cached row and the fp32 sums of 512 items are what fills a compute
     * unit's registers (bf16 on an H100, 512 items, ms, twice-read / cached / cached with one sum
     * vector local: cols 16384 0.382 / 0.361 (256 bytes of spills) / 0.340, with the residual
     * gradient 0.494 / 0.837 (960 bytes) / 0.436; 12288, 3 deep, cached / local: 0.311 / 0.292,
     * with the residual gradient 0.381 / 0.382) */
    if (acc16 && L.ncache && op->acc_local16 < L.nacc && local_sums_fit(ctx, op->acc_local16, (size_t)L.tpr * L.rpw, L.vec, L.rpi))
        L.acc_local = op->acc_local16;
    /* the forward's local buffer ((2 + rpi) * cols floats) within the table's size, and with the kernel's own row-sum
     * scratch (two buffers of RED_SIZE: 4 floats for a one-item group) within the device's local
     * memory. (The scratch once counted against the table's size too, which moved its 12 KiB
     * bound from cols 1024 to 1023: PoCL bf16 forward at cols 1024 without the local row 0.352 ->
     * 0.286 ms in cache, 25.5 -> 21.7 ms at 65536 rows.) */
    /* (hosts with AVX512_BF16: local_row_kib_intel_bf16. Session 19's Sapphire Rapids, bf16,
     * 2^26 elements, --tune, ms, 12 -> 512 KiB (session 19): 2048 14.80 -> 10.53, 4096 15.12 ->
     * 11.26, 8192 14.43 -> 12.24; session 18's run on the same kind of host: 16384 14.3 -> 12.9,
     * 32768 14.3 -> 13.3. Session 4's Zen 4, also AVX512_BF16, had lost 29 % at 4096 with the
     * local row's first loops; session 36's gained there, see clnorm__query_device.) */
    const unsigned row_kib = ctx->info.x86_no_avx512                               ? P->local_row_kib_avx2
                             : ctx->info.x86_bf16 && P->local_row_kib_intel_bf16 ? P->local_row_kib_intel_bf16
                                                                                 : P->local_row_kib;
    /* CPU devices only: there local memory is the cache. On the H200 (the CPU row through
     * CLNORM_DEVICE_CLASS=cpu) its vector accesses to the local row faulted (-9999, the context
     * lost; session 11), and a GPU has its register cache for the same job. */
    const bool cpu_dev = (ctx->info.type & CL_DEVICE_TYPE_CPU) != 0;
    /* (2 + RPI) * cols floats: weight, bias and the item's rows. The forward's RPI rows only with the
     * local row: where they would not fit, half as many (the local row gained more). */
    /* (the local rows' length: cols, or with unaligned vectors cols rounded up to whole vectors) */
    const size_t lcols = clnorm__local_cols(&L, cols);
    for (;;) {
        const double row_bytes = (2.0 + L.rpi) * (double)lcols * sizeof(float), lbytes = row_bytes + 4.0 * sizeof(float);
        L.local_row = cpu_dev && !backward && (max_elem == 2 || short32) && L.tpr == 1 && L.rpw == 1 && !L.ncache && row_kib &&
                      row_bytes <= (double)row_kib * 1024.0 &&
                      (!ctx->info.local_mem || lbytes <= (double)ctx->info.local_mem);
        if (L.local_row || backward || L.rpi == 1)
            break;
        L.rpi /= 2;
    }
    if (backward) {
        /* x-hat and g of the item's rows (2 * rpi * cols floats), with the weight's fp32 copy (cols
         * more) where that fits too (bf16 at cols 65536 lost 5-20 % when the weight's share cost it
         * the local row), within the table's size, and with
         * the row sums' scratch (two sums_t of up to 8 floats) within local memory. Measured on an
         * AVX2 host only (PoCL bf16 with dweight/dbias, 2^26 elements, ms, without -> with: cols 256
         * 28.2 -> 22.6, 2048 44.8 -> 41.1, 4096 51.0 -> 43.8, 8192 45.4 -> 41.6; fp32 at 4096
         * 32.6 -> 47.9, so 16-bit calls only). On hosts with AVX512_BF16 (Intel's; AMD's since
         * session 36) up to bwd_local_row_kib_intel_bf16, 48 KiB (by default no more than the host's L1d:
         * clnorm__params_fit_host): one row per item (the 4 rows per item that calls
         * with dweight/dbias take from cols 2048 would need 9 * cols floats, past the bound; calls
         * with a residual gradient take 2 there, rpi16_res, 5 * cols floats: the local row up to
         * cols 3072, from 2458 without the weight's copy). Their
         * Sapphire Rapids, bf16, 2^26 elements, ms, two alternations, without -> with (session 19):
         * with dweight/dbias cols 512 17.8 -> 13.5-14.1, 1024 19.2-20.2 -> 12.7, 256 17.1-17.6 ->
         * 17.7-18.1; with the residual gradient too 256 19.5-20.0 -> 18.1-18.6, 512 20.2-20.6 ->
         * 16.6-16.8, 1024 20.6 -> 15.3-15.4; dx-only 256 16.7 -> 14.5-15.1, 1024 16.5-16.6 ->
         * 11.9-12.0, 2048 15.6 -> 11.2-11.6, 4096 16.1-16.3 -> 14.4; with 4 rows per item it lost
         * (2048 / 4096 / 8192 16.7-17.3 / 17.2 / 17.2-17.7 -> 18.9-19.4 / 19.1-20.1 / 19.1-19.7),
         * and dx-only at 8192 (64 KiB) 15.8 -> 16.2-16.3. The one loss within the bound: with
         * dweight/dbias at 256, 3 % (--tune 18.16 -> 18.76; at 1024 19.76 -> 13.56) */
        const unsigned bwd_kib = ctx->info.x86_no_avx512 ? P->bwd_local_row_kib_avx2
                                 : ctx->info.x86_bf16    ? P->bwd_local_row_kib_intel_bf16
                                                         : 0;
        for (int with_w = 1; with_w >= 0 && !L.local_row; --with_w) {
            const double b_bytes = (2.0 * L.rpi + with_w) * (double)lcols * sizeof(float), b_all = b_bytes + 64.0;
            L.local_row = cpu_dev && bwd_kib && max_elem == 2 && L.tpr == 1 && L.rpw == 1 && !L.ncache && !L.nacc &&
                          b_bytes <= (double)bwd_kib * 1024.0 &&
                          (!ctx->info.local_mem || b_all <= (double)ctx->info.local_mem);
            L.local_w = L.local_row && with_w;
        }
    }

    /* the streaming forward's statistics from one read (FWD_CHAN) where every item holds the same
     * number of vectors (equal parts: the merge across items is symmetric), in chunks of the
     * largest power of two up to the table's that divides that number (fp32 at cols 49152: 12
     * vectors an item, chunks of 4). The H200, ms, three reads -> one read for the statistics and
     * one for y, chunks of 2 / 4 / 8 vectors: fp32
     * at cols 65536 0.450 -> 0.435 / 0.427 / 0.409, 131072 0.572 -> 0.454 / 0.448 / 0.434; bf16 at
     * 131072 0.300 -> 0.260 / 0.261 / 0.292 (8 vectors of 8 took too many registers); smaller
     * chunks where the item's vectors take no larger: fp32 40960 (chunks of 2) 0.490 -> 0.385,
     * 49152 (4) 0.455 -> 0.405, 81920 (4) 0.513 -> 0.438, bf16 81920 (2) 0.316 -> 0.245. Rows the
     * register cache holds stay cached: streamed with this they were slower (fp32 32768 0.311 ->
     * 0.316, bf16 65536 0.193 -> 0.240) */
    unsigned chan = max_elem == 2 ? op->chan16 : op->chan;
    if (backward || L.ncache || L.pipe || L.local_row || !pow2(L.tpr) || nv % L.tpr != 0)
        chan = 0;
    while (chan > 1 && (nv / L.tpr) % chan != 0)
        chan /= 2;
    L.chan = chan;
    const size_t blocks = (rows + rpw * L.rpi - 1) / (rpw * L.rpi);
    /* Persistent grids (the backward's; the forward's where the table asks for one): groups_per_cu
     * counts groups of the table's size (op->wg items): wider or narrower groups (long rows, or
     * items per row that do not divide wg) get proportionally fewer or more, so the items in flight
     * per compute unit stay what was tuned (an H200 cannot hold 4 groups of 512). Rounded down to
     * whole groups per compute unit: a persistent grid larger than what the device holds at once
     * runs its last groups in a second wave (cols 768 on the H200: 5.33 groups of 192 items per
     * compute unit gave 0.58 of the copy, 4 gave 0.75). */
    /* ... and in all-16-bit calls with dweight/dbias whose row is cached, groups16 (groups16_res
     * with a residual gradient) instead where set: their kernels take so many registers that fewer
     * groups fit a compute unit than groups_per_cu asks for, and the rest ran as a second wave
     * (the H200: 120 registers without the residual gradient, 2 groups of 256 items fit; 225 with
     * it and 2 rows per item, 1 fits; bf16, ms, table -> 2 / 1: cols 64 0.303 -> 0.249, with the
     * residual 0.511 -> 0.320; 1024 0.210 -> 0.206, 0.272 -> 0.263; 4096 0.216 -> 0.209, 0.278
     * -> 0.265; 8192, 512-item groups, 0.223 -> 0.213, 0.276 -> 0.267) */
    unsigned gpc = op->groups_per_cu;
    if (backward && partials && max_elem == 2 && L.ncache && (has_dres ? op->groups16_res : op->groups16))
        gpc = has_dres ? op->groups16_res : op->groups16;
    /* ... and on the short rows of short16_cols, whose kernels (4-element vectors without a residual
     * gradient, one 8-element vector per item with it) leave room for more (the H200, bf16 at cols
     * 64, ms: table 0.247 -> 0.219 with 8-byte vectors in 3 groups; with the residual 0.315 ->
     * 0.264, 1 vector per item in 2 groups) */
    if (short16 && L.ncache && (has_dres ? op->short16_groups_res : op->short16_groups))
        gpc = has_dres ? op->short16_groups_res : op->short16_groups;
    /* ... and groups_res in fp32-widest calls with dweight/dbias and a residual gradient whose row is
     * cached within ncache in groups of at most wg items (the H200, 4 -> 3, ms: cols 2048 0.588 ->
     * 0.514 (72 registers: 3 groups of 256 fit), 1024 0.520 -> 0.513, 256 and 768 equal; 4096's
     * 512-item groups lost, 0.520 -> 0.572) */
    if (backward && partials && has_dres && max_elem == 4 && op->groups_res && L.ncache && L.ncache <= op->ncache &&
        (size_t)tpr * rpw <= op->wg)
        gpc = op->groups_res;
    size_t per_cu = (size_t)gpc * op->wg / ((size_t)tpr * rpw);
    /* the twice-read backward holds one group per compute unit where its sums fill half the
     * register file: more groups only run in waves, each writing a partial row (the H200 at cols
     * 16384, 2 groups of 512 items per compute unit -> 1: fp32 0.608 -> 0.597 ms, bf16 0.329 ->
     * 0.318, with the residual 0.763 -> 0.751 / 0.409 -> 0.393) */
    if (backward && partials && L.nacc && !L.ncache && op->acc_groups && per_cu > op->acc_groups)
        per_cu = op->acc_groups;
    const size_t persistent_groups = (size_t)ctx->info.compute_units * (per_cu ? per_cu : 1);
    if (!backward) {
        /* one group per row block, or a persistent grid where the table asks for one (CPUs; with
         * op->pipe, for pipelined calls only) */
        L.persistent = op->groups_per_cu && (!op->pipe || L.pipe);
        /* the pipelined forward's L2 prefetch of the block after the one its second register set
         * loads (NV_PREFETCH: inline PTX, NVIDIA only), where its groups cache x in fp32: one group
         * per compute unit has one row in flight while its reductions run, and HBM then has a
         * second. The H200, bf16, ms, off -> on (--tune, session 19): 14336 0.1530 -> 0.1485, 16384
         * 0.1460 / 0.1469 -> 0.1408 / 0.1405 (0.89 -> 0.92-0.95 of the copy), 18432 0.1470 ->
         * 0.1400, 20480 0.1433 -> 0.1413, 24576 0.1741 -> 0.1724; the raw cache's 896- and 1024-item
         * rows lost (28672 0.1523 -> 0.1574, 32768 0.1531 / 0.1536 -> 0.1578 / 0.1577), and so did
         * the shorter rows pipelined in 2-3 groups per compute unit (8192 0.1442 -> 0.1463, 5120
         * 0.1424 -> 0.1461; their table layouts are not pipelined). Three blocks ahead: 16384 0.148. */
        L.prefetch = L.pipe && !L.raw && op->pipe_prefetch_cols && cols >= op->pipe_prefetch_cols &&
                     ctx->info.nv_cc_major > 0; /* (pipelined grids are persistent) */
        L.groups = L.persistent ? balance_groups(persistent_groups, blocks, op) : blocks;
        if (L.groups > blocks)
            L.groups = blocks;
        return L;
    }
    /* the backward's, fewer groups when the fp32 partial sums (2 * groups * rpw * cols floats)
     * would outgrow the workspace cap */
    size_t groups = persistent_groups;
    /* per_group does not overflow in practice: a validated view of cols elements fits a device buffer */
    const size_t per_group = 2 * rpw * cols * sizeof(float);
    const size_t cap = ctx->info.max_alloc && ctx->info.max_alloc < P->workspace_cap ? (size_t)ctx->info.max_alloc
                                                                                      : P->workspace_cap;
    if (per_group > cap / groups)
        groups = cap / per_group;
    if (groups > blocks)
        groups = blocks;
    if (groups < 1)
        groups = 1;
    L.groups = balance_groups(groups, blocks, op);
    return L;
}

/* The launch plan for one shape (plan_shape), without narrow_item_bytes' raise where, in a call
 * with dweight/dbias, the raised plan would not hold the row in registers (session 26: BF16 at
 * cols 1022 and 4 vectors per item, not cached, 0.697 -> 0.194 of the copy), nor where the
 * unraised plan already gives each item more than narrow_from_bytes of the row. (The forward's
 * raise stays within its cache depth, so it leaves no row of a cached forward uncached.)
 * (narrow_from_bytes: session 27, an H100, F32 forward, fraction of the copy, unraised -> raised
 * at 8 one-element vectors per item: where the unraised plan holds 16 bytes per item, cols 1023 /
 * 1535 / 2047, the raise gained (session 26: 0.958 -> 0.993 at 1023); where it holds 20-28
 * bytes (512 items of 5-7 vectors) it lost: 2559 0.928 -> 0.783, 3001 0.955 -> 0.717 (run 3),
 * 3583 0.811 -> 0.789; BF16, 8 bytes at 4 vectors, gained at 3001: 0.387 -> 0.472). Session
 * 28, the H200, F32 forward, raised -> bounded: 2559 0.622 -> 0.749, 3001 0.576 -> 0.800, 3583
 * 0.629 -> 0.653) */
static clnorm_launch plan_core(const clnorm_context *ctx, bool backward, bool partials, bool has_dres, size_t rows,
                               size_t cols, size_t align_or, size_t max_elem, bool unaligned, int frame)
{
    const clnorm_op_params *op = backward ? &ctx->params->bwd : &ctx->params->fwd;
    bool raised = false;
    const clnorm_launch L =
        plan_shape(ctx, backward, partials, has_dres, rows, cols, align_or, max_elem, unaligned, frame, true, &raised);
    const bool lost_cache = backward && partials && !L.ncache;
    if (!raised || (!lost_cache && !op->narrow_from_bytes))
        return L;
    const clnorm_launch U =
        plan_shape(ctx, backward, partials, has_dres, rows, cols, align_or, max_elem, unaligned, frame, false, &raised);
    if (lost_cache)
        return U;
    const size_t nv = (cols + U.vec - 1) / U.vec, item_bytes = (nv + U.tpr - 1) / U.tpr * U.vec * max_elem;
    return item_bytes <= op->narrow_from_bytes ? L : U;
}

/* The distance in rows between rows of one phase class (common.cl's phase_period): vec / gcd(vec, ld). */
static size_t phase_period(size_t vec, size_t ld)
{
    const size_t low = ld & (~ld + 1);
    return low == 0 || low >= vec ? 1 : vec / low;
}

/* Row phases (PHASE, common.cl; GPUs; the backward only): where the alignment of cols, an offset or a row stride
 * would narrow the vectors, but every row tensor has x's offset and row stride modulo the table's
 * width, the plan of that width for rows of cols + width - 1 elements (a row's frame: its
 * columns with the elements before them in their first vector and after them in their last),
 * if that plan keeps the row in registers (or, with phase_reread, its sums while it reads the row
 * twice: the kernels' two PHASE regimes), and the grid rounded
 * to whole phase classes. Returns false (L untouched) where it does not apply; *narrowed then
 * holds the narrowed plan where it planned one (*have_narrowed), which the caller need not plan
 * again (every enqueue plans). */
/* The backward call's bit in the table's phase_skip: bit 1 the backward with dweight/dbias, 2 the
 * same with a residual gradient, 3 the backward with dx only, 4 the same with a residual
 * gradient; 5 more in all-16-bit calls (bits 6-9; max_elem: the widest of all the call's
 * tensors, weight and bias included, as for the plan's width). Bits 0 and 5 were the forward's,
 * which takes no row phases since 0.20.0: the phased forward lost to the narrowed one on the
 * H200 (session 22) and an H100 (session 26) in every form tried (per row, persistent with the
 * weight and bias in registers, pipelined); those bits are accepted and change nothing. */
static unsigned phase_op_bit(bool partials, bool has_dres, size_t max_elem)
{
    const unsigned op = partials ? (has_dres ? 2u : 1u) : (has_dres ? 4u : 3u);
    return 1u << (op + (max_elem == 2 ? 5u : 0u));
}

static bool plan_phase(const clnorm_context *ctx, bool backward, bool partials, bool has_dres, size_t rows,
                       size_t cols, size_t align_or, size_t max_elem, size_t phase_or, size_t x_ld,
                       clnorm_launch *out, clnorm_launch *narrowed, bool *have_narrowed)
{
    /* (the table's GPU rows: CPU devices too under CLNORM_DEVICE_CLASS=gpu, as CI runs them) */
    if (!backward || !ctx->params->row_phase || ctx->params->contig_rows || cols == 0)
        return false;
    const unsigned op_bit = phase_op_bit(partials, has_dres, max_elem);
    if (ctx->params->phase_skip & op_bit)
        return false;
    /* (phase_pipe_dx16: the all-16-bit calls with dx only take phases only pipelined, below) */
    const bool pipe_only = !partials && !has_dres && max_elem == 2 && ctx->params->bwd.phase_pipe_dx16;
    /* (every call plans: where the alignment allows the table's width, nothing to do, without
     * planning twice more) */
    const size_t table_vec = ctx->params->vec_bytes / max_elem;
    if (table_vec <= 1 || (align_or & (table_vec - 1)) == 0)
        return false;
    const clnorm_launch nl = plan_core(ctx, backward, partials, has_dres, rows, cols, align_or, max_elem, false, FRAME_NONE);
    *narrowed = nl;
    *have_narrowed = true;
    const size_t narrow = nl.vec;
    /* (... and only where the alignment narrows the vectors to phase_vec_max elements, whether or
     * not the narrowed plan holds the row: session 32, an H100, BF16 dx narrowed to 2 elements,
     * narrowed -> pipelined in phases: 8194 0.607 -> 0.699, 12290 0.619 -> 0.687, 13314 0.660 ->
     * 0.684, but 14338 0.721 -> 0.675, 15362 0.745 -> 0.666, 16374 0.765 -> 0.635) */
    /* (phase_pipe_dx16_reread_cols: ... or at any narrowed width up to that many columns where the
     * narrowed plan re-reads the row; where it holds the row, the check below keeps it: BF16 dx at
     * 2 elements, session 33, NV_PHASE_PIPE_DX16_REREAD_COLS) */
    const bool reread_ok = pipe_only && cols <= ctx->params->bwd.phase_pipe_dx16_reread_cols;
    if (pipe_only && ctx->params->phase_vec_max && narrow > ctx->params->phase_vec_max && !reread_ok)
        return false;
    /* (phase_dx16_res_vec_max: the all-16-bit dx_res calls only where the alignment narrows the
     * vectors to at most that many elements; NV_PHASE_DX16_RES_VEC_MAX) */
    const bool dx16_res = !partials && has_dres && max_elem == 2;
    const unsigned res_vec_max = ctx->params->bwd.phase_dx16_res_vec_max;
    if (dx16_res && res_vec_max && narrow > res_vec_max)
        return false;
    /* (phase_pipe_dx16_keep_tpr: ... but not where the narrowed plan holds the row in at most that
     * many items; NV_PHASE_PIPE_DX16_KEEP_TPR) */
    const unsigned keep_tpr = ctx->params->bwd.phase_pipe_dx16_keep_tpr;
    if (pipe_only && nl.ncache && keep_tpr && nl.tpr <= keep_tpr)
        return false;
    /* (phase_vec_max, phase_cached_skip: where the narrowed plan holds the row in registers and
     * does as well; docs/PERFORMANCE.md, session 26. Where it does not, phases won: fp32 backward
     * at 4095, 0.673 -> 0.859) */
    const unsigned cached_tpr_max = ctx->params->phase_cached_tpr_max;
    if (nl.ncache && ((ctx->params->phase_vec_max && narrow > ctx->params->phase_vec_max) ||
                      ((ctx->params->phase_cached_skip & op_bit) && (!cached_tpr_max || nl.tpr <= cached_tpr_max))))
        return false;
    /* the width the rows' own alignment allows (bit 30: as if cols and x's offset and stride
     * were aligned; phase_or's low bits still bound it) */
    const size_t wide = plan_core(ctx, backward, partials, has_dres, rows, cols, ((size_t)1 << 30) | phase_or,
                                  max_elem, false, FRAME_NONE).vec;
    if (wide <= narrow)
        return false;
    const size_t p = phase_period(wide, x_ld);
    if (rows < p) /* every class has a row (rows past the end load their class's first row) */
        return false;
    const size_t nvf = (cols + 2 * wide - 2) / wide; /* the most vectors a row's frame has */
    if (nvf > SIZE_MAX / wide)
        return false;
    clnorm_launch L = plan_core(ctx, backward, partials, has_dres, (rows + p - 1) / p, nvf * wide,
                                (nvf * wide) | phase_or, max_elem, false, FRAME_TARGET);
    /* (phase_target16_res: only where it leaves fewer of the items' vectors idle, holds the frame
     * in registers and still takes a warp of items, or where only it holds the frame; a frame of
     * 2^k vectors, one that 4 vectors per item would not fit, or a short one, keeps the table's
     * target) */
    if (has_dres && max_elem == 2 && ctx->params->bwd.phase_target16_res) {
        const clnorm_launch L0 = plan_core(ctx, backward, partials, has_dres, (rows + p - 1) / p, nvf * wide,
                                           (nvf * wide) | phase_or, max_elem, false, FRAME_PLAIN);
        if (L0.ncache && (!L.ncache || L.tpr < 32 || (size_t)L.tpr * L.ncache >= (size_t)L0.tpr * L0.ncache))
            L = L0;
    }
    /* (phase_reread: the frame read twice, its sums in registers, one row per item: cl/backward.cl's
     * sums-in-registers regime; only with dweight/dbias, whose narrowed long rows otherwise stream
     * with the sums in the workspace or sweep columns. Off in every row: on an H100, session 31,
     * fraction of the copy, swept -> phased: bf16 backward at 12287 / 16383 / 20482 / 24575 0.403
     * / 0.438 / 0.465 / 0.442 -> 0.103 / 0.092 / 0.081 / 0.087, fp32 12287 0.517 -> 0.584 but
     * 16383 0.441 -> 0.163; NVIDIA's compiler put the bf16 kernels at 64 registers with 1.5-1.7
     * KiB of spills, and -cl-nv-maxrregcount=128 did not change that) */
    const bool reread = ctx->params->phase_reread && partials && !L.ncache && L.nacc && L.rpi == 1;
    if (L.vec != wide || (!L.ncache && !reread) || L.chan || L.colsweep || L.local_row || L.unaligned ||
        (pipe_only && !L.pipe))
        return false;
    /* (phase_dx16_res_deep, phase_dx32_deep: the calls without dweight/dbias, 16-bit dx_res and
     * those with a 32-bit tensor, narrowed to 2 elements or more: not where the phased cache would
     * be that deep; NV_PHASE_DX16_RES_DEEP, NV_PHASE_DX32_DEEP) */
    const unsigned deep = partials    ? 0
                          : max_elem == 4 ? ctx->params->bwd.phase_dx32_deep
                          : dx16_res      ? ctx->params->bwd.phase_dx16_res_deep
                                          : 0;
    if (deep && narrow >= 2 && L.ncache >= deep)
        return false;
    if (reread && !L.dxb) /* (dx's second read batched: the frame has no loop form; one vector a batch) */
        L.dxb = 1;
    L.prefetch = L.pf_cur = L.pf_dr = false; /* (NV_PREFETCH: not with PHASE) */
    L.phase = (unsigned)p;
    /* plan_core planned one class (rows / p rows, its blocks): a grid per class where that is
     * one block a group (few rows); else the persistent grid kept near its size, in whole
     * classes, and within the workspace's cap */
    const size_t blocks = ((rows + p - 1) / p + (size_t)L.rpw * L.rpi - 1) / ((size_t)L.rpw * L.rpi);
    size_t g = L.groups >= blocks ? p * blocks : L.groups / p * p;
    const size_t cap = ctx->info.max_alloc && ctx->info.max_alloc < ctx->params->workspace_cap
                           ? (size_t)ctx->info.max_alloc
                           : ctx->params->workspace_cap,
                 per_group = 2 * (size_t)L.rpw * cols * sizeof(float);
    if (g > cap / per_group)
        g = cap / per_group / p * p;
    L.groups = g < p ? p : g;
    *out = L;
    return true;
}

/* The column sweep's plan (COLSWEEP, plan_call): the layout of the call without dweight/dbias,
 * its groups (colsweep_groups per compute unit, balanced) each summing dweight/dbias for its share
 * of the columns over every row. False where the share would not fit a group's items or the
 * sweep's local memory the device's, and with the contiguous row schedule (the sweep follows the
 * round-robin waves). */
static bool plan_colsweep(const clnorm_context *ctx, bool has_dres, size_t rows, size_t cols, size_t align_or,
                          size_t max_elem, clnorm_launch *out)
{
    const clnorm_op_params *op = &ctx->params->bwd;
    if (ctx->params->contig_rows)
        return false;
    clnorm_launch L = plan_core(ctx, true, false, has_dres, rows, cols, align_or, max_elem, false, FRAME_NONE);
    const size_t nv = cols / L.vec, wg = (size_t)L.tpr * L.rpw;
    if (op->colsweep_groups) {
        const size_t g = (size_t)ctx->info.compute_units * op->colsweep_groups,
                     blocks = (rows + (size_t)L.rpw * L.rpi - 1) / ((size_t)L.rpw * L.rpi);
        L.groups = g < blocks ? g : blocks;
        if (L.groups < 1) /* rows == 0 (clnorm_launch_plan): as plan_core, one group */
            L.groups = 1;
        /* balanced (bwd_balance) where the fewer groups' shares of the columns still fit one */
        const size_t b = balance_groups(L.groups, blocks, op);
        if ((nv + b - 1) / b <= wg)
            L.groups = b;
    }
    const size_t share = (nv + L.groups - 1) / L.groups;
    /* local memory: the row sums' scratch (RED_SIZE sums_t: 2 floats per row an item takes) and
     * the row lanes' tree (WG / 2 vectors) */
    const size_t lbytes = (wg + (wg + 31) / 32) * 2 * L.rpi * sizeof(float) + (wg > 1 ? wg / 2 : 1) * L.vec * sizeof(float);
    if (share > wg || (ctx->info.local_mem && lbytes > ctx->info.local_mem))
        return false;
    L.colsweep = (unsigned)next_pow2(share);
    *out = L;
    return true;
}

static clnorm_launch plan_call(const clnorm_context *ctx, bool backward, bool partials, bool has_dres, size_t rows,
                               size_t cols, size_t align_or, size_t max_elem, size_t phase_or, size_t x_ld)
{
    const clnorm_op_params *op = &ctx->params->bwd;
    /* The column sweep (COLSWEEP): the dx-only call's layout, each group summing dweight/dbias for
     * its share of the columns over every row, from colsweep_cols (colsweep16_cols in all-16-bit
     * calls) on. Its column lanes: the share's vectors rounded up to a power of two, at most the
     * group's items; the row lanes the rest. Where the per-group sums take half a compute unit's
     * registers and the row is read twice or streams, this reads x and dy from memory once (the
     * sweep's reads come from L2) and holds no sums across rows (the H200, one group per compute
     * unit, ms, table -> sweep: fp32 backward 20480 / 24576 / 32768 / 65536 1.061 / 1.158 / 1.237
     * / 1.458 -> 0.817 / 0.771 / 0.783 / 1.007, with the residual gradient 1.080 / 1.206 / 1.292
     * / 1.545 -> 0.970 / 0.916 / 0.935 / 1.107; bf16 32768 / 65536 0.602 / 1.016 -> 0.483 /
     * 0.464, with the residual gradient 0.687 / 1.132 -> 0.559 / 0.546). Not below: there the
     * sweep's second pass over x and dy, although from L2, costs what the twice-read layout's
     * second read does (bf16 16384: 0.315 ms against 0.316, i.e. 5 tensors' bytes at ~4.3 TB/s;
     * 20480 0.362 -> 0.425), and fp32 16384's dx kernel, at 64 registers, spilled (0.596 ->
     * 1.000). */
    const unsigned cs_cols = max_elem == 2 ? op->colsweep16_cols : op->colsweep_cols;
    clnorm_launch S;
    if (backward && partials && cs_cols && cols >= cs_cols &&
        plan_colsweep(ctx, has_dres, rows, cols, align_or, max_elem, &S))
        return S;
    /* Unaligned full-width vectors (the table's `unaligned_bytes`, the CPU row) where alignment
     * would narrow them below that many bytes, if the plan is then the streaming one-item-per-row
     * shape the kernels take them in (a tuned table may ask for another: then the narrower
     * vectors). CPU devices only, as the local row: measured there, and common.cl's unaligned
     * types are a clang extension (the vloadN / vstoreN it falls back on elsewhere are OpenCL's). PoCL on session 20's Intel host (AVX-512), 2^26 elements, ms, two alternations,
     * narrowed -> unaligned: cols 1002 (fp32 2 elements, bf16 2) forward fp32 33.8 / 32.6 ->
     * 25.5 / 27.9, bf16 34.0 / 34.8 -> 19.2 / 19.4, backward fp32 50.2 -> 34.5 / 37.0, bf16 57.8
     * / 57.7 -> 18.8 / 19.3; cols 1004 (fp32 4, bf16 4 elements) bf16 forward 22.4 / 22.3 -> 19.7
     * / 19.6, backward 29.0 / 28.5 -> 18.8 / 19.3, but fp32 forward 20.8 / 22.2 -> 25.2 / 25.9;
     * cols 1000 (8 elements) fp32 forward 17.4 / 17.5 -> 25.2 / 25.3, bf16 13.4 / 11.2 -> 19.9 /
     * 19.4: 64-byte accesses that split cache lines, and no non-temporal stores, cost more than
     * 16-byte aligned ones, so 16 bytes is the bound. */
    clnorm_launch narrowed;
    bool have_narrowed = false;
    {
        clnorm_launch L;
        if (plan_phase(ctx, backward, partials, has_dres, rows, cols, align_or, max_elem, phase_or, x_ld, &L,
                       &narrowed, &have_narrowed))
            return L;
    }
    if (ctx->params->unaligned_bytes && (ctx->info.type & CL_DEVICE_TYPE_CPU)) {
        const clnorm_launch L = plan_core(ctx, backward, partials, has_dres, rows, cols, align_or, max_elem, true, FRAME_NONE);
        if (!L.unaligned || (L.tpr == 1 && L.rpw == 1 && !L.ncache && !L.nacc && !L.pipe && !L.chan && !L.colsweep))
            return L;
    }
    const clnorm_launch L = have_narrowed
                                ? narrowed
                                : plan_core(ctx, backward, partials, has_dres, rows, cols, align_or, max_elem, false, FRAME_NONE);
    /* colsweep_stream: a call with dweight/dbias whose row would stream with its items' sums in the
     * workspace (no register cache, no sums in registers: a read-modify-write of the group's
     * partial rows for every row it takes) sweeps columns instead, at any cols. On the NVIDIA row
     * those are the long rows that alignment narrows: fp32 at odd cols 12287-16383, 16-bit at
     * cols 12282-32767 not a multiple of 4 and from 16388 those of 4 mod 8 (the others keep their
     * sums in registers, the aligned ones included).
     * An H100, session 31, fraction of the copy, streamed -> swept: bf16 backward at 12287 / 16383
     * / 24575 / 32767 0.088 / 0.088 / 0.084 / 0.086 -> 0.405 / 0.441 / 0.442 / 0.420, with the
     * residual gradient 0.109 / 0.111 / 0.110 / 0.112 -> 0.369 / 0.381 / 0.364 / 0.377; fp32 at
     * 12287 / 16383 0.160 / 0.176 -> 0.524 / 0.441, with the residual gradient 0.205 / 0.224 ->
     * 0.525 / 0.504; 2 groups per compute unit were slower than 1 everywhere. (No sums in
     * registers: nacc, which is at least ncache; more than one item per row: one is the CPU's
     * streaming shape, the local row's and the unaligned vectors' too.) */
    if (backward && partials && op->colsweep_stream && L.tpr > 1 && !L.nacc &&
        plan_colsweep(ctx, has_dres, rows, cols, align_or, max_elem, &S))
        return S;
    return L;
}

clnorm_launch clnorm__plan(const clnorm_context *ctx, bool backward, bool partials, bool has_dres, size_t rows, size_t cols,
                           size_t align_or, size_t max_elem, size_t phase_or, size_t x_ld)
{
    clnorm_launch L = plan_call(ctx, backward, partials, has_dres, rows, cols, align_or, max_elem, phase_or, x_ld);
    if (!backward && L.groups > CLNORM_FORWARD_MAX_GROUPS) /* (the forward's grid cap, internal.h) */
        L.groups = CLNORM_FORWARD_MAX_GROUPS;
    return L;
}

size_t clnorm__local_cols(const clnorm_launch *L, size_t cols)
{
    return L->unaligned ? (cols + L->vec - 1) / L->vec * L->vec : cols;
}
