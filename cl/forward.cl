/* clnorm — LayerNorm forward. Needs kernel_args.h and common.cl before it.
 *
 * RPW row slots of TPR work-items each per work-group; a work-group takes blocks of RPW rows.
 * Pass 1: mean, summing (x - x[0]) so that a large common offset (mean 1e4, std 1) does not eat
 *         the fp32 mantissa; pass 2: the variance around that mean (two-pass, never E[x^2]-E[x]^2);
 *         pass 3: y = (x - mean) * rstd [* w] [+ b], rounded once to y's dtype.
 * NCACHE > 0: the host guarantees cols <= TPR*VEC*NCACHE, and the row is read once into registers.
 * NCACHE == 0 (long rows, and the CPU shape): the row is read three times, the later reads hitting
 * cache; with FWD_CHAN (below) twice, the mean and the variance from the first read. The choice
 * is made at compile time so that the kernel holds one path only (its register count is that
 * path's, not the largest of all paths).
 */
#ifndef T_X
#define T_X f32
#endif
#ifndef T_Y
#define T_Y f32
#endif
#ifndef T_W
#define T_W f32
#endif
#ifndef T_B
#define T_B f32
#endif

/* FWD_CHAN (host-chosen: long rows that stream, each item holding the same number of vectors, TPR a
 * power of two): the mean and the variance from one read of the row instead of two. Each item
 * takes its vectors FWD_CHAN at a time, sums the chunk's squares around the chunk's own mean (two
 * passes over registers), and merges the chunks' (mean, M2) into its own by Chan, Golub and
 * LeVeque's formula, M2 being the sum of squared deviations: for parts a, b of na, nb elements,
 * mean = ma + d nb / n, M2 = M2a + M2b + d^2 na nb / n with d = mb - ma, n = na + nb. Every term
 * is a sum of squares around a mean, never E[x^2] - E[x]^2. The items' parts, all of equal size,
 * are then merged pairwise across the slot, as the row sums are; with equal sizes the formula is
 * symmetric in a and b (chan_pair), so butterfly partners get the same bits. The row is then read
 * once more, for y: two reads instead of three (on the H200 the later reads came from L2 at
 * close to the cost of a read from memory). */
#ifdef FWD_CHAN
#if NCACHE != 0 || defined(PIPE) || defined(LOCAL_ROW) || (TPR & (TPR - 1)) != 0
#error "FWD_CHAN is for the streaming shape with TPR a power of two"
#endif
/* two parts of n elements each, as (mean, M2) */
inline float2 chan_pair(float2 a, float2 b, float n)
{
    const float d = b.x - a.x;
    return (float2)((a.x + b.x) * 0.5f, (a.y + b.y) + d * d * (0.5f * n));
}
/* The (mean, M2) of the slot's row from its items' (n elements each): every item of the slot gets
 * the same bits. Every item of the work-group calls it: its barriers sit in code whose path
 * depends on compile-time constants only. It ends with a barrier, so that the next row may write cr. */
inline float2 row_chan(float2 v, float n, __local float2 *cr)
{
    const uint lid = get_local_id(0), lane = lid % TPR, base = lid - lane;
#if TPR == 1
    (void)cr;
    (void)lane;
    (void)base;
    (void)n;
    return v;
#elif defined(NV_SHFL)
    for (uint m = 1; m < (TPR < 32 ? TPR : 32); m <<= 1, n *= 2.0f)
        v = chan_pair(v, shfl_xor2(v, (int)m), n);
#if TPR > 32
    if (lane % 32 == 0)
        cr[lid / 32] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* lane i of every warp takes warp i's part (i modulo the slot's TPR / 32 warps), then a butterfly */
    v = cr[base / 32 + lid % 32 % (TPR / 32)];
    for (uint m = 1; m < TPR / 32; m <<= 1, n *= 2.0f)
        v = chan_pair(v, shfl_xor2(v, (int)m), n);
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    (void)cr;
    (void)lane;
    (void)base;
#endif
    return v;
#else
    /* a tree in local memory, log2(TPR) levels */
    cr[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = TPR / 2; s > 0; s >>= 1, n *= 2.0f) {
        if (lane < s)
            cr[lid] = chan_pair(cr[lid], cr[lid + s], n);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    v = cr[base];
    barrier(CLK_LOCAL_MEM_FENCE);
    return v;
#endif
}
#endif

/* FWD_ROWWISE_BYTES (host-set from the table, CPUs): the local row's pass 3 (y) goes row by row
 * where the local row takes at most this many bytes, else vector by vector across its rows */
#ifndef FWD_ROWWISE_BYTES
#define FWD_ROWWISE_BYTES 0
#endif
#define FWD_WEIGHT 1u
#define FWD_BIAS 2u
#define FWD_MEAN 4u
#define FWD_RSTD 8u

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clnorm_forward(FWD_ARGS, const __global STORAGE(T_X) *x, const __global STORAGE(T_W) *w,
                    const __global STORAGE(T_B) *b, __global STORAGE(T_Y) *y, __global float *mean,
                    __global float *rstd
#ifdef LOCAL_ROW
                    , __local float *lrow
#endif
                    )
{
    /* the by-value arguments (cl/kernel_args.h's slots) under their own names */
    const ulong rows = KARG(args, FA_ROWS), cols = KARG(args, FA_COLS), x_off = KARG(args, FA_X_OFF),
                x_ld = KARG(args, FA_X_LD), w_off = KARG(args, FA_W_OFF), b_off = KARG(args, FA_B_OFF),
                y_off = KARG(args, FA_Y_OFF), y_ld = KARG(args, FA_Y_LD), mean_off = KARG(args, FA_MEAN_OFF),
                rstd_off = KARG(args, FA_RSTD_OFF);
    const float eps = as_float((uint)KARG(args, FA_EPS_FLAGS));
    const uint flags = (uint)(KARG(args, FA_EPS_FLAGS) >> 32);
#ifdef FWD_CHAN
    __local float2 chan_red[WG];
#else
    /* two buffers: the mean's and the variance's sums (row_sum_nb) */
    __local float red[2 * RED_SIZE];
#endif
    const uint lid = get_local_id(0);
    const long lane = lid % TPR;
    const __global STORAGE(T_W) *wr = w + w_off;
    const __global STORAGE(T_B) *br = b + b_off;
    const long nv = (long)(cols / VEC);
#if NCACHE > 0
#ifdef CACHE_RAW
    /* 16-bit x kept as stored (half the registers), converted where used: more rows per compute
     * unit where registers bound them */
    RAWV(T_X) xc[NCACHE];
#define XC(j) (CVR(T_X, xc[j]) - shift)
#define XLOAD(p, e) LDR(T_X, p, e)
#define XLOADED_T RAWV(T_X)
#else
    floatv xc[NCACHE];
#define XC(j) xc[j]
#define XLOAD(p, e) LDV(T_X, p, e)
#define XLOADED_T floatv
#endif
#endif
#if defined(PIPE) && NCACHE == 0
#error "PIPE needs the register cache"
#endif
#if defined(UNALIGNED) && (defined(PIPE) || defined(FWD_CHAN))
#error "UNALIGNED is for the streaming shape (its tail is summed apart)"
#endif
#ifdef PHASE
/* (row phases are the backward's: the phased forward lost to the narrowed one on the H200 and the
 * H100 in every form tried, and went in 0.20.0; docs/PERFORMANCE.md, sessions 22-27) */
#error "PHASE is for the backward"
#endif
#ifdef LOCAL_ROW
    /* CPUs, streaming rows (one item per row and group): the weight and bias are converted to fp32
     * once per group and the row once per row, into local memory ((2 + RPI) * LCOLS(cols) floats, the host's
     * argument), so the second and third passes read fp32 from the L1 cache and the last one is
     * one fma (bf16 at cols 256: compute-bound, 3 conversions per element and 2 per weight/bias
     * element otherwise). */
#if TPR != 1 || RPW != 1 || NCACHE != 0
#error "LOCAL_ROW is for the streaming one-item-per-row shape"
#endif
    const long lc = (long)LCOLS(cols); /* from one local row to the next: whole vectors */
    __local float *lw = lrow, *lb = lrow + lc, *lx = lrow + 2 * lc;
    for (long k = 0; k < nv; ++k) {
        *(__local floatv *)(lw + k * VEC) = (flags & FWD_WEIGHT) ? LDV(T_W, wr, k * VEC) : (floatv)1.0f;
        /* -0, the additive identity (a -0 product stays -0, as without a bias) */
        *(__local floatv *)(lb + k * VEC) = (flags & FWD_BIAS) ? LDV(T_B, br, k * VEC) : (floatv)(-0.0f);
    }
    TAIL_FOR(e) {
        lw[e] = (flags & FWD_WEIGHT) ? LD1(T_W, wr, e) : 1.0f;
        lb[e] = (flags & FWD_BIAS) ? LD1(T_B, br, e) : -0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* The local row's own loop: RPI rows side by side (1, 2 or 4), each pass going over the RPI
     * rows at once, so that at short rows their chains of dependent steps (sums, horizontal adds,
     * division, rsqrt) overlap, where one row at a time left the core waiting on them; and pass 3
     * prefetches the item's next rows (PoCL, AVX2 host, bf16, 2^26 elements, ms, the one-row
     * loop this replaced -> this one: two rows at cols 256 14.35 -> 12.26, 512 11.66 -> 11.02,
     * 1024 11.34 -> 10.47; one row at 2048 13.6 -> 11.0, 4096 13.4 -> 10.4, 8192 14.6 -> 10.8; two
     * rows without the prefetch at 256: 17.0). A row past the end repeats the block's first row
     * and is never stored. The sums keep the blocked order of the loop below, with two partial
     * sums a row instead of four. FWD_PREFETCH (host-set on PoCL x86) is __builtin_prefetch, a
     * clang builtin. */
#define XR(i, k) (*(__local floatv *)(lx + (i) * lc + (k) * VEC))
#define XR1(i, e) lx[(i) * lc + (e)]
#define XR_FIRST(i, k) (XR(i, k) = LDV(T_X, xr[i], (k) * VEC) - shift[i])
#define SQ_DEV(i, k) ((XR(i, k) - dmean[i]) * (XR(i, k) - dmean[i]))
/* acc[i] += the sum of TERM(i, k) over row i's vectors, in blocks of CHUNK vectors with two partial
 * sums each (the blocked order of the loop below) */
#define ROWS_BLOCKED_SUM(TERM)                                                                   \
    for (long k0 = 0; k0 < nv; k0 += CHUNK) {                                                    \
        floatv p0[RPI], p1[RPI];                                                                 \
        _Pragma("unroll") for (int i = 0; i < RPI; ++i) p0[i] = p1[i] = 0.0f;                    \
        const long k1 = min(nv, k0 + CHUNK);                                                     \
        long k = k0;                                                                             \
        for (; k + 1 < k1; k += 2) {                                                             \
            _Pragma("unroll") for (int i = 0; i < RPI; ++i) {                                    \
                p0[i] += TERM(i, k);                                                             \
                p1[i] += TERM(i, k + 1);                                                         \
            }                                                                                    \
        }                                                                                        \
        if (k < k1) {                                                                            \
            _Pragma("unroll") for (int i = 0; i < RPI; ++i) p0[i] += TERM(i, k);                 \
        }                                                                                        \
        _Pragma("unroll") for (int i = 0; i < RPI; ++i) acc[i] += p0[i] + p1[i];                 \
    }
    const ulong nblocks = (rows + RPI - 1) / RPI;
    const ulong blk_end = blocks_end(nblocks);
#ifdef FWD_PREFETCH
    /* the rows pass 3 prefetches: pf_ahead rows ahead (whole blocks, at least one), at least
     * PF_BYTES of x */
    const ulong pf_ahead = (1 + PF_BYTES / ((ulong)RPI * cols * sizeof(STORAGE(T_X)))) * blocks_step() * RPI;
    /* blocks of at least PF_L2_BYTES of x: prefetched into L2 only (see common.cl) */
    const bool pf_l2 = PF_L2_BYTES && (ulong)RPI * cols * sizeof(STORAGE(T_X)) >= PF_L2_BYTES;
#else
    const bool pf_l2 = false;
#endif
    /* pass 3 row by row where the local row takes at most FWD_ROWWISE_BYTES, else vector by vector;
     * UNALIGNED rows always row by row (bf16 at 16384 x 4095, 2 rows per item, 64 KiB: 23.5 ms
     * vector by vector, whose unaligned stores go to two rows in turn; 15.1 row by row) */
#ifdef UNALIGNED
    const bool rowwise = true;
#else
    const bool rowwise = (ulong)(2 + RPI) * lc * sizeof(float) <= FWD_ROWWISE_BYTES;
#endif
    for (ulong blk = blocks_first(nblocks); blk < blk_end; blk += blocks_step()) {
        const ulong row0 = blk * RPI;
        const __global STORAGE(T_X) *xr[RPI];
        float shift[RPI], dmean[RPI], rs[RPI], tail[RPI];
        floatv acc[RPI];
        bool valid[RPI];
#ifdef FWD_PREFETCH
        /* the rows pf_ahead ahead, the item's block pf_ahead / RPI after this one (the last row
         * where there is none) */
        const __global STORAGE(T_X) *xn[RPI];
#endif
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            valid[i] = i == 0 || row0 + i < rows; /* row0 < rows */
            xr[i] = x + x_off + (valid[i] ? row0 + i : row0) * x_ld;
            shift[i] = LD1(T_X, xr[i], 0);
            acc[i] = 0.0f;
            tail[i] = -0.0f;
#ifdef FWD_PREFETCH
            const ulong rn = row0 + pf_ahead + i;
            xn[i] = x + x_off + (rn < rows ? rn : rows - 1) * x_ld;
#endif
        }
        ROWS_BLOCKED_SUM(XR_FIRST)
        TAIL_FOR(e) {
#pragma unroll
            for (int i = 0; i < RPI; ++i)
                tail[i] += (XR1(i, e) = LD1(T_X, xr[i], e) - shift[i]);
        }
        /* mean - shift, the RPI rows at once (ROWS_HSUM: bitwise row by row's sums) */
        ROWS_ST((ROWS_HSUM(acc) + ROWS_LD(tail)) / (float)cols, dmean);
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            acc[i] = 0.0f;
            tail[i] = -0.0f;
        }
        ROWS_BLOCKED_SUM(SQ_DEV)
        TAIL_FOR(e) {
#pragma unroll
            for (int i = 0; i < RPI; ++i)
                tail[i] += (XR1(i, e) - dmean[i]) * (XR1(i, e) - dmean[i]);
        }
        ROWS_ST(rsqrt((ROWS_HSUM(acc) + ROWS_LD(tail)) / (float)cols + eps), rs);
        /* y may be x (in place): pass 3 reads the rows from local memory. Where the local row is
         * small (rowwise), row by row: each row's stores one run of consecutive addresses, which
         * non-temporal stores fill line by line (bf16, 2^26 elements, ms, three alternations,
         * vector by vector -> row by row: cols 256 13.40 / 13.86 / 14.92 -> 11.68 / 11.69 / 11.94,
         * 1024 11.07 / 13.30 / 13.57 -> 9.93 / 10.14 / 10.32); where it is large, vector by
         * vector across its rows, reading each weight and bias vector once for all of them
         * (row by row, they were read again per row, past L1: cols 4096, 64 KiB, 10.01-10.51 ->
         * 11.41-11.75; 2048, 32 KiB, even). The item's next rows are prefetched into L2 where a
         * block is long (pf_l2). Each loop is chosen once per block. */
#ifdef FWD_PREFETCH
#define PF_L1(p) __builtin_prefetch(p)
#define PF_L2(p) __builtin_prefetch((p), 0, 2)
#else
#define PF_L1(p)
#define PF_L2(p)
#endif
/* (one element e of row i, to its output row yr) */
#define Y1_LOCAL(i, yr, e) ST1(T_Y, yr, e, fma((XR1(i, e) - dmean[i]) * rs[i], lw[e], lb[e]))
/* (UNALIGNED: each row's output in its head, aligned vectors and tail, common.cl's OUT_HEAD; the
 * local row is read at the same columns) */
#define PASS3_ROWS(PF)                                                                           \
    _Pragma("unroll") for (int i = 0; i < RPI; ++i) {                                            \
        if (!valid[i])                                                                           \
            continue;                                                                            \
        __global STORAGE(T_Y) *yr = y + y_off + (row0 + i) * y_ld;                               \
        const long hd = OUT_HEAD(yr);                                                            \
        HEAD_FOR(e, hd)                                                                          \
            Y1_LOCAL(i, yr, e);                                                                  \
        for (long k = 0; k < OUT_NV(yr, hd); ++k) {                                              \
            PF(xn[i] + k * VEC);                                                                 \
            const long e = hd + k * VEC;                                                         \
            const floatv wv = LDL(lw, e), bv = LDL(lb, e);                                       \
            STV(T_Y, yr, e, fma((LDL(lx + i * lc, e) - dmean[i]) * rs[i], wv, bv));              \
        }                                                                                        \
        OUT_TAIL_FOR(e, yr, hd)                                                                  \
            Y1_LOCAL(i, yr, e);                                                                  \
    }
#define PASS3_VECS(PF)                                                                           \
    for (long k = 0; k < nv; ++k) {                                                              \
        const floatv wv = *(__local floatv *)(lw + k * VEC), bv = *(__local floatv *)(lb + k * VEC); \
        _Pragma("unroll") for (int i = 0; i < RPI; ++i) {                                        \
            PF(xn[i] + k * VEC);                                                                 \
            const floatv v = fma((XR(i, k) - dmean[i]) * rs[i], wv, bv);                         \
            if (valid[i])                                                                        \
                STV(T_Y, y + y_off + (row0 + i) * y_ld, k * VEC, v);                             \
        }                                                                                        \
    }
        if (rowwise) {
            if (pf_l2) {
                PASS3_ROWS(PF_L2)
            } else {
                PASS3_ROWS(PF_L1)
            }
        } else {
            if (pf_l2) {
                PASS3_VECS(PF_L2)
            } else {
                PASS3_VECS(PF_L1)
            }
            TAIL_FOR(e) {
#pragma unroll
                for (int i = 0; i < RPI; ++i)
                    if (valid[i])
                        Y1_LOCAL(i, y + y_off + (row0 + i) * y_ld, e);
            }
        }
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            if (valid[i]) {
                if (flags & FWD_MEAN)
                    mean[mean_off + row0 + i] = shift[i] + dmean[i];
                if (flags & FWD_RSTD)
                    rstd[rstd_off + row0 + i] = rs[i];
            }
        }
    }
    (void)red;
#else /* not LOCAL_ROW */
#if RPI > 1
#error "RPI > 1 is for the local row's shape"
#endif
/* x - shift of vector k (the streaming path reads the row three times, the later reads from cache) */
#define XS(k) (LDV(T_X, xr, (k) * VEC) - shift)
    const ulong nblocks = (rows + RPW - 1) / RPW;
    /* Usually one block per work-group; the host caps the grid for huge row counts, and on CPUs
     * may make it persistent (a few groups, each taking one contiguous range of row blocks). The
     * trip count depends on the work-group only, so every item reaches the same barriers. */
    const ulong blk_end = blocks_end(nblocks);
#ifdef PIPE
    /* Software pipeline (persistent grids): each item issues the loads of its next row block
     * before this block's two reductions (with their barriers) and its stores, so the memory
     * system stays busy across them; one more set of cache registers. Rows past the end load row
     * 0 (it exists; the values are never used, as for the row's padding vectors, which load the
     * row's first vector), so the loads stay unconditional and can all be issued at once. */
    XLOADED_T xn[NCACHE];
    float shn;
#define LOAD_ROW(R)                                                                              \
    {                                                                                            \
        const __global STORAGE(T_X) *p_ = x + x_off + ((R) < rows ? (R) : 0) * x_ld;        \
        shn = LD1(T_X, p_, 0);                                                                   \
        _Pragma("unroll") for (int j = 0; j < NCACHE; ++j) {                                     \
            const long k = lane + (long)j * TPR;                                                 \
            xn[j] = XLOAD(p_, (k < nv ? k : 0) * VEC);                                           \
        }                                                                                        \
    }
    {
        const ulong b0 = blocks_first(nblocks);
        LOAD_ROW(b0 < blk_end ? b0 * RPW + lid / TPR : rows)
    }
#endif
    for (ulong blk = blocks_first(nblocks); blk < blk_end; blk += blocks_step()) {
        const ulong row = blk * RPW + lid / TPR;
        const bool valid = row < rows;
#ifdef FWD_CHAN
        const __global STORAGE(T_X) *xr = x + x_off + (valid ? row : 0) * x_ld;
        /* x - x[0], as in the three-read path: a large common offset (mean 1e4, std 1) stays out of
         * the sums, and a constant row gives mean x[0] and M2 = 0 exactly (summing x itself, 3 x 0.1f
         * rounds: M2 > 0, and with eps = 0 a finite rstd where +Inf is documented) */
        const float shift = valid ? LD1(T_X, xr, 0) : 0.0f;
        float2 ms = (float2)(0.0f, 0.0f);
        if (valid) {
            float nr = 0.0f;
            /* the host makes nv a multiple of FWD_CHAN * TPR: every chunk is whole */
            for (long k0 = lane; k0 < nv; k0 += FWD_CHAN * TPR) {
                floatv c[FWD_CHAN], s = 0.0f;
#pragma unroll
                for (int j = 0; j < FWD_CHAN; ++j) {
                    c[j] = LDV(T_X, xr, (k0 + (long)j * TPR) * VEC) - shift;
                    s += c[j];
                }
                const float nc = (float)(FWD_CHAN * VEC), cm = hsumv(s) / nc;
                floatv q = 0.0f;
#pragma unroll
                for (int j = 0; j < FWD_CHAN; ++j) {
                    const floatv d = c[j] - cm;
                    q += d * d;
                }
                const float nt = nr + nc, d = cm - ms.x, wt = nr * (nc / nt);
                ms.x += d * (nc / nt);
                /* (d * wt) * d: exactly 0 for the first chunk (wt = 0), where d * d * wt would be
                 * Inf * 0 = NaN for a chunk mean beyond ~1.8e19 */
                ms.y += hsumv(q) + (d * wt) * d;
                nr = nt;
            }
        }
        ms = row_chan(ms, (float)((nv / TPR) * VEC), chan_red);
        const float dmean = ms.x; /* mean - shift */
        const float rs = rsqrt(ms.y / (float)cols + eps);
#else /* not FWD_CHAN */
        float tail = -0.0f; /* UNALIGNED: the sum over the row's elements past its whole vectors */
#ifdef PIPE
        const float shift = shn;
#pragma unroll
        for (int j = 0; j < NCACHE; ++j)
#ifdef CACHE_RAW
            xc[j] = xn[j];
#else
            xc[j] = xn[j] - shift;
#endif
        {
            const ulong nb = blk + blocks_step();
            LOAD_ROW(nb < blk_end ? nb * RPW + lid / TPR : rows)
        }
#ifdef NV_PREFETCH
        /* the block after that into L2 (host-chosen, NVIDIA): the memory system then has a second
         * row in flight while this one's reductions and stores run (three blocks ahead was slower) */
        {
            const ulong pb = blk + 2 * blocks_step(), pr = pb * RPW + lid / TPR;
            if (pb < blk_end && pr < rows)
                PREFETCH_ROW(x + x_off + pr * x_ld, cols * sizeof(STORAGE(T_X)), lane)
        }
#endif
        floatv acc = 0.0f;
        if (valid) {
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                const long k = lane + (long)j * TPR;
                if (k < nv)
                    acc += XC(j);
            }
        }
#else
        const __global STORAGE(T_X) *xr = x + x_off + (valid ? row : 0) * x_ld;
        const float shift = valid ? LD1(T_X, xr, 0) : 0.0f;

        floatv acc = 0.0f;
        if (valid) {
#if NCACHE > 0
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                const long k = lane + (long)j * TPR;
#ifdef CACHE_RAW
                /* past the row's end: the row's first vector again, masked out of the sums */
                xc[j] = LDR(T_X, xr, (k < nv ? k : 0) * VEC);
                if (k < nv)
                    acc += XC(j);
#else
                xc[j] = k < nv ? LDV(T_X, xr, k * VEC) - shift : (floatv)0.0f;
                acc += xc[j];
#endif
            }
#else
            {
                for (long k0 = lane; k0 < nv; k0 += CHUNK * TPR) { /* blocked sum: error ~ CHUNK + n/CHUNK */
                    floatv p0 = 0.0f, p1 = 0.0f, p2 = 0.0f, p3 = 0.0f;
                    const long k1 = min(nv, k0 + CHUNK * TPR);
                    long k = k0;
                    /* four independent sums: one chain of dependent adds was the CPU's limit */
                    for (; k + 3 * TPR < k1; k += 4 * TPR) {
                        p0 += XS(k);
                        p1 += XS(k + TPR);
                        p2 += XS(k + 2 * TPR);
                        p3 += XS(k + 3 * TPR);
                    }
                    for (; k < k1; k += TPR)
                        p0 += XS(k);
                    acc += (p0 + p1) + (p2 + p3);
                }
                TAIL_FOR(e)
                    tail += LD1(T_X, xr, e) - shift;
            }
#endif
        }
#endif /* PIPE */
        const float dmean = row_sum_nb(hsumv(acc) + tail, red) / (float)cols; /* mean - shift */

        acc = 0.0f;
        tail = -0.0f;
        if (valid) {
#if NCACHE > 0
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                const long k = lane + (long)j * TPR;
                const floatv d = XC(j) - dmean;
                if (k < nv)
                    acc += d * d;
            }
#else
            {
                for (long k0 = lane; k0 < nv; k0 += CHUNK * TPR) {
                    floatv p0 = 0.0f, p1 = 0.0f, p2 = 0.0f, p3 = 0.0f;
                    const long k1 = min(nv, k0 + CHUNK * TPR);
                    long k = k0;
                    for (; k + 3 * TPR < k1; k += 4 * TPR) {
                        const floatv d0 = XS(k) - dmean;
                        const floatv d1 = XS(k + TPR) - dmean;
                        const floatv d2 = XS(k + 2 * TPR) - dmean;
                        const floatv d3 = XS(k + 3 * TPR) - dmean;
                        p0 += d0 * d0;
                        p1 += d1 * d1;
                        p2 += d2 * d2;
                        p3 += d3 * d3;
                    }
                    for (; k < k1; k += TPR) {
                        const floatv d = XS(k) - dmean;
                        p0 += d * d;
                    }
                    acc += (p0 + p1) + (p2 + p3);
                }
                TAIL_FOR(e) {
                    const float d = LD1(T_X, xr, e) - shift - dmean;
                    tail += d * d;
                }
            }
#endif
        }
        const float var = row_sum_nb(hsumv(acc) + tail, red + RED_SIZE) / (float)cols;
        const float rs = rsqrt(var + eps);
#endif /* FWD_CHAN */

        if (valid) {
            __global STORAGE(T_Y) *yr = y + y_off + row * y_ld;
#if NCACHE > 0
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                const long k = lane + (long)j * TPR;
                if (k < nv) {
                    floatv v = (XC(j) - dmean) * rs;
                    if (flags & FWD_WEIGHT)
                        v *= LDV(T_W, wr, k * VEC);
                    if (flags & FWD_BIAS)
                        v += LDV(T_B, br, k * VEC);
                    STV(T_Y, yr, k * VEC, v);
                }
            }
#else
            {
                /* y may be x (in place): each element is read and written by the same item.
                 * (UNALIGNED: head, aligned vectors, tail, common.cl's OUT_HEAD) */
#define Y1_STREAM(e)                                                                             \
    {                                                                                            \
        float v = (LD1(T_X, xr, e) - shift - dmean) * rs;                                        \
        if (flags & FWD_WEIGHT)                                                                  \
            v *= LD1(T_W, wr, e);                                                                \
        if (flags & FWD_BIAS)                                                                    \
            v += LD1(T_B, br, e);                                                                \
        ST1(T_Y, yr, e, v);                                                                      \
    }
                const long hd = OUT_HEAD(yr);
                HEAD_FOR(e, hd)
                    Y1_STREAM(e)
                for (long k = lane; k < OUT_NV(yr, hd); k += TPR) {
                    const long e = hd + k * VEC;
                    floatv v = (LDV(T_X, xr, e) - shift - dmean) * rs;
                    if (flags & FWD_WEIGHT)
                        v *= LDV(T_W, wr, e);
                    if (flags & FWD_BIAS)
                        v += LDV(T_B, br, e);
                    STV(T_Y, yr, e, v);
                }
                OUT_TAIL_FOR(e, yr, hd)
                    Y1_STREAM(e)
            }
#endif
            if (lane == 0) {
                if (flags & FWD_MEAN)
                    mean[mean_off + row] = shift + dmean;
                if (flags & FWD_RSTD)
                    rstd[rstd_off + row] = rs;
            }
        }
    }
#endif /* LOCAL_ROW */
    NT_FENCE();
}
