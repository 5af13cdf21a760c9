/* The algorithm tables: one row per algorithm, one table per collective.
 * A name here is a stable key; rows may be added but never renamed. */
#include "collectives/internal.h"

#include <string.h>

static int bcast_reference(const struct coll_args *args)
{
    return MPI_Bcast(args->recvbuf, args->count, args->dtype, args->root,
                     args->comm);
}

static int reduce_reference(const struct coll_args *args)
{
    return MPI_Reduce(args->sendbuf, args->recvbuf, args->count, args->dtype,
                      args->op, args->root, args->comm);
}

static const struct coll_alg bcast_algs[] = {
    {"linear", bcast_linear, 0, 1, "root sends to every rank"},
    {"chain", bcast_chain, 0, 1, "chain_fanout pipelined chains"},
    {"pipeline", bcast_pipeline, 0, 1, "one pipelined chain"},
    {"binary", bcast_binary, 0, 1, "pipelined binary tree"},
    {"split_binary", bcast_split_binary, 0, 1,
     "halves down the two subtrees of a binary tree, then swapped"},
    {"binomial", bcast_binomial, 0, 1, "pipelined binomial tree"},
    {"knomial", bcast_knomial, 0, 1, "pipelined 4-nomial tree"},
    {"scatter_allgather", bcast_scatter_allgather, 0, 0,
     "binomial scatter, recursive-doubling allgather"},
    {"scatter_allgather_ring", bcast_scatter_allgather_ring, 0, 0,
     "binomial scatter, ring allgather"},
};

static const struct coll_alg reduce_algs[] = {
    {"linear", reduce_linear, 0, 1, "root receives from every rank"},
    {"chain", reduce_chain, 0, 1, "chain_fanout pipelined chains"},
    {"pipeline", reduce_pipeline, 0, 1, "one pipelined chain"},
    {"binary", reduce_binary, 0, 1, "pipelined binary tree"},
    {"binomial", reduce_binomial, 0, 1, "pipelined binomial tree"},
    {"in_order_binary", reduce_in_order_binary, 0, 1,
     "pipelined binary tree on ranks in order, rooted at P-1"},
    {"rabenseifner", reduce_rabenseifner, NEED_COMMUTATIVE, 0,
     "recursive-halving reduce-scatter, binomial gather"},
};

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct coll_def coll_bcast = {
    "bcast", bcast_algs, COUNT_OF(bcast_algs), bcast_reference, 0};

static const struct coll_def coll_reduce = {
    "reduce", reduce_algs, COUNT_OF(reduce_algs), reduce_reference, 1};

const struct coll_def *const coll_table[] = {&coll_bcast, &coll_reduce};
const int coll_table_size = COUNT_OF(coll_table);

const struct coll_def *coll_find(const char *name)
{
    for (int i = 0; i < coll_table_size; i++) {
        if (strcmp(coll_table[i]->name, name) == 0) {
            return coll_table[i];
        }
    }
    return NULL;
}

int coll_find_alg(const struct coll_def *c, const char *name)
{
    for (int i = 0; i < c->n_algs; i++) {
        if (strcmp(c->algs[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

int coll_alg_applies(const struct coll_alg *alg, int n_ranks, MPI_Op op)
{
    if ((alg->needs & NEED_POW2_PROCS) &&
        (n_ranks < 1 || (n_ranks & (n_ranks - 1)) != 0)) {
        return 0;
    }
    if ((alg->needs & NEED_TWO_PROCS) && n_ranks != 2) {
        return 0;
    }
    if (alg->needs & NEED_COMMUTATIVE) {
        int commute = 1;
        if (op != MPI_OP_NULL && MPI_Op_commutative(op, &commute) != 0) {
            return 0;
        }
        if (!commute) {
            return 0;
        }
    }
    return 1;
}
