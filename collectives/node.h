/* Node-aware collectives composed from the flat algorithms of the table:
 * an intra-node phase on each node's communicator, an inter-node phase on
 * the leaders' communicator (each node's lowest rank, or its K lowest for
 * a multi-leader method), an intra-node phase back. The communicators are made
 * once per communicator (node_comms) and passed to every call; only PMPI_ calls
 * make and free them, so that libautotune never intercepts its own. */
#ifndef COLLECTIVES_NODE_H
#define COLLECTIVES_NODE_H

#include <mpi.h>

#include "collectives/collectives.h"
#include "collectives/method.h"
#include "collectives/nodes.h"

/* A communicator's nodes and the two communicators the compositions run
 * on. Read-only for callers. */
struct node_comms {
    MPI_Comm comm;     /* borrowed: the communicator they were made from */
    int rank, size;    /* in comm */
    int n_nodes;       /* nodes numbered as nodes_of_comm numbers them */
    int node;          /* this rank's node */
    int local;         /* this rank's index on its node (its intra rank) */
    MPI_Comm intra;    /* this rank's node, ranks in comm order */
    MPI_Comm peers;    /* the ranks of index local on every node that has
                          one, node order: leader k's communicator of a
                          K-leader method (k = local < K). Every rank has
                          one, as SMPI 3.32 needs (made and freed alike) */
    MPI_Comm leaders;  /* peers on each node's lowest rank (local 0: one
                          rank per node, node order), not a communicator of
                          its own; MPI_COMM_NULL on the other ranks */
    int min_ppn;       /* ranks on the node that has fewest */
    int *node_of_rank; /* [size] */
    int *leader;       /* [n_nodes]: comm rank of node n's leader */
    int *node_first;   /* [n_nodes + 1]: node n's ranks are
                          node_ranks[node_first[n] .. node_first[n+1]) */
    int *node_ranks;   /* [size]: comm ranks by node, each node's in order */
    struct nodes_layout layout;
};

/* Collective over comm: *out (caller-frees with node_comms_destroy) for
 * comm whose node map node_of_rank (room for comm's size, numbered as
 * nodes_of_comm numbers it) gives. An MPI error code. */
int node_comms_create(MPI_Comm comm, const int *node_of_rank,
                      struct node_comms **out);
/* Collective over the communicator it was made from; NULL does nothing. */
void node_comms_destroy(struct node_comms *nc);

/* struct node_plan (the phases of a method, its name's grammar) is in
 * collectives/method.h. */

/* A composition: args as the flat algorithms take them (args->comm the
 * communicator nc was made from; args->seg_bytes unused: each phase has
 * its own). */
typedef int (*node_fn)(const struct coll_args *args,
                       const struct node_comms *nc,
                       const struct node_plan *plan);

int node_bcast(const struct coll_args *args, const struct node_comms *nc,
               const struct node_plan *plan);
int node_reduce(const struct coll_args *args, const struct node_comms *nc,
                const struct node_plan *plan);
int node_allreduce(const struct coll_args *args, const struct node_comms *nc,
                   const struct node_plan *plan);
int node_allgather(const struct coll_args *args, const struct node_comms *nc,
                   const struct node_plan *plan);
int node_gather(const struct coll_args *args, const struct node_comms *nc,
                const struct node_plan *plan);
int node_scatter(const struct coll_args *args, const struct node_comms *nc,
                 const struct node_plan *plan);
int node_alltoall(const struct coll_args *args, const struct node_comms *nc,
                  const struct node_plan *plan);
int node_barrier(const struct coll_args *args, const struct node_comms *nc,
                 const struct node_plan *plan);

/* 1 if nc's layout has several nodes and a node of several ranks. On one
 * node, or at one rank per node, a composition runs as its intra-node or
 * its inter-node phases alone: correct, but a flat method that the grid
 * times as such, so the sweep does not time it again as node-aware. */
int node_is_composed(const struct node_comms *nc);

/* The composition of the named collective, NULL where there is none yet. */
node_fn node_find(const char *collective);

/* 1 if the composition of collective can run plan on nc's layout with op
 * (MPI_OP_NULL when it does not reduce): every phase's algorithm applies
 * on the communicators it runs on, a non-commutative op only where each
 * node's ranks are consecutive (nodes then come in rank order, as
 * nodes_of_comm numbers them), K leaders per node (allreduce) only where every
 * node has K ranks (they are its K lowest: fewer on some node would be another
 * method, so it is refused, never run with fewer). 0
 * otherwise: recorded as not applicable, never run. */
int node_applies(const char *collective, const struct node_comms *nc,
                 const struct node_plan *plan, MPI_Op op);

#endif
