/* The bound on what an adaptive walk must measure (search/bound.h): each
 * point's good candidates, then a packing for the lower bound and a greedy
 * cover for the upper one. Every set is built from the truth alone. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "search/bound.h"
#include "util/tuning.h"

/* A point and its up to four grid neighbours (and itself). */
#define BOUND_SET 5

struct bound_point {
    double opt_us; /* <= 0: nothing runs here */
    int opt_label;
    bool is_free, is_hoped; /* a free / hoped candidate is good */
    int n_single;           /* neighbours whose optimum is good here */
    int single[BOUND_SET];
    int n_set; /* the lower bound's set: the point, its good neighbours
                  and those offering a segment size between */
    int set[BOUND_SET];
};

static double label_time(const struct bound_map *m, int p, int label)
{
    return label < 0 ? -1 : m->time_us[(size_t)p * (size_t)m->n_labels + label];
}

/* label's penalty at p (INFINITY where it cannot run) */
static double label_penalty(const struct bound_map *m,
                            const struct bound_point *pt, int p, int label)
{
    double t = label_time(m, p, label);
    return t > 0 ? tuning_penalty(t, pt[p].opt_us) : INFINITY;
}

static bool is_good(const struct bound_map *m, const struct bound_point *pt,
                    int p, int label)
{
    return label_penalty(m, pt, p, label) <= m->tolerance;
}

static void set_add(int *set, int *n, int q)
{
    for (int i = 0; i < *n; i++) {
        if (set[i] == q) {
            return;
        }
    }
    set[(*n)++] = q;
}

/* p's grid neighbours with an optimum into nb; returns how many. */
static int neighbours(const struct bound_map *m, const struct bound_point *pt,
                      int p, int *nb)
{
    int row = p / m->n_msgs, mi = p % m->n_msgs, n = 0;
    int cand[4] = {mi > 0 ? p - 1 : -1, mi + 1 < m->n_msgs ? p + 1 : -1,
                   row > 0 ? p - m->n_msgs : -1,
                   row + 1 < m->n_rows ? p + m->n_msgs : -1};
    for (int i = 0; i < 4; i++) {
        int q = cand[i];
        bool is_layer = q < 0 || i < 2 || !m->row_ppn ||
                        m->row_ppn[q / m->n_msgs] == m->row_ppn[row];
        if (q >= 0 && is_layer && pt[q].opt_us > 0) {
            nb[n++] = q;
        }
    }
    return n;
}

/* Whether a label of algorithm alg at a segment size strictly between a
 * and b is good at p. */
static bool is_between_good(const struct bound_map *m,
                            const struct bound_point *pt, int p, int alg, int a,
                            int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    for (int k = 0; k < m->n_labels; k++) {
        if (m->alg[k] == alg && m->seg_bytes[k] > lo && m->seg_bytes[k] < hi &&
            is_good(m, pt, p, k)) {
            return true;
        }
    }
    return false;
}

static void classify(const struct bound_map *m, struct bound_point *pt, int p)
{
    struct bound_point *x = &pt[p];
    int nb[4], n_nb = neighbours(m, pt, p, nb);
    for (int j = 0; j < m->n_free && !x->is_free; j++) {
        x->is_free = is_good(m, pt, p, m->free_label[p * m->n_free + j]);
    }
    for (int j = 0; j < m->n_hoped && !x->is_hoped; j++) {
        x->is_hoped = is_good(m, pt, p, m->hoped_label[p * m->n_hoped + j]);
    }
    x->n_set = 0;
    set_add(x->set, &x->n_set, p);
    for (int i = 0; i < n_nb; i++) {
        if (is_good(m, pt, p, pt[nb[i]].opt_label)) {
            x->single[x->n_single++] = nb[i];
            set_add(x->set, &x->n_set, nb[i]);
        }
    }
    for (int i = 0; m->alg && i < n_nb; i++) {
        for (int j = i + 1; j < n_nb; j++) {
            int a = pt[nb[i]].opt_label, b = pt[nb[j]].opt_label;
            if (m->alg[a] == m->alg[b] && m->seg_bytes[a] != m->seg_bytes[b] &&
                is_between_good(m, pt, p, m->alg[a], m->seg_bytes[a],
                                m->seg_bytes[b])) {
                set_add(x->set, &x->n_set, nb[i]);
                set_add(x->set, &x->n_set, nb[j]);
            }
        }
    }
}

static double cost_of(const struct bound_map *m, int p)
{
    return m->cost_s ? m->cost_s[p] : 0;
}

/* The lower bound: measured[] starts as the premeasured and must points;
 * then a packing of the other unserved points' sets, smallest first. */
static void lower_bound(const struct bound_map *m, const struct bound_point *pt,
                        char *used, int *order, struct bound_result *out)
{
    int n = m->n_rows * m->n_msgs, n_order = 0;
    for (int size = 2; size <= BOUND_SET; size++) {
        for (int p = 0; p < n; p++) {
            const struct bound_point *x = &pt[p];
            bool is_open = x->opt_us > 0 && !x->is_free && !x->is_hoped &&
                           x->n_set == size;
            for (int i = 0; is_open && i < x->n_set; i++) {
                is_open = !used[x->set[i]];
            }
            if (is_open) {
                order[n_order++] = p;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        out->lower += used[i];
        out->lower_s += used[i] ? cost_of(m, i) : 0;
    }
    for (int k = 0; k < n_order; k++) {
        const struct bound_point *x = &pt[order[k]];
        bool is_disjoint = true;
        double cheapest = INFINITY;
        for (int i = 0; i < x->n_set; i++) {
            is_disjoint = is_disjoint && !used[x->set[i]];
            double c = cost_of(m, x->set[i]);
            cheapest = c < cheapest ? c : cheapest;
        }
        if (is_disjoint) {
            for (int i = 0; i < x->n_set; i++) {
                used[x->set[i]] = 1;
            }
            out->lower++;
            out->lower_s += cheapest;
        }
    }
}

static bool is_served(const struct bound_point *pt, const char *in, int p)
{
    const struct bound_point *x = &pt[p];
    bool served = x->opt_us <= 0 || x->is_free || in[p];
    for (int i = 0; !served && i < x->n_single; i++) {
        served = in[x->single[i]];
    }
    return served;
}

/* The cover: in[] starts as the premeasured points and those no free
 * candidate nor single neighbour serves; then, while some point is not
 * served, the point that serves the most (the first of equals). */
static void upper_bound(const struct bound_map *m, const struct bound_point *pt,
                        char *in, int *gain, struct bound_result *out)
{
    int n = m->n_rows * m->n_msgs;
    for (;;) {
        memset(gain, 0, (size_t)n * sizeof *gain);
        int best = -1;
        for (int p = 0; p < n; p++) {
            if (is_served(pt, in, p)) {
                continue;
            }
            gain[p]++;
            for (int i = 0; i < pt[p].n_single; i++) {
                gain[pt[p].single[i]]++;
            }
        }
        for (int p = 0; p < n; p++) {
            best = gain[p] > 0 && (best < 0 || gain[p] > gain[best]) ? p : best;
        }
        if (best < 0) {
            break;
        }
        in[best] = 1;
    }
    for (int p = 0; p < n; p++) {
        const struct bound_point *x = &pt[p];
        out->upper += in[p];
        out->upper_s += in[p] ? cost_of(m, p) : 0;
        if (x->opt_us <= 0 || in[p]) {
            continue;
        }
        double pen = INFINITY;
        for (int j = 0; j < m->n_free; j++) {
            double f =
                label_penalty(m, pt, p, m->free_label[p * m->n_free + j]);
            pen = f < pen ? f : pen;
        }
        for (int i = 0; i < x->n_single; i++) {
            int q = x->single[i];
            double f =
                in[q] ? label_penalty(m, pt, p, pt[q].opt_label) : INFINITY;
            pen = f < pen ? f : pen;
        }
        out->upper_penalty_sum += pen;
        out->upper_penalty_max =
            pen > out->upper_penalty_max ? pen : out->upper_penalty_max;
    }
}

int bound_grid(const struct bound_map *m, struct bound_result *out,
               char *is_must, char *is_upper)
{
    int n = m->n_rows * m->n_msgs;
    size_t un = n > 0 ? (size_t)n : 1;
    struct bound_point *pt = calloc(un, sizeof *pt);
    char *used = calloc(un, 1), *in = calloc(un, 1);
    int *scratch = malloc(un * sizeof *scratch);
    int rc = pt && used && in && scratch ? 0 : -1;
    memset(out, 0, sizeof *out);
    for (int p = 0; rc == 0 && p < n; p++) {
        pt[p].opt_label = -1;
        for (int k = 0; k < m->n_labels; k++) {
            double t = label_time(m, p, k);
            if (t > 0 && (pt[p].opt_label < 0 || t < pt[p].opt_us)) {
                pt[p].opt_us = t;
                pt[p].opt_label = k;
            }
        }
        out->points += pt[p].opt_us > 0;
    }
    for (int p = 0; rc == 0 && p < n; p++) {
        if (pt[p].opt_us > 0) {
            classify(m, pt, p);
        }
    }
    for (int p = 0; rc == 0 && p < n; p++) {
        const struct bound_point *x = &pt[p];
        bool must =
            x->opt_us > 0 && !x->is_free && !x->is_hoped && x->n_set == 1;
        bool pre = m->premeasured && m->premeasured[p];
        out->must += must;
        used[p] = must || pre;
        in[p] = pre || (x->opt_us > 0 && !x->is_free && x->n_single == 0);
        if (is_must) {
            is_must[p] = must;
        }
        if (must) {
            double best = INFINITY;
            for (int j = 0; j < m->n_free; j++) {
                double f =
                    label_penalty(m, pt, p, m->free_label[p * m->n_free + j]);
                best = f < best ? f : best;
            }
            out->must_free_max =
                best > out->must_free_max ? best : out->must_free_max;
        }
    }
    if (rc == 0) {
        lower_bound(m, pt, used, scratch, out);
        upper_bound(m, pt, in, scratch, out);
    }
    for (int p = 0; rc == 0 && is_upper && p < n; p++) {
        is_upper[p] = in[p];
    }
    free(pt);
    free(used);
    free(in);
    free(scratch);
    return rc;
}
