/* In-order binary-tree reduction (Open MPI's in_order_binary). */
#include "collectives/internal.h"

/* Idea: a balanced binary tree on the ranks in order, rooted at rank P-1,
 * each subtree a contiguous range of ranks ending at its root, so folding
 * children right to left keeps the rank order of any operation; rank P-1
 * sends the result to the root when they differ. Pipelined by segments.
 * Rounds: n_s + floor(log2 P) - 1 steps, plus one message when root != P-1.
 * Cost: 2 * (n_s + floor(log2 P) - 1) * (alpha + s*beta + s*gamma)
 * [+ alpha + m*beta]. Needs: nothing. */
int reduce_in_order_binary(const struct coll_args *args)
{
    return reduce_tree_shape(args, TOPO_BINARY, 2, 1);
}
