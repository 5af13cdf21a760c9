/* The exact table's cuts between measured sizes (between_table_cuts):
 * per optimal-table row the cut below it at its procs and between its
 * procs and the next smaller measured ones, and the inserts of third
 * methods between two sizes (what the exports and the .dec write). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/between.h"
#include "store/export.h"
#include "store/journal.h"
#include "util/grow.h"

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
            if (strcmp(grid->name, rows[i].collective) != 0 ||
                grid->ppn != rows[i].ppn) {
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
    char label[RUN_LABEL_MAX];
    method_label(label, sizeof label, row->algorithm, row->segment_bytes);
    return run_data_find_method(r, label);
}

/* The row of the nearest smaller index than k on axis (0: procs, 1:
 * messages) with j on the other, in row_at (grid g's cells); -1 if none. */
static long row_below(const struct run_grid *grid, const long *row_at, int axis,
                      int k, int j)
{
    while (--k >= 0) {
        long at = row_at[between_cell_at(grid, axis, k, j)];
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
    return n > 0 && between_procs_cut_moves(grid->procs[p_lo])
               ? between_cut(grid->procs[p_lo], grid->procs[p], n, diff)
               : grid->procs[p_lo];
}

struct insert_list {
    struct export_insert *v;
    size_t n, cap;
};

/* Adds an insert of method k for the sizes in (from, to] at row i's
 * procs, below row i (or past it, the largest: above is i all the same). */
static int add_insert(struct insert_list *inserts, const struct run_data *r,
                      const struct measurement *row, size_t i, int k, long from,
                      long to)
{
    struct export_insert *grown =
        grow(inserts->v, &inserts->cap, inserts->n + 1, sizeof *grown, 16);
    if (!grown) {
        return -1;
    }
    inserts->v = grown;
    struct export_insert *in = &inserts->v[inserts->n++];
    memset(in, 0, sizeof *in);
    in->m = *row;
    snprintf(in->m.algorithm, sizeof in->m.algorithm, "%s",
             r->methods[k].algorithm);
    in->m.segment_bytes = r->methods[k].segment_bytes;
    in->m.msg_bytes = to;
    in->m.reps = 0;
    in->m.mean_us = -1;
    in->cut_below = from;
    in->above = i;
    return 0;
}

/* The message cut below row i (cell c of grid, its row below at cell
 * c_below): between_cut of the two rows' methods, or, where a third
 * method is the fastest between them (and inserts is not NULL), the start
 * of row i's method after the third's pieces, added to inserts. */
static int msg_cut(const struct run_data *r, const struct run_grid *grid,
                   const struct measurement *rows, size_t below, size_t i,
                   long c_below, long c, struct insert_list *inserts, long *cut)
{
    int lo = row_method(r, &rows[below]), hi = row_method(r, &rows[i]);
    struct between_piece p[BETWEEN_MAX_PIECES];
    int n_p = inserts && lo >= 0 && hi >= 0
                  ? between_envelope(r, grid, c_below, c, lo, hi, p)
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
        if (add_insert(inserts, r, &rows[i], i, p[t].k, p[t].from, p[t].to) !=
            0) {
            return -1;
        }
    }
    return 0;
}

enum { MAX_BEYOND = 64, BEYOND_MAX = 16 };
#define BEYOND_BYTES (64.0 * 1024 * 1024)

/* Past cell c of grid, the largest training size at its procs (c_below
 * the training size below it, -1: none): one training step beyond it (the
 * factor from the size below; 16 without one; at most BEYOND_MAX, and
 * BEYOND_BYTES over its procs) into *to, and the corrected model's curve
 * (between_model_beyond) of method own and of each method that may
 * overtake it by then (ks, curves: room for MAX_BEYOND); their count, 0
 * without a model or where it cannot price own. */
static int beyond_curves(const struct run_data *r, const struct run_grid *grid,
                         long c, long c_below, int own, long *to, int *ks,
                         struct between_curve *curves)
{
    long m = grid->msgs[c % grid->n_msgs];
    long below = c_below >= 0 ? grid->msgs[c_below % grid->n_msgs] : 0;
    double factor = below > 0 ? (double)m / (double)below : 16;
    factor = factor < 2 ? 2 : factor > BEYOND_MAX ? BEYOND_MAX : factor;
    /* the model replays the whole message on every rank: at most
     * BEYOND_BYTES over the communicator (with 256 MiB, the wide Grig
     * run's held-out bcast took 394 s, against 57 s without replays past
     * the largest size; with 64 MiB 70 s; the default runs' 1 MiB at 32
     * ranks stays within it) */
    double most = (double)BEYOND_BYTES / grid->procs[c / grid->n_msgs];
    factor = (double)m * factor > most ? most / (double)m : factor;
    if (!r->model || m < 1 || factor < 2 || own < 0) {
        return 0;
    }
    *to = (long)((double)m * factor);
    int n = 0;
    const double *t_us = grid->time_us + c * r->n_methods;
    for (int k = 0; k < r->n_methods && n < MAX_BEYOND; k++) {
        long seg = r->methods[k].segment_bytes;
        /* a time grows at most in proportion to the size (a latency plus
         * a bandwidth term): a method more than `factor` times slower
         * than own at its size cannot overtake it by `to` */
        if ((k != own && !(t_us[k] > 0 && t_us[k] < factor * t_us[own])) ||
            (seg > 0 && seg >= m) ||
            between_model_beyond(r, grid, c_below, c, *to, k, &curves[n]) ==
                0) {
            if (k == own) {
                return 0; /* nothing to compare it with */
            }
            continue;
        }
        ks[n++] = k;
    }
    return n;
}

int between_beyond_times(const struct run_data *r, int g, long c, long c_below,
                         int own, int n_sizes, long *sizes, double *times)
{
    const struct run_grid *grid = &r->grids[g];
    int ks[MAX_BEYOND];
    long to = 0, m = grid->msgs[c % grid->n_msgs];
    struct between_curve curves[MAX_BEYOND];
    int n = beyond_curves(r, grid, c, c_below, own, &to, ks, curves);
    if (n == 0 || n_sizes < 1) {
        return 0;
    }
    for (int i = 0; i < n_sizes; i++) {
        double s = (double)(i + 1) / n_sizes;
        sizes[i] = between_value_at(m, to, s);
        double *row = times + (size_t)i * r->n_methods;
        for (int k = 0; k < r->n_methods; k++) {
            row[k] = -1;
        }
        for (int t = 0; t < n; t++) {
            row[ks[t]] = exp(between_curve_at(&curves[t], s));
        }
    }
    return n_sizes;
}

/* Past row i, the largest training size at its procs (cell c, the row
 * below it at cell c_below, -1: none): where the corrected model says
 * another method is the fastest, up to one training step beyond it
 * (beyond_curves), its pieces as inserts; the last piece holds beyond.
 * Without a model, or where it cannot price row i's method, nothing: row
 * i's method holds beyond, as before. */
static int beyond_last(const struct run_data *r, const struct run_grid *grid,
                       const struct measurement *rows, size_t i, long c,
                       long c_below, struct insert_list *inserts)
{
    long m = rows[i].msg_bytes, to = 0;
    int own = row_method(r, &rows[i]), ks[MAX_BEYOND];
    struct between_curve curves[MAX_BEYOND];
    int n = beyond_curves(r, grid, c, c_below, own, &to, ks, curves);
    if (n == 0) {
        return 0;
    }
    /* the fastest at each sample (row i's own on ties); a piece of
     * method k covers (from, to] */
    int k_prev = own;
    long from = m;
    for (int j = 0; j <= BETWEEN_N_SAMPLES; j++) {
        double s = (double)j / BETWEEN_N_SAMPLES, y_best = INFINITY;
        int best = own;
        for (int t = 0; t < n; t++) {
            double y = between_curve_at(&curves[t], s);
            if (y < y_best || (y == y_best && ks[t] == own)) {
                y_best = y;
                best = ks[t];
            }
        }
        bool is_end = j == BETWEEN_N_SAMPLES;
        if (best == k_prev && !is_end) {
            continue;
        }
        long at = best == k_prev
                      ? to
                      : between_value_at(m, to, (j - 0.5) / BETWEEN_N_SAMPLES);
        if (at > from && (k_prev != own || from > m) &&
            add_insert(inserts, r, &rows[i], i, k_prev, from, at) != 0) {
            return -1;
        }
        from = at > from ? at : from;
        if (is_end && best != k_prev && to > from &&
            add_insert(inserts, r, &rows[i], i, best, from, to) != 0) {
            return -1;
        }
        k_prev = best;
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
        int above = m + 1;
        while (above < grid->n_msgs &&
               grid_rows[between_cell_at(grid, 1, above, p)] < 0) {
            above++;
        }
        if (inserts && above == grid->n_msgs &&
            beyond_last(r, grid, rows, i, cells[i],
                        below >= 0 ? cells[below] : -1, &added) != 0) {
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
