/* A buffer cut into one block per rank, and the allgathers that complete
 * it: block i (as by coll_block_start) belongs to virtual rank i. Both sides
 * of every transfer compute the same element counts, so empty blocks are
 * skipped or sent empty on both sides alike. */
#include "collectives/internal.h"

#include <limits.h>

void coll_blocks_init(struct coll_blockbuf *b, const struct coll_args *args,
                      void *buf, int count, int n_blocks, MPI_Aint extent,
                      int root, int tag)
{
    *b = (struct coll_blockbuf){.buf = buf,
                                .count = count,
                                .n_blocks = n_blocks,
                                .dtype = args->dtype,
                                .extent = extent,
                                .root = root,
                                .tag = tag,
                                .comm = args->comm};
}

static int blocks_start(const struct coll_blockbuf *b, int i)
{
    return coll_block_start(b->count, b->n_blocks, i);
}

static char *blocks_at(const struct coll_blockbuf *b, int i)
{
    return b->buf + (MPI_Aint)blocks_start(b, i) * b->extent;
}

static int blocks_rank(const struct coll_blockbuf *b, int v)
{
    return (v + b->root) % b->n_blocks;
}

int coll_blocks_xfer(const struct coll_blockbuf *b, int first, int last,
                     int peer, int is_send)
{
    if (last > b->n_blocks) {
        last = b->n_blocks;
    }
    int n = last > first ? blocks_start(b, last) - blocks_start(b, first) : 0;
    if (n == 0) {
        return MPI_SUCCESS;
    }
    if (is_send) {
        return MPI_Send(blocks_at(b, first), n, b->dtype, peer, b->tag,
                        b->comm);
    }
    return MPI_Recv(blocks_at(b, first), n, b->dtype, peer, b->tag, b->comm,
                    MPI_STATUS_IGNORE);
}

/* Idea: in each of P-1 steps every rank passes the block it received last
 * to its right neighbour. Rounds: P-1. Cost: (P-1)*alpha + ((P-1)/P)*m*beta
 * for m the whole buffer. */
int coll_blocks_ring(const struct coll_blockbuf *b, int v, int first)
{
    int p = b->n_blocks;
    int right = blocks_rank(b, (v + 1) % p);
    int left = blocks_rank(b, (v - 1 + p) % p);

    for (int i = 0; i < p - 1; i++) {
        int send_block = ((first - i) % p + p) % p;
        int recv_block = ((first - i - 1) % p + p) % p;
        int n_send =
            blocks_start(b, send_block + 1) - blocks_start(b, send_block);
        int n_recv =
            blocks_start(b, recv_block + 1) - blocks_start(b, recv_block);
        int rc =
            MPI_Sendrecv(blocks_at(b, send_block), n_send, b->dtype, right,
                         b->tag, blocks_at(b, recv_block), n_recv, b->dtype,
                         left, b->tag, b->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Within a group of m ranks whose first n_have ranks hold blocks
 * [first, last), hand the blocks to the others along a halving tree. */
static int blocks_fill_group(const struct coll_blockbuf *b, int v,
                             int group_root, int m, int n_have, int first,
                             int last)
{
    int rc = MPI_SUCCESS;
    int t = v - group_root;

    for (int half = m >> 1; half > 0 && rc == MPI_SUCCESS; half >>= 1) {
        int sub_root = t & ~(2 * half - 1);
        int peer = t ^ half;
        int peer_rank = blocks_rank(b, group_root + peer);
        if (peer > t && t < sub_root + n_have && peer >= sub_root + n_have) {
            rc = coll_blocks_xfer(b, first, last, peer_rank, 1);
        } else if (peer < t && peer < sub_root + n_have &&
                   t >= sub_root + n_have) {
            rc = coll_blocks_xfer(b, first, last, peer_rank, 0);
        }
    }
    return rc;
}

/* Idea: in step i rank v swaps the 2^i blocks of its group with rank
 * v xor 2^i; when P is not a power of two the ranks of a group whose partner
 * does not exist get the missing blocks from those of their group that had
 * one. Rounds: ceil(log2 P) exchanges plus at most log2 P fill-in steps per
 * step when P is not a power of two. Cost: ceil(log2 P)*alpha +
 * ((P-1)/P)*m*beta for P a power of two. */
int coll_blocks_doubling(const struct coll_blockbuf *b, int v)
{
    int size = b->n_blocks;

    for (long m = 1; m < size; m <<= 1) {
        int group = v & ~((int)m - 1);
        int dst = v ^ (int)m;
        int dst_group = group ^ (int)m;

        if (dst < size) {
            /* Each side holds its whole group, clipped to P. */
            int my_last = group + (int)m < size ? group + (int)m : size;
            int dst_last =
                dst_group + (int)m < size ? dst_group + (int)m : size;
            int n_send = blocks_start(b, my_last) - blocks_start(b, group);
            int n_recv = blocks_start(b, dst_last) - blocks_start(b, dst_group);
            int peer = blocks_rank(b, dst);
            int rc =
                MPI_Sendrecv(blocks_at(b, group), n_send, b->dtype, peer,
                             b->tag, blocks_at(b, dst_group), n_recv, b->dtype,
                             peer, b->tag, b->comm, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
        if (dst_group > group && dst_group < size && dst_group + m > size) {
            int rc = blocks_fill_group(b, v, group, (int)m, size - dst_group,
                                       dst_group, size);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
    }
    return MPI_SUCCESS;
}

int allgather_begin(const struct coll_args *args, struct coll_allgather *g)
{
    int rc = coll_begin(args, &g->rank, &g->size, &g->layout);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (args->count > INT_MAX / g->size) {
        return MPI_ERR_COUNT;
    }
    g->block = (MPI_Aint)args->count * g->layout.extent;
    coll_blocks_init(&g->b, args, args->recvbuf, args->count * g->size, g->size,
                     g->layout.extent, 0, COLL_TAG_ALLGATHER);
    if (args->sendbuf == MPI_IN_PLACE) {
        return MPI_SUCCESS;
    }
    return coll_copy(args->sendbuf, g->b.buf + g->rank * g->block, args->count,
                     args->dtype, args->comm, COLL_TAG_ALLGATHER);
}
