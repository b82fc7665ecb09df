/* clnorm — LayerNorm backward: dx (with the fused residual gradient) and the per-slot fp32 partial
 * sums of dweight/dbias. Needs common.cl before it.
 *
 * A persistent grid: work-group g handles the row blocks g, g + G, g + 2G, ... (G work-groups,
 * RPW rows a block). The workspace holds P = G*RPW partial rows for dweight, then P for dbias:
 *   part[p*cols + c]            sum of dy*xhat over the rows of slot p  (dweight)
 *   part[(P + p)*cols + c]      sum of dy over the rows of slot p       (dbias)
 * At the end each work-group adds its slots into its slot 0's row (p = g*RPW), in slot order, and
 * writes it whole (zeros when it had no row), so reduce.cl sums G rows in a fixed order: no
 * atomics, bitwise repeatable.
 * dx = rstd * (g - mean_c(g) - xhat * mean_c(g*xhat)) [+ dres], summed in fp32, rounded once.
 *
 * Three regimes, chosen by the host at compile time (so the kernel holds one path, and its
 * register count is that path's):
 *   NCACHE > 0   cols <= TPR*VEC*NCACHE: xhat and g stay in registers, x and dy are read once;
 *   NACC > 0     cols <= TPR*VEC*NACC: the dweight/dbias sums stay in registers, x and dy are
 *                read twice (the second read mostly from cache);
 *   otherwise    the sums are accumulated in the workspace row itself.
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

#define BWD_WEIGHT 1u
#define BWD_DRES 2u
#define BWD_PARTIALS 4u

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void clnorm_backward(const ulong rows, const ulong cols, const uint flags,
                     const __global STORAGE(T_DY) *dy, const ulong dy_off, const ulong dy_ld,
                     const __global STORAGE(T_X) *x, const ulong x_off, const ulong x_ld,
                     const __global STORAGE(T_W) *w, const ulong w_off,
                     const __global float *mean, const ulong mean_off,
                     const __global float *rstd, const ulong rstd_off,
                     const __global STORAGE(T_DR) *dr, const ulong dr_off, const ulong dr_ld,
                     __global STORAGE(T_DX) *dx, const ulong dx_off, const ulong dx_ld,
                     __global float *part)
{
    __local float2 red[RED_SIZE];
    const uint lid = get_local_id(0);
    const long lane = lid % TPR;
    const ulong slot = lid / TPR;
    const long nv = (long)(cols / VEC);
    const ulong nparts = (ulong)get_num_groups(0) * RPW;
    const bool partials = (flags & BWD_PARTIALS) != 0;
    const bool has_w = (flags & BWD_WEIGHT) != 0;
    __global float *pw = part + ((ulong)get_group_id(0) * RPW + slot) * cols; /* used only with partials */
    __global float *pb = pw + nparts * cols;
    const __global STORAGE(T_W) *wr = w + w_off;
#if NACC > 0
    floatv dwa[NACC], dba[NACC];
#pragma unroll
    for (int j = 0; j < NACC; ++j)
        dwa[j] = dba[j] = 0.0f;
#else
    if (partials) {
        for (long k = lane; k < nv; k += TPR) {
            STW(pw, k * VEC, (floatv)0.0f);
            STW(pb, k * VEC, (floatv)0.0f);
        }
    }
#endif
#if NCACHE > 0
    floatv xh[NCACHE], gc[NCACHE];
#endif

    const ulong nblocks = (rows + RPW - 1) / RPW;
    /* The trip count depends on the work-group only, so every item reaches the same barriers. */
#ifdef CONTIG_ROWS
    /* CPUs: each group takes one contiguous range of row blocks, so a thread streams through
     * memory in order (the hardware prefetchers follow it) */
    const ulong ng = get_num_groups(0), g = get_group_id(0), per = nblocks / ng, extra = nblocks % ng;
    const ulong b0 = g * per + min(g, extra), b1 = b0 + per + (g < extra ? 1 : 0);
    for (ulong blk = b0; blk < b1; ++blk) {
#else
    for (ulong blk = get_group_id(0); blk < nblocks; blk += get_num_groups(0)) {
#endif
        const ulong row = blk * RPW + slot;
        const bool valid = row < rows;
        const ulong r = valid ? row : 0;
        const __global STORAGE(T_X) *xr = x + x_off + r * x_ld;
        const __global STORAGE(T_DY) *dyr = dy + dy_off + r * dy_ld;
        const float mu = valid ? mean[mean_off + r] : 0.0f;
        const float rs = valid ? rstd[rstd_off + r] : 0.0f;

        floatv sg = 0.0f, sgx = 0.0f;
        if (valid) {
#if NCACHE > 0
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                const long k = lane + (long)j * TPR;
                xh[j] = gc[j] = 0.0f;
                if (k < nv) {
                    const floatv d = LDV(T_DY, dyr, k * VEC);
                    xh[j] = (LDV(T_X, xr, k * VEC) - mu) * rs;
                    gc[j] = has_w ? d * LDV(T_W, wr, k * VEC) : d;
                    sg += gc[j];
                    sgx += gc[j] * xh[j];
                    dwa[j] += d * xh[j];
                    dba[j] += d;
                }
            }
#elif NACC > 0
#pragma unroll
            for (int j = 0; j < NACC; ++j) {
                const long k = lane + (long)j * TPR;
                if (k < nv) {
                    const floatv d = LDV(T_DY, dyr, k * VEC);
                    const floatv xhat = (LDV(T_X, xr, k * VEC) - mu) * rs;
                    const floatv g = has_w ? d * LDV(T_W, wr, k * VEC) : d;
                    sg += g;
                    sgx += g * xhat;
                    dwa[j] += d * xhat;
                    dba[j] += d;
                }
            }
#else
            {
                for (long k0 = lane; k0 < nv; k0 += CHUNK * TPR) { /* blocked sums, as in forward.cl */
                    floatv pg = 0.0f, pgx = 0.0f;
                    const long k1 = min(nv, k0 + CHUNK * TPR);
                    for (long k = k0; k < k1; k += TPR) {
                        const floatv d = LDV(T_DY, dyr, k * VEC);
                        const floatv xhat = (LDV(T_X, xr, k * VEC) - mu) * rs;
                        const floatv g = has_w ? d * LDV(T_W, wr, k * VEC) : d;
                        pg += g;
                        pgx += g * xhat;
                        if (partials) {
                            STW(pw, k * VEC, LDW(pw, k * VEC) + d * xhat);
                            STW(pb, k * VEC, LDW(pb, k * VEC) + d);
                        }
                    }
                    sg += pg;
                    sgx += pgx;
                }
            }
#endif
        }
        const float2 s = row_sum2((float2)(hsumv(sg), hsumv(sgx)), red);
        const float a = s.x / (float)cols, c = s.y / (float)cols;

        if (valid) {
            const __global STORAGE(T_DR) *drr = dr + dr_off + r * dr_ld;
            __global STORAGE(T_DX) *dxr = dx + dx_off + r * dx_ld;
#if NCACHE > 0
#pragma unroll
            for (int j = 0; j < NCACHE; ++j) {
                const long k = lane + (long)j * TPR;
                if (k < nv) {
                    floatv v = rs * (gc[j] - a - xh[j] * c);
                    if (flags & BWD_DRES)
                        v += LDV(T_DR, drr, k * VEC);
                    STV(T_DX, dxr, k * VEC, v);
                }
            }
#else
            {
                /* dx may be dres (in place): each element is read and written by the same item */
                for (long k = lane; k < nv; k += TPR) {
                    const floatv d = LDV(T_DY, dyr, k * VEC);
                    const floatv xhat = (LDV(T_X, xr, k * VEC) - mu) * rs;
                    const floatv g = has_w ? d * LDV(T_W, wr, k * VEC) : d;
                    floatv v = rs * (g - a - xhat * c);
                    if (flags & BWD_DRES)
                        v += LDV(T_DR, drr, k * VEC);
                    STV(T_DX, dxr, k * VEC, v);
                }
            }
#endif
        }
    }

    /* Combine the slots' sums into slot 0's partial row, in slot order (a fixed order). The loop
     * count is a compile-time constant and partials is uniform: every item reaches each barrier. */
    if (partials) {
        __global float *p0w = part + (ulong)get_group_id(0) * RPW * cols, *p0b = p0w + nparts * cols;
        for (uint s = 0; s < RPW; ++s) {
            if (slot == s) {
#if NACC > 0
#pragma unroll
                for (int j = 0; j < NACC; ++j) {
                    const long k = lane + (long)j * TPR;
                    if (k < nv) {
                        STW(p0w, k * VEC, s == 0 ? dwa[j] : LDW(p0w, k * VEC) + dwa[j]);
                        STW(p0b, k * VEC, s == 0 ? dba[j] : LDW(p0b, k * VEC) + dba[j]);
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
    }
}
