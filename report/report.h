/* Pictures of a run directory: the decision map of each collective in the
 * terminal, and one self-contained HTML report (inline SVG and CSS,
 * nothing fetched) with decision, speedup and penalty maps, segment-size
 * landscapes and the strategies' costs. Never calls MPI. */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stdio.h>

struct journal;

/* The name of a collective's algorithm at place 0, 1, ... of its fixed
 * table (collectives/table.c, `autotune --list`), NULL past the last and
 * for a collective the table lacks. report/ builds without MPI, so the
 * caller, built with the table, lends it: an algorithm's letter comes from
 * its place there, the same in every run. */
typedef const char *(*report_table_alg_fn)(const char *collective, int place);

/* A grid point whose segment-size landscape the report draws. */
struct report_point {
    int procs;
    long msg_bytes;
};

/* "P:M[,P:M...]" (M may end in K or M) into *out (caller frees); one line
 * naming the bad item on error. */
int report_parse_points(const char *text, struct report_point **out, int *n);

/* Writes the HTML report of run_dir to html_path (atomically: a failure
 * leaves no partial file). journal is the run's, which the caller loaded
 * (table_load_run_journal; NULL: the run has none). points (n_points, may
 * be 0) picks the landscapes; none: a few where the algorithms are
 * closest. */
int report_write_html(const char *run_dir, const struct journal *journal,
                      report_table_alg_fn table_alg, const char *html_path,
                      const struct report_point *points, int n_points);

/* Prints collective's decision map to out: one letter per algorithm and
 * the segment size per cell, a legend; ANSI colours when use_colour. The
 * tables are checked against journal, as for report_write_html. */
int report_print_map(const char *run_dir, const struct journal *journal,
                     report_table_alg_fn table_alg, const char *collective,
                     FILE *out, bool use_colour);

#endif
