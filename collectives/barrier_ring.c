/* Ring barriers: a token passed from neighbour to neighbour, first to learn
 * that everyone has arrived, then to release them. */
#include "collectives/internal.h"

/* Idea: rank 0 sends a token to its right neighbour; each rank waits for it
 * from the left and passes it on, so when it is back at rank 0 everyone has
 * arrived; a second lap releases the ranks. Rounds: 2P messages in a row.
 * Cost: 2P*alpha. Needs: nothing. */
int barrier_double_ring(const struct coll_args *args)
{
    int rank, size, rc;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    if (size == 1) {
        return MPI_SUCCESS;
    }
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int lap = 0; lap < 2 && rc == MPI_SUCCESS; lap++) {
        if (rank == 0) {
            if ((rc = barrier_send(right, comm)) == MPI_SUCCESS) {
                rc = barrier_recv(left, comm);
            }
        } else if ((rc = barrier_recv(left, comm)) == MPI_SUCCESS) {
            rc = barrier_send(right, comm);
        }
    }
    return rc;
}

/* Idea: the ring cut open at rank 0 and extended back on itself: the token
 * goes 0 -> 1 -> ... -> P-1, and when P-1 has it everyone has arrived; it
 * then comes back P-1 -> ... -> 0 as the release. Each rank talks only to
 * its two neighbours on the line. Rounds: 2(P-1) messages in a row.
 * Cost: 2(P-1)*alpha. Needs: nothing. */
int barrier_extended_ring(const struct coll_args *args)
{
    int rank, size, rc = MPI_SUCCESS;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    if (rank > 0 && (rc = barrier_recv(rank - 1, comm))) {
        return rc;
    }
    if (rank < size - 1 && ((rc = barrier_send(rank + 1, comm)) ||
                            (rc = barrier_recv(rank + 1, comm)))) {
        return rc;
    }
    return rank > 0 ? barrier_send(rank - 1, comm) : MPI_SUCCESS;
}
