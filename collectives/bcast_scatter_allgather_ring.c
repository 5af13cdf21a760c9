/* Scatter-ring-allgather broadcast: binomial scatter of P blocks, then a
 * ring allgather. */
#include "collectives/internal.h"

/* Idea: scatter the P blocks down a binomial tree, then in each of P-1 steps
 * every rank passes the block it received last to its right neighbour (in
 * ranks relative to the root). Rounds: ceil(log2 P) + P - 1.
 * Cost: (ceil(log2 P) + P - 1)*alpha + 2*((P-1)/P)*m*beta.
 * Needs: nothing (blocks may be empty when count < P). */
int bcast_scatter_allgather_ring(const struct coll_args *args)
{
    struct coll_layout layout;
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = coll_begin(args, &rank, &size, &layout)) != MPI_SUCCESS ||
        (rc = bcast_scatter_binomial(args, layout.extent)) != MPI_SUCCESS) {
        return rc;
    }

    int v = (rank - args->root + size) % size;
    int right = (v + 1 + args->root) % size;
    int left = (v - 1 + size + args->root) % size;
    int count = args->count;
    char *buf = args->recvbuf;

    for (int i = 0; i < size - 1; i++) {
        int send_block = (v - i + size) % size;
        int recv_block = (v - i - 1 + 2 * size) % size;
        int s0 = coll_block_start(count, size, send_block);
        int r0 = coll_block_start(count, size, recv_block);
        int n_send = coll_block_start(count, size, send_block + 1) - s0;
        int n_recv = coll_block_start(count, size, recv_block + 1) - r0;
        rc = MPI_Sendrecv(
            buf + (MPI_Aint)s0 * layout.extent, n_send, args->dtype, right,
            COLL_TAG_BCAST, buf + (MPI_Aint)r0 * layout.extent, n_recv,
            args->dtype, left, COLL_TAG_BCAST, args->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}
