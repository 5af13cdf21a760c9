/* Tree barriers: arrivals climb a binomial tree (a tournament bracket) to
 * rank 0; the release comes back down the tree or straight from rank 0. */
#include "collectives/internal.h"

/* Arrival: in round k, rank r with lowest set bit 2^k reports to r - 2^k
 * (it lost that round) after hearing from r + 2^j, j < k, (the rounds it
 * won). Returns the round rank r lost (the bracket's depth for rank 0). */
static int barrier_arrive(int rank, int size, MPI_Comm comm, int *rc)
{
    int k = 0;
    for (int d = 1; d < size; d *= 2, k++) {
        if (rank & d) {
            *rc = barrier_send(rank - d, comm);
            return k;
        }
        if (rank + d < size && (*rc = barrier_recv(rank + d, comm))) {
            return k;
        }
    }
    return k;
}

/* Idea: binomial fan-in to rank 0 (rank r waits for r + 1, r + 2, r + 4,
 * ... below its lowest set bit, then reports to its parent), then the same
 * tree in reverse releases the ranks. Rounds: 2*ceil(log2 P).
 * Cost: 2*ceil(log2 P)*alpha. Needs: nothing. */
int barrier_tree(const struct coll_args *args)
{
    int rank, size, rc;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    int k = barrier_arrive(rank, size, comm, &rc);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    int d = 1 << k;
    if (rank != 0 && (rc = barrier_recv(rank - d, comm))) {
        return rc;
    }
    for (d /= 2; d > 0 && rc == MPI_SUCCESS; d /= 2) {
        if (rank + d < size) {
            rc = barrier_send(rank + d, comm);
        }
    }
    return rc;
}

/* Idea: a tournament (Hensgen, Finkel and Manber): in round k the ranks
 * pair up at distance 2^k, the loser (the higher rank) reports to the
 * winner and drops out; the champion, rank 0, then releases every rank at
 * once, as the shared-memory tournament's global flag does. Rounds:
 * ceil(log2 P) + P-1 sends at rank 0. Cost: (ceil(log2 P) + P-1)*alpha at
 * most, the release sends overlapping. Needs: nothing. */
int barrier_tournament(const struct coll_args *args)
{
    int rank, size, rc;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    barrier_arrive(rank, size, comm, &rc);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank != 0) {
        return barrier_recv(0, comm);
    }
    for (int r = 1; r < size && rc == MPI_SUCCESS; r++) {
        rc = barrier_send(r, comm);
    }
    return rc;
}
