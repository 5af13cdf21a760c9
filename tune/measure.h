/* The measurement harness: times one method at one grid point. */
#ifndef TUNE_MEASURE_H
#define TUNE_MEASURE_H

#include <mpi.h>

#include "collectives/node.h"
#include "store/journal.h"
#include "tune/config.h"

/* The method label of the library's own collective, its default decision:
 * timed at every point as the baseline, never a search candidate. */
#define MEASURE_DEFAULT_NAME STORE_DEFAULT_ALGORITHM
enum { MEASURE_DEFAULT = -1 };

struct measure_request {
    const struct coll_def *coll;
    int alg; /* a method of coll (collectives/method.h: a table
                algorithm or a node-aware method); must apply at
                this size; or MEASURE_DEFAULT: the library's
                collective as it decides */
    const struct node_comms *nodes; /* a node-aware method's communicators
                                       (made on the point's communicator) */
    int is_native;     /* time the library's algorithm of that name, forced */
    int is_clock_sync; /* measure the ranks' clock offsets first */
    long msg_bytes;
    int seg_bytes;
    int chain_fanout;
    struct config_measure params;
};

/* Collective over comm (the point's communicator) and ctl (a duplicate of
 * it for the harness's own messages): every rank calls it. Ranks are
 * numbered as in the world (their clock offsets are kept between calls).
 * Warm-up calls, then repetitions, each started on every rank at one
 * instant a window after the previous call's last rank ended (a call a rank
 * reached late is discarded and the window doubled); a repetition's time is
 * the last rank's end minus that instant. params.arrival changes how ranks
 * reach the call: an arrival shape delays each rank from that instant (the
 * time still runs from it, the first arrival); "barrier" has every rank
 * enter the library's MPI_Barrier on comm there and times, as IMB and OSU
 * do, the longest of the ranks' own times from its exit to their end.
 * Stop when the relative standard
 * error of the mean drops below params.rse (after min_reps) or at
 * max_reps. *out is filled on every rank (identical everywhere but cost_s,
 * which is comm rank 0's, clock synchronisation excluded). Fails, on every
 * rank, if the algorithm returned an error on any rank. */
int measure_run(const struct measure_request *req, MPI_Comm comm, MPI_Comm ctl,
                struct measurement *out);

/* The method's name, or MEASURE_DEFAULT_NAME for MEASURE_DEFAULT
 * (borrowed). */
const char *measure_method_name(const struct coll_def *coll, int alg);

/* 1 if the request's method can run as named on n_ranks ranks (an own
 * algorithm's needs; the library's own conditions under backend native;
 * a node-aware method's on req->nodes, only where it composes: several
 * nodes, several ranks on one). */
int measure_applies(const struct measure_request *req, int n_ranks);

/* Every rank reports to comm rank 0, which returns last: afterwards every
 * other rank is idle before rank 0 sends anything, so the next experiment
 * starts from the same state whatever ran before (exact resume under SMPI). */
int measure_settle(MPI_Comm comm);

/* Releases the buffers measure_run keeps between calls. */
void measure_free_buffers(void);

#endif
