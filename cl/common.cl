/* clnorm — definitions shared by every kernel: storage dtypes, vector loads/stores, reductions.
 *
 * Compile-time parameters (the host passes them with -D; the defaults below let the file build
 * on its own, e.g. for an offline compiler check):
 *   VEC     elements per vector load/store (1, 2, 4, 8, 16); the host guarantees that cols, every
 *           offset and every row stride of the vectorised tensors are multiples of VEC, so vector
 *           accesses are naturally aligned (except with UNALIGNED, below).
 *   TPR     work-items per row: a power of two up to 32, a multiple of 32 above (the in-warp
 *           butterflies and the two-level local sums need that); the row's statistics are reduced
 *           over them.
 *   RPW     rows per work-group (row slots); the work-group size is TPR * RPW.
 *   NCACHE  vectors per work-item kept in registers: the host guarantees cols <= TPR*VEC*NCACHE,
 *           and the row is read from global memory once; 0 (long rows, CPU devices) streams the
 *           row from cache instead.
 *   T_<name> storage dtype of each tensor: f32, bf16 or f16.
 *   LANE_PERM (CPUs, calls with 16-bit tensors): vectors hold their even elements first, then their
 *           odd ones, in every tensor alike (see "permuted lanes" below).
 */
#ifndef VEC
#define VEC 1
#endif
#if defined(LANE_PERM) && (defined(NV_CVT) || defined(X86_BF16) || defined(BF16_ZEXT))
#error "LANE_PERM excludes NV_CVT, X86_BF16 and BF16_ZEXT (they keep the natural element order)"
#endif
#if defined(X86_BF16) && !defined(BF16_ZEXT)
#error "X86_BF16 is a store of the BF16_ZEXT order"
#endif
#ifndef TPR
#define TPR 1
#endif
#ifndef RPW
#define RPW 1
#endif
#ifndef NCACHE
#define NCACHE 0
#endif
#ifndef RPI
#define RPI 1 /* rows per item at once (forward.cl's local row, backward.cl) */
#endif
#define WG (TPR * RPW)
/* PF_BYTES (local rows on x86, host-set from the table): the kernels prefetch the rows they take
 * next at least this many bytes of x ahead (whole row blocks, at least one) */
#ifndef PF_BYTES
#define PF_BYTES 0
#endif
/* PF_L2_BYTES (likewise; forward.cl): where a row block holds at least this many bytes of x, its
 * prefetches ask for L2 only, leaving L1 to the local row the item works on (0: always L1) */
#ifndef PF_L2_BYTES
#define PF_L2_BYTES 0
#endif
/* Rows streamed from memory are summed in blocks of CHUNK vectors per item, so the fp32 rounding
 * error grows like CHUNK + n/CHUNK instead of n. */
#ifndef CHUNK
#define CHUNK 64
#endif

/* UNALIGNED (host-chosen, the CPU row's shape: one item per row, the row streamed, no register
 * cache): rows may start at any element and cols need not be a multiple of VEC. Vector accesses
 * then need element alignment only (below: "unaligned vector access"; on x86 an unaligned load
 * costs what an aligned one does unless it crosses a cache line); a row's first cols / VEC vectors
 * are taken as vectors and its last cols % VEC elements one at a time (TAIL_FOR below; output rows
 * stored non-temporally are split at cache lines instead, OUT_HEAD below); local-memory rows are
 * LCOLS(cols) floats apart, whole vectors. Without it the host narrows VEC to what divides
 * cols and every offset and stride, down to 1 element (PoCL, 2^26 elements: cols 1023 took 2-5
 * times as long as 1000). */
#ifdef UNALIGNED
#if VEC == 1 || defined(LANE_PERM)
#error "UNALIGNED needs vectors in natural order"
#endif
#if TPR != 1 || RPW != 1 || NCACHE != 0
#error "UNALIGNED is for the streaming one-item-per-row shape"
#endif
#define LCOLS(n) (((n) + VEC - 1) / VEC * VEC)
/* the row's elements past its whole vectors (nv of them), one at a time */
#define TAIL_FOR(e) for (long e = nv * VEC; e < (long)cols; ++e)
/* Output rows (y, dx). With NT_STORE, which the host sets with UNALIGNED only where an output
 * vector takes at least the table's nt_unaligned_bytes (the CPU row's 64, a cache line: fp32
 * outputs in 16-element vectors) and an output row at least nt_unaligned_row_bytes (2048: at
 * shorter rows the ends taken one at a time cost what the lines save), each output row is written
 * in three parts: its head, the elements before the first one at a line boundary (OUT_HEAD: fewer
 * than OUT_LINE bytes, and at most cols), one at a time; then its whole lines in aligned vectors,
 * non-temporal (OUT_NV vectors, vector k at element hd + k * VEC); then the rest one at a time.
 * The inputs are read at the same columns, unaligned. Unaligned vector stores split cache lines
 * and cannot be non-temporal, so each line is read before it is written: a third more traffic in a
 * forward (PoCL, 2^26 elements, fp32 forward at cols 1023 26.8 ms, at 1024 17.7; with this, 20).
 * Whole lines, not just aligned vectors: a non-temporal store of half a line (16 bf16) beside
 * plain stores to its other half made the bf16 forward at 1023 take 20.5 ms against 14.1 with
 * plain unaligned stores; peeled to lines (up to 31 elements one at a time) it took 15.2, hence
 * the 64-byte bound. Without NT_STORE: unaligned vectors from the row's start, then its tail
 * (peeling for aligned plain stores gained only 3-7 % in the fp32 forward at 1023). (p: the output
 * row, whose buffer's elements are naturally aligned, as everywhere; VEC elements divide a line:
 * at most 16 x 4 bytes, powers of two.) */
#ifdef NT_STORE
#ifndef OUT_LINE
#define OUT_LINE 64
#endif
#define OUT_HEAD(p) min((long)cols, (long)(((0 - (ulong)(p)) & (OUT_LINE - 1)) / sizeof(*(p))))
#define OUT_NV(p, hd) (((long)cols - (hd)) / (long)(OUT_LINE / sizeof(*(p))) * (long)(OUT_LINE / sizeof(*(p)) / VEC))
#define HEAD_FOR(e, hd) for (long e = 0; e < (hd); ++e)
#define OUT_TAIL_FOR(e, p, hd) for (long e = (hd) + OUT_NV(p, hd) * VEC; e < (long)cols; ++e)
/* a local row's vector at element e of an output row's loop: at any element */
#define LDL(p, e) LDL_U(p, e)
#else
/* (an aligned vector where the loop has no head: e is a multiple of VEC; the unaligned type cost
 * the bf16 backward's dx at cols 250 15 %, 18.6 -> 21.6 / 22.0 ms) */
#define LDL(p, e) (*(__local floatv *)((p) + (e)))
#define OUT_HEAD(p) 0L
#define OUT_NV(p, hd) nv
#define HEAD_FOR(e, hd) for (long e = 0; e < 0; ++e)
#define OUT_TAIL_FOR(e, p, hd) TAIL_FOR(e)
#endif
#else
#define LCOLS(n) (n)
/* (no tail: a loop the compiler removes, so that the tail's code need not be under #ifdef; the
 * tail sums start at -0, the additive identity, so adding them folds away too) */
#define TAIL_FOR(e) for (long e = 0; e < 0; ++e)
/* (aligned rows: no head, the row's nv vectors, no tail) */
#define LDL(p, e) (*(__local floatv *)((p) + (e)))
#define OUT_HEAD(p) 0L
#define OUT_NV(p, hd) nv
#define HEAD_FOR(e, hd) for (long e = 0; e < 0; ++e)
#define OUT_TAIL_FOR(e, p, hd) for (long e = 0; e < 0; ++e)
#endif

/* Stores of outputs (y, dx): NT_STORE (CPUs, large tensors) writes them around the cache, so a
 * store does not first read its line (the write-allocate read is a third of a copy's traffic).
 * STORE_RAW: a vector store of type T at p, aligned or (UNALIGNED) not. */
#ifdef UNALIGNED
#define STORE_RAW(T, p, v) CAT(store_u_, T)((__global void *)(p), (v))
#ifdef NT_STORE
/* UNALIGNED rows store their outputs' vectors from the row's first aligned element on (OUT_HEAD,
 * above), so those stores are aligned and can go around the cache; the address is tested all the
 * same (a non-temporal vector store at an unaligned address faults), and any other store is a
 * plain one. NT_STRICT (tests only, through CLNORM_BUILD_OPTIONS): no test, every vector store
 * non-temporal, so that a peel that leaves a vector unaligned faults instead of quietly taking
 * the plain store. */
#ifdef NT_STRICT
#define STORE_OUT(T, p, v) __builtin_nontemporal_store((v), (__global T *)(p))
#else
#define STORE_OUT(T, p, v)                                                                       \
    do {                                                                                         \
        if (((ulong)(p) & (sizeof(T) - 1)) == 0)                                                 \
            __builtin_nontemporal_store((v), (__global T *)(p));                                 \
        else                                                                                     \
            STORE_RAW(T, p, v);                                                                  \
    } while (0)
#endif
#define NT_FENCE() __asm__ volatile("sfence" ::: "memory")
#else
#define STORE_OUT(T, p, v) STORE_RAW(T, p, v)
#define NT_FENCE()
#endif
#elif defined(NT_STORE)
#define STORE_RAW(T, p, v) (*(__global T *)(p) = (v))
#define STORE_OUT(T, p, v) __builtin_nontemporal_store((v), (__global T *)(p))
/* non-temporal stores are weakly ordered: each work-item fences its own before it ends (x86) */
#define NT_FENCE() __asm__ volatile("sfence" ::: "memory")
#else
#define STORE_RAW(T, p, v) (*(__global T *)(p) = (v))
#define STORE_OUT(T, p, v) STORE_RAW(T, p, v)
#define NT_FENCE()
#endif

/* ---- the row blocks a work-group takes -------------------------------------------------------
 * Round robin (g, g + G, g + 2G, ...), or with CONTIG_ROWS (CPUs, persistent grids) one contiguous
 * range per group, so a thread streams through memory in order (the hardware prefetchers follow
 * it). Depends on the work-group only: every item of a group runs the same trip count.
 *   for (ulong blk = blocks_first(n); blk < blocks_end(n); blk += blocks_step()) */
#ifdef CONTIG_ROWS
inline ulong blocks_first(ulong n)
{
    const ulong ng = get_num_groups(0), g = get_group_id(0);
    return g * (n / ng) + min(g, n % ng);
}
inline ulong blocks_end(ulong n)
{
    const ulong ng = get_num_groups(0), g = get_group_id(0);
    return blocks_first(n) + n / ng + (g < n % ng ? 1 : 0);
}
inline ulong blocks_step(void) { return 1; }
#else
inline ulong blocks_first(ulong n) { (void)n; return get_group_id(0); }
inline ulong blocks_end(ulong n) { return n; }
inline ulong blocks_step(void) { return get_num_groups(0); }
#endif

/* NV_PREFETCH (NVIDIA only, chosen by the host): the items of a row slot ask L2 for a row their
 * group takes later (one 128-byte line per item in turn, inline-PTX prefetch.global.L2): the
 * backward's next one, whose loads, issued after this row's reductions, then find it there; the
 * pipelined forward's one after the row its second register set loads. Takes no registers, unlike
 * PIPE. */
#ifdef NV_PREFETCH
inline void prefetch_l2(const __global uchar *p) { asm volatile("prefetch.global.L2 [%0];" : : "l"(p)); }
#define PREFETCH_ROW(p, bytes, lane)                                                             \
    for (ulong o_ = (ulong)(lane) * 128; o_ < (ulong)(bytes); o_ += (ulong)TPR * 128)           \
        prefetch_l2((const __global uchar *)(p) + o_);
#else
#define PREFETCH_ROW(p, bytes, lane)
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Storage types. half is only ever used as a pointer type (no cl_khr_fp16 needed). */
typedef float f32_t;
typedef ushort bf16_t;
typedef half f16_t;
#define STORAGE(t) CAT(t, _t)

/* VN is the vector suffix: empty for VEC == 1 so that CAT(float, VN) is plain float. */
#if VEC == 1
#define VN
#else
#define VN VEC
#endif
typedef CAT(float, VN) floatv;

/* ---- scalar access (any element, no alignment beyond the element's) ------------------------- */
inline float ld1_f32(const __global float *p, long i) { return p[i]; }
inline float ld1_bf16(const __global ushort *p, long i) { return as_float((uint)p[i] << 16); }
inline float ld1_f16(const __global half *p, long i) { return vload_half(0, p + i); }

/* fp32 -> bf16 with round to nearest even; NaN stays NaN (quieted), overflow rounds to Inf. */
inline ushort bf16_from_float(float v)
{
    uint u = as_uint(v);
    if (isnan(v))
        return (ushort)((u >> 16) | 0x40u);
    return (ushort)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline void st1_f32(__global float *p, long i, float v) { p[i] = v; }
inline void st1_bf16(__global ushort *p, long i, float v) { p[i] = bf16_from_float(v); }
inline void st1_f16(__global half *p, long i, float v) { vstore_half_rte(v, 0, p + i); }

#define LD1(t, p, i) CAT(ld1_, t)(p, i)
#define ST1(t, p, i, v) CAT(st1_, t)(p, i, v)

/* ---- vector access: VEC elements starting at element i (a multiple of VEC) ------------------
 * 16-bit storage is moved as 32-bit words (VEC/2 of them), whatever the element type: wide
 * ushort/half vector accesses may be split into 16-bit accesses by some compilers (a uint4 is one
 * 128-bit access everywhere). bf16 pairs are unpacked with shifts; fp16 goes through
 * vload_half/vstore_half_rte on a private copy, which compilers turn into register conversions. */
#if VEC == 1
#define ldw ld1_f32
#define stw st1_f32
#define ldv_f32 ld1_f32
#define ldv_bf16 ld1_bf16
#define ldv_f16 ld1_f16
#define stv_f32 st1_f32
#define stv_bf16 st1_bf16
#define stv_f16 st1_f16
/* raw access (see below): one element is converted on load */
typedef float rawv_f32_t, rawv_bf16_t, rawv_f16_t;
#define ldr_f32 ld1_f32
#define ldr_bf16 ld1_bf16
#define ldr_f16 ld1_f16
#define cvr_f32(v) (v)
#define cvr_bf16(v) (v)
#define cvr_f16(v) (v)
#else
/* uint vector holding VEC 16-bit elements (element 2j in the low half of word j) */
#if VEC == 2
typedef uint uinth;
#elif VEC == 4
typedef uint2 uinth;
#elif VEC == 8
typedef uint4 uinth;
#else
typedef uint8 uinth;
#endif
/* uint vector of VEC lanes (one per element, e.g. an fp32 vector's bits) */
typedef CAT(uint, VN) uintv;

#ifdef UNALIGNED
/* unaligned vector access (UNALIGNED): with clang (PoCL), the vector types with their elements'
 * alignment, so that each access is one unaligned vector instruction (PoCL's vstore16 of ushort
 * became 16 two-byte stores: the bf16 forward at cols 1000 took 34 ms, 20 with these types);
 * elsewhere, or with UNALIGNED_VLOAD (a test variant's), OpenCL's own vloadN / vstoreN */
#if defined(__clang__) && !defined(UNALIGNED_VLOAD)
#define UA_TYPES 1
typedef floatv floatv_ua __attribute__((aligned(4)));
typedef uinth uinth_ua __attribute__((aligned(2)));
inline void store_u_floatv(__global void *p, floatv v) { *(__global floatv_ua *)p = v; }
inline void store_u_uinth(__global void *p, uinth v) { *(__global uinth_ua *)p = v; }
inline floatv ldw(const __global float *p, long i) { return *(const __global floatv_ua *)(p + i); }
/* a local row's vector at any element (LDL, the output rows' peeled loops) */
#define LDL_U(p, e) (*(__local floatv_ua *)((p) + (e)))
#else
inline void store_u_floatv(__global void *p, floatv v) { CAT(vstore, VEC)(v, 0, (__global float *)p); }
inline void store_u_uinth(__global void *p, uinth v) { CAT(vstore, VEC)(CAT(as_ushort, VN)(v), 0, (__global ushort *)p); }
inline floatv ldw(const __global float *p, long i) { return CAT(vload, VEC)(0, p + i); }
#define LDL_U(p, e) CAT(vload, VEC)(0, (p) + (e))
#endif
#else
/* raw vector access to fp32 data: the backward's workspace, which only our kernels read */
inline floatv ldw(const __global float *p, long i) { return *(const __global floatv *)(p + i); }
#endif
inline void stw(__global float *p, long i, floatv v) { STORE_RAW(floatv, p + i, v); }

/* interleave even and odd elements back into one vector */
#if VEC == 2
inline floatv interleave(float e, float o) { return (float2)(e, o); }
#define as_floath as_float
#elif VEC == 4
inline floatv interleave(float2 e, float2 o) { return (float4)(e.s0, o.s0, e.s1, o.s1); }
#define as_floath as_float2
#elif VEC == 8
inline floatv interleave(float4 e, float4 o) { return (float8)(e.s0, o.s0, e.s1, o.s1, e.s2, o.s2, e.s3, o.s3); }
#define as_floath as_float4
#else
inline floatv interleave(float8 e, float8 o)
{
    return (float16)(e.s0, o.s0, e.s1, o.s1, e.s2, o.s2, e.s3, o.s3, e.s4, o.s4, e.s5, o.s5, e.s6, o.s6, e.s7, o.s7);
}
#define as_floath as_float8
#endif
#if VEC == 2
#define as_uinth as_uint
#elif VEC == 4
#define as_uinth as_uint2
#elif VEC == 8
#define as_uinth as_uint4
#else
#define as_uinth as_uint8
#endif

/* ---- raw access: a vector as stored (fp32: floatv; 16-bit: VEC/2 words), converted apart ------
 * ldv = cvr(ldr(...)). The backward keeps 16-bit rows in registers in their raw form (half the
 * registers of fp32) and converts them each time it reads them. */
typedef floatv rawv_f32_t;
typedef uinth rawv_bf16_t, rawv_f16_t;
inline floatv ldr_f32(const __global float *p, long i) { return ldw(p, i); }
#ifdef UNALIGNED
#ifdef UA_TYPES
inline uinth ldu16(const __global ushort *p) { return *(const __global uinth_ua *)p; }
#else
inline uinth ldu16(const __global ushort *p) { return as_uinth(CAT(vload, VEC)(0, p)); }
#endif
inline uinth ldr_bf16(const __global ushort *p, long i) { return ldu16(p + i); }
inline uinth ldr_f16(const __global half *p, long i) { return ldu16((const __global ushort *)(p + i)); }
#else
inline uinth ldr_bf16(const __global ushort *p, long i) { return *(const __global uinth *)(p + i); }
inline uinth ldr_f16(const __global half *p, long i) { return *(const __global uinth *)(p + i); }
#endif
#ifndef LANE_PERM
inline floatv cvr_f32(floatv v) { return v; }
#ifdef BF16_ZEXT
inline floatv cvr_bf16(uinth u) { return CAT(as_float, VN)(CAT(convert_uint, VN)(CAT(as_ushort, VN)(u)) << 16); }
#else
inline floatv cvr_bf16(uinth u) { return interleave(as_floath(u << 16), as_floath(u & (uinth)0xFFFF0000u)); }
#endif
inline floatv cvr_f16(uinth u) { return CAT(vload_half, VEC)(0, (const __private half *)&u); }
inline void stv_f32(__global float *p, long i, floatv v) { STORE_OUT(floatv, p + i, v); }
#else
/* ---- permuted lanes (LANE_PERM) --------------------------------------------------------------
 * A bf16 vector arrives as 32-bit words holding (even, odd) element pairs. Interleaving them back
 * costs a cross-lane shuffle per vector, and a CPU (PoCL: AVX-512) pays it on every load and store.
 * LayerNorm is elementwise apart from its row sums, whose order is ours to fix, so in this mode
 * every tensor's vectors are held in the order (evens, odds): free for bf16, a shuffle for fp32
 * and fp16 tensors, none for the workspace, which is stored permuted (reduce.cl knows, PERM_VEC). */
inline floatv cvr_f32(floatv v) { return (floatv)(v.even, v.odd); }
inline floatv cvr_bf16(uinth u) { return (floatv)(as_floath(u << 16), as_floath(u & (uinth)0xFFFF0000u)); }
inline floatv cvr_f16(uinth u)
{
    const floatv v = CAT(vload_half, VEC)(0, (const __private half *)&u);
    return (floatv)(v.even, v.odd);
}
inline void stv_f32(__global float *p, long i, floatv v) { stw(p, i, interleave(v.lo, v.hi)); }
#endif
inline floatv ldv_f32(const __global float *p, long i) { return cvr_f32(ldr_f32(p, i)); }
inline floatv ldv_bf16(const __global ushort *p, long i) { return cvr_bf16(ldr_bf16(p, i)); }
inline floatv ldv_f16(const __global half *p, long i) { return cvr_f16(ldr_f16(p, i)); }

/* fp32 bits -> bf16 bits in the low 16 bits of each word (RNE, NaN kept a quiet NaN) */
/* the same on any uint vector type T, in each 32-bit lane */
#define BF16_RNE(T, u, nan_mask) select(((u) + (T)0x7FFFu + (((u) >> 16) & (T)1u)) >> 16, ((u) >> 16) | (T)0x40u, (nan_mask))
inline uinth bf16_bits(uinth u, uinth nan_mask) { return BF16_RNE(uinth, u, nan_mask); }
#if VEC == 2
/* scalar select takes the mask's truth value, not its top bit */
#define NANMASK(x) (isnan(x) ? 0xFFFFFFFFu : 0u)
#else
#define NANMASK(x) as_uinth(isnan(x))
#endif
#ifdef NV_CVT
/* NVIDIA sm_80+: one instruction rounds two floats to bf16 (RNE, NaN stays NaN) and packs them,
 * against ~7 integer operations per element in the portable path below. */
inline uint bf16x2(float lo, float hi)
{
    uint r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
#if VEC == 2
#define BF16_PACK(e, o) bf16x2(e, o)
#elif VEC == 4
#define BF16_PACK(e, o) (uint2)(bf16x2(e.s0, o.s0), bf16x2(e.s1, o.s1))
#elif VEC == 8
#define BF16_PACK(e, o) (uint4)(bf16x2(e.s0, o.s0), bf16x2(e.s1, o.s1), bf16x2(e.s2, o.s2), bf16x2(e.s3, o.s3))
#else
#define BF16_PACK(e, o)                                                                                  \
    (uint8)(bf16x2(e.s0, o.s0), bf16x2(e.s1, o.s1), bf16x2(e.s2, o.s2), bf16x2(e.s3, o.s3),              \
            bf16x2(e.s4, o.s4), bf16x2(e.s5, o.s5), bf16x2(e.s6, o.s6), bf16x2(e.s7, o.s7))
#endif
inline void stv_bf16(__global ushort *p, long i, floatv v) { STORE_RAW(uinth, p + i, BF16_PACK(v.even, v.odd)); }
#elif defined(LANE_PERM)
/* evens in the low half, odds in the high half: round all lanes at once, then pack */
inline void stv_bf16(__global ushort *p, long i, floatv v)
{
    const uintv r = BF16_RNE(uintv, CAT(as_uint, VN)(v), CAT(as_uint, VN)(isnan(v)));
    STORE_RAW(uinth, p + i, r.lo | (r.hi << 16));
}
#elif defined(BF16_ZEXT)
/* round to nearest even, NaN kept a quiet NaN, in natural order: narrowed by one conversion */
inline uinth bf16_narrow(floatv v)
{
#ifdef BF16_INPUTS_ONLY
    /* Every value the kernel reads is bf16 and it runs on x86 (host-chosen): each NaN it can hold
     * is then an input's, quieted, or the default NaN, all with zero low 16 bits, which the
     * rounding add leaves alone, so the NaN select is not needed (~15 % of the PoCL forward) */
    const uintv u = CAT(as_uint, VN)(v);
    return CAT(as_, uinth)(CAT(convert_ushort, VN)((u + (uintv)0x7FFFu + ((u >> 16) & (uintv)1u)) >> 16));
#else
    const uintv r = BF16_RNE(uintv, CAT(as_uint, VN)(v), CAT(as_uint, VN)(isnan(v)));
    return CAT(as_, uinth)(CAT(convert_ushort, VN)(r));
#endif
}
#if defined(X86_BF16) && VEC >= 8
/* AVX512_BF16 (PoCL on a CPU that has it, chosen by the host after probe.c ran it): one
 * instruction per vector, vcvtneps2bf16, which reads fp32 denormals as zero. Lanes with a zero
 * exponent (denormals and zeros) are made exact without a branch: their exponent field is set to
 * 1, which adds 2^-126 of their own sign exactly; at that binade bf16's spacing is 2^-133, the
 * spacing of bf16's denormals, and the round-to-nearest-even bit (bit 16) is unchanged, so the
 * rounded magnitude is the denormal's rounded magnitude plus 0x0080, taken off again with a masked
 * 16-bit subtract (a carry into the smallest normal comes out 0x0080, as it should). It replaced
 * a per-vector test and branch to the portable rounding (until 0.28.0): on a Zen 4 host the BF16
 * forward at 2048x1024, in cache, 0.280 -> 0.248 ms (docs/PERFORMANCE.md, session 37). */
inline void stv_bf16(__global ushort *p, long i, floatv v)
{
    uinth r;
    const uintv e = (uintv)0x7F800000u, b = (uintv)0x00800000u;
    const uinth c = (uinth)0x00800080u; /* 0x0080 in each 16-bit lane */
    __asm__("vptestnmd %[e], %[v], %%k1\n\t"
            "vpord %[b], %[v], %[v]%{%%k1%}\n\t"
            "vcvtneps2bf16 %[v], %[r]\n\t"
            "vpsubw %[c], %[r], %[r]%{%%k1%}"
            : [r] "=&v"(r), [v] "+v"(v)
            : [e] "v"(e), [b] "v"(b), [c] "v"(c)
            : "k1");
    STORE_OUT(uinth, p + i, r);
}
#else
inline void stv_bf16(__global ushort *p, long i, floatv v) { STORE_OUT(uinth, p + i, bf16_narrow(v)); }
#endif
#else
inline void stv_bf16(__global ushort *p, long i, floatv v)
{
    const uinth e = bf16_bits(as_uinth(v.even), NANMASK(v.even));
    const uinth o = bf16_bits(as_uinth(v.odd), NANMASK(v.odd));
    STORE_RAW(uinth, p + i, e | (o << 16));
}
#endif
inline void stv_f16(__global half *p, long i, floatv v)
{
    uinth u;
#ifdef LANE_PERM
    v = interleave(v.lo, v.hi);
#endif
    CAT(CAT(vstore_half, VEC), _rte)(v, 0, (__private half *)&u);
    STORE_OUT(uinth, p + i, u);
}
#endif
#define LDV(t, p, i) CAT(ldv_, t)(p, i)
#define RAWV(t) CAT(rawv_, CAT(t, _t))
#define LDR(t, p, i) CAT(ldr_, t)(p, i)
#define CVR(t, v) CAT(cvr_, t)(v)
#define STV(t, p, i, v) CAT(stv_, t)(p, i, v)
#define LDW(p, i) ldw(p, i)
#define STW(p, i, v) stw(p, i, v)

/* ---- row phases (PHASE, host-chosen: GPUs, the backward's register-cache shapes; with the
 * table's phase_reread also its sums-in-registers shapes, whose frames are read twice) ---------
 * Where cols, an offset or a row stride is not a multiple of VEC, vectors aligned for one row are
 * not for the next, and without PHASE the host narrows VEC to what divides them all (cols 1023:
 * one element, a 2-byte access per item for bf16, 0.16 of the copy in the H200's backward). With
 * PHASE the host has checked that every row tensor (x, dy, dx, dres) has the same offset and
 * row stride modulo VEC, so row r's first element has the same position in its VEC-aligned vector
 * (its phase h) in all of them. Rows are then taken in phase classes: rows of one class are P =
 * VEC / gcd(VEC, ld) apart and share h, and work-group g takes class g % P only (the host makes
 * the grid a multiple of P), so each item's columns are the same in every row it takes and the
 * dweight/dbias sums stay per column in registers. Each row is read as aligned vectors over its
 * "frame", the row's elements with the h before them and up to the next multiple of VEC after
 * them: vector k holds columns k*VEC - h .. k*VEC - h + VEC - 1. Vectors wholly inside the row
 * (all but the first and the last) are plain aligned accesses; the first and the last go element
 * by element over their columns inside the row (loads give 0 outside it, stores leave it alone),
 * and PH_KEEP zeroes their outside lanes in every sum. The weight and bias, whose phase is their
 * own, are read at each item's frame columns (ph_wr), once per work-group. (The forward took
 * phases too until 0.20.0: per row, persistent and pipelined, each lost to the narrowed vectors on
 * the H200 and an H100; docs/PERFORMANCE.md.) */
#if defined(PH_WIDE_LOADS) && !defined(PHASE)
#error "PH_WIDE_LOADS is for row phases"
#endif
#ifdef PHASE
#if VEC == 1 || (NCACHE == 0 && NACC == 0) || defined(UNALIGNED) || defined(LANE_PERM) || defined(CONTIG_ROWS) || defined(NV_PREFETCH)
#error "PHASE is for the register-cache and sums-in-registers shapes with natural-order vectors (and no L2 prefetch)"
#endif
/* the distance in rows between rows of one phase class, for row stride ld (elements) */
inline ulong phase_period(ulong ld)
{
    const ulong low = ld & (~ld + 1);
    return low == 0 || low >= VEC ? 1 : VEC / low;
}
/* whether frame vector k lies wholly inside the row (columns 0 .. n-1, phase h) */
#define PH_FULL(k) ((k) * VEC >= ph_h && ((k) + 1) * VEC <= (long)cols + ph_h)
/* PH_EACH(M): M(lane, component) for each of a vector's lanes (no private arrays: those the
 * NVIDIA compiler may keep in local memory) */
#define PH_EACH2(M) M(0, s0) M(1, s1)
#define PH_EACH4(M) PH_EACH2(M) M(2, s2) M(3, s3)
#define PH_EACH8(M) PH_EACH4(M) M(4, s4) M(5, s5) M(6, s6) M(7, s7)
#define PH_EACH16(M) PH_EACH8(M) M(8, s8) M(9, s9) M(10, sa) M(11, sb) M(12, sc) M(13, sd) M(14, se) M(15, sf)
#define PH_EACH(M) CAT(PH_EACH, VEC)(M)
/* lane l of frame vector k holds column c0 + l, c0 = k*VEC - h; inside the row: 0 <= c < n */
#define PH_IN(l) (c0 + (l) >= 0 && c0 + (l) < n)
#define PH_LD_LANE(l, s) if (PH_IN(l)) v.s = PH_LD1(row, c0 + (l));
#define PH_ST_LANE(l, s) if (PH_IN(l)) PH_ST1(row, c0 + (l), v.s);
#define DEFINE_PH_ACCESS(t)                                                                             \
    inline floatv CAT(ph_ldv_, t)(const __global STORAGE(t) *row, long k, long h, long n)                \
    {                                                                                                   \
        const long c0 = k * VEC - h;                                                                    \
        floatv v = 0.0f;                                                                                \
        PH_EACH(PH_LD_LANE)                                                                             \
        return v;                                                                                       \
    }                                                                                                   \
    inline void CAT(ph_stv_, t)(__global STORAGE(t) *row, long k, long h, long n, floatv v)             \
    {                                                                                                   \
        const long c0 = k * VEC - h;                                                                    \
        PH_EACH(PH_ST_LANE)                                                                             \
    }
#define PH_LD1(p, i) ld1_f32(p, i)
#define PH_ST1(p, i, x) st1_f32(p, i, x)
DEFINE_PH_ACCESS(f32)
#undef PH_LD1
#undef PH_ST1
#define PH_LD1(p, i) ld1_bf16(p, i)
#define PH_ST1(p, i, x) st1_bf16(p, i, x)
DEFINE_PH_ACCESS(bf16)
#undef PH_LD1
#undef PH_ST1
#define PH_LD1(p, i) ld1_f16(p, i)
#define PH_ST1(p, i, x) st1_f16(p, i, x)
DEFINE_PH_ACCESS(f16)
#undef PH_LD1
#undef PH_ST1
/* the raw form (CACHE_RAW) of a partial vector: 16-bit elements as stored, 0 outside the row */
inline uinth ph_ldr16(const __global ushort *row, long k, long h, long n)
{
    const long c0 = k * VEC - h;
    CAT(ushort, VN) v = (ushort)0;
#define PH_LD1(p, i) (p)[i]
    PH_EACH(PH_LD_LANE)
#undef PH_LD1
    return as_uinth(v);
}
#define ph_ldr_f32 ph_ldv_f32
inline uinth ph_ldr_bf16(const __global ushort *row, long k, long h, long n) { return ph_ldr16(row, k, h, n); }
inline uinth ph_ldr_f16(const __global half *row, long k, long h, long n)
{
    return ph_ldr16((const __global ushort *)row, k, h, n);
}
/* v with its lanes outside the row (columns < 0 or >= n) set to 0 */
#if VEC == 2
#define PH_LANE_IDS (int2)(0, 1)
#elif VEC == 4
#define PH_LANE_IDS (int4)(0, 1, 2, 3)
#elif VEC == 8
#define PH_LANE_IDS (int8)(0, 1, 2, 3, 4, 5, 6, 7)
#else
#define PH_LANE_IDS (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#endif
/* The weight or bias (wb: its first column) at the columns of frame vector k, as stored; sh:
 * where its phase is not the rows', how far its aligned vectors are ahead of the frame's ((w_off
 * - h) mod VEC, the same for the whole group). One aligned vector where sh is 0 inside the row,
 * else element by element. The backward reads these once per work-group (an item's columns are
 * the same in every row of its group's class) and keeps them in registers. (Session 22
 * shifted the two aligned vectors holding the columns together, a shuffle per vector of every
 * row; element by element won in every op on an H100 in session 24, e.g. the F32 forward at 1023
 * 0.39 -> 0.62 of the copy, and the funnel is gone.) */
#define DEFINE_PH_W(t)                                                                                  \
    inline RAWV(t) CAT(ph_wr_, t)(const __global STORAGE(t) *wb, long k, long h, long n, int sh)         \
    {                                                                                                   \
        const long c0 = k * VEC - h;                                                                    \
        if (sh == 0 && c0 >= 0 && c0 + VEC <= n)                                                        \
            return LDR(t, wb, c0);                                                                      \
        return CAT(ph_ldr_, t)(wb, k, h, n);                                                            \
    }
DEFINE_PH_W(f32)
DEFINE_PH_W(bf16)
DEFINE_PH_W(f16)
inline floatv ph_zero_outside(floatv v, long k, long h, long n)
{
    /* inside: lanes lo <= l < hi, bounds clamped to int */
    const long lo = h - k * VEC, hi = n + h - k * VEC;
    const int lo_i = (int)clamp(lo, -1L, (long)VEC), hi_i = (int)clamp(hi, -1L, (long)VEC + 1);
    return select((floatv)0.0f, v, (PH_LANE_IDS >= lo_i) & (PH_LANE_IDS < hi_i));
}
/* a vector of a dweight/dbias partial row (fp32, columns of vector k) stored, or added to what the
 * row holds (add), element by element: partial rows are cols floats apart */
inline void ph_part_st(__global float *row, long k, long h, long n, floatv v, bool add)
{
    const long c0 = k * VEC - h;
#define PH_PART_LANE(l, s) if (PH_IN(l)) row[c0 + (l)] = add ? row[c0 + (l)] + v.s : v.s;
    PH_EACH(PH_PART_LANE)
#undef PH_PART_LANE
}
/* row tensors: vector k of the frame of the row starting at row (element access) */
#ifdef PH_WIDE_LOADS
/* (host-set only, where every row tensor's buffer holds its last row's whole frame, layer_norm.c's
 * frame_fits; passed through CLNORM_BUILD_OPTIONS it would skip that check. A frame's first vector
 * starts at or after the buffer's aligned start anyway.) Every frame vector read whole, one
 * aligned access. Its lanes outside the row hold other elements of
 * the buffer (another row's, padding, whatever lies there), which PH_KEEP zeroes in the row sums
 * and dx's partial stores never write; dweight/dbias lanes outside the row are never stored
 * (ph_part_st). Only loads: outputs keep their element-by-element edges. An H100, session 30, BF16
 * fraction of the copy, element by element -> whole: backward_res 0.484 -> 0.910 at cols 3001,
 * 0.288 -> 0.781 at 511, 0.436 -> 0.539 at 1023; docs/PERFORMANCE.md) */
#define PLDV(t, row, k) LDV(t, row, (k) * VEC - ph_h)
#define PLDR(t, row, k) LDR(t, row, (k) * VEC - ph_h)
#else
#define PLDV(t, row, k) (PH_FULL(k) ? LDV(t, row, (k) * VEC - ph_h) : CAT(ph_ldv_, t)(row, k, ph_h, (long)cols))
#define PLDR(t, row, k) (PH_FULL(k) ? LDR(t, row, (k) * VEC - ph_h) : CAT(ph_ldr_, t)(row, k, ph_h, (long)cols))
#endif
#define PSTV(t, row, k, v)                                                                              \
    {                                                                                                   \
        if (PH_FULL(k))                                                                                 \
            STV(t, row, (k) * VEC - ph_h, v);                                                           \
        else                                                                                            \
            CAT(ph_stv_, t)(row, k, ph_h, (long)cols, v);                                               \
    }
/* the weight or bias (wb: its first column) at the columns of frame vector k, as stored (ph_wr;
 * sh: its phase against the rows') */
#define PWR(t, wb, sh, k) CAT(ph_wr_, t)(wb, k, ph_h, (long)cols, sh)
#define PH_KEEP(k, v) (PH_FULL(k) ? (v) : ph_zero_outside((v), (k), ph_h, (long)cols))
/* class-row index i of this group's phase class -> row; rows of class 0 (the most of any class).
 * The period is a power of two: shifts and masks, not 64-bit divisions (tens of instructions
 * each on a GPU) */
#define PH_ROW(i) (ph_c + ((ulong)(i) << ph_s))
#define PH_ROWS(n) (((n) + ph_p - 1) >> ph_s)
#define PH_BLOCKS_FIRST(n) ((ulong)get_group_id(0) >> ph_s)
#define PH_BLOCKS_END(n) (n)
#define PH_BLOCKS_STEP() ((ulong)get_num_groups(0) >> ph_s)
/* the kernel's phase variables, from x's offset and row stride (x_off, x_ld) */
#define PHASE_SETUP()                                                                                   \
    const ulong ph_p = phase_period(x_ld), ph_c = get_group_id(0) & (ph_p - 1);                         \
    const uint ph_s = popcount((uint)ph_p - 1u);                                                        \
    const long ph_h = (long)((x_off + ph_c * x_ld) % VEC);
#else
#define PLDV(t, row, k) LDV(t, row, (k) * VEC)
#define PLDR(t, row, k) LDR(t, row, (k) * VEC)
#define PSTV(t, row, k, v) STV(t, row, (k) * VEC, v);
/* (without PHASE: the weight or bias vector k, aligned) */
#define PWV(t, wb, sh, k) LDV(t, wb, (k) * VEC)
#define PH_KEEP(k, v) (v)
#define PH_ROW(i) (i)
#define PH_ROWS(n) (n)
#define PH_BLOCKS_FIRST(n) blocks_first(n)
#define PH_BLOCKS_END(n) blocks_end(n)
#define PH_BLOCKS_STEP() blocks_step()
#define PHASE_SETUP()
#endif

/* ---- horizontal sum of a vector, in a fixed (pairwise) order -------------------------------- */
inline float hsum2(float2 v) { return v.s0 + v.s1; }
inline float hsum4(float4 v) { return hsum2(v.lo) + hsum2(v.hi); }
inline float hsum8(float8 v) { return hsum4(v.lo) + hsum4(v.hi); }
inline float hsum16(float16 v) { return hsum8(v.lo) + hsum8(v.hi); }
#if VEC == 1
#define hsumv(v) (v)
#else
#define hsumv CAT(hsum, VEC)
#endif

/* ---- the horizontal sums of RPI rows' vectors at once: ROWS_HSUM(a) ------------------------
 * a[0..RPI) are RPI rows' sum vectors; the result holds row i's hsumv(a[i]) in lane i (a rowsv:
 * float for one row, floatRPI otherwise). Each level adds the even lanes to the odd ones, two
 * vectors at a time (PAIRV: [a's pair sums | b's pair sums]), which is the tree hsumv takes, so
 * every lane is bitwise that row's hsumv: the same bits as one row at a time. What it saves is
 * the scalar work: the horizontal sums of 4 rows take ~15 vector shuffles and adds instead of ~60
 * scalar extracts, permutes and adds, and the
 * divisions and the rsqrt that follow become one vector operation for all RPI rows instead of
 * RPI scalar ones (PoCL, short rows: scalar divisions and square roots took most of a row's time).
 * Where VEC is not 16 (narrowed vectors), the rows' sums are taken one by one. RPI is 1, 2 or 4. */
#define PAIRV(a, b) ((floatv)((a).even, (b).even) + (floatv)((a).odd, (b).odd))
#if RPI == 1
typedef float rowsv;
#define ROWS_LD(p) ((p)[0])
#define ROWS_ST(v, p) ((p)[0] = (v))
#define ROWS_HSUM(a) hsumv((a)[0])
#else
typedef CAT(float, RPI) rowsv;
#define ROWS_LD(p) CAT(vload, RPI)(0, p)
#define ROWS_ST(v, p) CAT(vstore, RPI)(v, 0, p)
#define ROWS_HSUM(a) CAT(rows_hsum, RPI)(a)
#if RPI != 2 && RPI != 4
#error "RPI must be 1, 2 or 4"
#endif
#if VEC == 16
inline float2 rows_hsum2(const floatv *a)
{
    const float8 q = PAIRV(a[0], a[1]).even + PAIRV(a[0], a[1]).odd; /* [a0 4 | a1 4] */
    const float4 r = q.even + q.odd;
    return r.even + r.odd;
}
inline float4 rows_hsum4(const floatv *a)
{
    const floatv q = PAIRV(PAIRV(a[0], a[1]), PAIRV(a[2], a[3])); /* [a0 4 | a1 4 | a2 4 | a3 4] */
    const float8 r = q.even + q.odd;
    return r.even + r.odd;
}
#else
inline float2 rows_hsum2(const floatv *a) { return (float2)(hsumv(a[0]), hsumv(a[1])); }
inline float4 rows_hsum4(const floatv *a) { return (float4)(hsumv(a[0]), hsumv(a[1]), hsumv(a[2]), hsumv(a[3])); }
#endif
#endif

/* ---- sum over the TPR work-items of one row slot --------------------------------------------
 * Every work-item of the work-group must call these (items of rows past the end pass 0): the
 * barriers sit in code whose path depends on compile-time constants only. Every item of the slot
 * gets the same, bitwise identical sum (fixed order; butterfly partners add a+b and b+a, which
 * IEEE addition makes equal).
 *   NV_SHFL (NVIDIA only, chosen by the host): butterfly over each warp with inline-PTX shuffles,
 *           then the warps' sums through local memory (one barrier).
 *   otherwise: one barrier, then each item sums its slot's values itself when TPR <= 32, or in
 *           two levels of 32 (two barriers) for wider slots. No log2(TPR)-deep barrier tree. */
#define RED_SIZE (WG + (WG + 31) / 32)

#ifdef NV_SHFL
inline float shfl_xor(float v, int mask)
{
    float r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(mask));
    return r;
}
#endif

/* TAIL: the closing barrier, which lets the next call reuse red. The _nb ("no barrier") variants
 * leave it out: their callers alternate between two buffers, so that the next write of a buffer
 * comes after the first barrier of a call on the other one, which no item passes before every item
 * has read the first buffer (a barrier less per row sum). */
#define DEFINE_ROW_SUM(NAME, T, SHFL)                                                                   \
    inline T NAME(T v, __local T *red)                                                                  \
    {                                                                                                   \
        const uint lid = get_local_id(0), lane = lid % TPR, base = lid - lane;                          \
        ROW_SUM_BODY(T, SHFL, barrier(CLK_LOCAL_MEM_FENCE);)                                            \
    }                                                                                                   \
    inline T CAT(NAME, _nb)(T v, __local T *red)                                                        \
    {                                                                                                   \
        const uint lid = get_local_id(0), lane = lid % TPR, base = lid - lane;                          \
        ROW_SUM_BODY(T, SHFL, )                                                                         \
    }

#if TPR == 1
#define ROW_SUM_BODY(T, SHFL, TAIL) (void)red; (void)lane; (void)base; return v;
#elif defined(NV_SHFL)
#define WARP_PART(SHFL) for (uint m = 1; m < (TPR < 32 ? TPR : 32); m <<= 1) v = v + SHFL(v, m);
#if TPR <= 32
#define ROW_SUM_BODY(T, SHFL, TAIL) (void)red; (void)base; WARP_PART(SHFL) return v;
#elif !defined(ROW_SUM_BFLY)
#define ROW_SUM_BODY(T, SHFL, TAIL)                                                                     \
    WARP_PART(SHFL)                                                                                     \
    if (lane % 32 == 0)                                                                                 \
        red[lid / 32] = v;                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    T s = red[base / 32];                                                                               \
    for (uint w = 1; w < TPR / 32; ++w)                                                                 \
        s += red[base / 32 + w];                                                                        \
    TAIL                                                                                                \
    return s;
#else
/* ROW_SUM_BFLY (host-chosen, long rows: params.c has the figures): lane i of every warp of the slot
 * takes warp i's sum (i modulo the next power of two p of TPR / 32; -0, the additive identity, past
 * them) and a butterfly over p lanes adds them: one load and log2(p) shuffles where the loop above
 * has TPR / 32 loads and adds in every item */
#define ROW_SUM_BODY(T, SHFL, TAIL)                                                                     \
    WARP_PART(SHFL)                                                                                     \
    if (lane % 32 == 0)                                                                                 \
        red[lid / 32] = v;                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    uint p_ = 1;                                                                                        \
    while (p_ < TPR / 32)                                                                               \
        p_ <<= 1;                                                                                       \
    const uint i_ = lid % 32 % p_;                                                                      \
    T s = i_ < TPR / 32 ? red[base / 32 + i_] : (T)(-0.0f);                                             \
    for (uint m = 1; m < p_; m <<= 1)                                                                   \
        s = s + SHFL(s, m);                                                                             \
    TAIL                                                                                                \
    return s;
#endif
#elif TPR <= 32
#define ROW_SUM_BODY(T, SHFL, TAIL)                                                                     \
    red[lid] = v;                                                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    T s = red[base];                                                                                    \
    for (uint i = 1; i < TPR; ++i)                                                                      \
        s += red[base + i];                                                                             \
    TAIL                                                                                                \
    return s;
#else
/* level 1: lane j < TPR/32 sums the slot's values j, j + TPR/32, ... (conflict-free strides) */
#define ROW_SUM_BODY(T, SHFL, TAIL)                                                                     \
    __local T *red2 = red + WG;                                                                         \
    red[lid] = v;                                                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    if (lane < TPR / 32) {                                                                              \
        T s = red[base + lane];                                                                         \
        for (uint i = 1; i < 32; ++i)                                                                   \
            s += red[base + i * (TPR / 32) + lane];                                                     \
        red2[base / 32 + lane] = s;                                                                     \
    }                                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    T s = red2[base / 32];                                                                              \
    for (uint w = 1; w < TPR / 32; ++w)                                                                 \
        s += red2[base / 32 + w];                                                                       \
    TAIL                                                                                                \
    return s;
#endif

#ifdef NV_SHFL
inline float2 shfl_xor2(float2 v, int mask) { return (float2)(shfl_xor(v.x, mask), shfl_xor(v.y, mask)); }
DEFINE_ROW_SUM(row_sum, float, shfl_xor)
DEFINE_ROW_SUM(row_sum2, float2, shfl_xor2)
inline float4 shfl_xor4(float4 v, int mask) { return (float4)(shfl_xor2(v.lo, mask), shfl_xor2(v.hi, mask)); }
inline float8 shfl_xor8(float8 v, int mask) { return (float8)(shfl_xor4(v.lo, mask), shfl_xor4(v.hi, mask)); }
DEFINE_ROW_SUM(row_sum4, float4, shfl_xor4)
DEFINE_ROW_SUM(row_sum8, float8, shfl_xor8)
#else
DEFINE_ROW_SUM(row_sum, float, unused)
DEFINE_ROW_SUM(row_sum2, float2, unused)
DEFINE_ROW_SUM(row_sum4, float4, unused)
DEFINE_ROW_SUM(row_sum8, float8, unused)
#endif
