/* Rabenseifner's reduction: reduce-scatter by recursive halving, then a
 * binomial gather of the reduced blocks to the root. */
#include "collectives/internal.h"

/* Idea: with p = the largest power of two <= P, the first 2(P-p) ranks
 * (relative to the root) pair up and the odd one hands its vector to the
 * even one; the p remaining ranks cut the vector into p blocks and in
 * log2 p steps each swaps half of its current range with a partner and
 * reduces the half it keeps, ending with one reduced block; the blocks then
 * travel back up a binomial tree to the root, undoing the halving steps in
 * reverse order (coll_fold_*).
 * Rounds: 2*log2 p (+1 when P is not a power of two).
 * Cost: 2*log2(p)*alpha + 2*((p-1)/p)*m*beta + ((p-1)/p)*m*gamma
 * [+ alpha + m*beta + m*gamma]. Needs: a commutative operation (ranks are
 * taken relative to the root, which breaks rank order for any root but 0);
 * count may be < P. */
int reduce_rabenseifner(const struct coll_args *args)
{
    struct coll_fold f;
    int rank, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Comm_rank(args->comm, &rank)) != MPI_SUCCESS) {
        return rc;
    }
    rc = coll_fold_begin(&f, args, COLL_TAG_REDUCE, rank == args->root);
    if (rc == MPI_SUCCESS && f.me >= 0) {
        rc = coll_fold_reduce_scatter(&f);
    }
    /* Gather: the upper half of the remaining ranks hands its ranges to the
     * lower half, and so on down to me = 0, the root. */
    for (int mask = f.pof2 / 2; mask > 0 && rc == MPI_SUCCESS && f.me >= 0;
         mask /= 2) {
        int is_upper = (f.me & mask) != 0;
        rc = coll_fold_gather_step(&f, mask, is_upper, !is_upper);
        if (is_upper) {
            break;
        }
    }
    coll_fold_destroy(&f);
    return rc;
}
