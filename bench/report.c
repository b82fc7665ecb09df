/* clnorm-bench — text table, JSON and CSV output. */
#include "report.h"

#include "dtype.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void report_header(FILE *f, const bench_header *h)
{
    unsigned v = clnorm_version();
    fprintf(f, "# clnorm-bench %s (library %u.%u.%u) | set: %s | %d timed reps after %d warm-up, median reported\n",
        CLNORM_VERSION_STRING, v / 10000, v / 100 % 100, v % 100, h->set, h->reps, h->warmup);
    fprintf(f, "# device: %s | platform: %s | driver: %s | %s | %u compute units | date: %s\n", h->device,
        h->platform, h->driver, h->device_version, h->compute_units, h->date);
    fprintf(f, "# timing: %s\n", h->timing);
    fprintf(f, "# bytes: forward 2, backward 3, backward_res and unfused 4, backward_dx 3, backward_dx_res 4 tensors "
               "(weights and statistics not counted); copy: float4 copy of one tensor, read+write, run right before the "
               "op in every repetition (fraction: median of the per-repetition ratios)\n");
    if (h->vs) {
        fprintf(f, "# vs: %s %s | CPU engine, host memory | %s runtime, ", h->vs->library, h->vs->version,
            h->vs->runtime);
        if (h->vs->threads > 0)
            fprintf(f, "%d threads", h->vs->threads);
        else
            fputs("threads unknown", f);
        fprintf(f, " | ISA %s\n", h->vs->isa);
        fprintf(f, "# vs timing: %s\n", h->vs->timing);
        fprintf(f, "# %s rows: same inputs and bytes model as clnorm's row above them, fraction of the median of "
                   "clnorm's copy figures for the case; "
                   "clnorm/%s = %s's time / clnorm's (above 1: clnorm faster)\n",
            h->vs->library, h->vs->library, h->vs->library);
        char ratio[64];
        snprintf(ratio, sizeof ratio, "clnorm/%s", h->vs->library);
        fprintf(f, "%-7s %-15s %-5s %10s %6s %10s %9s %9s %8s %13s\n", "impl", "op", "dtype", "rows", "cols", "ms",
            "GB/s", "copyGB/s", "fraction", ratio);
    } else {
        fprintf(f, "%-15s %-5s %10s %6s %10s %9s %9s %8s\n", "op", "dtype", "rows", "cols", "ms", "GB/s", "copyGB/s",
            "fraction");
    }
    fflush(f);
}

void report_line(FILE *f, const bench_header *h, const bench_result *r)
{
    if (h->vs)
        fprintf(f, "%-7s ", r->impl);
    fprintf(f, "%-15s %-5s %10zu %6zu ", r->op, dtype_name(r->dtype), r->rows, r->cols);
    if (isfinite(r->ms))
        fprintf(f, "%10.4f %9.2f %9.2f %8.3f", r->ms, r->gbps, r->copy_gbps, r->fraction);
    else
        fprintf(f, "%10s %9s %9.2f %8s", "n/a", "n/a", r->copy_gbps, "n/a");
    if (h->vs && isfinite(r->speedup))
        fprintf(f, " %13.3f", r->speedup);
    if (r->note[0])
        fprintf(f, "  (%s)", r->note);
    fputc('\n', f);
    fflush(f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* JSON has no NaN or Inf: write null for a value that could not be measured. */
static void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

int report_json(const char *path, const bench_header *h, const bench_result *r, int n)
{
    FILE *f = fopen(path, "w");
    int i;
    if (!f) {
        fprintf(stderr, "clnorm-bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fputs("{\n  \"device\": ", f);
    json_string(f, h->device);
    fputs(",\n  \"platform\": ", f);
    json_string(f, h->platform);
    fputs(",\n  \"driver\": ", f);
    json_string(f, h->driver);
    fprintf(f, ",\n  \"compute_units\": %u", h->compute_units);
    fputs(",\n  \"date\": ", f);
    json_string(f, h->date);
    fputs(",\n  \"set\": ", f);
    json_string(f, h->set);
    fputs(",\n  \"timing\": ", f);
    json_string(f, h->timing);
    fprintf(f, ",\n  \"reps\": %d,\n  \"warmup\": %d", h->reps, h->warmup);
    if (h->vs) {
        fputs(",\n  \"vs\": {\"library\": ", f);
        json_string(f, h->vs->library);
        fputs(", \"version\": ", f);
        json_string(f, h->vs->version);
        fputs(", \"runtime\": ", f);
        json_string(f, h->vs->runtime);
        fputs(", \"threads\": ", f);
        if (h->vs->threads > 0)
            fprintf(f, "%d", h->vs->threads);
        else
            fputs("null", f);
        fputs(", \"isa\": ", f);
        json_string(f, h->vs->isa);
        fputs(", \"timing\": ", f);
        json_string(f, h->vs->timing);
        fputc('}', f);
    }
    fputs(",\n  \"results\": [", f);
    for (i = 0; i < n; ++i) {
        fprintf(f, "%s\n    {\"impl\": ", i ? "," : "");
        json_string(f, r[i].impl);
        fputs(", \"op\": ", f);
        json_string(f, r[i].op);
        fputs(", \"dtype\": ", f);
        json_string(f, dtype_name(r[i].dtype));
        fprintf(f, ", \"rows\": %zu, \"cols\": %zu, \"headline\": %s, \"ms\": ", r[i].rows, r[i].cols,
            r[i].headline ? "true" : "false");
        json_number(f, r[i].ms);
        fputs(", \"gbps\": ", f);
        json_number(f, r[i].gbps);
        fputs(", \"copy_gbps\": ", f);
        json_number(f, r[i].copy_gbps);
        fputs(", \"fraction\": ", f);
        json_number(f, r[i].fraction);
        if (h->vs) {
            fputs(", \"speedup\": ", f);
            json_number(f, r[i].speedup);
        }
        if (r[i].note[0]) {
            fputs(", \"note\": ", f);
            json_string(f, r[i].note);
        }
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
    if (fclose(f) != 0) {
        fprintf(stderr, "clnorm-bench: error writing %s\n", path);
        return -1;
    }
    return 0;
}

/* CSV has no NaN either: leave the field empty. */
static void csv_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
}

int report_csv(const char *path, const bench_result *r, int n)
{
    FILE *f = fopen(path, "w");
    int i;
    if (!f) {
        fprintf(stderr, "clnorm-bench: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fputs("op,dtype,rows,cols,ms,gbps,copy_gbps,fraction,headline,impl,speedup\n", f);
    for (i = 0; i < n; ++i) {
        /* op and dtype names are plain identifiers: no quoting needed */
        fprintf(f, "%s,%s,%zu,%zu,", r[i].op, dtype_name(r[i].dtype), r[i].rows, r[i].cols);
        csv_number(f, r[i].ms);
        fputc(',', f);
        csv_number(f, r[i].gbps);
        fputc(',', f);
        csv_number(f, r[i].copy_gbps);
        fputc(',', f);
        csv_number(f, r[i].fraction);
        fprintf(f, ",%d,%s,", r[i].headline, r[i].impl);
        csv_number(f, r[i].speedup);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "clnorm-bench: error writing %s\n", path);
        return -1;
    }
    return 0;
}
