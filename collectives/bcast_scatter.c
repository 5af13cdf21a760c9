/* The binomial scatter that starts both scatter-allgather broadcasts: the
 * message is cut into P blocks, block i (in ranks relative to the root) ends
 * up at virtual rank i. */
#include "collectives/internal.h"

int bcast_scatter_binomial(const struct coll_blockbuf *b, int v)
{
    int size = b->n_blocks, root = b->root, rc;
    long top = 1;

    /* v receives its subtree [v, v + lowbit(v)) from v - lowbit(v). */
    while (top < size) {
        top <<= 1;
    }
    long span = top;
    if (v != 0) {
        span = v & -v;
        rc = coll_blocks_xfer(b, v, v + (int)span,
                              (v - (int)span + root) % size, 0);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    for (long mask = span >> 1; mask > 0; mask >>= 1) {
        long c = v + mask;
        if (c < size) {
            rc = coll_blocks_xfer(b, (int)c, (int)(c + mask),
                                  ((int)c + root) % size, 1);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
    }
    return MPI_SUCCESS;
}

int bcast_scatter_begin(const struct coll_args *args, struct coll_blockbuf *b,
                        int *v)
{
    struct coll_layout layout;
    int rank, size, rc;

    if ((rc = coll_begin(args, &rank, &size, &layout)) != MPI_SUCCESS) {
        return rc;
    }
    *v = (rank - args->root + size) % size;
    coll_blocks_init(b, args, args->recvbuf, args->count, size, layout.extent,
                     args->root, COLL_TAG_BCAST);
    return bcast_scatter_binomial(b, *v);
}
