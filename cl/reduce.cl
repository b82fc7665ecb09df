/* clnorm — final reduction of the backward's partial sums into dweight and dbias.
 * One work-item per column sums the P partial rows in a fixed order (p = 0, 1, ..., P-1), so the
 * result is bitwise the same from run to run. P == 0 (rows == 0) writes zeros. Needs common.cl. */
#ifndef T_DW
#define T_DW f32
#endif
#ifndef T_DB
#define T_DB f32
#endif

#define RED_DWEIGHT 1u
#define RED_DBIAS 2u

__kernel void clnorm_reduce(const ulong cols, const ulong nparts, const uint flags,
                            const __global float *part,
                            __global STORAGE(T_DW) *dw, const ulong dw_off,
                            __global STORAGE(T_DB) *db, const ulong db_off)
{
    const ulong c = get_global_id(0);
    if (c >= cols)
        return;
    if (flags & RED_DWEIGHT) {
        float s = 0.0f;
        for (ulong p = 0; p < nparts; ++p)
            s += part[p * cols + c];
        ST1(T_DW, dw, dw_off + c, s);
    }
    if (flags & RED_DBIAS) {
        const __global float *pb = part + nparts * cols;
        float s = 0.0f;
        for (ulong p = 0; p < nparts; ++p)
            s += pb[p * cols + c];
        ST1(T_DB, db, db_off + c, s);
    }
}
