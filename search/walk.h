/* Private to search/: a point's methods seen as one descent path per
 * algorithm, from the largest segment (unsegmented first) to the smallest. */
#ifndef SEARCH_WALK_H
#define SEARCH_WALK_H

#include "search/search.h"

#define WALK_MAX 128

struct walk {
    int alg;
    int n;
    int steps[WALK_MAX]; /* method indices, largest segment first */
};

/* Splits p's methods into one walk per algorithm; returns how many (at most
 * max_walks). */
int walk_split(const struct search_point *p, struct walk *walks, int max_walks);
/* The position of seg_bytes on w, or -1. */
int walk_find_seg(const struct search_point *p, const struct walk *w,
                  int seg_bytes);

/* A descent along one walk, one experiment at a time. */
struct descent {
    const struct walk *walk;
    int next;   /* next step to time */
    int misses; /* steps timed since the best one */
    int best;   /* method index of the best so far, or -1 */
    double best_us;
    double recent_us[3]; /* the last times, newest last */
    int n_timed;
    int n_segmented; /* timed steps with a segment size (not unsegmented) */
    int is_done;
    int is_first_timed; /* step 0 (its largest segment, or none) */
    double first_us;    /* and its time (< 0: cannot run) */
    /* Set by smgd and the surrogate: a step past the best stops the
     * descent in that direction when it rises more than
     * params->steep_rise, or, behind rival_us (> 0: the best another
     * algorithm reached at this point), when it does not fall (by more
     * than 0.1 %): lookahead carries the leader's descent over noise, and
     * a follower would need a second minimum below the leader's. And once
     * the best is bracketed (the walk toward smaller segments ended on a
     * rise past it, on a tree of depth 2 or more: is_bracketed), the walk
     * toward larger ones ends at its first rise: the pipeline model's time
     * is convex in the segment size, so lookahead on the second side would
     * look for a minimum the model does not have. Only steps that are not
     * a new best are judged, never one from or to no segmentation, and
     * none with steep_rise 0. Only descents from a neighbour's best
     * (descent_from) prune. */
    int is_pruning;
    int is_bracketed;
    double rival_us;
};

void descent_init(struct descent *d, const struct walk *w);
/* Times the next step; the descent is done at the end of the walk, after
 * more than lookahead steps past its best on which time did not fall, or
 * when the algorithm cannot run here. Returns the oracle's status. */
int descent_step(struct descent *d, const struct search_point *p,
                 const struct search_oracle *o);
/* The fastest time the descents found, or -1. */
double descent_best_us(const struct descent *d, int n);
/* Sets *best to the fastest of the descents' bests (-1 if none). */
void descent_pick(const struct descent *d, int n, int *best);

/* A local descent from a known good start (a neighbouring point's best):
 * times step `start` (unless d has timed it already, as a probe), then walks
 * toward smaller segments while time falls (lookahead steps past the best,
 * as above), and, if that found nothing better, toward larger ones. With
 * cut_us > 0 and a start slower than cut_us, it stops there, after timing
 * no segmentation (a regime of its own) unless its time at a smaller
 * message exceeds the cut; from an unsegmented start, or one of fewer than
 * four segments, it times the largest segment (from unsegmented), then
 * the first of at most a quarter of the message, and goes on only if that
 * slope, kept to the end of the walk, gets below; and not even that for a
 * tree whose start in k segments is more than 2 (k + h - 1) / k times the
 * cut (pipelining h hops divides the time by (k + h - 1) / k at best,
 * twice that with a reduction's overlap). */
int descent_from(struct descent *d, int start, double cut_us,
                 const struct search_point *p, const struct search_oracle *o);

/* Times step `at` of d's walk alone (a probe); marks the descent done. */
int descent_probe(struct descent *d, int at, const struct search_point *p,
                  const struct search_oracle *o);

#endif
