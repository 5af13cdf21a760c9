/* Recursive-doubling allreduce: whole vectors swapped with partners at
 * distance 1, 2, 4, ... on a power of two of ranks. */
#include "collectives/internal.h"

/* Idea: with p = the largest power of two <= P, the first 2(P-p) ranks fold
 * pairwise into p ranks (coll_fold_begin); in step i each swaps its partial
 * result with rank me xor 2^i and combines the two, lower ranks' operand
 * first; the folded ranks then get the result from their partner.
 * Rounds: log2 p (+2 when P is not a power of two).
 * Cost: log2(p)*(alpha + m*beta + m*gamma) [+ 2*(alpha + m*beta) + m*gamma].
 * Needs: nothing. */
int allreduce_recursive_doubling(const struct coll_args *args)
{
    struct coll_fold f;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    rc = coll_fold_begin(&f, args, COLL_TAG_ALLREDUCE, 1);
    for (int mask = 1; mask < f.pof2 && rc == MPI_SUCCESS && f.me >= 0;
         mask *= 2) {
        int peer = f.me ^ mask;
        int dest = coll_fold_rank(&f, peer);
        rc = MPI_Sendrecv(f.acc, args->count, args->dtype, dest,
                          COLL_TAG_ALLREDUCE, f.tmp, args->count, args->dtype,
                          dest, COLL_TAG_ALLREDUCE, args->comm,
                          MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) {
            rc = coll_reduce_ordered(f.tmp, f.acc, args->count, args->dtype,
                                     args->op, peer > f.me, args->comm,
                                     COLL_TAG_ALLREDUCE);
        }
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_fold_release(&f);
    }
    coll_fold_destroy(&f);
    return rc;
}
