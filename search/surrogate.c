/* The pipeline surrogate (seed 003, section 3.2, fig. 4): a tree's best
 * segment size is found on a pipeline of the ranks along its longest
 * root-to-leaf path (depth + 1 ranks, cheap to time), then confirmed on the
 * tree at that size and its neighbours. Algorithms that are not trees, or
 * whose pipeline would be as large as the tree, descend as in mgd; where
 * neighbouring points were searched, their best segment sizes are the
 * better guess and are used as in smgd (search/plan.h). */
#include <stddef.h>

#include "search/plan.h"
#include "search/strategies.h"

/* mgd's descent on the pipeline of n_ranks ranks; *at is the position of its
 * best segment on w, or -1 when the oracle has no answer. */
static int pipeline_descent(const struct walk *w, int n_ranks,
                            const struct search_point *p,
                            const struct search_oracle *o, int *at)
{
    double best_us = 0, last_us = 0;
    int misses = 0;
    *at = -1;
    for (int k = 0; k < w->n && misses <= p->params->lookahead; k++) {
        double t;
        int rc = o->time_pipeline(o->ctx, p, n_ranks,
                                  p->methods[w->steps[k]].seg_bytes, &t);
        if (rc != 0) {
            return rc;
        }
        if (t < 0) {
            *at = -1;
            return 0;
        }
        if (*at < 0 || t < best_us) {
            *at = k;
            best_us = t;
            misses = 0;
        } else if (t >= last_us) {
            misses++;
        }
        last_us = t;
    }
    return 0;
}

static int surrogate_cold(struct descent *d, const struct search_point *p,
                          const struct search_oracle *o)
{
    const struct walk *w = d->walk;
    int depth = p->depths ? p->depths[w->alg] : -1;
    int at = -1;
    if (depth >= 1 && depth + 1 < p->procs && p->pipeline_alg >= 0 &&
        w->n > 1) {
        int rc = pipeline_descent(w, depth + 1, p, o, &at);
        if (rc != 0) {
            return rc;
        }
    }
    return at >= 0 ? descent_from(d, at, 0, p, o) : plan_descend(d, p, o);
}

int search_surrogate(const struct search_point *p,
                     const struct search_oracle *o, int *best)
{
    return plan_search(p, o, surrogate_cold, 1, NULL, best);
}
