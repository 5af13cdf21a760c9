/* Ring allgather: each block travels once round the ring. */
#include "collectives/internal.h"

/* Idea: in each of P-1 steps every rank sends the block it received last to
 * its right neighbour and receives the next from its left
 * (coll_blocks_ring). Rounds: P-1. Cost: (P-1)*(alpha + m*beta) for blocks
 * of m. Needs: nothing. */
int allgather_ring(const struct coll_args *args)
{
    struct coll_allgather g;
    int rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = allgather_begin(args, &g))) {
        return rc;
    }
    return coll_blocks_ring(&g.b, g.rank, g.rank);
}
