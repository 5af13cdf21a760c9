/* Bruck alltoall: ceil(log2 P) exchanges of about half the blocks each. */
#include "collectives/internal.h"

/* Copies the blocks i of from (1 <= i < P) whose bit k is set (is_pack) into
 * consecutive blocks of to, or back (!is_pack). */
static int bruck_pack(const struct coll_args *args, MPI_Aint extent, int size,
                      int k, char *rotated, char *packed, int is_pack)
{
    int rc = MPI_SUCCESS, n = 0;
    for (int i = 1; i < size && rc == MPI_SUCCESS; i++) {
        if (!(i & k)) {
            continue;
        }
        char *r = rotated + coll_block_offset(i, args->count, extent);
        char *p = packed + coll_block_offset(n++, args->count, extent);
        rc = coll_copy(is_pack ? r : p, is_pack ? p : r, args->count,
                       args->dtype, args->comm, COLL_TAG_ALLTOALL);
    }
    return rc;
}

/* Idea: rotate the blocks so that block i is the one for rank + i; at step
 * k = 1, 2, 4, ... send the blocks whose index has bit k set to rank + k
 * and put the ones received from rank - k in their place; after the last
 * step block i holds what rank - i sent this rank, and an inverse rotation
 * puts it in place. Rounds: ceil(log2 P). Cost: ceil(log2 P) * (alpha +
 * (P/2) * m * beta) plus local copies, for blocks of m bytes: fewer
 * messages than pairwise, more bytes; for small blocks. Needs: nothing. */
int alltoall_bruck(const struct coll_args *args)
{
    struct coll_layout layout;
    const char *send;
    void *temp, *rotated = NULL, *packed = NULL;
    int rank, size;
    int rc = alltoall_begin(args, &rank, &size, &layout, &send, &temp);
    if (rc != MPI_SUCCESS || args->count == 0) {
        goto done;
    }
    MPI_Aint ext = layout.extent;
    rotated = coll_temp_create(&layout, size * args->count);
    packed = coll_temp_create(&layout, (size / 2 + 1) * args->count);
    if (!rotated || !packed) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
        rc = coll_copy(
            send + coll_block_offset((rank + i) % size, args->count, ext),
            (char *)rotated + coll_block_offset(i, args->count, ext),
            args->count, args->dtype, args->comm, COLL_TAG_ALLTOALL);
    }
    for (int k = 1; k < size && rc == MPI_SUCCESS; k <<= 1) {
        int n = 0;
        for (int i = 1; i < size; i++) {
            n += (i & k) != 0;
        }
        rc = bruck_pack(args, ext, size, k, rotated, packed, 1);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Sendrecv_replace(
                packed, n * args->count, args->dtype, (rank + k) % size,
                COLL_TAG_ALLTOALL, (rank - k + size) % size, COLL_TAG_ALLTOALL,
                args->comm, MPI_STATUS_IGNORE);
        }
        if (rc == MPI_SUCCESS) {
            rc = bruck_pack(args, ext, size, k, rotated, packed, 0);
        }
    }
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++) {
        rc = coll_copy(
            (char *)rotated + coll_block_offset(i, args->count, ext),
            (char *)args->recvbuf +
                coll_block_offset((rank - i + size) % size, args->count, ext),
            args->count, args->dtype, args->comm, COLL_TAG_ALLTOALL);
    }
done:
    coll_temp_destroy(packed, &layout);
    coll_temp_destroy(rotated, &layout);
    coll_temp_destroy(temp, &layout);
    return rc;
}
