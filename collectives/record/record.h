/* What the recording MPI (collectives/record/mpi.c) reports of a rank
 * run alone: one op per call, in program order, to a sink. No MPI types
 * here, so that the model's schedules (model/model.h) can name the ops. */
#ifndef COLLECTIVES_RECORD_RECORD_H
#define COLLECTIVES_RECORD_RECORD_H

/* One step of a rank's program. */
enum record_op {
    RECORD_ISEND,  /* post a send of bytes to peer (request req) */
    RECORD_IRECV,  /* post a receive of bytes from peer (request req) */
    RECORD_WAIT,   /* wait for request req */
    RECORD_REDUCE, /* combine bytes locally (MPI_Reduce_local) */
};

/* Where a recorded rank's calls go. add appends one op of rank and returns
 * the request number an ISEND or IRECV creates (0 for the others), -1 when
 * out of memory; cancel takes the posted receive req back out of rank's
 * program (MPI_Cancel). */
struct record_sink {
    int (*add)(void *ctx, int rank, enum record_op op, int peer, int tag,
               long bytes, int req);
    void (*cancel)(void *ctx, int rank, int req);
    void *ctx;
};

#endif
