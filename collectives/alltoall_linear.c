/* Linear alltoalls: every rank exchanges a block with every other directly;
 * linear posts all P-1 receives and sends at once, linear_sync keeps at
 * most COLL_ALLTOALL_WINDOW of each outstanding. Also the send-side helper
 * every alltoall shares (MPI_IN_PLACE). */
#include "collectives/internal.h"

#include <stdlib.h>

int alltoall_begin(const struct coll_args *args, int *rank, int *size,
                   struct coll_layout *layout, const char **send, void **temp)
{
    int rc = coll_begin(args, rank, size, layout);
    *temp = NULL;
    *send = args->sendbuf;
    if (rc != MPI_SUCCESS || args->sendbuf != MPI_IN_PLACE ||
        args->count == 0) {
        return rc;
    }
    if ((long long)*size * args->count > 0x7fffffff) {
        return MPI_ERR_COUNT;
    }
    int n = *size * args->count;
    *temp = coll_temp_create(layout, n);
    if (!*temp) {
        return MPI_ERR_NO_MEM;
    }
    *send = *temp;
    return coll_copy(args->recvbuf, *temp, n, args->dtype, args->comm,
                     COLL_TAG_ALLTOALL);
}

/* Posts the receive from (is_send 0) or the send to (is_send 1) peer. */
static int alltoall_post(const struct coll_args *args, const char *send,
                         MPI_Aint extent, int peer, int is_send,
                         MPI_Request *req)
{
    MPI_Aint at = coll_block_offset(peer, args->count, extent);
    if (is_send) {
        return MPI_Isend(send + at, args->count, args->dtype, peer,
                         COLL_TAG_ALLTOALL, args->comm, req);
    }
    return MPI_Irecv((char *)args->recvbuf + at, args->count, args->dtype, peer,
                     COLL_TAG_ALLTOALL, args->comm, req);
}

/* Both linear variants: receives from rank+1, rank+2, ... and sends to
 * rank-1, rank-2, ..., at most window of each outstanding (window >= P-1:
 * all at once); a completed request makes room for the next of its kind. */
static int alltoall_window(const struct coll_args *args, int window)
{
    struct coll_layout layout;
    const char *send;
    void *temp;
    MPI_Request *reqs = NULL; /* receives in [0, window), sends after */
    int rank, size;
    int rc = alltoall_begin(args, &rank, &size, &layout, &send, &temp);
    if (rc != MPI_SUCCESS || args->count == 0) {
        goto done;
    }
    if (window > size - 1) {
        window = size - 1;
    }
    int n_posted[2] = {0, 0}, n_done = 0;
    if (window > 0) {
        reqs = malloc(2 * (size_t)window * sizeof *reqs);
        if (!reqs) {
            rc = MPI_ERR_NO_MEM;
            goto done;
        }
    }
    for (int k = 0; k < 2 * window && rc == MPI_SUCCESS; k++) {
        int is_send = k >= window;
        int step = ++n_posted[is_send];
        int peer = (rank + (is_send ? size - step : step)) % size;
        rc = alltoall_post(args, send, layout.extent, peer, is_send, &reqs[k]);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_copy(send +
                           coll_block_offset(rank, args->count, layout.extent),
                       (char *)args->recvbuf +
                           coll_block_offset(rank, args->count, layout.extent),
                       args->count, args->dtype, args->comm, COLL_TAG_ALLTOALL);
    }
    while (rc == MPI_SUCCESS && n_done < 2 * (size - 1)) {
        int k;
        rc = MPI_Waitany(2 * window, reqs, &k, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            break;
        }
        n_done++;
        int is_send = k >= window;
        if (n_posted[is_send] < size - 1) {
            int step = ++n_posted[is_send];
            int peer = (rank + (is_send ? size - step : step)) % size;
            rc = alltoall_post(args, send, layout.extent, peer, is_send,
                               &reqs[k]);
        }
    }
done:
    free(reqs);
    coll_temp_destroy(temp, &layout);
    return rc;
}

/* Idea: post all P-1 receives and P-1 sends, copy the own block, wait for
 * all; the network schedules everything. Rounds: 1. Cost: (P-1) * (alpha +
 * m*beta) through each rank's link for blocks of m bytes, with congestion
 * from 2(P-1) messages in flight per rank. Needs: nothing. */
int alltoall_linear(const struct coll_args *args)
{
    int size, rc = MPI_Comm_size(args->comm, &size);
    return rc != MPI_SUCCESS ? rc : alltoall_window(args, size);
}

/* Idea: linear with at most COLL_ALLTOALL_WINDOW receives and as many sends
 * outstanding, a new one posted as each completes (Open MPI's linear_sync
 * with max_requests), bounding the messages in flight. Rounds: about
 * (P-1)/w waves. Cost: (P-1) * (alpha + m*beta), as linear, with less
 * congestion. Needs: nothing. */
int alltoall_linear_sync(const struct coll_args *args)
{
    return alltoall_window(args, COLL_ALLTOALL_WINDOW);
}
