/* Linear barrier: everyone reports to rank 0, which then releases
 * everyone. */
#include "collectives/internal.h"

/* Idea: every rank sends an empty message to rank 0 and waits for its
 * answer; rank 0 answers once it has heard from all. Rounds: 2(P-1)
 * messages at rank 0. Cost: 2(P-1)*alpha. Needs: nothing. */
int barrier_linear(const struct coll_args *args)
{
    int rank, size, rc;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    if (rank != 0) {
        if ((rc = barrier_send(0, comm)) != MPI_SUCCESS) {
            return rc;
        }
        return barrier_recv(0, comm);
    }
    for (int r = 1; r < size && rc == MPI_SUCCESS; r++) {
        rc = barrier_recv(r, comm);
    }
    for (int r = 1; r < size && rc == MPI_SUCCESS; r++) {
        rc = barrier_send(r, comm);
    }
    return rc;
}
