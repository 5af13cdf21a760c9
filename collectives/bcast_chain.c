/* Chain broadcast: chain_fanout pipelines hanging from the root. */
#include "collectives/internal.h"

/* Idea: the other P-1 ranks form f = chain_fanout chains of about (P-1)/f
 * ranks; the root feeds each segment to every chain head and each rank
 * passes it on while receiving the next. Rounds: n_s + ceil((P-1)/f) - 1
 * pipeline steps, the root sending f segments per step.
 * Cost: (f*n_s + ceil((P-1)/f) - 1) * (alpha + s*beta). Needs: nothing. */
int bcast_chain(const struct coll_args *args)
{
    return bcast_tree_shape(args, TOPO_CHAIN, args->chain_fanout);
}
