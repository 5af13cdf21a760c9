/* Ring allreduce: a ring reduce-scatter of P blocks, then a ring allgather;
 * the segmented variant runs the reduce-scatter once per phase on one
 * segment of every block. */
#include "collectives/internal.h"

/* Elements [first, first + n) of block k that phase covers. */
static int ring_piece(int count, int size, int seg_count, int k, int phase,
                      int *n)
{
    int b0 = coll_block_start(count, size, k);
    int b1 = coll_block_start(count, size, k + 1);
    long p0 = b0 + (long)phase * seg_count;
    if (p0 > b1) {
        p0 = b1;
    }
    long p1 = p0 + seg_count < b1 ? p0 + seg_count : b1;
    *n = (int)(p1 - p0);
    return (int)p0;
}

/* The state of one phase of the reduce-scatter on one rank. */
struct ring_phase {
    const struct coll_args *args;
    MPI_Aint ext;
    int rank, size, seg_count, phase;
    char *tmp[2];
    MPI_Request reqs[2];
};

/* Element offset of the piece of block (rank - step) mod P; *n its length. */
static int phase_piece(const struct ring_phase *ph, int step, int *n)
{
    int k = ((ph->rank - step) % ph->size + ph->size) % ph->size;
    return ring_piece(ph->args->count, ph->size, ph->seg_count, k, ph->phase,
                      n);
}

/* Posts the receive of step s: block r - s - 1 from the left. */
static int phase_post(struct ring_phase *ph, int s)
{
    int n, left = (ph->rank - 1 + ph->size) % ph->size;
    phase_piece(ph, s + 1, &n);
    return MPI_Irecv(ph->tmp[s % 2], n, ph->args->dtype, left,
                     COLL_TAG_ALLREDUCE, ph->args->comm, &ph->reqs[s % 2]);
}

/* One phase: in step s rank r sends its partial piece of block r - s to
 * r + 1 and folds the piece of block r - s - 1 coming from r - 1, the next
 * receive posted before the fold. It is posted before this step's send only
 * when no larger than the pending one: SimGrid 3.32 deadlocks when a
 * message below smpi/async-small-thresh and a larger one above it from the
 * same peer meet two posted receives, and blocks differ by one element.
 * Afterwards rank r holds the piece of block r + 1 reduced over all
 * ranks. */
static int phase_run(struct ring_phase *ph)
{
    const struct coll_args *args = ph->args;
    char *buf = args->recvbuf;
    int right = (ph->rank + 1) % ph->size;
    int rc = phase_post(ph, 0);

    for (int s = 0; s < ph->size - 1 && rc == MPI_SUCCESS; s++) {
        int n_send, n_recv, n_next;
        int send_at = phase_piece(ph, s, &n_send);
        int recv_at = phase_piece(ph, s + 1, &n_recv);
        int has_next = s + 1 < ph->size - 1;
        phase_piece(ph, s + 2, &n_next);
        int is_early = has_next && n_next <= n_recv;
        if ((is_early && (rc = phase_post(ph, s + 1))) ||
            (rc = MPI_Send(buf + (MPI_Aint)send_at * ph->ext, n_send,
                           args->dtype, right, COLL_TAG_ALLREDUCE,
                           args->comm)) ||
            (rc = MPI_Wait(&ph->reqs[s % 2], MPI_STATUS_IGNORE)) ||
            (has_next && !is_early && (rc = phase_post(ph, s + 1)))) {
            break;
        }
        rc = MPI_Reduce_local(ph->tmp[s % 2], buf + (MPI_Aint)recv_at * ph->ext,
                              n_recv, args->dtype, args->op);
    }
    for (int i = 0; i < 2; i++) {
        if (ph->reqs[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&ph->reqs[i]);
            MPI_Wait(&ph->reqs[i], MPI_STATUS_IGNORE);
        }
    }
    return rc;
}

static int ring_run(const struct coll_args *args, int seg_bytes)
{
    struct coll_layout layout;
    struct coll_segs segs;
    char *tmp[2] = {NULL, NULL};
    int rank, size, rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = coll_begin(args, &rank, &size, &layout)) != MPI_SUCCESS) {
        return rc;
    }
    if (args->sendbuf != MPI_IN_PLACE &&
        (rc = coll_copy(args->sendbuf, args->recvbuf, args->count, args->dtype,
                        args->comm, COLL_TAG_ALLREDUCE)) != MPI_SUCCESS) {
        return rc;
    }
    if (size == 1) {
        return MPI_SUCCESS;
    }
    int max_block = (args->count + size - 1) / size;
    coll_segs_init(&segs, max_block, args->dtype, seg_bytes);
    tmp[0] = coll_temp_create(&layout, segs.seg_count);
    tmp[1] = coll_temp_create(&layout, segs.seg_count);
    if (!tmp[0] || !tmp[1]) {
        rc = MPI_ERR_NO_MEM;
    }
    for (int phase = 0; phase < segs.n_segs && rc == MPI_SUCCESS; phase++) {
        struct ring_phase ph = {args,
                                layout.extent,
                                rank,
                                size,
                                segs.seg_count,
                                phase,
                                {tmp[0], tmp[1]},
                                {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
        rc = phase_run(&ph);
    }
    if (rc == MPI_SUCCESS) {
        struct coll_blockbuf b;
        coll_blocks_init(&b, args, args->recvbuf, args->count, size,
                         layout.extent, 0, COLL_TAG_ALLREDUCE);
        rc = coll_blocks_ring(&b, rank, (rank + 1) % size);
    }
    coll_temp_destroy(tmp[0], &layout);
    coll_temp_destroy(tmp[1], &layout);
    return rc;
}

/* Idea: the vector is cut into P blocks; in P-1 steps each rank passes a
 * partial block to its right neighbour and folds in the one from its left,
 * so each ends with one block reduced over all ranks; a ring allgather then
 * hands every block round. Rounds: 2(P-1).
 * Cost: 2(P-1)*alpha + 2*((P-1)/P)*m*beta + ((P-1)/P)*m*gamma.
 * Needs: a commutative operation (block k is folded starting at rank k, a
 * rotation of rank order); count may be < P (empty blocks). */
int allreduce_ring(const struct coll_args *args)
{
    return ring_run(args, 0);
}

/* Idea: the ring above with each block cut into segments of seg_bytes: the
 * reduce-scatter runs once per segment index (phase), smaller messages
 * overlapping the receive of one with the fold of the previous, then one
 * ring allgather of whole blocks. Rounds: n_phases*(P-1) + (P-1).
 * Cost: (n_phases + 1)*(P-1)*alpha + 2*((P-1)/P)*m*beta + ((P-1)/P)*m*gamma.
 * Needs: a commutative operation. */
int allreduce_segmented_ring(const struct coll_args *args)
{
    return ring_run(args, args->seg_bytes);
}
