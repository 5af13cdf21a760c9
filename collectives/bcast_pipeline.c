/* Pipeline broadcast: one chain through all ranks. */
#include "collectives/internal.h"

/* Idea: the chain algorithm with a single chain root -> 1 -> 2 -> ... (in
 * ranks relative to the root); each rank forwards segment s while receiving
 * segment s+1. Rounds: n_s + P - 2 pipeline steps.
 * Cost: (n_s + P - 2) * (alpha + s*beta). Needs: nothing. */
int bcast_pipeline(const struct coll_args *args)
{
    return bcast_tree_shape(args, TOPO_CHAIN, 1);
}
