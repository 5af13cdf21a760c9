/* The model's schedule recorder: runs one algorithm of collectives/, rank
 * by rank, over the recording MPI (collectives/record/), whose calls become
 * the ops of each rank's program in a model_schedule. Compiled with
 * collectives/ against collectives/record/mpi.h (see the Makefile). */
#include "collectives/collectives.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORTED __attribute__((visibility("default")))

static int add_op(void *ctx, int rank, enum record_op op, int peer, int tag,
                  long bytes, int req)
{
    return model_schedule_add(ctx, rank, op, peer, tag, bytes, req);
}

/* Only receives that will never match are cancelled (allreduce ring's
 * early-posted extra): the receive leaves the program. */
static void cancel_recv(void *ctx, int rank, int req)
{
    struct model_schedule *s = ctx;
    struct model_rank_ops *r = &s->ranks[rank];
    for (int i = r->n_ops - 1; i >= 0; i--) {
        if (r->ops[i].kind == RECORD_IRECV && r->ops[i].req == req) {
            memmove(&r->ops[i], &r->ops[i + 1],
                    (size_t)(r->n_ops - i - 1) * sizeof r->ops[0]);
            r->n_ops--;
            break;
        }
    }
}

EXPORTED int model_record(const char *collective, const char *algorithm,
                          int procs, long msg_bytes, int seg_bytes,
                          int chain_fanout, struct model_schedule **out)
{
    const struct coll_def *c = coll_find(collective);
    int a = c ? coll_find_alg(c, algorithm) : -1;
    *out = NULL;
    if (a < 0) {
        fprintf(stderr, "model: unknown method %s %s\n", collective, algorithm);
        return -1;
    }
    const struct coll_alg *alg = &c->algs[a];
    if (procs < 1 || msg_bytes < 0 || msg_bytes > 0x7fffffffL) {
        fprintf(stderr, "model: %s %s: %d procs, %ld bytes cannot be run\n",
                collective, algorithm, procs, msg_bytes);
        return -1;
    }
    if (!coll_alg_applies(alg, procs,
                          c->is_reduction ? MPI_SUM : MPI_OP_NULL)) {
        return 1;
    }
    long send_bytes = coll_buffer_bytes(c->send_blocks, procs, msg_bytes);
    long recv_bytes = coll_buffer_bytes(c->recv_blocks, procs, msg_bytes);
    size_t size = (size_t)(send_bytes > recv_bytes ? send_bytes : recv_bytes);
    char *send_buf = malloc(size + 1), *recv_buf = malloc(size + 1);
    struct model_schedule *s = model_schedule_create(procs);
    int rc = -1;
    if (!send_buf || !recv_buf || !s) {
        fprintf(stderr, "model: out of memory recording %s %s at %d procs\n",
                collective, algorithm, procs);
        goto done;
    }
    memset(send_buf, 0, size + 1);
    struct record_sink sink = {add_op, cancel_recv, s};
    struct record_comm comm = {.size = procs, .sink = &sink};
    record_set_current(&comm);
    struct coll_args args = {
        .sendbuf = c->send_blocks == BLOCKS_NONE ? NULL : send_buf,
        .recvbuf = c->send_blocks == BLOCKS_NONE ? send_buf : recv_buf,
        .count = (int)msg_bytes,
        .dtype = c->is_reduction ? MPI_UNSIGNED_CHAR : MPI_BYTE,
        .op = c->is_reduction ? MPI_SUM : MPI_OP_NULL,
        .root = 0,
        .comm = &comm,
        .seg_bytes = alg->is_segmented ? seg_bytes : 0,
        .chain_fanout = chain_fanout,
    };
    for (int r = 0; r < procs; r++) {
        comm.rank = r;
        if (alg->run(&args) != MPI_SUCCESS || comm.failed) {
            fprintf(stderr, "model: recording %s %s at rank %d of %d failed\n",
                    collective, algorithm, r, procs);
            goto done;
        }
    }
    *out = s;
    s = NULL;
    rc = 0;
done:
    record_set_current(NULL);
    model_schedule_destroy(s);
    free(send_buf);
    free(recv_buf);
    return rc;
}
