/* Scatter and gather on a tree, by pieces: the subtree of virtual rank v
 * holds the blocks of virtual ranks [v, v + n_subtree), one contiguous
 * range of elements. Invariant: every rank cuts a range at the same points
 * (multiples of the segment, and where the root's buffer wraps to comm rank
 * 0), so what a parent sends a child in one message is exactly one piece of
 * the child's range, received in the same order. */
#include "collectives/internal.h"

#include <limits.h>
#include <stdlib.h>

enum { SENDS_OUTSTANDING = 4 };

struct blocks_tree {
    const struct coll_args *args;
    struct topo_tree tree;
    MPI_Aint extent;
    int size;
    MPI_Aint count;     /* elements per block */
    MPI_Aint seg;       /* elements per segment; 0: whole ranges */
    MPI_Aint wrap;      /* element where comm rank 0's block starts */
    MPI_Aint lo, hi;    /* this rank's range, in elements */
    MPI_Aint *child_lo; /* child i's range: [child_lo[i], child_lo[i + 1]) */
    char *buf;          /* the range from lo (the root: its user buffer) */
    int is_gather;
    MPI_Request sends[SENDS_OUTSTANDING];
    long n_sends;
};

/* Where element x lies: in the root's buffer, blocks are in comm-rank
 * order, so the range wraps once; elsewhere, in order from lo. */
static char *piece_at(const struct blocks_tree *t, MPI_Aint x)
{
    if (t->tree.parent >= 0) {
        return t->buf + (x - t->lo) * t->extent;
    }
    MPI_Aint root_at = (MPI_Aint)t->args->root * t->count;
    return t->buf + (x < t->wrap ? x + root_at : x - t->wrap) * t->extent;
}

/* The first cut above x, at most limit. */
static MPI_Aint cut_after(const struct blocks_tree *t, MPI_Aint x,
                          MPI_Aint limit)
{
    MPI_Aint end = limit;
    if (t->seg > 0 && (x / t->seg + 1) * t->seg < end) {
        end = (x / t->seg + 1) * t->seg;
    }
    if (t->wrap > x && t->wrap < end) {
        end = t->wrap;
    }
    return end;
}

/* The last cut below x, at least limit. */
static MPI_Aint cut_before(const struct blocks_tree *t, MPI_Aint x,
                           MPI_Aint limit)
{
    MPI_Aint start = limit;
    if (t->seg > 0 && (x - 1) / t->seg * t->seg > start) {
        start = (x - 1) / t->seg * t->seg;
    }
    if (t->wrap < x && t->wrap > start) {
        start = t->wrap;
    }
    return start;
}

/* A send that may stay outstanding while the next pieces move; the oldest
 * completes first when SENDS_OUTSTANDING are in flight. */
static int blocks_send(struct blocks_tree *t, MPI_Aint a, MPI_Aint b, int peer)
{
    MPI_Request *req = &t->sends[t->n_sends++ % SENDS_OUTSTANDING];
    int rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Isend(piece_at(t, a), (int)(b - a), t->args->dtype, peer,
                       t->is_gather ? COLL_TAG_GATHER : COLL_TAG_SCATTER,
                       t->args->comm, req);
    }
    return rc;
}

/* The receive of piece [a, b) in slot j: a scatter receives the whole
 * piece from the parent (slot 0), a gather the part in child j's range from
 * child j. Sets [*pa, *pb) and *peer; 0 when the slot gets nothing. */
static int blocks_part(const struct blocks_tree *t, int j, MPI_Aint a,
                       MPI_Aint b, MPI_Aint *pa, MPI_Aint *pb, int *peer)
{
    if (!t->is_gather) {
        *pa = a;
        *pb = b;
        *peer = t->tree.parent;
        return j == 0 && t->tree.parent >= 0 && a < b;
    }
    *pa = a > t->child_lo[j] ? a : t->child_lo[j];
    *pb = b < t->child_lo[j + 1] ? b : t->child_lo[j + 1];
    *peer = t->tree.children[j];
    return j < t->tree.n_children && *pa < *pb;
}

/* Posts the receives of piece [a, b) not yet posted into next (n: their
 * element counts). With now (the previous piece's receives, still
 * pending), a receive is left for later when the same peer's pending one is
 * smaller: SimGrid 3.32 deadlocks when a message below
 * smpi/async-small-thresh and a larger one above it from the same peer
 * meet two posted receives, and pieces do vary in size. */
static int blocks_post_recvs(const struct blocks_tree *t, MPI_Aint a,
                             MPI_Aint b, MPI_Request *next, int *next_n,
                             const MPI_Request *now, const int *now_n)
{
    int tag = t->is_gather ? COLL_TAG_GATHER : COLL_TAG_SCATTER;
    int rc = MPI_SUCCESS;
    for (int j = 0; j <= t->tree.n_children && rc == MPI_SUCCESS; j++) {
        MPI_Aint pa, pb;
        int peer;
        if (!blocks_part(t, j, a, b, &pa, &pb, &peer) ||
            next[j] != MPI_REQUEST_NULL ||
            (now && now[j] != MPI_REQUEST_NULL && now_n[j] < pb - pa)) {
            continue;
        }
        next_n[j] = (int)(pb - pa);
        rc = MPI_Irecv(piece_at(t, pa), next_n[j], t->args->dtype, peer, tag,
                       t->args->comm, &next[j]);
    }
    return rc;
}

/* Passes piece [a, b) on, once received: scatter: to every child whose
 * range it meets, the largest ranks first; gather: to the parent. */
static int blocks_pass_on(struct blocks_tree *t, MPI_Aint a, MPI_Aint b)
{
    int rc = MPI_SUCCESS;
    if (t->is_gather) {
        return t->tree.parent < 0 ? MPI_SUCCESS
                                  : blocks_send(t, a, b, t->tree.parent);
    }
    for (int i = t->tree.n_children - 1; i >= 0 && rc == MPI_SUCCESS; i--) {
        MPI_Aint pa = a > t->child_lo[i] ? a : t->child_lo[i];
        MPI_Aint pb = b < t->child_lo[i + 1] ? b : t->child_lo[i + 1];
        if (pa < pb) {
            rc = blocks_send(t, pa, pb, t->tree.children[i]);
        }
    }
    return rc;
}

/* Moves this rank's range piece by piece (the root's own block stays): a
 * scatter from the top of the range down, so the largest subtrees start
 * first and a rank's own block comes last; a gather from the bottom up, its
 * own block first. The receives of the next piece are posted before this
 * one is waited for (but see blocks_post_recvs). */
static int blocks_move(struct blocks_tree *t)
{
    int n_req = t->tree.n_children + 1, rc = MPI_SUCCESS;
    MPI_Aint first = t->tree.parent < 0 ? t->lo + t->count : t->lo;
    MPI_Aint a, b;
    MPI_Request *reqs = malloc(2 * (size_t)n_req * sizeof *reqs);
    int *counts = malloc(2 * (size_t)n_req * sizeof *counts);
    if (!reqs || !counts) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    for (int i = 0; i < 2 * n_req; i++) {
        reqs[i] = MPI_REQUEST_NULL;
        counts[i] = 0;
    }
    if (t->is_gather) {
        a = first;
        b = cut_after(t, a, t->hi);
    } else {
        b = t->hi;
        a = cut_before(t, b, first);
    }
    for (long k = 0; a < b && rc == MPI_SUCCESS; k++) {
        MPI_Aint next_a = t->is_gather ? b : cut_before(t, a, first);
        MPI_Aint next_b = t->is_gather ? cut_after(t, b, t->hi) : a;
        MPI_Request *now = reqs + (k % 2) * n_req;
        MPI_Request *next = reqs + ((k + 1) % 2) * n_req;
        int *now_n = counts + (k % 2) * n_req;
        int *next_n = counts + ((k + 1) % 2) * n_req;
        /* Receives of this piece not posted early, then the next's. */
        rc = blocks_post_recvs(t, a, b, now, now_n, NULL, NULL);
        if (rc == MPI_SUCCESS) {
            rc = blocks_post_recvs(t, next_a, next_b, next, next_n, now, now_n);
        }
        if (rc == MPI_SUCCESS) {
            rc = MPI_Waitall(n_req, now, MPI_STATUSES_IGNORE);
        }
        if (rc == MPI_SUCCESS) {
            rc = blocks_pass_on(t, a, b);
        }
        a = next_a;
        b = next_b;
    }
    if (rc == MPI_SUCCESS) {
        rc = MPI_Waitall(SENDS_OUTSTANDING, t->sends, MPI_STATUSES_IGNORE);
    }
done:
    free(reqs);
    free(counts);
    return rc;
}

/* Sets up t for this rank: its tree, range, children's ranges and buffer
 * (a temporary for the inner ranks, the user buffer at the root and at
 * leaves); *temp is what the caller frees. */
static int blocks_begin(struct blocks_tree *t, const struct coll_args *args,
                        enum topo_shape shape, int fanout, void **temp,
                        struct coll_layout *layout)
{
    int rank, rc = coll_begin(args, &rank, &t->size, layout);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((long long)t->size * args->count > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    if (topo_tree_create(&t->tree, shape, fanout, rank, t->size, args->root,
                         0)) {
        return MPI_ERR_NO_MEM;
    }
    int v = (rank - args->root + t->size) % t->size;
    t->args = args;
    t->extent = layout->extent;
    t->count = args->count;
    t->seg = args->seg_bytes > 0 && layout->size > 0
                 ? args->seg_bytes / layout->size
                 : 0;
    t->seg = args->seg_bytes > 0 && t->seg < 1 ? 1 : t->seg;
    t->wrap = (MPI_Aint)((t->size - args->root) % t->size) * t->count;
    t->lo = (MPI_Aint)v * t->count;
    t->hi = (MPI_Aint)(v + t->tree.n_subtree) * t->count;
    for (int i = 0; i < SENDS_OUTSTANDING; i++) {
        t->sends[i] = MPI_REQUEST_NULL;
    }
    t->child_lo = malloc(((size_t)t->tree.n_children + 1) * sizeof(MPI_Aint));
    if (!t->child_lo) {
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < t->tree.n_children; i++) {
        int cv = (t->tree.children[i] - args->root + t->size) % t->size;
        t->child_lo[i] = (MPI_Aint)cv * t->count;
    }
    t->child_lo[t->tree.n_children] = t->hi;
    if (t->tree.parent < 0) {
        t->buf = t->is_gather ? args->recvbuf : (char *)args->sendbuf;
    } else if (t->tree.n_children == 0) {
        t->buf = t->is_gather ? (char *)args->sendbuf : args->recvbuf;
    } else {
        *temp = coll_temp_create(layout, (int)(t->hi - t->lo));
        t->buf = *temp;
        if (!t->buf) {
            return MPI_ERR_NO_MEM;
        }
    }
    return MPI_SUCCESS;
}

/* The whole collective; own blocks are copied where they enter or leave
 * the tree: at the root from or to the user buffer, at inner ranks into or
 * out of the temporary. */
static int blocks_tree(const struct coll_args *args, enum topo_shape shape,
                       int fanout, int is_gather)
{
    struct blocks_tree t = {.is_gather = is_gather};
    struct coll_layout layout;
    void *temp = NULL;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    rc = blocks_begin(&t, args, shape, fanout, &temp, &layout);
    int rank = t.tree.parent < 0 ? args->root : -1;
    if (rc == MPI_SUCCESS && is_gather && temp) {
        rc = coll_copy(args->sendbuf, temp, args->count, args->dtype,
                       args->comm, COLL_TAG_GATHER);
    }
    if (rc == MPI_SUCCESS) {
        rc = blocks_move(&t);
    }
    if (rc == MPI_SUCCESS && !is_gather && temp) {
        rc = coll_copy(temp, args->recvbuf, args->count, args->dtype,
                       args->comm, COLL_TAG_SCATTER);
    }
    if (rc == MPI_SUCCESS && rank >= 0) {
        rc = is_gather ? gather_copy_own(args, rank, &layout)
                       : scatter_copy_own(args, rank, &layout);
    }
    coll_temp_destroy(temp, &layout);
    free(t.child_lo);
    topo_tree_destroy(&t.tree);
    return rc;
}

int scatter_tree_shape(const struct coll_args *args, enum topo_shape shape,
                       int fanout)
{
    return blocks_tree(args, shape, fanout, 0);
}

int gather_tree_shape(const struct coll_args *args, enum topo_shape shape,
                      int fanout)
{
    return blocks_tree(args, shape, fanout, 1);
}
