/* Device buffers with host images, views into them, and the checks of what came back.
 *
 * A tbuf is one cl_mem with three host arrays: `init` (the bytes uploaded before a call: inputs,
 * poisoned outputs and random sentinel bytes everywhere else), `got` (the bytes read back after
 * the call) and `checked` (one flag per byte, set by the view checks). After a call, each output
 * view is compared with its reference (tview_check) and every byte no check consumed must come
 * back bit-identical to `init` (tbuf_check_rest): padding, tails, gaps and the inputs. */
#ifndef CLNORM_TEST_HARNESS_H
#define CLNORM_TEST_HARNESS_H

#include <check.h>
#include <clnorm.h>
#include <stddef.h>

#include "prng.h"

/* Fails the current test when an OpenCL call does not return CL_SUCCESS. */
#define CL_OK(call)                                                                        \
    do {                                                                                   \
        cl_int cl_ok_err_ = (call);                                                        \
        ck_assert_msg(cl_ok_err_ == CL_SUCCESS, "%s failed: %d (%s)", #call, (int)cl_ok_err_, \
                      clnorm_status_string(cl_ok_err_));                                   \
    } while (0)

/* Fails the current test when a clnorm call does not succeed, with the library's message. */
#define CLNORM_OK(ctx, call)                                                                     \
    do {                                                                                         \
        clnorm_status clnorm_ok_st_ = (call);                                                    \
        ck_assert_msg(clnorm_ok_st_ == CLNORM_SUCCESS, "%s failed: %d (%s): %s", #call,          \
                      (int)clnorm_ok_st_, clnorm_status_string(clnorm_ok_st_),                   \
                      clnorm_context_last_error(ctx));                                           \
    } while (0)

/* The executable's shared context, made on first use with clnorm_context_create(NULL) so that
 * CLNORM_DEVICE decides the device. No device is a test failure, never a skip. */
clnorm_context *test_context(void);

/* 1 when the shared context's device is a CPU device (CPU-device modes: the local row), else 0. */
unsigned test_device_is_cpu(void);

/* 1 when the shared context's device belongs to PoCL's platform, else 0. */
unsigned test_pocl_platform(void);

/* 1 when the shared context's device is PoCL's CPU device on an x86 host whose CPU has AVX-512
 * with AVX512_BF16, AVX512BW and AVX512VL, Intel's or AMD's (a device name with "avx512": PoCL
 * compiles for it): the library's CPU row then takes its *_intel_bf16 bounds and, once its probe
 * passes, stores bf16 with vcvtneps2bf16 (X86_BF16; params.c, probe.c). Else 0. */
unsigned test_pocl_x86_avx512_bf16(void);

/* Runs a suite without fork (CK_NOFORK), releases the shared context, returns the exit code. */
int test_run_suite(Suite *suite);

typedef struct tbuf {
    cl_mem mem;
    size_t nbytes;
    size_t planned; /* bytes taken by the views placed so far (tview_place) */
    unsigned char *init;
    unsigned char *got;
    unsigned char *checked;
    const char *name;
    void *host; /* CLNORM_TEST_HOST_PTR_SKEW: the memory the cl_mem uses (CL_MEM_USE_HOST_PTR) */
} tbuf;

typedef struct tview {
    tbuf *buf;     /* NULL: the tensor is absent */
    size_t offset; /* elements */
    size_t stride; /* as given to the library: 0 = dense */
    size_t rows, cols; /* a vector is 1 x n */
    clnorm_dtype dtype;
    int vector;    /* printed as name[i] rather than name[row, col] */
    const char *name;
} tview;

/* How tview_place puts a view after the previous ones of its buffer. */
typedef struct placement {
    size_t gap;      /* elements left free before the view */
    size_t pad;      /* > 0: row_stride = cols + pad, rounded up to align */
    size_t align;    /* offset (and a padded row_stride) rounded up to a multiple of this (1: none) */
    int explicit_stride; /* pad 0: row_stride = cols given explicitly instead of 0 (dense) */
} placement;

void tbuf_init(tbuf *b, const char *name);
/* Places a rows x cols view (a vector: rows 1) of dtype dt at the end of b's planned bytes. */
void tview_place(tview *v, tbuf *b, const char *name, clnorm_dtype dt, size_t rows, size_t cols, placement pl);
void tview_place_vector(tview *v, tbuf *b, const char *name, clnorm_dtype dt, size_t n, placement pl);
/* Creates the cl_mem with the planned bytes plus tail_bytes and fills `init` with random bytes.
 * With CLNORM_TEST_HOST_PTR_SKEW=N (bytes, a multiple of 4), the cl_mem is CL_MEM_USE_HOST_PTR
 * memory of the test's own that starts N, 2N or 3N bytes (drawn from r) past a 4096-byte boundary:
 * a CPU device then works in memory at the caller's alignment, which the library must allow for. */
void tbuf_alloc(tbuf *b, cl_context clctx, size_t tail_bytes, rng *r);
void tbuf_free(tbuf *b);
void tbuf_upload(tbuf *b, cl_command_queue q);
void tbuf_download(tbuf *b, cl_command_queue q); /* also clears the `checked` flags */
/* Makes `init` what the device holds now (after a call whose outputs are the next call's inputs). */
void tbuf_adopt(tbuf *b);

size_t tview_elem(const tview *v, size_t r, size_t c);
size_t tview_end(const tview *v); /* one past the last element the view covers */
clnorm_matrix tview_matrix(const tview *v);
clnorm_vector tview_vector(const tview *v);

/* Stores vals (rows*cols, dense) into the view in `init`, rounded to the dtype, and replaces each
 * value with the one stored, so that the reference sees exactly what the device sees. */
void tview_store(const tview *v, double *vals);
/* Fills the view in `init` with 0xFF bytes (a NaN in every dtype). */
void tview_poison(const tview *v);
/* Decodes the view from `got`. */
void tview_read(const tview *v, double *out);
/* Compares the view in `got` with ref (tol: tol_within's fp32 bound per element), marks its bytes
 * as checked, prints the first mismatches (tensor, row, col, got, expected, tolerance) with the
 * case description, and returns the number of mismatches. */
size_t tview_check(const tview *v, const double *ref, const double *tol, const char *what);
/* Checks that every byte of `got` not marked checked equals `init`; prints and counts mismatches. */
size_t tbuf_check_rest(const tbuf *b, const char *what);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);

/* An environment variable's value, copied (NULL: unset), and that variable put back from such a
 * copy (set, or unset for NULL), the copy freed: for tests that set CLNORM_* variables around a
 * context's creation */
char *save_env(const char *name);
void restore_env(const char *name, char *saved);

/* The reference count of the caller's queue / cl_context, after waiting up to a second for it to
 * come down to want: drivers (PoCL) drop the references their events and programs hold a little
 * after those complete or are released. A count that stays higher is a reference kept. */
cl_uint queue_refs_now(cl_command_queue q);
cl_uint context_refs_now(cl_context c);
cl_uint settled_queue_refs(cl_command_queue q, cl_uint want);
cl_uint settled_context_refs(cl_context c, cl_uint want);

#endif
