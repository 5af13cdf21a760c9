/* Application profiles (AUTOTUNE_PROFILE): what an application spent in
 * which collective, per (collective, communicator size, processes per
 * node, message bytes). libautotune writes them; the sweep, `profile` and
 * `report` read them. Never calls MPI. */
#ifndef STORE_PROFILE_H
#define STORE_PROFILE_H

#include <stdio.h>

#include "store/journal.h"

#define PROFILE_HEADER "autotune-profile 1"

/* How the ranks arrived at a point's calls (an "arrival" line after the
 * point's; runtime/profile.c says how it is measured). A call's spread is
 * its last rank's entry time minus its first's; its shape a rule on the
 * entry times (profile_shape_name's table, docs/usage.md). */
enum profile_shape {
    PROFILE_TOGETHER,   /* spread under PROFILE_TOGETHER_US */
    PROFILE_ROOT_LAST,  /* the root last, every other before half the
                           spread */
    PROFILE_ROOT_FIRST, /* the root first, every other after half of it */
    PROFILE_ONE_LATE,   /* one rank (not the root) last, the others before
                           half the spread */
    PROFILE_UNIFORM,    /* no gap between arrivals over half the spread */
    PROFILE_MIXED,      /* none of the above */
    PROFILE_N_SHAPES
};
#define PROFILE_TOGETHER_US 1.0
struct profile_arrival {
    long sampled; /* calls whose arrivals were compared; 0: no line */
    double spread_median_us, spread_p90_us;
    enum profile_shape shape; /* the most frequent among the sampled */
};

/* Calls whose offsets a point keeps as they were (its "offsets" lines),
 * on communicators of up to PROFILE_VECTOR_PROCS_MAX ranks: the pattern
 * measure.arrival = "profile" replays. */
enum { PROFILE_VECTORS_MAX = 16, PROFILE_VECTOR_PROCS_MAX = 128 };

/* The shape's name in the file ("root_last"). */
const char *profile_shape_name(enum profile_shape shape);
/* The shape of one call from each rank's arrival offset (after the first
 * rank's, so the least is 0) and the root (-1: none); spread_us = the
 * largest offset. */
enum profile_shape profile_shape_of(const double *offset_us, int n, int root);

/* One point of the application: calls are collective operations (each
 * counted once, not once per rank); seconds sums, over them, the time each
 * took averaged over the ranks of its communicator. */
struct profile_point {
    char collective[STORE_NAME_MAX];
    int procs;
    int per_node; /* most ranks of the communicator on one node */
    long msg_bytes;
    long calls;
    double seconds;
    int line; /* of the file profile_load read it from (else 0) */
    struct profile_arrival arrival;
    /* n_vectors sampled calls' arrival offsets (us after the call's first
     * arrival), procs each, listed from the root's rank (rank root + i
     * mod procs at i; from rank 0 without a root); owned. */
    int n_vectors;
    double *vectors_us;
    /* The call that most often came next on the point's communicator (a
     * "next" line; next_collective "" when none was recorded), and the
     * mean time from a rank's end of a call to its entry into the next:
     * what the application's ranks start as they leave a call. */
    char next_collective[STORE_NAME_MAX];
    long next_msg_bytes;
    double next_gap_us;
};

struct profile {
    int n_ranks; /* of the application's MPI_COMM_WORLD */
    int n_points;
    struct profile_point *points;
};

/* Reads a profile; every line is checked and an error names path:line.
 * Caller frees *out with profile_destroy. */
int profile_load(const char *path, struct profile **out);
void profile_destroy(struct profile *p);
/* Frees p's points (and their vectors), not p. */
void profile_clear(struct profile *p);
/* The text form, points in the order given. 0 or -1. */
int profile_write(FILE *f, const struct profile *p);
/* Orders the points costliest first (seconds, then calls, descending; ties
 * by collective, procs, message size ascending). */
void profile_sort_by_cost(struct profile *p);
/* Seconds of all points. */
double profile_total_seconds(const struct profile *p);

#endif
