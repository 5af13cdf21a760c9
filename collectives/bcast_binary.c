/* Binary-tree broadcast, pipelined by segments. */
#include "collectives/internal.h"

/* Idea: a balanced binary tree rooted at the root; each inner rank receives
 * segment s from its parent and forwards it to its two children while
 * segment s+1 arrives. Rounds: n_s + floor(log2 P) - 1 steps of two sends.
 * Cost: 2 * (n_s + floor(log2 P) - 1) * (alpha + s*beta). Needs: nothing. */
int bcast_binary(const struct coll_args *args)
{
    return bcast_tree_shape(args, TOPO_BINARY, 2);
}
