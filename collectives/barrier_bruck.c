/* Bruck's (dissemination) barrier: in round k every rank signals the rank
 * 2^k ahead of it and hears from the one 2^k behind. */
#include "collectives/internal.h"

/* Idea: after round k each rank has heard, directly or not, from the 2^(k+1)
 * ranks before it (cyclically), so ceil(log2 P) rounds cover everyone, for
 * any P. Rounds: ceil(log2 P). Cost: ceil(log2 P)*alpha. Needs: nothing. */
int barrier_bruck(const struct coll_args *args)
{
    int rank, size, rc;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    for (int d = 1; d < size && rc == MPI_SUCCESS; d *= 2) {
        rc =
            barrier_sendrecv((rank + d) % size, (rank - d + size) % size, comm);
    }
    return rc;
}
