/* Progress of a sweep on stderr: points done / total, the current point and
 * its experiments, elapsed and estimated time left; throttled. */
#ifndef TUNE_PROGRESS_H
#define TUNE_PROGRESS_H

#include <stddef.h>

#include "tune/config.h"

/* What points (or experiments) cost, per (procs, ranks per node, message
 * size), and a prediction for one not seen yet (see
 * progress_costs_predict). */
struct progress_costs;

/* NULL if out of memory; free with progress_costs_destroy. */
struct progress_costs *progress_costs_create(void);
void progress_costs_destroy(struct progress_costs *costs);
/* One more observation of seconds at (procs, ppn, msg_bytes). */
int progress_costs_add(struct progress_costs *costs, int procs, int ppn,
                       long msg_bytes, double seconds);
/* The mean observed at (procs, ppn, msg_bytes), else the nearest
 * observation scaled to it; -1 when nothing was observed. */
double progress_costs_predict(const struct progress_costs *costs, int procs,
                              int ppn, long msg_bytes);

struct progress_point {
    const char *collective; /* borrowed from the config */
    int procs;
    int ppn; /* ranks per node */
    long msg_bytes;
};

struct progress {
    double start_s, last_print_s, interval_s;
    long total, done;
    /* grid = "adaptive": the walk chooses its points, so total is only
     * the most it may measure and there is no estimate of the time left */
    int is_adaptive;
    /* the grid in walk order, and what its points cost; NULL with an
     * adaptive grid */
    struct progress_point *points;
    struct progress_point current;
    struct progress_costs *costs; /* wall seconds of measured points */
    /* the current point's start (0 between points) and experiments */
    double point_start_s;
    int point_experiments;
    int is_tty;
};

/* Starts the clock for the grid of c, walked in grid.h's order. */
void progress_start(struct progress *p, const struct config *c);
/* The next point of the walk, at, begins. */
void progress_point_start(struct progress *p, struct progress_point at);
/* The current point starts a new experiment (p may be NULL). */
void progress_experiment(struct progress *p, const char *algorithm,
                         int seg_bytes);
/* The current point is done; was_measured: it ran experiments (not all of
 * its results came from the journal). */
void progress_point_done(struct progress *p, int was_measured);
/* Ends the last line and frees what progress_start took. */
void progress_finish(struct progress *p);
/* s seconds as M:SS or H:MM:SS into buf. */
void progress_format_duration(char *buf, size_t size, double s);
/* Seconds between two progress lines: 0.25 on a terminal, else 10;
 * AUTOTUNE_PROGRESS_INTERVAL (seconds) overrides them. */
double progress_print_interval(int is_tty);
/* Wall-clock seconds (real time, also under SMPI). */
double progress_now(void);

#endif
