/* The model between measured message sizes: with a calibration (RUN/model.csv
 * or --model), a method's time between two measured sizes is the model's,
 * corrected by what was measured at the two (model_corrected_at); the model's
 * times are computed once per point, when first asked for. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision/between.h"
#include "model/model.h"
#include "store/journal.h"
#include "util/tuning.h"

/* Knots per measured interval of message sizes: the model's times there
 * are smooth but for protocol switches, which 8 steps (a factor of 1.09 in
 * size where sizes double) place closely enough. */
enum { STEPS = 8 };

/* One grid's sizes: the measured ones and STEPS - 1 between each two,
 * evenly in log size (fine[f], at the log size pos[f]; fine[f * STEPS] is
 * measured size f), and the model's times at them, computed when first
 * asked for (NAN; < 0: none). */
struct model_grid {
    int n_fine;
    long *fine;
    double *pos;
    double *time_us; /* ((p * n_fine) + f) * n_methods + k */
};

struct run_model {
    run_model_fn fn;
    void *arg;
    struct model_params *params; /* owned, when loaded from a file */
    bool *is_unpriced;           /* per method: the model failed on it */
    struct model_grid *grids;
};

void run_model_destroy(struct run_model *m, int n_grids)
{
    if (!m) {
        return;
    }
    for (int g = 0; m->grids && g < n_grids; g++) {
        free(m->grids[g].fine);
        free(m->grids[g].pos);
        free(m->grids[g].time_us);
    }
    free(m->grids);
    free(m->is_unpriced);
    model_params_destroy(m->params);
    free(m);
}

static int grid_alloc(const struct run_data *r, const struct run_grid *g,
                      struct model_grid *mg)
{
    mg->n_fine = g->n_msgs > 0 ? (g->n_msgs - 1) * STEPS + 1 : 0;
    size_t n_times = (size_t)g->n_procs * (size_t)mg->n_fine * r->n_methods;
    mg->fine = malloc((size_t)mg->n_fine * sizeof *mg->fine + 1);
    mg->pos = malloc((size_t)mg->n_fine * sizeof *mg->pos + 1);
    mg->time_us = malloc(n_times * sizeof *mg->time_us + 1);
    if (!mg->fine || !mg->pos || !mg->time_us) {
        return -1;
    }
    for (size_t i = 0; i < n_times; i++) {
        mg->time_us[i] = NAN;
    }
    for (int j = 0; j < g->n_msgs; j++) {
        double lo = log(fmax((double)g->msgs[j], 1));
        double hi =
            j + 1 < g->n_msgs ? log(fmax((double)g->msgs[j + 1], 1)) : lo;
        for (int i = 0; i < STEPS && j * STEPS + i < mg->n_fine; i++) {
            int f = j * STEPS + i;
            mg->pos[f] = lo + (double)i / STEPS * (hi - lo);
            mg->fine[f] = i == 0 ? g->msgs[j] : lround(exp(mg->pos[f]));
        }
    }
    return 0;
}

int run_data_set_model(struct run_data *r, run_model_fn fn, void *arg)
{
    struct run_model *m = calloc(1, sizeof *m);
    if (!m || !(m->grids = calloc((size_t)r->n_grids, sizeof *m->grids)) ||
        !(m->is_unpriced = calloc((size_t)r->n_methods + 1, sizeof(bool)))) {
        goto fail;
    }
    m->fn = fn;
    m->arg = arg;
    for (int g = 0; g < r->n_grids; g++) {
        if (grid_alloc(r, &r->grids[g], &m->grids[g]) != 0) {
            goto fail;
        }
    }
    run_model_destroy(r->model, r->n_grids);
    r->model = m;
    return 0;
fail:
    fprintf(stderr, "autotune: out of memory for the model's times\n");
    run_model_destroy(m, r->n_grids);
    return -1;
}

/* The model's time from the calibration (arg: its parameters). */
static int predict_params(void *arg, const struct run_data *r, int g, int k,
                          int procs, long msg_bytes, double *time_us)
{
    const struct run_method *m = &r->methods[k];
    const struct run_grid *grid = &r->grids[g];
    if (strcmp(m->algorithm, STORE_DEFAULT_ALGORITHM) == 0) {
        return 1; /* the library's own choice: the model cannot say */
    }
    /* a segment at least the message is no segmentation */
    int seg = m->segment_bytes >= msg_bytes ? 0 : m->segment_bytes;
    int rc = model_predict(
        arg, grid->name, m->algorithm, procs, grid->ppn, msg_bytes, seg,
        r->chain_fanout > 0 ? r->chain_fanout : TUNING_CHAIN_FANOUT, time_us);
    return rc != 0 ? rc : *time_us > 0 ? 0 : 1;
}

int run_data_load_model(struct run_data *r, const char *run_dir,
                        const char *path)
{
    char own[4096];
    if (!path) {
        snprintf(own, sizeof own, "%s/model.csv", run_dir);
        if (access(own, F_OK) != 0) {
            return 0; /* no calibration: the measured times alone */
        }
        path = own;
    }
    struct model_params *params = NULL;
    double cost_s;
    if (model_load(path, &params, &cost_s) != 0) {
        return 1;
    }
    if (run_data_set_model(r, predict_params, params) != 0) {
        model_params_destroy(params);
        return 1;
    }
    r->model->params = params;
    return 0;
}

/* What the corrected predictor asks of the cache: one grid's procs and
 * method of r. */
struct source {
    const struct run_data *r;
    int g, k;
};

/* The model's time of the source's method at (procs, msg_bytes), from
 * the cache where the point is a grid's procs and fine size. */
static int cached_time(void *arg, int k_view, int procs, long msg_bytes,
                       double *time_us)
{
    const struct source *src = arg;
    const struct run_data *r = src->r;
    struct run_model *m = r->model;
    const struct run_grid *grid = &r->grids[src->g];
    const struct model_grid *mg = &m->grids[src->g];
    (void)k_view;
    if (m->is_unpriced[src->k]) {
        return 1;
    }
    int p = 0, f = -1;
    while (p < grid->n_procs && grid->procs[p] != procs) {
        p++;
    }
    for (int lo = 0, hi = mg->n_fine - 1; p < grid->n_procs && lo <= hi;) {
        int mid = (lo + hi) / 2;
        if (mg->fine[mid] == msg_bytes) {
            f = mid;
            break;
        }
        *(mg->fine[mid] < msg_bytes ? &lo : &hi) =
            mid + (mg->fine[mid] < msg_bytes ? 1 : -1);
    }
    double *slot =
        f >= 0
            ? &mg->time_us[((long)p * mg->n_fine + f) * r->n_methods + src->k]
            : NULL;
    if (slot && !isnan(*slot)) {
        *time_us = *slot;
        return *slot > 0 ? 0 : 1;
    }
    int rc = m->fn(m->arg, r, src->g, src->k, procs, msg_bytes, time_us);
    if (rc < 0) {
        m->is_unpriced[src->k] = true; /* said once: not again */
    }
    if (slot) {
        *slot = rc == 0 ? *time_us : -1;
    }
    return rc == 0 ? 0 : 1;
}

int between_unsegmented_of(const struct run_data *r, const struct run_grid *g,
                           long a, long b, int k)
{
    long seg = r->methods[k].segment_bytes;
    const double *ta = g->time_us + a * r->n_methods;
    const double *tb = g->time_us + b * r->n_methods;
    if (!(seg > g->msgs[a % g->n_msgs] && seg < g->msgs[b % g->n_msgs])) {
        return -1;
    }
    /* by its fields, not its label: run_data.c calls this file */
    for (int i = 0; i < r->n_methods; i++) {
        if (r->methods[i].segment_bytes == 0 &&
            strcmp(r->methods[i].algorithm, r->methods[k].algorithm) == 0) {
            return ta[i] > 0 && tb[i] > 0 ? i : -1;
        }
    }
    return -1;
}

int between_model_curve(const struct run_data *r, const struct run_grid *g,
                        long a, long b, int k, struct between_curve *c)
{
    c->n = 0;
    if (!r->model || a / g->n_msgs != b / g->n_msgs) {
        return 0; /* across communicator sizes: interpolated */
    }
    int gi = (int)(g - r->grids);
    const struct model_grid *mg = &r->model->grids[gi];
    int ja = (int)(a % g->n_msgs), jb = (int)(b % g->n_msgs);
    int procs = g->procs[a / g->n_msgs];
    const double *ta = g->time_us + a * r->n_methods;
    const double *tb = g->time_us + b * r->n_methods;
    /* what was measured: method k at the two sizes, nothing else */
    double times[2] = {ta[k], tb[k]};
    long msgs[2] = {g->msgs[ja], g->msgs[jb]};
    struct model_measured seen = {1, 2, 1, &procs, msgs, times};
    struct source src = {r, gi, k};
    int f0 = ja * STEPS, f1 = jb * STEPS;
    int stride =
        (f1 - f0 + BETWEEN_CURVE_KNOTS - 2) / (BETWEEN_CURVE_KNOTS - 1);
    double span = mg->pos[f1] - mg->pos[f0];
    if (!(times[0] > 0 && times[1] > 0) || stride < 1 || !(span > 0)) {
        return 0;
    }
    /* A segment between the two sizes: up to it the method runs
     * unsegmented, as algorithm/0 (corrected by that method's residuals at
     * both sizes), beyond it segmented, which only the larger size measured
     * (its residual alone). Correcting across the switch with the smaller
     * size's unsegmented residual prices the segmented side wrongly. */
    long seg = r->methods[k].segment_bytes;
    double times_seg[2] = {-1, tb[k]};
    struct model_measured seen_seg = {1, 2, 1, &procs, msgs, times_seg};
    struct source src0 = {r, gi, between_unsegmented_of(r, g, a, b, k)};
    double times0[2] = {src0.k >= 0 ? ta[src0.k] : -1,
                        src0.k >= 0 ? tb[src0.k] : -1};
    struct model_measured seen0 = {1, 2, 1, &procs, msgs, times0};
    for (int f = f0;; f += stride) {
        f = f < f1 ? f : f1;
        struct model_estimate e;
        bool is_unsegmented = src0.k >= 0 && mg->fine[f] <= seg;
        const struct model_measured *m = src0.k < 0       ? &seen
                                         : is_unsegmented ? &seen0
                                                          : &seen_seg;
        if (model_corrected_at(m, cached_time, is_unsegmented ? &src0 : &src, 0,
                               procs, mg->fine[f], &e) != 0) {
            return c->n = 0; /* the model cannot price k here */
        }
        c->s[c->n] = (mg->pos[f] - mg->pos[f0]) / span;
        c->y[c->n++] = log(e.time_us);
        if (f == f1) {
            break;
        }
    }
    return c->n;
}

int between_model_beyond(const struct run_data *r, const struct run_grid *g,
                         long a_far, long a, long to_bytes, int k,
                         struct between_curve *c)
{
    c->n = 0;
    const double *t = g->time_us;
    long m_a = g->msgs[a % g->n_msgs];
    if (!r->model || !(t[a * r->n_methods + k] > 0) || !(to_bytes > m_a) ||
        (a_far >= 0 && a_far / g->n_msgs != a / g->n_msgs)) {
        return 0;
    }
    int gi = (int)(g - r->grids);
    int procs = g->procs[a / g->n_msgs];
    /* what was measured: method k at the last size and the one before it
     * (when there is one and k was timed there), nothing else */
    double times[2] = {-1, t[a * r->n_methods + k]};
    long msgs[2] = {m_a - 1, m_a};
    if (a_far >= 0) {
        times[0] = t[a_far * r->n_methods + k];
        msgs[0] = g->msgs[a_far % g->n_msgs];
    }
    struct model_measured seen = {1, 2, 1, &procs, msgs, times};
    struct source src = {r, gi, k};
    double span = log((double)to_bytes) - log(fmax((double)m_a, 1));
    /* a knot per doubling: past the measured sizes the model's times are
     * near straight in log-log (bandwidth), and each costs a replay of the
     * whole message */
    int n = (int)ceil(span / log(2) - 1e-9) + 1;
    n = n < 2 ? 2 : n > BETWEEN_CURVE_KNOTS ? BETWEEN_CURVE_KNOTS : n;
    for (int i = 0; i < n; i++) {
        double s = (double)i / (n - 1);
        long bytes = i == 0 ? m_a : between_value_at(m_a, to_bytes, s);
        struct model_estimate e;
        if (model_corrected_at(&seen, cached_time, &src, 0, procs, bytes, &e) !=
            0) {
            return c->n = 0; /* the model cannot price k here */
        }
        c->s[c->n] =
            i == 0 ? 0
                   : (log((double)bytes) - log(fmax((double)m_a, 1))) / span;
        c->y[c->n++] = log(e.time_us);
    }
    return c->n;
}
