/* The model's schedule recorder: runs one algorithm of collectives/, rank
 * by rank, over the recording MPI (collectives/record/), whose calls become
 * the ops of each rank's program in a model_schedule. Compiled with
 * collectives/ against collectives/record/mpi.h (see the Makefile). */
#include "collectives/collectives.h"
#include "collectives/internal.h"
#include "collectives/method.h"
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

/* model_record's schedule, rooted at root (a phase of a K-leader method
 * runs on a node rooted at its rank k). */
static int record_rooted(const char *collective, const char *algorithm,
                         int procs, int root, long msg_bytes, int seg_bytes,
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
        .root = root,
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

EXPORTED int model_record(const char *collective, const char *algorithm,
                          int procs, long msg_bytes, int seg_bytes,
                          int chain_fanout, struct model_schedule **out)
{
    return record_rooted(collective, algorithm, procs, 0, msg_bytes, seg_bytes,
                         chain_fanout, out);
}

/* Records alg of collective pc (a phase of a composition) once on n ranks
 * rooted at root at count bytes and appends it to n_groups groups of s's
 * ranks, group g's rank i ranks[g * n + i] (a recording allocates the
 * phase's buffers: once for all nodes of one size): 0, 1 when alg does not
 * apply at n, -1 on error. */
static int append_phase(struct model_schedule *s, const struct coll_def *pc,
                        const struct node_phase *phase, int n, int root,
                        int n_groups, const int *ranks, long count,
                        int chain_fanout)
{
    struct model_schedule *p;
    int rc = record_rooted(pc->name, phase->alg->name, n, root, count,
                           phase->seg_bytes, chain_fanout, &p);
    for (int g = 0; rc == 0 && g < n_groups; g++) {
        const int *group = ranks + (size_t)g * (size_t)n;
        for (int i = 0; rc == 0 && i < n; i++) {
            if (model_schedule_append(s, group[i], p, i, group) != 0) {
                fprintf(stderr, "model: out of memory composing %s phases\n",
                        pc->name);
                rc = -1;
            }
        }
    }
    model_schedule_destroy(p);
    return rc;
}

/* A node-aware method's schedule: each phase's flat algorithm recorded on
 * its communicator's size (up and down on each node's ranks, inter among
 * the nodes' leaders) at the count collectives/node.c gives it, its ranks
 * mapped to the point's (block placement: node n holds ranks n * ppn ..,
 * its leader the lowest), appended to each rank's program in phase order.
 * Root 0 leads node 0: no message to or from a leader beyond the phases.
 * Phases keep their tags: a phase on the nodes and one among the leaders
 * never join the same two ranks (two ranks of one node, or two leaders),
 * and two on one node match in program order, as on the one node
 * communicator node.c runs both on. */
static int record_node(const struct coll_def *c, const char *method, int procs,
                       int ppn, long msg_bytes, int chain_fanout,
                       struct model_schedule **out)
{
    struct node_plan plan;
    char err[256];
    if (node_plan_parse(c, method, &plan, err, sizeof err) != 0) {
        fprintf(stderr, "model: %s %s: %s\n", c->name, method, err);
        return -1;
    }
    int n_nodes = ppn > 0 ? (procs + ppn - 1) / ppn : 0;
    int n_whole = ppn > 0 ? procs / ppn : 0, rest = ppn > 0 ? procs % ppn : 0;
    int n_slices = plan.leaders;
    /* as the sweep: on one node or at one rank per node the composition is
     * one of its phases, a flat method (collectives/node.h); K leaders on
     * nodes of K ranks at least (node_applies) */
    if (ppn < 2 || n_nodes < 2 || (rest != 0 && node_pads_blocks(c)) ||
        n_slices > ppn || (rest != 0 && n_slices > rest)) {
        return 1;
    }
    struct model_schedule *s = model_schedule_create(procs);
    int *ranks = malloc((size_t)procs * sizeof *ranks);
    int rc = s && ranks ? 0 : -1;
    if (rc != 0) {
        fprintf(stderr, "model: out of memory composing %s at %d procs\n",
                method, procs);
    }
    for (int ph = 0; rc == 0 && ph < NODE_N_PHASES; ph++) {
        const struct coll_def *pc = node_phase_coll(c, (enum node_phase_id)ph);
        const struct node_phase *phase =
            node_plan_phase(&plan, (enum node_phase_id)ph);
        long count =
            node_phase_count(c, (enum node_phase_id)ph, msg_bytes, ppn, procs);
        if (!pc) {
            continue;
        }
        if (count > 0x7fffffffL) {
            rc = 1; /* beyond an int's count: node.c refuses it too */
        }
        /* K leaders: slice k of the vector on each node rooted at its rank
         * k, among the ranks k of every node, as node.c cuts and runs it
         * (an empty slice nowhere) */
        for (int k = 0; rc == 0 && k < n_slices; k++) {
            long slice = n_slices == 1
                             ? count
                             : coll_block_start((int)count, n_slices, k + 1) -
                                   coll_block_start((int)count, n_slices, k);
            if (n_slices > 1 && slice == 0) {
                continue;
            }
            if (ph == NODE_INTER) {
                for (int n = 0; n < n_nodes; n++) {
                    ranks[n] = n * ppn + k;
                }
                rc = append_phase(s, pc, phase, n_nodes, 0, 1, ranks, slice,
                                  chain_fanout);
                continue;
            }
            /* the whole nodes, then a last one of fewer ranks */
            for (int r = 0; r < procs; r++) {
                ranks[r] = r;
            }
            rc = append_phase(s, pc, phase, ppn, k, n_whole, ranks, slice,
                              chain_fanout);
            if (rc == 0 && rest > 0) {
                rc = append_phase(s, pc, phase, rest, k, 1,
                                  ranks + n_whole * ppn, slice, chain_fanout);
            }
        }
    }
    free(ranks);
    if (rc != 0) {
        model_schedule_destroy(s);
        return rc;
    }
    *out = s;
    return 0;
}

EXPORTED int model_record_method(const char *collective, const char *method,
                                 int procs, int ppn, long msg_bytes,
                                 int seg_bytes, int chain_fanout,
                                 struct model_schedule **out)
{
    const struct coll_def *c = coll_find(collective);
    *out = NULL;
    if (!c || !node_is_method_name(method)) {
        return model_record(collective, method, procs, msg_bytes, seg_bytes,
                            chain_fanout, out);
    }
    if (procs < 1 || msg_bytes < 0) {
        fprintf(stderr, "model: %s %s: %d procs, %ld bytes cannot be run\n",
                collective, method, procs, msg_bytes);
        return -1;
    }
    return record_node(c, method, procs, ppn, msg_bytes, chain_fanout, out);
}
