/* clnorm-bench — output: the header, the results table on stdout, and the JSON and CSV files. */
#ifndef CLNORM_BENCH_REPORT_H
#define CLNORM_BENCH_REPORT_H

#include "bench_case.h"

#include <stdio.h>

/* The library measured next to clnorm (--vs), for the header and the JSON. */
typedef struct bench_vs_info {
    const char *library;  /* "onednn" */
    const char *version;  /* "2.6.3 (hash)" */
    const char *runtime;  /* CPU threading runtime: "OpenMP", ... */
    const char *isa;      /* the CPU instruction set it dispatches to */
    int threads;          /* threads it runs on (-1: unknown) */
    const char *timing;   /* one line: how its times are measured */
} bench_vs_info;

typedef struct bench_header {
    const char *device;
    const char *platform;
    const char *driver;
    const char *device_version; /* CL_DEVICE_VERSION */
    unsigned compute_units;     /* CL_DEVICE_MAX_COMPUTE_UNITS (PoCL: its worker threads) */
    const char *date;           /* ISO 8601, UTC */
    const char *set;            /* "quick", "full" or "custom" (--shape) */
    const char *timing;         /* one line: how times are measured */
    int reps, warmup;
    const bench_vs_info *vs;    /* NULL unless --vs */
} bench_header;

/* With h->vs the table has an impl column first and the clnorm/other speed ratio last. */
void report_header(FILE *f, const bench_header *h);
void report_line(FILE *f, const bench_header *h, const bench_result *r);

/* {"device":..., "driver":..., "date":..., ..., "results":[{impl, op, dtype, rows, cols, headline, ms,
 * gbps, copy_gbps, fraction[, speedup, note]}, ...]}. Returns 0, or -1 after printing why the file
 * could not be written. */
int report_json(const char *path, const bench_header *h, const bench_result *r, int n);

/* A header line "op,dtype,rows,cols,ms,gbps,copy_gbps,fraction,headline,impl,speedup", then one
 * line per result (a value that could not be measured is left empty). Returns 0, or -1 after
 * printing why the file could not be written. */
int report_csv(const char *path, const bench_result *r, int n);

#endif
