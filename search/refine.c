/* Adaptive refinement of a (procs, message size) grid. Invariant: the
 * rectangles tile the grid; a rectangle with unmeasured points inside is
 * kept only while every measured point in it agrees with its corners. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "search/refine.h"
#include "util/grow.h"

/* Grid indices of a rectangle, corners included: [p0, p1] x [m0, m1]. */
struct rect {
    int p0, p1, m0, m1;
};

struct rect_list {
    struct rect *r;
    size_t n, cap;
};

struct walker {
    const struct refine_grid *g;
    const struct refine_params *params;
    const struct refine_oracle *o;
    const struct refine_predictor *pr; /* NULL: none */
    struct refine_point *out;
    struct rect_list pending, kept;
    char *wanted; /* per point: a corner of a split, to measure */
    /* with a predicting oracle and max_penalty: each point's prediction,
     * valid while n_measured is its stamp */
    bool is_predicting;
    struct refine_prediction *predicted;
    long *stamp; /* per point: n_measured + 1 when predicted, -(..) none */
    long n_measured;
    int rc; /* the predictor's error */
};

static struct refine_point *at(const struct walker *w, int pi, int mi)
{
    return &w->out[(size_t)pi * (size_t)w->g->n_msgs + (size_t)mi];
}

static int measure(struct walker *w, int pi, int mi)
{
    struct refine_point *pt = at(w, pi, mi);
    if (pt->is_measured) {
        return 0;
    }
    int rc = w->o->measure(w->o->ctx, pi, mi, &pt->label, &pt->time_us);
    pt->is_measured = rc == 0;
    w->n_measured++;
    return rc;
}

static int push(struct rect_list *l, struct rect r)
{
    struct rect *grown = grow(l->r, &l->cap, l->n + 1, sizeof *grown, 64);
    if (!grown) {
        return -1;
    }
    l->r = grown;
    l->r[l->n++] = r;
    return 0;
}

/* The penalty of method label at the measured point (pi, mi): 0 for its
 * own, < 0 unknown. */
static double penalty_at(const struct walker *w, int pi, int mi, int label)
{
    const struct refine_point *pt = at(w, pi, mi);
    if (pt->label == label) {
        return 0;
    }
    if (pt->label < 0 || label < 0 || !w->o->penalty) {
        return -1;
    }
    return w->o->penalty(w->o->ctx, pi, mi, label);
}

static bool is_near_optimal(const struct walker *w, int pi, int mi, int label)
{
    double penalty = penalty_at(w, pi, mi, label);
    return penalty >= 0 && penalty <= w->params->agree_penalty;
}

/* The method between labels a and b at fraction f, for point (pi, mi), or
 * -1. */
static int between(const struct walker *w, int a, int b, double f, int pi,
                   int mi)
{
    if (a < 0 || b < 0) {
        return -1;
    }
    if (a == b) {
        return a;
    }
    return w->o->between ? w->o->between(w->o->ctx, a, b, f, pi, mi) : -1;
}

/* Whether label, a segment size between those of the measured points
 * (pa, ma) and (pb, mb), is known to lose at most drift_penalty at one of
 * them that is not its own point (the size between may be one of theirs
 * when none of the sizes lies between). */
static bool holds_between(const struct walker *w, int label, int pa, int ma,
                          int pb, int mb)
{
    int ps[2] = {pa, pb}, ms[2] = {ma, mb};
    for (int k = 0; k < 2 && label >= 0; k++) {
        double penalty = at(w, ps[k], ms[k])->label == label
                             ? -1
                             : penalty_at(w, ps[k], ms[k], label);
        if (penalty >= 0 && penalty <= w->params->drift_penalty) {
            return true;
        }
    }
    return false;
}

/* Two measured points agree when one of their methods is within
 * agree_penalty of the optimum at both, or when both are one algorithm
 * (its best segment size drifts) and the segment size between holds. */
static bool agree(const struct walker *w, int pa, int ma, int pb, int mb)
{
    int a = at(w, pa, ma)->label, b = at(w, pb, mb)->label;
    return (is_near_optimal(w, pa, ma, a) && is_near_optimal(w, pb, mb, a)) ||
           (is_near_optimal(w, pa, ma, b) && is_near_optimal(w, pb, mb, b)) ||
           holds_between(w, between(w, a, b, 0.5, (pa + pb) / 2, (ma + mb) / 2),
                         pa, ma, pb, mb);
}

static double coord_procs(const struct walker *w, int pi)
{
    return log2((double)w->g->procs[pi]);
}

static double coord_msg(const struct walker *w, int mi)
{
    long m = w->g->msg_bytes[mi];
    return m > 0 ? log2((double)m) : -1;
}

/* Where (pi, mi) lies between the rectangle's corners, 0..1 on each axis. */
static void position(const struct walker *w, const struct rect *r, int pi,
                     int mi, double *u, double *v)
{
    double p0 = coord_procs(w, r->p0), p1 = coord_procs(w, r->p1);
    double m0 = coord_msg(w, r->m0), m1 = coord_msg(w, r->m1);
    *u = p1 > p0 ? (coord_procs(w, pi) - p0) / (p1 - p0) : 0;
    *v = m1 > m0 ? (coord_msg(w, mi) - m0) / (m1 - m0) : 0;
}

/* The time at (pi, mi) from the corners' times, bilinear in log time over
 * log procs and log bytes; -1 when a corner has no time. */
static double interpolate(const struct walker *w, const struct rect *r, int pi,
                          int mi)
{
    double u, v;
    double t00 = at(w, r->p0, r->m0)->time_us,
           t01 = at(w, r->p0, r->m1)->time_us;
    double t10 = at(w, r->p1, r->m0)->time_us,
           t11 = at(w, r->p1, r->m1)->time_us;
    if (!(t00 > 0 && t01 > 0 && t10 > 0 && t11 > 0)) {
        return -1;
    }
    position(w, r, pi, mi, &u, &v);
    double lt = (1 - u) * (1 - v) * log(t00) + (1 - u) * v * log(t01) +
                u * (1 - v) * log(t10) + u * v * log(t11);
    return exp(lt);
}

/* A corner's method that is near optimal at all four corners, or -1 (a
 * rectangle split as far as it goes can still have two). */
static int covering_label(const struct walker *w, const struct rect *r)
{
    int ps[2] = {r->p0, r->p1}, ms[2] = {r->m0, r->m1};
    for (int c = 0; c < 4; c++) {
        int label = at(w, ps[c / 2], ms[c % 2])->label;
        bool covers = label >= 0;
        for (int k = 0; k < 4 && covers; k++) {
            covers = is_near_optimal(w, ps[k / 2], ms[k % 2], label);
        }
        if (covers) {
            return label;
        }
    }
    return -1;
}

/* The method a point of r inherits from its corners: the one that covers
 * them; else, where the corners of its nearer procs side are one
 * algorithm, that algorithm at the segment size between theirs (between
 * all four where they all are) where that size holds; else its nearest
 * corner's. */
static int inherited_label(const struct walker *w, const struct rect *r, int pi,
                           int mi)
{
    int cover = covering_label(w, r);
    if (cover >= 0) {
        return cover;
    }
    double u, v;
    position(w, r, pi, mi, &u, &v);
    int side = u <= 0.5 ? r->p0 : r->p1;
    int lo = between(w, at(w, r->p0, r->m0)->label, at(w, r->p0, r->m1)->label,
                     v, r->p0, mi);
    int hi = between(w, at(w, r->p1, r->m0)->label, at(w, r->p1, r->m1)->label,
                     v, r->p1, mi);
    int all = between(w, lo, hi, u, pi, mi), near = side == r->p0 ? lo : hi;
    if (all >= 0 && holds_between(w, all, r->p0, r->m0, r->p1, r->m1) &&
        holds_between(w, all, r->p0, r->m1, r->p1, r->m0)) {
        return all;
    }
    if (near >= 0 && holds_between(w, near, side, r->m0, side, r->m1)) {
        return near;
    }
    return at(w, side, v <= 0.5 ? r->m0 : r->m1)->label;
}

static bool has_interior(const struct rect *r)
{
    return r->p1 - r->p0 > 1 || r->m1 - r->m0 > 1;
}

/* Whether a measured point of r that is not a corner agrees with the
 * corners it lies between (those of its edge when it is on one), holds the
 * method it would have inherited from them within agree_penalty where that
 * is known, and fits their interpolated time. */
static bool fits(const struct walker *w, const struct rect *r, int pi, int mi)
{
    int pa = pi == r->p1 ? r->p1 : r->p0, pb = pi == r->p0 ? r->p0 : r->p1;
    int ma = mi == r->m1 ? r->m1 : r->m0, mb = mi == r->m0 ? r->m0 : r->m1;
    if (!agree(w, pi, mi, pa, ma) || !agree(w, pi, mi, pa, mb) ||
        !agree(w, pi, mi, pb, ma) || !agree(w, pi, mi, pb, mb)) {
        return false;
    }
    struct rect span = {pa, pb, ma, mb};
    if (penalty_at(w, pi, mi, inherited_label(w, &span, pi, mi)) >
        w->params->agree_penalty) {
        return false;
    }
    double want = interpolate(w, r, pi, mi), got = at(w, pi, mi)->time_us;
    return !(want > 0 && got > 0 &&
             fabs(got - want) > w->params->time_tolerance * want);
}

/* The prediction at the unmeasured point (pi, mi) from what is measured
 * now, or NULL (none; an error is kept in w->rc). */
static const struct refine_prediction *predicted(struct walker *w, int pi,
                                                 int mi)
{
    size_t i = (size_t)pi * (size_t)w->g->n_msgs + (size_t)mi;
    if (w->stamp[i] != w->n_measured + 1 && w->stamp[i] != -w->n_measured - 1) {
        int rc = w->pr->predict(w->pr->ctx, pi, mi, &w->predicted[i]);
        w->rc = rc < 0 && w->rc == 0 ? rc : w->rc;
        w->stamp[i] = rc == 0 ? w->n_measured + 1 : -w->n_measured - 1;
    }
    return w->stamp[i] > 0 ? &w->predicted[i] : NULL;
}

/* With predictions: 3 (halve both axes) when the choice at an unmeasured
 * point of r other than its corners may lose more than max_penalty, 0
 * when none may, -1 when a point has no prediction. */
static int predicted_axes(struct walker *w, const struct rect *r)
{
    int axes = 0;
    for (int pi = r->p0; pi <= r->p1 && axes == 0; pi++) {
        for (int mi = r->m0; mi <= r->m1 && axes == 0; mi++) {
            bool is_corner =
                (pi == r->p0 || pi == r->p1) && (mi == r->m0 || mi == r->m1);
            if (is_corner || at(w, pi, mi)->is_measured) {
                continue;
            }
            const struct refine_prediction *pr = predicted(w, pi, mi);
            axes = !pr ? -1 : pr->penalty > w->params->max_penalty ? 3 : 0;
        }
    }
    return axes;
}

/* Which axes to halve: 0 none, 1 procs, 2 messages, 3 both. An edge whose
 * ends disagree halves its axis; a measured point inside that does not
 * fit halves both. Only an axis with points between the corners halves. */
static int split_axes(struct walker *w, const struct rect *r)
{
    int axes = w->is_predicting ? predicted_axes(w, r) : -1;
    if (axes >= 0) {
        axes &= r->p1 - r->p0 <= 1 ? ~1 : ~0;
        return axes & (r->m1 - r->m0 <= 1 ? ~2 : ~0);
    }
    axes = 0;
    if (!agree(w, r->p0, r->m0, r->p1, r->m0) ||
        !agree(w, r->p0, r->m1, r->p1, r->m1)) {
        axes |= 1;
    }
    if (!agree(w, r->p0, r->m0, r->p0, r->m1) ||
        !agree(w, r->p1, r->m0, r->p1, r->m1)) {
        axes |= 2;
    }
    for (int pi = r->p0; pi <= r->p1 && axes != 3; pi++) {
        for (int mi = r->m0; mi <= r->m1 && axes != 3; mi++) {
            bool is_corner =
                (pi == r->p0 || pi == r->p1) && (mi == r->m0 || mi == r->m1);
            if (!is_corner && at(w, pi, mi)->is_measured &&
                !fits(w, r, pi, mi)) {
                axes = 3;
            }
        }
    }
    if (r->p1 - r->p0 <= 1) {
        axes &= ~1;
    }
    if (r->m1 - r->m0 <= 1) {
        axes &= ~2;
    }
    return axes;
}

/* Halves r along axes: its new corners are wanted, its parts go to
 * parts. */
static int split(struct walker *w, struct rect r, int axes,
                 struct rect_list *parts)
{
    int pm = axes & 1 ? (r.p0 + r.p1) / 2 : r.p0;
    int mm = axes & 2 ? (r.m0 + r.m1) / 2 : r.m0;
    int ps[3] = {r.p0, pm, r.p1}, ms[3] = {r.m0, mm, r.m1};
    for (int a = 0; a < 3; a++) {
        for (int b = 0; b < 3; b++) {
            w->wanted[(size_t)ps[a] * (size_t)w->g->n_msgs + (size_t)ms[b]] = 1;
        }
    }
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            struct rect part = {ps[a], ps[a + 1], ms[b], ms[b + 1]};
            bool is_empty = (a == 0 && !(axes & 1)) || (b == 0 && !(axes & 2));
            if (!is_empty && push(parts, part) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Measures the wanted points in the order of a full sweep (procs, then
 * message sizes, ascending): a search that learns from the points searched
 * before it (search/series.c) then sees the nearest smaller procs and the
 * same procs at smaller messages, as it would in a full sweep. */
static int measure_wanted(struct walker *w)
{
    int rc = 0;
    for (int pi = 0; pi < w->g->n_procs && rc == 0; pi++) {
        for (int mi = 0; mi < w->g->n_msgs && rc == 0; mi++) {
            char *want =
                &w->wanted[(size_t)pi * (size_t)w->g->n_msgs + (size_t)mi];
            rc = *want ? measure(w, pi, mi) : 0;
            *want = 0;
        }
    }
    return rc;
}

static bool is_power_of_two(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

static bool is_coarse_procs(const struct refine_grid *g, int i)
{
    int p = g->procs[i];
    return i == 0 || i == g->n_procs - 1 || is_power_of_two(p) ||
           is_power_of_two(p - 1) || is_power_of_two(p + 1);
}

static bool is_coarse_msg(const struct refine_grid *g, int step, int i)
{
    return i % step == 0 || i == g->n_msgs - 1;
}

/* The coarse grid's indices on one axis into idx; returns how many. */
static int coarse_procs(const struct refine_grid *g, int *idx)
{
    int n = 0;
    for (int i = 0; i < g->n_procs; i++) {
        if (is_coarse_procs(g, i)) {
            idx[n++] = i;
        }
    }
    return n;
}

static int coarse_msgs(const struct refine_grid *g, int step, int *idx)
{
    int n = 0;
    for (int i = 0; i < g->n_msgs; i++) {
        if (is_coarse_msg(g, step, i)) {
            idx[n++] = i;
        }
    }
    return n;
}

void refine_coarse_grid(const struct refine_grid *g,
                        const struct refine_params *p, char *is_coarse)
{
    int step = p->coarse_msg_step > 0 ? p->coarse_msg_step : 1;
    for (int pi = 0; pi < g->n_procs; pi++) {
        for (int mi = 0; mi < g->n_msgs; mi++) {
            is_coarse[(size_t)pi * (size_t)g->n_msgs + (size_t)mi] =
                is_coarse_procs(g, pi) && is_coarse_msg(g, step, mi);
        }
    }
}

/* Every unmeasured point of a kept rectangle: the predicted choice and
 * time where there is a prediction, else its inherited method and the
 * corners' interpolated time. */
static void infer(struct walker *w, const struct rect *r)
{
    for (int pi = r->p0; pi <= r->p1; pi++) {
        for (int mi = r->m0; mi <= r->m1; mi++) {
            struct refine_point *pt = at(w, pi, mi);
            const struct refine_prediction *pr =
                w->is_predicting && !pt->is_measured ? predicted(w, pi, mi)
                                                     : NULL;
            if (pr) {
                pt->label = pr->label;
                pt->time_us = pr->time_us;
                pt->uncertainty = pr->uncertainty;
                pt->penalty = pr->penalty;
            } else if (!pt->is_measured) {
                pt->label = inherited_label(w, r, pi, mi);
                pt->time_us = interpolate(w, r, pi, mi);
            }
        }
    }
}

/* Splits pending rectangles until none is left, moving those that need
 * no split to kept; then moves back every kept one that a neighbour's new
 * points on their shared edge now split, until none does. */
static int settle(struct walker *w)
{
    struct rect_list parts = {NULL, 0, 0};
    int rc = 0;
    for (;;) {
        /* in rounds: every pending rectangle is split or kept, then the
         * new corners of the round are measured together */
        while (rc == 0 && w->pending.n > 0) {
            parts.n = 0;
            for (size_t i = 0; i < w->pending.n && rc == 0; i++) {
                struct rect r = w->pending.r[i];
                int axes = has_interior(&r) ? split_axes(w, &r) : 0;
                rc = axes ? split(w, r, axes, &parts) : push(&w->kept, r);
            }
            rc = rc == 0 ? measure_wanted(w) : rc;
            struct rect_list done = w->pending;
            w->pending = parts;
            parts = done;
        }
        if (rc != 0) {
            break;
        }
        size_t n = 0;
        for (size_t i = 0; i < w->kept.n && rc == 0; i++) {
            struct rect r = w->kept.r[i];
            if (has_interior(&r) && split_axes(w, &r)) {
                rc = push(&w->pending, r);
            } else {
                w->kept.r[n++] = r;
            }
        }
        w->kept.n = n;
        if (rc != 0 || w->pending.n == 0) {
            break;
        }
    }
    free(parts.r);
    return rc;
}

/* Wants the centre of every kept rectangle with at least min_points (>= 1)
 * unmeasured points besides its corners and none measured; returns how
 * many. The centre is one of those points, so each rectangle is probed
 * once. */
static int probe(struct walker *w, int min_points)
{
    int n = 0;
    for (size_t i = 0; i < w->kept.n; i++) {
        const struct rect *r = &w->kept.r[i];
        int unmeasured = 0, measured = 0;
        for (int pi = r->p0; pi <= r->p1; pi++) {
            for (int mi = r->m0; mi <= r->m1; mi++) {
                bool is_corner = (pi == r->p0 || pi == r->p1) &&
                                 (mi == r->m0 || mi == r->m1);
                if (!is_corner) {
                    unmeasured += !at(w, pi, mi)->is_measured;
                    measured += at(w, pi, mi)->is_measured;
                }
            }
        }
        if (unmeasured >= min_points && measured == 0) {
            int pc = (r->p0 + r->p1) / 2, mc = (r->m0 + r->m1) / 2;
            w->wanted[(size_t)pc * (size_t)w->g->n_msgs + (size_t)mc] = 1;
            n++;
        }
    }
    return n;
}

/* Wants one point, at message index mi, of every procs with nothing
 * measured; returns how many. */
static int probe_rows(struct walker *w, int mi)
{
    int n = 0;
    for (int pi = 0; pi < w->g->n_procs; pi++) {
        bool is_seen = false;
        for (int k = 0; k < w->g->n_msgs && !is_seen; k++) {
            is_seen = at(w, pi, k)->is_measured;
        }
        if (!is_seen) {
            w->wanted[(size_t)pi * (size_t)w->g->n_msgs + (size_t)mi] = 1;
            n++;
        }
    }
    return n;
}

static void clear(const struct refine_grid *g, struct refine_point *out)
{
    for (size_t i = 0; i < (size_t)g->n_procs * (size_t)g->n_msgs; i++) {
        out[i] = (struct refine_point){-1, -1, 0, -1, -1};
    }
}

/* Measures every point of the sub-grid cp x cm, keeps its rectangles. */
static int measure_subgrid(struct walker *w, const int *cp, int n_cp,
                           const int *cm, int n_cm, struct rect_list *to)
{
    int rc = 0;
    for (int a = 0; a < n_cp && rc == 0; a++) {
        for (int b = 0; b < n_cm && rc == 0; b++) {
            rc = measure(w, cp[a], cm[b]);
        }
    }
    /* one rectangle between each pair of neighbouring indices (a
     * degenerate one on an axis of one value) */
    for (int a = 0; a + 1 < (n_cp > 1 ? n_cp : 2) && rc == 0; a++) {
        for (int b = 0; b + 1 < (n_cm > 1 ? n_cm : 2) && rc == 0; b++) {
            struct rect r = {cp[a], cp[n_cp > 1 ? a + 1 : a], cm[b],
                             cm[n_cm > 1 ? b + 1 : b]};
            rc = push(to, r);
        }
    }
    return rc;
}

/* n indices spread evenly over 0..size-1, both ends included. */
static int spread(int n, int size, int *idx)
{
    n = n < 1 ? 1 : n > size ? size : n;
    for (int i = 0; i < n; i++) {
        idx[i] = n > 1 ? (int)((long)i * (size - 1) / (n - 1)) : 0;
    }
    return n;
}

int refine_uniform(const struct refine_grid *g, int n_points,
                   const struct refine_oracle *o, struct refine_point *out)
{
    int *cp = malloc(((size_t)g->n_procs + 1) * sizeof *cp);
    int *cm = malloc(((size_t)g->n_msgs + 1) * sizeof *cm);
    struct refine_params none = {1, 0, 0, 0, 0, 0, 0, 0};
    struct walker w = {
        g,     &none, o,    NULL, out, {NULL, 0, 0}, {NULL, 0, 0}, NULL,
        false, NULL,  NULL, 0,    0};
    int rc = cp && cm ? 0 : -1;
    clear(g, out);
    /* as many procs as messages in proportion to the axes' lengths */
    double share = sqrt((double)n_points * g->n_procs / g->n_msgs);
    int n_cp = spread((int)lround(share), g->n_procs, cp);
    int n_cm = spread((int)lround((double)n_points / n_cp), g->n_msgs, cm);
    rc = rc == 0 ? measure_subgrid(&w, cp, n_cp, cm, n_cm, &w.kept) : rc;
    for (size_t i = 0; i < w.kept.n && rc == 0; i++) {
        infer(&w, &w.kept.r[i]);
    }
    free(w.kept.r);
    free(cp);
    free(cm);
    return rc;
}

int refine_walk(const struct refine_grid *g, const struct refine_params *p,
                const struct refine_oracle *o, struct refine_point *out)
{
    return refine_walk_predicted(g, p, o, NULL, out);
}

int refine_walk_predicted(const struct refine_grid *g,
                          const struct refine_params *p,
                          const struct refine_oracle *o,
                          const struct refine_predictor *pr,
                          struct refine_point *out)
{
    bool is_predicting = pr && pr->predict && p->max_penalty > 0;
    if (is_predicting && p->budget > 0) {
        return refine_walk_seeded(g, p, o, pr, out);
    }
    int *cp = malloc(((size_t)g->n_procs + 1) * sizeof *cp);
    int *cm = malloc(((size_t)g->n_msgs + 1) * sizeof *cm);
    size_t n = (size_t)g->n_procs * (size_t)g->n_msgs;
    struct walker w = {
        g,
        p,
        o,
        pr,
        out,
        {NULL, 0, 0},
        {NULL, 0, 0},
        calloc(n ? n : 1, 1),
        is_predicting,
        is_predicting ? malloc((n ? n : 1) * sizeof *w.predicted) : NULL,
        is_predicting ? calloc(n ? n : 1, sizeof *w.stamp) : NULL,
        0,
        0};
    int rc =
        cp && cm && w.wanted && (!is_predicting || (w.predicted && w.stamp))
            ? 0
            : -1;
    clear(g, out);
    if (rc == 0) {
        int n_cp = coarse_procs(g, cp);
        int n_cm =
            coarse_msgs(g, p->coarse_msg_step > 0 ? p->coarse_msg_step : 1, cm);
        rc = measure_subgrid(&w, cp, n_cp, cm, n_cm, &w.pending);
    }
    /* A kept rectangle can be refined later by points its neighbours
     * measured on their shared edge: check them all again until none
     * splits. */
    rc = rc == 0 ? settle(&w) : rc;
    rc = rc == 0 ? w.rc : rc;
    /* A kept rectangle of many points with nothing measured inside: its
     * centre checks the corners' agreement and interpolation there (an
     * island of another method between agreeing corners); one that does
     * not fit splits the rectangle. */
    while (rc == 0 && !is_predicting && p->probe_points > 0 &&
           probe(&w, p->probe_points)) {
        rc = measure_wanted(&w);
        rc = rc == 0 ? settle(&w) : rc;
    }
    /* A communicator size between coarse ones whose method differs from
     * theirs over a band of message sizes is seen where it is cheap to
     * look (Grig's reduce at 21 to 23 ranks: binary, inherited from 17 and
     * 31, was up to 16.6 % behind below 1 KiB). */
    int row_mi = p->coarse_msg_step < g->n_msgs ? p->coarse_msg_step : 0;
    if (rc == 0 && !is_predicting && p->probe_rows && g->n_msgs > 1 &&
        probe_rows(&w, row_mi)) {
        rc = measure_wanted(&w);
        rc = rc == 0 ? settle(&w) : rc;
    }
    for (size_t i = 0; i < w.kept.n && rc == 0; i++) {
        infer(&w, &w.kept.r[i]);
    }
    rc = rc == 0 ? w.rc : rc;
    free(w.pending.r);
    free(w.kept.r);
    free(w.wanted);
    free(w.predicted);
    free(w.stamp);
    free(cp);
    free(cm);
    return rc;
}

/* One ppn's rows [start, end) of a layered grid. */
struct layer {
    int start, end;
};

/* The walk of one ppn between two walked ones (lo, hi: layer indices, -1
 * for an end ppn): the oracle refine_walk sees, on the layer's rows. */
struct layer_walk {
    const struct refine_layers *g;
    const struct refine_params *p;
    const struct refine_oracle *o;
    const struct refine_predictor *pr; /* NULL: none */
    struct refine_point *out;          /* the whole grid's */
    char *from_ppn; /* per point: inferred from the ppn around */
    const struct layer *layers;
    int k, lo, hi;
    char *is_coarse; /* per point of layer k: on its coarse grid */
    int *cp, *cm;    /* room for the coarse indices */
};

/* The row of layer k at procs, or -1 (a ppn has only the procs it
 * divides). */
static int layer_row(const struct layer_walk *lw, int k, int procs)
{
    for (int row = lw->layers[k].start; row < lw->layers[k].end; row++) {
        if (lw->g->procs[row] == procs) {
            return row;
        }
    }
    return -1;
}

/* The point (row, mi), measured by a search there (not inferred). */
static const struct refine_point *searched(const struct layer_walk *lw, int row,
                                           int mi)
{
    size_t i = (size_t)row * (size_t)lw->g->n_msgs + (size_t)mi;
    const struct refine_point *pt = &lw->out[i];
    return row >= 0 && pt->is_measured && !lw->from_ppn[i] && pt->label >= 0
               ? pt
               : NULL;
}

/* Whether method label of the point (row, mi) loses at most agree_penalty
 * at (other, mi). */
static bool holds_at(const struct layer_walk *lw, int other, int mi, int label)
{
    if (searched(lw, other, mi)->label == label) {
        return true;
    }
    double penalty =
        lw->o->penalty ? lw->o->penalty(lw->o->ctx, other, mi, label) : -1;
    return penalty >= 0 && penalty <= lw->p->agree_penalty;
}

static int layer_measure(void *ctx, int pi, int mi, int *label, double *time_us)
{
    struct layer_walk *lw = ctx;
    int row = lw->layers[lw->k].start + pi;
    if (lw->lo >= 0 &&
        !lw->is_coarse[(size_t)pi * (size_t)lw->g->n_msgs + (size_t)mi]) {
        int procs = lw->g->procs[row];
        int ra = layer_row(lw, lw->lo, procs),
            rb = layer_row(lw, lw->hi, procs);
        const struct refine_point *a = searched(lw, ra, mi),
                                  *b = searched(lw, rb, mi);
        int agreed = -1;
        if (a && b && holds_at(lw, rb, mi, a->label)) {
            agreed = a->label;
        } else if (a && b && holds_at(lw, ra, mi, b->label)) {
            agreed = b->label;
        }
        if (agreed >= 0) {
            double x0 = log((double)lw->g->ppn[ra]),
                   x1 = log((double)lw->g->ppn[rb]);
            double f = (log((double)lw->g->ppn[row]) - x0) / (x1 - x0);
            *label = agreed;
            *time_us =
                a->time_us > 0 && b->time_us > 0
                    ? exp((1 - f) * log(a->time_us) + f * log(b->time_us))
                    : -1;
            lw->from_ppn[(size_t)row * (size_t)lw->g->n_msgs + (size_t)mi] = 1;
            return 0;
        }
    }
    return lw->o->measure(lw->o->ctx, row, mi, label, time_us);
}

static double layer_penalty(void *ctx, int pi, int mi, int label)
{
    struct layer_walk *lw = ctx;
    int row = lw->layers[lw->k].start + pi;
    if (lw->from_ppn[(size_t)row * (size_t)lw->g->n_msgs + (size_t)mi] ||
        !lw->o->penalty) {
        return -1;
    }
    return lw->o->penalty(lw->o->ctx, row, mi, label);
}

static int layer_between(void *ctx, int a, int b, double f, int pi, int mi)
{
    struct layer_walk *lw = ctx;
    int row = lw->layers[lw->k].start + pi;
    return lw->o->between ? lw->o->between(lw->o->ctx, a, b, f, row, mi) : -1;
}

static int layer_predict(void *ctx, int pi, int mi,
                         struct refine_prediction *out)
{
    struct layer_walk *lw = ctx;
    return lw->pr->predict(lw->pr->ctx, lw->layers[lw->k].start + pi, mi, out);
}

/* The layers of g into layers (room for n_rows); returns how many. */
static int split_layers(const struct refine_layers *g, struct layer *layers)
{
    int n = 0;
    for (int row = 0; row < g->n_rows; row++) {
        if (row == 0 || g->ppn[row] != g->ppn[row - 1]) {
            layers[n++] = (struct layer){row, row};
        }
        layers[n - 1].end = row + 1;
    }
    return n;
}

/* Walks layer k (between layers lo and hi, or -1) with refine_walk; its
 * points inferred from the ppn around end up marked inferred. */
static int walk_layer(struct layer_walk *lw, int k, int lo, int hi)
{
    const struct layer *l = &lw->layers[k];
    struct refine_grid grid = {lw->g->procs + l->start, l->end - l->start,
                               lw->g->msg_bytes, lw->g->n_msgs};
    struct refine_oracle o = {layer_measure, layer_penalty, layer_between, lw};
    struct refine_predictor pr = {layer_predict, lw};
    size_t first = (size_t)l->start * (size_t)lw->g->n_msgs;
    size_t n = (size_t)(l->end - l->start) * (size_t)lw->g->n_msgs;
    int n_cp = coarse_procs(&grid, lw->cp);
    int n_cm = coarse_msgs(
        &grid, lw->p->coarse_msg_step > 0 ? lw->p->coarse_msg_step : 1, lw->cm);
    memset(lw->is_coarse, 0, n);
    for (int a = 0; a < n_cp; a++) {
        for (int b = 0; b < n_cm; b++) {
            lw->is_coarse[(size_t)lw->cp[a] * (size_t)grid.n_msgs +
                          (size_t)lw->cm[b]] = 1;
        }
    }
    lw->k = k;
    lw->lo = lo;
    lw->hi = hi;
    int rc = refine_walk_predicted(&grid, lw->p, &o, lw->pr ? &pr : NULL,
                                   lw->out + first);
    for (size_t i = first; i < first + n; i++) {
        lw->out[i].is_measured &= !lw->from_ppn[i];
    }
    return rc;
}

/* Walks the layers strictly between lo and hi (both walked), the middle
 * one first. */
static int walk_between(struct layer_walk *lw, int lo, int hi)
{
    if (hi - lo < 2) {
        return 0;
    }
    int mid = (lo + hi) / 2;
    int rc = walk_layer(lw, mid, lo, hi);
    rc = rc == 0 ? walk_between(lw, lo, mid) : rc;
    return rc == 0 ? walk_between(lw, mid, hi) : rc;
}

int refine_walk_layers(const struct refine_layers *g,
                       const struct refine_params *p,
                       const struct refine_oracle *o, struct refine_point *out)
{
    return refine_walk_layers_predicted(g, p, o, NULL, out);
}

int refine_walk_layers_predicted(const struct refine_layers *g,
                                 const struct refine_params *p,
                                 const struct refine_oracle *o,
                                 const struct refine_predictor *pr,
                                 struct refine_point *out)
{
    size_t n = (size_t)g->n_rows * (size_t)g->n_msgs;
    struct layer *layers = malloc(((size_t)g->n_rows + 1) * sizeof *layers);
    struct layer_walk lw = {g,
                            p,
                            o,
                            pr && pr->predict ? pr : NULL,
                            out,
                            calloc(n ? n : 1, 1),
                            layers,
                            0,
                            -1,
                            -1,
                            malloc(n ? n : 1),
                            malloc(((size_t)g->n_rows + 1) * sizeof(int)),
                            malloc(((size_t)g->n_msgs + 1) * sizeof(int))};
    int rc = layers && lw.from_ppn && lw.is_coarse && lw.cp && lw.cm ? 0 : -1;
    int n_layers = rc == 0 ? split_layers(g, layers) : 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = (struct refine_point){-1, -1, 0, -1, -1};
    }
    rc = rc == 0 && n_layers > 0 ? walk_layer(&lw, 0, -1, -1) : rc;
    rc = rc == 0 && n_layers > 1 ? walk_layer(&lw, n_layers - 1, -1, -1) : rc;
    rc = rc == 0 ? walk_between(&lw, 0, n_layers - 1) : rc;
    free(layers);
    free(lw.from_ppn);
    free(lw.is_coarse);
    free(lw.cp);
    free(lw.cm);
    return rc;
}

/* The oracle of one layer's rows, offset to the whole grid's. */
struct layer_offset {
    const struct refine_oracle *o;
    int start;
};

static int offset_measure(void *ctx, int pi, int mi, int *label,
                          double *time_us)
{
    const struct layer_offset *lo = ctx;
    return lo->o->measure(lo->o->ctx, lo->start + pi, mi, label, time_us);
}

static double offset_penalty(void *ctx, int pi, int mi, int label)
{
    const struct layer_offset *lo = ctx;
    return lo->o->penalty
               ? lo->o->penalty(lo->o->ctx, lo->start + pi, mi, label)
               : -1;
}

static int offset_between(void *ctx, int a, int b, double f, int pi, int mi)
{
    const struct layer_offset *lo = ctx;
    return lo->o->between
               ? lo->o->between(lo->o->ctx, a, b, f, lo->start + pi, mi)
               : -1;
}

int refine_uniform_layers(const struct refine_layers *g, const int *n_points,
                          const struct refine_oracle *o,
                          struct refine_point *out)
{
    struct layer *layers = malloc(((size_t)g->n_rows + 1) * sizeof *layers);
    int rc = layers ? 0 : -1;
    int n_layers = rc == 0 ? split_layers(g, layers) : 0;
    for (int k = 0; k < n_layers && rc == 0; k++) {
        const struct layer *l = &layers[k];
        struct refine_grid grid = {g->procs + l->start, l->end - l->start,
                                   g->msg_bytes, g->n_msgs};
        struct layer_offset lo = {o, l->start};
        struct refine_oracle lo_oracle = {offset_measure, offset_penalty,
                                          offset_between, &lo};
        rc = refine_uniform(&grid, n_points[k], &lo_oracle,
                            out + (size_t)l->start * (size_t)g->n_msgs);
    }
    free(layers);
    return rc;
}
