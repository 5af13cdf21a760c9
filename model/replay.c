/* The replay of a schedule with point-to-point parameters (LogGP-like,
 * seed 003 Fig. 5), event-driven. Each rank's clock advances by its own
 * overheads; a message costs the intra-node parameters between two ranks
 * of one node (rank r on node r / ppn), the inter-node ones otherwise; it
 * leaves when posted (or, rendezvous or where eager data waits for the
 * receive, once its receive is posted) as a flow of its work_us (the gap
 * less the Isend, at least the bandwidth term of an eager message) at the
 * full rate. An inter-node flow is on its sender's node's
 * uplink and receiver's node's downlink, each shared equally among the
 * inter-node flows of all the node's ranks (one NIC: as TCP and SimGrid
 * share them); a flow between two switches also on its source switch's
 * uplink and its destination switch's downlink of its destination's lane,
 * each within the capacity measured (autotune model's uplink and lane
 * observations); all of them within the backbone's capacity where no
 * uplink is limited; where a node has flows both within its switch and
 * to or from other switches, the latter within the mixed capacity
 * measured (mix observations). An intra-node
 * flow shares nothing: SimGrid 3.32's loopback is a FATPIPE, and the
 * memory bandwidth concurrent copies on a real node share is not modelled
 * (nor the NUMA distance of two sockets, nor the node's link carrying its
 * own ranks' intra-node traffic, which it does not). A message's latency
 * (what its one-way time takes beyond its flow's work) comes before its
 * flow takes bandwidth, as in SimGrid's network model: a flow that leaves
 * while another is on its link overlaps its latency with the other's
 * transfer, and two flows of different routes share a link only once
 * each has crossed its route (the one-way time was measured with the
 * receive posted first; between ranks on other switches than ranks 0 and
 * 1, it is as much longer as their hop, a rendezvous's by that times the
 * measured rendezvous hop factor, which a rendezvous's sender waits for
 * too: its send returns as the data arrives; eager data held for a
 * receive posted after the send takes a late receive's time instead). It
 * arrives as its flow ends; a receive completes at the later of that and
 * its posting plus the late-receive time. Ranks and flows advance in time
 * order. */
#include "model/model.h"
#include "util/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct message {
    int src, dst, tag;
    int is_intra; /* src and dst share a node */
    int up, down; /* the switch links it crosses (switch * lanes + its
                     destination's lane), uplink and downlink; -1 none
                     (one switch, or no uplink limited) */
    long bytes;
    struct model_p2p p;
    /* A rendezvous's longer route (its hop extra times the rendezvous
     * factor; 0 eager): its sender completes when the data arrives, that
     * much later than between ranks 0 and 1. */
    double rdv_extra_us;
    double latency;    /* before its flow takes bandwidth (latency_us) */
    double send_end;   /* the sender's clock after posting it */
    int is_send_first; /* its receive was not posted before the send */
    double recv_post;  /* NAN until a receive matches it */
    double depart;     /* NAN until its flow starts, its latency after it
                          leaves */
    /* Shared links: the flow's work at the full rate, what is left of it,
     * its rate, and when it ended (NAN until then). */
    double work, remaining, rate, finish;
    int waiter[2]; /* the ranks blocked on its send [1] and receive [0] */
};

/* A request: the message it sends or receives (-1: receive not matched). */
struct request {
    int is_send;
    int msg;
    double post;    /* receives: when posted */
    int is_awaited; /* a receive its rank is blocked on before it matched */
};

/* Unmatched sends and receives of one (source, dest, tag), in order. */
struct channel {
    int src, dst, tag; /* src -1: empty slot */
    int *sends, n_sends, cap_sends, head_sends;
    int *recvs, n_recvs, cap_recvs, head_recvs; /* request ids of dst */
};

struct replay {
    const struct model_schedule *s;
    const struct model_params *params;
    int ppn;
    struct message *msgs;
    int n_msgs;
    size_t cap_msgs;
    struct request **reqs; /* per rank */
    double *clock;
    int *pc, *pending;
    struct channel *chans;
    size_t n_chans, cap_chans; /* open addressing, cap a power of two */
    /* Flows waiting to start, flows active, per node the inter-node flows
     * on its uplink and downlink, and the ranks blocked on a wait. */
    int *starting, n_starting, cap_starting;
    int *active, n_active, cap_active;
    int *n_up, *n_down;
    int *blocked;
    double *rates; /* scratch for the backbone's and uplinks' levels */
    int cap_rates;
    /* Per switch link (a switch's uplink and downlink of one lane): its
     * capacity in flows (0: not limited) and the rates of the flows on it
     * each way (scratch); none when no switch's uplink is limited. */
    int n_links, n_lanes;
    double *uplink_flows, *sum_up, *sum_down;
    /* Per node, whether an active flow of it stays within its switch and
     * whether one leaves it (scratch; none when the mixed flows are not
     * limited). */
    int n_nodes;
    char *is_within, *is_across;
};

/* The message has arrived (its flow ended): its waiters run again. */
static void finished(struct replay *r, struct message *m, double t)
{
    m->finish = t;
    for (int i = 0; i < 2; i++) {
        if (m->waiter[i] >= 0) {
            r->blocked[m->waiter[i]] = 0;
            m->waiter[i] = -1;
        }
    }
}

static int depart(struct replay *r, struct message *m);

static size_t chan_hash(int src, int dst, int tag, size_t cap)
{
    size_t h =
        (size_t)src * 2654435761u ^ (size_t)dst * 40503u ^ (size_t)tag * 97u;
    return h & (cap - 1);
}

static int chans_grow(struct replay *r);

/* The channel (src, dst, tag), created if new; NULL when out of memory. */
static struct channel *chan_get(struct replay *r, int src, int dst, int tag)
{
    if (2 * (r->n_chans + 1) > r->cap_chans && chans_grow(r) != 0) {
        return NULL;
    }
    size_t i = chan_hash(src, dst, tag, r->cap_chans);
    while (r->chans[i].src != -1) {
        struct channel *c = &r->chans[i];
        if (c->src == src && c->dst == dst && c->tag == tag) {
            return c;
        }
        i = (i + 1) & (r->cap_chans - 1);
    }
    struct channel *c = &r->chans[i];
    *c = (struct channel){.src = src, .dst = dst, .tag = tag};
    r->n_chans++;
    return c;
}

static int chans_grow(struct replay *r)
{
    size_t cap = r->cap_chans ? 2 * r->cap_chans : 1024;
    struct channel *old = r->chans;
    size_t old_cap = r->cap_chans;
    r->chans = malloc(cap * sizeof *r->chans);
    if (!r->chans) {
        r->chans = old;
        return -1;
    }
    for (size_t i = 0; i < cap; i++) {
        r->chans[i].src = -1;
    }
    r->cap_chans = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].src != -1) {
            size_t j = chan_hash(old[i].src, old[i].dst, old[i].tag, cap);
            while (r->chans[j].src != -1) {
                j = (j + 1) & (cap - 1);
            }
            r->chans[j] = old[i];
        }
    }
    free(old);
    return 0;
}

static int push(int **items, int *n, int *cap, int value)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 4;
        int *more = realloc(*items, (size_t)c * sizeof *more);
        if (!more) {
            return -1;
        }
        *items = more;
        *cap = c;
    }
    (*items)[(*n)++] = value;
    return 0;
}

/* Matches a new send (msg) or receive (rank dst's request req). */
static int match_send(struct replay *r, int msg)
{
    struct message *m = &r->msgs[msg];
    struct channel *c = chan_get(r, m->src, m->dst, m->tag);
    if (!c) {
        return -1;
    }
    if (c->head_recvs < c->n_recvs) {
        struct request *q = &r->reqs[m->dst][c->recvs[c->head_recvs++]];
        q->msg = msg;
        m->recv_post = q->post;
        m->is_send_first = !(q->post < m->send_end - m->p.isend_us);
        if (q->is_awaited) {
            m->waiter[0] = m->dst;
        }
        if (depart(r, m) < 0) {
            return -1;
        }
        /* Sent before it matched (a flow of no work): already there. */
        if (q->is_awaited && !isnan(m->finish)) {
            r->blocked[m->dst] = 0;
        }
        return 0;
    }
    return push(&c->sends, &c->n_sends, &c->cap_sends, msg);
}

static int match_recv(struct replay *r, int dst, const struct model_op *op)
{
    struct channel *c = chan_get(r, op->peer, dst, op->tag);
    struct request *q = &r->reqs[dst][op->req];
    if (!c) {
        return -1;
    }
    if (c->head_sends < c->n_sends) {
        q->msg = c->sends[c->head_sends++];
        struct message *m = &r->msgs[q->msg];
        m->recv_post = q->post;
        m->is_send_first = !(q->post < m->send_end - m->p.isend_us);
        return depart(r, &r->msgs[q->msg]) < 0 ? -1 : 0;
    }
    return push(&c->recvs, &c->n_recvs, &c->cap_recvs, op->req);
}

/* What m's one-way time takes beyond its flow's work: its latency. Eager
 * data held for a receive posted after the send takes a late receive's
 * time (the transfer was measured with the receive posted first); a
 * rendezvous adds its blocking send's time over the Isend (its handshake). */
static double latency_us(const struct message *m)
{
    double latency = m->p.transfer_us - m->work;
    if (m->is_send_first && m->p.waits_for_recv && !m->p.is_rendezvous) {
        latency = m->p.recv_late_us - m->work;
    }
    if (m->p.is_rendezvous) {
        latency += fmax(0, m->p.send_us - m->p.isend_us);
    }
    return fmax(0, latency);
}

/* When a message leaves its sender: eager at once (after the gap),
 * rendezvous once its receive is posted; its flow starts its latency
 * later. 0 if it cannot be known yet. */
static int depart(struct replay *r, struct message *m)
{
    if (!isnan(m->depart)) {
        return 1;
    }
    int is_held = m->p.is_rendezvous || m->p.waits_for_recv;
    if (is_held && isnan(m->recv_post)) {
        return 0;
    }
    double t = m->send_end;
    if (is_held && m->recv_post > t) {
        t = m->recv_post;
    }
    /* The flow starts its latency later; one of no work ends then. */
    m->work = m->src == m->dst ? 0 : m->p.work_us;
    m->latency = latency_us(m);
    m->depart = t + m->latency;
    if (m->work <= 0) {
        finished(r, m, m->depart);
        return 1;
    }
    return push(&r->starting, &r->n_starting, &r->cap_starting,
                (int)(m - r->msgs)) == 0
               ? 1
               : -1;
}

static int post_send(struct replay *r, int rank, const struct model_op *op)
{
    struct message *more =
        grow(r->msgs, &r->cap_msgs, (size_t)r->n_msgs + 1, sizeof *more, 1024);
    if (!more) {
        return -1;
    }
    r->msgs = more;
    struct message *m = &r->msgs[r->n_msgs];
    int src_node = model_node_of(rank, r->ppn),
        dst_node = model_node_of(op->peer, r->ppn);
    int up = model_params_switch_of(r->params, src_node),
        down = model_params_switch_of(r->params, dst_node);
    if (!r->uplink_flows || up == down || up < 0 || down < 0) {
        up = down = -1;
    } else {
        int lane = model_params_lane_of(r->params, dst_node);
        up = up * r->n_lanes + lane;
        down = down * r->n_lanes + lane;
    }
    *m = (struct message){.src = rank,
                          .dst = op->peer,
                          .is_intra = src_node == dst_node,
                          .up = up,
                          .down = down,
                          .tag = op->tag,
                          .bytes = op->bytes,
                          .recv_post = NAN,
                          .depart = NAN,
                          .finish = NAN,
                          .waiter = {-1, -1}};
    if (op->peer == rank) {
        /* To oneself: a local copy, free like collectives/' memcpy. */
        m->p = (struct model_p2p){0};
    } else {
        model_params_at(r->params, op->bytes, r->pending[rank], m->is_intra,
                        &m->p);
        /* Nodes on other switches than 0 and 1: a longer (or shorter)
         * route. */
        double extra =
            m->is_intra
                ? 0
                : model_params_hop_extra_us(r->params, src_node, dst_node);
        if (m->p.is_rendezvous) { /* its handshake crosses the route too */
            extra *= model_params_rdv_hop_factor(r->params);
            m->rdv_extra_us = extra;
        }
        m->p.transfer_us = fmax(0, m->p.transfer_us + extra);
        if (m->p.waits_for_recv) { /* else a late receive is a local copy */
            m->p.recv_late_us = fmax(0, m->p.recv_late_us + extra);
        }
    }
    r->clock[rank] += m->p.isend_us;
    m->send_end = r->clock[rank];
    r->pending[rank]++;
    r->reqs[rank][op->req] = (struct request){.is_send = 1, .msg = r->n_msgs};
    r->n_msgs++;
    if (!m->p.is_rendezvous && !m->p.waits_for_recv && depart(r, m) < 0) {
        return -1;
    }
    return match_send(r, r->n_msgs - 1);
}

/* Completes rank's wait for req if its dependencies are known: 1 done,
 * 0 blocked. */
static int wait(struct replay *r, int rank, int req)
{
    struct request *q = &r->reqs[rank][req];
    double done;
    if (q->is_send) {
        struct message *m = &r->msgs[q->msg];
        double rest = fmax(0, m->p.send_us - m->p.isend_us);
        if (!m->p.is_rendezvous) {
            done = m->send_end + rest;
        } else if (!isnan(m->finish)) {
            /* (as long after its flow starts as a lone one's would) */
            done = m->finish - m->latency +
                   fmax(0, rest + m->rdv_extra_us - m->work);
        } else {
            return 0;
        }
        r->pending[rank]--;
    } else {
        if (q->msg < 0) {
            return 0;
        }
        struct message *m = &r->msgs[q->msg];
        if (isnan(m->finish)) {
            return 0;
        }
        done = fmax(m->finish, q->post + m->p.recv_late_us);
    }
    r->clock[rank] = fmax(r->clock[rank], done);
    return 1;
}

/* Runs rank's next op: 1 done, 0 blocked on a wait, -1 error. */
static int step(struct replay *r, int rank)
{
    const struct model_op *op = &r->s->ranks[rank].ops[r->pc[rank]];
    switch (op->kind) {
    case RECORD_ISEND:
        if (post_send(r, rank, op) != 0) {
            return -1;
        }
        break;
    case RECORD_IRECV:
        r->reqs[rank][op->req] =
            (struct request){.is_send = 0, .msg = -1, .post = r->clock[rank]};
        if (match_recv(r, rank, op) != 0) {
            return -1;
        }
        break;
    case RECORD_WAIT:
        if (!wait(r, rank, op->req)) {
            return 0;
        }
        break;
    case RECORD_REDUCE:
        r->clock[rank] += model_params_reduce_us(r->params, op->bytes);
        break;
    }
    r->pc[rank]++;
    return 1;
}

/* rank waits for its current op's request: it runs again when the
 * message arrives. */
static void block(struct replay *r, int rank)
{
    const struct model_op *op = &r->s->ranks[rank].ops[r->pc[rank]];
    struct request *q = &r->reqs[rank][op->req];
    r->blocked[rank] = 1;
    if (q->msg < 0) {
        q->is_awaited = 1;
    } else {
        r->msgs[q->msg].waiter[q->is_send] = rank;
    }
}

static int cmp_rate(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The one level that fills capacity with the n rates (sorted here) when
 * every rate above it is capped to it (max-min: flows slower than the level
 * keep their rate). */
static double fill_level(double *rates, int n, double capacity)
{
    qsort(rates, (size_t)n, sizeof *rates, cmp_rate);
    double left = capacity, level = 0;
    for (int i = 0; i < n; i++) {
        level = left / (n - i);
        if (rates[i] >= level) {
            break;
        }
        left -= rates[i];
    }
    return level;
}

/* Caps the inter-node flows on a link (switch link s up, or down if
 * is_down; the backbone if s is -1) to the level at which together they
 * carry its capacity. */
static void share_link(struct replay *r, int s, int is_down, double capacity)
{
    int k = 0;
    for (int i = 0; i < r->n_active; i++) {
        const struct message *m = &r->msgs[r->active[i]];
        if (!m->is_intra && (s < 0 || (is_down ? m->down : m->up) == s)) {
            r->rates[k++] = m->rate;
        }
    }
    double level = fill_level(r->rates, k, capacity);
    for (int i = 0; i < r->n_active; i++) {
        struct message *m = &r->msgs[r->active[i]];
        if (!m->is_intra && (s < 0 || (is_down ? m->down : m->up) == s)) {
            m->rate = fmin(m->rate, level);
        }
    }
}

/* Whether m, a flow of node's, goes to or comes from another switch (1),
 * stays within node's switch (0), or is not node's (-1). */
static int crosses(const struct replay *r, const struct message *m, int node)
{
    int a = model_node_of(m->src, r->ppn), b = model_node_of(m->dst, r->ppn);
    if (m->is_intra || (a != node && b != node)) {
        return -1;
    }
    return model_params_switch_of(r->params, a) !=
           model_params_switch_of(r->params, b);
}

/* At each node with a flow within its switch and one out of it, the
 * flows out of (or into) it from other switches capped at the one level
 * at which together they carry the mixed capacity. */
static void share_mixed(struct replay *r)
{
    double capacity = model_params_mix_flows(r->params);
    memset(r->is_within, 0, (size_t)r->n_nodes);
    memset(r->is_across, 0, (size_t)r->n_nodes);
    for (int i = 0; i < r->n_active; i++) {
        const struct message *m = &r->msgs[r->active[i]];
        int ends[2] = {model_node_of(m->src, r->ppn),
                       model_node_of(m->dst, r->ppn)};
        for (int e = 0; e < 2; e++) {
            int c = crosses(r, m, ends[e]);
            if (c >= 0) {
                (c ? r->is_across : r->is_within)[ends[e]] = 1;
            }
        }
    }
    for (int node = 0; node < r->n_nodes; node++) {
        if (!r->is_within[node] || !r->is_across[node]) {
            continue;
        }
        int k = 0;
        for (int i = 0; i < r->n_active; i++) {
            const struct message *m = &r->msgs[r->active[i]];
            if (crosses(r, m, node) == 1) {
                r->rates[k++] = m->rate;
            }
        }
        double level = fill_level(r->rates, k, capacity);
        for (int i = 0; i < r->n_active; i++) {
            struct message *m = &r->msgs[r->active[i]];
            if (crosses(r, m, node) == 1) {
                m->rate = fmin(m->rate, level);
            }
        }
    }
}

/* The flows' rates: each node's link shared equally among its inter-node
 * flows, a flow going at the rate of the busier of its two links; an
 * intra-node flow at its full rate; then each switch's uplink, then its
 * downlink, where the flows crossing it would carry more than its
 * capacity, then each node's flows to or from other switches where it
 * also has one within its switch, and last the backbone, each capped at
 * the one level that fills it. */
static int flows_rate(struct replay *r)
{
    double sum = 0;
    for (int s = 0; s < r->n_links; s++) {
        r->sum_up[s] = r->sum_down[s] = 0;
    }
    for (int i = 0; i < r->n_active; i++) {
        struct message *m = &r->msgs[r->active[i]];
        if (m->is_intra) {
            m->rate = 1;
            continue;
        }
        int up = r->n_up[model_node_of(m->src, r->ppn)],
            down = r->n_down[model_node_of(m->dst, r->ppn)];
        m->rate = 1.0 / (up > down ? up : down);
        sum += m->rate;
        if (m->up >= 0) {
            r->sum_up[m->up] += m->rate;
            r->sum_down[m->down] += m->rate;
        }
    }
    if (r->n_active > r->cap_rates) {
        double *more =
            realloc(r->rates, (size_t)r->n_active * sizeof *r->rates);
        if (!more) {
            return -1;
        }
        r->rates = more;
        r->cap_rates = r->n_active;
    }
    for (int is_down = 0; is_down < 2; is_down++) {
        const double *on = is_down ? r->sum_down : r->sum_up;
        for (int s = 0; s < r->n_links; s++) {
            double capacity = r->uplink_flows[s];
            if (capacity > 0 && on[s] > capacity) {
                share_link(r, s, is_down, capacity);
            }
        }
    }
    if (r->is_within) {
        share_mixed(r);
    }
    if (r->n_links > 0) {
        sum = 0;
        for (int i = 0; i < r->n_active; i++) {
            const struct message *m = &r->msgs[r->active[i]];
            sum += m->is_intra ? 0 : m->rate;
        }
    }
    double capacity = model_params_backbone_flows(r->params);
    if (capacity > 0 && sum > capacity) {
        share_link(r, -1, 0, capacity);
    }
    return 0;
}

/* An inter-node flow starts (delta 1) or ends (-1) on its nodes' links. */
static void link_count(struct replay *r, const struct message *m, int delta)
{
    if (!m->is_intra) {
        r->n_up[model_node_of(m->src, r->ppn)] += delta;
        r->n_down[model_node_of(m->dst, r->ppn)] += delta;
    }
}

/* The event-driven replay with shared links: ranks run in time order, one
 * op at a time; flows start, share their links and end as events. */
static int run_shared(struct replay *r)
{
    int n = r->s->n_ranks;
    double now = 0;
    for (;;) {
        int rank = -1;
        double t_rank = INFINITY, t_start = INFINITY, t_end = INFINITY;
        for (int i = 0; i < n; i++) {
            if (!r->blocked[i] && r->pc[i] < r->s->ranks[i].n_ops &&
                r->clock[i] < t_rank) {
                t_rank = r->clock[i];
                rank = i;
            }
        }
        /* the hottest loops of a prediction: compared inline, not by
         * libm's fmin (the same for these values, never NaN; Grig's
         * replay a fifth faster) */
        for (int i = 0; i < r->n_starting; i++) {
            double depart = r->msgs[r->starting[i]].depart;
            t_start = depart < t_start ? depart : t_start;
        }
        for (int i = 0; i < r->n_active; i++) {
            const struct message *m = &r->msgs[r->active[i]];
            double end = now + m->remaining / m->rate;
            t_end = end < t_end ? end : t_end;
        }
        if (rank < 0 && isinf(t_start) && isinf(t_end)) {
            break;
        }
        if (t_end <= t_start && t_end <= t_rank) {
            double eps = 1e-9 * (1 + t_end);
            for (int i = 0; i < r->n_active;) {
                struct message *m = &r->msgs[r->active[i]];
                m->remaining -= m->rate * (t_end - now);
                if (m->remaining <= eps * m->rate) {
                    finished(r, m, t_end);
                    link_count(r, m, -1);
                    r->active[i] = r->active[--r->n_active];
                } else {
                    i++;
                }
            }
            now = t_end;
            if (flows_rate(r) != 0) {
                return -1;
            }
        } else if (t_start <= t_rank) {
            for (int i = 0; i < r->n_active; i++) {
                struct message *m = &r->msgs[r->active[i]];
                m->remaining -= m->rate * (t_start - now);
            }
            now = fmax(now, t_start);
            for (int i = 0; i < r->n_starting;) {
                int k = r->starting[i];
                struct message *m = &r->msgs[k];
                if (m->depart <= t_start) {
                    m->remaining = m->work;
                    link_count(r, m, 1);
                    if (push(&r->active, &r->n_active, &r->cap_active, k) !=
                        0) {
                        return -1;
                    }
                    r->starting[i] = r->starting[--r->n_starting];
                } else {
                    i++;
                }
            }
            if (flows_rate(r) != 0) {
                return -1;
            }
        } else {
            int rc = step(r, rank);
            if (rc < 0) {
                return -1;
            }
            if (rc == 0) {
                block(r, rank);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        if (r->pc[i] < r->s->ranks[i].n_ops) {
            fprintf(stderr,
                    "model: schedule deadlocks: rank %d waits at op %d of %d\n",
                    i, r->pc[i], r->s->ranks[i].n_ops);
            return -1;
        }
    }
    return 0;
}

/* The switch links' capacities (each lane's of a switch its uplink's),
 * where one of the n ranks' switches has a limited uplink (else none: no
 * flow is on a switch's link). */
static int uplinks_init(struct replay *r, int n)
{
    int lanes = model_params_n_lanes(r->params);
    int k = model_params_n_switches(r->params) * lanes, is_limited = 0;
    for (int rank = 0; rank < n && !is_limited; rank++) {
        is_limited = model_params_uplink_flows(r->params,
                                               model_node_of(rank, r->ppn)) > 0;
    }
    if (!is_limited) {
        return 0;
    }
    r->uplink_flows = calloc((size_t)k, sizeof *r->uplink_flows);
    r->sum_up = calloc((size_t)k, sizeof *r->sum_up);
    r->sum_down = calloc((size_t)k, sizeof *r->sum_down);
    if (!r->uplink_flows || !r->sum_up || !r->sum_down) {
        return -1;
    }
    r->n_links = k;
    r->n_lanes = lanes;
    for (int rank = 0; rank < n; rank++) {
        int node = model_node_of(rank, r->ppn);
        int s = model_params_switch_of(r->params, node);
        for (int l = 0; s >= 0 && l < lanes; l++) {
            r->uplink_flows[s * lanes + l] =
                model_params_uplink_flows(r->params, node);
        }
    }
    return 0;
}

int model_replay(const struct model_schedule *s, const struct model_params *p,
                 int ppn, double *time_us)
{
    struct replay r = {.s = s, .params = p, .ppn = ppn < 1 ? 1 : ppn};
    int n = s->n_ranks, rc = -1;
    r.reqs = calloc((size_t)n, sizeof *r.reqs);
    r.clock = calloc((size_t)n, sizeof *r.clock);
    r.pc = calloc((size_t)n, sizeof *r.pc);
    r.pending = calloc((size_t)n, sizeof *r.pending);
    r.n_up = calloc((size_t)n, sizeof *r.n_up);
    r.n_down = calloc((size_t)n, sizeof *r.n_down);
    r.blocked = calloc((size_t)n, sizeof *r.blocked);
    int failed = !r.reqs || !r.clock || !r.pc || !r.pending || !r.n_up ||
                 !r.n_down || !r.blocked;
    for (int i = 0; i < n && !failed; i++) {
        r.reqs[i] = calloc((size_t)s->ranks[i].n_reqs + 1, sizeof **r.reqs);
        failed = !r.reqs[i];
    }
    if (failed) {
        fprintf(stderr, "model: out of memory replaying a schedule\n");
        goto done;
    }
    if (model_params_mix_flows(p) > 0 && model_params_n_switches(p) >= 2) {
        r.n_nodes = (n + r.ppn - 1) / r.ppn;
        r.is_within = malloc((size_t)r.n_nodes);
        r.is_across = malloc((size_t)r.n_nodes);
        failed = !r.is_within || !r.is_across;
    }
    if (failed || uplinks_init(&r, n) != 0) {
        fprintf(stderr, "model: out of memory replaying a schedule\n");
        goto done;
    }
    if (run_shared(&r) != 0) {
        goto done;
    }
    *time_us = 0;
    for (int i = 0; i < n; i++) {
        *time_us = fmax(*time_us, r.clock[i]);
    }
    rc = 0;
done:
    for (size_t i = 0; i < r.cap_chans; i++) {
        if (r.chans[i].src != -1) {
            free(r.chans[i].sends);
            free(r.chans[i].recvs);
        }
    }
    free(r.chans);
    for (int i = 0; r.reqs && i < n; i++) {
        free(r.reqs[i]);
    }
    free(r.reqs);
    free(r.clock);
    free(r.pc);
    free(r.pending);
    free(r.n_up);
    free(r.n_down);
    free(r.blocked);
    free(r.starting);
    free(r.active);
    free(r.rates);
    free(r.uplink_flows);
    free(r.sum_up);
    free(r.sum_down);
    free(r.is_within);
    free(r.is_across);
    free(r.msgs);
    return rc;
}

int model_predict(const struct model_params *p, const char *collective,
                  const char *algorithm, int procs, int ppn, long msg_bytes,
                  int seg_bytes, int chain_fanout, double *time_us)
{
    struct model_schedule *s;
    int rc = model_record_method(collective, algorithm, procs, ppn, msg_bytes,
                                 seg_bytes, chain_fanout, &s);
    if (rc == 0) {
        rc = model_replay(s, p, ppn, time_us);
        model_schedule_destroy(s);
    }
    return rc;
}
