/* The binomial scatter that starts both scatter-allgather broadcasts: the
 * message is cut into P blocks, block i (in ranks relative to the root) ends
 * up at virtual rank i. */
#include "collectives/internal.h"

int bcast_blocks_xfer(const struct coll_args *args, MPI_Aint extent, int first,
                      int last, int peer, int is_send)
{
    int size, rc = MPI_Comm_size(args->comm, &size);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (last > size) {
        last = size;
    }
    int start = coll_block_start(args->count, size, first);
    int n =
        last > first ? coll_block_start(args->count, size, last) - start : 0;
    char *buf = (char *)args->recvbuf + (MPI_Aint)start * extent;
    /* Both sides compute the same n, so empty ranges are skipped on both. */
    if (n == 0) {
        return MPI_SUCCESS;
    }
    if (is_send) {
        return MPI_Send(buf, n, args->dtype, peer, COLL_TAG_BCAST, args->comm);
    }
    return MPI_Recv(buf, n, args->dtype, peer, COLL_TAG_BCAST, args->comm,
                    MPI_STATUS_IGNORE);
}

int bcast_scatter_binomial(const struct coll_args *args, MPI_Aint extent)
{
    int rank, size, rc;
    if ((rc = MPI_Comm_rank(args->comm, &rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(args->comm, &size)) != MPI_SUCCESS) {
        return rc;
    }
    int root = args->root;
    int v = (rank - root + size) % size;
    long top = 1;

    /* v receives its subtree [v, v + lowbit(v)) from v - lowbit(v). */
    while (top < size) {
        top <<= 1;
    }
    long span = top;
    if (v != 0) {
        span = v & -v;
        rc = bcast_blocks_xfer(args, extent, v, v + (int)span,
                               (v - (int)span + root) % size, 0);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    for (long mask = span >> 1; mask > 0; mask >>= 1) {
        long c = v + mask;
        if (c < size) {
            rc = bcast_blocks_xfer(args, extent, (int)c, (int)(c + mask),
                                   ((int)c + root) % size, 1);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
    }
    return MPI_SUCCESS;
}
