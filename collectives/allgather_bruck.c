/* Bruck's allgather: blocks travel to ranks at distance 1, 2, 4, ... in a
 * buffer rotated so that every rank's own block comes first. */
#include "collectives/internal.h"

/* Idea: rank r keeps in slot i of a temporary the block of rank r + i; in
 * step k it sends its first min(2^k, P - 2^k) slots to r - 2^k and receives
 * as many from r + 2^k into the slots after them; a final rotation puts the
 * blocks in rank order. Rounds: ceil(log2 P), for any P.
 * Cost: ceil(log2 P)*alpha + (P-1)*m*beta for blocks of m, plus two local
 * copies of the P blocks. Needs: nothing. */
int allgather_bruck(const struct coll_args *args)
{
    struct coll_allgather g;
    int rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = allgather_begin(args, &g))) {
        return rc;
    }
    int count = args->count;
    char *slots = coll_temp_create(&g.layout, g.b.count);
    if (!slots) {
        return MPI_ERR_NO_MEM;
    }
    rc = coll_copy(g.b.buf + g.rank * g.block, slots, count, args->dtype,
                   args->comm, COLL_TAG_ALLGATHER);
    for (int d = 1; d < g.size && rc == MPI_SUCCESS; d *= 2) {
        int n = d < g.size - d ? d : g.size - d;
        rc = MPI_Sendrecv(slots, n * count, args->dtype,
                          (g.rank - d + g.size) % g.size, COLL_TAG_ALLGATHER,
                          slots + d * g.block, n * count, args->dtype,
                          (g.rank + d) % g.size, COLL_TAG_ALLGATHER, args->comm,
                          MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_copy(slots, g.b.buf + g.rank * g.block,
                       (g.size - g.rank) * count, args->dtype, args->comm,
                       COLL_TAG_ALLGATHER);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_copy(slots + (g.size - g.rank) * g.block, g.b.buf,
                       g.rank * count, args->dtype, args->comm,
                       COLL_TAG_ALLGATHER);
    }
    coll_temp_destroy(slots, &g.layout);
    return rc;
}
