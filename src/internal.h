/* clnorm — declarations shared by the library's source files (not installed). */
#ifndef CLNORM_INTERNAL_H
#define CLNORM_INTERNAL_H

#include "clnorm.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- errors.c: the calling thread's last error ---------------------------------------------- */
/* Records a one-line message for (thread, ctx) and returns status, so callers can write
 * `return clnorm__fail(ctx, CLNORM_X, "...", ...)`. */
clnorm_status clnorm__fail(const clnorm_context *ctx, clnorm_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends text (e.g. a build log) to the message of the thread's last failure. */
void clnorm__fail_append(const char *text);
void clnorm__clear_error(const clnorm_context *ctx);
const char *clnorm__cl_error_name(cl_int code); /* status.c: "CL_INVALID_VALUE" or NULL */

/* ---- params.c: what the library knows about a device and how it launches kernels ------------ */
typedef struct clnorm_device_info {
    cl_device_type type;
    char name[256];
    char vendor[128];
    cl_uint compute_units;
    size_t max_work_group;
    cl_ulong local_mem;
    cl_ulong max_alloc;
    cl_uint base_align_bytes; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8: every buffer of the runtime's
                                 own memory starts so aligned (the caller's: clnorm_view.skew) */
    cl_uint nv_cc_major;      /* NVIDIA compute capability (cl_nv_device_attribute_query); 0 elsewhere */
    bool pocl_x86;            /* PoCL's CPU device on this x86 host (x86 code, inline assembly) */
    bool x86_bf16;            /* ... generating AVX-512 code, and the CPU has AVX512_BF16
                                 (vcvtneps2bf16 may be used; a probe confirms it); also selects
                                 the CPU row's *_intel_bf16 rules (Intel's or AMD's CPU) */
    bool x86_no_avx512;       /* PoCL's x86 CPU device on a host without AVX-512 (AVX2 at most) */
    unsigned x86_l1d_kib;     /* PoCL's x86 CPU device: the host's L1 data cache per core, KiB
                                 (sysconf; 0 where unknown) */
} clnorm_device_info;

/* One entry of the per-device table (vendor -> device type -> default). */
typedef struct clnorm_op_params {
    unsigned tpr;           /* work-items per row; 0: derived from cols and target */
    unsigned target;        /* vectors per item aimed at when deriving tpr (32-bit data) */
    unsigned target16;      /* the same when every tensor involved is 16-bit */
    unsigned tpr_max;       /* cap on derived items per row; 0: the device's work-group limit */
    unsigned wg;            /* work-group size aimed at (rows per group = wg / tpr) */
    unsigned ncache;        /* most vectors per item kept in registers (x; backward: xhat and g) */
    unsigned nacc;          /* backward: most vectors per item of dweight/dbias sums in registers */
    unsigned groups_per_cu; /* persistent grid: work-groups of wg items per compute unit (forward:
                               0 = one group per row block) */
    unsigned rpi;           /* rows per item at once (1, 2, 4): the backward with dweight/dbias in the
                               register-cache or streaming regime; the forward with its local row */
    unsigned rpi16;         /* the same when every tensor involved is 16-bit */
    unsigned raw16;         /* register cache, all tensors 16-bit: keep x (backward: x and dy) as stored (1) */
    unsigned rpi_cols;      /* rows per item only from this many cols on (0: any), and (rpi_cols_max)
                               up to that many */
    unsigned tpr_max_cached; /* backward: a higher cap on derived items per row, used only where it
                               brings the row into the register cache (0: none) */
    unsigned tpr_max16;     /* backward with dweight/dbias, every tensor 16-bit: the cap on derived
                               items per row instead of both (0: none); their fp32 sums then take
                               twice the registers of the row's cached elements. Forward, every
                               tensor 16-bit: the cap instead of tpr_max (0: tpr_max) */
    unsigned ncache_dx;     /* backward without dweight/dbias: most vectors per item in registers
                               instead of ncache (0: ncache) */
    unsigned pipe;          /* register cache: the next row block's loads are issued before this
                               block's row sums and dx (forward: reductions and y), at the cost of a
                               second register set: 0 never, 2 always, 1 in backward calls with
                               dweight/dbias whose tensors are all 16-bit, and in forward calls whose
                               tensors are all 16-bit. The forward pipelines only on a persistent
                               grid (groups_per_cu), from pipe_cols on, where both register sets fit
                               ncache vectors; with pipe set, its other calls take one group per
                               row block */
    unsigned dr_early;      /* backward, register cache: the residual gradient is loaded with x and dy
                               instead of after the row sums where it takes at most this many bytes
                               per work-group (0: never) */
    unsigned dr_early16_nc_max; /* ... but not in all-16-bit calls with dweight/dbias whose row is
                               cached, acc_local16's way, more than this many vectors deep (0: no
                               bound) ... */
    unsigned dr_early16_cols_min; /* ... from this many columns on (0: any width) */
    unsigned rpi16_res;     /* rows per item in 16-bit calls with dweight/dbias and a residual
                               gradient, but for the short rows of rpi16_short_cols (0: rpi16) */
    unsigned rpi_res;       /* the same in calls whose widest element is 4 bytes (0: rpi; the short
                               rows of rpi_short_cols keep rpi) */
    unsigned rpi_cols_max;  /* rows per item only up to this many cols (0: any) */
    unsigned rpi_cols_max_intel_bf16; /* the same bound instead on PoCL x86 hosts whose CPU has
                               AVX512_BF16, Intel's or AMD's (info.x86_bf16; 0: rpi_cols_max; the
                               "intel" of these keys' names is from before session 36 measured Zen 4) */
    unsigned rpi4_cols_intel_bf16; /* forward, all-16-bit calls, on such hosts: 4 rows per item (instead
                               of rpi16) up to this many cols (0: never) */
    unsigned rpi4_cols32;   /* forward, calls whose widest element is 4 bytes, on CPU devices: the
                               local row (LOCAL_ROW, otherwise 16-bit calls only) with 4 rows per
                               item up to this many cols (0: never) */
    unsigned rpi_short_cols; /* backward, calls whose widest element is 4 bytes: rows per item (rpi)
                               also for rows of at most this many cols, whatever rpi_cols and
                               rpi_cols_max say, with or without dweight/dbias (rpi otherwise only
                               with them) (0: none) */
    unsigned rpi16_short_cols; /* the same for calls whose widest element is 2 bytes (rpi16, or on
                               PoCL x86 hosts without AVX-512 bwd_rpi16_avx2, which replaces it) */
    unsigned dx16_cols;     /* backward without dweight/dbias and without a residual gradient, every
                               tensor 16-bit, from this many cols on: at most tpr_max16 items per
                               row where the row then still fits ncache_dx vectors per item, and
                               pipelined (0: never) */
    unsigned pipe_cols;     /* forward: pipelined (pipe) only from this many cols on (0: any) */
    unsigned prefetch16_cols; /* backward with dweight/dbias, NVIDIA, every tensor 16-bit, from this
                               many cols on: each item asks L2 for its share of the next row
                               block's x and dy at the top of each block (NV_PREFETCH; 0: never) */
    unsigned prefetch16_nores_nc_max; /* ... but not in such calls without a residual gradient
                               whose row is cached more than this many vectors deep (0: no bound) */
    unsigned dxb;           /* backward with dweight/dbias, sums-in-registers regime (row not
                               cached): dx's second read of x and dy in unrolled batches of this many
                               vectors, loads before stores (DXB), in calls whose widest element is
                               4 bytes (0: a loop) */
    unsigned dxb16;         /* the same for calls whose tensors are all 16-bit */
    unsigned pipe_vecs;     /* backward: pipelined (pipe) only where one register set holds at most
                               this many vectors per work-group, items x vectors x rows per item
                               (0: any) */
    unsigned prefetch_cols; /* the same as prefetch16_cols for calls whose widest element is 4 bytes,
                               without a residual gradient (0: never) */
    unsigned prefetch_cur_cols; /* NVIDIA, backward with dweight/dbias whose widest element is 4
                               bytes, the row read twice beside the sums in registers, from this
                               many cols on, with or without a residual gradient: each item asks
                               L2 for its share of the block being read at the block's start, and
                               for the next block's after the first read (NV_PREFETCH with PF_CUR
                               and PF_LATE; 0: never) */
    unsigned prefetch16_cur_res; /* ... and all-16-bit such calls with a residual gradient wherever
                               prefetch16_cols has their prefetch on (0: never) */
    unsigned prefetch16_cur_dr; /* ... where such a 16-bit row is cached and its residual gradient
                               not loaded early (dr_early), that block's residual-gradient rows
                               too, at its start (PF_DR 2; 0: never) */
    unsigned pipe_prefetch_cols; /* forward, pipelined on a persistent grid, x cached as fp32 (not
                               raw), NVIDIA, from this many cols on: each item also asks L2 for its
                               share of the row block after the one its second register set loads
                               (NV_PREFETCH, two blocks ahead; 0: never) */
    unsigned acc_groups;    /* backward with dweight/dbias whose sums are in registers and whose row is
                               not cached: at most this many persistent work-groups per compute
                               unit (0: groups_per_cu's count) */
    unsigned fill16;        /* backward with dweight/dbias, every tensor 16-bit, row cached, one row
                               per item: the items per row are halved for as long as that leaves
                               fewer of their vectors idle and the row fits this many vectors per
                               item, where that ends deeper than ncache; pipelined whatever
                               pipe_vecs says (0: never) */
    unsigned fit16;         /* forward, every tensor 16-bit, where the call would be pipelined (pipe,
                               groups_per_cu, pipe_cols, two register sets within ncache): instead
                               the row as stored (raw) in exactly d vectors per item, d from fit16
                               (at most ncache) down to target16 + 1, the first d whose items per
                               row are a multiple of 32 and at most fit16_tpr; one group per row
                               block, not pipelined (0: never) */
    unsigned fit16_tpr;     /* the most items per row fit16 may take */
    unsigned fit16_deep;    /* where fit16 finds no fit: this many vectors per item, in the same
                               way, in a multiple of 32 items up to fit16_deep_tpr (0: never) */
    unsigned fit16_deep_tpr;
    unsigned raw16_vecs;    /* forward, every tensor 16-bit: the register cache holds the row as
                               stored where its fp32 form would take more than this many vectors
                               per work-group, both register sets of a pipeline counted (0: never) */
    unsigned acc_local_res; /* backward with dweight/dbias and a residual gradient, widest element 4
                               bytes, sums in registers and row not cached: this many of each
                               item's dweight and dbias sum vectors in local memory instead
                               (NACC_LOCAL), where local memory holds them (0: none) */
    unsigned acc_local16;   /* backward, all-16-bit calls with dweight/dbias whose row is cached
                               (register cache) in full-width vectors and tpr_max16 items (where
                               set; not fill16's layouts), not in a row-phase frame,
                               at least acc_local16_nc deep: this many of each item's dweight and
                               dbias sum vectors in local memory (NACC_LOCAL), where local memory
                               holds them (0: none) */
    unsigned acc_local16_nc; /* the least cache depth acc_local16 takes (0: any) */
    unsigned cache16_lacc;  /* the same calls: the row cached up to this many vectors deep (beyond
                               ncache) where acc_local16 then applies (0: ncache) */
    unsigned dxb_res;       /* the same calls, where acc_local_res applies: dx's second read in
                               batches of this many vectors instead of dxb (0: dxb) */
    unsigned groups16;      /* backward, all-16-bit calls with dweight/dbias whose row is cached:
                               persistent groups per compute unit (as groups_per_cu) instead,
                               where their registers leave room for fewer (0: groups_per_cu) */
    unsigned groups16_res;  /* the same with a residual gradient (0: groups_per_cu) */
    unsigned bfly_tpr;      /* NV_SHFL row sums: the warps' sums added by a butterfly (ROW_SUM_BFLY)
                               where a row takes at least this many items (0: never; a loop) */
    unsigned bfly_cols_max; /* ... and the row at most this many cols (0: any) */
    unsigned cached_nc;     /* with ncache_wide set: the register cache's depth in those calls above
                               tpr_max items (tpr_max_cached takes the row only within it; 0:
                               ncache) */
    unsigned ncache_wide;   /* backward with dweight/dbias, widest element 4 bytes: most vectors per
                               item in registers within tpr_max items instead of ncache, and the
                               exact-fit rule (params.c); 0: off */
    unsigned acc_tpr_max;   /* backward, rows that neither the register cache nor nacc vectors per
                               item take at the derived items per row: items doubled up to this
                               many where nacc vectors then take the row (0: never) */
    unsigned dxb_dx;        /* backward without dweight/dbias, widest element 4 bytes, row read twice
                               (nacc, not cached): dx's second read in unrolled batches of this many
                               vectors (0: a loop; all-16-bit calls take dxb16) */
    unsigned groups_res;    /* backward, fp32-widest calls with dweight/dbias and a residual
                               gradient, row cached within ncache, groups of at most wg items:
                               persistent groups per compute unit instead (0: groups_per_cu) */
    unsigned colsweep_cols; /* backward with dweight/dbias, widest element 4 bytes, from this many
                               columns on (0: never): dx in the dx-only layout, and each group sums
                               dweight/dbias over every row for its share of the columns (COLSWEEP) */
    unsigned colsweep16_cols; /* ... the same for all-16-bit calls (0: never) */
    unsigned colsweep_groups; /* ... in this many persistent groups per compute unit (0: the
                                 dx-only layout's) */
    unsigned colsweep_stream; /* 1: calls with dweight/dbias whose row would stream with the sums
                                 in the workspace take the column sweep too, at any cols (where
                                 its share fits a group) */
    unsigned balance;       /* persistent grids with more row blocks than groups, running at most
                               balance_rounds rounds of their block loop (0: any): the fewest
                               groups that run as many rounds, at most this many percent fewer, so
                               that the last round is as full as it can be (it otherwise may run on
                               a few groups while the rest of the device idles; 0: off) */
    unsigned balance_rounds;
    unsigned chan;          /* forward rows that stream (no register cache), each item holding the same
                               number of vectors, in a power-of-two number of items per row: the
                               mean and variance from one read of the row, at most chan vectors
                               per item at a time (the largest power of two that divides the item's
                               vectors), merged by Chan's formula (FWD_CHAN; 0: off, the mean and
                               variance from a read each) */
    unsigned chan16;        /* the same for calls whose tensors are all 16-bit */
    unsigned short16_cols;  /* backward, all-16-bit calls with dweight/dbias of at most this many
                               cols (0: never): without a residual gradient, where cols is a power
                               of two, vectors of at most short16_vec_bytes bytes (0: vec_bytes)
                               in short16_groups persistent groups per compute unit; with one,
                               short16_target_res vectors per item (0: target16) in
                               short16_groups_res groups (groups 0: groups16 / groups16_res); not
                               where alignment narrows the vectors further. Short rows whose
                               kernels are light enough for more groups, or more items, per
                               compute unit than the long rows' */
    unsigned short16_vec_bytes;
    unsigned short16_groups;
    unsigned short16_target_res;
    unsigned short16_groups_res;
    unsigned stream_tpr;    /* backward without dweight/dbias (and the column sweep's dx layout):
                               rows that would stream at the derived items per row (neither the
                               register cache nor nacc vectors per item take them) take this many
                               items per row instead (at most the device's work-group limit and
                               the row's vectors rounded up to a power of two; 0: the derived
                               count) */
    unsigned phase_target16_res; /* backward in row phases (PHASE), all-16-bit calls with a residual
                               gradient: vectors per item aimed at instead of target16 (0:
                               target16), where that leaves fewer vector slots idle, holds the
                               frame in registers and takes 32 items or more, or where only it
                               holds the frame (params.c's plan_phase). A frame of cols + VEC - 1
                               elements takes one vector more than a power of two at cols 1023 /
                               2047, which target16's power-of-two items leave half idle */
    unsigned phase_rpi16_res; /* backward in row phases, all-16-bit calls with a residual gradient:
                               rows per item instead of rpi16_res / rpi16 (0: those) */
    unsigned phase_nopipe16_res; /* the same calls: not pipelined where the register cache is at
                               least this many vectors deep (1: wherever it is cached), whatever
                               pipe says (0: as pipe says) */
    unsigned phase_pipe16_res_wg_max; /* the same calls: not pipelined either where the
                               work-group takes more than this many items (0: no bound) */
    unsigned phase_dx16_res_vec_max; /* backward in row phases, all-16-bit calls with a residual
                               gradient and without dweight/dbias: phases only where the
                               alignment narrows the vectors to at most this many elements
                               (0: any) */
    unsigned phase_dx16_res_deep; /* the same calls, where the alignment narrows the vectors to
                               2 elements or more: phases only where the phased register cache
                               is shallower than this many vectors (0: any depth) */
    unsigned phase_dx32_deep; /* backward in row phases, calls with a 32-bit tensor and without
                               dweight/dbias (with or without a residual gradient), where the
                               alignment narrows the vectors to 2 elements or more: phases only
                               where the phased register cache is shallower than this many
                               vectors (0: any depth) */
    unsigned phase_nofill16_tpr; /* backward in row phases, all-16-bit calls with dweight/dbias:
                               the fill rule (fill16) only where it ends at more than this many
                               items per row (0: wherever fill16 says) */
    unsigned phase_nopipe16; /* backward in row phases, all-16-bit calls with dweight/dbias and
                               without a residual gradient: not pipelined where the register
                               cache is at least this many vectors deep (1: wherever it is
                               cached), whatever pipe says (0: as pipe says) */
    unsigned phase_pipe_dx16; /* backward in row phases, all-16-bit calls without dweight/dbias
                               (with or without a residual gradient): pipelined where the
                               register cache is at least this many vectors deep and the
                               work-group takes at most phase_pipe_dx16_wg_max items, whatever
                               pipe says (phase_nopipe16_res and phase_pipe16_res_wg_max still
                               bound the residual calls); the calls without a residual gradient
                               then take row phases only where their phased plan is pipelined
                               (by this rule or pipe) and where the alignment narrows the
                               vectors to phase_vec_max elements (whether or not the narrowed
                               plan holds the row; or as phase_pipe_dx16_reread_cols says), and only where phase_skip lets them (0: as
                               pipe and phase_skip say) */
    unsigned phase_pipe_dx16_wg_max; /* that bound (0: no bound) */
    unsigned phase_pipe_dx16_nores; /* with phase_pipe_dx16, the calls without a residual gradient
                               pipelined from this many vectors deep where that is fewer, in
                               frames that fill more than 5/8 of the items' cached vectors (0:
                               phase_pipe_dx16's depth) */
    unsigned phase_pipe_dx16_nores_tpr; /* that depth only in rows of at least this many items
                               (0: any) */
    unsigned phase_pipe_dx16_keep_tpr; /* with phase_pipe_dx16, the calls without a residual
                               gradient keep the narrowed plan where it holds the row in
                               registers in at most this many items per row (0: no such bound) */
    unsigned phase_pipe_dx16_reread_cols; /* with phase_pipe_dx16, the calls without a residual
                               gradient take row phases at any narrowed width (not only up to
                               phase_vec_max elements) where the narrowed plan does not hold
                               the row in registers, up to this many columns (0: none) */
    unsigned phase_pipe_dx32; /* 1: backward in row phases, calls with a 32-bit tensor (fp32 rows
                               or weight), without dweight/dbias and without a residual
                               gradient: pipelined where the row takes tpr_max items, whatever
                               pipe says (0: as pipe says) */
    unsigned narrow_item_bytes; /* rows whose vectors the alignment narrowed below the table's
                               width: the vectors per item aimed at raised from target / target16
                               to narrow_item_bytes / (vector bytes), so that each item has about
                               that many bytes of loads in flight (the forward: at most ncache
                               vectors); only where the row still takes 32 items or more, and
                               (params.c's plan_core) not where the raised plan leaves the register
                               cache in calls with dweight/dbias (0: off). Also inside a phased
                               frame (the backward's) whose width the tensors' skew narrows
                               below the table's */
    unsigned narrow_vec_max; /* narrow_item_bytes only where the vectors narrowed to at most this
                               many elements (0: any width) */
    unsigned narrow_from_bytes; /* narrow_item_bytes only where the plan at the table's target
                               gives each item at most this many bytes of the row (0: no bound;
                               params.c's plan_core) */
} clnorm_op_params;

typedef struct clnorm_device_params {
    const char *vendor;     /* case-insensitive substring of CL_DEVICE_VENDOR; NULL: any */
    cl_device_type type;    /* CL_DEVICE_TYPE_ALL: any */
    unsigned vec_bytes;     /* widest vector access in bytes */
    bool nv_shfl;           /* warp reductions with inline-PTX shuffles (NVIDIA only) */
    bool nv_cvt;            /* fp32 -> bf16 pairs with inline-PTX cvt.rn.bf16x2 (NVIDIA, sm_80 and newer) */
    unsigned red_lanes;     /* dweight/dbias reduction: lanes per column (power of two, <= 32) */
    bool contig_rows;       /* backward: each group takes one contiguous range of rows (CPUs) */
    bool packed_args;       /* each kernel's scalars in one vector argument (PACKED_ARGS; NVIDIA,
                               whose enqueue costs per argument), else one argument each */
    bool lane_perm;         /* calls with 16-bit tensors run in permuted-lane order (CPUs) */
    unsigned unaligned_bytes; /* the streaming one-item-per-row shape (the CPU row): where cols, an
                               offset or a stride would narrow the vectors below this many bytes,
                               keep the table's width instead, with unaligned vector accesses and
                               the row's last cols % width elements one at a time (UNALIGNED);
                               0: never */
    bool row_phase;         /* GPUs, the backward's register-cache shapes (never the forward,
                               since 0.20.0): where alignment would narrow the
                               vectors but every row tensor has the same offset and row stride
                               modulo the table's width, keep the width and take the rows in
                               phase classes (PHASE, common.cl); tunable as `phase`. On in
                               the NVIDIA row for the calls where it won (phase_skip below,
                               params.c's NV_PHASE_SKIP; docs/PERFORMANCE.md, sessions 22
                               and 24), off in the others */
    unsigned phase_skip;    /* with row_phase: the calls that keep the narrowed vectors all the
                               same, a mask (params.c's phase_op_bit: the op, and whether the
                               call is all-16-bit, weight and bias included); tunable as
                               `phase_skip`; 0: none */
    unsigned phase_vec_max; /* with row_phase, where the narrowed plan holds the row in
                               registers: phases only if the alignment narrows the vectors to at
                               most this many elements (0: any width) */
    unsigned phase_cached_skip; /* with row_phase: the calls (phase_skip's mask) that keep the
                               narrowed vectors where their plan holds the row in registers */
    unsigned phase_cached_tpr_max; /* phase_cached_skip only where that narrowed plan takes at most
                               this many items per row (0: no bound) */
    bool phase_edge_elems;  /* with row_phase: each row's first and last frame vector read element
                               by element always (0.22.0's kernels); false: read whole where every
                               row tensor's buffer holds its last row's whole frame (the
                               call's choice, layer_norm.c; common.cl's PH_WIDE_LOADS); tunable
                               as `phase_edge_elems` */
    bool phase_reread;      /* with row_phase: backward calls with dweight/dbias whose frame's
                               plan reads the row twice with the sums in registers (not cached)
                               take phases too (PHASE in that regime); false: only cached frames;
                               tunable as `phase_reread` */
    clnorm_op_params fwd, bwd;
    size_t workspace_cap;   /* bytes the backward's partial sums aim to stay under */
    bool bf16_zext;         /* bf16 vectors widened by zero-extension and narrowed by conversion in
                               natural element order (CPUs; instead of even/odd word arithmetic) */
    bool x86_bf16;          /* fp32 -> bf16 stores with AVX512_BF16's vcvtneps2bf16 where the
                               device has it (info.x86_bf16) */
    unsigned nt_kib;        /* PoCL on x86 (info.pocl_x86): outputs of at least this many KiB are
                               written with non-temporal stores (around the cache); 0: never */
    unsigned nt_unaligned_bytes; /* ... in calls with unaligned vectors (UNALIGNED), only where a
                               vector of the output takes at least this many bytes (each output
                               row then written in whole lines after a head, common.cl's
                               OUT_HEAD); 0: never */
    unsigned nt_unaligned_row_bytes; /* ... and where an output row (cols elements) takes at least
                               this many bytes */
    unsigned pf_bytes;      /* kernels with the local row (CPUs): the rows they take next are
                               prefetched at least this many bytes of x ahead, in whole row blocks
                               (one block at least; 0: one block) */
    unsigned pf_l2_bytes;   /* the forward's local row: where a row block holds at least this many
                               bytes of x, those prefetches go to L2 only (0: to L1 always) */
    unsigned fwd_rowwise_kib; /* the forward's local row: y is written row by row where the local
                               row takes at most this many KiB, else vector by vector across the
                               item's rows (0: always the latter) */
    unsigned local_row_kib; /* forward with 16-bit tensors, one item per row streaming (CPUs): weight,
                               bias and the item's rows converted to fp32 in local memory when their
                               (2 + rows-per-item) * cols floats take at most this many KiB; 0: never */
    unsigned local_row_kib_avx2; /* the same bound instead on PoCL x86 hosts without AVX-512
                               (info.x86_no_avx512), where each bf16 conversion costs more */
    unsigned local_row_kib_intel_bf16; /* the same bound instead on PoCL x86 hosts whose CPU has
                               AVX512_BF16, Intel's or AMD's (info.x86_bf16); 0: local_row_kib */
    unsigned bwd_local_row_kib_avx2; /* backward, all tensors 16-bit, streaming one item per row, on
                               PoCL x86 hosts without AVX-512: x-hat and g of the item's rows kept in
                               fp32 in local memory for dx's pass when their 2 * rows-per-item * cols
                               floats take at most this many KiB (and the weight's fp32 copy where cols
                               more fit too); 0: never (and on other hosts but the next field's) */
    unsigned bwd_local_row_kib_intel_bf16; /* the same on PoCL x86 hosts whose CPU has
                               AVX512_BF16, Intel's or AMD's (info.x86_bf16); 0: never there; the
                               table's value is capped at info.x86_l1d_kib (clnorm__params_fit_host) */
    unsigned bwd_rpi16_avx2; /* on such hosts: rows per item of all-16-bit backward calls instead of
                               the op's rpi16 / rpi16_res (0: those) */
} clnorm_device_params;

/* CLNORM_BUILD_OPTIONS longer than this fails context creation (the kernels' own options take
 * under 512 characters; both fit CLNORM_OPTIONS_MAX, the options buffer, with room) */
#define CLNORM_USER_OPTIONS_MAX 1024
#define CLNORM_OPTIONS_MAX (CLNORM_USER_OPTIONS_MAX + 1024)

/* Whether needle occurs in hay, ignoring ASCII case (an empty needle always does). device_select.c */
bool clnorm__contains_nocase(const char *hay, const char *needle);

const clnorm_device_params *clnorm__params_for(const clnorm_device_info *info);
/* The table row's defaults fitted to this host (before CLNORM_TUNE, which overrides them) */
void clnorm__params_fit_host(clnorm_device_params *p, const clnorm_device_info *info);
/* ... and to this device's model, where one measured otherwise than its vendor's row (vendor ->
 * device type -> device name; also before CLNORM_TUNE) */
void clnorm__params_fit_device(clnorm_device_params *p, const clnorm_device_info *info);
/* Applies "key=value,..." overrides (CLNORM_TUNE) to p; on error fails with a message. */
clnorm_status clnorm__params_tune(clnorm_device_params *p, const char *spec);
clnorm_status clnorm__query_device(cl_device_id dev, clnorm_device_info *info);

/* Launch shape of one kernel call. */
typedef struct clnorm_launch {
    unsigned vec, tpr, rpw, ncache, nacc;
    unsigned rpi;  /* rows per item at once (backward: register-cache or streaming regime with
                      dweight/dbias; forward: with the local row; 1 elsewhere) */
    bool raw;      /* the register cache holds x (backward: x and dy) as stored */
    bool pipe;     /* register cache with the next block's loads issued early (PIPE) */
    bool persistent; /* forward: a persistent grid (groups per compute unit, not per row block) */
    bool prefetch;   /* backward: L2 prefetch of the next row block; forward (pipelined): of the
                        block after next (NV_PREFETCH) */
    bool pf_cur;     /* backward with prefetch: the block being read too, at its start, and the
                        next block's after the first read (PF_CUR, PF_LATE) */
    bool pf_dr;      /* ... and that block's residual-gradient rows (PF_DR 2) */
    bool dr_early; /* backward: register cache, residual gradient loaded with x and dy (DR_EARLY) */
    bool local_row; /* fp32 rows in local memory (LOCAL_ROW): forward weight, bias and the item's rows;
                       backward x-hat and g of the item's rows */
    bool local_w;   /* backward with local_row: the weight's fp32 copy there too (LOCAL_W) */
    unsigned dxb;   /* backward, sums-in-registers regime: dx's second read in batches (DXB; 0: loop) */
    unsigned acc_local; /* backward, the same regime: sum vectors per item in local memory (NACC_LOCAL) */
    bool bfly;      /* NV_SHFL row sums: the warps' sums by a butterfly (ROW_SUM_BFLY) */
    bool unaligned; /* vectors of vec elements at any element alignment, the row's last cols % vec
                       elements one at a time (UNALIGNED; local rows LCOLS(cols) floats apart) */
    unsigned chan;     /* forward: mean and variance from one read, chan vectors per chunk (FWD_CHAN; 0: off) */
    unsigned colsweep; /* backward with dweight/dbias summed by columns (COLSWEEP): column lanes
                          per group (0: per-group partial rows) */
    unsigned phase;    /* PHASE: the rows of one phase class are this many apart (the grid is a
                          multiple of it); 0: off */
    size_t groups;
} clnorm_launch;

/* The forward's grid is capped (its kernel loops over row blocks) so that global sizes stay far
 * below the 32-bit limits some drivers have. */
#define CLNORM_FORWARD_MAX_GROUPS ((size_t)1 << 20)

/* partials: the backward call computes dweight or dbias; dres: it adds a residual gradient.
 * align_or: bitwise OR of cols and of every offset/stride the vector accesses use (elements).
 * max_elem: the widest element size (bytes) among those tensors. phase_or: bitwise OR of how each
 * row tensor's offset and row stride differ (XOR) from x's (0 where they are all x's), and x_ld:
 * x's row stride (elements); they say whether row phases (PHASE) may keep the vectors wide.
 * A forward's grid comes capped at CLNORM_FORWARD_MAX_GROUPS. */
clnorm_launch clnorm__plan(const clnorm_context *ctx, bool backward, bool partials, bool dres, size_t rows, size_t cols,
                           size_t align_or, size_t max_elem, size_t phase_or, size_t x_ld);
/* The length of the kernels' local-memory rows (LOCAL_ROW): cols, rounded up to whole vectors
 * where the plan's vectors are unaligned (common.cl, LCOLS). */
size_t clnorm__local_cols(const clnorm_launch *L, size_t cols);

/* ---- programs.c: build once per (kernel, options), cache per context ------------------------ */
typedef enum clnorm_kernel_id { CLNORM_K_FORWARD, CLNORM_K_BACKWARD, CLNORM_K_REDUCE, CLNORM_K_COUNT } clnorm_kernel_id;

typedef struct clnorm_program_entry {
    clnorm_kernel_id id;
    char *options;
    cl_program program;
    cl_kernel kernel;
    /* What the kernel's by-value arguments were last set to, so that a repeated call sets only what
     * changed (PoCL allocates and frees per clSetKernelArg): the scalars' slots
     * (cl/kernel_args.h; args_size 0: unknown) and the size of its local buffer, if it takes one
     * (0: unknown). Buffers are set on every call: a released buffer's handle may come back for a
     * new one. */
    unsigned char args[128];
    size_t args_size;       /* packed: the vector's bytes when known; else slots known, from 0 */
    size_t local_bytes;
} clnorm_program_entry;

/* Index of the entry for (id, options) in ctx->programs, building the program on first use. Call
 * with ctx->lock held; the index stays valid for the context's life (pointers do not: the array
 * grows). */
clnorm_status clnorm__get_program(clnorm_context *ctx, clnorm_kernel_id id, const char *options, size_t *index);
void clnorm__release_programs(clnorm_context *ctx);

/* A kernel variant as plain numbers: every value its options string is made of (the context's own
 * constants aside), so equal keys mean equal strings. A call looks its key up first and builds the
 * string (two snprintf and a search through the programs) only for a key it has not seen: on PoCL
 * on a 2-core host that was ~1 µs of a ~3-5 µs forward enqueue. */
typedef struct clnorm_variant_key {
    uint32_t v[16];
} clnorm_variant_key;
/* The entry index of key, or SIZE_MAX. Lock held. */
size_t clnorm__variant_find(const clnorm_context *ctx, const clnorm_variant_key *key);
clnorm_status clnorm__variant_add(clnorm_context *ctx, const clnorm_variant_key *key, size_t index);

/* ---- the context -------------------------------------------------------------------------- */
struct clnorm_context {
    cl_context cl_ctx;
    cl_command_queue queue;
    cl_device_id device;
    clnorm_device_info info;
    const clnorm_device_params *params; /* &tuned */
    clnorm_device_params tuned;         /* the table's row with CLNORM_TUNE applied */
    char *user_options; /* CLNORM_BUILD_OPTIONS as it was when the context was created */
    bool out_of_order;  /* the queue may run commands out of order: internal dependencies need events */

    pthread_mutex_t lock; /* guards everything below, and clSetKernelArg + enqueue sequences */
    clnorm_program_entry *programs;
    size_t nprograms, cap_programs;
    struct clnorm_variant_memo *variants; /* key -> index in programs (programs.c) */
    size_t nvariants, cap_variants;
    cl_mem workspace;      /* the backward's fp32 partial sums */
    size_t workspace_bytes;
    cl_event workspace_event; /* last command that used the workspace, or NULL */
    cl_event *wait_scratch;   /* wait list + internal dependencies, grown on need */
    size_t wait_scratch_cap;
};

/* ---- validate.c --------------------------------------------------------------------------- */
/* A validated tensor view, resolved to its root buffer so that aliasing can be checked across
 * sub-buffers. Byte quantities. */
typedef struct clnorm_view {
    const char *name;
    bool present;
    cl_mem mem;
    clnorm_dtype dtype;
    size_t offset, stride;          /* elements (stride resolved: 0 -> cols) */
    cl_mem root;                    /* the buffer a sub-buffer belongs to, or mem itself */
    cl_mem_flags flags;             /* mem's CL_MEM_FLAGS (a sub-buffer's include the access
                                       qualifiers it inherits) */
    size_t skew;                    /* elements: where the buffer's memory is the caller's
                                       (CL_MEM_USE_HOST_PTR: a CPU device works in it), how far
                                       its start is past an address aligned to the device's
                                       base alignment; 0 otherwise. The kernels' vector
                                       accesses assume an aligned start, so the alignment
                                       checks take offset + skew as well as offset (a GPU
                                       may work in an aligned copy; layer_norm.c). */
    size_t start, row_bytes, pitch; /* bytes in root */
    size_t nrows;
    size_t elems;                   /* matrices: the buffer's size (mem's, a sub-buffer's own) in
                                       whole elements */
} clnorm_view;

size_t clnorm__dtype_size(clnorm_dtype dt);
const char *clnorm__dtype_token(clnorm_dtype dt); /* "f32", "bf16", "f16" */
clnorm_status clnorm__check_eps(const clnorm_context *ctx, float eps);
/* cols >= 1, and rows x cols elements of 4 bytes within size_t (CLNORM_INVALID_SHAPE otherwise) */
clnorm_status clnorm__check_shape(const clnorm_context *ctx, size_t rows, size_t cols);
clnorm_status clnorm__check_wait_list(const clnorm_context *ctx, cl_uint n, const cl_event *list);
/* Each event of a consistent wait list is valid and of ctx's cl_context (checked after the views,
 * so that a buffer of another context is named as such first). */
clnorm_status clnorm__check_wait_events(const clnorm_context *ctx, cl_uint n, const cl_event *list);
clnorm_status clnorm__check_matrix(const clnorm_context *ctx, const char *name, const clnorm_matrix *m,
                                   bool required, size_t rows, size_t cols, clnorm_view *out);
clnorm_status clnorm__check_vector(const clnorm_context *ctx, const char *name, const clnorm_vector *v,
                                   bool required, size_t len, bool stats, clnorm_view *out);
/* Kernels write outputs and read inputs: an output's buffer must not be CL_MEM_READ_ONLY, nor an
 * input's CL_MEM_WRITE_ONLY (either is undefined in a kernel). */
clnorm_status clnorm__check_access(const clnorm_context *ctx, const clnorm_view *const *outs, int nout,
                                   const clnorm_view *const *ins, int nin);
/* Outputs must not overlap inputs or each other; alias_out/alias_in name one pair (indices, or -1)
 * that may instead be exactly the same view. */
clnorm_status clnorm__check_overlaps(const clnorm_context *ctx, const clnorm_view *const *outs, int nout,
                                     const clnorm_view *const *ins, int nin, int alias_out, int alias_in);

/* ---- device_select.c ---------------------------------------------------------------------- */
clnorm_status clnorm__select(const char *spec, cl_platform_id *platform, cl_device_id *device);

/* ---- embedded kernels (generated) --------------------------------------------------------- */
extern const unsigned char clnorm_cl_kernel_args[], clnorm_cl_common[], clnorm_cl_forward[], clnorm_cl_backward[], clnorm_cl_reduce[],
    clnorm_cl_probe[];
extern const size_t clnorm_cl_kernel_args_len, clnorm_cl_common_len, clnorm_cl_forward_len, clnorm_cl_backward_len, clnorm_cl_reduce_len,
    clnorm_cl_probe_len;

/* ---- probe.c: device paths checked by running them once ----------------------------------- */
/* Whether the AVX512_BF16 store path (X86_BF16) builds and rounds as the portable path does on the
 * context's device. Runs a one-item kernel on a private queue the first time per device in the
 * process; the answer is remembered. */
bool clnorm__probe_x86_bf16(const clnorm_context *ctx);

#endif
