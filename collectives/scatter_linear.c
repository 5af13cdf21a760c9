/* Linear scatters: the root sends every other rank its block directly;
 * linear with blocking sends in rank order, linear_nb with all sends posted
 * at once. */
#include "collectives/internal.h"

#include <stdlib.h>

/* The root's own block: copied unless its recvbuf is MPI_IN_PLACE. */
int scatter_copy_own(const struct coll_args *args, int rank,
                     const struct coll_layout *layout)
{
    if (args->recvbuf == MPI_IN_PLACE) {
        return MPI_SUCCESS;
    }
    const char *own = (const char *)args->sendbuf +
                      coll_block_offset(rank, args->count, layout->extent);
    return coll_copy(own, args->recvbuf, args->count, args->dtype, args->comm,
                     COLL_TAG_SCATTER);
}

/* Idea: the root sends block i to rank i for i = 0, 1, ..., P-1 in turn,
 * each send completing before the next starts; the others receive once.
 * Rounds: P-1 sends at the root. Cost: (P-1) * (alpha + m*beta) for blocks
 * of m bytes. Needs: nothing. */
int scatter_linear(const struct coll_args *args)
{
    struct coll_layout layout;
    int rank, size, rc = coll_begin(args, &rank, &size, &layout);
    if (rc != MPI_SUCCESS || args->count == 0) {
        return rc;
    }
    if (rank != args->root) {
        return MPI_Recv(args->recvbuf, args->count, args->dtype, args->root,
                        COLL_TAG_SCATTER, args->comm, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
        const char *block = (const char *)args->sendbuf +
                            coll_block_offset(i, args->count, layout.extent);
        rc = i == rank ? scatter_copy_own(args, rank, &layout)
                       : MPI_Send(block, args->count, args->dtype, i,
                                  COLL_TAG_SCATTER, args->comm);
    }
    return rc;
}

/* Idea: the root posts all P-1 sends at once and copies its own block while
 * they progress, then waits for all. Rounds: 1. Cost: (P-1) * (alpha +
 * m*beta) at the root's link, but the sends overlap in the network and with
 * the copy. Needs: nothing. */
int scatter_linear_nb(const struct coll_args *args)
{
    struct coll_layout layout;
    MPI_Request *reqs = NULL;
    int rank, size, n_reqs = 0, rc = coll_begin(args, &rank, &size, &layout);
    if (rc != MPI_SUCCESS || args->count == 0) {
        return rc;
    }
    if (rank != args->root) {
        return MPI_Recv(args->recvbuf, args->count, args->dtype, args->root,
                        COLL_TAG_SCATTER, args->comm, MPI_STATUS_IGNORE);
    }
    reqs = malloc((size_t)size * sizeof *reqs);
    if (!reqs) {
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
        const char *block = (const char *)args->sendbuf +
                            coll_block_offset(i, args->count, layout.extent);
        if (i != rank) {
            rc = MPI_Isend(block, args->count, args->dtype, i, COLL_TAG_SCATTER,
                           args->comm, &reqs[n_reqs++]);
        }
    }
    if (rc == MPI_SUCCESS) {
        rc = scatter_copy_own(args, rank, &layout);
    }
    if (rc == MPI_SUCCESS) {
        rc = MPI_Waitall(n_reqs, reqs, MPI_STATUSES_IGNORE);
    }
    free(reqs);
    return rc;
}
