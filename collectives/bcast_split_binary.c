/* Split-binary broadcast: each half of the message goes down one half of a
 * binary tree, then the two halves of the tree swap their halves. */
#include "collectives/internal.h"

/* Idea: in ranks relative to the root, the root's left subtree [1, 1+n_l)
 * receives the first half A of the message and the right subtree [1+n_l, P)
 * the second half B, both pipelined down the binary tree; then the j-th rank
 * of the left subtree and the j-th of the right swap their halves, and when
 * the left subtree has one rank more its last rank gets B from the root.
 * Rounds: n_s/2 + floor(log2 P) pipeline steps, then one exchange.
 * Cost: about 2 * (n_s/2 + floor(log2 P) - 1) * (alpha + s*beta)
 * + alpha + (m/2)*beta. Needs: nothing. */
int bcast_split_binary(const struct coll_args *args)
{
    struct topo_tree tree;
    struct coll_layout layout;
    struct coll_segs segs_a, segs_b;
    MPI_Request reqs[2];
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = coll_begin(args, &rank, &size, &layout)) != MPI_SUCCESS) {
        return rc;
    }
    if (size == 1) {
        return MPI_SUCCESS;
    }
    if (topo_tree_create(&tree, TOPO_BINARY, 2, rank, size, args->root, 0)) {
        return MPI_ERR_NO_MEM;
    }

    MPI_Comm comm = args->comm;
    MPI_Datatype dtype = args->dtype;
    int count_a = args->count - args->count / 2;
    int count_b = args->count / 2;
    char *half_a = args->recvbuf;
    char *half_b = half_a + (MPI_Aint)count_a * layout.extent;
    int v = (rank - args->root + size) % size;
    int n_left = size / 2, n_right = size - 1 - n_left;
    int left = (1 + args->root) % size;
    int right = (1 + n_left + args->root) % size;

    coll_segs_init(&segs_a, count_a, dtype, args->seg_bytes);
    coll_segs_init(&segs_b, count_b, dtype, args->seg_bytes);
    if (v == 0) {
        int n_b = n_right > 0 ? segs_b.n_segs : 0;
        int n = segs_a.n_segs > n_b ? segs_a.n_segs : n_b;
        for (int s = 0; s < n; s++) {
            reqs[0] = reqs[1] = MPI_REQUEST_NULL;
            if (s < segs_a.n_segs) {
                rc = MPI_Isend(half_a +
                                   coll_segs_offset(&segs_a, s, layout.extent),
                               coll_segs_elems(&segs_a, s), dtype, left,
                               COLL_TAG_BCAST, comm, &reqs[0]);
            }
            if (rc == MPI_SUCCESS && s < n_b) {
                rc = MPI_Isend(half_b +
                                   coll_segs_offset(&segs_b, s, layout.extent),
                               coll_segs_elems(&segs_b, s), dtype, right,
                               COLL_TAG_BCAST, comm, &reqs[1]);
            }
            if (rc == MPI_SUCCESS) {
                rc = MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
            }
            if (rc != MPI_SUCCESS) {
                goto done;
            }
        }
        if (n_left > n_right) {
            /* The last rank of the left subtree has no partner. */
            rc = MPI_Send(half_b, count_b, dtype, (n_left + args->root) % size,
                          COLL_TAG_BCAST, comm);
        }
    } else if (v <= n_left) {
        int j = v - 1;
        rc = bcast_tree_region(half_a, count_a, dtype, args->seg_bytes,
                               tree.parent, tree.children, tree.n_children,
                               comm);
        if (rc != MPI_SUCCESS) {
            goto done;
        }
        if (j < n_right) {
            int partner = (1 + n_left + j + args->root) % size;
            rc = MPI_Sendrecv(half_a, count_a, dtype, partner, COLL_TAG_BCAST,
                              half_b, count_b, dtype, partner, COLL_TAG_BCAST,
                              comm, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(half_b, count_b, dtype, args->root, COLL_TAG_BCAST,
                          comm, MPI_STATUS_IGNORE);
        }
    } else {
        int partner = (1 + (v - 1 - n_left) + args->root) % size;
        rc = bcast_tree_region(half_b, count_b, dtype, args->seg_bytes,
                               tree.parent, tree.children, tree.n_children,
                               comm);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Sendrecv(half_b, count_b, dtype, partner, COLL_TAG_BCAST,
                              half_a, count_a, dtype, partner, COLL_TAG_BCAST,
                              comm, MPI_STATUS_IGNORE);
        }
    }
done:
    topo_tree_destroy(&tree);
    return rc;
}
