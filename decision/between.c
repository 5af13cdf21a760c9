/* Cuts between measured sizes (message and communicator): where a
 * decision's method changes between two neighbouring training values, the
 * cut goes where the log-log interpolated measured times of the two methods
 * cross, not at a measured value, for each group of communicator sizes
 * that share the two methods; a third method can take the sizes between.
 * Only values strictly between two training values change their method. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "decision/internal.h"
#include "store/export.h"
#include "store/journal.h"
#include "util/grow.h"

/* The piecewise linear function through n knots (xs[] ascending, f[]) at
 * x. */
static double knots_at(int n, const double *xs, const double *f, double x)
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
    return knots_at(d->n, d->s, d->f, s);
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

enum { N_SAMPLES = 256 };

/* The value at s in [0, 1] between lo and hi, linear in log value
 * (1023.99999 is 1024). */
static long value_at(long lo, long hi, double s)
{
    double log_lo = log(lo > 1 ? (double)lo : 1);
    double x = exp(log_lo + s * (log((double)hi) - log_lo));
    long v = (long)floor(x * (1 + 1e-12));
    return v < lo ? lo : v > hi ? hi : v;
}

long between_cut(long lo_value, long hi_value, int n,
                 const struct between_diff *diff)
{
    if (hi_value - lo_value < 2 || n < 1) {
        return lo_value;
    }
    /* the summed penalty of each sampled cut: the lower method's below it,
     * the upper's above (trapezoids of the two costs' integrands) */
    double lower[N_SAMPLES + 1], upper[N_SAMPLES + 1];
    for (int j = 0; j <= N_SAMPLES; j++) {
        double s = (double)j / N_SAMPLES, lo_cost = 0, hi_cost = 0;
        for (int i = 0; i < n; i++) {
            double f = diff_at(&diff[i], s);
            lo_cost += f > 0 ? expm1(f) : 0;
            hi_cost += f < 0 ? expm1(-f) : 0;
        }
        lower[j] = lo_cost;
        upper[j] = hi_cost;
    }
    double below = 0, above = 0, best_cost;
    for (int j = 0; j < N_SAMPLES; j++) {
        above += upper[j] + upper[j + 1];
    }
    int best = 0;
    best_cost = above;
    for (int k = 1; k <= N_SAMPLES; k++) {
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
    if (best == N_SAMPLES) {
        return hi_value - 1;
    }
    /* the least penalty is where the slope turns from negative to
     * positive: bisect for it around the best sample */
    double s0 = (double)(best - 1) / N_SAMPLES,
           s1 = (double)(best + 1) / N_SAMPLES;
    double s = (double)best / N_SAMPLES;
    if (penalty_slope(n, diff, s0) < 0 && penalty_slope(n, diff, s1) > 0) {
        for (int it = 0; it < 100 && s1 - s0 > 1e-15; it++) {
            s = (s0 + s1) / 2;
            *(penalty_slope(n, diff, s) < 0 ? &s0 : &s1) = s;
        }
        s = (s0 + s1) / 2;
    }
    long cut = value_at(lo_value, hi_value, s);
    return cut < hi_value ? cut : hi_value - 1;
}

/* Method k's log time between cells a and b of g as knots (s[], y[]; 2 or
 * 3 of them; see struct between_diff); 0 when it cannot run at either. */
static int method_curve(const struct run_data *r, const struct run_grid *g,
                        long a, long b, int k, double *s, double *y)
{
    const double *ta = g->time_us + a * r->n_methods;
    const double *tb = g->time_us + b * r->n_methods;
    if (ta[k] <= 0 || tb[k] <= 0) {
        return 0;
    }
    long m_lo = g->msgs[a % g->n_msgs], m_hi = g->msgs[b % g->n_msgs];
    long seg = r->methods[k].segment_bytes;
    s[0] = 0;
    y[0] = log(ta[k]);
    if (seg > m_lo && seg < m_hi) {
        char label[2 * RUN_NAME_MAX];
        method_label(label, sizeof label, r->methods[k].algorithm, 0);
        int k0 = run_data_find_method(r, label);
        if (k0 >= 0 && ta[k0] > 0 && tb[k0] > 0) {
            s[1] = log((double)seg / (double)m_lo) /
                   log((double)m_hi / (double)m_lo);
            y[1] = log(ta[k0]) + s[1] * (log(tb[k0]) - log(ta[k0]));
            s[2] = 1;
            y[2] = log(tb[k]);
            return 3;
        }
    }
    s[1] = 1;
    y[1] = log(tb[k]);
    return 2;
}

bool between_add(const struct run_data *r, const struct run_grid *g,
                 long cell_lo, long cell_hi, int k_lo, int k_hi,
                 struct between_diff *diff)
{
    double s_lo[3], y_lo[3], s_hi[3], y_hi[3];
    int n_lo = method_curve(r, g, cell_lo, cell_hi, k_lo, s_lo, y_lo);
    int n_hi = method_curve(r, g, cell_lo, cell_hi, k_hi, s_hi, y_hi);
    if (n_lo == 0 || n_hi == 0) {
        return false; /* one cannot run there: nothing to interpolate */
    }
    /* the knots of both, merged in order (0 and 1 once) */
    int i = 0, j = 0;
    diff->n = 0;
    while (i < n_lo || j < n_hi) {
        double x =
            j >= n_hi || (i < n_lo && s_lo[i] <= s_hi[j]) ? s_lo[i] : s_hi[j];
        i += i < n_lo && s_lo[i] == x;
        j += j < n_hi && s_hi[j] == x;
        diff->s[diff->n] = x;
        diff->f[diff->n] =
            knots_at(n_lo, s_lo, y_lo, x) - knots_at(n_hi, s_hi, y_hi, x);
        diff->n++;
    }
    return true;
}

/* ---- A third method between two measured sizes ----
 * Between two measured message sizes the fastest method can be neither
 * size's own: one that is second at both, or whose curve bends below both
 * in between. The lower envelope of the candidates' interpolated curves
 * says where each is fastest. */

/* A candidate must be within this fraction of the optimum at one of the
 * two sizes (chosen on the 12 robust runs); and the two sizes at most this
 * far apart (the times at sizes 256 times apart said too little about
 * those between them on the home platforms' default runs). */
#define THIRD_NEAR 0.10
#define THIRD_MAX_GAP 16

enum { MAX_CANDIDATES = 64, MAX_PIECES = 8 };

struct curve {
    int k, n;
    double s[3], y[3];
};

/* A piece of the envelope: method k for values in (from, to]. */
struct piece {
    int k;
    long from, to;
};

static int envelope_at(const struct curve *c, int n, double s)
{
    int best = 0;
    for (int i = 1; i < n; i++) {
        if (knots_at(c[i].n, c[i].s, c[i].y, s) <
            knots_at(c[best].n, c[best].s, c[best].y, s)) {
            best = i;
        }
    }
    return best;
}

/* Whether method k can be a third method between cells a and b of g (a
 * smaller message size, b a larger, at most THIRD_MAX_GAP times it): timed
 * at both, and, if segmented, segmented at a too (below its segment size
 * it runs unsegmented, and where between the two its segmented times
 * start is not known). */
static bool third_can_run(const struct run_data *r, const struct run_grid *g,
                          long a, long b, int k)
{
    long seg = r->methods[k].segment_bytes, m_a = g->msgs[a % g->n_msgs];
    return g->time_us[a * r->n_methods + k] > 0 &&
           g->time_us[b * r->n_methods + k] > 0 && !(seg > 0 && seg >= m_a) &&
           g->msgs[b % g->n_msgs] <= THIRD_MAX_GAP * m_a;
}

/* Whether method k is within THIRD_NEAR of the optimum at cell a or b. */
static bool third_is_near(const struct run_data *r, const struct run_grid *g,
                          long a, long b, int k)
{
    return g->time_us[a * r->n_methods + k] <=
               (1 + THIRD_NEAR) * g->best_us[a] ||
           g->time_us[b * r->n_methods + k] <= (1 + THIRD_NEAR) * g->best_us[b];
}

/* The candidates between cells a and b of g whose lower and upper methods
 * are k_lo and k_hi (first and second): every method timed at both that
 * is within THIRD_NEAR of the optimum at either and, if segmented, is
 * segmented at both (below the smaller size its segment is no
 * segmentation, and where its segmented times start is not known). */
static int candidates(const struct run_data *r, const struct run_grid *g,
                      long a, long b, int k_lo, int k_hi, struct curve *c)
{
    int n = 0;
    for (int i = -2; i < r->n_methods && n < MAX_CANDIDATES; i++) {
        int k = i == -2 ? k_lo : i == -1 ? k_hi : i;
        if (i >= 0 &&
            (k == k_lo || k == k_hi || !third_can_run(r, g, a, b, k) ||
             !third_is_near(r, g, a, b, k))) {
            continue;
        }
        c[n].k = k;
        c[n].n = method_curve(r, g, a, b, k, c[n].s, c[n].y);
        if (c[n].n == 0 && i < 0) {
            return 0; /* a neighbour's method cannot run: nothing to say */
        }
        n += c[n].n > 0;
    }
    return n;
}

/* Where the envelope passes from curve x to curve y between s0 and s1
 * (x below at s0, y at s1). */
static double crossing(const struct curve *x, const struct curve *y, double s0,
                       double s1)
{
    for (int it = 0; it < 60; it++) {
        double s = (s0 + s1) / 2;
        double f =
            knots_at(x->n, x->s, x->y, s) - knots_at(y->n, y->s, y->y, s);
        *(f > 0 ? &s1 : &s0) = s;
    }
    return (s0 + s1) / 2;
}

/* Appends method k over (from, to] to the n pieces p (merged with the
 * last when it is k's too; nothing when empty); false when p is full. */
static bool add_piece(struct piece *p, int *n, int k, long from, long to)
{
    if (to <= from) {
        return true;
    }
    if (*n > 0 && p[*n - 1].k == k) {
        p[*n - 1].to = to;
        return true;
    }
    if (*n == MAX_PIECES) {
        return false;
    }
    p[(*n)++] = (struct piece){k, from, to};
    return true;
}

/* The pieces of the envelope between cells a and b (sizes m_lo < m_hi)
 * when a third method has one; 0 when only k_lo and k_hi do (the cut
 * between them is between_cut's). The pieces cover (m_lo, m_hi - 1],
 * ascending; the first and last may be k_lo's and k_hi's. */
static int third_pieces(const struct run_data *r, const struct run_grid *g,
                        long a, long b, int k_lo, int k_hi, struct piece *p)
{
    struct curve c[MAX_CANDIDATES];
    int n_c = candidates(r, g, a, b, k_lo, k_hi, c);
    long m_lo = g->msgs[a % g->n_msgs], m_hi = g->msgs[b % g->n_msgs];
    if (n_c < 3 || m_hi - m_lo < 2) {
        return 0;
    }
    int n = 0, prev = envelope_at(c, n_c, 0);
    bool has_third = false;
    long from = m_lo;
    for (int j = 1; j <= N_SAMPLES; j++) {
        double s = (double)j / N_SAMPLES;
        int now = envelope_at(c, n_c, s);
        has_third |= j < N_SAMPLES && now >= 2;
        if (now == prev && j < N_SAMPLES) {
            continue;
        }
        long to = m_hi - 1;
        if (now != prev) {
            double at =
                crossing(&c[prev], &c[now], (double)(j - 1) / N_SAMPLES, s);
            long v = value_at(m_lo, m_hi, at);
            to = v < m_hi - 1 ? v : m_hi - 1;
        }
        /* an envelope more ragged than MAX_PIECES is noise */
        if (!add_piece(p, &n, c[prev].k, from, to) ||
            (j == N_SAMPLES && now != prev &&
             !add_piece(p, &n, c[now].k, to > from ? to : from, m_hi - 1))) {
            return 0;
        }
        from = to > from ? to : from;
        prev = now;
    }
    for (int i = 0; has_third && i < n; i++) {
        if (p[i].k != k_lo && p[i].k != k_hi) {
            return n;
        }
    }
    return 0;
}

/* What placing the cuts of one collective needs. */
struct placer {
    const struct train_options *opt;
    const struct run_data *r;
    int g, skip;
    struct decision *d;
    int dc;
    const int *to_run; /* d's method index -> r's, -1: none */
};

/* A cut above a communicator of 2 stays: algorithms for two processes
 * (two_proc) run there alone, and Open MPI refuses rules that give them
 * more. */
static bool procs_cut_moves(int64_t procs_below)
{
    return procs_below > 2;
}

/* Value k of the grid's procs (axis 0) or message sizes (axis 1). */
static int64_t axis_value(const struct run_grid *grid, int axis, int k)
{
    return axis == 0 ? grid->procs[k] : grid->msgs[k];
}

static int axis_size(const struct run_grid *grid, int axis)
{
    return axis == 0 ? grid->n_procs : grid->n_msgs;
}

/* The cell of index k on axis and j on the other. */
static long cell_at(const struct run_grid *grid, int axis, int k, int j)
{
    return axis == 0 ? (long)k * grid->n_msgs + j : (long)j * grid->n_msgs + k;
}

/* Whether value k of axis lies in (lo, hi] and has a training point
 * there with a value of the other attribute in its range. */
static bool has_training(const struct placer *pl, int axis, int k,
                         const int64_t lo[2], const int64_t hi[2])
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    int other = 1 - axis;
    int64_t v = axis_value(grid, axis, k);
    bool has_point = false;
    for (int j = 0; j < axis_size(grid, other) && !has_point && v > lo[axis] &&
                    v <= hi[axis];
         j++) {
        int64_t w = axis_value(grid, other, j);
        has_point = w > lo[other] && w <= hi[other] &&
                    train_is_training(pl->opt, pl->r, pl->g,
                                      cell_at(grid, axis, k, j), pl->skip);
    }
    return has_point;
}

/* The indexes on axis of the training values around a cut in the ranges
 * (a: the largest at or below it, b: the smallest above); false when one
 * is missing. */
static bool cut_neighbours(const struct placer *pl, int axis, int64_t cut,
                           const int64_t lo[2], const int64_t hi[2], int *a,
                           int *b)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    *a = *b = -1;
    for (int k = 0; k < axis_size(grid, axis); k++) {
        bool has_point = has_training(pl, axis, k, lo, hi);
        if (has_point && axis_value(grid, axis, k) <= cut) {
            *a = k;
        } else if (has_point && *b < 0) {
            *b = k;
        }
    }
    return *a >= 0 && *b >= 0;
}

/* The cut of node i on axis (0: procs, 1: message size), whose points lie
 * in (lo[axis], hi[axis]] on each, moved between its neighbouring training
 * values on that axis; the other axis's training values it covers are the
 * points that share it. */
static int place_cut(const struct placer *pl, int i, int axis,
                     const int64_t lo[2], const int64_t hi[2])
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    int other = 1 - axis, n_other = axis_size(grid, other);
    struct decision_node *node = &pl->d->nodes[i];
    int64_t cut = axis == 0 ? node->procs_cut : node->msg_cut;
    int a, b; /* the indexes of the values around the cut */
    if (!cut_neighbours(pl, axis, cut, lo, hi, &a, &b) ||
        (axis == 0 && !procs_cut_moves(grid->procs[a]))) {
        return 0;
    }
    struct between_diff *diff = malloc((size_t)n_other * sizeof *diff);
    int n = 0;
    if (!diff) {
        return -1;
    }
    for (int j = 0; j < n_other; j++) {
        int64_t w = axis_value(grid, other, j);
        long ca = cell_at(grid, axis, a, j), cb = cell_at(grid, axis, b, j);
        if (w <= lo[other] || w > hi[other] ||
            !train_is_training(pl->opt, pl->r, pl->g, ca, pl->skip) ||
            !train_is_training(pl->opt, pl->r, pl->g, cb, pl->skip)) {
            continue;
        }
        int k_lo = pl->to_run[decision_walk(pl->d, pl->dc,
                                            grid->procs[ca / grid->n_msgs],
                                            grid->msgs[ca % grid->n_msgs])];
        int k_hi = pl->to_run[decision_walk(pl->d, pl->dc,
                                            grid->procs[cb / grid->n_msgs],
                                            grid->msgs[cb % grid->n_msgs])];
        n += k_lo >= 0 && k_hi >= 0 && k_lo != k_hi &&
             between_add(pl->r, grid, ca, cb, k_lo, k_hi, &diff[n]);
    }
    if (n > 0) {
        int64_t moved = between_cut(axis_value(grid, axis, a),
                                    axis_value(grid, axis, b), n, diff);
        if (axis == 0) {
            node->procs_cut = (int32_t)moved;
        } else {
            node->msg_cut = moved;
        }
    }
    free(diff);
    return 0;
}

/* The ranges (procs, messages; (lo, hi]) of side `side` of node n of
 * kind (bit 1: procs above the cut, bit 0: messages above), from the
 * node's own; false when the node has no such side. */
static bool side_ranges(const struct decision_node *n, enum node_kind kind,
                        int side, const int64_t lo[2], const int64_t hi[2],
                        int64_t sub_lo[2], int64_t sub_hi[2])
{
    bool is_procs_hi = side & 2, is_msg_hi = side & 1;
    if ((kind == NODE_MSG && is_procs_hi) ||
        (kind == NODE_PROCS && is_msg_hi)) {
        return false;
    }
    sub_lo[0] = lo[0], sub_lo[1] = lo[1], sub_hi[0] = hi[0], sub_hi[1] = hi[1];
    if (kind != NODE_MSG) {
        *(is_procs_hi ? &sub_lo[0] : &sub_hi[0]) = n->procs_cut;
    }
    if (kind != NODE_PROCS) {
        *(is_msg_hi ? &sub_lo[1] : &sub_hi[1]) = n->msg_cut;
    }
    return true;
}

/* Node i and what is under it; the ranges come from the cuts as built. */
static int place_cuts(const struct placer *pl, int i, int64_t p_lo,
                      int64_t p_hi, int64_t m_lo, int64_t m_hi)
{
    const struct decision_node n = pl->d->nodes[i];
    enum node_kind kind = decision_node_kind(pl->d, i);
    if (kind == NODE_LEAF) {
        return 0;
    }
    const int64_t lo[2] = {p_lo, m_lo}, hi[2] = {p_hi, m_hi};
    if ((kind != NODE_MSG && place_cut(pl, i, 0, lo, hi)) ||
        (kind != NODE_PROCS && place_cut(pl, i, 1, lo, hi))) {
        return -1;
    }
    for (int side = 0; side < 4; side++) {
        int64_t sub_lo[2], sub_hi[2];
        if (side_ranges(&n, kind, side, lo, hi, sub_lo, sub_hi) &&
            place_cuts(pl, n.child + side, sub_lo[0], sub_hi[0], sub_lo[1],
                       sub_hi[1])) {
            return -1;
        }
    }
    return 0;
}

/* ---- Between two training sizes, in a tree or quadtree ----
 * Where a decision changes method between two neighbouring training sizes
 * (a message cut), each group of procs that share the two methods gets its
 * own cut; there, or where it keeps one method (inside a leaf), a third
 * method can be the faster between them on the interpolated times at the
 * training procs: it then gets the sizes where that lowers the summed
 * penalty most (the printed tree does not change). */

/* A node with a message cut, or a leaf, and the values it covers. */
struct region {
    int node;
    int64_t lo[2], hi[2]; /* (lo, hi], procs and messages */
};

struct region_list {
    struct region *v;
    size_t n, cap;
};

/* The leaves and message-cut nodes under node i, children first (a
 * change to a node then never moves one still to be looked at). */
static int collect_regions(const struct decision *d, int i, int64_t p_lo,
                           int64_t p_hi, int64_t m_lo, int64_t m_hi,
                           struct region_list *out)
{
    const struct decision_node n = d->nodes[i];
    enum node_kind kind = decision_node_kind(d, i);
    const int64_t lo[2] = {p_lo, m_lo}, hi[2] = {p_hi, m_hi};
    for (int side = 0; side < 4 && kind != NODE_LEAF; side++) {
        int64_t sub_lo[2], sub_hi[2];
        if (side_ranges(&n, kind, side, lo, hi, sub_lo, sub_hi) &&
            collect_regions(d, n.child + side, sub_lo[0], sub_hi[0], sub_lo[1],
                            sub_hi[1], out)) {
            return -1;
        }
    }
    if (kind == NODE_PROCS) {
        return 0;
    }
    struct region *grown =
        grow(out->v, &out->cap, out->n + 1, sizeof *grown, 64);
    if (!grown) {
        return -1;
    }
    out->v = grown;
    out->v[out->n++] = (struct region){i, {p_lo, m_lo}, {p_hi, m_hi}};
    return 0;
}

/* What choosing a third method between message indexes ma < mb needs: the
 * n procs indexes there and each one's methods at ma and mb. */
struct third_site {
    int ma, mb, n;
    const int *ps, *k_lo, *k_hi;
};

/* Whether method k can be the third at site t: at every procs
 * (third_can_run), and near the optimum at one (third_is_near). */
static bool is_third(const struct run_data *r, const struct run_grid *grid,
                     const struct third_site *t, int k)
{
    bool is_near = false;
    for (int i = 0; i < t->n; i++) {
        long ca = (long)t->ps[i] * grid->n_msgs + t->ma,
             cb = (long)t->ps[i] * grid->n_msgs + t->mb;
        if (!third_can_run(r, grid, ca, cb, k)) {
            return false;
        }
        is_near |= third_is_near(r, grid, ca, cb, k);
    }
    return is_near;
}

/* Method k's log time at site t's procs i, at s in [0, 1]. */
static double curve_at(const struct run_data *r, const struct run_grid *grid,
                       const struct third_site *t, int i, int k, double at)
{
    double s[3], y[3];
    long ca = (long)t->ps[i] * grid->n_msgs + t->ma;
    int n = method_curve(r, grid, ca, ca + (t->mb - t->ma), k, s, y);
    return n > 0 ? knots_at(n, s, y, at) : NAN;
}

/* At s, summed over site t's procs: the cost of method `from` less that of
 * method `to`, each against the faster of the two sides' methods there
 * (from, to: -1 the lower side's, -2 the upper's, else r's index). */
static double cost_change(const struct run_data *r, const struct run_grid *grid,
                          const struct third_site *t, int from, int to,
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
                        const struct third_site *t, int from, int to, int j)
{
    double s0 = (double)(j - 1) / N_SAMPLES, s1 = (double)j / N_SAMPLES;
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
                        const struct third_site *t, int *j0, int *j1)
{
    enum { N = N_SAMPLES + 1 };
    double lo[N] = {0}, hi[N] = {0};
    /* the two sides' costs: every procs' at every sample */
    double *ref = malloc((size_t)t->n * N * sizeof *ref);
    if (!ref) {
        return -2;
    }
    for (int i = 0; i < t->n; i++) {
        for (int j = 0; j < N; j++) {
            double f_lo =
                curve_at(r, grid, t, i, t->k_lo[i], (double)j / N_SAMPLES);
            double f_hi =
                curve_at(r, grid, t, i, t->k_hi[i], (double)j / N_SAMPLES);
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
                x[j] +=
                    expm1(curve_at(r, grid, t, i, k, (double)j / N_SAMPLES) -
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
static int decision_method(const struct placer *pl, int k)
{
    for (int i = 0; i < pl->d->n_methods; i++) {
        if (pl->to_run[i] == k) {
            return i;
        }
    }
    return -1;
}

/* Room for one site's procs and methods. */
struct site_room {
    int *ps, *k_lo, *k_hi;
};

/* The procs of grid whose values lie in (p_lo, p_hi], with training
 * points at message indexes ma and mb, and whose methods there (r's: the
 * decision's at ma and mb) both have times at both: into room; returns
 * the site. */
static struct third_site site_at(const struct placer *pl, int64_t p_lo,
                                 int64_t p_hi, int ma, int mb,
                                 const struct site_room *room)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    struct third_site t = {ma, mb, 0, room->ps, room->k_lo, room->k_hi};
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
static int site_third(const struct placer *pl, const struct third_site *t,
                      long *c0, long *c1)
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
    *c0 = value_at(lo, hi, change_at(pl->r, grid, t, -1, k, j0));
    *c1 = value_at(lo, hi, change_at(pl->r, grid, t, k, -2, j1));
    *c1 = *c1 < hi ? *c1 : hi - 1;
    return *c1 > *c0 ? decision_method(pl, k) : -1;
}

/* Node c becomes a message split at cut: below it what *below builds
 * (its index), above it what c was. */
static int split_above(struct decision *d, int c, int64_t cut, int *below)
{
    struct decision_node was = d->nodes[c];
    int32_t was_leaf = d->leaf_method[c];
    int above;
    if (decision_add_split(d, c, false, cut, below, &above)) {
        return -1;
    }
    d->nodes[above] = was;
    d->leaf_method[above] = was_leaf;
    return 0;
}

/* ---- At a message cut: one choice per group of procs ----
 * A message cut's node covers many communicator sizes, and between the
 * two training sizes around it the methods cross at different sizes for
 * different procs. The procs that share both sides' methods (a group)
 * share one choice; where the groups' choices differ, the sizes between
 * the two training sizes become a strip of their own, split by procs. */

/* One group's choice over the sizes between training sizes a < b: its
 * lower side's method (lo, the decision's index) on (a, c0], third (-1:
 * none) on (c0, c1], its upper side's (hi) on (c1, b - 1]; the group
 * covers the procs up to p_hi of its side (0: the node's lower procs,
 * 1: the upper, of a quad). A free group had no procs to choose on: it
 * keeps the node's cut as placed, or takes whatever the others choose. */
struct group {
    int side, lo, hi, third;
    long c0, c1;
    int64_t p_hi;
    bool is_free;
};

/* Whether groups x and y give every size between a and b the same
 * role (the lower side's method, the same third, the upper side's); a
 * group whose two sides have one method and no third fits any without
 * a third. */
static bool same_roles(const struct group *x, const struct group *y)
{
    bool x_any = x->lo == x->hi && x->third < 0,
         y_any = y->lo == y->hi && y->third < 0;
    if (x->is_free || y->is_free) {
        return true;
    }
    if (x_any || y_any) {
        return x->third < 0 && y->third < 0;
    }
    return x->third == y->third && x->c0 == y->c0 &&
           (x->third < 0 || x->c1 == y->c1);
}

/* The choice of the n procs of site t from first: a third method (unless
 * only pairs are asked for), else the cut between its two methods; 0, or
 * -1 out of memory. */
static int group_choice(const struct placer *pl, const struct third_site *t,
                        int first, int n, struct group *out)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    struct third_site sub = {t->ma,         t->mb,           n,
                             t->ps + first, t->k_lo + first, t->k_hi + first};
    long a = grid->msgs[t->ma], b = grid->msgs[t->mb];
    out->third = -1;
    out->c0 = out->c1 = a;
    if (!pl->opt->is_pair_only) {
        long c0, c1;
        int third = site_third(pl, &sub, &c0, &c1);
        if (third == -2) {
            return -1;
        }
        if (third >= 0) {
            out->third = third;
            out->c0 = c0;
            out->c1 = c1;
            return 0;
        }
    }
    if (sub.k_lo[0] == sub.k_hi[0]) {
        return 0;
    }
    struct between_diff *diff = malloc((size_t)n * sizeof *diff);
    int n_diff = 0;
    if (!diff) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long ca = (long)sub.ps[i] * grid->n_msgs + t->ma;
        n_diff += between_add(pl->r, grid, ca, ca + (t->mb - t->ma),
                              sub.k_lo[i], sub.k_hi[i], &diff[n_diff]);
    }
    out->c0 = out->c1 = n_diff > 0 ? between_cut(a, b, n_diff, diff) : a;
    free(diff);
    return 0;
}

/* Whether the decision's method at msg_bytes changes between procs v and
 * v + 1. */
static bool changes_after(const struct placer *pl, int64_t v, long msg_bytes)
{
    return decision_walk(pl->d, pl->dc, (int)v, msg_bytes) !=
           decision_walk(pl->d, pl->dc, (int)v + 1, msg_bytes);
}

static int compare_int64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Appends to out the groups of side `side`, the procs (p_lo, p_hi],
 * between message indexes ma < mb: the intervals of procs over which the
 * decision's methods at both sizes stay the same (they change only just
 * past a node's procs cut), each choosing on its training procs there
 * (site_at's: timed at both), or free when it has none, keeping the cut
 * `placed`. room->ps: scratch of the grid's procs. How many, or -1. */
static int side_groups(const struct placer *pl, int side, int64_t p_lo,
                       int64_t p_hi, int ma, int mb, long placed,
                       const struct site_room *room, struct group *out)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    const struct decision *d = pl->d;
    long a = grid->msgs[ma], b = grid->msgs[mb];
    int64_t *ends = malloc(((size_t)d->n_nodes + 1) * sizeof *ends);
    if (!ends) {
        return -1;
    }
    int n_ends = 0;
    for (int i = 0; i < d->n_nodes; i++) {
        enum node_kind kind = decision_node_kind(d, i);
        int64_t c = d->nodes[i].procs_cut;
        if ((kind == NODE_PROCS || kind == NODE_QUAD) && c > p_lo && c < p_hi &&
            (changes_after(pl, c, a) || changes_after(pl, c, b))) {
            ends[n_ends++] = c;
        }
    }
    qsort(ends, (size_t)n_ends, sizeof *ends, compare_int64);
    ends[n_ends++] = p_hi;
    struct third_site t = site_at(pl, p_lo, p_hi, ma, mb, room);
    int n = 0, first = 0;
    for (int e = 0; e < n_ends; e++) {
        if (e > 0 && ends[e] == ends[e - 1]) {
            continue;
        }
        /* a procs value inside: its end, or just above its start */
        int64_t from = e > 0 ? ends[e - 1] : p_lo;
        int at = (int)(ends[e] != INT64_MAX ? ends[e]
                       : from != INT64_MIN  ? from + 1
                                            : 1);
        int last = first;
        while (last < t.n && grid->procs[t.ps[last]] <= ends[e]) {
            last++;
        }
        struct group *g = &out[n++];
        *g = (struct group){side,
                            decision_walk(d, pl->dc, at, a),
                            decision_walk(d, pl->dc, at, b),
                            -1,
                            placed,
                            placed,
                            ends[e],
                            last == first};
        if (last > first && group_choice(pl, &t, first, last - first, g)) {
            free(ends);
            return -1;
        }
        first = last;
    }
    free(ends);
    return n;
}

/* Group g's pieces over the sizes (a, b - 1]: method[i] up to to[i],
 * none empty, no two neighbours the same method. How many. */
static int group_pieces(const struct group *g, long a, long b, int method[3],
                        long to[3])
{
    const int m[3] = {g->lo, g->third, g->hi};
    const long end[3] = {g->c0, g->c1, b - 1};
    long from = a;
    int n = 0;
    for (int i = 0; i < 3; i++) {
        if (m[i] < 0 || end[i] <= from) {
            continue; /* no third, or an empty piece */
        }
        n -= n > 0 && method[n - 1] == m[i];
        method[n] = m[i];
        to[n++] = end[i];
        from = end[i];
    }
    return n;
}

static bool same_pieces(const struct group *x, const struct group *y, long a,
                        long b)
{
    int mx[3], my[3];
    long tx[3], ty[3];
    int n = group_pieces(x, a, b, mx, tx);
    if (n != group_pieces(y, a, b, my, ty)) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (mx[i] != my[i] || tx[i] != ty[i]) {
            return false;
        }
    }
    return true;
}

/* Node x gives the sizes (a, b - 1] group g's pieces. */
static int build_pieces(struct decision *d, int x, const struct group *g,
                        long a, long b)
{
    int method[3];
    long to[3];
    int n = group_pieces(g, a, b, method, to);
    for (int i = 0; i + 1 < n; i++) {
        int below, above;
        if (decision_add_split(d, x, false, to[i], &below, &above)) {
            return -1;
        }
        decision_set_leaf(d, below, method[i]);
        x = above;
    }
    decision_set_leaf(d, x, method[n - 1]);
    return 0;
}

/* Node i's message cut between training sizes a < b, given its groups:
 * when they all give the sizes between the same roles, its cut moves and
 * a third method wraps each upper side; else the strip (a, b - 1] of
 * each upper side splits by group. How many third methods, or -1. */
static int place_groups(struct decision *d, int i, struct group *groups,
                        int n_groups, long a, long b)
{
    struct decision_node n = d->nodes[i];
    int n_sides = decision_node_kind(d, i) == NODE_QUAD ? 2 : 1;
    const struct group *ref = NULL;
    bool is_one = true;
    for (int k = 0; k < n_groups && !ref; k++) {
        const struct group *g = &groups[k];
        ref = g->is_free || (g->lo == g->hi && g->third < 0) ? NULL : g;
    }
    for (int k = 0; k < n_groups && ref; k++) {
        is_one &= same_roles(&groups[k], ref);
    }
    if (is_one) {
        if (!ref) {
            return 0; /* nothing to move: as placed */
        }
        d->nodes[i].msg_cut = ref->c0;
        for (int s = 0; s < n_sides && ref->third >= 0; s++) {
            int below;
            if (split_above(d, n.child + 1 + 2 * s, ref->c1, &below)) {
                return -1;
            }
            decision_set_leaf(d, below, ref->third);
        }
        return ref->third >= 0;
    }
    /* neighbours that give the same pieces become one */
    int n_kept = 0, n_third = 0;
    for (int k = 0; k < n_groups; k++) {
        struct group *last = n_kept > 0 ? &groups[n_kept - 1] : NULL;
        if (last && last->side == groups[k].side &&
            same_pieces(last, &groups[k], a, b)) {
            last->p_hi = groups[k].p_hi;
            continue;
        }
        n_third += groups[k].third >= 0;
        groups[n_kept++] = groups[k];
    }
    d->nodes[i].msg_cut = a;
    for (int k = 0, x = -1, side = -1; k < n_kept; k++) {
        const struct group *g = &groups[k];
        if (g->side != side &&
            split_above(d, n.child + 1 + 2 * g->side, b - 1, &x)) {
            return -1;
        }
        side = g->side;
        bool is_last = k + 1 == n_kept || groups[k + 1].side != side;
        int below = x, above;
        if (!is_last &&
            decision_add_split(d, x, true, g->p_hi, &below, &above)) {
            return -1;
        }
        if (build_pieces(d, below, g, a, b)) {
            return -1;
        }
        x = is_last ? -1 : above;
    }
    return n_third;
}

/* The message cut of region reg, between the training sizes a < b around
 * it: the groups of procs of its upper side (both, a quad's) choose;
 * when they all choose the same, the cut moves to the lower method's end
 * and a third method goes above it, else the strip (a, b - 1] of each
 * upper side splits by group. How many third methods (one per group that
 * has one), or -1. */
static int region_cut(const struct placer *pl, struct region reg,
                      const struct site_room *room)
{
    struct decision *d = pl->d;
    enum node_kind kind = decision_node_kind(d, reg.node);
    struct decision_node n = d->nodes[reg.node];
    int ma, mb, n_groups = 0, n_sides = kind == NODE_QUAD ? 2 : 1;
    if (!cut_neighbours(pl, 1, n.msg_cut, reg.lo, reg.hi, &ma, &mb)) {
        return 0;
    }
    const struct run_grid *grid = &pl->r->grids[pl->g];
    long a = grid->msgs[ma], b = grid->msgs[mb];
    if (b - a < 2) {
        return 0; /* no size between them */
    }
    /* each side's intervals end at a procs cut or at its end */
    struct group *groups =
        malloc(2 * ((size_t)d->n_nodes + 1) * sizeof *groups);
    if (!groups) {
        return -1;
    }
    for (int s = 0; s < n_sides; s++) {
        int64_t p_lo = s == 0 ? reg.lo[0] : n.procs_cut;
        int64_t p_hi = s == 1 || kind != NODE_QUAD ? reg.hi[0] : n.procs_cut;
        int added = side_groups(pl, s, p_lo, p_hi, ma, mb, n.msg_cut, room,
                                groups + n_groups);
        if (added < 0) {
            free(groups);
            return -1;
        }
        n_groups += added;
    }
    int rc = place_groups(d, reg.node, groups, n_groups, a, b);
    free(groups);
    return rc;
}

/* Third methods in leaf region g, between every two neighbouring training
 * sizes it covers (the leaf splits in three, the next pair above). How
 * many, or -1 out of memory. */
static int leaf_third(const struct placer *pl, struct region g,
                      const struct site_room *room)
{
    struct decision *d = pl->d;
    const struct run_grid *grid = &pl->r->grids[pl->g];
    long c0, c1;
    int method = d->leaf_method[g.node], prev = -1, n_third = 0;
    for (int m = 0; m < grid->n_msgs; m++) {
        if (!has_training(pl, 1, m, g.lo, g.hi)) {
            continue; /* no training size here: the pair goes on */
        }
        struct third_site t = {0};
        if (prev >= 0) {
            t = site_at(pl, g.lo[0], g.hi[0], prev, m, room);
        }
        int third = prev >= 0 ? site_third(pl, &t, &c0, &c1) : -1;
        prev = m;
        if (third == -2) {
            return -1;
        }
        if (third < 0) {
            continue;
        }
        int below, rest, x, above;
        if (decision_add_split(d, g.node, false, c0, &below, &rest) ||
            decision_add_split(d, rest, false, c1, &x, &above)) {
            return -1;
        }
        decision_set_leaf(d, below, method);
        decision_set_leaf(d, x, third);
        decision_set_leaf(d, above, method);
        g.node = above;
        n_third++;
    }
    return n_third;
}

int decision_place_cuts(const struct train_options *opt,
                        const struct run_data *r, int g, int skip,
                        struct decision *d, int dc)
{
    int *to_run = malloc((size_t)d->n_methods * sizeof *to_run);
    if (!to_run) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    for (int k = 0; k < d->n_methods; k++) {
        to_run[k] = run_data_find_method(r, d->methods[k]);
    }
    struct placer pl = {opt, r, g, skip, d, dc, to_run};
    struct region_list regions = {NULL, 0, 0};
    int n_procs = r->grids[g].n_procs;
    struct site_room room = {malloc((size_t)n_procs * sizeof *room.ps),
                             malloc((size_t)n_procs * sizeof *room.k_lo),
                             malloc((size_t)n_procs * sizeof *room.k_hi)};
    decision_drop_flat(d);
    int rc = room.ps && room.k_lo && room.k_hi
                 ? place_cuts(&pl, d->roots[dc], INT64_MIN, INT64_MAX,
                              INT64_MIN, INT64_MAX)
                 : -1;
    if (rc == 0) {
        rc = collect_regions(d, d->roots[dc], INT64_MIN, INT64_MAX, INT64_MIN,
                             INT64_MAX, &regions);
        int n_nodes = d->n_nodes;
        for (size_t i = 0; i < regions.n && rc >= 0; i++) {
            bool is_leaf =
                decision_node_kind(d, regions.v[i].node) == NODE_LEAF;
            int added = !is_leaf ? region_cut(&pl, regions.v[i], &room)
                        : opt->is_pair_only
                            ? 0
                            : leaf_third(&pl, regions.v[i], &room);
            rc = added < 0 ? -1 : rc + added;
        }
        /* a strip or third method above a subtree put its nodes after
         * that subtree */
        rc = rc >= 0 && d->n_nodes > n_nodes && decision_renumber(d) ? -1 : rc;
    }
    if (rc < 0) {
        fprintf(stderr, "autotune: out of memory\n");
    }
    free(regions.v);
    free(room.ps);
    free(room.k_lo);
    free(room.k_hi);
    free(to_run);
    return rc;
}

/* The index of each row's grid and cell in r, -1 where r lacks it. */
static void locate_rows(const struct run_data *r,
                        const struct measurement *rows, size_t n, int *grids,
                        long *cells)
{
    for (size_t i = 0; i < n; i++) {
        grids[i] = -1;
        cells[i] = -1;
        for (int g = 0; g < r->n_grids && grids[i] < 0; g++) {
            const struct run_grid *grid = &r->grids[g];
            if (strcmp(grid->name, rows[i].collective) != 0) {
                continue;
            }
            int p = 0, m = 0;
            while (p < grid->n_procs && grid->procs[p] != rows[i].procs) {
                p++;
            }
            while (m < grid->n_msgs && grid->msgs[m] != rows[i].msg_bytes) {
                m++;
            }
            if (p < grid->n_procs && m < grid->n_msgs) {
                grids[i] = g;
                cells[i] = (long)p * grid->n_msgs + m;
            }
        }
    }
}

/* r's index of the method of a row, or -1. */
static int row_method(const struct run_data *r, const struct measurement *row)
{
    char label[2 * RUN_NAME_MAX];
    method_label(label, sizeof label, row->algorithm, row->segment_bytes);
    return run_data_find_method(r, label);
}

/* The row of the nearest smaller index than k on axis (0: procs, 1:
 * messages) with j on the other, in row_at (grid g's cells); -1 if none. */
static long row_below(const struct run_grid *grid, const long *row_at, int axis,
                      int k, int j)
{
    while (--k >= 0) {
        long at = row_at[cell_at(grid, axis, k, j)];
        if (at >= 0) {
            return at;
        }
    }
    return -1;
}

/* The cut between procs index p and the nearest smaller one with a row
 * (p_lo) of grid g (first: g's first cell in row_at): over the message
 * sizes that have a row at both. */
static long procs_cut(const struct run_data *r, const struct measurement *rows,
                      int g, int p, const long *row_at,
                      struct between_diff *diff)
{
    const struct run_grid *grid = &r->grids[g];
    int n = 0, p_lo = p - 1;
    while (p_lo >= 0) {
        bool has_row = false;
        for (int m = 0; m < grid->n_msgs && !has_row; m++) {
            has_row = row_at[(long)p_lo * grid->n_msgs + m] >= 0;
        }
        if (has_row) {
            break;
        }
        p_lo--;
    }
    if (p_lo < 0) {
        return -1;
    }
    for (int m = 0; m < grid->n_msgs; m++) {
        long c_lo = (long)p_lo * grid->n_msgs + m,
             c_hi = (long)p * grid->n_msgs + m;
        if (row_at[c_lo] < 0 || row_at[c_hi] < 0) {
            continue;
        }
        int lo = row_method(r, &rows[row_at[c_lo]]);
        int hi = row_method(r, &rows[row_at[c_hi]]);
        n += lo >= 0 && hi >= 0 && lo != hi &&
             between_add(r, grid, c_lo, c_hi, lo, hi, &diff[n]);
    }
    return n > 0 && procs_cut_moves(grid->procs[p_lo])
               ? between_cut(grid->procs[p_lo], grid->procs[p], n, diff)
               : grid->procs[p_lo];
}

struct insert_list {
    struct export_insert *v;
    size_t n, cap;
};

/* The message cut below row i (cell c of grid, its row below at cell
 * c_below): between_cut of the two rows' methods, or, where a third
 * method is the fastest between them (and inserts is not NULL), the start
 * of row i's method after the third's pieces, added to inserts. */
static int msg_cut(const struct run_data *r, const struct run_grid *grid,
                   const struct measurement *rows, size_t below, size_t i,
                   long c_below, long c, struct insert_list *inserts, long *cut)
{
    int lo = row_method(r, &rows[below]), hi = row_method(r, &rows[i]);
    struct piece p[MAX_PIECES];
    int n_p = inserts && lo >= 0 && hi >= 0
                  ? third_pieces(r, grid, c_below, c, lo, hi, p)
                  : 0;
    struct between_diff one;
    *cut = rows[below].msg_bytes;
    if (n_p == 0) {
        if (lo >= 0 && hi >= 0 && lo != hi &&
            between_add(r, grid, c_below, c, lo, hi, &one)) {
            *cut =
                between_cut(rows[below].msg_bytes, rows[i].msg_bytes, 1, &one);
        }
        return 0;
    }
    int first = p[0].k == lo, last = p[n_p - 1].k == hi ? n_p - 1 : n_p;
    *cut = last < n_p ? p[last].from : p[n_p - 1].to;
    for (int t = first; t < last; t++) {
        struct export_insert *grown =
            grow(inserts->v, &inserts->cap, inserts->n + 1, sizeof *grown, 16);
        if (!grown) {
            return -1;
        }
        inserts->v = grown;
        struct export_insert *in = &inserts->v[inserts->n++];
        memset(in, 0, sizeof *in);
        in->m = rows[i];
        snprintf(in->m.algorithm, sizeof in->m.algorithm, "%s",
                 r->methods[p[t].k].algorithm);
        in->m.segment_bytes = r->methods[p[t].k].segment_bytes;
        in->m.msg_bytes = p[t].to;
        in->m.reps = 0;
        in->m.mean_us = -1;
        in->cut_below = p[t].from;
        in->above = i;
    }
    return 0;
}

int between_table_cuts(const struct run_data *r, const struct measurement *rows,
                       size_t n, long **msg_cuts, long **procs_cuts,
                       struct export_insert **inserts, size_t *n_inserts)
{
    long n_cells = 0, *first = calloc((size_t)r->n_grids + 1, sizeof *first);
    int max_msgs = 1;
    for (int g = 0; first && g < r->n_grids; g++) {
        first[g] = n_cells;
        n_cells += (long)r->grids[g].n_procs * r->grids[g].n_msgs;
        max_msgs =
            r->grids[g].n_msgs > max_msgs ? r->grids[g].n_msgs : max_msgs;
    }
    size_t size = n ? n : 1;
    long *cuts = malloc(size * sizeof *cuts);
    long *pcuts = malloc(size * sizeof *pcuts);
    long *cells = malloc(size * sizeof *cells);
    int *grids = malloc(size * sizeof *grids);
    long *row_at = malloc((size_t)(n_cells + 1) * sizeof *row_at);
    struct between_diff *diff = malloc((size_t)max_msgs * sizeof *diff);
    struct insert_list added = {NULL, 0, 0};
    int rc = -1;
    *msg_cuts = *procs_cuts = NULL;
    if (inserts) {
        *inserts = NULL;
        *n_inserts = 0;
    }
    if (!first || !cuts || !pcuts || !cells || !grids || !row_at || !diff) {
        goto oom;
    }
    locate_rows(r, rows, n, grids, cells);
    for (long c = 0; c < n_cells; c++) {
        row_at[c] = -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (grids[i] >= 0) {
            row_at[first[grids[i]] + cells[i]] = (long)i;
        }
    }
    for (size_t i = 0; i < n; i++) {
        cuts[i] = pcuts[i] = -1;
        if (grids[i] < 0) {
            continue; /* a row the run lacks */
        }
        const struct run_grid *grid = &r->grids[grids[i]];
        const long *grid_rows = row_at + first[grids[i]];
        int p = (int)(cells[i] / grid->n_msgs),
            m = (int)(cells[i] % grid->n_msgs);
        bool is_same = i > 0 && grids[i - 1] == grids[i] &&
                       rows[i - 1].procs == rows[i].procs;
        if (p > 0) {
            pcuts[i] = is_same
                           ? pcuts[i - 1]
                           : procs_cut(r, rows, grids[i], p, grid_rows, diff);
        }
        /* the row of the next smaller size measured at this procs (the
         * smallest size has none) */
        long below = row_below(grid, grid_rows, 1, m, p);
        if (below >= 0 &&
            msg_cut(r, grid, rows, (size_t)below, i, cells[below], cells[i],
                    inserts ? &added : NULL, &cuts[i]) != 0) {
            goto oom;
        }
    }
    *msg_cuts = cuts;
    *procs_cuts = pcuts;
    cuts = pcuts = NULL;
    if (inserts) {
        *inserts = added.v;
        *n_inserts = added.n;
        added.v = NULL;
    }
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "autotune: out of memory\n");
done:
    free(first);
    free(cuts);
    free(pcuts);
    free(cells);
    free(grids);
    free(row_at);
    free(diff);
    free(added.v);
    return rc;
}
