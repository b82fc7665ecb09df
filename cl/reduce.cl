/* clnorm — final reduction of the backward's partial sums into dweight and dbias.
 * A work-group takes RC adjacent columns (coalesced reads) with RL lanes per column (RL from the
 * host: as many as the device's work-group size allows, up to 32); lane l sums the partial rows
 * l, l + RL, l + 2RL, ... in order, then lane 0 adds the RL lane sums in order.
 * The order is fixed, so the result is bitwise the same from run to run. P == 0 (rows == 0)
 * writes zeros. PERM_VEC: the partial rows are stored in permuted-lane order (common.cl, LANE_PERM)
 * in vectors of PERM_VEC. Needs kernel_args.h and common.cl before it. */
#ifndef T_DW
#define T_DW f32
#endif
#ifndef T_DB
#define T_DB f32
#endif
#ifndef RC
#define RC 32
#endif
#ifndef RL
#define RL 8
#endif

#define RED_DWEIGHT 1u
#define RED_DBIAS 2u

/* rows p*pstride (p < nparts) of the dweight area; the dbias area starts at row dbias_row */
__kernel __attribute__((reqd_work_group_size(RC * RL, 1, 1)))
void clnorm_reduce(RED_ARGS, const __global float *part, __global STORAGE(T_DW) *dw,
                   __global STORAGE(T_DB) *db)
{
    /* the by-value arguments (cl/kernel_args.h's slots) under their own names */
    const ulong cols = KARG(args, RA_COLS), nparts = KARG(args, RA_NPARTS), pstride = KARG(args, RA_PSTRIDE),
                dbias_row = KARG(args, RA_DBIAS_ROW), dw_off = KARG(args, RA_DW_OFF), db_off = KARG(args, RA_DB_OFF);
    const uint flags = (uint)KARG(args, RA_FLAGS);
    __local float2 red[RL][RC];
    const uint lid = get_local_id(0), lc = lid % RC, ll = lid / RC;
    const ulong c = (ulong)get_group_id(0) * RC + lc;
    float2 s = 0.0f;
    if (c < cols) {
#ifdef PERM_VEC
        /* the backward ran with permuted lanes: column c sits at its lane's place in its vector */
        const ulong e = c % PERM_VEC, pos = c - e + (e % 2 ? PERM_VEC / 2 : 0) + e / 2;
#else
        const ulong pos = c;
#endif
        const __global float *pw = part + pos, *pb = part + dbias_row * cols + pos;
        const ulong step = RL * pstride * cols; /* from one of this lane's rows to the next */
        ulong p = ll, o = ll * pstride * cols;
        /* Four rows' loads are issued before their adds (a latency-bound loop otherwise); the
         * adds keep the plain loop's order, so the result does not depend on the unrolling. */
        for (; p + 3 * RL < nparts; p += 4 * RL, o += 4 * step) {
            const float2 a0 = (float2)(pw[o], pb[o]), a1 = (float2)(pw[o + step], pb[o + step]);
            const float2 a2 = (float2)(pw[o + 2 * step], pb[o + 2 * step]);
            const float2 a3 = (float2)(pw[o + 3 * step], pb[o + 3 * step]);
            s += a0;
            s += a1;
            s += a2;
            s += a3;
        }
        for (; p < nparts; p += RL, o += step)
            s += (float2)(pw[o], pb[o]);
    }
    red[ll][lc] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (ll == 0 && c < cols) {
        for (uint l = 1; l < RL; ++l)
            s += red[l][lc];
        if (flags & RED_DWEIGHT)
            ST1(T_DW, dw, dw_off + c, s.x);
        if (flags & RED_DBIAS)
            ST1(T_DB, db, db_off + c, s.y);
    }
}
