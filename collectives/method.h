/* Methods by name: a flat algorithm of a collective's table, or a
 * node-aware composition of flat algorithms (collectives/node.h) named by
 * its phases. No MPI calls: the offline tools and the model's recorder use
 * it too.
 *
 * A node-aware method's name is "node:" followed by its phases in the order
 * they run, joined by '+', each "ALGORITHM/SEGMENT" for a segmented
 * algorithm and "ALGORITHM" for an unsegmented one, e.g.
 * "node:binomial/8192+binomial/0" (bcast: inter-node, then intra-node).
 * "nodeK:" (K >= 2) runs K leaders per node (allreduce only). Phases:
 *   bcast:     inter bcast,     down bcast
 *   reduce:    up reduce,       inter reduce
 *   allreduce: up reduce,       inter allreduce, down bcast
 *   allgather: up gather,       inter allgather, down bcast
 *   gather:    up gather,       inter gather
 *   scatter:   inter scatter,   down scatter
 *   alltoall:  up gather,       inter alltoall,  down scatter
 *   barrier:   up barrier,      inter barrier,   down barrier
 * The alltoall's phases move each rank's P blocks: up gathers them to the
 * node's leader, inter exchanges node-to-node blocks (every block from one
 * node to another in one message) among the leaders, down scatters to each
 * rank the P blocks it receives. Node blocks are padded to the largest
 * node's where nodes differ in size (allgather, gather, scatter, alltoall:
 * the flat algorithms take equal blocks).
 *
 * A method is numbered for a collective c: 0 .. c->n_algs - 1 are the
 * table's algorithms, c->n_algs and above the node-aware methods this
 * process has named (coll_find_method registers them, in the order first
 * asked; not thread-safe). Names are the stable keys; numbers never leave
 * the process. */
#ifndef COLLECTIVES_METHOD_H
#define COLLECTIVES_METHOD_H

#include <stddef.h>

#include "collectives/collectives.h"

/* Longest method name with its terminating NUL. */
#define COLL_METHOD_MAX 128
#define NODE_METHOD_PREFIX "node"

enum node_phase_id { NODE_UP, NODE_INTER, NODE_DOWN, NODE_N_PHASES };

/* One phase of a composition: a flat algorithm of the phase's collective
 * (borrowed, from coll_table) and its segment size. */
struct node_phase {
    const struct coll_alg *alg;
    int seg_bytes;
};

/* A composition: the phases its collective uses (the others' alg NULL)
 * and how many leaders each node has (1 but for multi-leader methods). */
struct node_plan {
    int leaders;
    struct node_phase up;    /* on each node, towards its leader */
    struct node_phase inter; /* among the leaders */
    struct node_phase down;  /* on each node, from its leader */
};

/* 1 if name is a node-aware method's (starts "node:" or "nodeK:"). */
int node_is_method_name(const char *name);
/* The collective whose algorithm runs phase ph of c's composition, NULL
 * where c has none or it does not use ph (borrowed). */
const struct coll_def *node_phase_coll(const struct coll_def *c,
                                       enum node_phase_id ph);
/* The count phase ph of c's composition moves where the composed
 * collective's is count, at ppn ranks per node of n_ranks (collectives/
 * node.c passes these; allgather's inter phase moves a node's ppn blocks,
 * its down phase all n_ranks): 0 for a phase c does not use, or that moves
 * no data (barrier). */
long node_phase_count(const struct coll_def *c, enum node_phase_id ph,
                      long count, int ppn, int n_ranks);
/* 1 if c has node-aware methods. */
int node_has_methods(const struct coll_def *c);
/* 1 if c's composition moves node blocks, which on nodes of unequal size
 * it pads to the largest node's (allgather, gather, scatter, alltoall):
 * node_phase_count is then a regular layout's only. */
int node_pads_blocks(const struct coll_def *c);
/* The phase ph of plan (its alg NULL where unused). */
const struct node_phase *node_plan_phase(const struct node_plan *plan,
                                         enum node_phase_id ph);

/* Sets phase ph of plan. */
void node_plan_set(struct node_plan *plan, enum node_phase_id ph,
                   struct node_phase phase);

/* Parses name as a node-aware method of c into *plan: 0, or -1 with one
 * line saying what is wrong in err (room err_size). A phase without
 * "/SEGMENT" takes segment 0. */
int node_plan_parse(const struct coll_def *c, const char *name,
                    struct node_plan *plan, char *err, size_t err_size);
/* The canonical name of plan into buf: 0, or -1 if it does not fit. */
int node_plan_format(const struct coll_def *c, const struct node_plan *plan,
                     char *buf, size_t size);

/* The number of the named method of c (a table algorithm, or a node-aware
 * method, registered on first sight under its canonical name), or -1 when
 * name is neither (err, if not NULL, says why in one line). */
int coll_find_method(const struct coll_def *c, const char *name, char *err,
                     size_t err_size);
/* The number of plan as a method of c (registered on first sight), or -1
 * (out of memory, or a name too long). */
int coll_plan_method(const struct coll_def *c, const struct node_plan *plan);
/* Method m's name (borrowed; canonical). */
const char *coll_method_name(const struct coll_def *c, int m);
/* Method m's table algorithm, NULL for a node-aware method. */
const struct coll_alg *coll_method_alg(const struct coll_def *c, int m);
/* Method m's composition, NULL for a table algorithm. */
const struct node_plan *coll_method_plan(const struct coll_def *c, int m);
/* 1 if method m takes a segment size of its own (node-aware methods carry
 * theirs in their phases: 0). */
int coll_method_is_segmented(const struct coll_def *c, int m);

#endif
