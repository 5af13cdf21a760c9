/* Private to search/: what the neighbouring points say about each algorithm
 * at this point, and so how much of it to search. */
#ifndef SEARCH_PLAN_H
#define SEARCH_PLAN_H

#include "search/walk.h"

enum plan_mode {
    PLAN_SEARCH, /* descend its segment sizes */
    PLAN_PROBE,  /* time its neighbours' best segment size once */
    PLAN_SKIP    /* far behind at every neighbour: not timed */
};

struct plan {
    int has_neighbours;
    enum plan_mode mode[WALK_MAX];
    /* Its best at a neighbour over that neighbour's best (the smallest over
     * the neighbours), 0 when no neighbour timed it. */
    double gap[WALK_MAX];
    int start[WALK_MAX]; /* position on its walk of its best segment size at
                            a neighbour (previous message size first), or -1 */
    /* 0: the neighbours timed it at one segment size alone (a probe), so
     * start tells nothing; it starts where the leader here is best. */
    int is_located[WALK_MAX];
    int order[WALK_MAX]; /* walks by gap, smallest first, unknown last */
    /* A walk that was a twin of walk twin_of[i] (the same times) but long
     * ago: timed once at that one's best segment size, searched only if it
     * differs now; -1 otherwise. */
    int twin_of[WALK_MAX];
};

/* An algorithm within drop_ratio of the best at some neighbour is searched;
 * within drop_ratio^2, or below 256 KiB not timed at this procs since a 4
 * times smaller message, probed; farther behind (or never timed along
 * either neighbouring line), skipped; twins of one searched before it,
 * skipped. Without neighbours, everything is searched. */
void plan_make(const struct search_point *p, const struct walk *w, int n,
               struct plan *pl);

/* The algorithm's best over the best at the neighbours (the smallest over
 * the two lines, each at the latest size where it was timed); 0 when no
 * neighbour timed it. */
double plan_gap(const struct search_point *p, int alg);

/* How a strategy searches an algorithm: from position start on its walk
 * (a neighbour's best; -1 when no neighbour located it), going no further
 * than a first time above cut_us when cut_us > 0 (see descent_from). */
typedef int (*plan_walk_fn)(struct descent *d, int start, double cut_us,
                            const struct search_point *p,
                            const struct search_oracle *o);

/* Runs the plan, nearest algorithms first: searched algorithms go through
 * walk; probes descend from their neighbours' best segment; probes go no
 * further when their start is drop_ratio behind the best found, and with
 * is_dropping searched algorithms neither when sqrt(drop_ratio) behind
 * (unless an unsegmented start's slope promises to catch up), and stop
 * at their first rise while behind the best found (descent.rival_us).
 * d[i] is walk i's descent. */
int plan_run(const struct plan *pl, const struct walk *w, int n,
             const struct search_point *p, const struct search_oracle *o,
             plan_walk_fn walk, int is_dropping, struct descent *d);
/* How a strategy searches a point that has no neighbours, all descents
 * initialised. */
typedef int (*plan_scan_fn)(const struct search_point *p,
                            const struct search_oracle *o, struct descent *d,
                            int n);
/* A whole strategy: split the point into walks, plan, run (scan, when given,
 * instead where there are no neighbours), pick the fastest. */
int plan_search(const struct search_point *p, const struct search_oracle *o,
                plan_walk_fn walk, int is_dropping, plan_scan_fn scan,
                int *best);
/* Plain mgd descent of one walk to its end. */
int plan_descend(struct descent *d, const struct search_point *p,
                 const struct search_oracle *o);
/* mgd's and smgd's plan_walk_fn: descent_from the start, or plan_descend
 * without one. */
int plan_walk(struct descent *d, int start, double cut_us,
              const struct search_point *p, const struct search_oracle *o);
#endif
