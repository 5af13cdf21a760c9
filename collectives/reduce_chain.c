/* Chain reduction: chain_fanout pipelines ending at the root. */
#include "collectives/internal.h"

/* Idea: the other P-1 ranks form f = chain_fanout chains; each rank folds
 * the partial result of the rank after it into its own operand and passes it
 * towards the chain head while the next segment comes in; the root folds the
 * f chain results. Rounds: n_s + ceil((P-1)/f) - 1 pipeline steps.
 * Cost: (f*n_s + ceil((P-1)/f) - 1) * (alpha + s*beta + s*gamma).
 * Needs: nothing (non-commutative operations run on chains in rank order
 * ending at rank P-1, which then sends the result to the root). */
int reduce_chain(const struct coll_args *args)
{
    return reduce_tree_shape(args, TOPO_CHAIN, args->chain_fanout, 0);
}
