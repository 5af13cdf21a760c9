/* Allreduce as a reduction to rank 0 followed by a broadcast from it, on the
 * shared tree engines: linear (unsegmented) and binomial (segmented). */
#include "collectives/internal.h"

static int reduce_then_bcast(const struct coll_args *args,
                             enum topo_shape shape, int seg_bytes)
{
    struct coll_args r = *args;
    int rank, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Comm_rank(args->comm, &rank)) != MPI_SUCCESS) {
        return rc;
    }
    /* MPI_IN_PLACE is a root-only value for the reduction. */
    r.root = 0;
    r.seg_bytes = seg_bytes;
    if (args->sendbuf == MPI_IN_PLACE && rank != 0) {
        r.sendbuf = args->recvbuf;
    }
    if ((rc = reduce_tree_shape(&r, shape, 2, 0)) != MPI_SUCCESS) {
        return rc;
    }
    return bcast_tree_shape(&r, shape, 2);
}

/* Idea: rank 0 receives every operand and folds them in rank order, then
 * sends the result to every rank. Rounds: 2(P-1) messages at rank 0.
 * Cost: 2(P-1)*(alpha + m*beta) + (P-1)*m*gamma. Needs: nothing. */
int allreduce_linear(const struct coll_args *args)
{
    return reduce_then_bcast(args, TOPO_LINEAR, 0);
}

/* Idea: pipelined binomial reduction to rank 0 (in rank order on an in-order
 * tree for non-commutative operations), then a pipelined binomial broadcast.
 * Rounds: 2*ceil(log2 P) per segment, pipelined.
 * Cost: unsegmented 2*ceil(log2 P)*(alpha + m*beta) + ceil(log2 P)*m*gamma.
 * Needs: nothing. */
int allreduce_reduce_bcast(const struct coll_args *args)
{
    return reduce_then_bcast(args, TOPO_BINOMIAL, args->seg_bytes);
}
