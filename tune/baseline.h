/* The MPI library's own algorithms in a sweep: its default decision, timed
 * at every point as the baseline (method default/0), and the checks of the
 * native backend. `autotune report` summarises the baseline offline. */
#ifndef TUNE_BASELINE_H
#define TUNE_BASELINE_H

#include "search/search.h"
#include "store/journal.h"
#include "tune/config.h"

struct baseline_counts {
    long measured, reused; /* default/0 experiments run, taken from journal */
};

/* Journal setting "default": what the default decision depends on (the
 * SMPI coll-selector; Open MPI's components and rules), when timed. */
void baseline_add_setting(const struct config *c,
                          struct journal_settings *settings);
/* Rank 0, before anything is written: backend native can force every
 * configured collective's algorithms here, or one line says why not. */
int baseline_check_backend(const struct config *c);
/* Times the default at the point through the sweep's oracle (journaled,
 * resumed like any method), after the search: the search never sees it. */
int baseline_measure(const struct search_point *point,
                     const struct search_oracle *oracle);
/* speedup.csv from the optimal rows and the journal's default records; no
 * file when nothing has a default record. */
int baseline_write_speedup(const struct journal *j, const char *path,
                           const struct measurement *optimal, size_t n);
/* The sweep's closing line: median and maximum speedup over the default. */
void baseline_print_summary(const struct journal *j,
                            const struct baseline_counts *counts,
                            const struct measurement *optimal, size_t n);
/* A setting of the journal's header, or "?" where it has none. */
const char *baseline_setting(const struct journal *j, const char *key);

#endif
