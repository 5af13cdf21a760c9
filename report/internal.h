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
 * unique within the grid. */
struct report_algs {
    int n;
    char name[REPORT_MAX_ALGS][RUN_NAME_MAX];
    char letter[REPORT_MAX_ALGS];
};
void report_algs_build(const struct run_data *r, const struct run_grid *grid,
                       struct report_algs *a);
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

/* Figures of one grid, each an <svg> element written to f; id makes the
 * ids inside (patterns) unique in the page. */
void report_svg_decision_map(FILE *f, const char *id, const struct run_data *r,
                             const struct run_grid *grid,
                             const struct report_algs *a);
/* Skipped (returns 0) when no cell timed the default. */
int report_svg_speedup_map(FILE *f, const char *id, const struct run_data *r,
                           const struct run_grid *grid);
/* The penalty of decision d (collective dc) at every cell; *stats gets
 * the mean and max over the cells it could score. */
void report_svg_penalty_map(FILE *f, const char *id, const char *what,
                            const struct run_data *r,
                            const struct run_grid *grid,
                            const struct decision *d, int dc,
                            struct penalty_stats *stats);
/* Time against segment size of every algorithm at cell (p, m). */
void report_svg_landscape(FILE *f, const char *id, const struct run_data *r,
                          const struct run_grid *grid,
                          const struct report_algs *a, int p, int m);
/* Horizontal bars: n labels with values (and a second series when
 * values2 is not NULL), title and unit on the value axis. */
void report_svg_bars(FILE *f, const char *title, const char *unit, int n,
                     const char *const *labels, const double *values,
                     const char *series1, const double *values2,
                     const char *series2);

#endif
