/* clnorm — the per-thread last error.
 * Each thread keeps the message of its own last failure together with the context it concerned,
 * so two threads never see (or tear) each other's messages and no lock is needed. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Large enough for a message plus a typical compiler log; longer text is cut with a visible mark. */
#define CLNORM_ERROR_CAPACITY 16384

static _Thread_local struct {
    const clnorm_context *ctx;
    char text[CLNORM_ERROR_CAPACITY];
} last;

static void mark_truncated(void)
{
    static const char mark[] = " ...[truncated]";
    memcpy(last.text + CLNORM_ERROR_CAPACITY - sizeof mark, mark, sizeof mark);
}

clnorm_status clnorm__fail(const clnorm_context *ctx, clnorm_status status, const char *fmt, ...)
{
    last.ctx = ctx;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(last.text, sizeof last.text, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof last.text)
        mark_truncated();
    return status;
}

void clnorm__fail_append(const char *text)
{
    size_t used = strlen(last.text), add = strlen(text);
    if (used + add + 1 > sizeof last.text) {
        memcpy(last.text + used, text, sizeof last.text - used - 1);
        last.text[sizeof last.text - 1] = '\0';
        mark_truncated();
    } else {
        memcpy(last.text + used, text, add + 1);
    }
}

void clnorm__clear_error(const clnorm_context *ctx)
{
    if (last.ctx == ctx)
        last.text[0] = '\0';
}

const char *clnorm_context_last_error(const clnorm_context *ctx)
{
    return last.ctx == ctx ? last.text : "";
}
