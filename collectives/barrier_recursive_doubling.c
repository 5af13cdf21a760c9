/* Recursive-doubling barrier: pairwise exchanges at distance 1, 2, 4, ...
 * on a power of two of ranks. */
#include "collectives/internal.h"

/* Idea: with p = the largest power of two <= P, rank p + i first reports
 * to rank i; the p ranks then exchange empty messages with rank xor 2^k for
 * every k, after which each has heard, directly or not, from all; rank i
 * finally releases rank p + i. Rounds: log2 p (+2 when P is not a power of
 * two). Cost: log2(p)*alpha [+ 2*alpha]. Needs: nothing. */
int barrier_recursive_doubling(const struct coll_args *args)
{
    int rank, size, rc;
    MPI_Comm comm = args->comm;

    if ((rc = MPI_Comm_rank(comm, &rank)) ||
        (rc = MPI_Comm_size(comm, &size))) {
        return rc;
    }
    int pof2 = 1;
    while (pof2 * 2 <= size) {
        pof2 *= 2;
    }
    if (rank >= pof2) {
        if ((rc = barrier_send(rank - pof2, comm)) != MPI_SUCCESS) {
            return rc;
        }
        return barrier_recv(rank - pof2, comm);
    }
    if (rank + pof2 < size && (rc = barrier_recv(rank + pof2, comm))) {
        return rc;
    }
    for (int mask = 1; mask < pof2 && rc == MPI_SUCCESS; mask *= 2) {
        rc = barrier_sendrecv(rank ^ mask, rank ^ mask, comm);
    }
    if (rc == MPI_SUCCESS && rank + pof2 < size) {
        rc = barrier_send(rank + pof2, comm);
    }
    return rc;
}
