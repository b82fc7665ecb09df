/* clnorm — the by-value arguments of each kernel: named 64-bit slots, passed as one vector
 * argument (PACKED_ARGS, the table's packed_args: NVIDIA) or as one argument each.
 *
 * One file for both sides: the host library includes it as C (src/layer_norm.c) and the program
 * builder puts it first in every kernel program as OpenCL C, so the two cannot drift apart.
 *
 * Why one argument on NVIDIA: its driver spends ~0.07 µs per kernel argument at each enqueue
 * (measured: a 6-buffer kernel with its 12 scalars as separate arguments 9.0–9.2 µs per enqueue,
 * with the same scalars in one struct 8.1–8.4). Buffers stay separate arguments (OpenCL 1.2 has
 * no other way to pass them). Why not everywhere: PoCL's CPU code for the bf16 backward came out
 * 7–10 % slower with the vector (cols 256 / 1024, 2^26 elements), for ~1 µs of host time a call.
 *
 * Why a vector (ulong16 / ulong8) and not a struct: with one struct argument (its fields read by
 * ld.param as the scalars were, yet the compiled code differed) the register-tight kernels ran
 * 4–16 % slower on the H200 (bf16 backward at 8192 / 32768 cols, fp32 backward with a residual
 * gradient at 4096, bf16 forward at 8192); a vector is a value like the scalars it replaces and
 * measured the same as them. Every slot is 64 bits: sizes, offsets and strides (in elements) as
 * they are; the forward's eps (its bits, low half) and flags (high half) share one slot.
 *
 * Slots are named by the hex digit of the component (.s0 ... .sf): KARG(v, FA_COLS) is v.s1 in a
 * kernel with PACKED_ARGS and the argument karg_1 without, and KARG_INDEX(FA_COLS) is 0x1 on the
 * host (cl_ulong16's .s[] index, and the slot's place among the arguments). */
#ifndef CLNORM_KERNEL_ARGS_H
#define CLNORM_KERNEL_ARGS_H

#ifdef __OPENCL_VERSION__
#ifdef PACKED_ARGS
#define KARG_(v, i) ((v).s##i)
#define FWD_ARGS const ulong16 args
#define BWD_ARGS const ulong16 args
#define RED_ARGS const ulong8 args
#else
/* one argument karg_0, karg_1, ... per slot (a prefix no kernel's own names use); v unused */
#define KARG_(v, i) (karg_##i)
#define KARGS_7                                                                                    \
    const ulong karg_0, const ulong karg_1, const ulong karg_2, const ulong karg_3, const ulong karg_4, \
        const ulong karg_5, const ulong karg_6
#define KARGS_11 KARGS_7, const ulong karg_7, const ulong karg_8, const ulong karg_9, const ulong karg_a
#define FWD_ARGS KARGS_11
#define BWD_ARGS KARGS_11, const ulong karg_b, const ulong karg_c, const ulong karg_d
#define RED_ARGS KARGS_7
#endif
#define KARG(v, i) KARG_(v, i)
#else
#define KARG_INDEX_(i) 0x##i
#define KARG_INDEX(i) KARG_INDEX_(i)
#endif

/* cl/forward.cl (packed: ulong16): rows x cols; x, weight, bias, y, mean and rstd at their
 * offsets (x and y with their row strides); eps and the FWD_* flags (which optional tensors are
 * present). */
#define FA_ROWS 0
#define FA_COLS 1
#define FA_X_OFF 2
#define FA_X_LD 3
#define FA_W_OFF 4
#define FA_B_OFF 5
#define FA_Y_OFF 6
#define FA_Y_LD 7
#define FA_MEAN_OFF 8
#define FA_RSTD_OFF 9
#define FA_EPS_FLAGS a
#define FA_COUNT 11 /* slots used (one argument each where not packed) */

/* cl/backward.cl (packed: ulong16): the BWD_* flags (weight present, dresidual present) in the
 * last slot. */
#define BA_ROWS 0
#define BA_COLS 1
#define BA_DY_OFF 2
#define BA_DY_LD 3
#define BA_X_OFF 4
#define BA_X_LD 5
#define BA_W_OFF 6
#define BA_MEAN_OFF 7
#define BA_RSTD_OFF 8
#define BA_DR_OFF 9
#define BA_DR_LD a
#define BA_DX_OFF b
#define BA_DX_LD c
#define BA_FLAGS d
#define BA_COUNT 14

/* cl/reduce.cl (packed: ulong8): nparts partial rows, pstride rows apart, the dbias rows from row
 * dbias_row on; the RED_* flags (dweight wanted, dbias wanted). */
#define RA_COLS 0
#define RA_NPARTS 1
#define RA_PSTRIDE 2
#define RA_DBIAS_ROW 3
#define RA_DW_OFF 4
#define RA_DB_OFF 5
#define RA_FLAGS 6
#define RA_COUNT 7

#endif
