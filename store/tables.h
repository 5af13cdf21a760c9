/* The run directory's tables (measurements.csv, optimal.csv, speedup.csv),
 * written atomically. Never calls MPI. */
#ifndef STORE_TABLES_H
#define STORE_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "store/journal.h"

/* Writes data to path atomically (temporary file, fsync, rename). */
int store_write_file(const char *path, int (*write)(FILE *, const void *),
                     const void *arg);
/* mkdir -p; then checks that the directory is writable. */
int store_make_dir(const char *path);

/* Tables. Rows are written in the order given; the caller orders them. */
int table_write_measurements(const char *path, const struct measurement *rows,
                             size_t n);
int table_write_optimal(const char *path, const struct measurement *rows,
                        size_t n);
/* optimal.csv of an adaptive grid: a last column measured, 1 for a row
 * with reps > 0, 0 for one inferred (reps 0). table_read_optimal reads
 * both forms, reps 1 or 0. */
int table_write_optimal_marked(const char *path, const struct measurement *rows,
                               size_t n);
/* An inferred point's prediction (inferred.csv): its uncertainty in log
 * time (-1: none) and what its method may lose there (a fraction;
 * INFINITY unbounded, -1 none). */
struct inferred_info {
    double uncertainty, penalty;
};
/* inferred.csv of an adaptive grid walked with predictions: every row of
 * rows inferred (reps 0), with info[i] (one per row of rows). */
int table_write_inferred(const char *path, const struct measurement *rows,
                         const struct inferred_info *info, size_t n);
/* A row's point and method columns (collective, procs, ppn, msg_bytes,
 * algorithm, segment_bytes), no separator after: every table's first six. */
void table_print_point(FILE *f, const struct measurement *m);
/* optimal.csv's text, to f. */
int table_print_optimal(FILE *f, const struct measurement *rows, size_t n);
/* Reads an optimal.csv into *rows (caller-frees with free). */
int table_read_optimal(const char *path, struct measurement **rows, size_t *n);
/* The library's default (a default/0 measurement) takes a point from the
 * tuned optimum when it was measured faster there: optimal.csv names the
 * fastest method measured, the library's own decision included. */
bool table_is_default_faster(const struct measurement *optimum,
                             const struct measurement *library);
/* Applies that rule to every row of opt whose point has a default/0 row in
 * meas (tables written before the rule, or by another tool); the number
 * of rows changed. */
size_t table_prefer_default(struct measurement *opt, size_t n_opt,
                            const struct measurement *meas, size_t n_meas);
/* Fails with one line naming the first row of table_path (rows, read from
 * a run's tables) whose time differs from journal j's record of that
 * method: tables older than the journal. 0 when they agree or j is NULL
 * (no journal to hold them to). store/run_tables.c, not in libautotune. */
int table_check_rows(const struct journal *j, const char *table_path,
                     const struct measurement *rows, size_t n);
/* One table of a run, for table_check_journal. */
struct table_rows {
    const char *path;
    const struct measurement *rows;
    size_t n;
};
/* RUN's journal, loaded once per offline command and passed to whatever
 * checks the run's tables against it or reads it, so that each damaged
 * line is reported once. 0 with *out NULL when the run has none; -1 with
 * *out NULL when it cannot be read (said on stderr; a command that needs
 * only the check may go on, after table_note_unchecked). Caller closes. */
int table_load_run_journal(const char *run, struct journal **out);
/* For a command that goes on when table_load_run_journal failed: says the
 * run's tables are not checked. */
void table_note_unchecked(const char *run);
/* table_check_rows of each table, in order, against j (NULL: none). */
int table_check_journal(const struct journal *j,
                        const struct table_rows *tables, int n_tables);
/* The optimal row of a point a search completed (a point record of j):
 * the chosen method's record, or the library default's where that was
 * measured faster. -1 when the point has none (nothing could run there).
 * The sweep's tables and the offline commands' reading of an unfinished
 * run both take a point's optimum from here. */
int table_point_optimum(const struct journal *j, const struct point_result *p,
                        struct measurement *out);
/* A run directory's tables as the offline commands read them: optimal.csv
 * and measurements.csv when the sweep wrote them (checked against journal,
 * as table_check_journal does); when it has not (interrupted: no
 * optimal.csv yet), the points its journal says are done, built as the
 * sweep builds them, with one line on stderr saying how many of the grid's
 * points are done; in a directory holding only the model's predictions
 * (predicted.csv, `autotune predict -o`), those, every row reps 0. Tables
 * of predictions are is_predicted and said so on stderr, as are the
 * optimal.csv and measurements.csv an older `predict -o` wrote (every
 * measurement reps 0, no journal). command names the caller in those
 * lines (NULL: none). Free with table_run_tables_free. */
struct run_tables {
    struct measurement *optimal, *measured;
    size_t n_optimal, n_measured;
    bool has_measured; /* a measurements table, or the journal's records */
    bool is_partial;   /* from the journal of an unfinished sweep */
    bool is_predicted; /* the model's times, nothing measured */
    /* the file each table was read from (a journal, predicted.csv) */
    char optimal_path[4096], measured_path[4096];
    bool is_lined; /* optimal[i] is line i + 2 of optimal_path (a table) */
};
int table_read_run_tables(const char *run, const struct journal *journal,
                          const char *command, struct run_tables *out);
void table_run_tables_free(struct run_tables *t);
/* Reads a predicted.csv (`autotune predict`) as measurements of reps 0,
 * every time the predicted one. */
int table_read_predicted(const char *path, struct measurement **rows,
                         size_t *n);

/* Reads RUN/optimal.csv for the offline command `command` (with the rule
 * above applied from RUN/measurements.csv when it is there), both checked
 * against journal (table_load_run_journal's); when the run has none yet,
 * says so once and that the sweep must finish first
 * (store/run_tables.c). */
int table_read_run_optimal(const char *run, const struct journal *journal,
                           const char *command, struct measurement **rows,
                           size_t *n);
/* Both, for a command that reads the journal too (its records, its
 * settings): fails, saying so, when the run has none. Caller closes
 * *journal and frees *rows, also on failure. */
int table_read_run_and_journal(const char *run, const char *command,
                               struct journal **journal,
                               struct measurement **rows, size_t *n);
/* Reads a measurements.csv the same way (every row applicable). */
int table_read_measurements(const char *path, struct measurement **rows,
                            size_t *n);

/* One row of speedup.csv: a point's tuned choice against the default. */
struct speedup_row {
    char collective[STORE_NAME_MAX];
    int procs, ppn;
    long msg_bytes;
    char algorithm[STORE_METHOD_MAX];
    int segment_bytes;
    double time_us, default_us, speedup; /* speedup = default_us / time_us */
};

/* A row for every optimal row whose point has a default record in j, in the
 * optimal rows' order; *rows is caller-frees (NULL when *n is 0). */
int speedup_rows_build(const struct journal *j, const struct measurement *opt,
                       size_t n_opt, struct speedup_row **rows, size_t *n);
int table_write_speedup(const char *path, const struct speedup_row *rows,
                        size_t n);
/* Median and maximum speedup of the rows of one collective (NULL: all). */
struct speedup_summary {
    size_t points, default_faster;
    double median, max, min;
};
void speedup_summarise(const struct speedup_row *rows, size_t n,
                       const char *collective, struct speedup_summary *out);

#endif
