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
    struct coll_blockbuf b;
    int v, rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = bcast_scatter_begin(args, &b, &v))) {
        return rc;
    }
    return coll_blocks_ring(&b, v, v);
}
