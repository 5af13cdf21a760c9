/* Linear broadcast: the root sends the message to every other rank. */
#include "collectives/internal.h"

/* Idea: the root sends each segment to ranks P-1, P-2, ..., 0 in turn; the
 * other ranks only receive. Rounds: P-1 sends at the root per segment.
 * Cost: (P-1) * n_s * (alpha + s*beta) = (P-1)(n_s*alpha + m*beta) with n_s
 * segments of s bytes. Needs: nothing. */
int bcast_linear(const struct coll_args *args)
{
    return bcast_tree_shape(args, TOPO_LINEAR, 0);
}
