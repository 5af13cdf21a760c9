/* Rabenseifner's allreduce: reduce-scatter by recursive halving, then an
 * allgather by recursive doubling. */
#include "collectives/internal.h"

/* Idea: with p = the largest power of two <= P, the first 2(P-p) ranks fold
 * pairwise into p ranks; these cut the vector into p blocks and in log2 p
 * halving steps each ends with one block reduced over all ranks
 * (coll_fold_reduce_scatter), then the steps are undone in reverse order as
 * exchanges, so every rank gets every block; the folded ranks get the result
 * from their partner. Partners always hold adjacent ranges of ranks, so the
 * operands combine in rank order.
 * Rounds: 2*log2 p (+2 when P is not a power of two).
 * Cost: 2*log2(p)*alpha + 2*((p-1)/p)*m*beta + ((p-1)/p)*m*gamma
 * [+ 2*(alpha + m*beta) + m*gamma]. Needs: nothing (blocks may be empty
 * when count < p). */
int allreduce_rabenseifner(const struct coll_args *args)
{
    struct coll_fold f;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    rc = coll_fold_begin(&f, args, COLL_TAG_ALLREDUCE, 1);
    if (rc == MPI_SUCCESS && f.me >= 0) {
        rc = coll_fold_reduce_scatter(&f);
    }
    for (int mask = f.pof2 / 2; mask > 0 && rc == MPI_SUCCESS && f.me >= 0;
         mask /= 2) {
        rc = coll_fold_gather_step(&f, mask, 1, 1);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_fold_release(&f);
    }
    coll_fold_destroy(&f);
    return rc;
}
