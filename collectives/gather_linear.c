/* Linear gathers: every rank sends its block straight to the root; linear
 * lets them all come at once, linear_sync has the root invite one rank at a
 * time with a first-segment handshake. */
#include "collectives/internal.h"

#include <stdlib.h>

/* The root's own block: copied unless its sendbuf is MPI_IN_PLACE. */
int gather_copy_own(const struct coll_args *args, int rank,
                    const struct coll_layout *layout)
{
    if (args->sendbuf == MPI_IN_PLACE) {
        return MPI_SUCCESS;
    }
    char *own = (char *)args->recvbuf +
                coll_block_offset(rank, args->count, layout->extent);
    return coll_copy(args->sendbuf, own, args->count, args->dtype, args->comm,
                     COLL_TAG_GATHER);
}

/* Idea: every other rank sends its block to the root, which receives them
 * in rank order, each receive completing before the next. Rounds: P-1
 * receives at the root. Cost: (P-1) * (alpha + m*beta) for blocks of m
 * bytes. Needs: nothing. */
int gather_linear(const struct coll_args *args)
{
    struct coll_layout layout;
    int rank, size, rc = coll_begin(args, &rank, &size, &layout);
    if (rc != MPI_SUCCESS || args->count == 0) {
        return rc;
    }
    if (rank != args->root) {
        return MPI_Send(args->sendbuf, args->count, args->dtype, args->root,
                        COLL_TAG_GATHER, args->comm);
    }
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
        char *block = (char *)args->recvbuf +
                      coll_block_offset(i, args->count, layout.extent);
        rc = i == rank
                 ? gather_copy_own(args, rank, &layout)
                 : MPI_Recv(block, args->count, args->dtype, i, COLL_TAG_GATHER,
                            args->comm, MPI_STATUS_IGNORE);
    }
    return rc;
}

/* Idea (Open MPI's linear_sync): the root takes the ranks in order; for
 * each it posts the receive of the first segment (seg_bytes, whole
 * elements; 0 = the whole block), sends it an empty message as the
 * go-ahead, waits for the first segment and posts the receive of the rest
 * before inviting the next rank. A non-root waits for the go-ahead, then
 * sends its first segment and the rest. So at most one rank floods the root
 * at a time, while the rests of earlier ranks still flow. Open MPI posts
 * the rest's receive before waiting; SimGrid 3.32 deadlocks on two posted
 * receives from one peer met by a message below smpi/async-small-thresh
 * and a larger one, so here the rest's is posted once the first arrived.
 * Rounds: P-1 handshakes. Cost: (P-1) * (2*alpha + s*beta) + (P-1) *
 * (m - s) * beta at the root's link, with s the first segment and m the
 * block. Needs: nothing. */
int gather_linear_sync(const struct coll_args *args)
{
    struct coll_layout layout;
    struct coll_segs segs;
    MPI_Request *rests = NULL;
    int rank, size, rc = coll_begin(args, &rank, &size, &layout);
    if (rc != MPI_SUCCESS || args->count == 0) {
        return rc;
    }
    coll_segs_init(&segs, args->count, args->dtype, args->seg_bytes);
    int n_first = segs.seg_count, n_rest = args->count - n_first;
    MPI_Aint rest_at = (MPI_Aint)n_first * layout.extent;
    if (rank != args->root) {
        rc = MPI_Recv(NULL, 0, MPI_BYTE, args->root, COLL_TAG_GATHER,
                      args->comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Send(args->sendbuf, n_first, args->dtype, args->root,
                          COLL_TAG_GATHER, args->comm);
        }
        if (rc == MPI_SUCCESS && n_rest > 0) {
            rc = MPI_Send((const char *)args->sendbuf + rest_at, n_rest,
                          args->dtype, args->root, COLL_TAG_GATHER, args->comm);
        }
        return rc;
    }
    rests = malloc((size_t)size * sizeof *rests);
    if (!rests) {
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < size; i++) {
        rests[i] = MPI_REQUEST_NULL;
    }
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
        char *block = (char *)args->recvbuf +
                      coll_block_offset(i, args->count, layout.extent);
        MPI_Request first;
        if (i == rank) {
            continue;
        }
        rc = MPI_Irecv(block, n_first, args->dtype, i, COLL_TAG_GATHER,
                       args->comm, &first);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Send(NULL, 0, MPI_BYTE, i, COLL_TAG_GATHER, args->comm);
        }
        if (rc == MPI_SUCCESS) {
            rc = MPI_Wait(&first, MPI_STATUS_IGNORE);
        }
        if (rc == MPI_SUCCESS && n_rest > 0) {
            rc = MPI_Irecv(block + rest_at, n_rest, args->dtype, i,
                           COLL_TAG_GATHER, args->comm, &rests[i]);
        }
    }
    if (rc == MPI_SUCCESS) {
        rc = gather_copy_own(args, rank, &layout);
    }
    if (rc == MPI_SUCCESS) {
        rc = MPI_Waitall(size, rests, MPI_STATUSES_IGNORE);
    }
    free(rests);
    return rc;
}
