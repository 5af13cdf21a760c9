/* Descent paths: methods come grouped by algorithm, segments ascending with
 * 0 (unsegmented, i.e. one segment as large as the message) first. */
#include "search/walk.h"

int walk_split(const struct search_point *p, struct walk *walks, int max_walks)
{
    int n_walks = 0;
    for (int lo = 0; lo < p->n_methods && n_walks < max_walks;) {
        int hi = lo;
        while (hi < p->n_methods && p->methods[hi].alg == p->methods[lo].alg) {
            hi++;
        }
        struct walk *w = &walks[n_walks++];
        w->alg = p->methods[lo].alg;
        w->n = 0;
        int first = lo;
        if (p->methods[lo].seg_bytes == 0) {
            w->steps[w->n++] = lo;
            first = lo + 1;
        }
        for (int i = hi - 1; i >= first && w->n < WALK_MAX; i--) {
            w->steps[w->n++] = i;
        }
        lo = hi;
    }
    return n_walks;
}

void descent_init(struct descent *d, const struct walk *w)
{
    *d = (struct descent){.walk = w, .best = -1, .is_done = w->n == 0};
}

int descent_step(struct descent *d, const struct search_point *p,
                 search_oracle_fn oracle, void *ctx)
{
    int method = d->walk->steps[d->next++];
    double t;
    int rc = oracle(ctx, p, method, &t);
    if (rc != 0) {
        return rc;
    }
    if (t < 0) { /* not applicable: no segment size will change that */
        d->is_done = 1;
        return 0;
    }
    int is_falling = d->n_timed > 0 && t < d->recent_us[2];
    d->recent_us[0] = d->recent_us[1];
    d->recent_us[1] = d->recent_us[2];
    d->recent_us[2] = t;
    d->n_timed++;
    d->n_segmented += p->methods[method].seg_bytes > 0;
    if (d->best < 0 || t < d->best_us) {
        d->best = method;
        d->best_us = t;
        d->misses = 0;
    } else if (!is_falling) {
        /* A step past the minimum. While time still falls the descent goes
         * on, even above the best: segmentation often starts worse than no
         * segmentation and then falls below it. */
        d->misses++;
    }
    if (d->next >= d->walk->n || d->misses > p->params->lookahead) {
        d->is_done = 1;
    }
    return 0;
}

void descent_pick(const struct descent *d, int n, int *best)
{
    double best_us = 0;
    *best = -1;
    for (int i = 0; i < n; i++) {
        if (d[i].best >= 0 &&
            (*best < 0 || d[i].best_us < best_us ||
             (d[i].best_us == best_us && d[i].best < *best))) {
            *best = d[i].best;
            best_us = d[i].best_us;
        }
    }
}
