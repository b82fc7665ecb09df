/* The shape table run by the forward and backward suites for every dtype configuration: every
 * cols value (1, 3, 64, 257, 1000, 4096, 12289, 70000) and every rows value (0, 1, 7, 33, 300)
 * appears for each configuration, and the affine / residual / stats / in-place / layout options
 * rotate with the configuration so that the four configurations cover different combinations. */
#ifndef CLNORM_TEST_CASE_TABLE_H
#define CLNORM_TEST_CASE_TABLE_H

#include "problem.h"

enum { DT_F32, DT_BF16, DT_F16, DT_MIXED, DT_COUNT }; /* DT_MIXED: bf16 activations, f32 parameters */

#define TABLE_CASES 12

case_cfg table_case(int backward, int dtcfg, int i);

/* The dtypes of a configuration: activations (x, y, dy, dx, dresidual) and parameters. */
clnorm_dtype dtcfg_act(int dtcfg);
clnorm_dtype dtcfg_par(int dtcfg);

#endif
