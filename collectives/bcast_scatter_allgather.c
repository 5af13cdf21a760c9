/* Scatter-allgather broadcast: binomial scatter of P blocks, then a
 * recursive-doubling allgather. */
#include "collectives/internal.h"

/* Within a group of m ranks whose first n_have ranks hold blocks
 * [first, last), hand the blocks to the others along a halving tree. */
static int allgather_fill_group(const struct coll_args *args, MPI_Aint extent,
                                int v, int group_root, int m, int n_have,
                                int first, int last)
{
    int size, rc = MPI_Comm_size(args->comm, &size);
    int t = v - group_root;

    for (int half = m >> 1; half > 0 && rc == MPI_SUCCESS; half >>= 1) {
        int sub_root = t & ~(2 * half - 1);
        int peer = t ^ half;
        int peer_rank = (group_root + peer + args->root) % size;
        if (peer > t && t < sub_root + n_have && peer >= sub_root + n_have) {
            rc = bcast_blocks_xfer(args, extent, first, last, peer_rank, 1);
        } else if (peer < t && peer < sub_root + n_have &&
                   t >= sub_root + n_have) {
            rc = bcast_blocks_xfer(args, extent, first, last, peer_rank, 0);
        }
    }
    return rc;
}

/* Idea: scatter the P blocks down a binomial tree, then in step i rank v
 * swaps the 2^i blocks of its group with rank v xor 2^i; when P is not a
 * power of two the ranks of a group whose partner does not exist get the
 * missing blocks from those of their group that had one.
 * Rounds: ceil(log2 P) for the scatter, ceil(log2 P) exchanges plus at most
 * log2 P fill-in steps per step when P is not a power of two.
 * Cost: 2*ceil(log2 P)*alpha + 2*((P-1)/P)*m*beta for P a power of two.
 * Needs: nothing (blocks may be empty when count < P). */
int bcast_scatter_allgather(const struct coll_args *args)
{
    struct coll_layout layout;
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = coll_begin(args, &rank, &size, &layout)) != MPI_SUCCESS ||
        (rc = bcast_scatter_binomial(args, layout.extent)) != MPI_SUCCESS) {
        return rc;
    }

    int v = (rank - args->root + size) % size;
    int count = args->count;
    MPI_Aint ext = layout.extent;
    char *buf = args->recvbuf;

    for (long m = 1; m < size; m <<= 1) {
        int group = v & ~((int)m - 1);
        int dst = v ^ (int)m;
        int dst_group = group ^ (int)m;

        if (dst < size) {
            /* Each side holds its whole group, clipped to P. */
            int my_last = group + (int)m < size ? group + (int)m : size;
            int dst_last =
                dst_group + (int)m < size ? dst_group + (int)m : size;
            int s0 = coll_block_start(count, size, group);
            int r0 = coll_block_start(count, size, dst_group);
            int n_send = coll_block_start(count, size, my_last) - s0;
            int n_recv = coll_block_start(count, size, dst_last) - r0;
            int peer = (dst + args->root) % size;
            rc = MPI_Sendrecv(buf + (MPI_Aint)s0 * ext, n_send, args->dtype,
                              peer, COLL_TAG_BCAST, buf + (MPI_Aint)r0 * ext,
                              n_recv, args->dtype, peer, COLL_TAG_BCAST,
                              args->comm, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
        if (dst_group > group && dst_group < size && dst_group + m > size) {
            rc = allgather_fill_group(args, ext, v, group, (int)m,
                                      size - dst_group, dst_group, size);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
    }
    return MPI_SUCCESS;
}
