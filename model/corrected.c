/* The corrected predictor (model.h): the model's time of a method at any
 * point, corrected by the residuals log(measured / predicted) of that method
 * at the neighbouring measured points, interpolated in log-log space; at a
 * measured point it is the measured time. */
#include <math.h>
#include <stdbool.h>

#include "model/model.h"

/* Where a value lies between two, linear in log value (0 at lo, 1 at hi;
 * values below 1 as 1: a message of 0 bytes). */
static double log_position(double lo, double hi, double x)
{
    double a = log(fmax(lo, 1)), b = log(fmax(hi, 1));
    return b > a ? (log(fmax(x, 1)) - a) / (b - a) : 0;
}

/* The residual of method k at cell (p, j): 0 and *res, 1 when it was not
 * measured there or the model has no time there, -1 on src's error. */
static int cell_residual(const struct model_measured *m, model_source_fn src,
                         void *arg, int k, int p, int j, double *res)
{
    double t = m->time_us[((long)p * m->n_msgs + j) * m->n_methods + k];
    double q;
    if (!(t > 0)) {
        return 1;
    }
    int rc = src(arg, k, m->procs[p], m->msgs[j], &q);
    if (rc != 0) {
        return rc;
    }
    *res = log(t / q);
    return 0;
}

/* The residuals used for one estimate, and how they combine. */
struct used {
    double v[4];
    int p[4], j[4]; /* their cells */
    int n;
};

/* Row p's residual at msg_bytes: between the nearest measured sizes below
 * (at or) and above; 0, 1 when the row has none, -1 on src's error. */
static int row_residual(const struct model_measured *m, model_source_fn src,
                        void *arg, int k, int p, long msg_bytes, double *res,
                        struct used *u)
{
    int at = 0;
    while (at < m->n_msgs && m->msgs[at] <= msg_bytes) {
        at++;
    }
    /* below: indexes < at (msgs <= msg_bytes); above: >= at */
    double r_lo = 0, r_hi = 0;
    int lo = -1, hi = -1, rc;
    for (int j = at - 1; j >= 0 && lo < 0; j--) {
        if ((rc = cell_residual(m, src, arg, k, p, j, &r_lo)) < 0) {
            return -1;
        }
        lo = rc == 0 ? j : -1;
    }
    bool is_exact = lo >= 0 && m->msgs[lo] == msg_bytes;
    for (int j = at; j < m->n_msgs && hi < 0 && !is_exact; j++) {
        if ((rc = cell_residual(m, src, arg, k, p, j, &r_hi)) < 0) {
            return -1;
        }
        hi = rc == 0 ? j : -1;
    }
    if (lo < 0 && hi < 0) {
        return 1;
    }
    if (lo >= 0) {
        u->p[u->n] = p;
        u->j[u->n] = lo;
        u->v[u->n++] = r_lo;
    }
    if (hi >= 0) {
        u->p[u->n] = p;
        u->j[u->n] = hi;
        u->v[u->n++] = r_hi;
    }
    if (lo < 0 || hi < 0) {
        *res = lo >= 0 ? r_lo : r_hi;
        return 0;
    }
    double s = log_position((double)m->msgs[lo], (double)m->msgs[hi],
                            (double)msg_bytes);
    *res = r_lo + s * (r_hi - r_lo);
    return 0;
}

int model_corrected_at(const struct model_measured *m, model_source_fn src,
                       void *arg, int k, int procs, long msg_bytes,
                       struct model_estimate *out)
{
    double q;
    int rc = src(arg, k, procs, msg_bytes, &q);
    if (rc != 0) {
        return rc;
    }
    int at = 0;
    while (at < m->n_procs && m->procs[at] <= procs) {
        at++;
    }
    struct used u = {.n = 0};
    double r_lo = 0, r_hi = 0;
    int lo = -1, hi = -1;
    for (int p = at - 1; p >= 0 && lo < 0; p--) {
        if ((rc = row_residual(m, src, arg, k, p, msg_bytes, &r_lo, &u)) < 0) {
            return -1;
        }
        lo = rc == 0 ? p : -1;
    }
    bool is_exact = lo >= 0 && m->procs[lo] == procs;
    for (int p = at; p < m->n_procs && hi < 0 && !is_exact; p++) {
        if ((rc = row_residual(m, src, arg, k, p, msg_bytes, &r_hi, &u)) < 0) {
            return -1;
        }
        hi = rc == 0 ? p : -1;
    }
    double res = 0;
    if (lo >= 0 && hi >= 0) {
        double s = log_position(m->procs[lo], m->procs[hi], (double)procs);
        res = r_lo + s * (r_hi - r_lo);
    } else if (lo >= 0 || hi >= 0) {
        res = lo >= 0 ? r_lo : r_hi;
    }
    double least = INFINITY, most = -INFINITY;
    for (int i = 0; i < u.n; i++) {
        least = fmin(least, u.v[i]);
        most = fmax(most, u.v[i]);
    }
    out->time_us = q * exp(res);
    out->residual = res;
    out->n_neighbours = u.n;
    for (int i = 0; i < u.n; i++) {
        out->cell_p[i] = u.p[i];
        out->cell_j[i] = u.j[i];
    }
    out->uncertainty = u.n == 0   ? INFINITY
                       : u.n == 1 ? fabs(u.v[0])
                                  : (most - least) / 2;
    return 0;
}

/* How far the corrected ratio of method b's time to method k's may be
 * off: at each neighbouring cell either estimate comes from where both
 * were measured, log(t_b / t_k) - log(q_b / q_k) (the residuals' difference:
 * they move together, so it varies far less than either); half the range of
 * those differences; where fewer than 2 cells measured both (one cell says
 * nothing of how the difference moves), the two estimates' own
 * uncertainties added (a single neighbour's: how far the model is off
 * there). 0 and *out, -1 on src's error. */
static int difference_spread(const struct model_measured *m,
                             model_source_fn src, void *arg, int b,
                             const struct model_estimate *eb, int k,
                             const struct model_estimate *ek, double *out)
{
    int cp[8], cj[8], n = 0;
    const struct model_estimate *es[2] = {eb, ek};
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < es[s]->n_neighbours; i++) {
            bool is_dup = false;
            for (int c = 0; c < n && !is_dup; c++) {
                is_dup = cp[c] == es[s]->cell_p[i] && cj[c] == es[s]->cell_j[i];
            }
            if (!is_dup) {
                cp[n] = es[s]->cell_p[i];
                cj[n++] = es[s]->cell_j[i];
            }
        }
    }
    double least = INFINITY, most = -INFINITY;
    int both = 0;
    for (int c = 0; c < n; c++) {
        double rb, rk;
        int rc_b = cell_residual(m, src, arg, b, cp[c], cj[c], &rb);
        int rc_k =
            rc_b == 0 ? cell_residual(m, src, arg, k, cp[c], cj[c], &rk) : rc_b;
        if (rc_b < 0 || rc_k < 0) {
            return -1;
        }
        if (rc_b == 0 && rc_k == 0) {
            least = fmin(least, rb - rk);
            most = fmax(most, rb - rk);
            both++;
        }
    }
    *out = both >= 2 ? (most - least) / 2 : eb->uncertainty + ek->uncertainty;
    return 0;
}

int model_corrected_choice(const struct model_measured *m, model_source_fn src,
                           void *arg, const bool *is_seen, int procs,
                           long msg_bytes, struct model_choice *out)
{
    struct model_estimate best = {.uncertainty = INFINITY};
    out->k = -1;
    out->penalty = INFINITY;
    /* the least corrected time among the methods measured nearby */
    for (int k = 0; k < m->n_methods; k++) {
        struct model_estimate e;
        int rc = is_seen && !is_seen[k]
                     ? 1
                     : model_corrected_at(m, src, arg, k, procs, msg_bytes, &e);
        if (rc < 0) {
            return -1;
        }
        if (rc == 0 && isfinite(e.uncertainty) &&
            (out->k < 0 || e.time_us < best.time_us)) {
            best = e;
            out->k = k;
        }
    }
    if (out->k < 0) {
        return 1;
    }
    /* how much it may lose: its time at the top of its uncertainty against
     * each other's at the bottom of theirs */
    double worst = 0;
    for (int k = 0; k < m->n_methods; k++) {
        struct model_estimate e;
        if (k == out->k || (is_seen && !is_seen[k]) ||
            model_corrected_at(m, src, arg, k, procs, msg_bytes, &e) != 0 ||
            !isfinite(e.uncertainty)) {
            continue;
        }
        double d;
        if (difference_spread(m, src, arg, out->k, &best, k, &e, &d) < 0) {
            return -1;
        }
        double lose = best.time_us / e.time_us * exp(d) - 1;
        worst = fmax(worst, lose);
    }
    out->time_us = best.time_us;
    out->uncertainty = best.uncertainty;
    out->penalty = worst;
    return 0;
}
