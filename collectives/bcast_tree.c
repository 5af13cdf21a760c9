/* The pipelined tree broadcast shared by the tree algorithms: a node
 * forwards segment s while segment s + 1 is already being received. */
#include "collectives/internal.h"

#include <stdlib.h>

int bcast_tree_region(void *buf, int count, MPI_Datatype dtype, int seg_bytes,
                      int parent, const int *children, int n_children,
                      MPI_Comm comm)
{
    struct coll_layout layout;
    struct coll_segs segs;
    MPI_Request recv_reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request *send_reqs = NULL;
    char *base = buf;
    int rc;

    if (count == 0) {
        return MPI_SUCCESS;
    }
    rc = coll_layout_get(dtype, &layout);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_segs_init(&segs, count, dtype, seg_bytes);
    if (n_children > 0) {
        send_reqs = malloc((size_t)n_children * sizeof *send_reqs);
        if (!send_reqs) {
            return MPI_ERR_NO_MEM;
        }
    }
    if (parent >= 0) {
        rc = MPI_Irecv(base, coll_segs_elems(&segs, 0), dtype, parent,
                       COLL_TAG_BCAST, comm, &recv_reqs[0]);
        if (rc != MPI_SUCCESS) {
            goto done;
        }
    }
    for (int s = 0; s < segs.n_segs; s++) {
        char *seg = base + coll_segs_offset(&segs, s, layout.extent);
        int n = coll_segs_elems(&segs, s);

        if (parent >= 0) {
            if (s + 1 < segs.n_segs) {
                rc = MPI_Irecv(
                    base + coll_segs_offset(&segs, s + 1, layout.extent),
                    coll_segs_elems(&segs, s + 1), dtype, parent,
                    COLL_TAG_BCAST, comm, &recv_reqs[(s + 1) % 2]);
                if (rc != MPI_SUCCESS) {
                    goto done;
                }
            }
            rc = MPI_Wait(&recv_reqs[s % 2], MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {
                goto done;
            }
        }
        for (int i = n_children - 1; i >= 0; i--) {
            rc = MPI_Isend(seg, n, dtype, children[i], COLL_TAG_BCAST, comm,
                           &send_reqs[n_children - 1 - i]);
            if (rc != MPI_SUCCESS) {
                goto done;
            }
        }
        if (n_children > 0) {
            rc = MPI_Waitall(n_children, send_reqs, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS) {
                goto done;
            }
        }
    }
done:
    free(send_reqs);
    return rc;
}

int bcast_tree_run(const struct coll_args *args, const struct topo_tree *tree)
{
    return bcast_tree_region(args->recvbuf, args->count, args->dtype,
                             args->seg_bytes, tree->parent, tree->children,
                             tree->n_children, args->comm);
}

int bcast_tree_shape(const struct coll_args *args, enum topo_shape shape,
                     int fanout)
{
    struct topo_tree tree;
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    rc = MPI_Comm_rank(args->comm, &rank);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_size(args->comm, &size);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (topo_tree_create(&tree, shape, fanout, rank, size, args->root, 0)) {
        return MPI_ERR_NO_MEM;
    }
    rc = bcast_tree_run(args, &tree);
    topo_tree_destroy(&tree);
    return rc;
}
