/* The model: the parameter fit on synthetic LogGP measurements with a known
 * answer, the replay against hand-computed schedules (a chain, a binomial
 * tree, a ring, a late rendezvous), and schedules recorded from the
 * algorithms' own code. */
#include "../check.h"
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_NEAR(expected, actual)                                           \
    do {                                                                       \
        double e_ = (expected), a_ = (actual);                                 \
        if (!(fabs(e_ - a_) <= 1e-6 * (1 + fabs(e_)))) {                       \
            fprintf(stderr, "%s:%d: %s: expected %.6f, got %.6f\n", __FILE__,  \
                    __LINE__, #actual, e_, a_);                                \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

/* The synthetic network: eager below 100000 bytes (os 10 us, transfer
 * 50 us + 0.01 us/byte), rendezvous from there (Isend 3 us, the blocking
 * send waits 150 us + 0.01 us/byte, then 10 us more to the receiver); gap
 * 2 us + 0.01 us/byte; a late receive 5 us; reduction 1 us + 0.002 us/byte. */
static const long sizes[] = {1, 1000, 10000, 65536, 131072, 1048576};
#define N_SIZES ((int)(sizeof sizes / sizeof sizes[0]))

static double gap_of(long m)
{
    return 2 + 0.01 * (double)m;
}

/* A 10000-byte flow's work: its bandwidth term, the one-way time's growth
 * over the smallest eager size's (0.01 us/byte over 9999 bytes), above its
 * gap less its Isend (102 - 10); its latency (before it), transfer 150
 * less that. */
#define W_10000 (0.01 * 9999)
#define LAT_10000 (150 - W_10000)

static size_t synthetic(struct model_obs *obs)
{
    static const int levels[] = {0, 1, 3, 7, 15};
    size_t n = 0;
    for (int i = 0; i < N_SIZES; i++) {
        long m = sizes[i];
        int is_rdv = m >= 100000;
        double isend = is_rdv ? 3 : 10;
        double send = is_rdv ? 3 + 150 + 0.01 * (double)m : 10;
        double oneway = is_rdv ? send + 10 : 10 + 50 + 0.01 * (double)m;
        /* The stream's K Isends, timed one by one: each pending send
         * makes the next 1 us dearer. */
        int k = model_stream_count(m, MODEL_STREAM_BYTES);
        for (int l = 0; l < 5 && levels[l] < k; l++) {
            obs[n++] = (struct model_obs){MODEL_Q_ISEND, m, levels[l],
                                          isend + levels[l], 0};
        }
        obs[n++] = (struct model_obs){MODEL_Q_SEND, m, 0, send, 0};
        obs[n++] = (struct model_obs){MODEL_Q_ONEWAY, m, 0, oneway, 0};
        obs[n++] = (struct model_obs){MODEL_Q_RECV_LATE, m, 0, 5, 0};
        obs[n++] = (struct model_obs){MODEL_Q_STREAM1, m, 0, oneway, 0};
        obs[n++] = (struct model_obs){MODEL_Q_STREAMK, m, k,
                                      oneway + (k - 1) * gap_of(m), 0};
        obs[n++] =
            (struct model_obs){MODEL_Q_REDUCE, m, 0, 1 + 0.002 * (double)m, 0};
    }
    return n;
}

static void test_fit(const struct model_params *p)
{
    struct model_p2p q;
    model_params_at(p, 1000, 0, 0, &q);
    CHECK_INT(0, q.is_rendezvous);
    CHECK_NEAR(10, q.isend_us);
    CHECK_NEAR(10, q.send_us);
    CHECK_NEAR(60, q.transfer_us);
    CHECK_NEAR(12, q.gap_us);
    CHECK_NEAR(5, q.recv_late_us);
    /* A flow's work: the bandwidth term 0.01 * 999 above gap 12 - Isend
     * 10 (eager); a rendezvous's its gap less its Isend. */
    CHECK_NEAR(0.01 * 999, q.work_us);
    model_params_at(p, 1, 0, 0, &q);
    CHECK_NEAR(0, q.work_us);
    model_params_at(p, 131072, 0, 0, &q);
    CHECK_NEAR(2 + 0.01 * 131072 - 3, q.work_us);
    /* Between measured sizes of one mode: linear. */
    model_params_at(p, 5000, 0, 0, &q);
    CHECK_NEAR(100, q.transfer_us);
    CHECK_NEAR(52, q.gap_us);
    /* Pending sends: measured at 0, 1, 3, 7, 15, interpolated between. */
    model_params_at(p, 1000, 5, 0, &q);
    CHECK_NEAR(15, q.isend_us);
    model_params_at(p, 1000, 40, 0, &q);
    CHECK_NEAR(25, q.isend_us);
    /* Across the eager limit: a step at the midpoint of the measured sizes
     * around it, never an average. */
    CHECK_INT(65536, model_params_eager_max(p));
    model_params_at(p, 90000, 0, 0, &q);
    CHECK_INT(0, q.is_rendezvous);
    CHECK_NEAR(950, q.transfer_us);
    model_params_at(p, 100000, 0, 0, &q);
    CHECK_INT(1, q.is_rendezvous);
    CHECK_NEAR(3, q.isend_us);
    CHECK_NEAR(3 + 150 + 1000, q.send_us);
    CHECK_NEAR(10, q.transfer_us);
    CHECK_NEAR(1002, q.gap_us);
    /* A stream of 2 at 1 MiB (and 4 at 64 KiB): its gap, and more pending
     * sends than it had cost what its last one did. */
    CHECK_INT(2, model_stream_count(1048576, MODEL_STREAM_BYTES));
    CHECK_INT(4, model_stream_count(65536, MODEL_STREAM_BYTES));
    /* Streams of 64 KiB at most (a calibration's stream row): 16 of 4 KiB,
     * 4 of 16 KiB, 2 of 32 KiB and above. */
    CHECK_INT(16, model_stream_count(4096, 65536));
    CHECK_INT(4, model_stream_count(16384, 65536));
    CHECK_INT(2, model_stream_count(32768, 65536));
    CHECK_INT(2, model_stream_count(262144, 65536));
    model_params_at(p, 1048576, 40, 0, &q);
    CHECK_NEAR(2 + 0.01 * 1048576, q.gap_us);
    CHECK_NEAR(3 + 1, q.isend_us);
    CHECK_NEAR(1 + 0.002 * 5000, model_params_reduce_us(p, 5000));
}

/* The mode rows of a bisection between 65536 (eager) and 131072
 * (rendezvous) bytes on the synthetic network (eager below 100000): six
 * sends leave 99328 (eager) to 100352 (rendezvous), each classified
 * against the one-way time interpolated between the two sizes', and a
 * message is priced by the mode of its side of their midpoint, where the
 * measured sizes' midpoint (98304) priced 99000 bytes as rendezvous. The
 * ping-pong halves an older calibration journaled too change nothing. A
 * row contradicting another (an eager one above a rendezvous one) narrows
 * nothing. */
static void check_mode(const struct model_obs *obs, size_t n, long eager_max)
{
    struct model_params *p = NULL;
    struct model_p2p q;
    CHECK_INT(0, model_params_fit(obs, n, &p));
    if (p) {
        CHECK_INT(eager_max, model_params_eager_max(p));
        model_params_at(p, 99000, 0, 0, &q);
        CHECK_INT(eager_max == 65536, q.is_rendezvous);
        model_params_at(p, 99800, 0, 0, &q);
        CHECK_INT(eager_max == 65536, q.is_rendezvous);
        model_params_at(p, 99900, 0, 0, &q);
        CHECK_INT(1, q.is_rendezvous);
    }
    model_params_destroy(p);
}

static void test_mode(const struct model_obs *synth, size_t n)
{
    static const long probes[] = {98304, 114688, 106496, 102400, 100352, 99328};
    struct model_obs obs[2 * (N_SIZES * 11 + 8) + 32];
    memcpy(obs, synth, n * sizeof *obs);
    size_t k = n;
    for (int i = 0; i < 6; i++) {
        double m = (double)probes[i];
        double send = probes[i] >= 100000 ? 3 + 150 + 0.01 * m : 10;
        obs[k++] = (struct model_obs){MODEL_Q_MODE, probes[i], 0, send, 0};
    }
    check_mode(obs, k, 99328);
    for (int i = 0; i < 6; i++) {
        double m = (double)probes[i];
        double oneway = probes[i] >= 100000 ? 163 + 0.01 * m : 60 + 0.01 * m;
        obs[k++] = (struct model_obs){MODEL_Q_MODE, probes[i], 1, oneway, 0};
    }
    check_mode(obs, k, 99328);
    /* an eager row at 120000 contradicts the rendezvous ones below it */
    obs[k++] = (struct model_obs){MODEL_Q_MODE, 120000, 0, 10, 0};
    check_mode(obs, k, 65536);
}

static double replay(const struct model_schedule *s,
                     const struct model_params *p)
{
    double t = -1;
    CHECK_INT(0, model_replay(s, p, 1, &t));
    return t;
}

/* rank sends bytes to peer and waits (blocking send). */
static void send(struct model_schedule *s, int rank, int peer, long bytes)
{
    int req = model_schedule_add(s, rank, RECORD_ISEND, peer, 1, bytes, 0);
    model_schedule_add(s, rank, RECORD_WAIT, 0, 0, 0, req);
}

static void recv(struct model_schedule *s, int rank, int peer, long bytes)
{
    int req = model_schedule_add(s, rank, RECORD_IRECV, peer, 1, bytes, 0);
    model_schedule_add(s, rank, RECORD_WAIT, 0, 0, 0, req);
}

static void test_replay(const struct model_params *p)
{
    /* A chain 0 -> 1 -> 2 -> 3 of 1000 bytes: each hop os 10 + transfer 60. */
    struct model_schedule *s = model_schedule_create(4);
    for (int r = 0; r < 4; r++) {
        if (r > 0) {
            recv(s, r, r - 1, 1000);
        }
        if (r < 3) {
            send(s, r, r + 1, 1000);
        }
    }
    CHECK_NEAR(3 * 70, replay(s, p));
    model_schedule_destroy(s);

    /* A binomial tree on 4: 0 -> 2 (at 10, 2 us on the root's link), then
     * 0 -> 1 (at 20, alone on it: arrives at 80), 2 -> 3 (at 70 + 10 + 60). */
    s = model_schedule_create(4);
    send(s, 0, 2, 1000);
    send(s, 0, 1, 1000);
    recv(s, 1, 0, 1000);
    recv(s, 2, 0, 1000);
    send(s, 2, 3, 1000);
    recv(s, 3, 2, 1000);
    CHECK_NEAR(140, replay(s, p));
    model_schedule_destroy(s);

    /* Links are shared: 0 sends 10000 bytes to 1 (at 10) and to 2 (at 20),
     * each W_10000 us of work on 0's uplink. The first runs alone for 10
     * us, then both at half rate: it ends at 20 + 2 (W - 10) = 2 W, the
     * second with 10 us left at full rate at 2 W + 10, each its latency
     * (LAT_10000) later, as both flows start theirs later. */
    s = model_schedule_create(3);
    send(s, 0, 1, 10000);
    send(s, 0, 2, 10000);
    recv(s, 1, 0, 10000);
    recv(s, 2, 0, 10000);
    CHECK_NEAR(2 * W_10000 + 10 + LAT_10000, replay(s, p));
    model_schedule_destroy(s);

    /* Many small messages back to back (a segmented method's): 0 posts 4
     * Isends of 10000 bytes to 1, which posted its 4 receives first. The
     * Isends end at 10, 21, 33, 46 (1 us dearer per pending send); each
     * flow's W_10000 = 99.99 us of work is longer than the next Isend, so
     * 0's link is busy from 10 on: the four end together at 10 + 4 W (the
     * last posted, with most left, last), and it arrives LAT_10000 later:
     * the link's pace, as the stream measured it (with the gap less the
     * Isend, 92 to 89 us of work, the link was idle between them). */
    s = model_schedule_create(2);
    int rqs[4], sqs[4];
    for (int i = 0; i < 4; i++) {
        rqs[i] = model_schedule_add(s, 1, RECORD_IRECV, 0, 1, 10000, 0);
    }
    for (int i = 0; i < 4; i++) {
        sqs[i] = model_schedule_add(s, 0, RECORD_ISEND, 1, 1, 10000, 0);
    }
    for (int i = 0; i < 4; i++) {
        model_schedule_add(s, 0, RECORD_WAIT, 0, 0, 0, sqs[i]);
        model_schedule_add(s, 1, RECORD_WAIT, 0, 0, 0, rqs[i]);
    }
    CHECK_NEAR(10 + 4 * W_10000 + LAT_10000, replay(s, p));
    model_schedule_destroy(s);

    /* A flow's latency comes before its work: 0 posts a rendezvous of
     * 131072 bytes to 1 (Isend 3; latency 161: its transfer 10 less its
     * work 1309.72, plus the blocking send's 1460.72 over the Isend), then
     * an eager 10000 bytes to 2 (Isend 11 with one pending, latency
     * 50.01). The eager flow crosses 0's link from 64.01 to 164, during the
     * rendezvous's latency; the rendezvous's flow then runs alone from 164
     * and arrives at 1473.72, as a lone one would (its one-way time). With
     * the latencies after the flows they would share the link from 14 and
     * the rendezvous arrive at 1570.71. */
    s = model_schedule_create(3);
    int r1 = model_schedule_add(s, 1, RECORD_IRECV, 0, 1, 131072, 0);
    int r2 = model_schedule_add(s, 2, RECORD_IRECV, 0, 1, 10000, 0);
    int s1 = model_schedule_add(s, 0, RECORD_ISEND, 1, 1, 131072, 0);
    int s2 = model_schedule_add(s, 0, RECORD_ISEND, 2, 1, 10000, 0);
    model_schedule_add(s, 0, RECORD_WAIT, 0, 0, 0, s1);
    model_schedule_add(s, 0, RECORD_WAIT, 0, 0, 0, s2);
    model_schedule_add(s, 1, RECORD_WAIT, 0, 0, 0, r1);
    model_schedule_add(s, 2, RECORD_WAIT, 0, 0, 0, r2);
    CHECK_NEAR(1473.72, replay(s, p));
    model_schedule_destroy(s);

    /* A ring on 4, 3 steps of receive-from-left, send-to-right: 70 each. */
    s = model_schedule_create(4);
    for (int step = 0; step < 3; step++) {
        for (int r = 0; r < 4; r++) {
            int rq =
                model_schedule_add(s, r, RECORD_IRECV, (r + 3) % 4, 1, 1000, 0);
            int sq =
                model_schedule_add(s, r, RECORD_ISEND, (r + 1) % 4, 1, 1000, 0);
            model_schedule_add(s, r, RECORD_WAIT, 0, 0, 0, sq);
            model_schedule_add(s, r, RECORD_WAIT, 0, 0, 0, rq);
        }
    }
    CHECK_NEAR(210, replay(s, p));
    model_schedule_destroy(s);

    /* Rendezvous (200000 bytes) to a receiver busy reducing for 201 us:
     * the data leaves when the receive is posted, the send completes
     * 2150 us later, the receive 10 us after that. */
    s = model_schedule_create(2);
    send(s, 0, 1, 200000);
    model_schedule_add(s, 1, RECORD_REDUCE, 0, 0, 100000, 0);
    recv(s, 1, 0, 200000);
    CHECK_NEAR(201 + 2150 + 10, replay(s, p));
    model_schedule_destroy(s);

    /* A receive nobody sends: one line, no time. */
    s = model_schedule_create(2);
    recv(s, 1, 0, 10);
    double t;
    CHECK_INT(-1, model_replay(s, p, 1, &t));
    model_schedule_destroy(s);
}

/* Recorded from the algorithms' own code: the binomial bcast on 4 is the
 * hand-built tree above (0 sends to 2 then 1), its replay the same 140 us;
 * the pipeline with segments is the chain, one message per segment. */
static void test_record(const struct model_params *p)
{
    struct model_schedule *s;
    CHECK_INT(0, model_record("bcast", "binomial", 4, 1000, 0, 1, &s));
    if (s) {
        int n_sends = 0;
        for (int i = 0; i < s->ranks[0].n_ops; i++) {
            n_sends += s->ranks[0].ops[i].kind == RECORD_ISEND;
        }
        CHECK_INT(2, n_sends);
        CHECK_NEAR(140, replay(s, p));
        model_schedule_destroy(s);
    }
    double t;
    CHECK_INT(0, model_predict(p, "bcast", "pipeline", 4, 1, 1000, 0, 1, &t));
    CHECK_NEAR(210, t);
    CHECK_INT(0, model_record("bcast", "pipeline", 4, 4000, 1000, 1, &s));
    if (s) {
        int n_sends = 0;
        for (int i = 0; i < s->ranks[1].n_ops; i++) {
            n_sends += s->ranks[1].ops[i].kind == RECORD_ISEND;
        }
        CHECK_INT(4, n_sends);
        model_schedule_destroy(s);
    }
    /* Not applicable: nothing recorded. */
    CHECK_INT(1, model_record("allgather", "two_proc", 3, 1000, 0, 1, &s));
    /* Every algorithm of every collective records and replays. */
    static const char *const colls[][2] = {
        {"bcast", "linear"},         {"reduce", "rabenseifner"},
        {"allreduce", "ring"},       {"allgather", "bruck"},
        {"alltoall", "linear_sync"}, {"scatter", "binomial"},
        {"gather", "binomial"},      {"barrier", "bruck"}};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++) {
        t = -1;
        int rc =
            model_predict(p, colls[i][0], colls[i][1], 7, 1, 5000, 1024, 2, &t);
        if (rc != 0 || !(t > 0)) {
            fprintf(stderr, "%s %s: rc %d, %.3f us\n", colls[i][0], colls[i][1],
                    rc, t);
        }
        CHECK(rc == 0 && t > 0);
    }
}

/* The backbone: 4 pairs at once took twice one pair's time, so it carries
 * 2 flows at full rate. 4 disjoint pairs sending 10000 bytes at once (each
 * W_10000 us of work from 10) share it at half rate: they end at 10 + 2 W
 * and arrive LAT_10000 later; 2 pairs are not slowed (10 + 150). */
static void test_backbone(struct model_obs *obs, size_t n)
{
    struct model_params *p = NULL;
    obs[n++] = (struct model_obs){MODEL_Q_PAIRS, 262144, 1, 100, 0};
    obs[n++] = (struct model_obs){MODEL_Q_PAIRS, 262144, 4, 200, 0};
    CHECK_INT(0, model_params_fit(obs, n, &p));
    if (!p) {
        return;
    }
    CHECK_NEAR(2, model_params_backbone_flows(p));
    for (int n_pairs = 4; n_pairs >= 2; n_pairs -= 2) {
        struct model_schedule *s = model_schedule_create(8);
        for (int r = 0; r < n_pairs; r++) {
            send(s, r, r + 4, 10000);
            recv(s, r + 4, r, 10000);
        }
        CHECK_NEAR(n_pairs == 4 ? 10 + 2 * W_10000 + LAT_10000 : 160,
                   replay(s, p));
        model_schedule_destroy(s);
    }
    model_params_destroy(p);
}

/* One blocking send of 1000 bytes from a to b: os 10 + transfer 60, plus
 * the route's extra hop. */
static double one_send(const struct model_params *p, int a, int b)
{
    struct model_schedule *s = model_schedule_create(6);
    send(s, a, b, 1000);
    recv(s, b, a, 1000);
    double t = replay(s, p);
    model_schedule_destroy(s);
    return t;
}

struct hop {
    int a, b;
    double us;
};

/* The parameters fitted from obs (n rows) and the hops (count of them). */
static struct model_params *fit_with_hops(struct model_obs *obs, size_t n,
                                          const struct hop *hops, size_t count)
{
    struct model_params *p = NULL;
    for (size_t i = 0; i < count; i++) {
        obs[n + i] = (struct model_obs){MODEL_Q_HOP, hops[i].a, hops[i].b,
                                        hops[i].us, 0};
    }
    CHECK_INT(0, model_params_fit(obs, n + count, &p));
    return p;
}

/* Switches {0, 1, 2, 3} and {4, 5, 6, 7}: hops of 2 us on one, 5 across;
 * then rows of other quantities (n_more of them). */
static struct model_params *fit_two_switches(struct model_obs *obs, size_t n,
                                             const struct model_obs *more,
                                             size_t n_more)
{
    static const struct hop hops[] = {
        {0, 1, 2}, {0, 2, 2}, {0, 3, 2}, {0, 4, 5}, {0, 5, 5},
        {0, 6, 5}, {0, 7, 5}, {4, 5, 2}, {4, 6, 2}, {4, 7, 2}};
    for (size_t i = 0; i < n_more; i++) {
        obs[n + i] = more[i];
    }
    return fit_with_hops(obs, n + n_more, hops, 10);
}

/* k sends of 10000 bytes at once, rank src[i] to dst[i]. */
static double flows(const struct model_params *p, int k, const int *src,
                    const int *dst)
{
    struct model_schedule *s = model_schedule_create(8);
    for (int i = 0; i < k; i++) {
        send(s, src[i], dst[i], 10000);
        recv(s, dst[i], src[i], 10000);
    }
    double t = replay(s, p);
    model_schedule_destroy(s);
    return t;
}

/* The uplinks: 4 flows out of a switch at once took 3 flows' work (w, a
 * 262144-byte message's gap less its Isend: 2623.44 - 3) longer than one,
 * so each switch's uplink carries 1 flow at full rate (C = k w / (T(k) -
 * T(1) + w)). k flows of 10000 bytes (W_10000 us of work after os 10,
 * then LAT_10000 of latency and 3 of the longer route) across the switches
 * share it: the work takes k times as long, 10 + W k + LAT + 3; k flows
 * within a switch take 160 as without uplinks. */
static void test_uplink(struct model_obs *obs, size_t n)
{
    const double w = 2623.44 - 3;
    const struct model_obs rows[] = {
        {MODEL_Q_UPLINK, 0, 1, 1000, 0},
        {MODEL_Q_UPLINK, 0, 4, 1000 + 3 * w, 0},
        {MODEL_Q_UPLINK, 4, 1, 1000, 0},
        {MODEL_Q_UPLINK, 4, 4, 1000 + 3 * w, 0},
        /* the backbone the pairs saw was these uplinks: not shared twice */
        {MODEL_Q_PAIRS, 262144, 1, 100, 0},
        {MODEL_Q_PAIRS, 262144, 4, 400, 0}};
    static const int src[] = {0, 1, 2}, across[] = {4, 5, 6},
                     within[] = {3, 2, 1}, within_src[] = {0, 1, 2};
    struct model_params *flat = fit_two_switches(obs, n, NULL, 0);
    struct model_params *p = fit_two_switches(obs, n, rows, 6);
    /* without the pairs (`autotune model` measures none where an uplink
     * is limited): the same */
    struct model_params *no_pairs = fit_two_switches(obs, n, rows, 4);
    if (p && flat && no_pairs) {
        CHECK_INT(0, model_params_uses_pairs(p));
        CHECK_INT(0, model_params_uses_pairs(no_pairs));
        CHECK_INT(1, model_params_uses_pairs(flat));
        for (int k = 1; k <= 3; k++) {
            CHECK_NEAR(flows(p, k, src, across),
                       flows(no_pairs, k, src, across));
        }
        CHECK_NEAR(1, model_params_uplink_flows(p, 0));
        CHECK_NEAR(1, model_params_uplink_flows(p, 6));
        CHECK_NEAR(0, model_params_uplink_flows(flat, 6));
        CHECK_NEAR(0, model_params_backbone_flows(p));
        for (int k = 1; k <= 3; k++) {
            CHECK_NEAR(13 + W_10000 * k + LAT_10000, flows(p, k, src, across));
            CHECK_NEAR(163, flows(flat, k, src, across));
        }
        /* 0 -> 3 and 2 -> 1 within a switch, 1 -> 5 across: unslowed */
        CHECK_NEAR(160, flows(p, 2, within_src, within));
        CHECK_NEAR(160, flows(flat, 2, within_src, within));
        static const int mixed_src[] = {0, 1}, mixed_dst[] = {3, 5};
        CHECK_NEAR(163, flows(p, 2, mixed_src, mixed_dst));
    }
    model_params_destroy(p);
    model_params_destroy(flat);
    model_params_destroy(no_pairs);
}

/* A node with a flow within its switch and one out of it: the mix rows
 * say the crossing flow took a 256 KiB flow's work w longer beside the
 * other one, so it went at half rate: C = w / (w + w) = 0.5. 0 -> 1
 * (within {0, 1, 2, 3}) and 1 -> 4 (out of it) at once, 10000 bytes each
 * (W_10000 us of work; 0 -> 1's flow from 10 + LAT_10000, 1 -> 4's 3 us
 * later, its route longer): 1 -> 4 at half rate while 0 -> 1 lasts (W - 3
 * us: (W - 3) / 2 done), then the rest at full rate, arriving at 13 +
 * LAT_10000 + 1.5 W - 1.5; 0 -> 1 unslowed. Without the rows 163, with
 * 1 -> 2 (within) for 1 -> 4 160. */
/* Rank 1 receives 10000 bytes from 0 while it sends as many to `to`. */
static double forward(const struct model_params *p, int to)
{
    struct model_schedule *s = model_schedule_create(8);
    send(s, 0, 1, 10000);
    int rq = model_schedule_add(s, 1, RECORD_IRECV, 0, 1, 10000, 0);
    int sq = model_schedule_add(s, 1, RECORD_ISEND, to, 1, 10000, 0);
    model_schedule_add(s, 1, RECORD_WAIT, 0, 0, 0, sq);
    model_schedule_add(s, 1, RECORD_WAIT, 0, 0, 0, rq);
    recv(s, to, 1, 10000);
    double t = replay(s, p);
    model_schedule_destroy(s);
    return t;
}

static void test_mix(struct model_obs *obs, size_t n)
{
    const double w = 2623.44 - 3;
    const struct model_obs rows[] = {{MODEL_Q_MIX, 4, 0, 1000, 0},
                                     {MODEL_Q_MIX, 4, 1, 1000 + w, 0}};
    struct model_params *flat = fit_two_switches(obs, n, NULL, 0);
    struct model_params *p = fit_two_switches(obs, n, rows, 2);
    if (p && flat) {
        CHECK_NEAR(0.5, model_params_mix_flows(p));
        CHECK_NEAR(0, model_params_mix_flows(flat));
        CHECK_NEAR(13 + 1.5 * W_10000 - 1.5 + LAT_10000, forward(p, 4));
        CHECK_NEAR(163, forward(flat, 4));
        CHECK_NEAR(160, forward(p, 2));
    }
    model_params_destroy(p);
    model_params_destroy(flat);
}

/* The flows measured at another size than MODEL_STREAM_BYTES (the flow
 * row's, here 10000 bytes: a flow's work W_10000): 4 flows out of a switch
 * took 3 W longer than one (C = 4 W / (3 W + W) = 1); two flows to 6 and
 * 5 at once 0.6 W longer than to 6 alone (shared: more than half a W).
 * The same rows read as 256 KiB flows (no flow row: a calibration from
 * before it), of work w = 2620.44: C = 4 w / (3 W + w) = 3.59, 5's lane
 * not known. The mixed flow, W longer, is of 256 KiB either way: C = w /
 * (W + w) = 0.96. The stream row (MODEL_FLOW_STREAM) says nothing of the
 * flows. */
static void test_flow_bytes(struct model_obs *obs, size_t n)
{
    const double t = 1000, w = 2623.44 - 3;
    const struct model_obs rows[] = {
        {MODEL_Q_FLOW, 10000, MODEL_FLOW_LANES, 0, 0},
        {MODEL_Q_FLOW, 65536, MODEL_FLOW_STREAM, 0, 0},
        {MODEL_Q_UPLINK, 0, 1, t, 0},
        {MODEL_Q_UPLINK, 0, 4, t + 3 * W_10000, 0},
        {MODEL_Q_LANE, 4, 4, t, 0},
        {MODEL_Q_LANE, 4, 6, t, 0},
        {MODEL_Q_LANE, 6, 6, t, 0},
        {MODEL_Q_LANE, 6, 5, t + 0.6 * W_10000, 0},
        {MODEL_Q_MIX, 4, 0, t, 0},
        {MODEL_Q_MIX, 4, 1, t + W_10000, 0}};
    struct model_params *p = fit_two_switches(obs, n, rows, 10);
    if (p) {
        CHECK_INT(10000, (int)model_params_flow_bytes(p));
        CHECK_NEAR(W_10000, model_params_flow_work_us(p));
        CHECK_NEAR(1, model_params_uplink_flows(p, 0));
        CHECK_INT(2, model_params_n_lanes(p));
        CHECK_INT(0, model_params_lane_of(p, 4));
        CHECK_INT(1, model_params_lane_of(p, 6));
        CHECK_INT(1, model_params_lane_of(p, 5));
        CHECK_NEAR(w / (W_10000 + w), model_params_mix_flows(p));
    }
    model_params_destroy(p);
    p = fit_two_switches(obs, n, rows + 1, 9);
    if (p) {
        CHECK_INT(MODEL_STREAM_BYTES, (int)model_params_flow_bytes(p));
        CHECK_NEAR(w, model_params_flow_work_us(p));
        CHECK_NEAR(4 * w / (3 * W_10000 + w), model_params_uplink_flows(p, 0));
        CHECK_INT(2, model_params_n_lanes(p));
        CHECK_INT(0, model_params_lane_of(p, 5)); /* not known */
        CHECK_NEAR(w / (W_10000 + w), model_params_mix_flows(p));
    }
    model_params_destroy(p);
}

/* The lanes: two flows to 4 and 5 at once took a flow's work longer than
 * the one to 4 alone (shared), to 4 and 6 no longer (not): lanes {0, 2,
 * 4, 5} and {1, 3, 6, 7}. Out of switch {0, 1, 2, 3}, flows to 4 and 6
 * do not share its uplink, flows to 4 and 5 do (13 + 2 W_10000 +
 * LAT_10000). */
static void test_lanes(struct model_obs *obs, size_t n)
{
    const double w = 2623.44 - 3, t = 1000;
    const struct model_obs rows[] = {
        {MODEL_Q_UPLINK, 0, 1, t, 0},   {MODEL_Q_UPLINK, 0, 4, t + 3 * w, 0},
        {MODEL_Q_UPLINK, 4, 1, t, 0},   {MODEL_Q_UPLINK, 4, 4, t + 3 * w, 0},
        {MODEL_Q_LANE, 4, 4, t, 0},     {MODEL_Q_LANE, 4, 5, t + w, 0},
        {MODEL_Q_LANE, 4, 6, t, 0},     {MODEL_Q_LANE, 6, 6, t, 0},
        {MODEL_Q_LANE, 6, 7, t + w, 0}, {MODEL_Q_LANE, 4, 0, t + w, 0},
        {MODEL_Q_LANE, 4, 1, t, 0},     {MODEL_Q_LANE, 6, 1, t + w, 0},
        {MODEL_Q_LANE, 0, 0, t, 0},     {MODEL_Q_LANE, 0, 2, t + w, 0},
        {MODEL_Q_LANE, 6, 3, t + w, 0}};
    struct model_params *p = fit_two_switches(obs, n, rows, 15);
    if (p) {
        CHECK_INT(2, model_params_n_lanes(p));
        static const int lane[] = {0, 1, 0, 1, 0, 0, 1, 1};
        for (int r = 0; r < 8; r++) {
            CHECK_INT(lane[r], model_params_lane_of(p, r));
        }
        static const int src[] = {0, 1}, apart[] = {4, 6}, shared[] = {4, 5};
        CHECK_NEAR(163, flows(p, 2, src, apart));
        CHECK_NEAR(13 + 2 * W_10000 + LAT_10000, flows(p, 2, src, shared));
    }
    model_params_destroy(p);
    /* 5 lanes (4, 5, 6, 7 and 0 each apart, each then timed alone as a
     * lane's first): more than MODEL_MAX_LANES, not used; the uplink
     * shared by all flows out of a switch. */
    const struct model_obs many[] = {rows[0],
                                     rows[1],
                                     {MODEL_Q_LANE, 4, 4, t, 0},
                                     {MODEL_Q_LANE, 4, 5, t, 0},
                                     {MODEL_Q_LANE, 5, 5, t, 0},
                                     {MODEL_Q_LANE, 4, 6, t, 0},
                                     {MODEL_Q_LANE, 6, 6, t, 0},
                                     {MODEL_Q_LANE, 4, 7, t, 0},
                                     {MODEL_Q_LANE, 7, 7, t, 0},
                                     {MODEL_Q_LANE, 4, 0, t, 0},
                                     {MODEL_Q_LANE, 0, 0, t, 0}};
    p = fit_two_switches(obs, n, many, 11);
    if (p) {
        CHECK_INT(1, model_params_n_lanes(p));
        CHECK_INT(0, model_params_lane_of(p, 6));
        static const int src[] = {0, 1}, apart[] = {4, 6};
        CHECK_NEAR(13 + 2 * W_10000 + LAT_10000, flows(p, 2, src, apart));
    }
    model_params_destroy(p);
    /* 3 tried against lane {4} only (apart) and never alone: not known,
     * not a lane of its own. */
    const struct model_obs partial[] = {rows[0],
                                        rows[1],
                                        {MODEL_Q_LANE, 4, 4, t, 0},
                                        {MODEL_Q_LANE, 4, 5, t + w, 0},
                                        {MODEL_Q_LANE, 4, 6, t, 0},
                                        {MODEL_Q_LANE, 6, 6, t, 0},
                                        {MODEL_Q_LANE, 4, 3, t, 0}};
    p = fit_two_switches(obs, n, partial, 7);
    if (p) {
        CHECK_INT(2, model_params_n_lanes(p));
        CHECK_INT(1, model_params_lane_of(p, 6));
        CHECK_INT(0, model_params_lane_of(p, 3));
    }
    model_params_destroy(p);
}

/* One blocking send of bytes from a to b. */
static double send_of(const struct model_params *p, int a, int b, long bytes)
{
    struct model_schedule *s = model_schedule_create(8);
    send(s, a, b, bytes);
    recv(s, b, a, bytes);
    double t = replay(s, p);
    model_schedule_destroy(s);
    return t;
}

/* A rendezvous message of 131072 bytes from rank 0 took 9 us longer to
 * rank 4 (across: a 1-byte hop 3 us longer) than to rank 1: a rendezvous
 * triples the longer route (its handshake crosses it too). Across, a
 * rendezvous send then takes 9 us longer than within a switch, an eager
 * one 3; without those rows 3 both. */
static void test_rdv_hop(struct model_obs *obs, size_t n)
{
    const struct model_obs rows[] = {{MODEL_Q_HOP_RDV, 131072, 1, 1500, 0},
                                     {MODEL_Q_HOP_RDV, 131072, 4, 1509, 0}};
    struct model_params *flat = fit_two_switches(obs, n, NULL, 0);
    struct model_params *p = fit_two_switches(obs, n, rows, 2);
    if (p && flat) {
        CHECK_NEAR(3, model_params_rdv_hop_factor(p));
        CHECK_NEAR(1, model_params_rdv_hop_factor(flat));
        CHECK_NEAR(9, send_of(p, 0, 4, 131072) - send_of(p, 0, 1, 131072));
        CHECK_NEAR(3, send_of(p, 0, 4, 1000) - send_of(p, 0, 1, 1000));
        CHECK_NEAR(3,
                   send_of(flat, 0, 4, 131072) - send_of(flat, 0, 1, 131072));
    }
    model_params_destroy(p);
    model_params_destroy(flat);
}

/* A reduce pipeline's chain 4 -> 1 -> 0 of two rendezvous segments of
 * 131072 bytes (rank 4 on the other switch; a sender posts a segment once
 * the one before is sent, rank 1 forwards each once it has it), with the
 * rendezvous factor 3 of test_rdv_hop: Isend I = 3, the blocking send S =
 * 3 + 150 + 0.01 * 131072, one-way S + 10, a flow's work W = gap - I = 2
 * + 0.01 * 131072 - 3, the route across 3 us longer, 9 for a rendezvous.
 * A rendezvous send completes once its data is there: across, S - I + 9
 * after it leaves (SMPI's blocking send returns as the receive does), so
 * rank 4's second segment leaves at I + (S - I + 9) + I; rank 1 has it
 * S - I + 10 + 9 after that, forwards it (I) and rank 0 has it S - I + 10
 * later (within the switch; rank 1's first forward, done by then, shares
 * nothing with it: rank 1's link carries one flow each way). */
static void test_rdv_chain(struct model_obs *obs, size_t n)
{
    const struct model_obs rows[] = {{MODEL_Q_HOP_RDV, 131072, 1, 1500, 0},
                                     {MODEL_Q_HOP_RDV, 131072, 4, 1509, 0}};
    const long m = 131072;
    const double i = 3, s = 3 + 150 + 0.01 * (double)m;
    struct model_params *p = fit_two_switches(obs, n, rows, 2);
    struct model_schedule *c = model_schedule_create(8);
    if (!p || !c) {
        CHECK(p && c);
        model_params_destroy(p);
        model_schedule_destroy(c);
        return;
    }
    int r1[2], r0[2];
    for (int seg = 0; seg < 2; seg++) {
        send(c, 4, 1, m);
        r1[seg] = model_schedule_add(c, 1, RECORD_IRECV, 4, 1, m, 0);
        r0[seg] = model_schedule_add(c, 0, RECORD_IRECV, 1, 1, m, 0);
    }
    int sent = -1;
    for (int seg = 0; seg < 2; seg++) {
        model_schedule_add(c, 1, RECORD_WAIT, 0, 0, 0, r1[seg]);
        if (sent >= 0) {
            model_schedule_add(c, 1, RECORD_WAIT, 0, 0, 0, sent);
        }
        sent = model_schedule_add(c, 1, RECORD_ISEND, 0, 1, m, 0);
    }
    model_schedule_add(c, 1, RECORD_WAIT, 0, 0, 0, sent);
    for (int seg = 0; seg < 2; seg++) {
        model_schedule_add(c, 0, RECORD_WAIT, 0, 0, 0, r0[seg]);
    }
    double second = i + (s - i + 9) + i;
    CHECK_NEAR(second + (s - i + 10 + 9) + i + (s - i + 10), replay(c, p));
    model_schedule_destroy(c);
    model_params_destroy(p);
}

/* The placement from hops, as `autotune model` measures them: rank 0 to
 * every rank, then each rank not near rank 0 to the first rank of each
 * switch found. Switches {0, 1, 4} and {2, 3, 5} (scattered, as SMPI places
 * ranks by host name): a hop of 2 us on one switch, 5 us across. A message
 * across takes 3 us longer than one between ranks 0 and 1; where ranks 0
 * and 1 are on different switches ({0, 2} and {1, 3}), one within a switch
 * takes 3 us less. */
static void test_placement(struct model_obs *obs, size_t n)
{
    static const struct hop scattered[] = {{0, 1, 2}, {0, 2, 5}, {0, 3, 5},
                                           {0, 4, 2}, {0, 5, 5}, {2, 3, 2},
                                           {2, 5, 2}},
                            apart[] = {{0, 1, 5},
                                       {0, 2, 2},
                                       {0, 3, 5},
                                       {1, 3, 2}},
                            /* rank 0 alone on its switch: every rank looks
                             * near it (its least hop is a far one), so the
                             * placement is lost, not made up */
        alone[] = {{0, 1, 5}, {0, 2, 5}, {1, 2, 2}};
    struct model_params *p = fit_with_hops(obs, n, scattered, 7);
    if (p) {
        CHECK_NEAR(0, model_params_hop_extra_us(p, 0, 4));
        CHECK_NEAR(0, model_params_hop_extra_us(p, 3, 5));
        CHECK_NEAR(3, model_params_hop_extra_us(p, 1, 2));
        CHECK_NEAR(3, model_params_hop_extra_us(p, 5, 4));
        CHECK_NEAR(0, model_params_hop_extra_us(p, 1, 9)); /* not measured */
        CHECK_NEAR(70, one_send(p, 4, 1));
        CHECK_NEAR(73, one_send(p, 1, 5));
    }
    model_params_destroy(p);
    p = fit_with_hops(obs, n, apart, 4);
    if (p) {
        CHECK_NEAR(-3, model_params_hop_extra_us(p, 0, 2));
        CHECK_NEAR(0, model_params_hop_extra_us(p, 2, 3));
        CHECK_NEAR(67, one_send(p, 3, 1));
    }
    model_params_destroy(p);
    p = fit_with_hops(obs, n, alone, 3);
    if (p) {
        CHECK_NEAR(0, model_params_hop_extra_us(p, 1, 2));
        CHECK_NEAR(0, model_params_hop_extra_us(p, 0, 2));
    }
    model_params_destroy(p);
    /* Without hops every pair is as ranks 0 and 1. */
    CHECK_INT(0, model_params_fit(obs, n, &p));
    if (p) {
        CHECK_NEAR(0, model_params_hop_extra_us(p, 1, 2));
    }
    model_params_destroy(p);
}

/* Binomial bcast on 4 ranks, recorded from its own code: 0 -> 2, 0 -> 1,
 * 2 -> 3. At 2 ranks per node (nodes {0, 1} and {2, 3}) only 0 -> 2
 * crosses; at 1 all three do, at 4 none. */
static void test_split(void)
{
    struct model_schedule *s;
    long intra = -1, inter = -1;
    CHECK_INT(0, model_record("bcast", "binomial", 4, 1000, 0, 1, &s));
    if (!s) {
        return;
    }
    model_schedule_split(s, 2, &intra, &inter);
    CHECK_INT(2, intra);
    CHECK_INT(1, inter);
    model_schedule_split(s, 1, &intra, &inter);
    CHECK_INT(0, intra);
    CHECK_INT(3, inter);
    model_schedule_split(s, 4, &intra, &inter);
    CHECK_INT(3, intra);
    CHECK_INT(0, inter);
    CHECK_INT(0, model_node_of(1, 2));
    CHECK_INT(1, model_node_of(2, 2));
    model_schedule_destroy(s);
}

/* The intra-node set: the synthetic network's every time divided by 10
 * (Isend 1, transfer 6, gap 1.2 at 1000 bytes). Binomial bcast on 4 at 2
 * ranks per node: 0 -> 2 crosses (Isend 10, arrives 10 + 60 = 70); 0 -> 1
 * is intra (posted at 10 + 1, arrives 11 + 6 = 17); 2 -> 3 is intra (from
 * 70: 71 + 6 = 77). At 4 per node all intra: 140 / 10; at 1, 140. */
static void test_intra(struct model_obs *obs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        obs[n + i] = obs[i];
        obs[n + i].value_us /= 10;
        obs[n + i].is_intra = 1;
    }
    struct model_params *p = NULL;
    CHECK_INT(0, model_params_fit(obs, 2 * n, &p));
    if (!p) {
        return;
    }
    CHECK_INT(1, model_params_has_intra(p));
    struct model_p2p q;
    model_params_at(p, 1000, 0, 1, &q);
    CHECK_NEAR(1, q.isend_us);
    CHECK_NEAR(6, q.transfer_us);
    model_params_at(p, 1000, 0, 0, &q);
    CHECK_NEAR(60, q.transfer_us);
    double t = -1;
    CHECK_INT(0, model_predict(p, "bcast", "binomial", 4, 2, 1000, 0, 1, &t));
    CHECK_NEAR(77, t);
    CHECK_INT(0, model_predict(p, "bcast", "binomial", 4, 4, 1000, 0, 1, &t));
    CHECK_NEAR(14, t);
    CHECK_INT(0, model_predict(p, "bcast", "binomial", 4, 1, 1000, 0, 1, &t));
    CHECK_NEAR(140, t);
    model_params_destroy(p);
    /* Only the intra-node set (one node): inter-node messages priced as
     * intra-node ones. */
    CHECK_INT(0, model_params_fit(obs + n, n, &p));
    if (p) {
        CHECK_INT(0, model_params_has_inter(p));
        CHECK_INT(0,
                  model_predict(p, "bcast", "binomial", 4, 1, 1000, 0, 1, &t));
        CHECK_NEAR(14, t);
    }
    model_params_destroy(p);
}

/* A node's link is shared by its ranks: ranks 0 and 1 each send 10000
 * bytes (W_10000 us of work from 10) to ranks 2 and 3. On 4 nodes each
 * flow has its own links: 10 + 150 = 160. At 2 per node both flows leave
 * node 0 and enter node 1 at once, at half rate: 10 + 2 W + LAT_10000. */
static void test_node_link(const struct model_params *p)
{
    struct model_schedule *s = model_schedule_create(4);
    send(s, 0, 2, 10000);
    send(s, 1, 3, 10000);
    recv(s, 2, 0, 10000);
    recv(s, 3, 1, 10000);
    double t = -1;
    CHECK_INT(0, model_replay(s, p, 1, &t));
    CHECK_NEAR(160, t);
    CHECK_INT(0, model_replay(s, p, 2, &t));
    CHECK_NEAR(10 + 2 * W_10000 + LAT_10000, t);
    model_schedule_destroy(s);
}

/* model.csv: with the ppn column (2: the intra-node set) and without it
 * (written before: every row inter-node); another ppn is refused, and an
 * uplink of no flow. */
static void test_csv(void)
{
    static const char *const files[] = {
        MODEL_CSV_HEADER "\noneway,2,1,0,3.5,1,0.1\noneway,1,1,0,7,1,0.2\n",
        MODEL_CSV_LEGACY_HEADER "\noneway,1,0,7,1,0.2\n",
        MODEL_CSV_HEADER "\noneway,3,1,0,3.5,1,0.1\n",
        MODEL_CSV_HEADER "\nuplink,1,4,0,3.5,1,0.1\n",
        MODEL_CSV_HEADER "\nflow,1,0,0,0.000,1,0.000000\n",
        MODEL_CSV_HEADER "\nflow,1,65536,0,0.000,1,0.000000\n",
        MODEL_CSV_HEADER "\nflow,1,65536,1,0.000,1,0.000000\n",
        MODEL_CSV_HEADER "\nflow,1,65536,2,0.000,1,0.000000\n",
        MODEL_CSV_HEADER "\nmode,1,98304,1,983.0,1,0.000000\n",
        MODEL_CSV_HEADER "\nmode,1,98304,2,983.0,1,0.000000\n"};
    /* 0: read; -1: refused (a ppn of 3, an uplink of no flow, a flow of
     * no byte, a flow row of a kind neither the flows' nor the streams', a
     * mode row neither the send's nor the one-way time's) */
    static const int expected[] = {0, 0, -1, -1, -1, 0, 0, -1, 0, -1};
    char path[] = "/tmp/test_model_csv_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) {
        return;
    }
    close(fd);
    for (int f = 0; f < 10; f++) {
        FILE *out = fopen(path, "w");
        fputs(files[f], out);
        fclose(out);
        struct model_obs *obs = NULL;
        size_t n = 0;
        double cost = 0;
        int rc = model_csv_read(path, &obs, &n, &cost);
        CHECK_INT(expected[f], rc);
        if (f == 0 && rc == 0) {
            CHECK_INT(2, (int)n);
            CHECK_INT(1, obs[0].is_intra);
            CHECK_NEAR(3.5, obs[0].value_us);
            CHECK_INT(0, obs[1].is_intra);
        }
        if (f == 1 && rc == 0) {
            CHECK_INT(1, (int)n);
            CHECK_INT(0, obs[0].is_intra);
            CHECK_NEAR(7, obs[0].value_us);
        }
        if (f == 5 && rc == 0) {
            CHECK_INT(1, (int)n);
            CHECK_INT(MODEL_Q_FLOW, (int)obs[0].q);
            CHECK_INT(65536, (int)obs[0].msg_bytes);
        }
        free(obs);
    }
    remove(path);
}

int main(void)
{
    struct model_obs obs[2 * (N_SIZES * 11 + 8) + 32];
    size_t n = synthetic(obs);
    struct model_params *p;
    CHECK_INT(0, model_params_fit(obs, n, &p));
    if (p) {
        test_fit(p);
        test_replay(p);
        test_record(p);
        CHECK_NEAR(0, model_params_backbone_flows(p));
    }
    model_params_destroy(p);
    p = NULL;
    test_backbone(obs, n);
    test_placement(obs, n);
    test_uplink(obs, n);
    test_lanes(obs, n);
    test_flow_bytes(obs, n);
    test_mix(obs, n);
    test_rdv_hop(obs, n);
    test_rdv_chain(obs, n);
    test_split();
    test_csv();
    test_mode(obs, n);
    CHECK_INT(0, model_params_fit(obs, n, &p));
    if (p) {
        test_node_link(p);
    }
    model_params_destroy(p);
    p = NULL;
    test_intra(obs, n);
    /* Missing quantities are named. */
    CHECK_INT(-1, model_params_fit(obs, 3, &p));
    return check_exit();
}
