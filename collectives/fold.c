/* The pieces shared by the algorithms that run on a power of two of ranks
 * (recursive doubling, Rabenseifner): the fold of the extra ranks, the
 * recursive-halving reduce-scatter and the return of the result to the
 * folded ranks. Invariant: remaining rank me holds the reduction of a
 * contiguous range of virtual ranks, combined in their order. */
#include "collectives/internal.h"

int coll_reduce_ordered(void *in, void *inout, int n, MPI_Datatype dtype,
                        MPI_Op op, int is_in_after, MPI_Comm comm, int tag)
{
    int commute = 1, rc;

    if (n == 0) {
        return MPI_SUCCESS;
    }
    if (is_in_after && (rc = MPI_Op_commutative(op, &commute))) {
        return rc;
    }
    if (!is_in_after || commute) {
        return MPI_Reduce_local(in, inout, n, dtype, op);
    }
    if ((rc = MPI_Reduce_local(inout, in, n, dtype, op)) != MPI_SUCCESS) {
        return rc;
    }
    return coll_copy(in, inout, n, dtype, comm, tag);
}

int coll_fold_rank(const struct coll_fold *f, int me)
{
    int v = me < f->rem ? 2 * me : me + f->rem;
    return (v + f->args->root) % f->size;
}

static char *fold_at(const struct coll_fold *f, char *buf, int block)
{
    return buf + (MPI_Aint)coll_block_start(f->args->count, f->pof2, block) *
                     f->layout.extent;
}

static int fold_elems(const struct coll_fold *f, int first, int last)
{
    int count = f->args->count;
    return coll_block_start(count, f->pof2, last) -
           coll_block_start(count, f->pof2, first);
}

int coll_fold_begin(struct coll_fold *f, const struct coll_args *args, int tag,
                    int is_acc_recvbuf)
{
    int rc;

    *f = (struct coll_fold){.args = args, .tag = tag, .me = -1};
    if ((rc = coll_begin(args, &f->rank, &f->size, &f->layout))) {
        return rc;
    }
    MPI_Comm comm = args->comm;
    int count = args->count;
    const char *own =
        args->sendbuf == MPI_IN_PLACE ? args->recvbuf : args->sendbuf;
    f->v = (f->rank - args->root + f->size) % f->size;
    f->pof2 = 1;
    while (f->pof2 * 2 <= f->size) {
        f->pof2 *= 2;
    }
    f->rem = f->size - f->pof2;
    f->lo = 0;
    f->hi = f->pof2;

    if (f->v < 2 * f->rem && f->v % 2 == 1) {
        return MPI_Send(own, count, args->dtype,
                        (f->v - 1 + args->root) % f->size, tag, comm);
    }
    f->acc =
        is_acc_recvbuf ? args->recvbuf : coll_temp_create(&f->layout, count);
    f->tmp = coll_temp_create(&f->layout, count);
    if (!f->acc || !f->tmp) {
        return MPI_ERR_NO_MEM;
    }
    if ((rc = coll_copy(own, f->acc, count, args->dtype, comm, tag))) {
        return rc;
    }
    if (f->v < 2 * f->rem) {
        /* The operand of v + 1 comes after ours. */
        if ((rc = MPI_Recv(f->tmp, count, args->dtype,
                           (f->v + 1 + args->root) % f->size, tag, comm,
                           MPI_STATUS_IGNORE)) ||
            (rc = coll_reduce_ordered(f->tmp, f->acc, count, args->dtype,
                                      args->op, 1, comm, tag))) {
            return rc;
        }
    }
    f->me = f->v < 2 * f->rem ? f->v / 2 : f->v - f->rem;
    return MPI_SUCCESS;
}

/* Idea: with mask = 1, 2, ..., p/2, me swaps half of its current range of
 * blocks with me xor mask and reduces the half it keeps (the lower one when
 * the bit is clear); partners hold adjacent ranges of ranks, so the
 * operands meet in rank order. Rounds: log2 p.
 * Cost: log2(p)*alpha + ((p-1)/p)*m*(beta + gamma). */
int coll_fold_reduce_scatter(struct coll_fold *f)
{
    const struct coll_args *args = f->args;

    for (int mask = 1; mask < f->pof2; mask *= 2) {
        int peer = f->me ^ mask;
        int dest = coll_fold_rank(f, peer);
        int mid = (f->lo + f->hi) / 2;
        int is_upper = (f->me & mask) != 0;
        int keep_lo = is_upper ? mid : f->lo, keep_hi = is_upper ? f->hi : mid;
        int give_lo = is_upper ? f->lo : mid, give_hi = is_upper ? mid : f->hi;
        int nk = fold_elems(f, keep_lo, keep_hi);

        int rc = MPI_Sendrecv(
            fold_at(f, f->acc, give_lo), fold_elems(f, give_lo, give_hi),
            args->dtype, dest, f->tag, fold_at(f, f->tmp, keep_lo), nk,
            args->dtype, dest, f->tag, args->comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) {
            rc = coll_reduce_ordered(
                fold_at(f, f->tmp, keep_lo), fold_at(f, f->acc, keep_lo), nk,
                args->dtype, args->op, peer > f->me, args->comm, f->tag);
        }
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        f->lo = keep_lo;
        f->hi = keep_hi;
    }
    return MPI_SUCCESS;
}

int coll_fold_gather_step(struct coll_fold *f, int mask, int is_send,
                          int is_recv)
{
    const struct coll_args *args = f->args;
    int width = f->hi - f->lo;
    int first = f->me & mask ? f->lo - width : f->hi;
    int peer = coll_fold_rank(f, f->me ^ mask);
    char *mine = fold_at(f, f->acc, f->lo), *theirs = fold_at(f, f->acc, first);
    int n_mine = fold_elems(f, f->lo, f->hi);
    int n_theirs = fold_elems(f, first, first + width);
    int rc;

    if (is_send && is_recv) {
        rc = MPI_Sendrecv(mine, n_mine, args->dtype, peer, f->tag, theirs,
                          n_theirs, args->dtype, peer, f->tag, args->comm,
                          MPI_STATUS_IGNORE);
    } else if (is_send) {
        rc = MPI_Send(mine, n_mine, args->dtype, peer, f->tag, args->comm);
    } else {
        rc = MPI_Recv(theirs, n_theirs, args->dtype, peer, f->tag, args->comm,
                      MPI_STATUS_IGNORE);
    }
    if (is_recv) {
        f->lo = first < f->lo ? first : f->lo;
        f->hi = f->lo + 2 * width;
    }
    return rc;
}

int coll_fold_release(const struct coll_fold *f)
{
    const struct coll_args *args = f->args;
    if (f->v >= 2 * f->rem) {
        return MPI_SUCCESS;
    }
    if (f->v % 2 == 0) {
        return MPI_Send(f->acc, args->count, args->dtype,
                        (f->v + 1 + args->root) % f->size, f->tag, args->comm);
    }
    return MPI_Recv(args->recvbuf, args->count, args->dtype,
                    (f->v - 1 + args->root) % f->size, f->tag, args->comm,
                    MPI_STATUS_IGNORE);
}

void coll_fold_destroy(struct coll_fold *f)
{
    if (f->acc != f->args->recvbuf) {
        coll_temp_destroy(f->acc, &f->layout);
    }
    coll_temp_destroy(f->tmp, &f->layout);
    f->acc = f->tmp = NULL;
}
