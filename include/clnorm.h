/**
 * @file clnorm.h
 * @brief clnorm — LayerNorm forward and backward (with a fused residual gradient) as OpenCL C
 * kernels, driven by a small C host library.
 *
 * One header, one library; this header is the API contract:
 *   - functions are prefixed `clnorm_`, macros and enum values `CLNORM_`;
 *   - every size, offset and stride is counted in elements (`size_t`); device index math is 64-bit;
 *   - optional arguments are pointers, NULL meaning "absent";
 *   - each operation only enqueues on the context's queue and never blocks (one exception: on
 *     PoCL with an x86 CPU that has AVX512_BF16, the first call with a bf16 tensor on that device
 *     builds and runs a one-item probe kernel on a private queue and waits for it, once per
 *     process and device; up to 3 times where the probe's own OpenCL calls fail);
 *   - on any error nothing is enqueued, no output is touched, and clnorm_context_last_error()
 *     explains the failure in one line (the compiler log follows for build failures). One
 *     exception, in clnorm_layer_norm_backward() with dweight/dbias: if the driver refuses the
 *     second of its two kernels after accepting the first, dx is written (see there).
 *
 * **Thread safety**: every function may be called from several threads at once, on one context or
 * on several — except clnorm_context_release(), which must not run while anything else uses that
 * context. Error messages are kept per thread (see clnorm_context_last_error()).
 *
 * **Linking**: `find_package(clnorm)` then `clnorm::clnorm` (shared) or `clnorm::clnorm_static`
 * (static; defines CLNORM_STATIC for its users), or `pkg-config --cflags --libs clnorm`. Code that
 * links the static library without CMake defines CLNORM_STATIC itself (it empties the export
 * macro; needed on Windows, harmless elsewhere). The shared library exports the functions declared
 * here and nothing else.
 *
 * @par Environment variables read by the library
 *   - `CLNORM_DEVICE`: the device spec clnorm_context_create() and clnorm_select_device() use when
 *     their spec is NULL (forms: see clnorm_context_create()); unset or empty: the default policy.
 *   - `CLNORM_BUILD_OPTIONS`: appended to the OpenCL compiler options of every program a context
 *     builds, not to the bf16 probe's above (which checks the device's instruction on its own);
 *     read when the context is created; at most 1024 characters, longer fails
 *     clnorm_context_create() with CLNORM_INVALID_ENVIRONMENT.
 *   - `CLNORM_BUILD_LOG`: a developer's switch: when set (not `0`), each successful program build
 *     writes its options and the compiler's log to stderr (with `-cl-nv-verbose` in
 *     `CLNORM_BUILD_OPTIONS`, NVIDIA's register counts of every variant built). A value that
 *     contains a `/` is a file path: the lines are appended to that file instead, and nothing goes
 *     to stderr; a file that cannot be opened for appending falls back to stderr (a log never
 *     fails a build). Read at each build.
 *   - `CLNORM_DEVICE_CLASS`: `gpu` or `cpu`, in any case (`GPU` too): use the generic (vendor-less) GPU or CPU row of the
 *     launch-parameter table whatever the device is (how CI runs the GPU kernel shapes on a CPU;
 *     on an NVIDIA GPU `gpu` so drops the NVIDIA row: no warp shuffles, no bf16 rounding
 *     instruction, none of its rules); any other value is ignored. Read when a context is created.
 *   - `CLNORM_TUNE`: overrides of the launch-parameter table for contexts created while it is set,
 *     `key=value,...` with keys `vec_bytes` (widest vector access in bytes, a power of two in
 *     4..64), `shfl` (NVIDIA warp shuffles, 0 or 1), `cvt` (NVIDIA sm_80+ bf16 rounding
 *     instruction, 0 or 1; off in calls with permuted lanes), `contig` (the groups of persistent grids
 *     (the backward's, and the forward's where it has one) take contiguous row ranges, 0 or 1;
 *     on, it also turns off row phases and the column sweep), `perm` (calls with 16-bit tensors run in
 *     permuted-lane order, 0 or 1), `zext` (bf16 widened and narrowed in natural element order by
 *     conversions, 0 or 1; not with `perm`), `x86bf16` (bf16 stores with AVX512_BF16's
 *     `vcvtneps2bf16` on PoCL hosts that have it, once a probe has checked it, 0 or 1; not with
 *     `perm`), `packed` (each kernel's scalars in one vector argument instead of one argument
 *     each: fewer arguments for drivers that charge per argument at each enqueue; 0 or 1; the
 *     NVIDIA row's 1), `phase` (GPUs: row phases for backward calls, see `row_phase` in
 *     #clnorm_launch_info, 0 or 1; the NVIDIA row's 1, the others' 0), `phase_skip` (with
 *     `phase`: the backward calls that keep the narrowed vectors all the same, a mask 0..1023:
 *     bit 1 the backward with dweight/dbias, 2 the same with a residual gradient, 3 the backward
 *     with dx only, 4 the same with a residual gradient, each plus 5 (bits 6-9) in all-16-bit
 *     calls (every tensor of the call 16-bit, weight and bias included: a bf16 row with an fp32
 *     weight is not); bits 0 and 5, the forward's until 0.20.0, change nothing: the forward
 *     takes no row phases; the NVIDIA row's 0 since 0.25.0 (its all-16-bit dx-only calls
 *     without a residual gradient phased only as `bwd_phase_pipe_dx16` says); 256 until 0.24.0,
 *     without those; 768 until 0.22.0, without the all-16-bit dx_res ones too), `phase_edge_elems` (with `phase`: 1 reads each row's first
 *     and last frame vector element by element always, as until 0.22.0; 0, every row's default:
 *     whole, one aligned access, wherever every row tensor the kernel reads (x, dy, the
 *     residual gradient) holds its last row's whole frame in its buffer, i.e. the aligned
 *     vector holding its last element; outputs keep element-by-element edges either way),
 *     `phase_reread` (with `phase`, since 0.24.0: 1 also phases backward calls with
 *     dweight/dbias whose frame is not cached but read twice with the sums in registers; 0,
 *     every row's default: only cached frames. On an H100 it lost to the column sweep those
 *     rows take, 1.4-5x slower but at fp32 12287, so it is a key to measure, not a rule),
 *     `phase_vec_max` (with `phase`: where the narrowed plan holds the row in
 *     registers, phases only if the alignment narrows the vectors to at most this many elements;
 *     0 = any, up to 64; the NVIDIA row's 1), `phase_cached_skip` (with `phase`: the calls, in
 *     `phase_skip`'s mask 0..1023, that keep the narrowed vectors where their plan holds the row
 *     in registers; the NVIDIA row's 30: the fp32 backward calls), `phase_cached_tpr_max`
 *     (`phase_cached_skip` only where that narrowed plan takes at most this many items per row;
 *     0 = no bound, up to 1024; the NVIDIA row's 512),
 *     `fwd_narrow_item_bytes` / `bwd_narrow_item_bytes` (where the alignment narrowed the
 *     vectors: about this many of the row's bytes per work-item, i.e. more vectors per item
 *     than `_target` / `_target16`, in the forward at most its register cache's depth; only where
 *     the row still takes 32 items or more, and not where the row would then leave the register
 *     cache in backward calls with dweight/dbias; 0 = off, up to 1024; the
 *     NVIDIA row's 32 / 16), `fwd_narrow_vec_max` / `bwd_narrow_vec_max` (the same only where
 *     the vectors narrowed to at most this many elements; 0 = any, up to 64; the NVIDIA row's
 *     1 / 0), `fwd_narrow_from_bytes` / `bwd_narrow_from_bytes` (the same only where the plan at
 *     `_target` / `_target16` gives each work-item at most this many bytes of the row; 0 = no
 *     bound, up to 1024; the NVIDIA row's 16 / 0), `bwd_phase_target16_res` (the backward in
 *     row phases, all-16-bit calls with a residual gradient: vectors per item aimed at instead
 *     of `bwd_target16` where that leaves fewer vector slots idle, keeps the frame in the
 *     register cache and takes 32 items or more, or where only it keeps the frame cached; 0 = `bwd_target16`, up to 64; the NVIDIA row's 4),
 *     `bwd_phase_rpi16_res` (the same calls: rows per item instead of `bwd_rpi16_res` /
 *     `bwd_rpi16`, 0 = those, else 1, 2 or 4; the NVIDIA row's 1), `bwd_phase_nopipe16_res`
 *     (the same calls not pipelined where the register cache is at least this many vectors
 *     deep; 1 = wherever cached, 0 = as `bwd_pipe` says, up to 16; the NVIDIA row's 4),
 *     `bwd_phase_pipe16_res_wg_max` (the same calls not pipelined either where the work-group
 *     takes more items than this; 0 = no bound, up to 1024; the NVIDIA row's 256),
 *     `bwd_phase_nopipe16` (the backward in row phases, all-16-bit calls with dweight/dbias and
 *     no residual gradient: not pipelined where the register cache is at least this many
 *     vectors deep; 1 = wherever cached, 0 = as `bwd_pipe` says, up to 16; the NVIDIA row's 4),
 *     `bwd_phase_nofill16_tpr` (the backward in row phases, all-16-bit calls with dweight/dbias:
 *     `bwd_fill16`'s rule only where it ends at more than this many items per row; 0 = wherever
 *     it applies, up to 1024; the NVIDIA row's 128), `bwd_phase_pipe_dx16` (the backward in
 *     row phases, all-16-bit calls without dweight/dbias, with or without a residual gradient:
 *     pipelined where the register cache is at least this many vectors deep and the work-group
 *     takes at most `bwd_phase_pipe_dx16_wg_max` items, whatever `bwd_pipe` says; the residual
 *     calls still bounded by `bwd_phase_nopipe16_res` and `bwd_phase_pipe16_res_wg_max`; the
 *     calls without a residual gradient then take row phases only where their phased plan is
 *     pipelined (by this rule or `bwd_pipe`) and where the alignment narrows the vectors to
 *     `phase_vec_max` elements (or as `bwd_phase_pipe_dx16_reread_cols` says), and only where
 *     `phase_skip` lets them; 0 = as `bwd_pipe` and
 *     `phase_skip` say, up to 16; the NVIDIA row's 3, since 0.25.0),
 *     `bwd_phase_pipe_dx16_wg_max` (that bound; 0 = none, up to 1024; the NVIDIA row's 512),
 *     `bwd_phase_pipe_dx16_nores` (with `bwd_phase_pipe_dx16`, the calls without a residual
 *     gradient pipelined from this many vectors deep where that is fewer, in frames that fill
 *     more than 5/8 of the items' cached vectors; 0 = `bwd_phase_pipe_dx16`'s depth, up to 16;
 *     the NVIDIA row's 2, since 0.26.0), `bwd_phase_pipe_dx16_nores_tpr` (that depth only in
 *     rows of at least this many items; 0 = any, up to 1024; the NVIDIA row's 8),
 *     `bwd_phase_pipe_dx16_reread_cols` (with
 *     `bwd_phase_pipe_dx16`, the calls without a residual gradient take row phases at any
 *     narrowed width, not only up to `phase_vec_max` elements, where the narrowed plan does not
 *     hold the row in registers, up to this many columns; 0 = none, up to 2^30; the NVIDIA
 *     row's 13824, since 0.26.0), `bwd_phase_pipe_dx16_keep_tpr` (with `bwd_phase_pipe_dx16`,
 *     the calls without a residual gradient keep the narrowed plan where it holds the row in
 *     registers in at most this many items per row; 0 = no such bound, up to 1024; the NVIDIA
 *     row's 32, since 0.27.0), `bwd_phase_dx16_res_vec_max` (the backward in row phases,
 *     all-16-bit calls with a residual gradient and without dweight/dbias: phases only where the
 *     alignment narrows the vectors to at most this many elements; 0 = any, up to 64; the NVIDIA
 *     row's 2, since 0.27.0), `bwd_phase_dx16_res_deep` (the same calls, narrowed to 2 elements
 *     or more: phases only where the phased register cache is shallower than this many vectors;
 *     0 = any depth, up to 16; the NVIDIA row's 4, since 0.27.0), `bwd_phase_dx32_deep` (the
 *     same depth bound for the calls with a 32-bit tensor without dweight/dbias, with or without
 *     a residual gradient; 0 = any depth, up to 16; the NVIDIA row's 4, since 0.27.0),
 *     `bwd_phase_pipe_dx32` (1: the backward in row phases, calls with a 32-bit tensor (fp32
 *     rows, or 16-bit rows with an fp32 weight or bias), without dweight/dbias and without a
 *     residual gradient: pipelined where the row takes `bwd_tpr_max` items, whatever `bwd_pipe`
 *     says; 0 = as `bwd_pipe` says; the NVIDIA row's 1, since 0.25.0),
 *     `nt_kib` (PoCL on x86:
 *     outputs are written with non-temporal stores when they span at least this many KiB, dx
 *     always, y with a persistent forward grid; 0: never),
 *     `nt_unaligned_bytes` and `nt_unaligned_row_bytes` (the same, in calls with unaligned
 *     vectors: only where a vector of the output takes at least `nt_unaligned_bytes` and an
 *     output row at least `nt_unaligned_row_bytes`, each output row then written in whole
 *     64-byte lines after its first elements one at a time; the CPU row's 64, i.e. fp32 outputs,
 *     and 2048; 0 = never for the first, up to 64), `pf_bytes` (kernels with a local row, CPU devices; the forward's prefetches on PoCL
 *     x86 hosts only: the rows an item takes next are prefetched at least this many bytes of x
 *     ahead, in whole row blocks; 0 = the next block; the CPU row's 1024, up to 1048576),
 *     `pf_l2_bytes` (the forward's local row, PoCL x86 hosts:
 *     where an item's block of rows holds at least this many bytes of x, those prefetches go to
 *     L2 only; 0 = to L1 always; the CPU row's 4096), `fwd_rowwise_kib` (the forward's local row:
 *     y written row by row where the local row takes at most this many KiB, else vector by
 *     vector across the item's rows; 0 = always the latter; the CPU row's 16, up to 1048576;
 *     rows with unaligned vectors always row by row), `unaligned_bytes` (CPU devices, the streaming one-item-per-row layout of
 *     the CPU row: where cols, an offset or a row stride would narrow the vectors below this many
 *     bytes, the table's width is kept, the vector accesses unaligned and each row's last cols %
 *     width elements taken one at a time; the CPU row's 16, 0 = never, up to 64; see `unaligned`
 *     in #clnorm_launch_info), `red_lanes` (dweight/dbias reduction lanes per column, a power
 *     of two up to 32), and for the forward (`fwd_`) and the backward
 *     (`bwd_`): `_tpr` (items per row, 0 = derived, else a power of two up to 1024), `_target` and
 *     `_target16` (vectors per item aimed at when deriving it, for 32-bit and all-16-bit data,
 *     1..64; derived counts are powers of two up to 32, above that multiples of 32 for the forward
 *     and powers of two for the backward), `_tpr_max` (cap on
 *     derived items per row, 0 = the device's limit, else a power of two up to 1024; the forward
 *     goes past it when a row would not fit its register cache), `_wg` (work-group size aimed at, a power of two up to 1024), `_ncache` (register
 *     cache depth in vectors, 0..16); forward only: `fwd_groups` (0: one forward work-group per row
 *     block, else a persistent grid of that many groups of `fwd_wg` items per compute unit,
 *     1..64; with `fwd_pipe`, for pipelined calls only), `fwd_pipe` (the forward's items issue
 *     their next row block's loads before this block's reductions and y, on the `fwd_groups`
 *     grid, where two register caches fit `fwd_ncache` vectors: 0 never, 1 in all-16-bit calls,
 *     2 always), `fwd_pipe_cols` (the forward pipelines from this many cols on, 0 = any),
 *     `fwd_pipe_prefetch_cols` (NVIDIA, pipelined forward calls that cache x in fp32, from this
 *     many cols on: each item also asks L2 for its share of the row block after the one its
 *     second register set loads; see `l2_prefetch` in #clnorm_launch_info; 0 = never),
 *     `fwd_fit16` (all-16-bit forward calls that `fwd_pipe` would pipeline take instead the row
 *     as stored in exactly d vectors per item, d from this (at most `fwd_ncache`) down to
 *     `fwd_target16` + 1, the first d whose items per row are a multiple of 32 and at most
 *     `fwd_fit16_tpr`, one work-group per row block, not pipelined; 0 = never, else up to 16),
 *     `fwd_fit16_tpr` (0..1024; 0 = no fit), `fwd_fit16_deep` and `fwd_fit16_deep_tpr` (where
 *     `fwd_fit16` is set but finds no fit: exactly this many vectors per item, at most
 *     `fwd_ncache`, in a multiple of 32 items up to `fwd_fit16_deep_tpr`; 0 = never, else up to
 *     16, and 0..1024),
 *     `fwd_tpr_max16` (cap on derived items per row of all-16-bit forward calls instead of
 *     `fwd_tpr_max`; 0 = `fwd_tpr_max`, else a power of two up to 1024), `fwd_raw16_vecs`
 *     (all-16-bit forward calls keep x as stored where its fp32 cache, both register sets of a
 *     pipeline counted, would take more than this many vectors per work-group; 0 = never, else up
 *     to 2^20);
 *     backward only: `bwd_nacc` (register dweight/dbias sums, 0 or a power
 *     of two up to 16), `bwd_groups` (persistent work-groups of `bwd_wg` items per compute unit,
 *     1..64), `bwd_prefetch16_cols` (NVIDIA, all-16-bit backward calls with dweight/dbias from this many
 *     cols on, where the dweight/dbias sums are in registers and take at most half of
 *     `bwd_nacc`: each item asks L2 for its share of the next row block's x and dy; 0 = never),
 *     `bwd_prefetch16_nores_nc_max` (... but not in such calls without a residual gradient whose
 *     row is cached more than this many vectors deep; 0 = no bound, up to 16; NVIDIA's table 3,
 *     since 0.32.1: the last commits numbered 0.32.0 have it too; 0 on an H200 since 0.34.0),
 *     `bwd_rpi` and `bwd_rpi16` (rows per item at once in calls with
 *     dweight/dbias (and in the short rows of `bwd_rpi_short_cols` / `bwd_rpi16_short_cols`
 *     without them), for 32-bit and all-16-bit data: 1, 2 or 4), `bwd_rpi_cols` (from how many
 *     cols on they apply, 0 = any), `bwd_rpi_cols_max` (up to how many cols, 0 = any),
 *     `bwd_rpi_short_cols` / `bwd_rpi16_short_cols` (the rows per item of `bwd_rpi` / `bwd_rpi16`
 *     (or what replaces it: `bwd_rpi16_avx2`; not `bwd_rpi_res` / `bwd_rpi16_res`) also for rows of at most this
 *     many cols, whatever `bwd_rpi_cols` / `bwd_rpi_cols_max` say, in calls whose widest element
 *     is 4 / 2 bytes, with or without dweight/dbias; 0 = none),
 *     `bwd_dx16_cols` (all-16-bit calls without dweight/dbias or a residual gradient from this
 *     many cols on: at most `bwd_tpr_max16` items per row where the row still fits
 *     `bwd_ncache_dx` vectors per item, pipelined; 0 = never),
 *     `bwd_rpi16_res` / `bwd_rpi_res` (rows per item of all-16-bit / 32-bit calls with
 *     dweight/dbias and a residual gradient, but for the short rows above, and `bwd_rpi_res` not
 *     on PoCL x86 hosts without AVX-512; 0 = `bwd_rpi16` / `bwd_rpi`, else 1, 2 or 4; the CPU row's 2 and 2,
 *     the NVIDIA row's 2 and 0), `bwd_raw16` (the register cache of all-16-bit
 *     calls holds x and dy as stored, 0 or 1), `fwd_raw16` (the same for the forward's x, 0 or 1), `bwd_tpr_max_cached` (items per row may go past
 *     `bwd_tpr_max` up to this where the row then fits the register cache; 0 or a power of two up
 *     to 1024), `bwd_tpr_max16` (cap on items per row of all-16-bit calls with dweight/dbias, over
 *     both; 0 = none, which also turns `bwd_dx16_cols` off: that rule takes its items per row from
 *     this key), `bwd_ncache_dx` (register cache depth of calls without dweight/dbias, 0 =
 *     `bwd_ncache`), `bwd_pipe` (each item issues its next row block's loads before this block's sums and dx: 0
 *     never, 1 in all-16-bit calls with dweight/dbias, 2 always), `bwd_dr_early` (the residual
 *     gradient is loaded with x and dy where its share of the register cache is at most this many
 *     bytes per work-group; 0 = never), `bwd_dr_early16_nc_max` (... but not in all-16-bit calls with
 *     dweight/dbias whose row is cached more than this many vectors deep beside `bwd_acc_local16`'s
 *     local sums; 0 = no bound, up to 16; NVIDIA's table 3 since 0.33.0),
 *     `bwd_dr_early16_cols_min` (... and only from this many columns on; 0 = any width; NVIDIA's
 *     table 15361 since 0.34.0, 0 on an H200: NVIDIA devices whose name holds "H200", a GH200 too, unmeasured), `bwd_pipe_vecs` (calls with dweight/dbias pipeline only
 *     where one register set takes at most this many vectors per work-group, except in
 *     `bwd_fill16`'s layouts; 0 = any),
 *     `bwd_dxb` and `bwd_dxb16` (rows not cached whose dweight/dbias sums are: dx's second read
 *     of x and dy in batches of this many vectors, loads before stores, for calls whose widest
 *     element is 4 bytes and for all-16-bit calls; 0 = a loop, else up to 16), `bwd_prefetch_cols` (as `bwd_prefetch16_cols` for calls
 *     whose widest element is 4 bytes and that have no residual gradient), `bwd_prefetch_cur_cols`
 *     (NVIDIA, backward calls with dweight/dbias whose widest element is 4 bytes and whose row is
 *     read twice beside the sums in registers, from this many cols on, with or without a residual
 *     gradient: each item also asks L2 for its share of the row block being read, at the block's
 *     start, and for the next block's after the first read, see `l2_prefetch_current` in
 *     #clnorm_launch_info; 0 = never; NVIDIA's table 12289, since 0.35.0),
 *     `bwd_prefetch16_cur_res` (the same for all-16-bit calls with a residual gradient wherever
 *     `bwd_prefetch16_cols` has their prefetch on; 0 or 1, NVIDIA's table 1),
 *     `bwd_prefetch16_cur_dr` (... and where such a row is cached and its residual gradient not
 *     loaded early, that block's residual-gradient rows too; 0 or 1, 0 in every table row since
 *     0.35.0: measured at one width only), `bwd_acc_groups` (calls
 *     whose dweight/dbias sums are in registers but whose row is not cached: at most this many
 *     persistent work-groups per compute unit; 0 = no cap, else up to 64), `bwd_fill16`
 *     (all-16-bit calls with dweight/dbias whose row is cached and one row per item: half the items
 *     per row for as long as that leaves fewer of their vectors idle and the row fits this many
 *     vectors per item, where that ends deeper than `bwd_ncache`; pipelined where `bwd_pipe`
 *     allows, whatever `bwd_pipe_vecs` says; 0 = never, else up to 16), `bwd_acc_local_res`
 *     (calls with dweight/dbias and a residual gradient whose widest element is 4 bytes, sums in
 *     registers and row not cached: this many of each item's dweight and of its dbias sum vectors
 *     in local memory instead, where fewer than all of them and local memory holds them; 0 =
 *     none, else up to 16), `bwd_dxb_res` (the batches of those calls where `bwd_acc_local_res`
 *     applies, instead of `bwd_dxb`; 0 = `bwd_dxb`), `bwd_acc_local16` (all-16-bit calls with
 *     dweight/dbias whose row is cached in full-width vectors, in `bwd_tpr_max16` items where that
 *     is set and not in `bwd_fill16`'s layouts, outside row phases, at least
 *     `bwd_acc_local16_nc` vectors deep (0 = any depth): this many of each item's sum vectors in
 *     local memory, where fewer than all and local memory holds them; 0 = none, else up to 16;
 *     NVIDIA's table has 1 since 0.32.0, see docs/PERFORMANCE.md sessions 39 and 41),
 *     `bwd_acc_local16_nc` (0..16; NVIDIA's table 3), `bwd_cache16_lacc` (those calls: rows cached
 *     up to this many vectors deep, beyond `bwd_ncache`, where `bwd_acc_local16` then applies;
 *     0 = `bwd_ncache`, up to 16; NVIDIA's table 4), `bwd_groups16` and `bwd_groups16_res`
 *     (all-16-bit calls with dweight/dbias whose row is cached, without and with a residual
 *     gradient: persistent work-groups per compute unit, counted in groups of `bwd_wg` items as
 *     `bwd_groups` is, instead of `bwd_groups`, for kernels whose registers leave room for fewer;
 *     0 = `bwd_groups`, else up to 64) and
 *     `local_row_kib` (PoCL-style forward, one item per row, all-16-bit calls:
 *     weight, bias and the item's rows converted to fp32 once into local memory when their (2 +
 *     rows per item) * cols floats take at most this many KiB; 0 = never), `local_row_kib_avx2` (the same bound instead, on a
 *     PoCL x86 host without AVX-512, where each bf16 conversion costs more; 0 = never),
 *     `local_row_kib_intel_bf16` (the same bound instead, on a PoCL x86 host whose CPU has
 *     AVX512_BF16 (with AVX512BW and AVX512VL, as all such CPUs have), Intel's or AMD's (the names'
 *     "intel" is older than the AMD measurements), and which PoCL compiles for as an AVX-512 CPU
 *     (its device name holds "avx512"); 0 =
 *     `local_row_kib`) and
 *     `bwd_local_row_kib_avx2` (on a PoCL x86 host without AVX-512 only: the backward of all-16-bit calls, one item
 *     per row, keeps x-hat and g of its rows in fp32 in local memory for dx's pass when their
 *     2 * rows-per-item * cols floats take at most this many KiB, with the weight's fp32 copy where
 *     cols more fit too; 0 = never), `bwd_local_row_kib_intel_bf16` (the same, on a PoCL x86 host
 *     whose CPU has AVX512_BF16, as above; 0 = never; since 0.28.0 its default is the table's 48
 *     or the host's L1 data cache where that is smaller, and these `*_intel_bf16` keys apply on
 *     AMD's AVX512_BF16 CPUs too), `bwd_rpi16_avx2`
 *     (on a PoCL x86 host without AVX-512: rows per item of all-16-bit backward calls, 1, 2 or 4, instead of
 *     `bwd_rpi16` and `bwd_rpi16_res`; 0 = those), `fwd_rpi16` (the forward's local row, all-16-bit calls:
 *     this many rows side by side, 1, 2 or 4, where their (2 + rows) * cols floats fit the local
 *     row's bound, else half as many, down to one) and `fwd_rpi_cols` / `fwd_rpi_cols_max` (`fwd_rpi16` only from / up
 *     to these cols; 0 = no bound; `fwd_rpi_cols_max_intel_bf16` instead of the latter on a PoCL
 *     x86 host whose CPU has AVX512_BF16, 0 = `fwd_rpi_cols_max`;
 *     `fwd_rpi4_cols_intel_bf16`: on such a host 4 rows instead of `fwd_rpi16` up to these cols,
 *     within the same `fwd_rpi_cols` / upper bound and the local row's bound, 0 = never),
 *     `fwd_rpi4_cols32` (CPU devices, forward calls whose widest element is 4 bytes: the local row,
 *     in fp32, with 4 rows side by side up to this many cols, within `local_row_kib`'s bound (or
 *     the host's), else fewer rows, and one streamed row without it; 0 = never), `fwd_bfly_tpr` / `bwd_bfly_tpr` (NVIDIA's warp-shuffle row
 *     sums: the warps' sums added by a butterfly instead of a loop where a row takes at least this
 *     many work-items, above 32; 0 = never, else up to 1024; backward calls with dweight/dbias
 *     and a residual gradient whose cached row is within `bwd_dr_early`'s budget keep the loop) and `fwd_bfly_cols_max` / `bwd_bfly_cols_max`
 *     (only up to these cols; 0 = no bound), `bwd_ncache_wide` (calls with dweight/dbias whose
 *     widest element is 4 bytes: their register cache up to this many vectors per item within
 *     `bwd_tpr_max` items, instead of `bwd_ncache`; and a cached row that leaves some of its
 *     items' vectors idle takes the first power-of-two count of items below its own that holds
 *     it exactly, if that count is at least half of `bwd_tpr_max` (32 where that is 64 or less)
 *     and the fit more than `bwd_ncache` and at most this many vectors deep; 0 = off, else up to
 *     16; a value below `bwd_ncache` makes their cache shallower), `bwd_cached_nc` (with
 *     `bwd_ncache_wide` set: the same calls' cache depth above `bwd_tpr_max` items, so
 *     `bwd_tpr_max_cached` items take the row only within it; 0 = `bwd_ncache`, else up to 16;
 *     ignored without `bwd_ncache_wide`), `bwd_acc_tpr_max` (calls whose widest element is 4 bytes, with or
 *     without dweight/dbias, whose row neither the register cache nor `bwd_nacc` vectors per item
 *     take: items per row doubled up to this many where `bwd_nacc` vectors then take the row,
 *     read twice instead of streamed; 0 = never, else a power of two up to 1024), `bwd_dxb_dx`
 *     (calls without dweight/dbias whose row is read twice, widest element 4 bytes: dx's second
 *     read in batches of this many vectors; 0 = a loop, else up to 16; all-16-bit ones take
 *     `bwd_dxb16`; `bwd_dxb_res` applies only within
 *     `bwd_tpr_max` items) and `bwd_groups_res` (calls with dweight/dbias and a residual
 *     gradient whose widest element is 4 bytes and whose row is cached within `bwd_ncache`, in
 *     groups of at most `bwd_wg` items: persistent groups per compute unit instead of
 *     `bwd_groups`; 0 = `bwd_groups`, else up to 64), `bwd_colsweep_cols` / `bwd_colsweep16_cols`
 *     (calls with dweight/dbias whose widest element is 4 bytes / all-16-bit calls, from this
 *     many cols on: dx in the layout of the call without dweight/dbias, and each work-group sums
 *     dweight and dbias for its share of the columns over every row, reading them from the
 *     device's cache as the other groups read the same rows (see `column_sweep` in
 *     #clnorm_launch_info), where that share fits the group's items and the sweep's local memory
 *     the device's; 0 = never from these cols, see `bwd_colsweep_stream`) and
 *     `bwd_colsweep_groups` (those calls' persistent groups per compute unit; 0 = the layout's
 *     own, else up to 64), `bwd_colsweep_stream` (1: calls with dweight/dbias whose row would
 *     otherwise stream with the sums in the workspace, neither cached nor read twice with its
 *     sums in registers, take the column sweep at any cols where its share fits; the NVIDIA
 *     row's long rows that alignment narrows, since 0.24.0; 0 = off); `fwd_balance` / `bwd_balance` (the forward's / the backward's
 *     persistent grids with more row blocks than groups: the fewest groups that run as many
 *     rounds of the block loop, at most this many percent fewer, so that the last round is as
 *     full as it can be and does not run on a few groups while the rest of the device idles; 0 =
 *     off, else up to 50) and `fwd_balance_rounds` / `bwd_balance_rounds` (only grids that run at
 *     most this many rounds; 0 = any); `bwd_stream_tpr` (calls without dweight/dbias, and the
 *     column sweep's dx layout, whose row would stream at the derived items per row, neither
 *     `bwd_ncache_dx` nor `bwd_nacc` vectors per item holding it: this many items per row
 *     instead, at most the device's limit and the row's vectors rounded up to a power of two,
 *     in whichever regime then holds the row; 0 = the derived count, else a power of two up to
 *     1024); `bwd_short16_cols` (all-16-bit calls with dweight/dbias of at most this many
 *     columns, 0 = never; without a residual gradient only where the columns are a power of two)
 *     with `bwd_short16_vec_bytes` (their vectors' bytes without a residual gradient, at most
 *     `vec_bytes`; 0 = `vec_bytes`, else a power of two up to 64),
 *     `bwd_short16_groups` (their persistent groups per compute unit, counted as `bwd_groups16`
 *     is, instead of it; 0 = `bwd_groups16`), `bwd_short16_target_res` (vectors per item with a
 *     residual gradient instead of `bwd_target16`; 0 = `bwd_target16`) and
 *     `bwd_short16_groups_res` (their groups instead of `bwd_groups16_res`; 0 = that), each up to
 *     64; and `fwd_chan` / `fwd_chan16` (forward calls whose widest element is 4 bytes /
 *     all-16-bit calls whose row streams, in a power-of-two number of items per row that each
 *     hold the same number of vectors: the mean and the variance from one read of the row, in
 *     chunks of at most this many vectors, the largest power of two that divides an item's
 *     vectors; see `one_read_stats` in #clnorm_launch_info; 0 = off, else a power of two up to
 *     16). `clnorm-bench --tune` times a built-in grid of them
 *     (or any grid, through `CLNORM_BENCH_TUNE_*`);
 *     clnorm_launch_plan() shows the effect of the shape keys (not of the `*_bfly_*` keys or of the
 *     mode keys `shfl`, `cvt`, `perm`, `zext`, `x86bf16`, `packed`, `phase_edge_elems`, `nt_kib`, `nt_unaligned_bytes`,
 *     `nt_unaligned_row_bytes`, `pf_bytes`, `pf_l2_bytes`, `fwd_rowwise_kib` and `red_lanes`). A malformed value makes context creation fail with
 *     #CLNORM_INVALID_ENVIRONMENT.
 *
 * @par Special values (IEEE arithmetic in fp32, tested in tests/test_hostile.c)
 *   - A NaN or Inf in a row of `x` makes that row's mean/rstd and its `y` and `dx` NaN (or Inf);
 *     other rows are bitwise what they would be without it. In the backward, every column of
 *     dweight sums `dy * xhat` over that row, so dweight becomes NaN; dbias (`sum dy`) does not.
 *   - A NaN in `dy[r, c]` makes row r of `dx` NaN and dweight[c], dbias[c] NaN; nothing else.
 *   - A NaN in `dresidual[r, c]` reaches `dx[r, c]` only.
 *   - A NaN in `weight[c]` makes column c of `y` NaN and, since g = dy * weight enters every
 *     row's sums, all of `dx`; dweight and dbias do not use the weight.
 *   - eps = 0 with a constant row: var = 0, rstd = +Inf, and that row's `y` and `dx` are NaN
 *     (0 * Inf); the mean is exact. In the backward its x-hat is NaN, so every column of dweight
 *     becomes NaN; dbias does not.
 *   - The variance is summed in fp32 without rescaling, so with eps = 0 (or an eps far below the
 *     row's variance) tiny rows lose it: deviations from the mean below ~1e-19 have subnormal
 *     squares (the variance loses digits, ~1e-6 relative at 1e-20), and below ~1e-23 they
 *     underflow to 0, which is the constant row above (rstd = +Inf, `y` and `dx` not finite).
 *     An eps of normal size (1e-5, 1e-12) keeps every such row finite.
 *   - Rows whose deviations from their mean are so large that the fp32 sum of their squares
 *     overflows (|x - mean| beyond ~1.8e19 / sqrt(cols)) get var = +Inf, rstd = 0 and `y` equal
 *     to the bias (0 without one), without a NaN to flag it; the row is not rescaled first (that
 *     would cost a pass over it). Such a row's backward is 0 (plus dresidual). This holds while
 *     the row's shifted sums stay finite: the mean is summed as `x - x[0]`, and where those
 *     differences or their running sums overflow fp32 (values within a factor of about 2 * cols
 *     of FLT_MAX, 3.4e38: e.g. +-3e38 in one row) the saved mean is +-Inf or NaN, that row's `y`
 *     and `dx` are NaN, and in the backward every column of dweight is NaN.
 *   - Subnormal inputs are accepted; devices that flush them to zero give results consistent with
 *     zeros (finite where eps > 0; with eps = 0 a row flushed to a constant is the constant row).
 *   - The forward's shift (`x - x[0]`) keeps a large common offset out of the variance; the
 *     backward computes x-hat from the saved fp32 mean, whose rounding (|mean| * 2^-24) then
 *     shows in dx and dweight relative to the row's spread (rows of 1e8 + 8k, k uniform in
 *     -10..10, a spread of ~50 next to a mean rounded to a multiple of 8: dweight off by ~2.6 %),
 *     as in any implementation that saves fp32 statistics.
 *   - Stores to BF16/F16 round to nearest even; values beyond the type's range become +-Inf, NaN
 *     stays a quiet NaN. Which one: BF16 stores keep the sign and top payload bits (quieted) on
 *     CPUs and the portable path, while NVIDIA GPUs of compute capability 8 and above (their
 *     `cvt.rn.bf16x2` instruction) give the canonical 0x7FFF.
 */
#ifndef CLNORM_H
#define CLNORM_H

#ifndef CL_TARGET_OPENCL_VERSION
/** The OpenCL API version `CL/cl.h` exposes (1.2, what clnorm uses), unless the includer chose one. */
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

#include "clnorm_version.h" /* CLNORM_VERSION_MAJOR/_MINOR/_PATCH, generated from CMake's project() */

#ifdef __cplusplus
extern "C" {
#endif

/** @cond CLNORM_INTERNAL */
/* Symbols are hidden by default; only what carries CLNORM_API is exported. */
#if defined(CLNORM_STATIC)
#define CLNORM_API
#elif defined(_WIN32)
#ifdef CLNORM_BUILDING
#define CLNORM_API __declspec(dllexport)
#else
#define CLNORM_API __declspec(dllimport)
#endif
#else
#define CLNORM_API __attribute__((visibility("default")))
#endif
/** @endcond */

/** The version of the headers, major*10000 + minor*100 + patch, from CLNORM_VERSION_MAJOR,
 * CLNORM_VERSION_MINOR and CLNORM_VERSION_PATCH (clnorm_version.h, generated from CMake's
 * project(); CLNORM_VERSION_STRING is the same as "major.minor.patch"). Compare with
 * clnorm_version(), the version of the library actually linked. */
#define CLNORM_VERSION_NUMBER (CLNORM_VERSION_MAJOR * 10000 + CLNORM_VERSION_MINOR * 100 + CLNORM_VERSION_PATCH)

/** @name Status codes
 * @{ */

/** X-macro table of the library's status codes, `X(name, value, message)` for each: it generates
 * the enum below, and the names and messages clnorm_status_string() returns. */
#define CLNORM_STATUS_TABLE(X)                                                                        \
    X(CLNORM_NULL_ARGUMENT, -10001, "a required argument (context, view or output pointer) is NULL") \
    X(CLNORM_NULL_BUFFER, -10002, "a view given has a NULL cl_mem buffer")                           \
    X(CLNORM_INVALID_SHAPE, -10003, "invalid shape: cols is 0, or rows x cols elements of 4 bytes do not fit size_t") \
    X(CLNORM_INVALID_STRIDE, -10004, "row_stride is neither 0 (dense) nor >= cols")                  \
    X(CLNORM_OUT_OF_BOUNDS, -10005, "a view does not fit inside its buffer (or its extent overflows size_t)") \
    X(CLNORM_INVALID_STATS_DTYPE, -10006, "mean and rstd must be CLNORM_F32")                        \
    X(CLNORM_INVALID_DTYPE, -10007, "unknown dtype")                                                 \
    X(CLNORM_INVALID_EPS, -10008, "eps must be finite and >= 0")                                     \
    X(CLNORM_OVERLAP, -10009, "an output overlaps an input or another output")                       \
    X(CLNORM_DEVICE_NOT_FOUND, -10010, "no OpenCL device matches the device spec")                   \
    X(CLNORM_BUILD_FAILED, -10011, "an OpenCL program failed to build")                              \
    X(CLNORM_OUT_OF_HOST_MEMORY, -10012, "host memory allocation failed")                            \
    X(CLNORM_INVALID_BUFFER, -10013, "a cl_mem is not a buffer of the context's cl_context")         \
    X(CLNORM_UNSUPPORTED_DEVICE, -10014, "the device lacks something the library needs (reserved)")  \
    X(CLNORM_INVALID_ENVIRONMENT, -10015, "an environment variable read by clnorm has an invalid value") \
    X(CLNORM_MISALIGNED_HOST_PTR, -10016, "a CL_MEM_USE_HOST_PTR buffer's memory is not aligned to its elements") \
    X(CLNORM_BUFFER_ACCESS, -10017, "an output's buffer is CL_MEM_READ_ONLY or an input's CL_MEM_WRITE_ONLY")

/** The result of every call that can fail: #CLNORM_SUCCESS (0), a negative OpenCL error code
 * passed through unchanged (`CL_OUT_OF_RESOURCES`, `CL_INVALID_EVENT_WAIT_LIST`, ...), or one of
 * the library's own codes, all <= -10000 (Khronos reserves 0..-9999). clnorm_status_string() names
 * any of them. */
typedef int clnorm_status;

/** The library's status codes (the values of #clnorm_status besides OpenCL's own): each
 * enumerator's value and message are in CLNORM_STATUS_TABLE. */
enum {
#define CLNORM_X_ENUM(name, value, message) name = value,
    CLNORM_STATUS_TABLE(CLNORM_X_ENUM)
#undef CLNORM_X_ENUM
    CLNORM_SUCCESS = 0 /**< success (last: no comma after the final enumerator, for C89 / C++98) */
};

/** Names a status.
 * @param status any status: the library's own codes, OpenCL's error codes, anything else.
 * @return "NAME: description" for the library's codes (e.g. "CLNORM_OUT_OF_BOUNDS: a view does not
 *         fit inside its buffer"), the name alone for OpenCL's core codes (1.2 to 3.0: -1 to -72,
 *         e.g. "CL_INVALID_VALUE") and for the ICD loader's CL_PLATFORM_NOT_FOUND_KHR (-1001),
 *         "unknown status" otherwise (other extensions' codes, such as GL / D3D sharing's, included).
 *         A static string, never NULL. */
CLNORM_API const char *clnorm_status_string(clnorm_status status);

/** The version of the library actually linked.
 * @return major*10000 + minor*100 + patch; compare with #CLNORM_VERSION_NUMBER (the headers'). */
CLNORM_API unsigned clnorm_version(void);

/** @} */

/** @name Tensor views
 * @{ */

/** Storage type of one tensor. Math is always fp32. */
typedef enum clnorm_dtype {
    CLNORM_F32 = 0,  /**< IEEE binary32 */
    CLNORM_BF16 = 1, /**< bfloat16, 16-bit words (the top half of an IEEE float); stores round to
                          nearest even and keep a NaN a NaN */
    CLNORM_F16 = 2   /**< IEEE binary16; stores round to nearest even (no cl_khr_fp16 needed) */
} clnorm_dtype;

/** A rows x cols matrix: row-major, unit column stride.
 * Element (r, c) is at `buffer[offset + r*row_stride + c]`, counted in elements of dtype. */
typedef struct clnorm_matrix {
    cl_mem buffer;       /**< an OpenCL buffer (or sub-buffer) of the context's cl_context. One made
                              with CL_MEM_USE_HOST_PTR may be at any address that is a multiple of
                              its element size (else #CLNORM_MISALIGNED_HOST_PTR): the library counts
                              its distance from the device's base alignment in its vectors' width */
    size_t offset;       /**< elements before element (0, 0) */
    size_t row_stride;   /**< elements from one row to the next; 0 means cols (dense), else >= cols */
    clnorm_dtype dtype;  /**< storage type */
} clnorm_matrix;

/** A vector of cols (weight, bias, dweight, dbias) or rows (mean, rstd) elements at
 * `buffer[offset]`, contiguous. */
typedef struct clnorm_vector {
    cl_mem buffer;       /**< an OpenCL buffer (or sub-buffer) of the context's cl_context (on
                              CL_MEM_USE_HOST_PTR memory: as for #clnorm_matrix) */
    size_t offset;       /**< elements before the first one */
    clnorm_dtype dtype;  /**< storage type; mean and rstd must be CLNORM_F32 */
} clnorm_vector;

/** @} */

/** @name Contexts
 * A context holds a device, a queue, the programs built for it (cached) and the backward's
 * workspace.
 * @{ */

/** Opaque. Created by clnorm_context_create() or clnorm_context_create_from_queue(), released by
 * clnorm_context_release(). */
typedef struct clnorm_context clnorm_context;

/** Creates a context with its own cl_context and in-order queue (profiling enabled).
 *
 * Spec forms (case-insensitive):
 *   - `gpu`, `cpu`, `accelerator`: the first device of that type;
 *   - `<text>` or `<text>:<dev>`: the first platform whose name or vendor contains `<text>`
 *     (`nvidia`, `pocl`, `portable`), then device index `<dev>` or the first device whose name
 *     contains `<dev>`; without `:<dev>`, device 0;
 *   - `<platform index>:<device index>` (e.g. `0:1`), or `<platform index>` alone (device 0);
 *   - `<text>` that matches no platform: the first device, on any platform, whose name contains
 *     it (`H200`).
 *
 * @param device_spec the device to use: a spec as above; NULL: the `CLNORM_DEVICE` environment
 *        variable, and when that is unset or empty, the default policy (first GPU of any platform,
 *        else first accelerator, else first CPU); "": the default policy.
 * @param[out] ctx receives the context, or NULL on failure.
 * @return #CLNORM_SUCCESS; #CLNORM_NULL_ARGUMENT (ctx NULL); #CLNORM_DEVICE_NOT_FOUND, with the list
 *         of devices that exist in clnorm_context_last_error(NULL); #CLNORM_INVALID_ENVIRONMENT
 *         (`CLNORM_TUNE` malformed, `CLNORM_BUILD_OPTIONS` over 1024 characters); #CLNORM_OUT_OF_HOST_MEMORY; or OpenCL's error from creating the
 *         context or the queue or from querying the device. Failures are explained by clnorm_context_last_error(NULL). */
CLNORM_API clnorm_status clnorm_context_create(const char *device_spec, clnorm_context **ctx);

/** Resolves a device spec exactly as clnorm_context_create() would, without creating anything.
 * @param device_spec a spec (see clnorm_context_create()); NULL: `CLNORM_DEVICE`, else the default
 *        policy; "": the default policy alone (the environment ignored).
 * @param[out] platform receives the platform (may be NULL).
 * @param[out] device receives the device (may be NULL).
 * @return #CLNORM_SUCCESS, or #CLNORM_DEVICE_NOT_FOUND with the list of devices in
 *         clnorm_context_last_error(NULL), or #CLNORM_OUT_OF_HOST_MEMORY. */
CLNORM_API clnorm_status clnorm_select_device(const char *device_spec, cl_platform_id *platform, cl_device_id *device);

/** Creates a context on the caller's queue (and its cl_context and device).
 * The queue and its cl_context are retained here and released by clnorm_context_release(); nothing
 * the library did not retain is released. The queue may be in-order or out-of-order: on an
 * out-of-order queue the commands of one call, and calls sharing the backward's workspace, are
 * chained by events; on an in-order queue the queue orders them and no event is created unless
 * the caller asks for one.
 * @param queue a valid command queue.
 * @param[out] ctx receives the context, or NULL on failure.
 * @return #CLNORM_SUCCESS; #CLNORM_NULL_ARGUMENT (queue or ctx NULL); OpenCL's error when the queue or
 *         its device cannot be queried; #CLNORM_INVALID_ENVIRONMENT (`CLNORM_TUNE` malformed,
 *         `CLNORM_BUILD_OPTIONS` over 1024 characters);
 *         #CLNORM_OUT_OF_HOST_MEMORY. Explained by clnorm_context_last_error(NULL). */
CLNORM_API clnorm_status clnorm_context_create_from_queue(cl_command_queue queue, clnorm_context **ctx);

/** Releases the programs, the workspace and what the context created or retained. Commands already
 * enqueued are not waited for (OpenCL keeps what they use alive until they finish).
 * @param ctx a context, or NULL (a no-op). */
CLNORM_API void clnorm_context_release(clnorm_context *ctx);

/** The queue the context enqueues on.
 * @param ctx a context, or NULL.
 * @return the queue (not retained for the caller: do not release it), or NULL when ctx is NULL. */
CLNORM_API cl_command_queue clnorm_context_queue(const clnorm_context *ctx);
/** The context's cl_context: the buffers given to the context's operations must belong to it.
 * @param ctx a context, or NULL.
 * @return the cl_context (not retained for the caller), or NULL when ctx is NULL. */
CLNORM_API cl_context clnorm_context_cl_context(const clnorm_context *ctx);
/** The context's device.
 * @param ctx a context, or NULL.
 * @return the device, or NULL when ctx is NULL. */
CLNORM_API cl_device_id clnorm_context_device(const clnorm_context *ctx);
/** The device's name.
 * @param ctx a context, or NULL.
 * @return CL_DEVICE_NAME, valid while the context lives; "" when ctx is NULL. */
CLNORM_API const char *clnorm_context_device_name(const clnorm_context *ctx);

/** The one-line explanation of the calling thread's last failure, when it concerned ctx.
 * Each thread keeps the message of its own most recent failure only; a later successful call on
 * the same context clears it.
 * @param ctx the context the failed call was made on; NULL for calls on no context (a failed
 *        clnorm_context_create(), clnorm_context_create_from_queue() or clnorm_select_device(), or
 *        an operation called with a NULL context).
 * @return the message ("" when the thread's last failure concerned another context, or there was
 *         none). It stays valid until the thread's next call into the library. */
CLNORM_API const char *clnorm_context_last_error(const clnorm_context *ctx);

/** @} */

/** @name LayerNorm
 * Every call validates all arguments first; on error it returns a status, enqueues nothing and
 * touches no output. On success, *event (when event is not NULL) receives the event of the last
 * command enqueued — a marker when nothing had to run (rows == 0 in the forward) — and the caller
 * releases it. num_events_in_wait_list / event_wait_list are as in clEnqueueNDRangeKernel.
 * Outputs must not overlap inputs or each other except for the exact aliases allowed below.
 * @{ */

/** LayerNorm forward: `y = (x - mean) * rstd * weight + bias` per row, with `rstd = 1/sqrt(var +
 * eps)`, var the biased variance (divided by cols), computed in fp32 as a sum of squared
 * deviations from the mean (two passes over the row; a row too long for the register cache may
 * instead be taken in chunks, each two-pass, merged by Chan's formula: see
 * clnorm_launch_info::one_read_stats). Never E[x^2] - E[x]^2.
 * @param ctx the context (required).
 * @param rows rows of x and y; 0 enqueues only a marker.
 * @param cols elements per row, >= 1.
 * @param eps added to the variance inside the square root; finite and >= 0.
 * @param x rows x cols input (required).
 * @param weight cols elements, or NULL (no scale).
 * @param bias cols elements, or NULL (no shift).
 * @param y rows x cols output (required); may be exactly the same view as x (in place).
 * @param mean rows elements of CLNORM_F32, written when not NULL (the backward needs them).
 * @param rstd rows elements of CLNORM_F32, written when not NULL (the backward needs them).
 * @param num_events_in_wait_list number of events in event_wait_list.
 * @param event_wait_list events to wait for, or NULL when num_events_in_wait_list is 0.
 * @param[out] event receives the event of the command enqueued (the caller releases it), or NULL.
 * @return #CLNORM_SUCCESS, a validation error (#CLNORM_NULL_ARGUMENT, #CLNORM_NULL_BUFFER,
 *         #CLNORM_INVALID_SHAPE, #CLNORM_INVALID_STRIDE, #CLNORM_OUT_OF_BOUNDS,
 *         #CLNORM_INVALID_STATS_DTYPE, #CLNORM_INVALID_DTYPE, #CLNORM_INVALID_EPS, #CLNORM_OVERLAP,
 *         #CLNORM_INVALID_BUFFER, #CLNORM_MISALIGNED_HOST_PTR, #CLNORM_BUFFER_ACCESS (an output in a
 *         CL_MEM_READ_ONLY buffer, an input in a CL_MEM_WRITE_ONLY one), `CL_INVALID_EVENT_WAIT_LIST`,
 *         `CL_INVALID_CONTEXT` (a wait-list event of another cl_context)),
 *         #CLNORM_BUILD_FAILED,
 *         #CLNORM_OUT_OF_HOST_MEMORY, or OpenCL's error from enqueueing. */
CLNORM_API clnorm_status clnorm_layer_norm_forward(clnorm_context *ctx, size_t rows, size_t cols, float eps,
    const clnorm_matrix *x, const clnorm_vector *weight, const clnorm_vector *bias,
    const clnorm_matrix *y, const clnorm_vector *mean, const clnorm_vector *rstd,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

/** LayerNorm backward, with the residual gradient fused into dx:
 * `dx = rstd * (g - mean_c(g) - xhat * mean_c(g * xhat)) [+ dresidual]`, with `g = dy * weight`
 * (dy when weight is NULL) and `xhat = (x - mean) * rstd`, using the mean and rstd the forward
 * saved. The dresidual add happens in fp32 inside the dx kernel, before the single rounding to
 * dx's dtype. `dweight = sum_rows(dy * xhat)` and `dbias = sum_rows(dy)` are written when given
 * (also when weight is NULL), reduced in a fixed order: bitwise identical from run to run on one
 * device. The fp32 partial sums live in a workspace owned by the context (grown on need, never
 * shrunk, never larger than the device's largest buffer: a call that would need more fails with
 * CL_INVALID_BUFFER_SIZE); two calls using it never overlap on the device.
 * @param ctx the context (required).
 * @param rows rows of the matrices; 0 writes zeros to dweight/dbias (a marker when neither is given).
 * @param cols elements per row, >= 1.
 * @param dy rows x cols gradient of y (required).
 * @param x rows x cols input of the forward (required).
 * @param weight cols elements, or NULL when the forward had none.
 * @param mean rows elements of CLNORM_F32 saved by the forward (required).
 * @param rstd rows elements of CLNORM_F32 saved by the forward (required).
 * @param dresidual rows x cols gradient added to dx, or NULL; may be exactly the same view as dx
 *        (in-place accumulation). Its dtype may differ from dx's (each tensor has its own).
 * @param dx rows x cols output (required).
 * @param dweight cols elements, written when not NULL.
 * @param dbias cols elements, written when not NULL.
 * @param num_events_in_wait_list number of events in event_wait_list.
 * @param event_wait_list events to wait for, or NULL when num_events_in_wait_list is 0.
 * @param[out] event receives the event of the last command enqueued (the reduction of
 *        dweight/dbias when given, else the dx kernel); the caller releases it. May be NULL.
 * @return as clnorm_layer_norm_forward() (without #CLNORM_INVALID_EPS); also OpenCL's error when
 *         the workspace cannot be allocated. One failure cannot be undone: if the driver refuses
 *         the final dweight/dbias reduction after the dx kernel was enqueued, that kernel still
 *         runs (dx is written) and its OpenCL error is returned. */
CLNORM_API clnorm_status clnorm_layer_norm_backward(clnorm_context *ctx, size_t rows, size_t cols,
    const clnorm_matrix *dy, const clnorm_matrix *x, const clnorm_vector *weight,
    const clnorm_vector *mean, const clnorm_vector *rstd,
    const clnorm_matrix *dresidual,
    const clnorm_matrix *dx, const clnorm_vector *dweight, const clnorm_vector *dbias,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event);

/** @} */

/** @name Introspection
 * What the library would do on a context, for tools such as clnorm-info; nothing is enqueued or
 * built.
 * @{ */

/** The launch shape of one forward or backward kernel call. (0.2 appended rows_per_item and
 * raw_cache, 0.3 pipelined and residual_early, 0.5 reread_batch, 0.7 local_accumulators, 0.8 local_row, 0.9 reread_vectors, 0.10 column_sweep, 0.11 one_read_stats, 0.12 l2_prefetch, 0.13 unaligned, 0.15 row_phase, 0.33 row_sum_butterfly, 0.34 local_weight, 0.35 l2_prefetch_current: a program that allocates this struct must
 * be built against this header; while the version is 0.y the soname carries the minor version,
 * libclnorm.so.0.MINOR, so a program built against an older 0.y does not load.) */
typedef struct clnorm_launch_info {
    unsigned vector_width;          /**< elements per vector access: the widest that divides cols,
                                         every offset and every row stride, within the table's
                                         vector bytes, 16 elements and the device's base-address
                                         alignment; where `unaligned` or `row_phase` is set, the
                                         table's width whatever cols, offsets and strides are */
    unsigned items_per_row;         /**< work-items sharing one row */
    unsigned rows_per_group;        /**< row slots of one work-group (it handles rows_per_group *
                                         rows_per_item rows at once) */
    unsigned work_group_size;       /**< items_per_row * rows_per_group */
    unsigned register_cache;        /**< vectors per item kept in registers (x; backward: xhat and
                                         g, or x and dy as stored when raw_cache is 1), per row
                                         the item takes; 0: rows stream from memory */
    unsigned register_accumulators; /**< backward: vectors per item of dweight/dbias sums kept in
                                         registers (0: in the workspace); 0 for the forward
                                         and for the backward without dweight and dbias */
    size_t work_groups;             /**< work-groups launched (the backward's grid is persistent:
                                         each group loops over row blocks; the forward's is where
                                         the table asks for it, or pipelined); 0 when rows is 0 */
    unsigned rows_per_item;         /**< backward with dweight/dbias (without them: the short rows
                                         of `bwd_rpi_short_cols` / `bwd_rpi16_short_cols`), and
                                         the forward with its
                                         local row: rows each item works on at once (its row slot
                                         takes that many consecutive rows per block); 1 for the
                                         rest */
    unsigned raw_cache;             /**< 1 when the register cache holds its tensors as stored
                                         (16-bit calls; backward: x and dy, forward: x), 0 when
                                         it holds fp32 (backward: x-hat and g) */
    unsigned pipelined;             /**< register cache: 1 when each item issues the loads of its
                                         next row block before this block's row sums and dx
                                         (forward: its reductions and y), a second set of cache
                                         registers; the forward then runs a persistent grid */
    unsigned residual_early;        /**< backward with a residual gradient (#CLNORM_PLAN_BACKWARD_RES),
                                         register cache: 1 when the residual gradient is loaded
                                         with x and dy rather than after the row sums */
    unsigned reread_batch;          /**< backward whose row is read twice (reread_vectors > 0;
                                         with dweight/dbias: register_cache 0, register_accumulators > 0):
                                         dx's second read of x and dy goes this many vectors at a
                                         time, all loads of a batch before its stores; 0: one
                                         vector at a time in a loop (0.5 appended this field) */
    unsigned local_accumulators;    /**< backward with dweight/dbias whose sums are in registers
                                         (the row not cached, or since 0.31 a 16-bit row cached
                                         under bwd_acc_local16): how many of each item's
                                         register_accumulators vectors (of dweight, and as many of
                                         dbias) live in local memory instead, freeing registers
                                         for deeper second-read batches; 0 elsewhere (0.7
                                         appended this field) */
    unsigned local_row;             /**< 1 when the kernel keeps fp32 rows in local memory (CPU
                                         devices only; one item per row, every tensor 16-bit, or
                                         the forward's short rows of up to `fwd_rpi4_cols32`
                                         columns in any dtype: the CPU row): the
                                         forward converts weight, bias and its rows_per_item rows
                                         once ((2 + rows_per_item) * cols floats, cols rounded up
                                         to whole vectors where `unaligned` is 1, within
                                         `local_row_kib`, or `local_row_kib_avx2` on a PoCL x86
                                         host without AVX-512, or `local_row_kib_intel_bf16` on
                                         one with an AVX512_BF16 CPU); the backward, on those
                                         two kinds of host only, keeps x-hat and g of its rows_per_item rows
                                         for dx's pass (2 * rows_per_item * cols floats within
                                         `bwd_local_row_kib_avx2`, or within
                                         `bwd_local_row_kib_intel_bf16` on an AVX512_BF16
                                         host, and the weight's fp32 copy
                                         where cols more fit too); 0 elsewhere (0.8 appended this
                                         field) */
    unsigned reread_vectors;        /**< backward whose row is not cached but read twice (the second
                                         read mostly from the device's cache), each item taking a
                                         fixed number of its vectors: that number (with dweight/dbias
                                         equal to register_accumulators; without them the dx
                                         kernel reads the row the same way, then reread_batch is its
                                         second read's batch); 0 where the row is cached or streams
                                         (0.9 appended this field) */
    unsigned column_sweep;          /**< backward with dweight/dbias summed by columns: each
                                         work-group runs the layout of the same call without
                                         dweight/dbias (the fields above describe it, work_groups
                                         the table's `bwd_colsweep_groups` where set) and sums
                                         dweight/dbias over every row for its share of the
                                         columns, reading them as the other groups read the same
                                         rows for dx; this many column lanes (vectors) per group,
                                         work_group_size / column_sweep row lanes; the second
                                         kernel then converts one row of sums. 0: not this way
                                         (the backward with dweight/dbias then writes one partial
                                         row per work-group; the forward and the backward without
                                         them have no such sums) (0.10 appended this field) */
    unsigned one_read_stats;        /**< forward whose row is not cached (it streams): the mean and
                                         the variance from one read of the row, each item taking
                                         this many vectors at a time (two-pass within the chunk,
                                         the chunks and then the items merged by Chan's formula),
                                         then a second read for y; 0: the mean and the variance
                                         from a read each (or the row is cached) (0.11 appended
                                         this field) */
    unsigned l2_prefetch;           /**< NVIDIA: each item asks L2 (inline PTX, no registers) for
                                         its share of a row block ahead of its loads, this many
                                         blocks ahead: 1 the next one (the backward with
                                         dweight/dbias where its sums are in registers, in at most
                                         half of `bwd_nacc`'s vectors, table keys
                                         `bwd_prefetch16_cols`, `bwd_prefetch16_nores_nc_max`,
                                         `bwd_prefetch_cols`, and see
                                         #l2_prefetch_current), 2 the one
                                         after the block the second register set loads (the
                                         pipelined forward, `fwd_pipe_prefetch_cols`); 0: no
                                         prefetch (always on other devices) (0.12 appended this
                                         field) */
    unsigned unaligned;             /**< 1 when cols (or, in a real call, an offset or a row
                                         stride) is not a multiple of the table's vector width and
                                         the kernel keeps that width anyway: vector accesses at
                                         any element alignment, and each row's last cols %
                                         vector_width elements one at a time (the CPU row, table
                                         key `unaligned_bytes`: one item per row, the row streamed;
                                         where its outputs are stored non-temporally, keys
                                         `nt_unaligned_bytes` and `nt_unaligned_row_bytes`, each
                                         output row's elements before its first cache-line
                                         boundary and after its last one, one at a time);
                                         0: every vector access is aligned, vector_width narrowed
                                         to what divides them (0.13 appended this field) */
    unsigned row_phase;             /**< where cols (or, in a real call, an offset or a row
                                         stride) is not a multiple of the table's vector width but
                                         every row tensor has x's offset and row stride modulo it
                                         (GPUs, the backward's register-cache shapes, table key
                                         `phase`, and with `phase_reread` its twice-read ones;
                                         never the forward since 0.20.0): the
                                         kernel keeps that width and takes the rows in phase
                                         classes, rows this many apart (1 where all rows share
                                         one), each work-group one class, the grid a multiple of
                                         it; each row is read as aligned vectors from the one
                                         holding its first element (in a real call its first
                                         and last vector whole where every row tensor's buffer
                                         holds its last row's whole frame, else element by
                                         element: table key `phase_edge_elems`), dx's first
                                         and last vector stored element by element, the weight
                                         and bias read element by element where their
                                         alignment is not the rows'. The NVIDIA row takes them
                                         for backward calls, the all-16-bit dx-only ones
                                         without a residual gradient only where pipelined
                                         (table keys `phase_skip`, `bwd_phase_pipe_dx16`);
                                         where the narrowed plan holds the row in registers,
                                         only if the vectors would narrow to one element
                                         (`phase_vec_max`), and not for fp32 backward calls
                                         (`phase_cached_skip`), and in no more than
                                         `phase_cached_tpr_max` items where the row is cached;
                                         the later rules are the `bwd_phase_*` keys of
                                         `CLNORM_TUNE` above.
                                         0: off (0.15 appended this field) */
    unsigned row_sum_butterfly;     /**< 1 where the row sums' last step (adding the warps' sums)
                                         is a butterfly of warp shuffles (NVIDIA's inline PTX,
                                         rows of at least `fwd_bfly_tpr` / `bwd_bfly_tpr`
                                         items, forward rows up to `fwd_bfly_cols_max`, not in
                                         backward calls with dweight/dbias whose residual gradient
                                         is loaded early, #residual_early); 0: a loop over the
                                         warps' sums in local memory (always on other devices)
                                         (0.33 appended this field) */
    unsigned local_weight;          /**< 1 where a backward kernel with #local_row also keeps the
                                         weight's fp32 copy in local memory ((2 * rows_per_item
                                         + 1) * cols floats, where that fits the bound named at
                                         #local_row; else 0 and the weight is read from global
                                         memory in dx's pass); 0 elsewhere, the forward included
                                         (its local row always holds weight and bias)
                                         (0.34 appended this field) */
    unsigned l2_prefetch_current;   /**< 1 where a backward kernel with #l2_prefetch 1 also asks
                                         L2 for the row block it is about to read, at the block's
                                         start, and asks for the next block's only after its
                                         first read (NVIDIA: backward calls with dweight/dbias
                                         whose widest element is 4 bytes and whose row is read
                                         twice beside the sums in registers, table key
                                         `bwd_prefetch_cur_cols`, where #l2_prefetch is then 1
                                         whatever `bwd_prefetch_cols` says; all-16-bit ones with
                                         a residual gradient whose prefetch is on,
                                         `bwd_prefetch16_cur_res`); 2 where it also asks for
                                         that block's residual-gradient rows (all-16-bit calls
                                         whose row is cached and whose residual gradient is not
                                         loaded early, #residual_early, with
                                         `bwd_prefetch16_cur_dr`); 0 elsewhere (always on other
                                         devices) (0.35 appended this field) */
} clnorm_launch_info;

/** The launch shape clnorm_layer_norm_forward() or clnorm_layer_norm_backward() would use on ctx
 * for dense tensors at offset 0 (row_stride 0 or cols), with the context's table row, including
 * `CLNORM_DEVICE_CLASS` and `CLNORM_TUNE` as they were when it was created. The shape depends on
 * the widest element among the tensors of the call: for a mix (e.g. bf16 activations with fp32
 * weight) pass the widest type (CLNORM_F32). Offsets and strides that are not multiples of the
 * vector width give a narrower vector in a real call (on CPU devices, where that would be under
 * `unaligned_bytes`, the same width unaligned instead: see `unaligned`; on GPUs, where the row
 * tensors share their offsets and strides modulo the width, the same width in row phases: see
 * `row_phase`). The backward's dweight/dbias reduction (a
 * separate kernel: 32 columns x the table's lanes per work-group) is not described.
 * @param ctx the context.
 * @param backward 0 for the forward; #CLNORM_PLAN_BACKWARD_DX (2) for the backward's dx kernel in a
 *        call without dweight and dbias (compiled without their sums); 1 (any other value) for the
 *        backward's dx kernel in a call with dweight or dbias; either with
 *        #CLNORM_PLAN_BACKWARD_RES (4) or'ed in for a call with a residual gradient.
 * @param rows rows of the call.
 * @param cols elements per row, >= 1.
 * @param dtype storage type of the tensors.
 * @param[out] info receives the shape.
 * @return #CLNORM_SUCCESS, #CLNORM_NULL_ARGUMENT (ctx or info NULL), #CLNORM_INVALID_DTYPE, or
 *         #CLNORM_INVALID_SHAPE (cols 0, or rows x cols elements of 4 bytes do not fit size_t, as
 *         in the calls, whatever dtype is). */
CLNORM_API clnorm_status clnorm_launch_plan(const clnorm_context *ctx, int backward, size_t rows, size_t cols,
    clnorm_dtype dtype, clnorm_launch_info *info);
/** clnorm_launch_plan()'s backward argument for a backward call without dweight and dbias. */
#define CLNORM_PLAN_BACKWARD_DX 2
/** Or'ed into clnorm_launch_plan()'s non-zero backward argument: the call has a residual gradient
 * (the shape can differ, see clnorm_launch_info::residual_early and ::pipelined). */
#define CLNORM_PLAN_BACKWARD_RES 4

/** The size of the context's program cache: one program per kernel and set of compile-time options
 * (dtypes, launch shape, `CLNORM_BUILD_OPTIONS`), built on first use and kept until the context is
 * released. A fresh context has none: its first call of each kind pays the OpenCL compile (a
 * backward with dweight or dbias builds two programs, the dx kernel and the reduction).
 * @param ctx a context, or NULL.
 * @return the number of programs built so far; 0 when ctx is NULL. */
CLNORM_API size_t clnorm_context_program_count(const clnorm_context *ctx);

/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CLNORM_H */
