/* Linear reduction: every rank sends its operand to the root. */
#include "collectives/internal.h"

/* Idea: the root receives each segment from ranks P-1, P-2, ..., 0 in turn
 * and folds it in, its own operand in its place, so the result is in rank
 * order for any operation. Rounds: P-1 receives at the root per segment.
 * Cost: (P-1) * (n_s*alpha + m*beta + m*gamma). Needs: nothing. */
int reduce_linear(const struct coll_args *args)
{
    return reduce_tree_shape(args, TOPO_LINEAR, 0, 0);
}
