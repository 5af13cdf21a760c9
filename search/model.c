/* Model-guided search (issue 15): time only the algorithms the model
 * predicts near the best (and any predicted below the best measured), each
 * at its predicted-best segment size, then walk the leader's neighbouring
 * segment sizes while time falls. Predictions are corrected by
 * measured/predicted at the neighbouring points. */
#include "search/strategies.h"
#include "search/walk.h"

/* An algorithm no neighbour has timed has an unknown error: it is timed
 * when predicted within this fraction of the best (on the wide grids, the
 * model's misses within 25 % are mostly such algorithms, at small messages
 * where an experiment costs little). */
#define MODEL_UNKNOWN_MARGIN 0.25

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

/* The model's error for alg near this point: the mean of what the two
 * neighbouring lines say, 1 when neither timed it. */
static double correction(const struct search_point *p, int alg, int seg)
{
    double a = line_ratio(p->prev_msg, alg, seg);
    double b = line_ratio(p->prev_procs, alg, seg);
    if (a > 0 && b > 0) {
        return (a + b) / 2;
    }
    return a > 0 ? a : b > 0 ? b : 1;
}

/* Walks from step k of d in direction dir while time falls (no lookahead:
 * the model has placed the start near the minimum already). */
static int walk_while_falling(struct descent *d, int k, int dir,
                              const struct search_point *p,
                              const struct search_oracle *o)
{
    for (k += dir; k >= 0 && k < d->walk->n; k += dir) {
        int before = d->best;
        int rc = descent_probe(d, k, p, o);
        if (rc != 0 || d->best == before) {
            return rc;
        }
    }
    return 0;
}

int search_model(const struct search_point *p, const struct search_oracle *o,
                 int *best)
{
    if (!p->predicted_us) {
        return search_smgd(p, o, best); /* no model: no predictions */
    }
    struct walk walks[WALK_MAX];
    struct descent d[WALK_MAX];
    double q_us[WALK_MAX];  /* the corrected prediction at start[] */
    int is_known[WALK_MAX]; /* timed at a neighbour: corrected */
    int start[WALK_MAX];
    int n = walk_split(p, walks, WALK_MAX);
    double best_q = -1;
    for (int a = 0; a < n; a++) {
        descent_init(&d[a], &walks[a]);
        double c_alg = correction(p, walks[a].alg, -1);
        is_known[a] = line_ratio(p->prev_msg, walks[a].alg, -1) > 0 ||
                      line_ratio(p->prev_procs, walks[a].alg, -1) > 0;
        start[a] = -1;
        for (int k = 0; k < walks[a].n; k++) {
            double t = p->predicted_us[walks[a].steps[k]];
            /* The method's own error where a neighbour timed it (the
             * model's segment curve can be off in shape, not only in
             * scale), else its algorithm's. */
            double c = correction(p, walks[a].alg,
                                  p->methods[walks[a].steps[k]].seg_bytes);
            c = c != 1 ? c : c_alg;
            if (t >= 0 && (start[a] < 0 || c * t < q_us[a])) {
                start[a] = k;
                q_us[a] = c * t;
            }
        }
        if (start[a] >= 0 && (best_q < 0 || q_us[a] < best_q)) {
            best_q = q_us[a];
        }
    }
    if (best_q < 0) {
        return search_smgd(p, o, best); /* the model knows nothing here */
    }
    int rc = 0;
    for (int a = 0; a < n && rc == 0; a++) {
        double margin =
            is_known[a] ? p->params->model_margin : MODEL_UNKNOWN_MARGIN;
        if (start[a] >= 0 && q_us[a] <= (1 + margin) * best_q) {
            rc = descent_probe(&d[a], start[a], p, o);
        }
    }
    /* Where the measured best is slower than the model said, an algorithm
     * predicted below it may win: each such one is timed, fastest
     * predicted first, until none is left. */
    for (int is_more = 1; is_more && rc == 0;) {
        double best_us = descent_best_us(d, n);
        int pick = -1;
        for (int a = 0; a < n; a++) {
            if (start[a] >= 0 && d[a].n_timed == 0 && !d[a].is_first_timed &&
                !d[a].is_done && q_us[a] < best_us &&
                (pick < 0 || q_us[a] < q_us[pick])) {
                pick = a;
            }
        }
        is_more = pick >= 0;
        if (is_more) {
            rc = descent_probe(&d[pick], start[pick], p, o);
        }
    }
    int lead = -1;
    for (int a = 0; a < n; a++) {
        if (d[a].best >= 0 && (lead < 0 || d[a].best_us < d[lead].best_us)) {
            lead = a;
        }
    }
    if (rc == 0 && lead >= 0) {
        /* Toward smaller segments, then, if that found nothing, larger. */
        int before = d[lead].best;
        rc = walk_while_falling(&d[lead], start[lead], +1, p, o);
        if (rc == 0 && d[lead].best == before) {
            rc = walk_while_falling(&d[lead], start[lead], -1, p, o);
        }
    }
    descent_pick(d, n, best);
    return rc;
}
