/* Communication schedules: each rank's program of sends, receives, waits
 * and local reductions, in program order. */
#include "model/model.h"
#include "util/grow.h"

#include <stdlib.h>

struct model_schedule *model_schedule_create(int n_ranks)
{
    struct model_schedule *s = calloc(1, sizeof *s);
    if (!s || n_ranks < 1) {
        free(s);
        return NULL;
    }
    s->ranks = calloc((size_t)n_ranks, sizeof *s->ranks);
    if (!s->ranks) {
        free(s);
        return NULL;
    }
    s->n_ranks = n_ranks;
    return s;
}

void model_schedule_destroy(struct model_schedule *s)
{
    if (!s) {
        return;
    }
    for (int r = 0; r < s->n_ranks; r++) {
        free(s->ranks[r].ops);
    }
    free(s->ranks);
    free(s);
}

int model_schedule_add(struct model_schedule *s, int rank, enum record_op kind,
                       int peer, int tag, long bytes, int req)
{
    struct model_rank_ops *r = &s->ranks[rank];
    struct model_op *ops =
        grow(r->ops, &r->cap_ops, (size_t)r->n_ops + 1, sizeof *ops, 16);
    if (!ops) {
        return -1;
    }
    r->ops = ops;
    int is_post = kind == RECORD_ISEND || kind == RECORD_IRECV;
    if (is_post) {
        req = r->n_reqs++;
    }
    r->ops[r->n_ops++] = (struct model_op){
        .kind = kind, .peer = peer, .tag = tag, .bytes = bytes, .req = req};
    return is_post ? req : 0;
}

int model_schedule_append(struct model_schedule *s, int rank,
                          const struct model_schedule *from, int from_rank,
                          const int *ranks)
{
    struct model_rank_ops *r = &s->ranks[rank];
    const struct model_rank_ops *f = &from->ranks[from_rank];
    struct model_op *ops =
        grow(r->ops, &r->cap_ops, (size_t)r->n_ops + 1 + (size_t)f->n_ops,
             sizeof *ops, 16);
    if (!ops) {
        return -1;
    }
    r->ops = ops;
    for (int i = 0; i < f->n_ops; i++) {
        struct model_op op = f->ops[i];
        if (op.kind == RECORD_ISEND || op.kind == RECORD_IRECV) {
            op.peer = ranks[op.peer];
        }
        if (op.kind != RECORD_REDUCE) {
            op.req += r->n_reqs;
        }
        r->ops[r->n_ops++] = op;
    }
    r->n_reqs += f->n_reqs;
    return 0;
}

int model_node_of(int rank, int ppn)
{
    return ppn > 1 ? rank / ppn : rank;
}

void model_schedule_split(const struct model_schedule *s, int ppn,
                          long *n_intra, long *n_inter)
{
    *n_intra = *n_inter = 0;
    for (int r = 0; r < s->n_ranks; r++) {
        const struct model_rank_ops *ops = &s->ranks[r];
        for (int i = 0; i < ops->n_ops; i++) {
            const struct model_op *op = &ops->ops[i];
            if (op->kind != RECORD_ISEND || op->peer == r) {
                continue;
            }
            if (model_node_of(r, ppn) == model_node_of(op->peer, ppn)) {
                (*n_intra)++;
            } else {
                (*n_inter)++;
            }
        }
    }
}
