/* A run's decision map: for each collective and ranks per node, the (procs x
 * message size) grid of optima from optimal.csv and every method's time from
 * measurements.csv,
 * which is what penalties ([Pjesivac-Grbovic 2006], eq. 6) are computed
 * against. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "decision/internal.h"
#include "store/tables.h"

void run_data_destroy(struct run_data *r)
{
    if (!r) {
        return;
    }
    for (int g = 0; g < r->n_grids; g++) {
        struct run_grid *grid = &r->grids[g];
        free(grid->procs);
        free(grid->msgs);
        free(grid->best);
        free(grid->best_us);
        free(grid->default_us);
        free(grid->time_us);
        free(grid->is_inferred);
    }
    run_model_destroy(r->model, r->n_grids);
    free(r->grids);
    free(r->ppn);
    free(r->methods);
    free(r);
}

int run_data_find_method(const struct run_data *r, const char *label)
{
    for (int i = 0; i < r->n_methods; i++) {
        if (strcmp(r->methods[i].label, label) == 0) {
            return i;
        }
    }
    return -1;
}

int run_data_default_method(const struct run_data *r)
{
    char label[RUN_LABEL_MAX];
    method_label(label, sizeof label, STORE_DEFAULT_ALGORITHM, 0);
    return run_data_find_method(r, label);
}

/* The grid of collective name at ppn (any ppn when ppn is 0), or -1. */
static int find_grid(const struct run_data *r, const char *name, int ppn)
{
    for (int g = 0; g < r->n_grids; g++) {
        if (strcmp(r->grids[g].name, name) == 0 &&
            (ppn == 0 || r->grids[g].ppn == ppn)) {
            return g;
        }
    }
    return -1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The grid's distinct procs and message sizes, sorted, from the optimal
 * rows of its collective and ppn. */
static int grid_axes(struct run_grid *grid, const struct measurement *rows,
                     size_t n)
{
    grid->procs = malloc((n + 1) * sizeof *grid->procs);
    grid->msgs = malloc((n + 1) * sizeof *grid->msgs);
    if (!grid->procs || !grid->msgs) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].collective, grid->name) != 0 ||
            rows[i].ppn != grid->ppn) {
            continue;
        }
        grid->procs[grid->n_procs++] = rows[i].procs;
        grid->msgs[grid->n_msgs++] = rows[i].msg_bytes;
    }
    qsort(grid->procs, (size_t)grid->n_procs, sizeof(int), cmp_int);
    qsort(grid->msgs, (size_t)grid->n_msgs, sizeof(long), cmp_long);
    int np = 0, nm = 0;
    for (int i = 0; i < grid->n_procs; i++) {
        if (np == 0 || grid->procs[np - 1] != grid->procs[i]) {
            grid->procs[np++] = grid->procs[i];
        }
    }
    for (int i = 0; i < grid->n_msgs; i++) {
        if (nm == 0 || grid->msgs[nm - 1] != grid->msgs[i]) {
            grid->msgs[nm++] = grid->msgs[i];
        }
    }
    grid->n_procs = np;
    grid->n_msgs = nm;
    return 0;
}

/* The cell of (procs, msg_bytes) in grid, or -1 off the grid. */
static long grid_cell(const struct run_grid *grid, int procs, long msg_bytes)
{
    const int *p = bsearch(&procs, grid->procs, (size_t)grid->n_procs,
                           sizeof(int), cmp_int);
    const long *m = bsearch(&msg_bytes, grid->msgs, (size_t)grid->n_msgs,
                            sizeof(long), cmp_long);
    if (!p || !m) {
        return -1;
    }
    return (long)(p - grid->procs) * grid->n_msgs + (m - grid->msgs);
}

static int add_method(struct run_data *r, const struct measurement *m)
{
    char label[RUN_LABEL_MAX];
    method_label(label, sizeof label, m->algorithm, m->segment_bytes);
    if (run_data_find_method(r, label) >= 0) {
        return 0;
    }
    struct run_method *grown =
        realloc(r->methods, (size_t)(r->n_methods + 1) * sizeof *grown);
    if (!grown) {
        return -1;
    }
    r->methods = grown;
    struct run_method *rm = &r->methods[r->n_methods++];
    snprintf(rm->algorithm, sizeof rm->algorithm, "%s", m->algorithm);
    rm->segment_bytes = m->segment_bytes;
    snprintf(rm->label, sizeof rm->label, "%s", label);
    return 0;
}

/* Adds the grids of collective name: one per ppn of its optimal rows,
 * ascending; and each ppn to r->ppn (kept ascending). */
static void add_grids(struct run_data *r, const char *name,
                      const struct measurement *opt, size_t n_opt)
{
    int first = r->n_grids;
    for (size_t i = 0; i < n_opt; i++) {
        if (strcmp(opt[i].collective, name) != 0 ||
            find_grid(r, name, opt[i].ppn) >= 0) {
            continue;
        }
        int at = r->n_grids++;
        while (at > first && r->grids[at - 1].ppn > opt[i].ppn) {
            r->grids[at] = r->grids[at - 1];
            at--;
        }
        r->grids[at] = (struct run_grid){.ppn = opt[i].ppn};
        snprintf(r->grids[at].name, RUN_NAME_MAX, "%s", name);
        int k = r->n_ppn;
        while (k > 0 && r->ppn[k - 1] >= opt[i].ppn) {
            k--;
        }
        if (k < r->n_ppn && r->ppn[k] == opt[i].ppn) {
            continue;
        }
        memmove(r->ppn + k + 1, r->ppn + k,
                (size_t)(r->n_ppn - k) * sizeof *r->ppn);
        r->ppn[k] = opt[i].ppn;
        r->n_ppn++;
    }
}

/* Grids in the order asked for, or in the order optimal.csv names the
 * collectives; each collective's ppn ascending. */
static int select_grids(struct run_data *r, const char *path,
                        const struct measurement *opt, size_t n_opt,
                        const char *const *collectives, int n)
{
    r->grids = calloc(n_opt + 1, sizeof *r->grids);
    r->ppn = calloc(n_opt + 1, sizeof *r->ppn);
    if (!r->grids || !r->ppn) {
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
    }
    for (size_t i = 0; !collectives && i < n_opt; i++) {
        if (find_grid(r, opt[i].collective, 0) < 0) {
            add_grids(r, opt[i].collective, opt, n_opt);
        }
    }
    for (int c = 0; collectives && c < n; c++) {
        bool is_there = false;
        for (size_t i = 0; i < n_opt && !is_there; i++) {
            is_there = strcmp(opt[i].collective, collectives[c]) == 0;
        }
        if (!is_there) {
            fprintf(stderr, "%s: no point of collective '%s'\n", path,
                    collectives[c]);
            return -1;
        }
        if (find_grid(r, collectives[c], 0) < 0) {
            add_grids(r, collectives[c], opt, n_opt);
        }
    }
    if (r->n_grids == 0) {
        fprintf(stderr, "%s: no points\n", path);
        return -1;
    }
    return 0;
}

static int alloc_grid(struct run_grid *grid, int n_methods)
{
    size_t cells = (size_t)grid->n_procs * (size_t)grid->n_msgs;
    grid->best = malloc(cells * sizeof *grid->best);
    grid->best_us = malloc(cells * sizeof *grid->best_us);
    grid->default_us = malloc(cells * sizeof *grid->default_us);
    grid->time_us = malloc(cells * (size_t)n_methods * sizeof(double));
    grid->is_inferred = calloc(cells, sizeof *grid->is_inferred);
    if (!grid->best || !grid->best_us || !grid->default_us || !grid->time_us ||
        !grid->is_inferred) {
        return -1;
    }
    for (size_t i = 0; i < cells; i++) {
        grid->best[i] = -1;
        grid->default_us[i] = -1;
    }
    for (size_t i = 0; i < cells * (size_t)n_methods; i++) {
        grid->time_us[i] = -1;
    }
    return 0;
}

/* A segment at least the message size was not timed: the algorithm runs
 * unsegmented there. */
static void fill_unsegmented(struct run_data *r, struct run_grid *grid)
{
    for (int k = 0; k < r->n_methods; k++) {
        const struct run_method *rm = &r->methods[k];
        char label[RUN_LABEL_MAX];
        method_label(label, sizeof label, rm->algorithm, 0);
        int k0 = run_data_find_method(r, label);
        if (rm->segment_bytes == 0 || k0 < 0) {
            continue;
        }
        for (int p = 0; p < grid->n_procs; p++) {
            for (int m = 0; m < grid->n_msgs; m++) {
                double *t = grid->time_us +
                            ((size_t)p * grid->n_msgs + m) * r->n_methods;
                if (t[k] < 0 && rm->segment_bytes >= grid->msgs[m]) {
                    t[k] = t[k0];
                }
            }
        }
    }
}

int run_data_load(const char *run_dir, const char *const *collectives, int n,
                  struct run_data **out)
{
    struct journal *j;
    if (table_load_run_journal(run_dir, &j) != 0) {
        table_note_unchecked(run_dir); /* the tables may still serve */
    }
    int rc = run_data_load_with_journal(run_dir, j, collectives, n, out);
    journal_close(j);
    return rc;
}

int run_data_load_with_journal(const char *run_dir,
                               const struct journal *journal,
                               const char *const *collectives, int n,
                               struct run_data **out)
{
    struct run_tables t = {0};
    int rc = -1;
    struct run_data *r = calloc(1, sizeof *r);
    *out = NULL;
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", run_dir);
        goto done;
    }
    if (table_read_run_tables(run_dir, journal, NULL, &t) != 0) {
        goto done;
    }
    if (!t.has_measured) {
        fprintf(stderr, "%s: %s\n", t.measured_path, strerror(ENOENT));
        goto done;
    }
    r->is_predicted = t.is_predicted;
    struct measurement *opt = t.optimal, *meas = t.measured;
    size_t n_opt = t.n_optimal, n_meas = t.n_measured;
    const char *opt_path = t.optimal_path, *meas_path = t.measured_path;
    if (select_grids(r, opt_path, opt, n_opt, collectives, n)) {
        goto done;
    }
    const char *fanout =
        journal && journal_has_settings(journal)
            ? journal_setting(journal_get_settings(journal), "chain_fanout")
            : NULL;
    r->chain_fanout = fanout && atoi(fanout) > 0 ? atoi(fanout) : 0;
    /* The library's default is a method like the others where it was
     * timed, listed last so that the tuned methods keep their indexes
     * (and win ties); an optimal table written before it was a candidate
     * gets it where it was faster. */
    table_prefer_default(opt, n_opt, meas, n_meas);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n_meas; i++) {
            bool is_default =
                strcmp(meas[i].algorithm, STORE_DEFAULT_ALGORITHM) == 0;
            if (is_default == (pass == 1) &&
                find_grid(r, meas[i].collective, meas[i].ppn) >= 0 &&
                add_method(r, &meas[i])) {
                fprintf(stderr, "%s: out of memory\n", meas_path);
                goto done;
            }
        }
    }
    for (int g = 0; g < r->n_grids; g++) {
        if (grid_axes(&r->grids[g], opt, n_opt) ||
            alloc_grid(&r->grids[g], r->n_methods)) {
            fprintf(stderr, "%s: out of memory\n", run_dir);
            goto done;
        }
    }
    for (size_t i = 0; i < n_opt; i++) {
        int g = find_grid(r, opt[i].collective, opt[i].ppn);
        if (g < 0) {
            continue;
        }
        char label[RUN_LABEL_MAX];
        method_label(label, sizeof label, opt[i].algorithm,
                     opt[i].segment_bytes);
        int k = run_data_find_method(r, label);
        if (k < 0) {
            char ppn[32] = "";
            if (opt[i].ppn != 1) {
                snprintf(ppn, sizeof ppn, " ppn=%d", opt[i].ppn);
            }
            fprintf(stderr,
                    "%s:%zu: %s P=%d%s m=%ld: method %s is not in "
                    "measurements.csv\n",
                    opt_path, i + 2, opt[i].collective, opt[i].procs, ppn,
                    opt[i].msg_bytes, label);
            goto done;
        }
        long cell = grid_cell(&r->grids[g], opt[i].procs, opt[i].msg_bytes);
        r->grids[g].best[cell] = k;
        r->grids[g].best_us[cell] = opt[i].mean_us;
        /* table_read_optimal: reps 0 is a row an adaptive grid inferred. */
        r->grids[g].is_inferred[cell] = opt[i].reps == 0;
        r->grids[g].has_inferred |= opt[i].reps == 0;
    }
    for (size_t i = 0; i < n_meas; i++) {
        int g = find_grid(r, meas[i].collective, meas[i].ppn);
        long cell =
            g < 0 ? -1
                  : grid_cell(&r->grids[g], meas[i].procs, meas[i].msg_bytes);
        if (cell < 0) {
            continue; /* a point without an optimum: not on the map */
        }
        struct run_grid *grid = &r->grids[g];
        if (strcmp(meas[i].algorithm, STORE_DEFAULT_ALGORITHM) == 0) {
            grid->default_us[cell] = meas[i].mean_us;
            r->has_default = true;
        }
        char label[RUN_LABEL_MAX];
        method_label(label, sizeof label, meas[i].algorithm,
                     meas[i].segment_bytes);
        int k = run_data_find_method(r, label);
        grid->time_us[cell * r->n_methods + k] = meas[i].mean_us;
    }
    for (int g = 0; g < r->n_grids; g++) {
        fill_unsegmented(r, &r->grids[g]);
    }
    *out = r;
    r = NULL;
    rc = 0;
done:
    table_run_tables_free(&t);
    run_data_destroy(r);
    return rc;
}

void penalty_stats_compute(double *v, int n, int n_unrunnable,
                           struct penalty_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->n_unrunnable = n_unrunnable;
    if (n == 0) {
        return;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += v[i];
    }
    out->min = 100 * v[0];
    out->max = 100 * v[n - 1];
    out->mean = 100 * sum / n;
    out->median = 100 * (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}
