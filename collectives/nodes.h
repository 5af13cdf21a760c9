/* Which node each rank of a communicator is on. The sweep builds each
 * point's communicator from whole nodes; libautotune finds the layout of
 * each communicator it tunes. MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * tells the nodes (under SMPI: the simulated hosts). On one machine every
 * rank shares one node, so for tests AUTOTUNE_NODE_OF_RANK=block:K puts
 * world ranks K at a time on emulated nodes (world rank w on node w / K):
 * a testing aid, not a way to describe a real cluster. Only PMPI_ calls,
 * so that libautotune never intercepts its own. */
#ifndef COLLECTIVES_NODES_H
#define COLLECTIVES_NODES_H

#include <mpi.h>
#include <stdbool.h>

#define NODES_ENV "AUTOTUNE_NODE_OF_RANK"

/* AUTOTUNE_NODE_OF_RANK's text: 0 with *block = K for "block:K" (K >= 1);
 * 0 with *block = 0 for NULL or "" (the real nodes); -1 otherwise. */
int nodes_parse_emulation(const char *text, int *block);

/* node_of_rank[i] (room for comm's size) is the node of rank i of comm,
 * nodes numbered from 0 in the order of their lowest rank; *n_nodes how
 * many. block: as nodes_parse_emulation gives (0: the real nodes).
 * Collective over comm; an MPI error code. */
int nodes_of_comm(MPI_Comm comm, int block, int *node_of_rank, int *n_nodes);

/* How a communicator's ranks lie on its nodes. */
struct nodes_layout {
    int n_nodes;
    int ppn;             /* ranks on each node if is_regular; else the most
                            on one node */
    bool is_regular;     /* every node holds ppn ranks */
    bool is_consecutive; /* each node's ranks are consecutive ranks */
};

/* The layout of size ranks whose nodes node_of_rank gives (numbered as
 * nodes_of_comm numbers them). */
void nodes_layout(const int *node_of_rank, int size, struct nodes_layout *out);

/* Block placement at ppn ranks per node: order lists the ranks (indices of
 * node_of_rank) of every node holding at least ppn ranks, nodes in their
 * order, each node's first ppn ranks, consecutively; with ppn 0, every rank
 * in rank order (as launched). A communicator of procs ranks is the first
 * procs of order: whole nodes where ppn divides procs. order: room for
 * size, or NULL to count. Returns how many ranks it lists, -1 out of
 * memory. */
int nodes_block_order(const int *node_of_rank, int size, int ppn, int *order);

#endif
