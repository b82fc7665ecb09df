/* clnorm — the probe kernel: stores PROBE_N floats as bf16 through the same store path the
 * kernels use (stv_bf16 with the options the host is checking, e.g. X86_BF16), so the host can
 * compare the bits with round-to-nearest-even before it relies on that path. Needs common.cl. */
#ifndef PROBE_N
#define PROBE_N 32
#endif
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void clnorm_probe(const __global float *in, __global ushort *out)
{
    for (int i = 0; i < PROBE_N; i += VEC)
        STV(bf16, out, i, LDV(f32, in, i));
}
