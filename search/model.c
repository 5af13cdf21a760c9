/* Model-guided search (issue 15): time only the algorithms the model
 * predicts near the best (and any predicted below the best measured), each
 * at its predicted-best segment size, once for algorithms the model gives
 * the same schedule, then walk the leader's neighbouring segment sizes
 * while time falls, over the ones predicted close to its start and not
 * measured slower at a neighbouring point. Predictions are corrected by
 * measured/predicted at the neighbouring points. Where an experiment is
 * cheap against the costliest point so far, it looks wider. */
#include <math.h>
#include <stdbool.h>

#include "search/strategies.h"
#include "search/walk.h"

/* An algorithm no neighbour has timed has an unknown error: it is timed
 * when predicted within this fraction of the best (on the wide grids, the
 * model's misses within 25 % are mostly such algorithms, at small messages
 * where an experiment costs little). */
#define MODEL_UNKNOWN_MARGIN 0.25

/* A segment size next to the start is timed when its corrected prediction
 * is within this fraction of the start's: near its minimum a corrected
 * segment curve is right in shape to within a few per cent (on the wide
 * grids, 2 % loses 6 % at one point, 3 % nothing above 4.5 %). */
#define MODEL_WALK_MARGIN 0.03

/* Where the start's measured time is within MODEL_TRUST of its corrected
 * prediction, the neighbours' corrections hold at this point, and the
 * segment curve is trusted to MODEL_TRUSTED_WALK_MARGIN instead (on the
 * wide grids most 256 KiB and 1 MiB points: a step there costs as much as
 * a point of 16 KiB to 64 KiB at every segment size). */
#define MODEL_TRUST 0.005
#define MODEL_TRUSTED_WALK_MARGIN 0.01

/* A point whose predicted best is below the costliest point's best found
 * so far divided by this costs little: there every algorithm predicted
 * within MODEL_UNKNOWN_MARGIN is timed, and every one measured within the
 * margin of the best walks its segment sizes too (on the wide grids: all
 * points up to 16 KiB and most up to 64 KiB; the model's misses there
 * were up to 8 %, for 4 % more experiment time). */
#define MODEL_CHEAP_RATIO 16

/* A point whose lead (the fastest algorithm measured) took more than this
 * fraction longer than its corrected prediction is one where the
 * neighbours' corrections do not hold (a protocol limit, a platform's
 * step): there the search looks as wide as at a cheap point, and times the
 * unsegmented version of every algorithm predicted within
 * MODEL_UNKNOWN_MARGIN, a regime the segment walk does not reach. */
#define MODEL_SURPRISE 0.10

/* measured/predicted of alg's fastest answer (at seg_bytes, unless < 0) at
 * the latest point along one neighbouring line that timed it with a
 * prediction, or 0 if none. */
static double line_ratio(const struct search_prior *line, int alg, int seg)
{
    double ratio = 0, best_us = -1;
    long at = -1;
    for (int i = 0; line && i < line->n; i++) {
        const struct search_result *r = &line->results[i];
        if (r->method.alg != alg || r->time_us < 0 || r->predicted_us <= 0 ||
            (seg >= 0 && r->method.seg_bytes != seg)) {
            continue;
        }
        if (at >= 0 && r->msg_bytes != at) {
            break; /* latest point first: an older one */
        }
        if (best_us < 0 || r->time_us < best_us) {
            at = r->msg_bytes;
            best_us = r->time_us;
            ratio = r->time_us / r->predicted_us;
        }
    }
    return ratio;
}

/* The model's error for alg (at seg, unless < 0) near this point: the mean
 * of what the two neighbouring lines say, 0 when neither timed it. */
static double correction(const struct search_point *p, int alg, int seg)
{
    double a = line_ratio(p->prev_msg, alg, seg);
    double b = line_ratio(p->prev_procs, alg, seg);
    if (a > 0 && b > 0) {
        return (a + b) / 2;
    }
    return a > 0 ? a : b;
}

/* What the model expects of one algorithm's walk at this point. */
struct expect {
    double q_us[WALK_MAX];  /* corrected predictions (< 0: does not apply) */
    int is_known[WALK_MAX]; /* the step was timed at a neighbouring point */
    int start;              /* the step of the least q_us, or -1 */
    int is_alg_known;       /* some step was timed at a neighbour */
};

/* The corrected prediction at the start (e->start >= 0). */
static double start_q(const struct expect *e)
{
    return e->q_us[e->start];
}

/* Each step's prediction is corrected by its own error where a neighbour
 * timed it (the model's segment curve can be off in shape, not only in
 * scale), else by the error of the nearest step along the walk that was
 * timed, else by the algorithm's (at its fastest answer: c_alg, 0 if none),
 * else by c_unknown. */
static void expect_walk(const struct search_point *p, const struct walk *w,
                        double c_alg, double c_unknown, struct expect *e)
{
    double c[WALK_MAX];
    for (int k = 0; k < w->n; k++) {
        c[k] = correction(p, w->alg, p->methods[w->steps[k]].seg_bytes);
        e->is_known[k] = c[k] > 0;
    }
    e->is_alg_known = c_alg > 0;
    e->start = -1;
    for (int k = 0; k < w->n; k++) {
        double ck = c[k];
        for (int d = 1; ck <= 0 && d < w->n; d++) {
            double lo = k - d >= 0 ? c[k - d] : 0;
            double hi = k + d < w->n ? c[k + d] : 0;
            ck = lo > 0 && hi > 0 ? (lo + hi) / 2 : lo > 0 ? lo : hi;
        }
        ck = ck > 0 ? ck : c_alg > 0 ? c_alg : c_unknown;
        double t = p->predicted_us[w->steps[k]];
        e->q_us[k] = t >= 0 ? ck * t : -1;
        if (t >= 0 && (e->start < 0 || e->q_us[k] < e->q_us[e->start])) {
            e->start = k;
        }
    }
}

/* The descent with the fastest answer, or -1 if none has one. */
static int fastest(const struct descent *d, int n)
{
    int lead = -1;
    for (int a = 0; a < n; a++) {
        if (d[a].best >= 0 && (lead < 0 || d[a].best_us < d[lead].best_us)) {
            lead = a;
        }
    }
    return lead;
}

/* measured/corrected prediction of d's best. */
static double surprise(const struct descent *d, const struct expect *e,
                       const struct search_point *p)
{
    int k = walk_find_seg(p, d->walk, p->methods[d->best].seg_bytes);
    return k >= 0 && e->q_us[k] > 0 ? d->best_us / e->q_us[k] : 1;
}

/* Algorithm b repeats a (the model gives it the same schedule: at P = 2
 * every tree is one message) when their raw predictions agree at every
 * segment size; timing both would measure one thing twice. */
static int is_twin(const struct search_point *p, const struct walk *a,
                   const struct walk *b)
{
    if (a->n != b->n) {
        return 0;
    }
    for (int k = 0; k < a->n; k++) {
        int i = a->steps[k], j = b->steps[k];
        double ti = p->predicted_us[i], tj = p->predicted_us[j];
        if (p->methods[i].seg_bytes != p->methods[j].seg_bytes ||
            fabs(ti - tj) > 1e-9 * fabs(ti)) {
            return 0;
        }
    }
    return 1;
}

/* Walks from step k of d in direction dir while time falls, over the steps
 * predicted close to the start and not measured slower than d's best at a
 * neighbouring point. */
static int walk_while_falling(struct descent *d, const struct expect *e, int k,
                              int dir, double margin,
                              const struct search_point *p,
                              const struct search_oracle *o)
{
    for (k += dir; k >= 0 && k < d->walk->n; k += dir) {
        if (e->q_us[k] < 0 || e->q_us[k] > (1 + margin) * start_q(e) ||
            (e->is_known[k] && e->q_us[k] >= d->best_us)) {
            return 0;
        }
        int before = d->best;
        int rc = descent_probe(d, k, p, o);
        if (rc != 0 || d->best == before) {
            return rc;
        }
    }
    return 0;
}

/* Toward smaller segments from the start, then, if that found nothing,
 * toward larger ones; over the steps predicted within the walk's margin of
 * the start (the narrower one where the start was predicted right). */
static int walk_segments(struct descent *d, const struct expect *e,
                         const struct search_point *p,
                         const struct search_oracle *o)
{
    int before = d->best;
    bool is_trusted = d->best >= 0 && d->best == d->walk->steps[e->start] &&
                      fabs(d->best_us / start_q(e) - 1) < MODEL_TRUST;
    double margin = is_trusted ? MODEL_TRUSTED_WALK_MARGIN : MODEL_WALK_MARGIN;
    int rc = walk_while_falling(d, e, e->start, +1, margin, p, o);
    if (rc == 0 && d->best == before) {
        rc = walk_while_falling(d, e, e->start, -1, margin, p, o);
    }
    return rc;
}

int search_model(const struct search_point *p, const struct search_oracle *o,
                 int *best)
{
    if (!p->predicted_us) {
        return search_smgd(p, o, best); /* no model: no predictions */
    }
    struct walk walks[WALK_MAX];
    struct descent d[WALK_MAX];
    struct expect e[WALK_MAX];
    int n = walk_split(p, walks, WALK_MAX);
    /* An algorithm no neighbour timed is corrected by the model's error
     * here over those they did (geometric mean): where the model is slow
     * or fast for every algorithm, it is likely so for this one too, and
     * left uncorrected it would look faster or slower than the rest. */
    double c_alg[WALK_MAX], log_sum = 0;
    int n_known = 0;
    for (int a = 0; a < n; a++) {
        c_alg[a] = correction(p, walks[a].alg, -1);
        if (c_alg[a] > 0) {
            log_sum += log(c_alg[a]);
            n_known++;
        }
    }
    double c_unknown = n_known ? exp(log_sum / n_known) : 1;
    int best_a = -1;
    for (int a = 0; a < n; a++) {
        descent_init(&d[a], &walks[a]);
        expect_walk(p, &walks[a], c_alg[a], c_unknown, &e[a]);
        for (int b = 0; b < a && e[a].start >= 0; b++) {
            if (e[b].start >= 0 && is_twin(p, &walks[b], &walks[a])) {
                e[a].start = -1;
            }
        }
        if (e[a].start >= 0 &&
            (best_a < 0 || start_q(&e[a]) < start_q(&e[best_a]))) {
            best_a = a;
        }
    }
    if (best_a < 0) {
        return search_smgd(p, o, best); /* the model knows nothing here */
    }
    double best_q = start_q(&e[best_a]);
    int is_cheap = best_q * MODEL_CHEAP_RATIO <= p->costliest_us;
    int rc = 0;
    for (int a = 0; a < n && rc == 0; a++) {
        double margin = e[a].is_alg_known && !is_cheap ? p->params->model_margin
                                                       : MODEL_UNKNOWN_MARGIN;
        if (e[a].start >= 0 && start_q(&e[a]) <= (1 + margin) * best_q) {
            rc = descent_probe(&d[a], e[a].start, p, o);
        }
    }
    /* Where the measured best is slower than the model said, an algorithm
     * predicted below it may win: each such one is timed, fastest
     * predicted first, until none is left. */
    for (int is_more = 1; is_more && rc == 0;) {
        double best_us = descent_best_us(d, n);
        int pick = -1;
        for (int a = 0; a < n; a++) {
            if (e[a].start >= 0 && d[a].n_timed == 0 && !d[a].is_first_timed &&
                !d[a].is_done && start_q(&e[a]) < best_us &&
                (pick < 0 || start_q(&e[a]) < start_q(&e[pick]))) {
                pick = a;
            }
        }
        is_more = pick >= 0;
        if (is_more) {
            rc = descent_probe(&d[pick], e[pick].start, p, o);
        }
    }
    int lead = fastest(d, n);
    if (rc == 0 && lead >= 0 && !is_cheap &&
        surprise(&d[lead], &e[lead], p) > 1 + MODEL_SURPRISE) {
        is_cheap = 1;
        /* Measured against the time found, not the prediction, which
         * missed here. */
        double best_us = descent_best_us(d, n);
        for (int a = 0; a < n && rc == 0; a++) {
            if (e[a].start >= 0 && d[a].n_timed == 0 && !d[a].is_done &&
                start_q(&e[a]) <= (1 + MODEL_UNKNOWN_MARGIN) * best_us) {
                rc = descent_probe(&d[a], e[a].start, p, o);
            }
        }
        for (int a = 0; a < n && rc == 0; a++) {
            if (e[a].start > 0 && e[a].q_us[0] >= 0 &&
                p->methods[walks[a].steps[0]].seg_bytes == 0 &&
                e[a].q_us[0] <= (1 + MODEL_UNKNOWN_MARGIN) * best_us) {
                rc = descent_probe(&d[a], 0, p, o);
            }
        }
        lead = fastest(d, n);
    }
    if (rc == 0 && lead >= 0) {
        rc = walk_segments(&d[lead], &e[lead], p, o);
    }
    for (int a = 0; is_cheap && rc == 0 && lead >= 0 && a < n; a++) {
        if (a != lead && d[a].best >= 0 &&
            d[a].best_us <= (1 + p->params->model_margin) * d[lead].best_us) {
            rc = walk_segments(&d[a], &e[a], p, o);
        }
    }
    descent_pick(d, n, best);
    return rc;
}
