/* Third methods in a tree or quadtree: at a site (procs between two
 * training message sizes, each with the decision's methods on both sides)
 * the method, if any, that lowers the penalty summed over the site's procs
 * most, and the sizes it takes. */
#include <math.h>
#include <stdlib.h>

#include "decision/between.h"

/* Whether method k can be the third at site t: at every procs
 * (between_third_can_run), and near the optimum at one (between_third_is_near).
 */
static bool is_third(const struct run_data *r, const struct run_grid *grid,
                     const struct between_site *t, int k)
{
    bool is_near = false;
    for (int i = 0; i < t->n; i++) {
        long ca = (long)t->ps[i] * grid->n_msgs + t->ma,
             cb = (long)t->ps[i] * grid->n_msgs + t->mb;
        if (!between_third_can_run(r, grid, ca, cb, k)) {
            return false;
        }
        is_near |= between_third_is_near(r, grid, ca, cb, k);
    }
    return is_near;
}

/* The curves at a site's procs (one per procs): its lower side's
 * methods, its upper side's and a candidate's. */
struct site_curves {
    struct between_curve *lo, *hi, *x;
};

/* Each procs i's curve of method k (-1: the lower side's, -2: the
 * upper's) into c[i]; n = 0 where it cannot run. */
static void site_curves_of(const struct run_data *r,
                           const struct run_grid *grid,
                           const struct between_site *t, int k,
                           struct between_curve *c)
{
    for (int i = 0; i < t->n; i++) {
        long ca = (long)t->ps[i] * grid->n_msgs + t->ma;
        int m = k == -1 ? t->k_lo[i] : k == -2 ? t->k_hi[i] : k;
        between_method_curve(r, grid, ca, ca + (t->mb - t->ma), m, &c[i]);
    }
}

/* Curve c at s in [0, 1]; NAN when the method cannot run. */
static double curve_at(const struct between_curve *c, double at)
{
    return c->n > 0 ? between_curve_at(c, at) : NAN;
}

/* The curve of procs i that `which` names (-1 the lower side's, -2 the
 * upper's, -3 the candidate's). */
static const struct between_curve *site_curve(const struct site_curves *sc,
                                              int which, int i)
{
    return which == -1 ? &sc->lo[i] : which == -2 ? &sc->hi[i] : &sc->x[i];
}

/* At s, summed over site t's procs: the cost of curve `from` less that of
 * curve `to` (site_curve's), each against the faster of the two sides'
 * methods there. */
static double cost_change(const struct between_site *t,
                          const struct site_curves *sc, int from, int to,
                          double at)
{
    double sum = 0;
    for (int i = 0; i < t->n; i++) {
        double f_lo = curve_at(&sc->lo[i], at);
        double f_hi = curve_at(&sc->hi[i], at);
        double ref = f_lo < f_hi ? f_lo : f_hi;
        sum += expm1(curve_at(site_curve(sc, from, i), at) - ref) -
               expm1(curve_at(site_curve(sc, to, i), at) - ref);
    }
    return sum;
}

/* Where between samples j - 1 and j the change from one curve to the
 * next (cost_change) turns from a loss to a gain or back; the middle when
 * it does not. */
static double change_at(const struct between_site *t,
                        const struct site_curves *sc, int from, int to, int j)
{
    double s0 = (double)(j - 1) / BETWEEN_N_SAMPLES,
           s1 = (double)j / BETWEEN_N_SAMPLES;
    double f0 = cost_change(t, sc, from, to, s0);
    if ((f0 > 0) == (cost_change(t, sc, from, to, s1) > 0)) {
        return (s0 + s1) / 2;
    }
    for (int it = 0; it < 60; it++) {
        double s = (s0 + s1) / 2;
        *((cost_change(t, sc, from, to, s) > 0) == (f0 > 0) ? &s0 : &s1) = s;
    }
    return (s0 + s1) / 2;
}

/* The third method of site t that lowers the summed penalty most (against
 * the faster of the two sides' methods, over its procs and the samples
 * between the two sizes), the samples [*j0, *j1) it takes; -1 when none
 * lowers it, -2 out of memory. sc holds the two sides' curves; its
 * candidate's are overwritten. */
static int third_choice(const struct run_data *r, const struct run_grid *grid,
                        const struct between_site *t,
                        const struct site_curves *sc, int *j0, int *j1)
{
    enum { N = BETWEEN_N_SAMPLES + 1 };
    double lo[N] = {0}, hi[N] = {0};
    /* the two sides' costs: every procs' at every sample */
    double *ref = malloc((size_t)t->n * N * sizeof *ref);
    if (!ref) {
        return -2;
    }
    for (int i = 0; i < t->n; i++) {
        for (int j = 0; j < N; j++) {
            double f_lo = curve_at(&sc->lo[i], (double)j / BETWEEN_N_SAMPLES);
            double f_hi = curve_at(&sc->hi[i], (double)j / BETWEEN_N_SAMPLES);
            ref[i * N + j] = f_lo < f_hi ? f_lo : f_hi;
            lo[j] += expm1(f_lo - ref[i * N + j]);
            hi[j] += expm1(f_hi - ref[i * N + j]);
        }
    }
    /* suffix sums of the upper side's costs; the best single cut: the
     * lower method on samples [0, c), the upper on [c, N) */
    double sh[N + 1], pl = 0, two = INFINITY;
    sh[N] = 0;
    for (int j = N - 1; j >= 0; j--) {
        sh[j] = sh[j + 1] + hi[j];
    }
    for (int c = 1; c < N; c++) {
        pl += lo[c - 1];
        two = pl + sh[c] < two ? pl + sh[c] : two;
    }
    int best = -1;
    double best_cost = two;
    for (int k = 0; k < r->n_methods; k++) {
        if (!is_third(r, grid, t, k)) {
            continue;
        }
        site_curves_of(r, grid, t, k, sc->x);
        double x[N] = {0};
        for (int i = 0; i < t->n; i++) {
            for (int j = 0; j < N; j++) {
                x[j] +=
                    expm1(curve_at(&sc->x[i], (double)j / BETWEEN_N_SAMPLES) -
                          ref[i * N + j]);
            }
        }
        /* the lower method on [0, a), the third on [a, b), the upper on
         * [b, N), 1 <= a < b <= N - 1: for each b the best a */
        double sum_lo = lo[0], sum_x = x[0], best_a = INFINITY;
        int a_at = 1;
        for (int b = 2; b < N; b++) {
            int a = b - 1; /* sum_lo, sum_x: over the samples below a */
            if (sum_lo - sum_x < best_a) {
                best_a = sum_lo - sum_x;
                a_at = a;
            }
            sum_lo += lo[a];
            sum_x += x[a];
            double cost = best_a + sum_x + sh[b];
            if (cost < best_cost - 1e-12 * (1 + fabs(best_cost))) {
                best_cost = cost;
                best = k;
                *j0 = a_at;
                *j1 = b;
            }
        }
    }
    free(ref);
    return best;
}

/* The decision's index of r's method k, or -1. */
static int decision_method(const struct between_placer *pl, int k)
{
    for (int i = 0; i < pl->d->n_methods; i++) {
        if (pl->to_run[i] == k) {
            return i;
        }
    }
    return -1;
}

/* The procs of grid whose values lie in (p_lo, p_hi], with training
 * points at message indexes ma and mb, and whose methods there (r's: the
 * decision's at ma and mb) both have times at both: into room; returns
 * the site. */
struct between_site between_site_at(const struct between_placer *pl,
                                    int64_t p_lo, int64_t p_hi, int ma, int mb,
                                    const struct between_site_room *room)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    struct between_site t = {ma, mb, 0, room->ps, room->k_lo, room->k_hi};
    for (int p = 0; p < grid->n_procs; p++) {
        long ca = (long)p * grid->n_msgs + ma, cb = (long)p * grid->n_msgs + mb;
        if (grid->procs[p] <= p_lo || grid->procs[p] > p_hi ||
            !train_is_training(pl->opt, pl->r, pl->g, ca, pl->skip) ||
            !train_is_training(pl->opt, pl->r, pl->g, cb, pl->skip)) {
            continue;
        }
        int lo = pl->to_run[decision_walk(pl->d, pl->dc, grid->procs[p],
                                          grid->msgs[ma])];
        int hi = pl->to_run[decision_walk(pl->d, pl->dc, grid->procs[p],
                                          grid->msgs[mb])];
        const double *ta = grid->time_us + ca * pl->r->n_methods;
        const double *tb = grid->time_us + cb * pl->r->n_methods;
        if (lo < 0 || hi < 0 || !(ta[lo] > 0 && tb[lo] > 0) ||
            !(ta[hi] > 0 && tb[hi] > 0)) {
            continue;
        }
        room->ps[t.n] = p;
        room->k_lo[t.n] = lo;
        room->k_hi[t.n++] = hi;
    }
    return t;
}

/* The third method of a site and its sizes (c0, c1] as message values;
 * -1 when none, -2 out of memory. */
int between_site_third(const struct between_placer *pl,
                       const struct between_site *t, long *c0, long *c1)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    int j0, j1;
    long lo = grid->msgs[t->ma], hi = grid->msgs[t->mb];
    if (t->n == 0 || hi - lo < 2) {
        return -1;
    }
    struct site_curves sc = {
        malloc((size_t)t->n * sizeof *sc.lo),
        malloc((size_t)t->n * sizeof *sc.hi),
        malloc((size_t)t->n * sizeof *sc.x),
    };
    int k = -2;
    if (sc.lo && sc.hi && sc.x) {
        site_curves_of(pl->r, grid, t, -1, sc.lo);
        site_curves_of(pl->r, grid, t, -2, sc.hi);
        k = third_choice(pl->r, grid, t, &sc, &j0, &j1);
    }
    if (k >= 0) {
        /* the ends, between the samples: where the lower side's method
         * gives way to the third, and the third to the upper side's */
        site_curves_of(pl->r, grid, t, k, sc.x);
        *c0 = between_value_at(lo, hi, change_at(t, &sc, -1, -3, j0));
        *c1 = between_value_at(lo, hi, change_at(t, &sc, -3, -2, j1));
        *c1 = *c1 < hi ? *c1 : hi - 1;
        k = *c1 > *c0 ? decision_method(pl, k) : -1;
    }
    free(sc.lo);
    free(sc.hi);
    free(sc.x);
    return k;
}
