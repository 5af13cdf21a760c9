/* Shared by report/'s files: the algorithms of a collective with their
 * letter and colour, and the figures of the HTML page. */
#ifndef REPORT_INTERNAL_H
#define REPORT_INTERNAL_H

#include <stdio.h>

#include "decision/decision.h"
#include "report/report.h"

#define REPORT_MAX_ALGS 64

/* The algorithms a grid timed: those that are the optimum somewhere first
 * (they get the eight plain colours), then the others; each with a letter
 * unique within the collective, the same in every run. */
struct report_algs {
    int n;
    int n_fastest; /* the first n_fastest are the optimum somewhere */
    char name[REPORT_MAX_ALGS][STORE_METHOD_MAX];
    char letter[REPORT_MAX_ALGS];
};
void report_algs_build(const struct run_data *r, const struct run_grid *grid,
                       report_table_alg_fn table_alg, struct report_algs *a);
/* Gives each of a's algorithms its letter: the first letter of its name
 * not taken by one before it (upper case, then lower), else any free, in
 * the order of collective's table (table_alg), then the library's default,
 * then names the table lacks. */
void report_algs_letter(struct report_algs *a, const char *collective,
                        report_table_alg_fn table_alg);
/* Index of an algorithm name, or -1. */
int report_algs_find(const struct report_algs *a, const char *name);
/* The colour of algorithm i (Okabe-Ito's eight, colour-blind safe; past
 * eight they repeat, hatched), the ink readable on it, and whether it is
 * hatched. */
const char *report_alg_colour(int i);
const char *report_alg_ink(int i);
int report_alg_is_hatched(int i);
/* The algorithm index of run method k in a (its algorithm's name). */
int report_algs_of_method(const struct report_algs *a, const struct run_data *r,
                          int k);

/* A grid's name in titles and headings: its collective, with ", ppn N"
 * when the run has several ranks per node values. */
void report_grid_title(char *buf, size_t size, const struct run_data *r,
                       const struct run_grid *grid);

/* Figures of one grid, each an <svg> element written to f; id makes the
 * ids inside (patterns) unique in the page. */
void report_svg_decision_map(FILE *f, const char *id, const struct run_data *r,
                             const struct run_grid *grid,
                             const struct report_algs *a);
/* Skipped (returns 0) when no cell timed the default. */
int report_svg_speedup_map(FILE *f, const char *id, const struct run_data *r,
                           const struct run_grid *grid);
/* The method label a decision (a .dec, a library's rules) chooses at a
 * point of the grid's collective; borrowed until the next call. */
typedef const char *(*report_choose_fn)(const void *ctx, int procs,
                                        long msg_bytes);
/* The penalty of a decision's choice at every cell; *stats gets the mean
 * and max over the cells it could score. */
void report_svg_penalty_map(FILE *f, const char *id, const char *what,
                            const struct run_data *r,
                            const struct run_grid *grid,
                            report_choose_fn choose, const void *choose_ctx,
                            struct penalty_stats *stats);
/* Time against segment size of every algorithm at cell (p, m). */
void report_svg_landscape(FILE *f, const struct run_data *r,
                          const struct run_grid *grid,
                          const struct report_algs *a, int p, int m);
/* Horizontal bars: n labels with values (and a second series when
 * values2 is not NULL), title and unit on the value axis. */
void report_svg_bars(FILE *f, const char *title, const char *unit, int n,
                     const char *const *labels, const double *values,
                     const char *series1, const double *values2,
                     const char *series2);

/* RUN/predicted.csv on the run's grids: per grid, the predicted time of
 * every (cell, method), -1 where none (pred_us[g] NULL: none at all). */
struct report_predicted {
    int n_grids;
    double **pred_us;
    long n_on_grid, n_off_grid; /* rows at a point and method the run has,
                                   and the others */
};
/* *out NULL when the run has no predicted.csv; a bad row is one line
 * naming the file and line, and -1. */
int report_predicted_load(const char *run, const struct run_data *r,
                          struct report_predicted **out);
void report_predicted_destroy(struct report_predicted *p);
/* The model against the measurements of one grid (model_accuracy_add, the
 * one definition): relative error of every prediction of a measured
 * method, penalty of the method with the least predicted time at each
 * point. */
struct report_model_stats {
    long n_compared, n_points;
    double mean_err_pct, max_err_pct, mean_penalty_pct, max_penalty_pct;
};
/* -1 when out of memory. */
int report_model_stats(const struct run_data *r, const struct run_grid *grid,
                       const double *pred, struct report_model_stats *st);
void report_svg_model(FILE *f, const struct run_data *r,
                      const struct run_grid *grid, const struct report_algs *a,
                      const double *pred, const struct report_model_stats *st);

#endif
