/* Cuts between measured sizes (message and communicator): where a
 * decision's method changes between two neighbouring training values, the
 * cut goes where the log-log interpolated measured times of the two methods
 * cross, not at a measured value; only values strictly between two training
 * values change their method. Here: that cut, and the training values
 * around a cut. The rest: third methods' envelope (between_envelope.c), a
 * tree's cuts (between_tree.c), its groups of procs (between_groups.c) and
 * third methods (between_third.c), the exact table's cuts (between_table.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decision/between.h"

/* The piecewise linear function through n knots (xs[] ascending, f[]) at
 * x. */
double between_knots_at(int n, const double *xs, const double *f, double x)
{
    int k = 1;
    while (k < n - 1 && xs[k] < x) {
        k++;
    }
    double w = xs[k] - xs[k - 1];
    double t = w > 0 ? (x - xs[k - 1]) / w : 1;
    return f[k - 1] + t * (f[k] - f[k - 1]);
}

static double diff_at(const struct between_diff *d, double s)
{
    return between_knots_at(d->n, d->s, d->f, s);
}

/* How fast the summed penalty grows as the cut passes s: each point adds
 * what the lower method costs there if it is the slower, less what the
 * upper would cost if it is. */
static double penalty_slope(int n, const struct between_diff *diff, double s)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double f = diff_at(&diff[i], s);
        sum += f > 0 ? expm1(f) : -expm1(-f);
    }
    return sum;
}

long between_cut(long lo_value, long hi_value, int n,
                 const struct between_diff *diff)
{
    if (hi_value - lo_value < 2 || n < 1) {
        return lo_value;
    }
    /* the summed penalty of each sampled cut: the lower method's below it,
     * the upper's above (trapezoids of the two costs' integrands) */
    double lower[BETWEEN_N_SAMPLES + 1], upper[BETWEEN_N_SAMPLES + 1];
    for (int j = 0; j <= BETWEEN_N_SAMPLES; j++) {
        double s = (double)j / BETWEEN_N_SAMPLES, lo_cost = 0, hi_cost = 0;
        for (int i = 0; i < n; i++) {
            double f = diff_at(&diff[i], s);
            lo_cost += f > 0 ? expm1(f) : 0;
            hi_cost += f < 0 ? expm1(-f) : 0;
        }
        lower[j] = lo_cost;
        upper[j] = hi_cost;
    }
    double below = 0, above = 0, best_cost;
    for (int j = 0; j < BETWEEN_N_SAMPLES; j++) {
        above += upper[j] + upper[j + 1];
    }
    int best = 0;
    best_cost = above;
    for (int k = 1; k <= BETWEEN_N_SAMPLES; k++) {
        below += lower[k - 1] + lower[k];
        above -= upper[k - 1] + upper[k];
        if (below + above < best_cost * (1 - 1e-12)) {
            best = k;
            best_cost = below + above;
        }
    }
    if (best == 0) {
        return lo_value; /* also a tie: as the next size's rule */
    }
    if (best == BETWEEN_N_SAMPLES) {
        return hi_value - 1;
    }
    /* the least penalty is where the slope turns from negative to
     * positive: bisect for it around the best sample */
    double s0 = (double)(best - 1) / BETWEEN_N_SAMPLES,
           s1 = (double)(best + 1) / BETWEEN_N_SAMPLES;
    double s = (double)best / BETWEEN_N_SAMPLES;
    if (penalty_slope(n, diff, s0) < 0 && penalty_slope(n, diff, s1) > 0) {
        for (int it = 0; it < 100 && s1 - s0 > 1e-15; it++) {
            s = (s0 + s1) / 2;
            *(penalty_slope(n, diff, s) < 0 ? &s0 : &s1) = s;
        }
        s = (s0 + s1) / 2;
    }
    long cut = between_value_at(lo_value, hi_value, s);
    return cut < hi_value ? cut : hi_value - 1;
}

double between_curve_at(const struct between_curve *c, double s)
{
    return between_knots_at(c->n, c->s, c->y, s);
}

/* Method k's log time between cells a and b of g into *c; c->n, 0 when it
 * cannot run at either. */
int between_method_curve(const struct run_data *r, const struct run_grid *g,
                         long a, long b, int k, struct between_curve *c)
{
    const double *ta = g->time_us + a * r->n_methods;
    const double *tb = g->time_us + b * r->n_methods;
    c->n = 0;
    if (ta[k] <= 0 || tb[k] <= 0) {
        return 0;
    }
    if (between_model_curve(r, g, a, b, k, c) > 0) {
        return c->n;
    }
    long m_lo = g->msgs[a % g->n_msgs], m_hi = g->msgs[b % g->n_msgs];
    long seg = r->methods[k].segment_bytes;
    c->s[0] = 0;
    c->y[0] = log(ta[k]);
    int k0 = between_unsegmented_of(r, g, a, b, k);
    if (k0 >= 0) {
        c->s[1] =
            log((double)seg / (double)m_lo) / log((double)m_hi / (double)m_lo);
        c->y[1] = log(ta[k0]) + c->s[1] * (log(tb[k0]) - log(ta[k0]));
        c->s[2] = 1;
        c->y[2] = log(tb[k]);
        return c->n = 3;
    }
    c->s[1] = 1;
    c->y[1] = log(tb[k]);
    return c->n = 2;
}

bool between_add(const struct run_data *r, const struct run_grid *g,
                 long cell_lo, long cell_hi, int k_lo, int k_hi,
                 struct between_diff *diff)
{
    struct between_curve lo, hi;
    int n_lo = between_method_curve(r, g, cell_lo, cell_hi, k_lo, &lo);
    int n_hi = between_method_curve(r, g, cell_lo, cell_hi, k_hi, &hi);
    if (n_lo == 0 || n_hi == 0) {
        return false; /* one cannot run there: nothing to interpolate */
    }
    /* the knots of both, merged in order (0 and 1 once) */
    int i = 0, j = 0;
    diff->n = 0;
    while (i < n_lo || j < n_hi) {
        double x =
            j >= n_hi || (i < n_lo && lo.s[i] <= hi.s[j]) ? lo.s[i] : hi.s[j];
        i += i < n_lo && lo.s[i] == x;
        j += j < n_hi && hi.s[j] == x;
        diff->s[diff->n] = x;
        diff->f[diff->n] = between_curve_at(&lo, x) - between_curve_at(&hi, x);
        diff->n++;
    }
    return true;
}

/* ---- The training values around a cut ---- */

/* A cut above a communicator of 2 stays: algorithms for two processes
 * (two_proc) run there alone, and Open MPI refuses rules that give them
 * more. */
bool between_procs_cut_moves(int64_t procs_below)
{
    return procs_below > 2;
}

/* Value k of the grid's procs (axis 0) or message sizes (axis 1). */
int64_t between_axis_value(const struct run_grid *grid, int axis, int k)
{
    return axis == 0 ? grid->procs[k] : grid->msgs[k];
}

int between_axis_size(const struct run_grid *grid, int axis)
{
    return axis == 0 ? grid->n_procs : grid->n_msgs;
}

/* The cell of index k on axis and j on the other. */
long between_cell_at(const struct run_grid *grid, int axis, int k, int j)
{
    return axis == 0 ? (long)k * grid->n_msgs + j : (long)j * grid->n_msgs + k;
}

/* Whether value k of axis lies in (lo, hi] and has a training point
 * there with a value of the other attribute in its range. */
bool between_has_training(const struct between_placer *pl, int axis, int k,
                          const int64_t lo[2], const int64_t hi[2])
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    int other = 1 - axis;
    int64_t v = between_axis_value(grid, axis, k);
    bool has_point = false;
    for (int j = 0; j < between_axis_size(grid, other) && !has_point &&
                    v > lo[axis] && v <= hi[axis];
         j++) {
        int64_t w = between_axis_value(grid, other, j);
        has_point =
            w > lo[other] && w <= hi[other] &&
            train_is_training(pl->opt, pl->r, pl->g,
                              between_cell_at(grid, axis, k, j), pl->skip);
    }
    return has_point;
}

/* The indexes on axis of the training values around a cut in the ranges
 * (a: the largest at or below it, b: the smallest above); false when one
 * is missing. */
bool between_cut_neighbours(const struct between_placer *pl, int axis,
                            int64_t cut, const int64_t lo[2],
                            const int64_t hi[2], int *a, int *b)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    *a = *b = -1;
    for (int k = 0; k < between_axis_size(grid, axis); k++) {
        bool has_point = between_has_training(pl, axis, k, lo, hi);
        if (has_point && between_axis_value(grid, axis, k) <= cut) {
            *a = k;
        } else if (has_point && *b < 0) {
            *b = k;
        }
    }
    return *a >= 0 && *b >= 0;
}
