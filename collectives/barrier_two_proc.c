/* Two-process barrier: one exchange. */
#include "collectives/internal.h"

/* Idea: the two ranks swap empty messages. Rounds: 1. Cost: alpha.
 * Needs: exactly two ranks (NEED_TWO_PROCS). */
int barrier_two_proc(const struct coll_args *args)
{
    int rank, size, rc;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    if (size != 2) {
        return MPI_ERR_SIZE; /* the table's needs keep us from here */
    }
    return barrier_sendrecv(1 - rank, 1 - rank, comm);
}
