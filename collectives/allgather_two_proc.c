/* Two-process allgather: one exchange. */
#include "collectives/internal.h"

/* Idea: the two ranks swap their blocks. Rounds: 1. Cost: alpha + m*beta.
 * Needs: exactly two ranks (NEED_TWO_PROCS). */
int allgather_two_proc(const struct coll_args *args)
{
    struct coll_allgather g;
    int rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = allgather_begin(args, &g))) {
        return rc;
    }
    if (g.size != 2) {
        return MPI_ERR_SIZE; /* the table's needs keep us from here */
    }
    int peer = 1 - g.rank;
    return MPI_Sendrecv(g.b.buf + g.rank * g.block, args->count, args->dtype,
                        peer, COLL_TAG_ALLGATHER, g.b.buf + peer * g.block,
                        args->count, args->dtype, peer, COLL_TAG_ALLGATHER,
                        args->comm, MPI_STATUS_IGNORE);
}
