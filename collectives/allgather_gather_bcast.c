/* Gather-broadcast allgather: a linear gather to rank 0, then a binomial
 * broadcast of the whole buffer. */
#include "collectives/internal.h"

#include <limits.h>

/* Idea: rank 0 receives every block in rank order (gather_linear), then
 * broadcasts the P blocks down a binomial tree. Rounds: P-1 receives at
 * rank 0, then ceil(log2 P). Cost: (P-1)*(alpha + m*beta) +
 * ceil(log2 P)*(alpha + P*m*beta) for blocks of m. Needs: nothing. */
int allgather_gather_bcast(const struct coll_args *args)
{
    struct coll_args gather = *args, whole = *args;
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Comm_rank(args->comm, &rank)) ||
        (rc = MPI_Comm_size(args->comm, &size))) {
        return rc;
    }
    if (args->count > INT_MAX / size) {
        return MPI_ERR_COUNT;
    }
    MPI_Aint lb, extent;
    if ((rc = MPI_Type_get_extent(args->dtype, &lb, &extent))) {
        return rc;
    }
    /* In place, a rank's block is already where the gather would put it. */
    gather.root = 0;
    if (rank != 0 && args->sendbuf == MPI_IN_PLACE) {
        gather.sendbuf = (char *)args->recvbuf +
                         coll_block_offset(rank, args->count, extent);
    }
    if ((rc = gather_linear(&gather)) != MPI_SUCCESS) {
        return rc;
    }
    whole.count = args->count * size;
    whole.root = 0;
    whole.seg_bytes = 0;
    return bcast_tree_shape(&whole, TOPO_BINOMIAL, 2);
}
