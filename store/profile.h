/* Application profiles (AUTOTUNE_PROFILE): what an application spent in
 * which collective, per (collective, communicator size, processes per
 * node, message bytes). libautotune writes them; the sweep, `profile` and
 * `report` read them. Never calls MPI. */
#ifndef STORE_PROFILE_H
#define STORE_PROFILE_H

#include <stdio.h>

#include "store/journal.h"

#define PROFILE_HEADER "autotune-profile 1"

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
/* The text form, points in the order given. 0 or -1. */
int profile_write(FILE *f, const struct profile *p);
/* Orders the points costliest first (seconds, then calls, descending; ties
 * by collective, procs, message size ascending). */
void profile_sort_by_cost(struct profile *p);
/* Seconds of all points. */
double profile_total_seconds(const struct profile *p);

#endif
