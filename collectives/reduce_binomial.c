/* Binomial-tree reduction, pipelined by segments. */
#include "collectives/internal.h"

/* Idea: in ranks relative to the root, rank v folds in the partial results
 * of v + 1, v + 2, v + 4, ... (smallest subtree first) and sends to
 * v - lowbit(v); half of the ranks drop out each round.
 * Rounds: ceil(log2 P). Cost: unsegmented ceil(log2 P) * (alpha + m*beta +
 * m*gamma); segmented about (n_s + ceil(log2 P) - 1) * ceil(log2 P) *
 * (alpha + s*beta + s*gamma).
 * Needs: nothing (non-commutative operations use the tree on ranks in order
 * rooted at P-1, which then sends the result to the root). */
int reduce_binomial(const struct coll_args *args)
{
    return reduce_tree_shape(args, TOPO_BINOMIAL, 2, 0);
}
