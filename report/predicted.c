/* The model's accuracy, when the run has RUN/predicted.csv: every
 * predicted time beside the measured one (a scatter per collective), the
 * relative error, and the penalty of the method the model would pick. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "report/internal.h"
#include "report/svg.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "util/tuning.h"

void report_predicted_destroy(struct report_predicted *p)
{
    if (!p) {
        return;
    }
    for (int g = 0; g < p->n_grids; g++) {
        free(p->pred_us[g]);
    }
    free(p->pred_us);
    free(p);
}

/* The cell of (procs, msg_bytes) in grid, or -1. */
static long find_cell(const struct run_grid *grid, int procs, long msg_bytes)
{
    for (int p = 0; p < grid->n_procs; p++) {
        for (int m = 0; grid->procs[p] == procs && m < grid->n_msgs; m++) {
            if (grid->msgs[m] == msg_bytes) {
                return (long)p * grid->n_msgs + m;
            }
        }
    }
    return -1;
}

static int store_row(struct report_predicted *p, const struct run_data *r,
                     const char *coll, int procs, int ppn, long msg,
                     const char *alg, int seg, double us)
{
    char label[RUN_LABEL_MAX];
    snprintf(label, sizeof label, "%s/%d", alg, seg);
    int k = run_data_find_method(r, label);
    for (int g = 0; g < r->n_grids && k >= 0; g++) {
        const struct run_grid *grid = &r->grids[g];
        long cell = strcmp(grid->name, coll) == 0 && grid->ppn == ppn
                        ? find_cell(grid, procs, msg)
                        : -1;
        if (cell < 0) {
            continue;
        }
        if (!p->pred_us[g]) {
            size_t n = (size_t)grid->n_procs * grid->n_msgs * r->n_methods;
            p->pred_us[g] = malloc(n * sizeof(double));
            if (!p->pred_us[g]) {
                return -1;
            }
            for (size_t i = 0; i < n; i++) {
                p->pred_us[g][i] = -1;
            }
        }
        p->pred_us[g][cell * r->n_methods + k] = us;
        p->n_on_grid++;
        return 0;
    }
    p->n_off_grid++;
    return 0;
}

int report_predicted_load(const char *run, const struct run_data *r,
                          struct report_predicted **out)
{
    char path[4096];
    struct measurement *rows = NULL;
    size_t n = 0;
    *out = NULL;
    if (rundir_path(path, sizeof path, run, "predicted.csv") != 0) {
        return -1;
    }
    if (access(path, F_OK) != 0) {
        return errno == ENOENT ? 0 : (perror(path), -1);
    }
    if (table_read_predicted(path, &rows, &n) != 0) {
        return -1;
    }
    struct report_predicted *p = calloc(1, sizeof *p);
    int rc = 0;
    if (!p || !(p->pred_us = calloc((size_t)r->n_grids, sizeof(double *)))) {
        fprintf(stderr, "%s: out of memory\n", path);
        rc = -1;
    } else {
        p->n_grids = r->n_grids;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct measurement *m = &rows[i];
        if (store_row(p, r, m->collective, m->procs, m->ppn, m->msg_bytes,
                      m->algorithm, m->segment_bytes, m->mean_us) != 0) {
            fprintf(stderr, "%s: out of memory\n", path);
            rc = -1;
        }
    }
    free(rows);
    if (rc != 0) {
        report_predicted_destroy(p);
        return -1;
    }
    *out = p;
    return 0;
}

int report_model_stats(const struct run_data *r, const struct run_grid *grid,
                       const double *pred, struct report_model_stats *st)
{
    long cells = (long)grid->n_procs * grid->n_msgs;
    struct model_accuracy acc = {0};
    int rc = 0;
    for (long c = 0; c < cells && rc == 0; c++) {
        rc = model_accuracy_add(&acc, grid->time_us + c * r->n_methods,
                                pred + c * r->n_methods, r->n_methods,
                                grid->best[c] >= 0 ? grid->best_us[c] : -1);
    }
    st->n_compared = acc.n_compared;
    st->n_points = acc.n_points;
    st->mean_err_pct =
        acc.n_compared ? 100 * acc.err_sum / (double)acc.n_compared : 0;
    st->max_err_pct = 100 * acc.max_err;
    st->mean_penalty_pct =
        acc.n_points ? 100 * acc.penalty_sum / (double)acc.n_points : 0;
    st->max_penalty_pct = 100 * acc.max_penalty;
    model_accuracy_clear(&acc);
    return rc;
}

#define SCATTER_PX 420.0

void report_svg_model(FILE *f, const struct run_data *r,
                      const struct run_grid *grid, const struct report_algs *a,
                      const double *pred, const struct report_model_stats *st)
{
    long cells = (long)grid->n_procs * grid->n_msgs;
    double lo = HUGE_VAL, hi = 0;
    char title[200], label[32], name[RUN_NAME_MAX + 32];
    for (long i = 0; i < cells * r->n_methods; i++) {
        if (pred[i] > 0 && grid->time_us[i] > 0) {
            lo = fmin(lo, fmin(pred[i], grid->time_us[i]));
            hi = fmax(hi, fmax(pred[i], grid->time_us[i]));
        }
    }
    if (hi <= 0) {
        return;
    }
    lo /= 1.2;
    hi *= 1.2;
    double x0 = 80, y0 = 40;
    struct svg_axis xa = {lo, hi, x0, x0 + SCATTER_PX, true};
    struct svg_axis ya = {lo, hi, y0 + SCATTER_PX, y0, true};
    report_grid_title(name, sizeof name, r, grid);
    snprintf(title, sizeof title,
             "%s: predicted against measured time (%ld methods; error mean "
             "%.1f %%, max %.1f %%)",
             name, st->n_compared, st->mean_err_pct, st->max_err_pct);
    svg_begin(f, x0 + SCATTER_PX + 240, y0 + SCATTER_PX + 60, title);
    svg_text(f, 10, 24, "start", 15, "#000000", 0, title);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"none\" stroke=\"#333333\"/>\n",
            x0, y0, SCATTER_PX, SCATTER_PX);
    for (double v = pow(10, ceil(log10(lo))); v <= hi; v *= 10) {
        double x = svg_axis_px(&xa, v), y = svg_axis_px(&ya, v);
        svg_format_us(label, sizeof label, v);
        svg_line(f, x, y0, x, y0 + SCATTER_PX, "#dddddd", 1);
        svg_line(f, x0, y, x0 + SCATTER_PX, y, "#dddddd", 1);
        svg_text(f, x, y0 + SCATTER_PX + 16, "middle", 11, "#000000", 0, label);
        svg_text(f, x0 - 6, y + 4, "end", 11, "#000000", 0, label);
    }
    svg_line(f, svg_axis_px(&xa, lo), svg_axis_px(&ya, lo),
             svg_axis_px(&xa, hi), svg_axis_px(&ya, hi), "#888888", 1);
    for (long i = 0; i < cells * r->n_methods; i++) {
        if (pred[i] > 0 && grid->time_us[i] > 0) {
            int alg =
                report_algs_find(a, r->methods[i % r->n_methods].algorithm);
            svg_circle(f, svg_axis_px(&xa, grid->time_us[i]),
                       svg_axis_px(&ya, pred[i]), 2.5,
                       report_alg_colour(alg < 0 ? 0 : alg));
        }
    }
    svg_text(f, x0 + SCATTER_PX / 2, y0 + SCATTER_PX + 40, "middle", 12,
             "#000000", 0, "measured time (log scale)");
    svg_text(f, 22, y0 + SCATTER_PX / 2, "middle", 12, "#000000", -90,
             "predicted time (log scale)");
    double x = x0 + SCATTER_PX + 20, y = y0;
    for (int i = 0; i < a->n; i++, y += 20) {
        snprintf(label, sizeof label, "%c  %s", a->letter[i], a->name[i]);
        svg_circle(f, x + 6, y + 8, 4, report_alg_colour(i));
        svg_text(f, x + 18, y + 12, "start", 11, "#000000", 0, label);
    }
    svg_text(f, x, y + 14, "start", 11, "#000000", 0,
             "grey line: predicted = measured");
    svg_end(f);
}
