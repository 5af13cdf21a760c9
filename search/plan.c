/* Planning from the neighbours: a pure function of the answers the strategy
 * got there, so a replay plans exactly as the live sweep did. */
#include <math.h>
#include <stddef.h>

#include "search/plan.h"

/* An algorithm left out at this procs since a PLAN_STALE times smaller
 * message is timed again, on messages below PLAN_STALE_BELOW: there such a
 * check is cheap and keeps the knowledge fresh, so that on larger messages,
 * where one costs as much as all the smaller ones together, none is needed
 * (on the simulated Grig, checking every 16 times instead, at every size,
 * missed crossovers at 2 KiB by up to 23 % when the interval was 8 or 32 and
 * cost more). */
#define PLAN_STALE 4
#define PLAN_STALE_BELOW 262144

/* Methods of an algorithm timed at a point before its best there counts
 * as searched, for a lower bound. */
#ifndef BOUND_SEGS
#define BOUND_SEGS 2
#endif

struct alg_at {
    int is_asked, is_applicable;
    double best_us;
    int best_seg;
    double gap;
    long msg_bytes; /* where it was timed */
    int n_timed;    /* how many of its segment sizes were timed there (not
                       counting no segmentation, a regime of its own) */
};

/* The algorithm's best along a neighbouring line, relative to the best of
 * the point where it was timed. */
static void neighbour_best(const struct search_prior *pr, int alg,
                           struct alg_at *a)
{
    long latest = -1;
    *a = (struct alg_at){0, 0, -1, -1, 0, 0, 0};
    for (int i = 0; i < pr->n; i++) {
        const struct search_result *r = &pr->results[i];
        if (r->method.alg == alg && r->msg_bytes > latest) {
            latest = r->msg_bytes;
        }
    }
    for (int i = 0; i < pr->n; i++) {
        const struct search_result *r = &pr->results[i];
        if (r->method.alg != alg || r->msg_bytes != latest) {
            continue;
        }
        a->is_asked = 1;
        a->n_timed += r->time_us >= 0 && r->method.seg_bytes > 0;
        if (r->time_us >= 0 && r->point_best_us > 0 &&
            (!a->is_applicable || r->time_us < a->best_us)) {
            a->is_applicable = 1;
            a->best_us = r->time_us;
            a->best_seg = r->method.seg_bytes;
            a->gap = r->time_us / r->point_best_us;
            a->msg_bytes = r->msg_bytes;
        }
    }
}

double plan_gap(const struct search_point *p, int alg)
{
    const struct search_prior *near[2] = {p->prev_msg, p->prev_procs};
    double gap = 0;
    for (int k = 0; k < 2; k++) {
        struct alg_at a;
        if (near[k]) {
            neighbour_best(near[k], alg, &a);
            if (a.is_applicable && (gap == 0 || a.gap < gap)) {
                gap = a.gap;
            }
        }
    }
    return gap;
}

/* The segment size to start from: the neighbour's best, moved for a
 * message more than twice as large by the square root of the ratio (the
 * pipeline model's optimum, sqrt(m * alpha / (beta * depth))), to the
 * nearest size on the walk. */
static int scaled_seg(const struct search_point *p, const struct walk *w,
                      const struct alg_at *a)
{
    if (a->best_seg <= 0 || a->msg_bytes * 2 >= p->msg_bytes) {
        return a->best_seg;
    }
    double want = a->best_seg * sqrt((double)p->msg_bytes / a->msg_bytes);
    int seg = a->best_seg;
    for (int k = 0; k < w->n; k++) {
        int s = p->methods[w->steps[k]].seg_bytes;
        if (s > 0 && fabs(log(s / want)) < fabs(log(seg / want))) {
            seg = s;
        }
    }
    return seg;
}

/* alg's best answer at msg_bytes along a line, or NULL. */
static const struct search_result *best_at(const struct search_prior *pr,
                                           int alg, long msg_bytes)
{
    const struct search_result *best = NULL;
    for (int i = 0; i < pr->n; i++) {
        const struct search_result *r = &pr->results[i];
        if (r->method.alg == alg && r->msg_bytes == msg_bytes &&
            r->time_us >= 0 && (!best || r->time_us < best->time_us)) {
            best = r;
        }
    }
    return best;
}

/* Twins along the same procs: at the latest message size where both were
 * timed, alg took other's times to 0.1 % at two segment sizes or more and
 * differed at none (at two processes every tree is one message; at three
 * most are the same star). One stands for both. A single equal time is not
 * enough: trees of different shapes can tie on small messages. */
static int is_twin(const struct search_prior *pr, int alg, int other)
{
    long both = -1;
    int n_equal = 0;
    for (int i = 0; i < pr->n; i++) {
        const struct search_result *r = &pr->results[i];
        if (r->method.alg == alg && r->msg_bytes > both &&
            best_at(pr, other, r->msg_bytes)) {
            both = r->msg_bytes;
        }
    }
    for (int i = 0; i < pr->n; i++) {
        const struct search_result *r = &pr->results[i];
        if (r->method.alg != alg || r->msg_bytes != both || r->time_us < 0) {
            continue;
        }
        for (int j = 0; j < pr->n; j++) {
            const struct search_result *b = &pr->results[j];
            if (b->method.alg != other || b->msg_bytes != both ||
                b->method.seg_bytes != r->method.seg_bytes || b->time_us < 0) {
                continue;
            }
            if (r->time_us > b->time_us * 1.001 ||
                b->time_us > r->time_us * 1.001) {
                return 0;
            }
            n_equal++;
        }
    }
    return n_equal >= 2;
}

/* Twins of algorithms planned before them are checked with one experiment
 * at the other's best segment size here (twin_of), and searched only if
 * they differ now: being twins at a neighbour is no evidence here (trees
 * that tie on small messages part on larger ones). */
static void plan_twins(const struct search_point *p, const struct walk *w,
                       int n, struct plan *pl)
{
    const struct search_prior *pr = p->prev_msg;
    for (int k = 0; k < n; k++) {
        int i = pl->order[k];
        pl->twin_of[i] = -1;
        if (!pr || pl->mode[i] != PLAN_SEARCH || pl->gap[i] == 0) {
            continue;
        }
        for (int m = 0; m < k; m++) {
            int j = pl->order[m];
            if (pl->mode[j] != PLAN_SKIP && is_twin(pr, w[i].alg, w[j].alg)) {
                pl->twin_of[i] = j;
                break;
            }
        }
    }
}

void plan_make(const struct search_point *p, const struct walk *w, int n,
               struct plan *pl)
{
    const struct search_prior *near[2] = {p->prev_msg, p->prev_procs};
    double ratio = p->params->drop_ratio;
    long known_msg[WALK_MAX];
    pl->has_neighbours = near[0] || near[1];
    for (int i = 0; i < n; i++) {
        int is_na = 0;
        known_msg[i] = 0;
        pl->gap[i] = 0;
        pl->start[i] = -1;
        pl->is_located[i] = 1;
        pl->gap[i] = plan_gap(p, w[i].alg);
        for (int k = 0; k < 2; k++) {
            struct alg_at a;
            if (!near[k]) {
                continue;
            }
            neighbour_best(near[k], w[i].alg, &a);
            is_na |= a.is_asked && !a.is_applicable;
            if (!a.is_applicable) {
                continue;
            }
            if (k == 0) {
                known_msg[i] = a.msg_bytes; /* along the same procs */
            }
            if (a.n_timed < 2 && a.best_seg != 0) {
                /* One segment size timed alone (a probe) says nothing of
                 * where its best is: a descent from there kept a
                 * k-nomial bcast at 512 B segments, 1.5x behind, on one
                 * generated cluster, where 4 KiB ones won by 19 %. It
                 * starts where the leader here is best instead. */
                pl->is_located[i] = pl->start[i] >= 0;
                continue;
            }
            pl->is_located[i] = 1;
            if (pl->start[i] < 0) {
                pl->start[i] =
                    walk_find_seg(p, &w[i], scaled_seg(p, &w[i], &a));
            } else if (k == 1 && a.msg_bytes == p->msg_bytes &&
                       a.best_seg > 0) {
                /* The previous procs at this very size guides the segment
                 * size better than a smaller message here: the optimum
                 * moves with the message size (as its square root on a
                 * pipeline) but little with procs, and a start far up a
                 * steep curve looks too slow to descend (pipeline bcast,
                 * P=11, 64 KiB on Grig: from 4 KiB, 1.28x the best found,
                 * cut; from P=8's 1 KiB, the optimum). */
                int at = walk_find_seg(p, &w[i], a.best_seg);
                pl->start[i] = at >= 0 ? at : pl->start[i];
            }
        }
        if (!pl->has_neighbours || (pl->gap[i] == 0 && is_na)) {
            pl->mode[i] = PLAN_SEARCH; /* nothing known, or it may run here */
        } else if (pl->gap[i] > ratio && p->msg_bytes < PLAN_STALE_BELOW &&
                   known_msg[i] * PLAN_STALE < p->msg_bytes) {
            /* Not timed at this procs for a while (or ever): gaps measured
             * on small messages (latency) shrink on larger ones
             * (bandwidth), and the previous procs is no guide for
             * algorithms that prefer powers of two. No cap on the gap and
             * no trend is safe: on the simulated Grig, gaps of 9 close and
             * gaps grow before they shrink. */
            pl->mode[i] = PLAN_PROBE;
        } else if (pl->gap[i] == 0 || pl->gap[i] > ratio * ratio) {
            pl->mode[i] = PLAN_SKIP;
        } else {
            pl->mode[i] = pl->gap[i] <= ratio ? PLAN_SEARCH : PLAN_PROBE;
        }
    }
    /* Insertion sort by gap along the same procs where known (the nearer
     * guide), else by gap: stable, so ties keep table order. */
    double key[WALK_MAX];
    for (int i = 0; i < n; i++) {
        struct alg_at a = {0, 0, -1, -1, 0, 0, 0};
        if (near[0]) {
            neighbour_best(near[0], w[i].alg, &a);
        }
        key[i] = a.is_applicable ? a.gap : pl->gap[i] > 0 ? pl->gap[i] : 1e300;
    }
    for (int i = 0; i < n; i++) {
        int k = i;
        double g = key[i];
        while (k > 0) {
            int j = pl->order[k - 1];
            double gj = key[j];
            if (gj <= g) {
                break;
            }
            pl->order[k] = j;
            k--;
        }
        pl->order[k] = i;
    }
    plan_twins(p, w, n, pl);
}

int plan_descend(struct descent *d, const struct search_point *p,
                 const struct search_oracle *o)
{
    int rc = 0;
    while (!d->is_done && rc == 0) {
        rc = descent_step(d, p, o);
    }
    return rc;
}

int plan_walk(struct descent *d, int start, double cut_us,
              const struct search_point *p, const struct search_oracle *o)
{
    return start < 0 ? plan_descend(d, p, o)
                     : descent_from(d, start, cut_us, p, o);
}

/* Where the fastest algorithm found so far is best, moved to walk w's
 * depth, or the walk's start (no segmentation) when nothing was found yet:
 * an algorithm known only by a probe starts there. The pipeline model's
 * optimum, sqrt(m * alpha / ((h - 1) * beta)), falls as the square root of
 * the hops h - 1 grow. *is_deeper: w's tree is deeper than the leader's,
 * so a smaller segment than the nearest may be its best. */
static int leader_start(const struct search_point *p, const struct walk *w,
                        const struct descent *d, int n, int *is_deeper)
{
    int leader = -1;
    *is_deeper = 0;
    for (int i = 0; i < n; i++) {
        if (d[i].best >= 0 &&
            (leader < 0 || d[i].best_us < d[leader].best_us)) {
            leader = i;
        }
    }
    if (leader < 0) {
        return 0;
    }
    double seg = p->methods[d[leader].best].seg_bytes;
    int h = search_depth(p, w->alg);
    int h_leader = search_depth(p, d[leader].walk->alg);
    if (h > 0 && h_leader > 0) {
        seg *= sqrt((h_leader > 1 ? h_leader - 1 : 1) /
                    (double)(h > 1 ? h - 1 : 1));
        *is_deeper = h > h_leader;
    }
    int at = 0;
    for (int k = 1; k < w->n && seg > 0; k++) {
        int s = p->methods[w->steps[k]].seg_bytes;
        int s_at = p->methods[w->steps[at]].seg_bytes;
        if (s_at == 0 || fabs(log(s / seg)) < fabs(log(s_at / seg))) {
            at = k;
        }
    }
    return at;
}

/* A lower bound of alg's time here from the smaller messages at this procs
 * (0: none): sending more never takes less time, so its best at a smaller
 * size bounds its best here, where that best was searched there (BOUND_SEGS
 * segment sizes timed, or it has no segments); and a tree of h hops timed
 * unsegmented there can gain at most 2h from segmenting (see
 * descent_from). */
static double plan_bound(const struct search_point *p, const struct walk *w)
{
    const struct search_prior *pr = p->prev_msg;
    int depth = search_depth(p, w->alg);
    double bound = 0;
    for (int i = 0; pr && i < pr->n; i++) {
        const struct search_result *r = &pr->results[i];
        if (r->method.alg != w->alg || r->time_us < 0) {
            continue;
        }
        if (r->method.seg_bytes == 0 && depth > 0 &&
            r->time_us / (2 * depth) > bound) {
            bound = r->time_us / (2 * depth);
        }
        int n_timed = 0;
        double best_us = r->time_us;
        for (int j = 0; j < pr->n; j++) {
            const struct search_result *b = &pr->results[j];
            if (b->method.alg == w->alg && b->msg_bytes == r->msg_bytes &&
                b->time_us >= 0) {
                n_timed++;
                best_us = b->time_us < best_us ? b->time_us : best_us;
            }
        }
        /* Searched there: BOUND_SEGS methods timed, or it had one alone
         * (no segments, or none smaller than that message). */
        int smallest = p->methods[w->steps[w->n - 1]].seg_bytes;
        if ((n_timed >= BOUND_SEGS || smallest == 0 ||
             r->msg_bytes <= smallest) &&
            best_us > bound) {
            bound = best_us;
        }
    }
    return bound;
}

int plan_run(const struct plan *pl, const struct walk *w, int n,
             const struct search_point *p, const struct search_oracle *o,
             plan_walk_fn walk, int is_dropping, struct descent *d)
{
    double ratio = p->params->drop_ratio;
    for (int i = 0; i < n; i++) {
        descent_init(&d[i], &w[i]);
    }
    for (int k = 0; k < n; k++) {
        int i = pl->order[k];
        int start = pl->start[i] >= 0 ? pl->start[i] : 0;
        int is_deeper = 0;
        if (!pl->is_located[i]) {
            start = leader_start(p, &w[i], d, n, &is_deeper);
        }
        double best_us = descent_best_us(d, n);
        int twin = pl->twin_of[i];
        int rc = 0;
        if (d[i].is_done) {
            continue;
        }
        if (pl->mode[i] == PLAN_SKIP) {
            /* What the neighbours say is checked here with one experiment
             * unless it cannot win here; mgd times every algorithm. */
            double bound = is_dropping ? plan_bound(p, &w[i]) : 0;
            if (bound > 0 && best_us > 0 && bound >= best_us) {
                continue;
            }
        }
        if (twin >= 0 && d[twin].best >= 0) {
            int at =
                walk_find_seg(p, &w[i], p->methods[d[twin].best].seg_bytes);
            if (at >= 0) {
                start = at;
                rc = descent_probe(&d[i], at, p, o);
                if (rc != 0 || d[i].best < 0 ||
                    fabs(d[i].best_us - d[twin].best_us) <=
                        0.001 * d[twin].best_us) {
                    if (rc != 0) {
                        return rc;
                    }
                    continue; /* still a twin */
                }
            }
        }
        int is_cut = best_us > 0 && (is_dropping || pl->mode[i] != PLAN_SEARCH);
        /* One that starts r behind the best found here is left (after
         * its unsegmented time, see descent_from). A cut of sqrt(r) for
         * searched ones saved 6 % of the time on the shipped platforms and
         * lost 11 % on a generated one (bcast chain, 8 ranks, 64 KiB: 1.16x
         * behind at its neighbour's 16 KiB, the optimum at 32 KiB). */
        double cut_us = is_cut ? ratio * best_us : 0;
        d[i].is_pruning = is_dropping;
        d[i].rival_us = best_us;
        if (is_deeper && cut_us > 0 && start + 1 < w[i].n &&
            p->methods[w[i].steps[start]].seg_bytes > 0) {
            /* The nearest size may be past a deeper tree's optimum: the
             * next smaller one is timed too (pipeline reduce, 9 ranks,
             * 16 KiB, segments 1 and 4 KiB, on a generated cluster: 1.5x
             * behind at the leader's 4 KiB, the optimum at 1 KiB). */
            if ((rc = descent_probe(&d[i], start, p, o)) != 0 ||
                (d[i].best >= 0 && d[i].best_us > cut_us &&
                 (rc = descent_probe(&d[i], start + 1, p, o)) != 0)) {
                return rc;
            }
            if (d[i].best < 0) {
                continue; /* cannot run here */
            }
            start = d[i].best == w[i].steps[start + 1] ? start + 1 : start;
            if (d[i].best_us > cut_us) {
                continue; /* both behind */
            }
        }
        if (pl->mode[i] == PLAN_SEARCH && d[i].n_timed == 0) {
            rc = walk(&d[i], pl->is_located[i] ? pl->start[i] : start, cut_us,
                      p, o);
        } else {
            rc = descent_from(&d[i], start, cut_us, p, o);
        }
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

int plan_search(const struct search_point *p, const struct search_oracle *o,
                plan_walk_fn walk, int is_dropping, plan_scan_fn scan,
                int *best)
{
    struct walk walks[WALK_MAX];
    struct descent d[WALK_MAX];
    struct plan pl;
    int n = walk_split(p, walks, WALK_MAX);
    int rc;
    plan_make(p, walks, n, &pl);
    if (pl.has_neighbours || !scan) {
        rc = plan_run(&pl, walks, n, p, o, walk, is_dropping, d);
    } else {
        for (int i = 0; i < n; i++) {
            descent_init(&d[i], &walks[i]);
        }
        rc = scan(p, o, d, n);
    }
    descent_pick(d, n, best);
    return rc;
}
