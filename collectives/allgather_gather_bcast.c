/* Gather-broadcast allgather: a linear gather to rank 0, then a binomial
 * broadcast of the whole buffer. */
#include "collectives/internal.h"

#include <stdlib.h>

/* Idea: rank 0 receives every block (all receives posted at once), then
 * broadcasts the P blocks down a binomial tree. Rounds: P-1 receives at
 * rank 0, then ceil(log2 P). Cost: (P-1)*(alpha + m*beta) +
 * ceil(log2 P)*(alpha + P*m*beta) for blocks of m. Needs: nothing. */
int allgather_gather_bcast(const struct coll_args *args)
{
    struct coll_allgather g;
    MPI_Request *reqs = NULL;
    int rc = MPI_SUCCESS;

    if (args->count == 0 || (rc = allgather_begin(args, &g))) {
        return rc;
    }
    if (g.rank != 0) {
        rc = MPI_Send(g.b.buf + g.rank * g.block, args->count, args->dtype, 0,
                      COLL_TAG_ALLGATHER, args->comm);
    } else if (g.size > 1) {
        reqs = malloc((size_t)(g.size - 1) * sizeof *reqs);
        if (!reqs) {
            return MPI_ERR_NO_MEM;
        }
        for (int r = 1; r < g.size && rc == MPI_SUCCESS; r++) {
            rc = MPI_Irecv(g.b.buf + r * g.block, args->count, args->dtype, r,
                           COLL_TAG_ALLGATHER, args->comm, &reqs[r - 1]);
            if (rc != MPI_SUCCESS) {
                g.size = r; /* wait only for the receives posted */
            }
        }
        int wait_rc = MPI_Waitall(g.size - 1, reqs, MPI_STATUSES_IGNORE);
        rc = rc != MPI_SUCCESS ? rc : wait_rc;
        free(reqs);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    struct coll_args whole = *args;
    whole.count = g.b.count;
    whole.root = 0;
    whole.seg_bytes = 0;
    return bcast_tree_shape(&whole, TOPO_BINOMIAL, 2);
}
