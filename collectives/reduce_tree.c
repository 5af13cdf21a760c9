/* The pipelined tree reduction shared by the tree algorithms. Per segment a
 * rank folds its children's partial results into an accumulator in the
 * tree's operand order (acc = operand op acc), receiving one child ahead. */
#include "collectives/internal.h"

#include <stdlib.h>
#include <string.h>

/* One rank's share of a reduction. Child event e is the receive of segment
 * e / n_children from child e % n_children; events alternate between the
 * two tmp buffers so that the next one is posted while one is folded. */
struct reduce_state {
    const struct coll_args *args;
    const struct topo_tree *tree;
    struct coll_layout layout;
    struct coll_segs segs;
    char *acc;
    char *tmp[2];
    MPI_Request reqs[2];
};

static int state_is_first(const struct reduce_state *st, int child)
{
    return st->tree->self_pos > 0 && child == 0;
}

/* Posts child event e: into the accumulator when it is the segment's first
 * operand, into tmp[e % 2] otherwise. */
static int state_post(struct reduce_state *st, long e)
{
    int nc = st->tree->n_children;
    int seg = (int)(e / nc), child = (int)(e % nc);
    char *dst =
        state_is_first(st, child)
            ? st->acc + coll_segs_offset(&st->segs, seg, st->layout.extent)
            : st->tmp[e % 2];
    return MPI_Irecv(dst, coll_segs_elems(&st->segs, seg), st->args->dtype,
                     st->tree->children[child], COLL_TAG_REDUCE, st->args->comm,
                     &st->reqs[e % 2]);
}

/* Copies own operand into a temporary accumulator: raw bytes are fine there
 * (holes included); user buffers take a datatype copy. */
static int state_copy_own(struct reduce_state *st, const char *own,
                          MPI_Aint off, int n)
{
    const struct coll_layout *l = &st->layout;
    if (st->acc == st->args->recvbuf) {
        return coll_copy(own + off, st->acc + off, n, st->args->dtype,
                         st->args->comm, COLL_TAG_REDUCE);
    }
    memcpy(st->acc + off + l->true_lb, own + off + l->true_lb,
           (size_t)(l->true_extent + (MPI_Aint)(n - 1) * l->extent));
    return MPI_SUCCESS;
}

int reduce_tree_run(const struct coll_args *args, const struct topo_tree *tree)
{
    struct reduce_state st = {.args = args, .tree = tree};
    MPI_Request send_req = MPI_REQUEST_NULL;
    int rank, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Comm_rank(args->comm, &rank)) != MPI_SUCCESS ||
        (rc = coll_layout_get(args->dtype, &st.layout)) != MPI_SUCCESS) {
        return rc;
    }
    coll_segs_init(&st.segs, args->count, args->dtype, args->seg_bytes);

    int is_root = rank == args->root;
    int is_tree_root = tree->parent < 0;
    int nc = tree->n_children;
    long n_events = (long)nc * st.segs.n_segs;
    const char *own = is_root && args->sendbuf == MPI_IN_PLACE ? args->recvbuf
                                                               : args->sendbuf;
    MPI_Aint ext = st.layout.extent;

    /* The root accumulates straight into recvbuf unless that would overwrite
     * its own operand before it is used. */
    if (nc == 0) {
        st.acc = (char *)own;
    } else if (is_root && is_tree_root &&
               (tree->self_pos == 0 || args->sendbuf != MPI_IN_PLACE)) {
        st.acc = args->recvbuf;
    } else {
        st.acc = coll_temp_create(&st.layout, args->count);
    }
    if (nc > 0) {
        st.tmp[0] = coll_temp_create(&st.layout, st.segs.seg_count);
        st.tmp[1] = coll_temp_create(&st.layout, st.segs.seg_count);
    }
    if (!st.acc || (nc > 0 && (!st.tmp[0] || !st.tmp[1]))) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }

    if (n_events > 0 && (rc = state_post(&st, 0)) != MPI_SUCCESS) {
        goto done;
    }
    for (int s = 0; s < st.segs.n_segs; s++) {
        MPI_Aint off = coll_segs_offset(&st.segs, s, ext);
        int n = coll_segs_elems(&st.segs, s);

        for (int pos = 0; pos <= nc; pos++) {
            if (pos == tree->self_pos) {
                if (pos == 0 && nc > 0) {
                    rc = state_copy_own(&st, own, off, n);
                } else if (pos > 0) {
                    rc = MPI_Reduce_local(own + off, st.acc + off, n,
                                          args->dtype, args->op);
                }
                if (rc != MPI_SUCCESS) {
                    goto done;
                }
                continue;
            }
            int child = pos < tree->self_pos ? pos : pos - 1;
            long e = (long)s * nc + child;
            if (e + 1 < n_events && (rc = state_post(&st, e + 1))) {
                goto done;
            }
            if ((rc = MPI_Wait(&st.reqs[e % 2], MPI_STATUS_IGNORE))) {
                goto done;
            }
            if (!state_is_first(&st, child)) {
                rc = MPI_Reduce_local(st.tmp[e % 2], st.acc + off, n,
                                      args->dtype, args->op);
                if (rc != MPI_SUCCESS) {
                    goto done;
                }
            }
        }
        if (!is_tree_root) {
            if ((rc = MPI_Wait(&send_req, MPI_STATUS_IGNORE)) ||
                (rc = MPI_Isend(st.acc + off, n, args->dtype, tree->parent,
                                COLL_TAG_REDUCE, args->comm, &send_req))) {
                goto done;
            }
        }
    }
    if ((rc = MPI_Wait(&send_req, MPI_STATUS_IGNORE))) {
        goto done;
    }

    /* In-order trees end at rank P-1; the result travels on in one piece. */
    if (is_tree_root && !is_root) {
        rc = MPI_Send(st.acc, args->count, args->dtype, args->root,
                      COLL_TAG_REDUCE, args->comm);
    } else if (is_root && !is_tree_root) {
        rc = MPI_Recv(args->recvbuf, args->count, args->dtype, tree->root,
                      COLL_TAG_REDUCE, args->comm, MPI_STATUS_IGNORE);
    } else if (is_root && st.acc != args->recvbuf) {
        rc = coll_copy(st.acc, args->recvbuf, args->count, args->dtype,
                       args->comm, COLL_TAG_REDUCE);
    }
done:
    if (st.acc != own && st.acc != args->recvbuf) {
        coll_temp_destroy(st.acc, &st.layout);
    }
    coll_temp_destroy(st.tmp[0], &st.layout);
    coll_temp_destroy(st.tmp[1], &st.layout);
    return rc;
}

int reduce_tree_shape(const struct coll_args *args, enum topo_shape shape,
                      int fanout, int is_in_order)
{
    struct topo_tree tree;
    int rank, size, commute = 1, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Comm_rank(args->comm, &rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(args->comm, &size)) != MPI_SUCCESS ||
        (rc = MPI_Op_commutative(args->op, &commute)) != MPI_SUCCESS) {
        return rc;
    }
    if (topo_tree_create(&tree, shape, fanout, rank, size, args->root,
                         is_in_order || !commute)) {
        return MPI_ERR_NO_MEM;
    }
    rc = reduce_tree_run(args, &tree);
    topo_tree_destroy(&tree);
    return rc;
}
