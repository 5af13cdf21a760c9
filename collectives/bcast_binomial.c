/* Binomial-tree broadcast, pipelined by segments. */
#include "collectives/internal.h"

/* Idea: in ranks relative to the root, rank v forwards to v + 2^i for every
 * 2^i below its lowest set bit, the largest subtree first; the set of ranks
 * holding the data doubles each round. Rounds: ceil(log2 P).
 * Cost: unsegmented ceil(log2 P) * (alpha + m*beta); segmented about
 * (n_s + ceil(log2 P) - 1) * ceil(log2 P) * (alpha + s*beta) bounded by the
 * root's sends. Needs: nothing. */
int bcast_binomial(const struct coll_args *args)
{
    return bcast_tree_shape(args, TOPO_BINOMIAL, 2);
}
