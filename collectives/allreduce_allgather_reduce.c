/* Allgather-reduce allreduce: every rank gathers every operand, then folds
 * them itself in rank order. */
#include "collectives/internal.h"

#include <limits.h>

/* Idea: a recursive-doubling allgather (any P) of the P operands into a
 * temporary of P vectors, then each rank computes x0 op (x1 op (... op
 * x(P-1))) locally. Rounds: ceil(log2 P) (+ fill-in steps when P is not a
 * power of two). Cost: ceil(log2 P)*alpha + (P-1)*m*beta + (P-1)*m*gamma;
 * P times the memory of the vector. Needs: nothing. */
int allreduce_allgather_reduce(const struct coll_args *args)
{
    struct coll_layout layout;
    char *all = NULL;
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = coll_begin(args, &rank, &size, &layout)) != MPI_SUCCESS) {
        return rc;
    }
    if (args->count > INT_MAX / size) {
        return MPI_ERR_COUNT;
    }
    int count = args->count;
    MPI_Aint vec = (MPI_Aint)count * layout.extent;
    const char *own =
        args->sendbuf == MPI_IN_PLACE ? args->recvbuf : args->sendbuf;
    struct coll_blockbuf b;

    all = coll_temp_create(&layout, count * size);
    if (!all) {
        return MPI_ERR_NO_MEM;
    }
    coll_blocks_init(&b, args, all, count * size, size, layout.extent, 0,
                     COLL_TAG_ALLREDUCE);
    if ((rc = coll_copy(own, all + rank * vec, count, args->dtype, args->comm,
                        COLL_TAG_ALLREDUCE)) ||
        (rc = coll_blocks_doubling(&b, rank)) ||
        (rc = coll_copy(all + (size - 1) * vec, args->recvbuf, count,
                        args->dtype, args->comm, COLL_TAG_ALLREDUCE))) {
        goto done;
    }
    for (int r = size - 2; r >= 0 && rc == MPI_SUCCESS; r--) {
        rc = MPI_Reduce_local(all + r * vec, args->recvbuf, count, args->dtype,
                              args->op);
    }
done:
    coll_temp_destroy(all, &layout);
    return rc;
}
