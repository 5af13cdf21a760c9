/* Scatter-allgather broadcast: binomial scatter of P blocks, then a
 * recursive-doubling allgather. */
#include "collectives/internal.h"

/* Idea: scatter the P blocks down a binomial tree, then in step i rank v
 * swaps the 2^i blocks of its group with rank v xor 2^i (coll_blocks_doubling,
 * which fills in the blocks of missing partners when P is not a power of
 * two). Rounds: ceil(log2 P) for the scatter, ceil(log2 P) exchanges plus
 * at most log2 P fill-in steps per step when P is not a power of two.
 * Cost: 2*ceil(log2 P)*alpha + 2*((P-1)/P)*m*beta for P a power of two.
 * Needs: nothing (blocks may be empty when count < P). */
int bcast_scatter_allgather(const struct coll_args *args)
{
    struct coll_blockbuf b;
    int v, rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = bcast_scatter_begin(args, &b, &v))) {
        return rc;
    }
    return coll_blocks_doubling(&b, v);
}
