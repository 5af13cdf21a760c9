/* Tree scatters: the root sends each child the blocks of the child's whole
 * subtree, which passes on its children's shares, in segments so that a
 * rank forwards one segment while receiving the next (see blocks_tree.c). */
#include "collectives/internal.h"

/* Idea: binomial tree rooted at the root; virtual rank v gets the blocks of
 * [v, v + lowbit(v)) and hands the upper halves on, the largest first.
 * Rounds: ceil(log2 P). Cost unsegmented: ceil(log2 P) * alpha +
 * (P-1) * m * beta for blocks of m bytes (the root sends P-1 blocks, the
 * others fewer); segments of s bytes add alpha per segment and overlap
 * the levels. Needs: nothing. */
int scatter_binomial(const struct coll_args *args)
{
    return scatter_tree_shape(args, TOPO_BINOMIAL, 0);
}

/* Idea: f = chain_fanout chains hang from the root; a chain head gets the
 * blocks of its whole chain and passes all but its own down, segment by
 * segment. Rounds: n_s + ceil((P-1)/f) - 1 pipeline steps for n_s
 * segments of the longest chain's blocks. Cost: about (P-1) * m * beta at
 * the root plus (n_s + (P-1)/f - 1) * (alpha + s*beta) down a chain.
 * Needs: nothing. */
int scatter_chain(const struct coll_args *args)
{
    return scatter_tree_shape(args, TOPO_CHAIN, args->chain_fanout);
}

/* Idea: balanced binary tree in pre-order; each rank gets its subtree's
 * blocks and sends the right subtree's share first, then the left's.
 * Rounds: about log2 P levels. Cost unsegmented: log2(P) * alpha +
 * (P-1) * m * beta at the root; with segments the levels overlap. Needs:
 * nothing. */
int scatter_binary(const struct coll_args *args)
{
    return scatter_tree_shape(args, TOPO_BINARY, 2);
}
