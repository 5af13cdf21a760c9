/* Neighbor-exchange allgather (Chen et al.): ranks pair up, then swap pairs
 * of blocks with their left and right neighbours in turn. */
#include "collectives/internal.h"

/* Idea: step 0 swaps own blocks within the pairs (2i, 2i+1); in step
 * s = 1 .. P/2-1 every rank swaps the two blocks it received last (one
 * pair, contiguous) with its neighbour on the other side than in step
 * s - 1, the even rank of a pair going right first and the odd one left.
 * Rounds: P/2. Cost: (P/2)*alpha + (P-1)*m*beta for blocks of m.
 * Needs: an even number of ranks (NEED_EVEN_PROCS). */
int allgather_neighbor_exchange(const struct coll_args *args)
{
    struct coll_allgather g;
    int rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = allgather_begin(args, &g))) {
        return rc;
    }
    if (g.size % 2 != 0) {
        return MPI_ERR_SIZE; /* the table's needs keep us from here */
    }
    int count = args->count;
    int is_even = g.rank % 2 == 0;
    /* neighbour[0]: the pair partner, then the two sides alternate. */
    int neighbour[2] = {is_even ? (g.rank + 1) % g.size : g.rank - 1,
                        is_even ? (g.rank - 1 + g.size) % g.size
                                : (g.rank + 1) % g.size};
    /* First block of the pair received last from each side; pairs start at
     * even blocks and move two blocks per step away from this rank. */
    int pair = g.rank - g.rank % 2;
    int from[2] = {pair, pair};
    int step_of[2] = {is_even ? 2 : -2, is_even ? -2 : 2};

    rc = MPI_Sendrecv(g.b.buf + g.rank * g.block, count, args->dtype,
                      neighbour[0], COLL_TAG_ALLGATHER,
                      g.b.buf + neighbour[0] * g.block, count, args->dtype,
                      neighbour[0], COLL_TAG_ALLGATHER, args->comm,
                      MPI_STATUS_IGNORE);
    int send_from = pair;
    for (int s = 1; s < g.size / 2 && rc == MPI_SUCCESS; s++) {
        int side = s % 2;
        from[side] = (from[side] + step_of[side] + g.size) % g.size;
        rc = MPI_Sendrecv(g.b.buf + send_from * g.block, 2 * count, args->dtype,
                          neighbour[side], COLL_TAG_ALLGATHER,
                          g.b.buf + from[side] * g.block, 2 * count,
                          args->dtype, neighbour[side], COLL_TAG_ALLGATHER,
                          args->comm, MPI_STATUS_IGNORE);
        send_from = from[side];
    }
    return rc;
}
