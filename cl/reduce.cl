/* clnorm — final reduction of the backward's partial sums into dweight and dbias.
 * A work-group takes RC adjacent columns (coalesced reads) with RL lanes per column; lane l sums
 * the partial rows l, l + RL, l + 2RL, ... in order, then lane 0 adds the RL lane sums in order.
 * The order is fixed, so the result is bitwise the same from run to run. P == 0 (rows == 0)
 * writes zeros. Needs common.cl. */
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
void clnorm_reduce(const ulong cols, const ulong nparts, const ulong pstride, const ulong dbias_row,
                   const uint flags, const __global float *part,
                   __global STORAGE(T_DW) *dw, const ulong dw_off,
                   __global STORAGE(T_DB) *db, const ulong db_off)
{
    __local float2 red[RL][RC];
    const uint lid = get_local_id(0), lc = lid % RC, ll = lid / RC;
    const ulong c = (ulong)get_group_id(0) * RC + lc;
    float2 s = 0.0f;
    if (c < cols) {
        const __global float *pb = part + dbias_row * cols;
        for (ulong p = ll; p < nparts; p += RL)
            s += (float2)(part[p * pstride * cols + c], pb[p * pstride * cols + c]);
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
