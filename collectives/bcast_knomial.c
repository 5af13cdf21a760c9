/* k-nomial-tree broadcast (radix 4), pipelined by segments. */
#include "collectives/internal.h"

/* Idea: the binomial tree in base k = 4: in ranks relative to the root, rank
 * v forwards to v + j*4^i (j = 1..3) for every base-4 digit position i below
 * its lowest non-zero digit, so the ranks holding the data grow fourfold per
 * round at the price of three sends. Rounds: ceil(log4 P).
 * Cost: unsegmented 3 * ceil(log4 P) * (alpha + m*beta); segmented about
 * 3 * (n_s + ceil(log4 P) - 1) * (alpha + s*beta). Needs: nothing. */
int bcast_knomial(const struct coll_args *args)
{
    return bcast_tree_shape(args, TOPO_KNOMIAL, COLL_KNOMIAL_RADIX);
}
