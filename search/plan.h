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
    int order[WALK_MAX]; /* walks by gap, smallest first, unknown last */
    /* A walk that was a twin of walk twin_of[i] (the same times) but long
     * ago: timed once at that one's best segment size, searched only if it
     * differs now; -1 otherwise. */
    int twin_of[WALK_MAX];
};

/* An algorithm within drop_ratio of the best at some neighbour is searched;
 * within drop_ratio^2, or last timed at a 16 times smaller message, probed;
 * farther behind (or never timed along either neighbouring line), skipped.
 * Without neighbours, everything is searched. */
void plan_make(const struct search_point *p, const struct walk *w, int n,
               struct plan *pl);

/* How a strategy searches an algorithm that no neighbour located. */
typedef int (*plan_cold_fn)(struct descent *d, const struct search_point *p,
                            const struct search_oracle *o);

/* Runs the plan, nearest algorithms first: searched algorithms descend
 * from their neighbours' best segment (or with cold when none is known);
 * probes, and with is_dropping searched algorithms too, go no further when
 * their start is drop_ratio behind the best found and the next step's slope
 * does not promise to catch up. d[i] is walk i's descent. */
int plan_run(const struct plan *pl, const struct walk *w, int n,
             const struct search_point *p, const struct search_oracle *o,
             plan_cold_fn cold, int is_dropping, struct descent *d);
/* How a strategy searches a point that has no neighbours, all descents
 * initialised. */
typedef int (*plan_scan_fn)(const struct search_point *p,
                            const struct search_oracle *o, struct descent *d,
                            int n);
/* A whole strategy: split the point into walks, plan, run (scan, when given,
 * instead where there are no neighbours), pick the fastest. */
int plan_search(const struct search_point *p, const struct search_oracle *o,
                plan_cold_fn cold, int is_dropping, plan_scan_fn scan,
                int *best);
/* Plain mgd descent of one walk to its end. */
int plan_descend(struct descent *d, const struct search_point *p,
                 const struct search_oracle *o);
#endif
