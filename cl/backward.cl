/* clnorm — LayerNorm backward: dx (with the fused residual gradient) and the per-slot fp32 partial
 * sums of dweight/dbias. Needs kernel_args.h and common.cl before it.
 *
 * A persistent grid: work-group g handles the row blocks g, g + G, g + 2G, ... (G work-groups,
 * RPW*RPI rows a block: RPW row slots of TPR items, each item taking RPI rows at once). The
 * workspace holds P = G*RPW partial rows for dweight, then P for dbias:
 *   part[p*cols + c]            sum of dy*xhat over the rows of slot p  (dweight)
 *   part[(P + p)*cols + c]      sum of dy over the rows of slot p       (dbias)
 * At the end each work-group adds its slots into its slot 0's row (p = g*RPW), in slot order, and
 * writes it whole (zeros when it had no row), so reduce.cl sums G rows in a fixed order: no
 * atomics, bitwise repeatable.
 * dx = rstd * (g - mean_c(g) - xhat * mean_c(g*xhat)) [+ dres], summed in fp32, rounded once.
 *
 * Three regimes, chosen by the host at compile time (so the kernel holds one path, and its
 * register count is that path's):
 *   NCACHE > 0   cols <= TPR*VEC*NCACHE: the rows stay in registers, x and dy are read once;
 *                as x-hat and g (fp32), or with CACHE_RAW as x and dy in their storage format
 *                (16-bit data in half the registers; x-hat and g are recomputed for dx); with
 *                NACC_LOCAL, that many of each item's sum vectors are in local memory (registers
 *                for the cached row);
 *   NACC > 0     cols <= TPR*VEC*NACC: the dweight/dbias sums stay in registers, x and dy are
 *                read twice (the second read mostly from cache); with NACC_LOCAL, that many of
 *                each item's sum vectors are in local memory instead (registers for DXB);
 *   otherwise    the sums are accumulated in the workspace row itself.
 * RPI (1, 2 or 4; register-cache and streaming regimes) rows per item at once: one item's
 * dweight/dbias sums serve RPI rows, so more bytes are in flight per register (what bounds a 16-bit
 * backward on a GPU), or one read-modify-write of the workspace row serves RPI rows (streaming, a
 * CPU's long rows). PARTIALS 0 (calls without dweight and dbias) drops those sums altogether.
 * COLSWEEP (with PARTIALS 0; host-chosen): dweight/dbias summed by columns instead, see below.
 */
#ifndef T_X
#define T_X f32
#endif
#ifndef T_W
#define T_W f32
#endif
#ifndef T_DY
#define T_DY f32
#endif
#ifndef T_DR
#define T_DR f32
#endif
#ifndef T_DX
#define T_DX f32
#endif
#ifndef NACC
#define NACC NCACHE
#endif
#if NACC < NCACHE
#error "NACC must be >= NCACHE"
#endif
#ifndef PARTIALS
#define PARTIALS 1
#endif
/* NV_PREFETCH's rows. By default each block asks L2 for the next block's x and dy rows at its
 * start. PF_CUR 1 (host-set with PF_LATE 1, launch flag pf_cur: fp32 rows read twice beside the
 * sums in registers, all-16-bit ones with a residual gradient): this block's x and dy rows too, at
 * its start, so that the loads of a row that cannot all be in flight at once (the sums fill the
 * registers) find L2; PF_LATE 1: the next block's rows after this block's first read instead of at
 * its start, beside its row sums and dx pass (which read L2) rather than beside its first read
 * (which reads memory); PF_DR 2 (with PF_CUR; host-set where the table's prefetch16_cur_dr asks for
 * it: 16-bit rows cached, the residual gradient not loaded early): this block's residual-gradient
 * rows too, which the dx pass reads after the row sums. PF_NEXT 0 (an experiment, through
 * CLNORM_BUILD_OPTIONS only): none of the next block's. (Session 45's other switches, parts of
 * each next row, x's alone, the next block's residual gradient, lost or tied on an H100 in session
 * 46 and are gone.) */
#ifndef PF_NEXT
#define PF_NEXT 1
#endif
#ifndef PF_CUR
#define PF_CUR 0
#endif
#ifndef PF_LATE
#define PF_LATE 0
#endif
#if defined(PF_DR) && PF_DR == 2
#define PF_THIS_DR (PF_CUR && (flags & BWD_DRES))
#else
#define PF_THIS_DR 0
#endif
/* rows r0 .. r0 + RPI - 1 (those below rows) of x and dy into L2, of the residual gradient too
 * where with_dr */
#define PF_ROWS(r0, with_dr)                                                                      \
    for (int i = 0; i < RPI; ++i)                                                                 \
        if ((r0) + i < rows) {                                                                    \
            PREFETCH_ROW(x + x_off + ((r0) + i) * x_ld, cols * sizeof(STORAGE(T_X)), lane)       \
            PREFETCH_ROW(dy + dy_off + ((r0) + i) * dy_ld, cols * sizeof(STORAGE(T_DY)), lane)   \
            if (with_dr)                                                                          \
                PREFETCH_ROW(dr + dr_off + ((r0) + i) * dr_ld, cols * sizeof(STORAGE(T_DR)), lane) \
        }
#define PF_NEXT_BLOCK()                                                                           \
    if (blk + blocks_step() < blk_end)                                                            \
        PF_ROWS(row0 + blocks_step() * RPW * RPI, false)
#if RPI == 1
typedef float2 sums_t;
#define ROW_SUMS row_sum2
#define SUMS_LOAD vload2
#define SUMS_STORE vstore2
#elif RPI == 2
typedef float4 sums_t;
#define ROW_SUMS row_sum4
#define SUMS_LOAD vload4
#define SUMS_STORE vstore4
#elif RPI == 4
typedef float8 sums_t;
#define ROW_SUMS row_sum8
#define SUMS_LOAD vload8
#define SUMS_STORE vstore8
#else
#error "RPI must be 1, 2 or 4"
#endif
/* the streaming regime with one item per row: its rows' means taken together (ROWS_HSUM) */
#define ROWS_TOGETHER (NCACHE == 0 && NACC == 0 && TPR == 1)
#if RPI > 1 && NCACHE == 0 && NACC > 0
#error "RPI > 1 needs the register cache or the streaming regime (not NACC alone)"
#endif
#if defined(UNALIGNED) && (NACC != 0 || defined(COLSWEEP))
#error "UNALIGNED is for the streaming regime (its tail is summed apart)"
#endif
#if defined(PHASE) && (defined(COLSWEEP) || defined(LOCAL_ROW))
#error "PHASE is for the register-cache and sums-in-registers regimes"
#endif
#if defined(PHASE) && NCACHE == 0 && (NACC == 0 || RPI != 1)
#error "PHASE without the register cache is for the sums-in-registers regime (one row per item)"
#endif
/* (PHASE in the sums-in-registers regime: dx's second read goes through the batched path, whose
 * loop over the row has no frame; the host sets at least one vector a batch, params.c) */
#if defined(PHASE) && NCACHE == 0 && !defined(DXB)
#error "PHASE in the sums-in-registers regime needs DXB"
#endif
/* what the register cache holds per vector: x and dy as stored, or x-hat and g in fp32 */
#ifdef CACHE_RAW
#define CX_T RAWV(T_X)
#define CD_T RAWV(T_DY)
#define CX_LD(p, k) PLDR(T_X, p, k)
#define CD_LD(p, k) PLDR(T_DY, p, k)
#define CX_CV(v) CVR(T_X, v)
#define CD_CV(v) CVR(T_DY, v)
#else
#define CX_T floatv
#define CD_T floatv
#define CX_LD(p, k) PLDV(T_X, p, k)
#define CD_LD(p, k) PLDV(T_DY, p, k)
#define CX_CV(v) (v)
#define CD_CV(v) (v)
#endif

/* DXB (sums-in-registers regime, host-chosen): dx's second read of x and dy goes DXB vectors at a
 * time, a batch's loads all before its stores, unrolled (fp32 at cols 16384 on the H200: 0.654 ->
 * 0.606 ms); without it, a loop over the row (16-bit rows: the unrolled batches cost registers
 * and spilled, bf16 at cols 16384 0.33 -> 0.58 ms). */

/* NACC_LOCAL (the register-cache and sums-in-registers regimes; elsewhere ignored): the last
 * NACC_LOCAL of each item's dweight and dbias sum vectors live in local memory, the item's own
 * slots (no barrier), leaving their registers to the loads of the two reads, or to the cached
 * row. */
#if defined(NACC_LOCAL) && NACC > 0 && PARTIALS && NACC > NACC_LOCAL && NACC_LOCAL > 0
#define NL NACC_LOCAL
#else
#define NL 0
#endif
#if NL > 0
#define LACC(t, j) lacc[((t) * NL + (j) - (NACC - NL)) * WG + lid]
#define ACC_ADD(j, vw, vb)                                                                         \
    if ((j) < NACC - NL) {                                                                         \
        dwa[j] += (vw);                                                                            \
        dba[j] += (vb);                                                                            \
    } else {                                                                                       \
        LACC(0, j) += (vw);                                                                        \
        LACC(1, j) += (vb);                                                                        \
    }
#define ACC_W(j) ((j) < NACC - NL ? dwa[j] : LACC(0, j))
#define ACC_B(j) ((j) < NACC - NL ? dba[j] : LACC(1, j))
#else
#define ACC_ADD(j, vw, vb)                                                                         \
    {                                                                                              \
        dwa[j] += (vw);                                                                            \
        dba[j] += (vb);                                                                            \
    }
#define ACC_W(j) dwa[j]
#define ACC_B(j) dba[j]
#endif

#define BWD_WEIGHT 1u
#define BWD_DRES 2u

/* COLSWEEP (host-chosen, GPUs; the call's dx in the dx-only layout, PARTIALS 0): dweight and dbias
 * by columns. Work-group g of G owns the column vectors [g*nv/G, (g+1)*nv/G) and sums them over
 * every row itself: after each round of the block loop (G blocks, one per group: a "wave") it reads
 * its columns of that wave's rows, which the other groups have just read for their dx, so these
 * reads find L2 rather than memory; the waves its loop did not run it sweeps after the loop. Rows
 * too long for the sums to stay in registers beside the row (on the H200 from 20480 columns, where
 * the sums made the row be read twice or streamed) so read x and dy from memory once. COLSWEEP
 * column lanes (vectors) x CS_ROWS row
 * lanes; each item adds its lane's rows in row order, then the row lanes are added in a fixed tree
 * order: no atomics, no exchange between groups, bitwise repeatable. The one partial row goes to
 * part (dweight) and part + cols (dbias); reduce.cl converts it. */
#ifdef COLSWEEP
#if PARTIALS
#error "COLSWEEP replaces the per-group partial rows (PARTIALS 0)"
#endif
#ifdef CONTIG_ROWS
#error "COLSWEEP follows the round-robin schedule's waves"
#endif
#if COLSWEEP > WG || WG % COLSWEEP != 0
#error "COLSWEEP must divide the work-group"
#endif
#define CS_ROWS (WG / COLSWEEP)
#if (CS_ROWS & (CS_ROWS - 1)) != 0
#error "the row lanes' tree needs a power-of-two count (WG / COLSWEEP)"
#endif
/* adds dy * x-hat and dy of column vector k over rows r, r + CS_ROWS, ... below r1, in row order
 * (CS_UNROLL rows' loads issued before their adds; the adds keep the plain loop's order, so the
 * sums do not depend on it) */
#ifndef CS_UNROLL
#define CS_UNROLL 4
#endif
inline void colsweep_rows(ulong r, const ulong r1, const long k, const __global STORAGE(T_X) *x, const ulong x_ld,
                          const __global STORAGE(T_DY) *dy, const ulong dy_ld, const __global float *mean,
                          const __global float *rstd, floatv *aw, floatv *ab)
{
    floatv sw = *aw, sb = *ab;
    for (; r + (CS_UNROLL - 1) * CS_ROWS < r1; r += CS_UNROLL * CS_ROWS) {
        floatv xv[CS_UNROLL], dv[CS_UNROLL];
        float m[CS_UNROLL], s[CS_UNROLL];
#pragma unroll
        for (int i = 0; i < CS_UNROLL; ++i) {
            const ulong q = r + (ulong)i * CS_ROWS;
            xv[i] = LDV(T_X, x + q * x_ld, k * VEC);
            dv[i] = LDV(T_DY, dy + q * dy_ld, k * VEC);
            m[i] = mean[q];
            s[i] = rstd[q];
        }
#pragma unroll
        for (int i = 0; i < CS_UNROLL; ++i) {
            const floatv xhat = (xv[i] - m[i]) * s[i];
            sw += dv[i] * xhat;
            sb += dv[i];
        }
    }
    for (; r < r1; r += CS_ROWS) {
        const floatv d = LDV(T_DY, dy + r * dy_ld, k * VEC);
        const floatv xhat = (LDV(T_X, x + r * x_ld, k * VEC) - mean[r]) * rstd[r];
        sw += d * xhat;
        sb += d;
    }
    *aw = sw;
    *ab = sb;
}
/* this group's columns of rows [R0, R1) */
#define COLSWEEP_ROWS(R0, R1)                                                                    \
    if (cs_on)                                                                                   \
        colsweep_rows((R0) + cs_lane, (R1), cs_k, x + x_off, x_ld, dy + dy_off, dy_ld, mean + mean_off, \
                      rstd + rstd_off, &cs_w, &cs_b);
#endif

/* LOCAL_ROW (CPUs, the streaming regime, one item per row slot: host-chosen): the first pass keeps
 * each of its RPI rows' x-hat and g in fp32 in local memory (2 * RPI * LCOLS(cols) floats, and with
 * LOCAL_W LCOLS(cols) more for the weight's fp32 copy: the host's argument), so that dx's pass reads them
 * back instead of converting x, dy and the weight again and recomputing them. */
#ifdef LOCAL_ROW
#if TPR != 1 || RPW != 1 || NCACHE != 0 || NACC != 0
#error "LOCAL_ROW is for the streaming one-item-per-row shape"
#endif
/* the local row: x-hat and g of row i at (2i) * lc and (2i + 1) * lc, then the weight (lc = LCOLS(cols)) */
#define XH_L(i, k) (*(__local floatv *)(lrow + (2 * (i)) * LCOLS(cols) + (k) * VEC))
#define G_L(i, k) (*(__local floatv *)(lrow + (2 * (i) + 1) * LCOLS(cols) + (k) * VEC))
/* (a vector at any element e: the dx pass's loop, common.cl's LDL) */
#define XH_LE(i, e) LDL(lrow + (2 * (i)) * LCOLS(cols), e)
#define G_LE(i, e) LDL(lrow + (2 * (i) + 1) * LCOLS(cols), e)
/* (one element, e: UNALIGNED's tail) */
#define XH_L1(i, e) lrow[(2 * (i)) * LCOLS(cols) + (e)]
#define G_L1(i, e) lrow[(2 * (i) + 1) * LCOLS(cols) + (e)]
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clnorm_backward(BWD_ARGS, const __global STORAGE(T_DY) *dy, const __global STORAGE(T_X) *x,
                     const __global STORAGE(T_W) *w, const __global float *mean, const __global float *rstd,
                     const __global STORAGE(T_DR) *dr, __global STORAGE(T_DX) *dx, __global float *part
#ifdef LOCAL_ROW
                     , __local float *lrow
#endif
                     )
{
    /* the by-value arguments (cl/kernel_args.h's slots) under their own names */
    const ulong rows = KARG(args, BA_ROWS), cols = KARG(args, BA_COLS), dy_off = KARG(args, BA_DY_OFF),
                dy_ld = KARG(args, BA_DY_LD), x_off = KARG(args, BA_X_OFF), x_ld = KARG(args, BA_X_LD),
                w_off = KARG(args, BA_W_OFF), mean_off = KARG(args, BA_MEAN_OFF), rstd_off = KARG(args, BA_RSTD_OFF),
                dr_off = KARG(args, BA_DR_OFF), dr_ld = KARG(args, BA_DR_LD), dx_off = KARG(args, BA_DX_OFF),
                dx_ld = KARG(args, BA_DX_LD);
    const uint flags = (uint)KARG(args, BA_FLAGS);
    /* one buffer: taking two in turn (as the forward does, without the closing barrier) gained
     * nothing on the H200 and coincided with fp32 backward_res at cols 4096 taking 10 % longer */
    __local sums_t red[RED_SIZE];
#if NL > 0
    __local floatv lacc[2 * NL * WG];
#endif
#ifdef COLSWEEP
    __local floatv cs_red[CS_ROWS > 1 ? WG / 2 : 1];
#endif
    const uint lid = get_local_id(0);
    const long lane = lid % TPR;
    const ulong slot = lid / TPR;
    PHASE_SETUP()
#ifdef PHASE
    /* the vectors of a row's frame (common.cl) */
    const long nv = (long)((cols + ph_h + VEC - 1) / VEC);
    /* the weight's phase against the rows' (common.cl, ph_wr) */
    const int w_sh = (int)((w_off + VEC - ph_h) % VEC);
#else
    const long nv = (long)(cols / VEC);
#endif
#ifdef COLSWEEP
    const ulong cs_g = get_group_id(0), cs_ng = get_num_groups(0);
    const long cs_k = (long)(cs_g * (ulong)nv / cs_ng) + (long)(lid % COLSWEEP);
    const bool cs_on = cs_k < (long)((cs_g + 1) * (ulong)nv / cs_ng);
    const uint cs_lane = lid / COLSWEEP;
    const ulong cs_wave = (ulong)RPW * RPI * cs_ng; /* rows of one round of the block loop */
    ulong cs_done = 0;                              /* rows [0, cs_done) swept */
    floatv cs_w = 0.0f, cs_b = 0.0f;
#endif
    const bool has_w = (flags & BWD_WEIGHT) != 0;
    const __global STORAGE(T_W) *wr = w + w_off;
#if PARTIALS
    const ulong nparts = (ulong)get_num_groups(0) * RPW;
    __global float *pw = part + ((ulong)get_group_id(0) * RPW + slot) * cols;
    __global float *pb = pw + nparts * cols;
#if NACC > 0
    floatv dwa[NACC], dba[NACC];
#pragma unroll
    for (int j = 0; j < NACC; ++j)
        dwa[j] = dba[j] = 0.0f;
#if NL > 0
    for (int j = 0; j < 2 * NL; ++j)
        lacc[j * WG + lid] = 0.0f;
#endif
#else
    for (long k = lane; k < nv; k += TPR) {
        STW(pw, k * VEC, (floatv)0.0f);
        STW(pb, k * VEC, (floatv)0.0f);
    }
    TAIL_FOR(e)
        pw[e] = pb[e] = 0.0f;
#endif
#else
    (void)part;
#endif
#if defined(LOCAL_ROW) && defined(LOCAL_W)
    /* the weight in fp32 too (host-chosen, where local memory holds it beside the rows), converted
     * once per work-group, after the rows' x-hat and g (bf16 with dweight/dbias on PoCL, AVX2
     * host, 2^26 elements, ms: cols 256 18.4 -> 17.5, 1024 17.0 -> 16.7, 4096 18.8 -> 18.8, 8192
     * 18.6 -> 18.9) */
    __local float *lw = lrow + 2 * RPI * LCOLS(cols);
    for (long k = 0; k < nv; ++k)
        *(__local floatv *)(lw + k * VEC) = has_w ? LDV(T_W, wr, k * VEC) : (floatv)1.0f;
    TAIL_FOR(e)
        lw[e] = has_w ? LD1(T_W, wr, e) : 1.0f;
#define W_STREAM(k) (*(__local floatv *)(lw + (k) * VEC))
#define W_STREAM1(e) lw[e]
#else
#define W_STREAM(k) (has_w ? LDV(T_W, wr, (k) * VEC) : (floatv)1.0f)
#define W_STREAM1(e) (has_w ? LD1(T_W, wr, e) : 1.0f)
#endif
#if NCACHE > 0
    CX_T xc[RPI][NCACHE];
    CD_T dc[RPI][NCACHE];
#ifdef DR_EARLY
    RAWV(T_DR) rc[RPI][NCACHE];
#endif
#endif

    /* (PHASE: blocks of this group's phase class, common.cl) */
    const ulong nblocks = (PH_ROWS(rows) + RPW * RPI - 1) / (RPW * RPI);
    /* The trip count depends on the work-group only, so every item reaches the same barriers. */
    const ulong blk_end = PH_BLOCKS_END(nblocks);
    float mu[RPI], rs[RPI];
#if NCACHE > 0
    /* Loads the rows of the block whose first row is R0 into X, D (and Q: the residual gradient)
     * and the statistics into M, S. Rows past the end read row 0 of x and dy (with PHASE their
     * class's first row, PH_ROW(0); they exist, and no call writes them) and add nothing: those loads stay unconditional, so the compiler can issue
     * all of them before the first use; the residual gradient (which dx may overwrite in place) is
     * read for the block's own rows only. */
#ifdef DR_EARLY
#define LOAD_DR(Q, R0, i, j, r, k)                                                               \
    if (PH_ROW((R0) + (i)) < rows && (flags & BWD_DRES))                                         \
        Q[i][j] = PLDR(T_DR, dr + dr_off + (r) * dr_ld, k);
#else
#define LOAD_DR(Q, R0, i, j, r, k)
#endif
#define LOAD_BLOCK(R0, X, D, Q, M, S)                                                            \
    _Pragma("unroll") for (int i = 0; i < RPI; ++i) {                                            \
        const ulong r = PH_ROW((R0) + i) < rows ? PH_ROW((R0) + i) : PH_ROW(0);                  \
        const __global STORAGE(T_X) *xr = x + x_off + r * x_ld;                                  \
        const __global STORAGE(T_DY) *dyr = dy + dy_off + r * dy_ld;                             \
        M[i] = mean[mean_off + r];                                                               \
        S[i] = rstd[rstd_off + r];                                                               \
        _Pragma("unroll") for (int j = 0; j < NCACHE; ++j) {                                     \
            const long k = lane + (long)j * TPR;                                                 \
            if (k < nv) {                                                                        \
                X[i][j] = CX_LD(xr, k);                                                          \
                D[i][j] = CD_LD(dyr, k);                                                         \
                LOAD_DR(Q, R0, i, j, r, k)                                                        \
            }                                                                                    \
        }                                                                                        \
    }
#ifdef PIPE
    /* Software pipeline: the next block's loads are issued before this block's row sums (with
     * their barrier) and its dx, so the memory system stays busy across them; one more set of
     * cache registers. The first block is loaded before the loop. */
    CX_T xn[RPI][NCACHE];
    CD_T dn[RPI][NCACHE];
#ifdef DR_EARLY
    RAWV(T_DR) rn[RPI][NCACHE];
#endif
    float mun[RPI], rsn[RPI];
    {
        const ulong b0 = PH_BLOCKS_FIRST(nblocks);
        const ulong nr0 = b0 < blk_end ? (b0 * RPW + slot) * RPI : rows;
        LOAD_BLOCK(nr0, xn, dn, rn, mun, rsn)
    }
#endif
#endif
#ifdef LOCAL_ROW
    /* the rows dx's pass prefetches: pf_ahead rows ahead (whole blocks), at least PF_BYTES of x */
    const ulong pf_ahead = (1 + PF_BYTES / ((ulong)RPI * cols * sizeof(STORAGE(T_X)))) * blocks_step() * RPW * RPI;
#endif
#ifdef PHASE
    /* (PHASE: the weight at this item's columns is the same in every row of the group's phase
     * class, and where its phase is not the rows' it is read element by element: read once, kept
     * in registers, as stored; NACC >= NCACHE vectors, those of the register cache or of the
     * sums) */
    RAWV(T_W) wc[NACC];
#pragma unroll
    for (int j = 0; j < NACC; ++j) {
        const long k = lane + (long)j * TPR;
        wc[j] = has_w && k < nv ? PWR(T_W, wr, w_sh, k) : (RAWV(T_W))0;
    }
#define BWD_WV(j, k) CVR(T_W, wc[j])
#else
#define BWD_WV(j, k) PWV(T_W, wr, w_sh, k)
#endif
    for (ulong blk = PH_BLOCKS_FIRST(nblocks); blk < blk_end; blk += PH_BLOCKS_STEP()) {
        const ulong row0 = (blk * RPW + slot) * RPI;
        float sv[2 * RPI], av[RPI], cv[RPI]; /* the row sums; their means a (of g), c (of g * x-hat) */
#ifdef NV_PREFETCH
        /* (PF_CUR, PF_DR, PF_LATE: see NV_PREFETCH's rows above) */
        if (PF_CUR)
            PF_ROWS(row0, PF_THIS_DR)
        if (PF_NEXT && !PF_LATE)
            PF_NEXT_BLOCK()
#endif
#if NCACHE > 0
#ifdef PIPE
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            mu[i] = mun[i];
            rs[i] = rsn[i];
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                xc[i][j] = xn[i][j];
                dc[i][j] = dn[i][j];
#ifdef DR_EARLY
                rc[i][j] = rn[i][j];
#endif
            }
        }
        {
            const ulong nb = blk + PH_BLOCKS_STEP();
            const ulong nr0 = nb < blk_end ? (nb * RPW + slot) * RPI : rows;
            LOAD_BLOCK(nr0, xn, dn, rn, mun, rsn)
        }
#else
        LOAD_BLOCK(row0, xc, dc, rc, mu, rs)
#endif
        floatv sg[RPI], sgx[RPI];
#pragma unroll
        for (int i = 0; i < RPI; ++i)
            sg[i] = sgx[i] = 0.0f;
#pragma unroll
        for (int j = 0; j < NCACHE; ++j) {
            const long k = lane + (long)j * TPR;
            if (k < nv) {
                const floatv wv = has_w ? BWD_WV(j, k) : (floatv)1.0f;
#pragma unroll
                for (int i = 0; i < RPI; ++i) {
                    const floatv d = CD_CV(dc[i][j]);
                    /* (PHASE: outside the row, lanes are 0 in x-hat and g) */
                    const floatv xhat = PH_KEEP(k, (CX_CV(xc[i][j]) - mu[i]) * rs[i]);
                    const floatv g = PH_KEEP(k, has_w ? d * wv : d);
                    sg[i] += g;
                    sgx[i] += g * xhat;
#if PARTIALS
                    if (PH_ROW(row0 + i) < rows) {
                        ACC_ADD(j, d * xhat, d)
                    }
#endif
#ifndef CACHE_RAW
                    xc[i][j] = xhat;
                    dc[i][j] = g;
#endif
                }
            }
        }
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            sv[2 * i] = hsumv(sg[i]);
            sv[2 * i + 1] = hsumv(sgx[i]);
        }
#elif NACC > 0 /* RPI == 1 */
        /* (PHASE: the row of this group's phase class, read over its frame; outside the row, lanes
         * are 0 in x-hat and g, and the sums' lanes there are never stored) */
        const bool valid = PH_ROW(row0) < rows;
        const ulong r = valid ? PH_ROW(row0) : 0;
        const __global STORAGE(T_X) *xr = x + x_off + r * x_ld;
        const __global STORAGE(T_DY) *dyr = dy + dy_off + r * dy_ld;
        mu[0] = valid ? mean[mean_off + r] : 0.0f;
        rs[0] = valid ? rstd[rstd_off + r] : 0.0f;
        floatv sg = 0.0f, sgx = 0.0f;
        if (valid) {
#pragma unroll
            for (int j = 0; j < NACC; ++j) {
                const long k = lane + (long)j * TPR;
                if (k < nv) {
                    const floatv d = PLDV(T_DY, dyr, k);
                    const floatv xhat = PH_KEEP(k, (PLDV(T_X, xr, k) - mu[0]) * rs[0]);
                    const floatv g = PH_KEEP(k, has_w ? d * BWD_WV(j, k) : d);
                    sg += g;
                    sgx += g * xhat;
#if PARTIALS
                    ACC_ADD(j, d * xhat, d)
#endif
                }
            }
        }
        sv[0] = hsumv(sg);
        sv[1] = hsumv(sgx);
#else /* streaming: RPI rows side by side, so one read-modify-write of the partial rows serves RPI rows */
        bool valid[RPI];
        const __global STORAGE(T_X) *xr[RPI];
        const __global STORAGE(T_DY) *dyr[RPI];
        floatv sg[RPI], sgx[RPI];
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            valid[i] = row0 + i < rows;
            const ulong r = valid[i] ? row0 + i : 0;
            xr[i] = x + x_off + r * x_ld;
            dyr[i] = dy + dy_off + r * dy_ld;
            mu[i] = valid[i] ? mean[mean_off + r] : 0.0f;
            rs[i] = valid[i] ? rstd[rstd_off + r] : 0.0f;
            sg[i] = sgx[i] = 0.0f;
        }
        for (long k0 = lane; k0 < nv; k0 += CHUNK * TPR) { /* blocked sums, as in forward.cl */
            floatv pg[RPI], pgx[RPI];
#pragma unroll
            for (int i = 0; i < RPI; ++i)
                pg[i] = pgx[i] = 0.0f;
            const long k1 = min(nv, k0 + CHUNK * TPR);
            for (long k = k0; k < k1; k += TPR) {
                const floatv wv = W_STREAM(k);
                /* -0: the additive identity, so the first adds fold away (bf16 at cols 4096 on
                 * PoCL: 20.7 -> 19.7 ms) */
                floatv aw = -0.0f, ab = -0.0f;
#pragma unroll
                for (int i = 0; i < RPI; ++i) {
                    if (valid[i]) {
#ifdef CPU_PREFETCH
                        /* the residual gradient is read by the dx pass below, after this pass has
                         * gone through RPI rows of x and dy: fetched now, it arrives in time (PoCL,
                         * bf16 with dweight/dbias at cols 4096: 19.4 -> 15.3 ms). The host sets
                         * CPU_PREFETCH only in calls with a residual gradient. */
                        __builtin_prefetch(dr + dr_off + (row0 + i) * dr_ld + k * VEC);
#endif
                        const floatv d = LDV(T_DY, dyr[i], k * VEC);
                        const floatv xhat = (LDV(T_X, xr[i], k * VEC) - mu[i]) * rs[i];
                        const floatv g = has_w ? d * wv : d;
#ifdef LOCAL_ROW
                        XH_L(i, k) = xhat;
                        G_L(i, k) = g;
#endif
                        pg[i] += g;
                        pgx[i] += g * xhat;
                        aw += d * xhat;
                        ab += d;
                    }
                }
#if PARTIALS
                STW(pw, k * VEC, LDW(pw, k * VEC) + aw);
                STW(pb, k * VEC, LDW(pb, k * VEC) + ab);
#else
                (void)aw;
                (void)ab;
#endif
            }
#pragma unroll
            for (int i = 0; i < RPI; ++i) {
                sg[i] += pg[i];
                sgx[i] += pgx[i];
            }
        }
        /* UNALIGNED: the elements past the whole vectors, as above one at a time */
        float tg[RPI], tgx[RPI];
#pragma unroll
        for (int i = 0; i < RPI; ++i)
            tg[i] = tgx[i] = -0.0f;
        TAIL_FOR(e) {
            const float wv = W_STREAM1(e);
            float aw = -0.0f, ab = -0.0f;
#pragma unroll
            for (int i = 0; i < RPI; ++i) {
                if (valid[i]) {
                    const float d = LD1(T_DY, dyr[i], e);
                    const float xhat = (LD1(T_X, xr[i], e) - mu[i]) * rs[i];
                    const float g = has_w ? d * wv : d;
#ifdef LOCAL_ROW
                    XH_L1(i, e) = xhat;
                    G_L1(i, e) = g;
#endif
                    tg[i] += g;
                    tgx[i] += g * xhat;
                    aw += d * xhat;
                    ab += d;
                }
            }
#if PARTIALS
            pw[e] += aw;
            pb[e] += ab;
#else
            (void)aw;
            (void)ab;
#endif
        }
#if defined(NV_PREFETCH) && PF_LATE
        if (PF_NEXT)
            PF_NEXT_BLOCK()
#endif
#if ROWS_TOGETHER
        /* one item per row: the RPI rows' means of g and g * x-hat at once (ROWS_HSUM: the same
         * bits as row by row, whose scalar sums and divisions were most of a short row's time) */
        (void)red;
        (void)sv;
        ROWS_ST((ROWS_HSUM(sg) + ROWS_LD(tg)) / (float)cols, av);
        ROWS_ST((ROWS_HSUM(sgx) + ROWS_LD(tgx)) / (float)cols, cv);
#else
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            sv[2 * i] = hsumv(sg[i]) + tg[i];
            sv[2 * i + 1] = hsumv(sgx[i]) + tgx[i];
        }
#endif
#endif
#if !ROWS_TOGETHER
        SUMS_STORE(ROW_SUMS(SUMS_LOAD(0, sv), red), 0, sv);
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            av[i] = sv[2 * i] / (float)cols;
            cv[i] = sv[2 * i + 1] / (float)cols;
        }
#endif

#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            const ulong row = PH_ROW(row0 + i);
            if (row >= rows)
                continue;
            const float a = av[i], c = cv[i];
            const __global STORAGE(T_DR) *drr = dr + dr_off + row * dr_ld;
            __global STORAGE(T_DX) *dxr = dx + dx_off + row * dx_ld;
#if NCACHE > 0
#ifdef DR_EARLY
            (void)drr;
#endif
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                const long k = lane + (long)j * TPR;
                if (k < nv) {
#ifdef CACHE_RAW
                    const floatv d = CD_CV(dc[i][j]);
                    const floatv xhat = (CX_CV(xc[i][j]) - mu[i]) * rs[i];
                    const floatv g = has_w ? d * BWD_WV(j, k) : d;
#else
                    const floatv xhat = xc[i][j], g = dc[i][j];
#endif
                    floatv v = rs[i] * (g - a - xhat * c);
                    if (flags & BWD_DRES)
#ifdef DR_EARLY
                        v += CVR(T_DR, rc[i][j]);
#else
                        v += PLDV(T_DR, drr, k);
#endif
                    PSTV(T_DX, dxr, k, v)
                }
            }
#elif NACC > 0 && defined(DXB)
            /* dx may be dres (in place): each element is read and written by the same item, and a
             * batch reads all its elements before it writes any */
            const __global STORAGE(T_X) *xr = x + x_off + row * x_ld;
            const __global STORAGE(T_DY) *dyr = dy + dy_off + row * dy_ld;
#pragma unroll
            for (int j0 = 0; j0 < NACC; j0 += DXB) {
                floatv xb[DXB], db[DXB];
                RAWV(T_DR) qb[DXB];
#pragma unroll
                for (int b = 0; b < DXB; ++b) {
                    const long k = lane + (long)(j0 + b) * TPR;
                    if (j0 + b < NACC && k < nv) {
                        xb[b] = PLDV(T_X, xr, k);
                        db[b] = PLDV(T_DY, dyr, k);
                        if (flags & BWD_DRES)
                            qb[b] = PLDR(T_DR, drr, k);
                    }
                }
#pragma unroll
                for (int b = 0; b < DXB; ++b) {
                    const long k = lane + (long)(j0 + b) * TPR;
                    if (j0 + b < NACC && k < nv) {
                        const floatv xhat = (xb[b] - mu[i]) * rs[i];
                        const floatv g = has_w ? db[b] * BWD_WV(j0 + b, k) : db[b];
                        floatv v = rs[i] * (g - a - xhat * c);
                        if (flags & BWD_DRES)
                            v += CVR(T_DR, qb[b]);
                        PSTV(T_DX, dxr, k, v)
                    }
                }
            }
#else
            /* dx may be dres (in place): each element is read and written by the same item */
            const __global STORAGE(T_X) *xr = x + x_off + row * x_ld;
            const __global STORAGE(T_DY) *dyr = dy + dy_off + row * dy_ld;
#ifdef LOCAL_ROW
            /* the item's rows pf_ahead ahead of x and dy (at least PF_BYTES ahead, whole blocks;
             * the last row where there is none), prefetched while this pass works from local
             * memory (before session 21: the same rows of the next block): the hardware
             * prefetcher alone fetched them late (PoCL, AVX2 host, bf16 with dweight/dbias, 2^26
             * elements, ms: cols 256 20.2 -> 19.7, 1024 21.4 -> 19.8, 4096 21.2 -> 20.0). The
             * local row runs on PoCL x86 hosts only, whose compiler (clang) has the builtin. */
            const ulong rn = row + pf_ahead < rows ? row + pf_ahead : rows - 1;
            const __global STORAGE(T_X) *xn = x + x_off + rn * x_ld;
            const __global STORAGE(T_DY) *dyn = dy + dy_off + rn * dy_ld;
#endif
            /* UNALIGNED: dx's row in its head, aligned vectors and tail (common.cl's OUT_HEAD),
             * the inputs read at the same columns */
#ifdef LOCAL_ROW
#define DX1_IN(e) const float xhat = XH_L1(i, e), g = G_L1(i, e);
#else
#define DX1_IN(e)                                                                                \
    const float d = LD1(T_DY, dyr, e);                                                           \
    const float xhat = (LD1(T_X, xr, e) - mu[i]) * rs[i];                                        \
    const float g = has_w ? d * LD1(T_W, wr, e) : d;
#endif
#define DX1(e)                                                                                   \
    {                                                                                            \
        DX1_IN(e)                                                                                \
        float v = rs[i] * (g - a - xhat * c);                                                    \
        if (flags & BWD_DRES)                                                                    \
            v += LD1(T_DR, drr, e);                                                              \
        ST1(T_DX, dxr, e, v);                                                                    \
    }
            const long hd = OUT_HEAD(dxr);
            HEAD_FOR(e, hd)
                DX1(e)
            for (long k = lane; k < OUT_NV(dxr, hd); k += TPR) {
                const long e = hd + k * VEC;
#ifdef LOCAL_ROW
                __builtin_prefetch(xn + k * VEC);
                __builtin_prefetch(dyn + k * VEC);
                const floatv xhat = XH_LE(i, e), g = G_LE(i, e);
                (void)xr;
                (void)dyr;
#else
                const floatv d = LDV(T_DY, dyr, e);
                const floatv xhat = (LDV(T_X, xr, e) - mu[i]) * rs[i];
                const floatv g = has_w ? d * LDV(T_W, wr, e) : d;
#endif
                floatv v = rs[i] * (g - a - xhat * c);
                if (flags & BWD_DRES)
                    v += LDV(T_DR, drr, e);
                STV(T_DX, dxr, e, v);
            }
            OUT_TAIL_FOR(e, dxr, hd)
                DX1(e)
#endif
        }
#ifdef COLSWEEP
        COLSWEEP_ROWS(cs_done, min(cs_done + cs_wave, rows))
        cs_done += cs_wave;
#endif
    }

#ifdef COLSWEEP
    /* the waves this group's loop did not run (a group has one round fewer where the blocks do not
     * fill the last), then the row lanes' sums in a fixed tree order; the loop counts are
     * compile-time constants: every item reaches each barrier */
    COLSWEEP_ROWS(cs_done, rows)
    for (uint h = CS_ROWS / 2; h > 0; h /= 2) {
        if (cs_lane >= h && cs_lane < 2 * h)
            cs_red[lid - h * COLSWEEP] = cs_w;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (cs_lane < h)
            cs_w += cs_red[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (cs_lane >= h && cs_lane < 2 * h)
            cs_red[lid - h * COLSWEEP] = cs_b;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (cs_lane < h)
            cs_b += cs_red[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (cs_lane == 0 && cs_on) {
        STW(part, cs_k * VEC, cs_w);
        STW(part + cols, cs_k * VEC, cs_b);
    }
#endif
#if PARTIALS
    /* Combine the slots' sums into slot 0's partial row, in slot order (a fixed order). The loop
     * count is a compile-time constant: every item reaches each barrier. */
    __global float *p0w = part + (ulong)get_group_id(0) * RPW * cols, *p0b = p0w + nparts * cols;
    for (uint s = 0; s < RPW; ++s) {
        if (slot == s) {
#if NACC > 0
#pragma unroll
            for (int j = 0; j < NACC; ++j) {
                const long k = lane + (long)j * TPR;
                if (k < nv) {
#ifdef PHASE
                    /* (partial rows are cols floats apart: element by element) */
                    ph_part_st(p0w, k, ph_h, (long)cols, ACC_W(j), s != 0);
                    ph_part_st(p0b, k, ph_h, (long)cols, ACC_B(j), s != 0);
#else
                    STW(p0w, k * VEC, s == 0 ? ACC_W(j) : LDW(p0w, k * VEC) + ACC_W(j));
                    STW(p0b, k * VEC, s == 0 ? ACC_B(j) : LDW(p0b, k * VEC) + ACC_B(j));
#endif
                }
            }
#else
            if (s > 0) {
                for (long k = lane; k < nv; k += TPR) {
                    STW(p0w, k * VEC, LDW(p0w, k * VEC) + LDW(pw, k * VEC));
                    STW(p0b, k * VEC, LDW(p0b, k * VEC) + LDW(pb, k * VEC));
                }
            }
#endif
        }
#if RPW > 1
        barrier(CLK_GLOBAL_MEM_FENCE);
#endif
    }
#endif
    NT_FENCE();
}
