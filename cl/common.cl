/* clnorm — definitions shared by every kernel: storage dtypes, vector loads/stores, reductions.
 *
 * Compile-time parameters (the host passes them with -D; the defaults below let the file build
 * on its own, e.g. for an offline compiler check):
 *   VEC     elements per vector load/store (1, 2, 4, 8, 16); the host guarantees that cols, every
 *           offset and every row stride of the vectorised tensors are multiples of VEC, so vector
 *           accesses are naturally aligned.
 *   TPR     work-items per row (power of two); the row's statistics are reduced over them.
 *   RPW     rows per work-group (row slots); the work-group size is TPR * RPW.
 *   NCACHE  vectors per work-item kept in registers, so a row that fits (cols <= TPR*VEC*NCACHE)
 *           is read from global memory once; 0 (CPU devices) streams the row from cache instead.
 *   T_<name> storage dtype of each tensor: f32, bf16 or f16.
 */
#ifndef VEC
#define VEC 1
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
#define WG (TPR * RPW)
/* Rows streamed from memory are summed in blocks of CHUNK vectors per item, so the fp32 rounding
 * error grows like CHUNK + n/CHUNK instead of n. */
#ifndef CHUNK
#define CHUNK 64
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
typedef CAT(uint, VN) uintv;
typedef CAT(ushort, VN) ushortv;
#define as_floatv CAT(as_float, VN)
#define as_uintv CAT(as_uint, VN)
#define convert_uintv CAT(convert_uint, VN)
#define convert_ushortv CAT(convert_ushort, VN)

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

/* ---- vector access: VEC elements starting at element i (a multiple of VEC) ------------------ */
#if VEC == 1
#define ldv_f32 ld1_f32
#define ldv_bf16 ld1_bf16
#define ldv_f16 ld1_f16
#define stv_f32 st1_f32
#define stv_bf16 st1_bf16
#define stv_f16 st1_f16
#else
inline floatv ldv_f32(const __global float *p, long i) { return *(const __global floatv *)(p + i); }
inline floatv ldv_bf16(const __global ushort *p, long i)
{
    return as_floatv(convert_uintv(*(const __global ushortv *)(p + i)) << 16);
}
inline floatv ldv_f16(const __global half *p, long i) { return CAT(vloada_half, VEC)(0, p + i); }
inline void stv_f32(__global float *p, long i, floatv v) { *(__global floatv *)(p + i) = v; }
inline void stv_bf16(__global ushort *p, long i, floatv v)
{
    uintv u = as_uintv(v);
    uintv r = (u + (uintv)0x7FFFu + ((u >> 16) & (uintv)1u)) >> 16;
    uintv q = (u >> 16) | (uintv)0x40u;
    /* isnan gives -1 (all bits) per true lane for vectors: select's mask. */
    r = select(r, q, as_uintv(isnan(v)));
    *(__global ushortv *)(p + i) = convert_ushortv(r);
}
inline void stv_f16(__global half *p, long i, floatv v) { CAT(CAT(vstorea_half, VEC), _rte)(v, 0, p + i); }
#endif
#define LDV(t, p, i) CAT(ldv_, t)(p, i)
#define STV(t, p, i, v) CAT(stv_, t)(p, i, v)

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

/* ---- sum over the TPR work-items of one row slot --------------------------------------------
 * Every work-item of the work-group must call these (items of rows past the end pass 0): the
 * barriers sit in loops whose trip count is the compile-time TPR, never item-dependent. */
inline float row_sum(float v, __local float *red)
{
#if TPR == 1
    (void)red;
    return v;
#else
    const uint lid = get_local_id(0), lane = lid % TPR;
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = TPR / 2; s > 0; s >>= 1) {
        if (lane < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float r = red[lid - lane];
    barrier(CLK_LOCAL_MEM_FENCE); /* red is reused by the next call */
    return r;
#endif
}

inline float2 row_sum2(float2 v, __local float2 *red)
{
#if TPR == 1
    (void)red;
    return v;
#else
    const uint lid = get_local_id(0), lane = lid % TPR;
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = TPR / 2; s > 0; s >>= 1) {
        if (lane < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float2 r = red[lid - lane];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
#endif
}
