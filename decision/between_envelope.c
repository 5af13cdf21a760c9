/* A third method between two measured message sizes: the fastest there
 * can be neither size's own (second at both, or a curve that bends below
 * both in between). The lower envelope of the candidates' interpolated
 * curves says where each is fastest (between_envelope: the exact table's
 * inserts); which methods can be a third at all. */
#include <math.h>

#include "decision/between.h"

/* A candidate must be within this fraction of the optimum at one of the
 * two sizes (chosen on the 12 robust runs); and the two sizes at most this
 * far apart (the times at sizes 256 times apart said too little about
 * those between them on the home platforms' default runs). */
#define THIRD_NEAR 0.10
#define THIRD_MAX_GAP 16

enum { MAX_CANDIDATES = 64 };

struct curve {
    int k;
    struct between_curve c;
};

static int envelope_at(const struct curve *c, int n, double s)
{
    int best = 0;
    for (int i = 1; i < n; i++) {
        if (between_curve_at(&c[i].c, s) < between_curve_at(&c[best].c, s)) {
            best = i;
        }
    }
    return best;
}

/* Whether method k can be a third method between cells a and b of g (a
 * smaller message size, b a larger, at most THIRD_MAX_GAP times it): timed
 * at both, and, if segmented, segmented at a too (below its segment size
 * it runs unsegmented, and where between the two its segmented times
 * start is not known); either need not hold where the corrected model
 * gives its curve between them (it knows both). */
bool between_third_can_run(const struct run_data *r, const struct run_grid *g,
                           long a, long b, int k)
{
    long seg = r->methods[k].segment_bytes, m_a = g->msgs[a % g->n_msgs];
    struct between_curve c;
    return g->time_us[a * r->n_methods + k] > 0 &&
           g->time_us[b * r->n_methods + k] > 0 &&
           ((g->msgs[b % g->n_msgs] <= THIRD_MAX_GAP * m_a &&
             !(seg > 0 && seg >= m_a)) ||
            between_model_curve(r, g, a, b, k, &c) > 0);
}

/* Whether method k is within THIRD_NEAR of the optimum at cell a or b;
 * or, where the two are more than THIRD_MAX_GAP apart, the corrected model
 * gives its curve between them (a method can be the fastest far from both
 * without being near at either, and only the model can say where). */
bool between_third_is_near(const struct run_data *r, const struct run_grid *g,
                           long a, long b, int k)
{
    struct between_curve c;
    if (g->msgs[b % g->n_msgs] > THIRD_MAX_GAP * g->msgs[a % g->n_msgs] &&
        between_model_curve(r, g, a, b, k, &c) > 0) {
        return true;
    }
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
            (k == k_lo || k == k_hi || !between_third_can_run(r, g, a, b, k) ||
             !between_third_is_near(r, g, a, b, k))) {
            continue;
        }
        c[n].k = k;
        int n_knots = between_method_curve(r, g, a, b, k, &c[n].c);
        if (n_knots == 0 && i < 0) {
            return 0; /* a neighbour's method cannot run: nothing to say */
        }
        n += n_knots > 0;
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
        double f = between_curve_at(&x->c, s) - between_curve_at(&y->c, s);
        *(f > 0 ? &s1 : &s0) = s;
    }
    return (s0 + s1) / 2;
}

/* Appends method k over (from, to] to the n pieces p (merged with the
 * last when it is k's too; nothing when empty); false when p is full. */
static bool add_piece(struct between_piece *p, int *n, int k, long from,
                      long to)
{
    if (to <= from) {
        return true;
    }
    if (*n > 0 && p[*n - 1].k == k) {
        p[*n - 1].to = to;
        return true;
    }
    if (*n == BETWEEN_MAX_PIECES) {
        return false;
    }
    p[(*n)++] = (struct between_piece){k, from, to};
    return true;
}

/* The pieces of the envelope between cells a and b (sizes m_lo < m_hi)
 * when a third method has one; 0 when only k_lo and k_hi do (the cut
 * between them is between_cut's). The pieces cover (m_lo, m_hi - 1],
 * ascending; the first and last may be k_lo's and k_hi's. */
int between_envelope(const struct run_data *r, const struct run_grid *g, long a,
                     long b, int k_lo, int k_hi, struct between_piece *p)
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
    for (int j = 1; j <= BETWEEN_N_SAMPLES; j++) {
        double s = (double)j / BETWEEN_N_SAMPLES;
        int now = envelope_at(c, n_c, s);
        has_third |= j < BETWEEN_N_SAMPLES && now >= 2;
        if (now == prev && j < BETWEEN_N_SAMPLES) {
            continue;
        }
        long to = m_hi - 1;
        if (now != prev) {
            double at = crossing(&c[prev], &c[now],
                                 (double)(j - 1) / BETWEEN_N_SAMPLES, s);
            long v = between_value_at(m_lo, m_hi, at);
            to = v < m_hi - 1 ? v : m_hi - 1;
        }
        /* an envelope more ragged than BETWEEN_MAX_PIECES is noise */
        if (!add_piece(p, &n, c[prev].k, from, to) ||
            (j == BETWEEN_N_SAMPLES && now != prev &&
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
