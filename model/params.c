/* Point-to-point parameters: fitted per measured message size from the raw
 * observations of `autotune model`, interpolated between sizes of the same
 * send mode (an eager limit is a step, never averaged across). */
#include "model/model.h"
#include "util/grow.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const model_quantity_names[MODEL_N_QUANTITIES] = {
    "isend",   "send",    "oneway", "recv_late", "stream1",
    "streamK", "reduce",  "pairs",  "hop",       "uplink",
    "lane",    "hop_rdv", "mix",    "flow",      "mode"};

const int model_pending_levels[MODEL_N_LEVELS] = {0, 1, 3, 7, 15};
#define N_LEVELS MODEL_N_LEVELS

int model_stream_count(long msg_bytes, long stream_bytes)
{
    int k = MODEL_STREAM_MAX;
    while (k > 2 && (long)k * msg_bytes > stream_bytes) {
        k /= 2;
    }
    return k;
}

int model_quantity_find(const char *name)
{
    for (int q = 0; q < MODEL_N_QUANTITIES; q++) {
        if (strcmp(name, model_quantity_names[q]) == 0) {
            return q;
        }
    }
    return -1;
}

struct size_params {
    long msg_bytes;
    double isend_us[N_LEVELS];
    double send_us, oneway_us, recv_late_us, gap_us, transfer_us;
    int is_rendezvous, waits_for_recv;
};

/* One set of point-to-point parameters: its measured sizes. */
struct p2p_set {
    int n;
    struct size_params *sizes; /* ascending msg_bytes */
    /* The send mode changes between these sizes (eager up to eager_max,
     * rendezvous from rdv_min; the measured sizes around the change, or
     * the mode rows' nearer ones); 0 where every size is of one mode. */
    long eager_max, rdv_min;
};

struct model_params {
    /* between two nodes, between two ranks of one node (n 0: not
     * measured, priced as the other) */
    struct p2p_set inter, intra;
    double reduce_us, reduce_us_per_byte;
    double backbone_flows; /* 0: unlimited */
    /* The placement: each world rank's switch (n_ranks of them; none when
     * no hop was measured), each pair of switches' hop (NAN: not
     * measured) and that of ranks 0 and 1. */
    int n_ranks, n_switches;
    int *switch_of;
    double *switch_hop_us, base_hop_us;
    double *uplink_flows; /* per switch, 0: not limited (none: no switch) */
    /* Each node's lane (n_ranks of them, -1: not measured; none when no
     * lane was) and their number (0: none). */
    int *lane_of, n_lanes;
    double rdv_hop_factor; /* 1: not measured */
    double mix_flows;      /* 0: not limited */
    long flow_bytes;       /* the uplink, lane and mix flows' size */
};

void model_params_destroy(struct model_params *p)
{
    if (p) {
        free(p->inter.sizes);
        free(p->intra.sizes);
        free(p->switch_of);
        free(p->switch_hop_us);
        free(p->uplink_flows);
        free(p->lane_of);
        free(p);
    }
}

int model_hop_is_near(double hop_us, double least_hop_us)
{
    return hop_us <= (1 + MODEL_HOP_NEAR) * least_hop_us;
}

static int root_of(int *parent, int r)
{
    while (parent[r] != r) {
        r = parent[r] = parent[parent[r]];
    }
    return r;
}

/* The switches: ranks joined by a near hop (union-find) share one, numbered
 * in order of their least rank; a pair of switches' hop is the mean of the
 * hops measured between them, a switch's own the least hop. Near is
 * against rank 0's least hop, as `autotune model` decided what to measure
 * (where rank 0 is alone on its switch, every rank looks near it and the
 * placement is lost: every pair as ranks 0 and 1). */
static int fit_placement(const struct model_obs *obs, size_t n,
                         struct model_params *p)
{
    double least = INFINITY;
    int n_ranks = 0;
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == MODEL_Q_HOP) {
            if (obs[i].msg_bytes == 0) {
                least = fmin(least, obs[i].value_us);
            }
            long top = obs[i].msg_bytes > obs[i].pending ? obs[i].msg_bytes
                                                         : obs[i].pending;
            n_ranks = (int)top + 1 > n_ranks ? (int)top + 1 : n_ranks;
        }
    }
    if (n_ranks < 2 || isinf(least)) {
        return 0; /* no placement measured: every pair as ranks 0 and 1 */
    }
    int *parent = malloc((size_t)n_ranks * sizeof *parent);
    int *label = malloc((size_t)n_ranks * sizeof *label);
    p->switch_of = malloc((size_t)n_ranks * sizeof *p->switch_of);
    if (!parent || !label || !p->switch_of) {
        free(parent);
        free(label);
        return -1;
    }
    for (int r = 0; r < n_ranks; r++) {
        parent[r] = r;
        label[r] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == MODEL_Q_HOP &&
            model_hop_is_near(obs[i].value_us, least)) {
            parent[root_of(parent, (int)obs[i].msg_bytes)] =
                root_of(parent, obs[i].pending);
        }
    }
    int k = 0;
    for (int r = 0; r < n_ranks; r++) {
        int root = root_of(parent, r);
        if (label[root] < 0) {
            label[root] = k++;
        }
        p->switch_of[r] = label[root];
    }
    free(parent);
    free(label);
    p->n_ranks = n_ranks;
    p->n_switches = k;
    double *sum = calloc((size_t)k * k, sizeof *sum);
    int *count = calloc((size_t)k * k, sizeof *count);
    p->switch_hop_us = malloc((size_t)k * k * sizeof *p->switch_hop_us);
    if (!sum || !count || !p->switch_hop_us) {
        free(sum);
        free(count);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == MODEL_Q_HOP) {
            size_t x = (size_t)p->switch_of[obs[i].msg_bytes];
            size_t y = (size_t)p->switch_of[obs[i].pending];
            if (x != y) { /* a switch's own hop is the least */
                sum[x * k + y] += obs[i].value_us;
                count[x * k + y]++;
                sum[y * k + x] += obs[i].value_us;
                count[y * k + x]++;
            }
        }
    }
    for (size_t x = 0; x < (size_t)k; x++) {
        for (size_t y = 0; y < (size_t)k; y++) {
            size_t c = x * k + y;
            p->switch_hop_us[c] = x == y     ? least
                                  : count[c] ? sum[c] / count[c]
                                             : NAN;
        }
    }
    free(sum);
    free(count);
    p->base_hop_us =
        p->switch_hop_us[(size_t)p->switch_of[0] * k + p->switch_of[1]];
    return 0;
}

double model_params_hop_extra_us(const struct model_params *p, int a, int b)
{
    if (!p->switch_of || a == b || a < 0 || b < 0 || a >= p->n_ranks ||
        b >= p->n_ranks || isnan(p->base_hop_us)) {
        return 0;
    }
    double hop = p->switch_hop_us[(size_t)p->switch_of[a] * p->n_switches +
                                  p->switch_of[b]];
    return isnan(hop) ? 0 : hop - p->base_hop_us;
}

int model_params_switch_of(const struct model_params *p, int a)
{
    return p->switch_of && a >= 0 && a < p->n_ranks ? p->switch_of[a] : -1;
}

int model_params_n_switches(const struct model_params *p)
{
    return p->n_switches;
}

double model_params_uplink_flows(const struct model_params *p, int a)
{
    int s = model_params_switch_of(p, a);
    return s < 0 || !p->uplink_flows ? 0 : p->uplink_flows[s];
}

/* Each switch's uplink capacity (model_params_uplink_flows) from its
 * uplink observations: the one flow's time and the most flows'. Needs the
 * placement and the inter-node set (the flows' work). */
static int fit_uplinks(const struct model_obs *obs, size_t n,
                       struct model_params *p)
{
    if (p->n_switches < 2 || !model_params_has_inter(p)) {
        return 0;
    }
    size_t k = (size_t)p->n_switches;
    double *t1 = malloc(k * sizeof *t1), *tk = malloc(k * sizeof *tk);
    int *most = calloc(k, sizeof *most);
    p->uplink_flows = calloc(k, sizeof *p->uplink_flows);
    if (!t1 || !tk || !most || !p->uplink_flows) {
        free(t1);
        free(tk);
        free(most);
        return -1;
    }
    for (size_t s = 0; s < k; s++) {
        t1[s] = tk[s] = NAN;
    }
    for (size_t i = 0; i < n; i++) {
        int s = obs[i].q == MODEL_Q_UPLINK && !obs[i].is_intra
                    ? model_params_switch_of(p, (int)obs[i].msg_bytes)
                    : -1;
        if (s < 0) {
            continue;
        }
        if (obs[i].pending == 1) {
            t1[s] = obs[i].value_us;
        } else if (obs[i].pending > most[s]) {
            most[s] = obs[i].pending;
            tk[s] = obs[i].value_us;
        }
    }
    double work = model_params_flow_work_us(p);
    for (size_t s = 0; s < k; s++) {
        if (isnan(t1[s]) || isnan(tk[s]) || work <= 0 ||
            tk[s] <= 1.05 * t1[s]) {
            continue;
        }
        double flows = most[s] * work / (tk[s] - t1[s] + work);
        p->uplink_flows[s] = flows < most[s] ? flows : 0;
    }
    free(t1);
    free(tk);
    free(most);
    return 0;
}

double model_params_rdv_hop_factor(const struct model_params *p)
{
    return p->rdv_hop_factor;
}

/* The rendezvous hop factor from the hop_rdv observations (both at one
 * size, to rank 1 and to a farther or nearer rank). */
static void fit_rdv_hop(const struct model_obs *obs, size_t n,
                        struct model_params *p)
{
    double to_1 = NAN, to_b = NAN;
    int b = -1;
    p->rdv_hop_factor = 1;
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == MODEL_Q_HOP_RDV && !obs[i].is_intra) {
            if (obs[i].pending == 1) {
                to_1 = obs[i].value_us;
            } else {
                to_b = obs[i].value_us;
                b = obs[i].pending;
            }
        }
    }
    double extra = b < 0 ? 0
                         : model_params_hop_extra_us(p, 0, b) -
                               model_params_hop_extra_us(p, 0, 1);
    if (!isnan(to_1) && !isnan(to_b) && fabs(extra) > 1e-3) {
        p->rdv_hop_factor = fmax(0, (to_b - to_1) / extra);
    }
}

double model_params_mix_flows(const struct model_params *p)
{
    return p->mix_flows;
}

/* The mixed flows' capacity from the mix observations (alone, mixed), as
 * fit_uplinks does each uplink's; flows of MODEL_STREAM_BYTES whatever
 * the flow row says (a smaller flow hides the slowdown behind its
 * latency: robust-08's 0.82 at 256 KiB is none at 64 KiB). */
static void fit_mix(const struct model_obs *obs, size_t n,
                    struct model_params *p)
{
    double alone = NAN, mixed = NAN;
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == MODEL_Q_MIX && !obs[i].is_intra) {
            *(obs[i].pending ? &mixed : &alone) = obs[i].value_us;
        }
    }
    struct model_p2p q = {0};
    if (model_params_has_inter(p)) {
        model_params_at(p, MODEL_STREAM_BYTES, 0, 0, &q);
    }
    double work = q.work_us;
    p->mix_flows = 0;
    if (!isnan(alone) && !isnan(mixed) && work > 0 && mixed > 1.05 * alone) {
        double flows = work / (mixed - alone + work);
        p->mix_flows = flows < 1 ? flows : 0;
    }
}

long model_params_flow_bytes(const struct model_params *p)
{
    return p->flow_bytes;
}

double model_params_flow_work_us(const struct model_params *p)
{
    struct model_p2p q;
    model_params_at(p, p->flow_bytes, 0, 0, &q);
    return q.work_us;
}

int model_lane_is_shared(double pair_us, double alone_us, double work_us)
{
    return pair_us - alone_us > MODEL_LANE_SHARED * work_us;
}

int model_params_lane_of(const struct model_params *p, int a)
{
    return p->lane_of && a >= 0 && a < p->n_ranks && p->lane_of[a] >= 0
               ? p->lane_of[a]
               : 0;
}

int model_params_n_lanes(const struct model_params *p)
{
    return p->n_lanes > 0 ? p->n_lanes : 1;
}

/* The lanes from the lane observations: a destination shares the lane of
 * the one it was paired with where the two flows were slowed
 * (model_lane_is_shared against that one's flow alone), one whose flow
 * alone was measured and that shares none starts a lane; union-find,
 * lanes numbered in order of their least node; none where more than
 * MODEL_MAX_LANES. Needs the placement's ranks and the inter-node set. */
static int fit_lanes(const struct model_obs *obs, size_t n,
                     struct model_params *p)
{
    if (p->n_switches < 2 || !model_params_has_inter(p)) {
        return 0;
    }
    size_t k = (size_t)p->n_ranks;
    double *alone = malloc(k * sizeof *alone);
    int *parent = malloc(k * sizeof *parent),
        *label = malloc(k * sizeof *label);
    int *seen = calloc(k, sizeof *seen), rc = -1;
    if (!alone || !parent || !label || !seen) {
        goto done;
    }
    for (size_t r = 0; r < k; r++) {
        alone[r] = NAN;
        parent[r] = (int)r;
        label[r] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct model_obs *o = &obs[i];
        if (o->q == MODEL_Q_LANE && o->msg_bytes < (long)k &&
            o->pending < (int)k && o->msg_bytes == o->pending) {
            alone[o->msg_bytes] = o->value_us;
        }
    }
    double work = model_params_flow_work_us(p);
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        const struct model_obs *o = &obs[i];
        if (o->q != MODEL_Q_LANE || o->msg_bytes >= (long)k ||
            o->pending >= (int)k || isnan(alone[o->msg_bytes])) {
            continue;
        }
        /* A lane's member: with its flow alone (a lane of its own), or
         * slowed with a member's; else (tried against some lanes only)
         * not known. */
        if (o->msg_bytes == o->pending) {
            seen[o->pending] = any = 1;
        } else if (model_lane_is_shared(o->value_us, alone[o->msg_bytes],
                                        work)) {
            seen[o->msg_bytes] = seen[o->pending] = any = 1;
            parent[root_of(parent, o->pending)] =
                root_of(parent, (int)o->msg_bytes);
        }
    }
    if (any) {
        int n_lanes = 0;
        for (size_t r = 0; r < k; r++) {
            int root = root_of(parent, (int)r);
            if (seen[r] && label[root] < 0) {
                label[root] = n_lanes++;
            }
        }
        if (n_lanes > MODEL_MAX_LANES) {
            rc = 0; /* too many: not used */
            goto done;
        }
        p->lane_of = malloc(k * sizeof *p->lane_of);
        if (!p->lane_of) {
            goto done;
        }
        for (size_t r = 0; r < k; r++) {
            p->lane_of[r] = seen[r] ? label[root_of(parent, (int)r)] : -1;
        }
        p->n_lanes = n_lanes;
    }
    rc = 0;
done:
    free(alone);
    free(parent);
    free(label);
    free(seen);
    return rc;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The value of q at this size and pending count (any, if < 0), or NAN;
 * *pending_out (if not NULL) gets the observation's pending count. */
static double find_obs(const struct model_obs *obs, size_t n, int is_intra,
                       enum model_quantity q, long msg_bytes, int pending,
                       int *pending_out)
{
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == q && obs[i].msg_bytes == msg_bytes &&
            obs[i].is_intra == is_intra &&
            (pending < 0 || obs[i].pending == pending)) {
            if (pending_out) {
                *pending_out = obs[i].pending;
            }
            return obs[i].value_us;
        }
    }
    return NAN;
}

/* Least squares y = a + b x over the reduce observations. */
static void fit_reduce(const struct model_obs *obs, size_t n, double *a,
                       double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == MODEL_Q_REDUCE) {
            double x = (double)obs[i].msg_bytes, y = obs[i].value_us;
            sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
        }
    }
    *a = *b = 0;
    if (k == 0) {
        return;
    }
    double den = k * sxx - sx * sx;
    *b = den > 0 ? (k * sxy - sx * sy) / den : 0;
    *a = (sy - *b * sx) / k;
    if (*b < 0) {
        *b = 0;
        *a = sy / k;
    }
    if (*a < 0) {
        *a = 0;
    }
}

/* From the pairs observations: one pair's time and the most pairs'. A
 * slowdown under 5 % is latency and noise, not a full backbone. */
static double fit_backbone(const struct model_obs *obs, size_t n)
{
    double t1 = NAN, tn = NAN;
    int most = 1;
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q != MODEL_Q_PAIRS || obs[i].is_intra) {
            continue;
        }
        if (obs[i].pending == 1) {
            t1 = obs[i].value_us;
        } else if (obs[i].pending > most) {
            most = obs[i].pending;
            tn = obs[i].value_us;
        }
    }
    if (isnan(t1) || isnan(tn) || t1 <= 0 || tn <= 1.05 * t1) {
        return 0;
    }
    return most * t1 / tn;
}

int model_is_rendezvous(double isend_us, double send_us, double oneway_us)
{
    return send_us - isend_us > 0.5 * (oneway_us - isend_us);
}

int model_mode_is_rendezvous(double isend_us, double send_us, long msg_bytes,
                             long lo, double oneway_lo_us, long hi,
                             double oneway_hi_us)
{
    double s = hi > lo ? (double)(msg_bytes - lo) / (double)(hi - lo) : 0;
    return model_is_rendezvous(
        isend_us, send_us, oneway_lo_us + s * (oneway_hi_us - oneway_lo_us));
}

/* Where the send mode changes between the largest eager size measured
 * (eager) and the smallest rendezvous one (rdv): narrowed to the largest
 * mode row between them found eager and the smallest found rendezvous
 * (model_mode_is_rendezvous, their Isend taken as eager's; rows that
 * contradict each other, noise, narrow nothing), into set. A calibration
 * before the probe timed the send alone also journaled its ping-pong's
 * half (`pending` 1): read, not needed. */
static void mode_change(const struct model_obs *obs, size_t n, int is_intra,
                        const struct size_params *eager,
                        const struct size_params *rdv, struct p2p_set *set)
{
    long lo = eager->msg_bytes, hi = rdv->msg_bytes;
    for (size_t i = 0; i < n; i++) {
        long m = obs[i].msg_bytes;
        if (obs[i].q != MODEL_Q_MODE || obs[i].is_intra != is_intra ||
            obs[i].pending != 0 || m <= eager->msg_bytes ||
            m >= rdv->msg_bytes) {
            continue;
        }
        if (model_mode_is_rendezvous(eager->isend_us[0], obs[i].value_us, m,
                                     eager->msg_bytes, eager->oneway_us,
                                     rdv->msg_bytes, rdv->oneway_us)) {
            hi = m < hi ? m : hi;
        } else {
            lo = m > lo ? m : lo;
        }
    }
    int is_consistent = lo < hi;
    set->eager_max = is_consistent ? lo : eager->msg_bytes;
    set->rdv_min = is_consistent ? hi : rdv->msg_bytes;
}

/* The set of one kind (is_intra) at each size it has a oneway for: 0, 1
 * when it has none, -1 with one line when a quantity is missing or out of
 * memory. */
static int fit_set(const struct model_obs *obs, size_t n, int is_intra,
                   struct p2p_set *set)
{
    long *sizes = malloc((n ? n : 1) * sizeof *sizes);
    int n_sizes = 0, rc = -1;
    const char *kind = is_intra ? " (intra-node)" : "";
    if (!sizes) {
        fprintf(stderr, "model: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (obs[i].q == MODEL_Q_ONEWAY && obs[i].is_intra == is_intra) {
            sizes[n_sizes++] = obs[i].msg_bytes;
        }
    }
    qsort(sizes, (size_t)n_sizes, sizeof *sizes, cmp_long);
    if (n_sizes == 0) {
        rc = 1;
        goto done;
    }
    set->sizes = calloc((size_t)n_sizes, sizeof *set->sizes);
    if (!set->sizes) {
        fprintf(stderr, "model: out of memory\n");
        goto done;
    }
    for (int i = 0; i < n_sizes; i++) {
        if (i > 0 && sizes[i] == sizes[i - 1]) {
            continue;
        }
        struct size_params *s = &set->sizes[set->n++];
        long m = sizes[i];
        s->msg_bytes = m;
        int k = 0;
        s->send_us = find_obs(obs, n, is_intra, MODEL_Q_SEND, m, 0, NULL);
        s->oneway_us = find_obs(obs, n, is_intra, MODEL_Q_ONEWAY, m, 0, NULL);
        s->recv_late_us =
            find_obs(obs, n, is_intra, MODEL_Q_RECV_LATE, m, 0, NULL);
        double stream1 =
            find_obs(obs, n, is_intra, MODEL_Q_STREAM1, m, 0, NULL);
        double streamk = find_obs(obs, n, is_intra, MODEL_Q_STREAMK, m, -1, &k);
        for (int l = 0; l < N_LEVELS; l++) {
            s->isend_us[l] = find_obs(obs, n, is_intra, MODEL_Q_ISEND, m,
                                      model_pending_levels[l], NULL);
            /* More pending than the stream had: as at the most it had. */
            if (l > 0 && isnan(s->isend_us[l]) &&
                model_pending_levels[l] >= k) {
                s->isend_us[l] = s->isend_us[l - 1];
            }
        }
        int is_isend_missing = 0;
        for (int l = 0; l < N_LEVELS; l++) {
            is_isend_missing |= isnan(s->isend_us[l]);
        }
        for (int q = 0; q < MODEL_Q_REDUCE; q++) {
            int missing =
                q == MODEL_Q_ISEND
                    ? is_isend_missing
                    : isnan(find_obs(obs, n, is_intra, q, m, -1, NULL));
            if (missing || (q == MODEL_Q_STREAMK && k < 2)) {
                fprintf(stderr, "model: no %s observation at %ld bytes%s\n",
                        model_quantity_names[q], m, kind);
                goto done;
            }
        }
        s->gap_us = fmax(0, (streamk - stream1) / (k - 1));
        s->transfer_us = fmax(0, s->oneway_us - s->send_us);
        s->waits_for_recv = s->recv_late_us > 0.5 * s->transfer_us;
        s->is_rendezvous =
            model_is_rendezvous(s->isend_us[0], s->send_us, s->oneway_us);
    }
    /* Modes are monotone: rendezvous from the smallest size above which
     * every size is rendezvous, eager below it. */
    int first_rdv = set->n;
    while (first_rdv > 0 && set->sizes[first_rdv - 1].is_rendezvous) {
        first_rdv--;
    }
    for (int i = 0; i < set->n; i++) {
        set->sizes[i].is_rendezvous = i >= first_rdv;
    }
    if (first_rdv > 0 && first_rdv < set->n) {
        mode_change(obs, n, is_intra, &set->sizes[first_rdv - 1],
                    &set->sizes[first_rdv], set);
    }
    rc = 0;
done:
    free(sizes);
    return rc;
}

int model_params_fit(const struct model_obs *obs, size_t n,
                     struct model_params **out)
{
    struct model_params *p = calloc(1, sizeof *p);
    int rc = -1;
    *out = NULL;
    if (!p) {
        fprintf(stderr, "model: out of memory\n");
        goto done;
    }
    int inter = fit_set(obs, n, 0, &p->inter);
    int intra = inter < 0 ? -1 : fit_set(obs, n, 1, &p->intra);
    if (inter < 0 || intra < 0) {
        goto done;
    }
    if (inter > 0 && intra > 0) {
        fprintf(stderr, "model: no oneway observation: nothing to fit\n");
        goto done;
    }
    p->flow_bytes = MODEL_STREAM_BYTES;
    for (size_t i = 0; i < n; i++) {
        p->flow_bytes =
            obs[i].q == MODEL_Q_FLOW && obs[i].pending == MODEL_FLOW_LANES
                ? obs[i].msg_bytes
                : p->flow_bytes;
    }
    fit_reduce(obs, n, &p->reduce_us, &p->reduce_us_per_byte);
    p->backbone_flows = fit_backbone(obs, n);
    if (fit_placement(obs, n, p) != 0 || fit_uplinks(obs, n, p) != 0 ||
        fit_lanes(obs, n, p) != 0) {
        fprintf(stderr, "model: out of memory\n");
        goto done;
    }
    if (!model_params_uses_pairs(p)) {
        p->backbone_flows = 0;
    }
    fit_rdv_hop(obs, n, p);
    fit_mix(obs, n, p);
    *out = p;
    p = NULL;
    rc = 0;
done:
    model_params_destroy(p);
    return rc;
}

int model_params_has_intra(const struct model_params *p)
{
    return p->intra.n > 0;
}

int model_params_has_inter(const struct model_params *p)
{
    return p->inter.n > 0;
}

/* The set that prices a message of this kind: its own, else the other. */
static const struct p2p_set *set_of(const struct model_params *p, int is_intra)
{
    if (is_intra) {
        return p->intra.n > 0 ? &p->intra : &p->inter;
    }
    return p->inter.n > 0 ? &p->inter : &p->intra;
}

double model_params_backbone_flows(const struct model_params *p)
{
    return p->backbone_flows;
}

/* The pairs were slowed by the limited uplinks, which the replay shares
 * link by link. */
int model_params_uses_pairs(const struct model_params *p)
{
    for (int s = 0; p->uplink_flows && s < p->n_switches; s++) {
        if (p->uplink_flows[s] > 0) {
            return 0;
        }
    }
    return 1;
}

long model_params_eager_max(const struct model_params *p)
{
    const struct p2p_set *set = set_of(p, 0);
    if (set->rdv_min > 0) {
        return set->eager_max;
    }
    long max = 0;
    for (int i = 0; i < set->n && !set->sizes[i].is_rendezvous; i++) {
        max = set->sizes[i].msg_bytes;
    }
    return max;
}

double model_params_reduce_us(const struct model_params *p, long bytes)
{
    return p->reduce_us + p->reduce_us_per_byte * (double)bytes;
}

/* Linear through (x0, y0), (x1, y1) at x; never below 0. */
static double lerp(long x0, double y0, long x1, double y1, long x)
{
    if (x1 == x0) {
        return y0;
    }
    double y = y0 + (y1 - y0) * (double)(x - x0) / (double)(x1 - x0);
    return y > 0 ? y : 0;
}

void model_params_at(const struct model_params *p, long msg_bytes, int pending,
                     int is_intra, struct model_p2p *out)
{
    const struct p2p_set *set = set_of(p, is_intra);
    /* The mode: eager up to the midpoint of the sizes between which it
     * changes. */
    int first_rdv = 0;
    while (first_rdv < set->n && !set->sizes[first_rdv].is_rendezvous) {
        first_rdv++;
    }
    int is_rdv =
        first_rdv == 0 ||
        (first_rdv < set->n && 2 * msg_bytes > set->rdv_min + set->eager_max);
    int lo = is_rdv ? first_rdv : 0, hi = is_rdv ? set->n : first_rdv;
    /* The two sizes of this mode that bracket msg_bytes, or the nearest two
     * to extrapolate from. */
    int i = lo;
    while (i + 2 < hi && set->sizes[i + 1].msg_bytes < msg_bytes) {
        i++;
    }
    int j = i + 1 < hi ? i + 1 : i;
    const struct size_params *a = &set->sizes[i], *b = &set->sizes[j];
    long x0 = a->msg_bytes, x1 = b->msg_bytes, x = msg_bytes;
    out->is_rendezvous = is_rdv;
    out->waits_for_recv = is_rdv || (x <= x0 ? a : b)->waits_for_recv;
    out->send_us = lerp(x0, a->send_us, x1, b->send_us, x);
    out->transfer_us = lerp(x0, a->transfer_us, x1, b->transfer_us, x);
    out->recv_late_us = lerp(x0, a->recv_late_us, x1, b->recv_late_us, x);
    out->gap_us = lerp(x0, a->gap_us, x1, b->gap_us, x);
    /* The bandwidth term of an eager message: its one-way time's growth
     * over the smallest eager size measured (a rendezvous's gap is its
     * transfer, nothing hides it). */
    double bandwidth_us =
        is_rdv ? 0 : fmax(0, out->transfer_us - set->sizes[0].transfer_us);
    if (pending < 0) {
        pending = 0;
    }
    int l = 0;
    while (l + 2 < N_LEVELS && model_pending_levels[l + 1] < pending) {
        l++;
    }
    double y0 = lerp(x0, a->isend_us[l], x1, b->isend_us[l], x);
    double y1 = lerp(x0, a->isend_us[l + 1], x1, b->isend_us[l + 1], x);
    if (pending >= model_pending_levels[N_LEVELS - 1]) {
        out->isend_us = y1;
    } else {
        out->isend_us = lerp(model_pending_levels[l], y0,
                             model_pending_levels[l + 1], y1, pending);
    }
    out->work_us = fmax(fmax(0, out->gap_us - out->isend_us), bandwidth_us);
}

int model_csv_read(const char *path, struct model_obs **obs, size_t *n,
                   double *cost_s)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t cap = 0, count = 0;
    struct model_obs *rows = NULL;
    int lineno = 0, rc = -1, is_legacy = 0;
    *obs = NULL;
    *n = 0;
    *cost_s = 0;
    if (!f) {
        fprintf(stderr,
                "%s: %s (measure it with `autotune model -c "
                "tune.cfg` under mpirun or smpirun)\n",
                path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (lineno == 1) {
            /* Written before the intra-node set: no ppn column. */
            is_legacy = strcmp(line, MODEL_CSV_LEGACY_HEADER) == 0;
            if (!is_legacy && strcmp(line, MODEL_CSV_HEADER) != 0) {
                fprintf(stderr, "%s:1: not a model.csv header: '%s'\n", path,
                        line);
                goto done;
            }
            continue;
        }
        char name[32];
        struct model_obs o = {0};
        int reps, used = 0, ppn = 1, n_fields;
        double cost;
        if (is_legacy) {
            n_fields =
                sscanf(line, "%31[^,],%ld,%d,%lf,%d,%lf%n", name, &o.msg_bytes,
                       &o.pending, &o.value_us, &reps, &cost, &used) +
                1;
        } else {
            n_fields = sscanf(line, "%31[^,],%d,%ld,%d,%lf,%d,%lf%n", name,
                              &ppn, &o.msg_bytes, &o.pending, &o.value_us,
                              &reps, &cost, &used);
        }
        if (n_fields != 7 || line[used] != '\0' || o.msg_bytes < 0 ||
            o.pending < 0 || !isfinite(o.value_us) || o.value_us < 0 ||
            !isfinite(cost)) {
            fprintf(stderr, "%s:%d: not a model row: '%s'\n", path, lineno,
                    line);
            goto done;
        }
        int q = model_quantity_find(name);
        if (q < 0) {
            fprintf(stderr, "%s:%d: quantity: unknown '%s'\n", path, lineno,
                    name);
            goto done;
        }
        if (ppn != 1 && ppn != 2) {
            fprintf(stderr,
                    "%s:%d: ppn: %d is not 1 (two nodes) or 2 (one node)\n",
                    path, lineno, ppn);
            goto done;
        }
        o.is_intra = ppn == 2;
        o.q = (enum model_quantity)q;
        if (o.q == MODEL_Q_UPLINK &&
            (o.msg_bytes >= MODEL_MAX_RANK || o.pending < 1)) {
            fprintf(stderr,
                    "%s:%d: uplink: rank %ld, %d flows: a rank below %d and "
                    "1 flow or more expected\n",
                    path, lineno, o.msg_bytes, o.pending, MODEL_MAX_RANK);
            goto done;
        }
        /* A hop is between two ranks; a lane's pair may name one twice
         * (the flow to it alone); a hop_rdv names a size and a rank. */
        int is_hop = o.q == MODEL_Q_HOP;
        if ((is_hop || o.q == MODEL_Q_LANE) &&
            (o.msg_bytes >= MODEL_MAX_RANK || o.pending >= MODEL_MAX_RANK ||
             (is_hop && o.msg_bytes == o.pending))) {
            fprintf(stderr,
                    "%s:%d: %s: ranks %ld and %d: %s below %d expected\n", path,
                    lineno, name, o.msg_bytes, o.pending,
                    is_hop ? "two ranks" : "ranks", MODEL_MAX_RANK);
            goto done;
        }
        if (o.q == MODEL_Q_HOP_RDV && o.pending >= MODEL_MAX_RANK) {
            fprintf(stderr,
                    "%s:%d: hop_rdv: rank %d: a rank below %d expected\n", path,
                    lineno, o.pending, MODEL_MAX_RANK);
            goto done;
        }
        if (o.q == MODEL_Q_MIX &&
            (o.msg_bytes >= MODEL_MAX_RANK || o.pending > 1)) {
            fprintf(stderr,
                    "%s:%d: mix: rank %ld, %d: a rank below %d and 0 (alone) "
                    "or 1 (mixed) expected\n",
                    path, lineno, o.msg_bytes, o.pending, MODEL_MAX_RANK);
            goto done;
        }
        if (o.q == MODEL_Q_MODE && o.pending != 0 && o.pending != 1) {
            fprintf(stderr,
                    "%s:%d: mode: %d: 0 (the send) or 1 (the one-way time) "
                    "expected\n",
                    path, lineno, o.pending);
            goto done;
        }
        if (o.q == MODEL_Q_FLOW &&
            (o.msg_bytes < 1 || o.msg_bytes > MODEL_STREAM_BYTES)) {
            fprintf(stderr, "%s:%d: flow: %ld bytes: 1 to %d expected\n", path,
                    lineno, o.msg_bytes, MODEL_STREAM_BYTES);
            goto done;
        }
        if (o.q == MODEL_Q_FLOW && o.pending != MODEL_FLOW_LANES &&
            o.pending != MODEL_FLOW_STREAM) {
            fprintf(stderr, "%s:%d: flow: kind %d: %d or %d expected\n", path,
                    lineno, o.pending, MODEL_FLOW_LANES, MODEL_FLOW_STREAM);
            goto done;
        }
        struct model_obs *more = grow(rows, &cap, count + 1, sizeof *more, 64);
        if (!more) {
            fprintf(stderr, "%s: out of memory\n", path);
            goto done;
        }
        rows = more;
        rows[count++] = o;
        *cost_s += cost;
    }
    *obs = rows;
    *n = count;
    rows = NULL;
    rc = 0;
done:
    free(rows);
    fclose(f);
    return rc;
}

int model_load(const char *path, struct model_params **out, double *cost_s)
{
    struct model_obs *obs = NULL;
    size_t n_obs = 0;
    *out = NULL;
    int rc = model_csv_read(path, &obs, &n_obs, cost_s) != 0 ||
                     model_params_fit(obs, n_obs, out) != 0
                 ? -1
                 : 0;
    free(obs);
    return rc;
}
