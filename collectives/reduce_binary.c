/* Binary-tree reduction, pipelined by segments. */
#include "collectives/internal.h"

/* Idea: a balanced binary tree rooted at the root; each rank folds its two
 * children's partial results into its operand segment by segment and passes
 * it up. Rounds: n_s + floor(log2 P) - 1 steps of two receives.
 * Cost: 2 * (n_s + floor(log2 P) - 1) * (alpha + s*beta + s*gamma).
 * Needs: nothing (non-commutative operations use the tree on ranks in order
 * rooted at P-1, which then sends the result to the root). */
int reduce_binary(const struct coll_args *args)
{
    return reduce_tree_shape(args, TOPO_BINARY, 2, 0);
}
