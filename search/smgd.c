/* Scanning modified gradient descent ([Vadhiyar 2004], section 3.2): the
 * descents of all algorithms advance together, the one predicted to reach the
 * lowest time next going first; an algorithm is dropped once its best is far
 * worse than the best found and its gradients predict it will not catch up.
 * Where neighbouring points were searched, their answers predict instead:
 * algorithms go nearest first, each from its best segment there, and one
 * whose first time is drop_ratio behind the best found goes no further. */
#include "search/plan.h"
#include "search/strategies.h"

/* The lowest time this descent can still be expected to reach. The gradient
 * decays geometrically along the typical slope-then-plateau curve (ratio r of
 * the last two gradients); without a usable ratio the optimistic guess is a
 * straight line to the end of the walk. The step from no segmentation to the
 * largest segment is a change of regime, not part of the curve, so a ratio
 * needs three segmented times. */
static double predicted_floor(const struct descent *d)
{
    const double *t = d->recent_us;
    if (d->n_segmented < 2) {
        return 0; /* no slope of the segmented curve yet: anything goes */
    }
    double g1 = t[1] - t[2]; /* the last step's improvement */
    if (g1 <= 0) {
        return d->best_us; /* rising: the best is behind */
    }
    double floor_us = t[2] - g1 * (double)(d->walk->n - d->next);
    if (d->n_segmented >= 3 && t[0] - t[1] > 0) {
        double r = g1 / (t[0] - t[1]);
        if (r < 1) {
            floor_us = t[2] - g1 * r / (1 - r);
        }
    }
    return floor_us > 0 ? floor_us : 0;
}

/* The next time this descent is expected to show. */
static double predicted_next(const struct descent *d)
{
    const double *t = d->recent_us;
    if (d->n_timed < 2) {
        return d->n_timed ? t[2] : 0;
    }
    double g1 = t[1] - t[2];
    if (g1 <= 0) {
        return t[2];
    }
    double r = d->n_segmented >= 3 && t[0] - t[1] > 0 ? g1 / (t[0] - t[1]) : 1;
    return t[2] - g1 * (r < 1 ? r : 1);
}

/* The scan without neighbours: every descent advances by prediction. */
static int smgd_scan(const struct search_point *p,
                     const struct search_oracle *o, struct descent *d, int n)
{
    int rc = 0;
    /* Two steps of every descent give each a gradient. */
    for (int i = 0; i < n && rc == 0; i++) {
        for (int k = 0; k < 2 && !d[i].is_done && rc == 0; k++) {
            rc = descent_step(&d[i], p, o);
        }
    }
    while (rc == 0) {
        double best_us = descent_best_us(d, n);
        int pick = -1;
        double pick_us = 0;
        for (int i = 0; i < n; i++) {
            if (d[i].is_done) {
                continue;
            }
            if (d[i].best_us > p->params->drop_ratio * best_us &&
                predicted_floor(&d[i]) > best_us) {
                d[i].is_done = 1; /* far behind and not catching up */
                continue;
            }
            double next_us = predicted_next(&d[i]);
            if (pick < 0 || next_us < pick_us) {
                pick = i;
                pick_us = next_us;
            }
        }
        if (pick < 0) {
            break;
        }
        rc = descent_step(&d[pick], p, o);
    }
    return rc;
}

int search_smgd(const struct search_point *p, const struct search_oracle *o,
                int *best)
{
    return plan_search(p, o, plan_walk, 1, smgd_scan, best);
}
