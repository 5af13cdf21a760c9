/* Rabenseifner's reduction: reduce-scatter by recursive halving, then a
 * binomial gather of the reduced blocks to the root. */
#include "collectives/internal.h"

#include <string.h>

/* Idea: with p = the largest power of two <= P, the first 2(P-p) ranks
 * (relative to the root) pair up and the odd one hands its vector to the
 * even one; the p remaining ranks cut the vector into p blocks and in
 * log2 p steps each swaps half of its current range with a partner and
 * reduces the half it keeps, ending with one reduced block; the blocks then
 * travel back up a binomial tree to the root.
 * Rounds: 2*log2 p (+1 when P is not a power of two).
 * Cost: 2*log2(p)*alpha + 2*((p-1)/p)*m*beta + ((p-1)/p)*m*gamma
 * [+ alpha + m*beta + m*gamma]. Needs: a commutative operation (partners
 * combine in whatever order the halving meets them); count may be < P. */
int reduce_rabenseifner(const struct coll_args *args)
{
    struct coll_layout layout;
    char *acc = NULL, *tmp = NULL;
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = coll_begin(args, &rank, &size, &layout)) != MPI_SUCCESS) {
        return rc;
    }

    MPI_Comm comm = args->comm;
    MPI_Datatype dtype = args->dtype;
    MPI_Aint ext = layout.extent;
    int count = args->count, root = args->root;
    int is_root = rank == root;
    const char *own = is_root && args->sendbuf == MPI_IN_PLACE ? args->recvbuf
                                                               : args->sendbuf;
    int v = (rank - root + size) % size;
    int pof2 = 1;
    while (pof2 * 2 <= size) {
        pof2 *= 2;
    }
    int rem = size - pof2;

    if (v < 2 * rem && v % 2 == 1) {
        /* Folded into v - 1; nothing more to do. */
        return MPI_Send(own, count, dtype, (v - 1 + root) % size,
                        COLL_TAG_REDUCE, comm);
    }
    if (is_root) {
        acc = args->recvbuf;
        rc = coll_copy(own, acc, count, dtype, comm, COLL_TAG_REDUCE);
    } else {
        acc = coll_temp_create(&layout, count);
        if (!acc) {
            return MPI_ERR_NO_MEM;
        }
        memcpy(acc + layout.true_lb, own + layout.true_lb,
               (size_t)(layout.true_extent + (MPI_Aint)(count - 1) * ext));
    }
    tmp = coll_temp_create(&layout, count);
    if (!tmp) {
        rc = MPI_ERR_NO_MEM;
    }
    if (rc != MPI_SUCCESS) {
        goto done;
    }
    if (v < 2 * rem) {
        if ((rc = MPI_Recv(tmp, count, dtype, (v + 1 + root) % size,
                           COLL_TAG_REDUCE, comm, MPI_STATUS_IGNORE)) ||
            (rc = MPI_Reduce_local(tmp, acc, count, dtype, args->op))) {
            goto done;
        }
    }

    int me = v < 2 * rem ? v / 2 : v - rem;
    int lo = 0, hi = pof2;

    /* Reduce-scatter: the bits of me, high to low, pick the half kept. */
    for (int mask = pof2 / 2; mask > 0; mask /= 2) {
        int peer = me ^ mask;
        int peer_v = peer < rem ? 2 * peer : peer + rem;
        int mid = lo + mask;
        int keep_lo = me & mask ? mid : lo, keep_hi = me & mask ? hi : mid;
        int give_lo = me & mask ? lo : mid, give_hi = me & mask ? mid : hi;
        int k0 = coll_block_start(count, pof2, keep_lo);
        int nk = coll_block_start(count, pof2, keep_hi) - k0;
        int g0 = coll_block_start(count, pof2, give_lo);
        int ng = coll_block_start(count, pof2, give_hi) - g0;

        rc = MPI_Sendrecv(
            acc + (MPI_Aint)g0 * ext, ng, dtype, (peer_v + root) % size,
            COLL_TAG_REDUCE, tmp + (MPI_Aint)k0 * ext, nk, dtype,
            (peer_v + root) % size, COLL_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && nk > 0) {
            rc =
                MPI_Reduce_local(tmp + (MPI_Aint)k0 * ext,
                                 acc + (MPI_Aint)k0 * ext, nk, dtype, args->op);
        }
        if (rc != MPI_SUCCESS) {
            goto done;
        }
        lo = keep_lo;
        hi = keep_hi;
    }

    /* Gather: ranges double back up a binomial tree to me = 0, the root. */
    for (int mask = 1; mask < pof2; mask *= 2) {
        int peer = me ^ mask;
        int peer_v = peer < rem ? 2 * peer : peer + rem;
        int dest = (peer_v + root) % size;
        if (me & mask) {
            int s0 = coll_block_start(count, pof2, lo);
            int n = coll_block_start(count, pof2, hi) - s0;
            rc = MPI_Send(acc + (MPI_Aint)s0 * ext, n, dtype, dest,
                          COLL_TAG_REDUCE, comm);
            break;
        }
        int r0 = coll_block_start(count, pof2, hi);
        int n = coll_block_start(count, pof2, hi + mask) - r0;
        rc = MPI_Recv(acc + (MPI_Aint)r0 * ext, n, dtype, dest, COLL_TAG_REDUCE,
                      comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            goto done;
        }
        hi += mask;
    }
done:
    if (acc != args->recvbuf) {
        coll_temp_destroy(acc, &layout);
    }
    coll_temp_destroy(tmp, &layout);
    return rc;
}
