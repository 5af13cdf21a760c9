/* Tree gathers: every rank collects the blocks of its subtree and sends
 * them to its parent in segments, forwarding each segment as soon as its
 * parts have arrived from the children (see blocks_tree.c). */
#include "collectives/internal.h"

/* Idea: binomial tree rooted at the root; virtual rank v collects the
 * blocks of [v, v + lowbit(v)), its own first, then its children's from
 * the smallest subtree up, and sends them to v - lowbit(v). Rounds:
 * ceil(log2 P). Cost unsegmented: ceil(log2 P) * alpha + (P-1) * m * beta
 * for blocks of m bytes, into the root; segments of s bytes add alpha per
 * segment and overlap the levels. Needs: nothing. */
int gather_binomial(const struct coll_args *args)
{
    return gather_tree_shape(args, TOPO_BINOMIAL, 0);
}

/* Idea: f = chain_fanout chains hang from the root; each rank sends up its
 * own block then, segment by segment, the blocks coming from below. Rounds:
 * n_s + ceil((P-1)/f) - 1 pipeline steps. Cost: about (P-1) * m * beta into
 * the root plus (n_s + (P-1)/f - 1) * (alpha + s*beta) up a chain. Needs:
 * nothing. */
int gather_chain(const struct coll_args *args)
{
    return gather_tree_shape(args, TOPO_CHAIN, args->chain_fanout);
}

/* Idea: balanced binary tree in pre-order; each rank sends up its own
 * block, then its left subtree's, then its right subtree's, segment by
 * segment. Rounds: about log2 P levels. Cost unsegmented: log2(P) * alpha
 * + (P-1) * m * beta into the root; with segments the levels overlap.
 * Needs: nothing. */
int gather_binary(const struct coll_args *args)
{
    return gather_tree_shape(args, TOPO_BINARY, 2);
}
