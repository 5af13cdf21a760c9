/* Pipeline reduction: one chain through all ranks. */
#include "collectives/internal.h"

/* Idea: the chain algorithm with a single chain; segment s moves one rank
 * closer to the root per step, picking up each rank's operand.
 * Rounds: n_s + P - 2 pipeline steps.
 * Cost: (n_s + P - 2) * (alpha + s*beta + s*gamma).
 * Needs: nothing (non-commutative operations: chain 0 -> 1 -> ... -> P-1,
 * then P-1 sends the result to the root). */
int reduce_pipeline(const struct coll_args *args)
{
    return reduce_tree_shape(args, TOPO_CHAIN, 1, 0);
}
