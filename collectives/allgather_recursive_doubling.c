/* Recursive-doubling allgather: ranks swap everything they hold with
 * partners at distance 1, 2, 4, ... */
#include "collectives/internal.h"

/* Idea: in step i rank r swaps the 2^i blocks of its group with rank
 * r xor 2^i (coll_blocks_doubling); when P is not a power of two, the ranks
 * whose partner does not exist get the missing blocks from a rank of their
 * group that had one. Rounds: log2 P for P a power of two, up to
 * 2*ceil(log2 P) otherwise. Cost: log2(P)*alpha + (P-1)*m*beta for blocks
 * of m and P a power of two. Needs: nothing. */
int allgather_recursive_doubling(const struct coll_args *args)
{
    struct coll_allgather g;
    int rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = allgather_begin(args, &g))) {
        return rc;
    }
    return coll_blocks_doubling(&g.b, g.rank);
}
