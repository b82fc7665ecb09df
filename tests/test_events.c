/* Events: wait lists are honoured (a user event holds the work back: the returned event stays
 * incomplete and the outputs untouched until the user event completes), rows == 0 still returns
 * an event that completes (and follows the wait list), event NULL is accepted, and a forward's
 * event can gate a backward. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dtype.h"
#include "harness.h"
#include "problem.h"

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static cl_event user_event(clnorm_context *ctx)
{
    cl_int err;
    cl_event ue = clCreateUserEvent(clnorm_context_cl_context(ctx), &err);
    ck_assert_msg(err == CL_SUCCESS && ue, "clCreateUserEvent: %d", err);
    return ue;
}

static cl_int event_status(cl_event ev)
{
    cl_int status = -1;
    CL_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    return status;
}

/* While the work is held back: the event is not complete, and every buffer, read through a
 * second queue (not ordered after the held work), is still exactly as uploaded. */
static void expect_held(problem *p, clnorm_context *ctx, cl_event ev)
{
    cl_int err;
    CL_OK(clFlush(clnorm_context_queue(ctx)));
    sleep_ms(50);
    cl_int st = event_status(ev);
    ck_assert_msg(st > CL_COMPLETE, "%s: event status %d before the user event completed", p->what, st);
    cl_command_queue side = clCreateCommandQueue(clnorm_context_cl_context(ctx), clnorm_context_device(ctx), 0, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
    for (int i = 0; i < p->nbufs; i++) {
        tbuf_download(&p->bufs[i], side);
        ck_assert_msg(tbuf_check_rest(&p->bufs[i], p->what) == 0,
                      "%s: buffer %s changed before the user event completed", p->what, p->bufs[i].name);
    }
    CL_OK(clReleaseCommandQueue(side));
    st = event_status(ev);
    ck_assert_msg(st > CL_COMPLETE, "%s: event status %d before the user event completed", p->what, st);
}

static void finish_and_check(problem *p, clnorm_context *ctx, cl_event ev)
{
    wait_and_release(ev);
    size_t bad = problem_check(p, ctx);
    ck_assert_msg(bad == 0, "%s: %zu mismatches (details above)", p->what, bad);
}

static case_cfg ev_case(size_t rows, size_t cols, clnorm_dtype act, clnorm_dtype par, int affine, int layout, uint64_t seed)
{
    case_cfg c = case_basic(rows, cols, act, par, affine, layout, seed);
    c.stats = STATS_BOTH;
    return c;
}

/* One held call: backward or forward, with one or two user events in the wait list. */
static void held_call_on(clnorm_context *ctx, const case_cfg *c, int backward, int nuser)
{
    problem *p = xmalloc(sizeof *p);
    cl_event ue[2], ev = NULL;
    if (backward)
        bwd_setup(p, ctx, c);
    else
        fwd_setup(p, ctx, c);
    for (int i = 0; i < nuser; i++)
        ue[i] = user_event(ctx);
    clnorm_status st = backward ? bwd_enqueue(p, ctx, (cl_uint)nuser, ue, &ev) : fwd_enqueue(p, ctx, (cl_uint)nuser, ue, &ev);
    if (st != CLNORM_SUCCESS)
        for (int i = 0; i < nuser; i++)
            clSetUserEventStatus(ue[i], CL_COMPLETE); /* do not leave the queue blocked */
    CLNORM_OK(ctx, st);
    ck_assert_msg(ev != NULL, "%s: no event returned", p->what);
    for (int i = 0; i < nuser; i++) {
        expect_held(p, ctx, ev);
        CL_OK(clSetUserEventStatus(ue[i], CL_COMPLETE));
    }
    finish_and_check(p, ctx, ev);
    for (int i = 0; i < nuser; i++)
        CL_OK(clReleaseEvent(ue[i]));
    problem_free(p);
    free(p);
}

static void held_call(const case_cfg *c, int backward, int nuser) { held_call_on(test_context(), c, backward, nuser); }

/* A backend's own queue (in-order, then out-of-order where the device has it): a forward and a
 * backward with residual each held back by a user event completed only after the call returned. */
static void caller_queue_held(cl_command_queue_properties props)
{
    cl_int err;
    cl_device_id dev = clnorm_context_device(test_context());
    cl_command_queue_properties supported = 0;
    CL_OK(clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL));
    ck_assert_msg((supported & props) == props, "the device lacks queue properties 0x%lx", (unsigned long)props);
    cl_context clctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_OK(err);
    cl_command_queue q = clCreateCommandQueue(clctx, dev, props, &err);
    CL_OK(err);
    clnorm_context *ctx = NULL;
    CLNORM_OK(NULL, clnorm_context_create_from_queue(q, &ctx));
    case_cfg f = ev_case(33, 1000, CLNORM_BF16, CLNORM_F32, AFF_WB, LAY_PAD_ODD, 0xe9 + props);
    held_call_on(ctx, &f, 0, 1);
    case_cfg b = ev_case(300, 257, CLNORM_F32, CLNORM_F32, AFF_W, LAY_PAD_ALIGNED, 0xea + props);
    b.residual = RES_SEPARATE;
    held_call_on(ctx, &b, 1, 1);
    clnorm_context_release(ctx);
    CL_OK(clReleaseCommandQueue(q));
    CL_OK(clReleaseContext(clctx));
}

START_TEST(caller_in_order_queue_waits_for_user_event) { caller_queue_held(0); }
END_TEST

/* Only where the device offers out-of-order queues (PoCL does, so CI always runs it). */
START_TEST(caller_out_of_order_queue_waits_for_user_event)
{
    cl_command_queue_properties supported = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_QUEUE_PROPERTIES, sizeof supported,
                          &supported, NULL));
    if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        caller_queue_held(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    else
        fprintf(stderr, "caller_out_of_order_queue_waits_for_user_event: device has no out-of-order queues\n");
}
END_TEST


/* Out-of-order queue: back-to-back backward calls that share the context's workspace, enqueued
 * without waiting, give bitwise the results of the same calls on an in-order queue. */
enum { OOO_CALLS = 6, OOO_ROWS = 300, OOO_COLS = 1000 };

/* events 0: calls after the first ask for no event, so on an out-of-order queue only the
 * context's workspace event orders them */
static void ooo_run(cl_command_queue_properties props, float *out /* OOO_CALLS x (dx, dw, db) */, int events)
{
    cl_int err;
    cl_device_id dev = clnorm_context_device(test_context());
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_OK(err);
    cl_command_queue q = clCreateCommandQueue(c, dev, props, &err);
    CL_OK(err);
    clnorm_context *ctx = NULL;
    CLNORM_OK(NULL, clnorm_context_create_from_queue(q, &ctx));
    const size_t n = (size_t)OOO_ROWS * OOO_COLS, per = n + 2 * OOO_COLS;
    float *h = xmalloc(3 * n * sizeof(float) + 2 * OOO_ROWS * sizeof(float));
    cl_mem in[OOO_CALLS][4], o[OOO_CALLS][3];
    cl_event ev[OOO_CALLS];
    for (int k = 0; k < OOO_CALLS; ++k) {
        rng r;
        rng_seed(&r, 0x000ull + (uint64_t)k);
        float *x = h, *dy = h + n, *w = h + 2 * n, *st = h + 3 * n;
        for (size_t i = 0; i < n; ++i) {
            x[i] = (float)rng_range(&r, -2.0, 2.0);
            dy[i] = (float)rng_normal(&r);
        }
        for (size_t i = 0; i < OOO_COLS; ++i)
            w[i] = (float)rng_range(&r, 0.5, 1.5);
        for (size_t i = 0; i < OOO_ROWS; ++i) {
            st[i] = (float)rng_range(&r, -0.5, 0.5);
            st[OOO_ROWS + i] = (float)rng_range(&r, 0.5, 2.0);
        }
        in[k][0] = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, x, &err);
        CL_OK(err);
        in[k][1] = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, dy, &err);
        CL_OK(err);
        in[k][2] = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, OOO_COLS * 4, w, &err);
        CL_OK(err);
        in[k][3] = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 2 * OOO_ROWS * 4, st, &err);
        CL_OK(err);
        o[k][0] = clCreateBuffer(c, CL_MEM_READ_WRITE, n * 4, NULL, &err);
        CL_OK(err);
        o[k][1] = clCreateBuffer(c, CL_MEM_READ_WRITE, OOO_COLS * 4, NULL, &err);
        CL_OK(err);
        o[k][2] = clCreateBuffer(c, CL_MEM_READ_WRITE, OOO_COLS * 4, NULL, &err);
        CL_OK(err);
    }
    /* The first call waits for a user event; the second, with no wait list of its own, must still
     * wait for the first (they share the workspace), also on an out-of-order queue. */
    cl_event gate = clCreateUserEvent(c, &err);
    CL_OK(err);
    for (int k = 0; k < OOO_CALLS; ++k) { /* back to back, nothing waited for in between */
        const clnorm_matrix X = {in[k][0], 0, 0, CLNORM_F32}, DY = {in[k][1], 0, 0, CLNORM_F32},
                            DX = {o[k][0], 0, 0, CLNORM_F32};
        const clnorm_vector W = {in[k][2], 0, CLNORM_F32}, M = {in[k][3], 0, CLNORM_F32},
                            R = {in[k][3], OOO_ROWS, CLNORM_F32}, DW = {o[k][1], 0, CLNORM_F32},
                            DB = {o[k][2], 0, CLNORM_F32};
        ev[k] = NULL;
        CLNORM_OK(ctx, clnorm_layer_norm_backward(ctx, OOO_ROWS, OOO_COLS, &DY, &X, &W, &M, &R, NULL, &DX, &DW, &DB,
                                                  k == 0 ? 1 : 0, k == 0 ? &gate : NULL,
                                                  events || k == 0 ? &ev[k] : NULL));
    }
    CL_OK(clFlush(q));
    sleep_ms(100);
    if (events)
        ck_assert_msg(event_status(ev[1]) > CL_COMPLETE, "the second backward ran before the first (queue 0x%lx)",
                      (unsigned long)props);
    CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    CL_OK(clFinish(q));
    clReleaseEvent(gate);
    for (int k = 0; k < OOO_CALLS; ++k) {
        CL_OK(clEnqueueReadBuffer(q, o[k][0], CL_TRUE, 0, n * 4, out + k * per, 0, NULL, NULL));
        CL_OK(clEnqueueReadBuffer(q, o[k][1], CL_TRUE, 0, OOO_COLS * 4, out + k * per + n, 0, NULL, NULL));
        CL_OK(clEnqueueReadBuffer(q, o[k][2], CL_TRUE, 0, OOO_COLS * 4, out + k * per + n + OOO_COLS, 0, NULL, NULL));
        if (ev[k])
            clReleaseEvent(ev[k]);
        for (int i = 0; i < 4; ++i)
            clReleaseMemObject(in[k][i]);
        for (int i = 0; i < 3; ++i)
            clReleaseMemObject(o[k][i]);
    }
    free(h);
    clnorm_context_release(ctx);
    CL_OK(clReleaseCommandQueue(q));
    CL_OK(clReleaseContext(c));
}

START_TEST(out_of_order_backward_calls_match_in_order)
{
    cl_command_queue_properties supported = 0;
    CL_OK(clGetDeviceInfo(clnorm_context_device(test_context()), CL_DEVICE_QUEUE_PROPERTIES, sizeof supported,
                          &supported, NULL));
    if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        fprintf(stderr, "out_of_order_backward_calls_match_in_order: device has no out-of-order queues\n");
        return;
    }
    const size_t per = (size_t)OOO_ROWS * OOO_COLS + 2 * OOO_COLS;
    float *a = xmalloc(OOO_CALLS * per * sizeof(float)), *b = xmalloc(OOO_CALLS * per * sizeof(float));
    ooo_run(0, a, 1);
    for (int events = 1; events >= 0; --events) {
        memset(b, 0xA5, OOO_CALLS * per * sizeof(float));
        ooo_run(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, b, events);
        for (size_t i = 0; i < OOO_CALLS * per; ++i)
            ck_assert_msg(memcmp(&a[i], &b[i], sizeof(float)) == 0,
                          "call %zu, element %zu: in-order %.9g, out-of-order %.9g (%s)", i / per, i % per,
                          (double)a[i], (double)b[i], events ? "events asked for" : "no events after the first");
    }
    free(a);
    free(b);
}
END_TEST

START_TEST(forward_waits_for_user_event)
{
    case_cfg c = ev_case(33, 1000, CLNORM_F32, CLNORM_F32, AFF_WB, LAY_PAD_ALIGNED, 0xe1);
    held_call(&c, 0, 1);
}
END_TEST

START_TEST(forward_waits_for_two_user_events)
{
    case_cfg c = ev_case(7, 257, CLNORM_F16, CLNORM_F16, AFF_W, LAY_PAD_ODD, 0xe2);
    held_call(&c, 0, 2);
}
END_TEST

START_TEST(backward_waits_for_user_event)
{
    case_cfg c = ev_case(300, 64, CLNORM_BF16, CLNORM_BF16, AFF_WB, LAY_DENSE_OFFSET, 0xe3);
    c.residual = RES_SEPARATE;
    held_call(&c, 1, 1);
}
END_TEST

/* The backward's mean/rstd come from a forward; the backward waits for it and a user event. */
START_TEST(backward_chained_after_forward_and_user_event)
{
    case_cfg c = ev_case(33, 4096, CLNORM_F32, CLNORM_F32, AFF_GRADS, LAY_PAD_ALIGNED, 0xe4);
    c.residual = RES_INPLACE;
    c.stats_from_library = 1;
    clnorm_context *ctx = test_context();
    problem *p = xmalloc(sizeof *p);
    bwd_setup(p, ctx, &c);
    cl_event ue = user_event(ctx), ev = NULL;
    clnorm_status st = bwd_enqueue(p, ctx, 1, &ue, &ev);
    if (st != CLNORM_SUCCESS)
        clSetUserEventStatus(ue, CL_COMPLETE);
    CLNORM_OK(ctx, st);
    CL_OK(clFlush(clnorm_context_queue(ctx)));
    sleep_ms(50);
    ck_assert_msg(event_status(ev) > CL_COMPLETE, "backward completed before its user event");
    CL_OK(clSetUserEventStatus(ue, CL_COMPLETE));
    finish_and_check(p, ctx, ev);
    CL_OK(clReleaseEvent(ue));
    problem_free(p);
    free(p);
}
END_TEST

/* rows == 0: nothing is written, yet the returned event (a marker) follows the wait list and
 * completes. */
START_TEST(forward_rows0_event_follows_wait_list)
{
    case_cfg c = ev_case(0, 1000, CLNORM_BF16, CLNORM_F32, AFF_WB, LAY_PAD_ODD, 0xe5);
    held_call(&c, 0, 1);
}
END_TEST

START_TEST(forward_rows0_event_completes)
{
    clnorm_context *ctx = test_context();
    case_cfg c = ev_case(0, 64, CLNORM_F32, CLNORM_F32, AFF_WB, LAY_DENSE_OFFSET, 0xe6);
    problem *p = xmalloc(sizeof *p);
    fwd_setup(p, ctx, &c);
    cl_event ev = NULL;
    CLNORM_OK(ctx, fwd_enqueue(p, ctx, 0, NULL, &ev));
    finish_and_check(p, ctx, ev); /* no view elements: every byte must come back as uploaded */
    problem_free(p);
    free(p);
}
END_TEST

/* rows == 0 backward: dweight and dbias become exactly zero, nothing else changes; the zeros
 * follow the wait list too. */
START_TEST(backward_rows0_writes_zeros)
{
    static const clnorm_dtype dts[] = { CLNORM_F32, CLNORM_BF16, CLNORM_F16 };
    clnorm_context *ctx = test_context();
    case_cfg c = ev_case(0, _i == 0 ? 1000 : 257, dts[_i], dts[_i], AFF_WB, _i == 1 ? LAY_PAD_ODD : LAY_PAD_ALIGNED,
                         0xe7 + (uint64_t)_i);
    c.residual = RES_SEPARATE;
    problem *p = xmalloc(sizeof *p);
    bwd_setup(p, ctx, &c);
    cl_event ue = user_event(ctx), ev = NULL;
    clnorm_status st = bwd_enqueue(p, ctx, 1, &ue, &ev);
    if (st != CLNORM_SUCCESS)
        clSetUserEventStatus(ue, CL_COMPLETE);
    CLNORM_OK(ctx, st);
    expect_held(p, ctx, ev);
    CL_OK(clSetUserEventStatus(ue, CL_COMPLETE));
    finish_and_check(p, ctx, ev);
    for (size_t i = 0; i < c.cols; i++) {
        double dw = dtype_load(p->dw.dtype, p->dw.buf->got, p->dw.offset + i);
        double db = dtype_load(p->db.dtype, p->db.buf->got, p->db.offset + i);
        ck_assert_msg(dw == 0.0 && db == 0.0, "rows 0: dweight[%zu] = %g, dbias[%zu] = %g, expected 0", i, dw, i, db);
    }
    CL_OK(clReleaseEvent(ue));
    problem_free(p);
    free(p);
}
END_TEST

/* event NULL: the work is still enqueued; clFinish on the queue waits for it. */
START_TEST(event_null_accepted)
{
    clnorm_context *ctx = test_context();
    case_cfg c = ev_case(7, 3000, CLNORM_F16, CLNORM_F32, AFF_B, LAY_PAD_ALIGNED, 0xe8 + (uint64_t)_i);
    problem *p = xmalloc(sizeof *p);
    if (_i) {
        c.residual = RES_INPLACE;
        bwd_setup(p, ctx, &c);
        CLNORM_OK(ctx, bwd_enqueue(p, ctx, 0, NULL, NULL));
    } else {
        fwd_setup(p, ctx, &c);
        CLNORM_OK(ctx, fwd_enqueue(p, ctx, 0, NULL, NULL));
    }
    CL_OK(clFinish(clnorm_context_queue(ctx)));
    size_t bad = problem_check(p, ctx);
    ck_assert_msg(bad == 0, "%s: %zu mismatches (details above)", p->what, bad);
    problem_free(p);
    free(p);
}
END_TEST

static Suite *events_suite(void)
{
    Suite *s = suite_create("events");
    TCase *tc = tcase_create("wait_lists");
    tcase_add_test(tc, forward_waits_for_user_event);
    tcase_add_test(tc, caller_in_order_queue_waits_for_user_event);
    tcase_add_test(tc, caller_out_of_order_queue_waits_for_user_event);
    tcase_add_test(tc, out_of_order_backward_calls_match_in_order);
    tcase_add_test(tc, forward_waits_for_two_user_events);
    tcase_add_test(tc, backward_waits_for_user_event);
    tcase_add_test(tc, backward_chained_after_forward_and_user_event);
    suite_add_tcase(s, tc);
    tc = tcase_create("rows0_and_null");
    tcase_add_test(tc, forward_rows0_event_follows_wait_list);
    tcase_add_test(tc, forward_rows0_event_completes);
    tcase_add_loop_test(tc, backward_rows0_writes_zeros, 0, 3);
    tcase_add_loop_test(tc, event_null_accepted, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(events_suite());
}
