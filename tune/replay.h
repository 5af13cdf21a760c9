/* Offline comparison of search strategies on an exhaustive run. */
#ifndef TUNE_REPLAY_H
#define TUNE_REPLAY_H

#include <stdbool.h>

#include "search/search.h"
#include "tune/config.h"

/* --segments: the segment sizes a replay keeps (n == 0: all of the run's).
 * The run's records of a segment as large as the message are its
 * unsegmented ones, so a sub-list must hold 0 too. */
struct seg_filter {
    int n;
    int sizes[CONFIG_MAX_SEGS];
};

/* Whether the filter keeps records of seg_bytes (every size when empty). */
bool seg_filter_keeps(const struct seg_filter *f, int seg_bytes);

/* What to replay, and how. */
struct replay_request {
    const char *run;
    const char *model_path; /* NULL: RUN/model.csv, if there */
    const char *trace;      /* print this strategy's experiments, or NULL */
    bool is_misses;         /* print where a strategy missed the optimum */
    bool is_grid;           /* the adaptive grid walk instead (RUN/grid.csv) */
    double max_penalty;     /* > 0: the grid walk of the model strategy with
                               the corrected predictor (grid_options) */
    double budget;          /* > 0 with max_penalty: the walk that starts
                               from the model, measuring at most this
                               fraction of the points (grid_options) */
    double bound_tolerance; /* > 0 with is_grid: instead of walking, what
                               any walk must measure to keep every choice
                               within this fraction (search/bound.h) */
    struct search_params params;
    struct seg_filter segs;
};

/* Replays every search strategy (or, with is_grid, the adaptive grid walk)
 * on the run's journal: prints the table on stdout and writes
 * RUN/compare.csv (RUN/grid.csv). Returns 0, or 1 on a data error, said
 * on stderr. */
int replay_run(const struct replay_request *req);

#endif
