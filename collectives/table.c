/* The algorithm tables: one row per algorithm, one table per collective.
 * A name here is a stable key; rows may be added but never renamed. */
#include "collectives/internal.h"

#include <string.h>

/* The references are the MPI library's own collectives by their PMPI_
 * names, so that libautotune (runtime/), preloaded into a program, never
 * stands in for the library's default decision. */

static int bcast_reference(const struct coll_args *args)
{
    return PMPI_Bcast(args->recvbuf, args->count, args->dtype, args->root,
                      args->comm);
}

static int allreduce_reference(const struct coll_args *args)
{
    return PMPI_Allreduce(args->sendbuf, args->recvbuf, args->count,
                          args->dtype, args->op, args->comm);
}

static int allgather_reference(const struct coll_args *args)
{
    return PMPI_Allgather(args->sendbuf, args->count, args->dtype,
                          args->recvbuf, args->count, args->dtype, args->comm);
}

static int barrier_reference(const struct coll_args *args)
{
    return PMPI_Barrier(args->comm);
}

static int reduce_reference(const struct coll_args *args)
{
    return PMPI_Reduce(args->sendbuf, args->recvbuf, args->count, args->dtype,
                       args->op, args->root, args->comm);
}

static int scatter_reference(const struct coll_args *args)
{
    return PMPI_Scatter(args->sendbuf, args->count, args->dtype, args->recvbuf,
                        args->count, args->dtype, args->root, args->comm);
}

static int gather_reference(const struct coll_args *args)
{
    return PMPI_Gather(args->sendbuf, args->count, args->dtype, args->recvbuf,
                       args->count, args->dtype, args->root, args->comm);
}

static int alltoall_reference(const struct coll_args *args)
{
    return PMPI_Alltoall(args->sendbuf, args->count, args->dtype, args->recvbuf,
                         args->count, args->dtype, args->comm);
}

/* Depths of the tree shapes, for the table's depth column. */
static int depth_linear(int n_ranks, int chain_fanout)
{
    (void)chain_fanout;
    return topo_depth(TOPO_LINEAR, 0, n_ranks);
}

static int depth_chain(int n_ranks, int chain_fanout)
{
    return topo_depth(TOPO_CHAIN, chain_fanout, n_ranks);
}

static int depth_pipeline(int n_ranks, int chain_fanout)
{
    (void)chain_fanout;
    return topo_depth(TOPO_CHAIN, 1, n_ranks);
}

static int depth_binary(int n_ranks, int chain_fanout)
{
    (void)chain_fanout;
    return topo_depth(TOPO_BINARY, 2, n_ranks);
}

static int depth_binomial(int n_ranks, int chain_fanout)
{
    (void)chain_fanout;
    return topo_depth(TOPO_BINOMIAL, 0, n_ranks);
}

static int depth_knomial(int n_ranks, int chain_fanout)
{
    (void)chain_fanout;
    return topo_depth(TOPO_KNOMIAL, COLL_KNOMIAL_RADIX, n_ranks);
}

static const struct coll_alg bcast_algs[] = {
    {"linear", bcast_linear, 0, 1, "root sends to every rank", depth_linear},
    {"chain", bcast_chain, 0, 1, "chain_fanout pipelined chains", depth_chain},
    {"pipeline", bcast_pipeline, 0, 1, "one pipelined chain", depth_pipeline},
    {"binary", bcast_binary, 0, 1, "pipelined binary tree", depth_binary},
    {"split_binary", bcast_split_binary, 0, 1,
     "halves down the two subtrees of a binary tree, then swapped",
     depth_binary},
    {"binomial", bcast_binomial, 0, 1, "pipelined binomial tree",
     depth_binomial},
    {"knomial", bcast_knomial, 0, 1, "pipelined 4-nomial tree", depth_knomial},
    {"scatter_allgather", bcast_scatter_allgather, 0, 0,
     "binomial scatter, recursive-doubling allgather", NULL},
    {"scatter_allgather_ring", bcast_scatter_allgather_ring, 0, 0,
     "binomial scatter, ring allgather", NULL},
};

static const struct coll_alg reduce_algs[] = {
    {"linear", reduce_linear, 0, 1, "root receives from every rank",
     depth_linear},
    {"chain", reduce_chain, 0, 1, "chain_fanout pipelined chains", depth_chain},
    {"pipeline", reduce_pipeline, 0, 1, "one pipelined chain", depth_pipeline},
    {"binary", reduce_binary, 0, 1, "pipelined binary tree", depth_binary},
    {"binomial", reduce_binomial, 0, 1, "pipelined binomial tree",
     depth_binomial},
    {"in_order_binary", reduce_in_order_binary, 0, 1,
     "pipelined binary tree on ranks in order, rooted at P-1", depth_binary},
    {"rabenseifner", reduce_rabenseifner, NEED_COMMUTATIVE, 0,
     "recursive-halving reduce-scatter, binomial gather", NULL},
};

static const struct coll_alg scatter_algs[] = {
    {"linear", scatter_linear, 0, 0, "root sends each rank its block in turn",
     NULL},
    {"binomial", scatter_binomial, 0, 1,
     "binomial tree, subtrees' blocks in segments", depth_binomial},
    {"linear_nb", scatter_linear_nb, 0, 0,
     "root posts every block's send at once", NULL},
    {"chain", scatter_chain, 0, 1,
     "chain_fanout chains, pipelined blocks of the chain", depth_chain},
    {"binary", scatter_binary, 0, 1,
     "binary tree, subtrees' blocks in segments", depth_binary},
};

static const struct coll_alg gather_algs[] = {
    {"linear", gather_linear, 0, 0, "root receives each rank's block in turn",
     NULL},
    {"binomial", gather_binomial, 0, 1,
     "binomial tree, subtrees' blocks in segments", depth_binomial},
    {"linear_sync", gather_linear_sync, 0, 1,
     "root invites ranks in turn, first segment synchronised", NULL},
    {"chain", gather_chain, 0, 1,
     "chain_fanout chains, pipelined blocks of the chain", depth_chain},
    {"binary", gather_binary, 0, 1, "binary tree, subtrees' blocks in segments",
     depth_binary},
};

static const struct coll_alg alltoall_algs[] = {
    {"linear", alltoall_linear, 0, 0, "every exchange posted at once", NULL},
    {"pairwise", alltoall_pairwise, 0, 0,
     "P-1 steps, sending to rank+k, receiving from rank-k", NULL},
    {"bruck", alltoall_bruck, 0, 0, "log2 P steps of about P/2 blocks (Bruck)",
     NULL},
    {"linear_sync", alltoall_linear_sync, 0, 0,
     "linear with at most 4 receives and 4 sends outstanding", NULL},
    {"two_proc", alltoall_two_proc, NEED_TWO_PROCS, 0,
     "two ranks: one exchange", NULL},
};

static const struct coll_alg allreduce_algs[] = {
    {"linear", allreduce_linear, 0, 0,
     "linear reduce to rank 0, then linear bcast", NULL},
    {"reduce_bcast", allreduce_reduce_bcast, 0, 1,
     "pipelined binomial reduce to rank 0, then binomial bcast",
     depth_binomial},
    {"recursive_doubling", allreduce_recursive_doubling, 0, 0,
     "whole vectors swapped at distance 1, 2, 4, ...", NULL},
    {"ring", allreduce_ring, NEED_COMMUTATIVE, 0,
     "ring reduce-scatter, ring allgather", NULL},
    {"segmented_ring", allreduce_segmented_ring, NEED_COMMUTATIVE, 1,
     "ring reduce-scatter by segments, ring allgather", NULL},
    {"rabenseifner", allreduce_rabenseifner, 0, 0,
     "recursive-halving reduce-scatter, recursive-doubling allgather", NULL},
    {"allgather_reduce", allreduce_allgather_reduce, 0, 0,
     "allgather every vector, reduce locally in rank order", NULL},
};

static const struct coll_alg allgather_algs[] = {
    {"gather_bcast", allgather_gather_bcast, 0, 0,
     "linear gather to rank 0, then binomial bcast", NULL},
    {"bruck", allgather_bruck, 0, 0,
     "blocks sent to distance 1, 2, 4, ..., then rotated", NULL},
    {"recursive_doubling", allgather_recursive_doubling, 0, 0,
     "blocks swapped at distance 1, 2, 4, ...", NULL},
    {"ring", allgather_ring, 0, 0, "each block once round the ring", NULL},
    {"neighbor_exchange", allgather_neighbor_exchange, NEED_EVEN_PROCS, 0,
     "pairs of blocks swapped with alternate neighbours", NULL},
    {"two_proc", allgather_two_proc, NEED_TWO_PROCS, 0, "one exchange", NULL},
};

static const struct coll_alg barrier_algs[] = {
    {"linear", barrier_linear, 0, 0, "all report to rank 0, which releases all",
     NULL},
    {"double_ring", barrier_double_ring, 0, 0, "a token twice round the ring",
     NULL},
    {"recursive_doubling", barrier_recursive_doubling, 0, 0,
     "exchanges at distance 1, 2, 4, ...", NULL},
    {"bruck", barrier_bruck, 0, 0,
     "dissemination: signal rank + 2^k, hear from rank - 2^k", NULL},
    {"two_proc", barrier_two_proc, NEED_TWO_PROCS, 0, "one exchange", NULL},
    {"tree", barrier_tree, 0, 0, "binomial fan-in, then binomial fan-out",
     NULL},
    {"extended_ring", barrier_extended_ring, 0, 0,
     "a token along the line 0..P-1 and back", NULL},
    {"tournament", barrier_tournament, 0, 0,
     "tournament fan-in, rank 0 releases all", NULL},
};

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct coll_def coll_bcast = {
    "bcast", bcast_algs, COUNT_OF(bcast_algs), bcast_reference,
    0,       1,          BLOCKS_NONE,          BLOCKS_ONE};

static const struct coll_def coll_reduce = {
    "reduce",   reduce_algs, COUNT_OF(reduce_algs), reduce_reference, 1, 1,
    BLOCKS_ONE, BLOCKS_ONE};

static const struct coll_def coll_scatter = {"scatter",
                                             scatter_algs,
                                             COUNT_OF(scatter_algs),
                                             scatter_reference,
                                             0,
                                             1,
                                             BLOCKS_ROOT_P,
                                             BLOCKS_ONE};

static const struct coll_def coll_gather = {
    "gather", gather_algs, COUNT_OF(gather_algs), gather_reference, 0,
    1,        BLOCKS_ONE,  BLOCKS_ROOT_P};

static const struct coll_def coll_alltoall = {"alltoall",
                                              alltoall_algs,
                                              COUNT_OF(alltoall_algs),
                                              alltoall_reference,
                                              0,
                                              0,
                                              BLOCKS_P,
                                              BLOCKS_P};

static const struct coll_def coll_allreduce = {"allreduce",
                                               allreduce_algs,
                                               COUNT_OF(allreduce_algs),
                                               allreduce_reference,
                                               1,
                                               0,
                                               BLOCKS_ONE,
                                               BLOCKS_ONE};

static const struct coll_def coll_allgather = {"allgather",
                                               allgather_algs,
                                               COUNT_OF(allgather_algs),
                                               allgather_reference,
                                               0,
                                               0,
                                               BLOCKS_ONE,
                                               BLOCKS_P};

static const struct coll_def coll_barrier = {
    "barrier",   barrier_algs, COUNT_OF(barrier_algs), barrier_reference, 0, 0,
    BLOCKS_NONE, BLOCKS_NONE};

const struct coll_def *const coll_table[] = {
    &coll_bcast,     &coll_reduce,    &coll_scatter,  &coll_gather,
    &coll_allreduce, &coll_allgather, &coll_alltoall, &coll_barrier};
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

long coll_buffer_bytes(enum coll_blocks blocks, int n_ranks, long msg_bytes)
{
    switch (blocks) {
    case BLOCKS_NONE:
        return 0;
    case BLOCKS_ONE:
        return msg_bytes;
    case BLOCKS_ROOT_P:
    case BLOCKS_P:
        return msg_bytes * n_ranks;
    }
    return 0;
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
    if ((alg->needs & NEED_EVEN_PROCS) && n_ranks % 2 != 0) {
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
