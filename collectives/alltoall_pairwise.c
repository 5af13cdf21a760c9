/* Pairwise alltoalls: steps of one exchange each; two_proc is the single
 * step of two ranks. */
#include "collectives/internal.h"

/* Copies the own block, then exchanges with rank+k and rank-k for
 * k = 1 .. n_steps. */
static int alltoall_steps(const struct coll_args *args, int n_steps)
{
    struct coll_layout layout;
    const char *send;
    void *temp;
    int rank, size;
    int rc = alltoall_begin(args, &rank, &size, &layout, &send, &temp);
    if (rc != MPI_SUCCESS || args->count == 0) {
        goto done;
    }
    MPI_Aint ext = layout.extent;
    rc = coll_copy(send + coll_block_offset(rank, args->count, ext),
                   (char *)args->recvbuf +
                       coll_block_offset(rank, args->count, ext),
                   args->count, args->dtype, args->comm, COLL_TAG_ALLTOALL);
    for (int k = 1; k <= n_steps && rc == MPI_SUCCESS; k++) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        rc = MPI_Sendrecv(send + coll_block_offset(to, args->count, ext),
                          args->count, args->dtype, to, COLL_TAG_ALLTOALL,
                          (char *)args->recvbuf +
                              coll_block_offset(from, args->count, ext),
                          args->count, args->dtype, from, COLL_TAG_ALLTOALL,
                          args->comm, MPI_STATUS_IGNORE);
    }
done:
    coll_temp_destroy(temp, &layout);
    return rc;
}

/* Idea: at step k = 1 .. P-1 a rank sends its block for rank+k and
 * receives the block from rank-k in one sendrecv, so each step is a
 * permutation and no rank gets more than one message at a time. Rounds:
 * P-1. Cost: (P-1) * (alpha + m*beta) for blocks of m bytes. Needs:
 * nothing. */
int alltoall_pairwise(const struct coll_args *args)
{
    int size, rc = MPI_Comm_size(args->comm, &size);
    return rc != MPI_SUCCESS ? rc : alltoall_steps(args, size - 1);
}

/* Idea: each rank copies its own block and swaps the other with its peer
 * in one sendrecv. Rounds: 1. Cost: alpha + m*beta for blocks of m bytes.
 * Needs: exactly two ranks (NEED_TWO_PROCS). */
int alltoall_two_proc(const struct coll_args *args)
{
    int size, rc = MPI_Comm_size(args->comm, &size);
    if (rc == MPI_SUCCESS && size != 2) {
        rc = MPI_ERR_SIZE;
    }
    return rc != MPI_SUCCESS ? rc : alltoall_steps(args, 1);
}
