/* clnorm-bench — output: the header, the results table on stdout, and the JSON and CSV files. */
#ifndef CLNORM_BENCH_REPORT_H
#define CLNORM_BENCH_REPORT_H

#include "bench_case.h"

#include <stdio.h>

typedef struct bench_header {
    const char *device;
    const char *platform;
    const char *driver;
    const char *device_version; /* CL_DEVICE_VERSION */
    const char *date;           /* ISO 8601, UTC */
    const char *set;            /* "quick", "full" or "custom" (--shape) */
    const char *timing;         /* one line: how times are measured */
    int reps, warmup;
} bench_header;

void report_header(FILE *f, const bench_header *h);
void report_line(FILE *f, const bench_result *r);

/* {"device":..., "driver":..., "date":..., ..., "results":[{op, dtype, rows, cols, ms, gbps,
 * copy_gbps, fraction}, ...]}. Returns 0, or -1 after printing why the file could not be written. */
int report_json(const char *path, const bench_header *h, const bench_result *r, int n);

/* A header line "op,dtype,rows,cols,ms,gbps,copy_gbps,fraction", then one line per result (a value
 * that could not be measured is left empty). Returns 0, or -1 after printing why the file could not
 * be written. */
int report_csv(const char *path, const bench_result *r, int n);

#endif
