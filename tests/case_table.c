#include "case_table.h"

#include <check.h>

static const struct {
    size_t rows, cols;
    int layout[2]; /* [0]: f32 and f16 configurations, [1]: bf16 and mixed */
} shapes[TABLE_CASES] = {
    { 300, 1, { LAY_PAD_ODD, LAY_DENSE } },
    { 33, 3, { LAY_DENSE_OFFSET, LAY_PAD_ALIGNED } },
    { 300, 64, { LAY_PAD_ALIGNED, LAY_PAD_ODD } },
    { 7, 257, { LAY_SHARED, LAY_EXPLICIT } },
    { 300, 1000, { LAY_DENSE, LAY_SHARED } },
    { 33, 4096, { LAY_PAD_ODD, LAY_PAD_ALIGNED } },
    { 7, 12289, { LAY_PAD_ALIGNED, LAY_DENSE_OFFSET } },
    { 7, 70000, { LAY_EXPLICIT, LAY_PAD_ODD } },
    { 1, 70000, { LAY_SHARED, LAY_PAD_ALIGNED } },
    { 1, 3, { LAY_DENSE, LAY_SHARED } },
    { 0, 1000, { LAY_PAD_ALIGNED, LAY_DENSE_OFFSET } },
    { 0, 1, { LAY_PAD_ODD, LAY_EXPLICIT } },
};

static const clnorm_dtype act_dtypes[DT_COUNT] = { CLNORM_F32, CLNORM_BF16, CLNORM_F16, CLNORM_BF16 };
static const clnorm_dtype par_dtypes[DT_COUNT] = { CLNORM_F32, CLNORM_BF16, CLNORM_F16, CLNORM_F32 };

clnorm_dtype dtcfg_act(int dtcfg)
{
    ck_assert(dtcfg >= 0 && dtcfg < DT_COUNT);
    return act_dtypes[dtcfg];
}

clnorm_dtype dtcfg_par(int dtcfg)
{
    ck_assert(dtcfg >= 0 && dtcfg < DT_COUNT);
    return par_dtypes[dtcfg];
}

case_cfg table_case(int backward, int dtcfg, int i)
{
    static const float eps[4] = { 1e-5f, 1e-3f, 1e-6f, 0.0f };
    ck_assert(dtcfg >= 0 && dtcfg < DT_COUNT && i >= 0 && i < TABLE_CASES);
    int k = i + dtcfg; /* rotation */
    case_cfg c = { 0 };
    c.rows = shapes[i].rows;
    c.cols = shapes[i].cols;
    c.act = act_dtypes[dtcfg];
    c.par = par_dtypes[dtcfg];
    c.layout = shapes[i].layout[dtcfg % 2];
    c.affine = k % AFF_COUNT;
    c.residual = backward ? k % RES_COUNT : RES_NONE;
    c.stats = k % STATS_COUNT;
    c.inplace = !backward && k % 3 == 1;
    c.stats_from_library = backward && k % 4 == 3;
    c.data = DATA_RANDOM;
    c.eps = eps[k % 4];
    if (c.eps == 0.0f && c.cols == 1) /* a single column has variance 0: eps 0 would give rstd inf */
        c.eps = 1e-5f;
    c.seed = 0x5eed0000u + (uint64_t)backward * 1000u + (uint64_t)dtcfg * 100u + (uint64_t)i;
    return c;
}
