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

/* Method k's log time at site t's procs i, at s in [0, 1]. */
static double curve_at(const struct run_data *r, const struct run_grid *grid,
                       const struct between_site *t, int i, int k, double at)
{
    double s[3], y[3];
    long ca = (long)t->ps[i] * grid->n_msgs + t->ma;
    int n = between_method_curve(r, grid, ca, ca + (t->mb - t->ma), k, s, y);
    return n > 0 ? between_knots_at(n, s, y, at) : NAN;
}

/* At s, summed over site t's procs: the cost of method `from` less that of
 * method `to`, each against the faster of the two sides' methods there
 * (from, to: -1 the lower side's, -2 the upper's, else r's index). */
static double cost_change(const struct run_data *r, const struct run_grid *grid,
                          const struct between_site *t, int from, int to,
                          double at)
{
    double sum = 0;
    for (int i = 0; i < t->n; i++) {
        double f_lo = curve_at(r, grid, t, i, t->k_lo[i], at);
        double f_hi = curve_at(r, grid, t, i, t->k_hi[i], at);
        double ref = f_lo < f_hi ? f_lo : f_hi;
        int a = from == -1 ? t->k_lo[i] : from == -2 ? t->k_hi[i] : from;
        int b = to == -1 ? t->k_lo[i] : to == -2 ? t->k_hi[i] : to;
        sum += expm1(curve_at(r, grid, t, i, a, at) - ref) -
               expm1(curve_at(r, grid, t, i, b, at) - ref);
    }
    return sum;
}

/* Where between samples j - 1 and j the change from one method to the
 * next (cost_change) turns from a loss to a gain or back; the middle when
 * it does not. */
static double change_at(const struct run_data *r, const struct run_grid *grid,
                        const struct between_site *t, int from, int to, int j)
{
    double s0 = (double)(j - 1) / BETWEEN_N_SAMPLES,
           s1 = (double)j / BETWEEN_N_SAMPLES;
    double f0 = cost_change(r, grid, t, from, to, s0);
    if ((f0 > 0) == (cost_change(r, grid, t, from, to, s1) > 0)) {
        return (s0 + s1) / 2;
    }
    for (int it = 0; it < 60; it++) {
        double s = (s0 + s1) / 2;
        *((cost_change(r, grid, t, from, to, s) > 0) == (f0 > 0) ? &s0 : &s1) =
            s;
    }
    return (s0 + s1) / 2;
}

/* The third method of site t that lowers the summed penalty most (against
 * the faster of the two sides' methods, over its procs and the samples
 * between the two sizes), the samples [*j0, *j1) it takes; -1 when none
 * lowers it, -2 out of memory. */
static int third_choice(const struct run_data *r, const struct run_grid *grid,
                        const struct between_site *t, int *j0, int *j1)
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
            double f_lo = curve_at(r, grid, t, i, t->k_lo[i],
                                   (double)j / BETWEEN_N_SAMPLES);
            double f_hi = curve_at(r, grid, t, i, t->k_hi[i],
                                   (double)j / BETWEEN_N_SAMPLES);
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
        double x[N] = {0};
        for (int i = 0; i < t->n; i++) {
            for (int j = 0; j < N; j++) {
                x[j] += expm1(
                    curve_at(r, grid, t, i, k, (double)j / BETWEEN_N_SAMPLES) -
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
    int k = third_choice(pl->r, grid, t, &j0, &j1);
    if (k < 0) {
        return k;
    }
    /* the ends, between the samples: where the lower side's method gives
     * way to the third, and the third to the upper side's */
    *c0 = between_value_at(lo, hi, change_at(pl->r, grid, t, -1, k, j0));
    *c1 = between_value_at(lo, hi, change_at(pl->r, grid, t, k, -2, j1));
    *c1 = *c1 < hi ? *c1 : hi - 1;
    return *c1 > *c0 ? decision_method(pl, k) : -1;
}
