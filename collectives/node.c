/* Node-aware compositions of the flat algorithms (collectives/node.h): each
 * phase is a call of a table algorithm on the node's or the leaders'
 * communicator, never an algorithm of its own. */
#include "collectives/node.h"
#include "collectives/internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void node_comms_destroy(struct node_comms *nc)
{
    if (!nc) {
        return;
    }
    if (nc->intra != MPI_COMM_NULL) {
        PMPI_Comm_free(&nc->intra);
    }
    if (nc->peers != MPI_COMM_NULL) {
        PMPI_Comm_free(&nc->peers);
    }
    free(nc->node_of_rank);
    free(nc->leader);
    free(nc->node_first);
    free(nc->node_ranks);
    free(nc);
}

/* The per-node arrays of nc from its node_of_rank. */
static void fill_nodes(struct node_comms *nc)
{
    for (int r = 0; r < nc->size; r++) {
        nc->node_first[nc->node_of_rank[r] + 1]++;
    }
    for (int n = 0; n < nc->n_nodes; n++) {
        nc->node_first[n + 1] += nc->node_first[n];
        nc->leader[n] = -1;
    }
    /* node_first[n] moves on as node n's ranks are listed, then back */
    for (int r = 0; r < nc->size; r++) {
        int n = nc->node_of_rank[r];
        if (nc->leader[n] < 0) {
            nc->leader[n] = r;
        }
        nc->node_ranks[nc->node_first[n]++] = r;
    }
    for (int n = nc->n_nodes; n > 0; n--) {
        nc->node_first[n] = nc->node_first[n - 1];
    }
    nc->node_first[0] = 0;
    nc->min_ppn = nc->size;
    for (int n = 0; n < nc->n_nodes; n++) {
        int n_ranks = nc->node_first[n + 1] - nc->node_first[n];
        nc->min_ppn = n_ranks < nc->min_ppn ? n_ranks : nc->min_ppn;
    }
}

int node_comms_create(MPI_Comm comm, const int *node_of_rank,
                      struct node_comms **out)
{
    struct node_comms *nc = calloc(1, sizeof *nc);
    int rc;

    *out = NULL;
    if (!nc) {
        return MPI_ERR_NO_MEM;
    }
    nc->comm = comm;
    nc->intra = nc->leaders = nc->peers = MPI_COMM_NULL;
    if ((rc = PMPI_Comm_rank(comm, &nc->rank)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_size(comm, &nc->size)) != MPI_SUCCESS) {
        goto done;
    }
    nodes_layout(node_of_rank, nc->size, &nc->layout);
    nc->n_nodes = nc->layout.n_nodes;
    nc->node = node_of_rank[nc->rank];
    for (int r = 0; r < nc->rank; r++) {
        nc->local += node_of_rank[r] == nc->node;
    }
    nc->node_of_rank = malloc((size_t)nc->size * sizeof *nc->node_of_rank);
    nc->leader = malloc((size_t)nc->n_nodes * sizeof *nc->leader);
    nc->node_first = calloc((size_t)nc->n_nodes + 1, sizeof *nc->node_first);
    nc->node_ranks = malloc((size_t)nc->size * sizeof *nc->node_ranks);
    /* every rank splits, so all fail together only if the split does */
    if (nc->node_of_rank && nc->leader && nc->node_first && nc->node_ranks) {
        memcpy(nc->node_of_rank, node_of_rank,
               (size_t)nc->size * sizeof *node_of_rank);
        fill_nodes(nc);
    }
    /* Every rank gets a communicator from each split: under SMPI 3.32 a
     * communicator freed on some ranks only (MPI_UNDEFINED's) leaves the
     * ranks disagreeing on the next one made, whose messages then never
     * match. One split by index on the node gives the leaders' (index 0)
     * and every multi-leader method's communicators at once, whatever K. */
    if ((rc = PMPI_Comm_split(comm, nc->node, nc->rank, &nc->intra)) !=
            MPI_SUCCESS ||
        (rc = PMPI_Comm_split(comm, nc->local, nc->node, &nc->peers)) !=
            MPI_SUCCESS) {
        goto done;
    }
    nc->leaders = nc->local == 0 ? nc->peers : MPI_COMM_NULL;
    if (!nc->node_of_rank || !nc->leader || !nc->node_first ||
        !nc->node_ranks) {
        rc = MPI_ERR_NO_MEM;
    }
done:
    if (rc != MPI_SUCCESS) {
        node_comms_destroy(nc);
        return rc;
    }
    *out = nc;
    return MPI_SUCCESS;
}

/* args on another communicator, rooted at root there, in segments of
 * phase's size. */
static struct coll_args phase_args(const struct coll_args *args, MPI_Comm comm,
                                   int root, const struct node_phase *phase)
{
    struct coll_args a = *args;
    a.comm = comm;
    a.root = root;
    a.seg_bytes = phase->seg_bytes;
    return a;
}

/* Idea: the root hands the data to its node's leader (one message, when it
 * is not the leader), the leaders broadcast among themselves, each leader
 * on its node. Cost: [alpha + m*beta] + inter(n_nodes) + intra(ppn). */
int node_bcast(const struct coll_args *args, const struct node_comms *nc,
               const struct node_plan *plan)
{
    int root_node = nc->node_of_rank[args->root];
    int root_leader = nc->leader[root_node];
    int rc = MPI_SUCCESS;
    struct coll_args a;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if (args->root != root_leader && nc->rank == args->root) {
        rc = MPI_Send(args->recvbuf, args->count, args->dtype, root_leader,
                      COLL_TAG_BCAST, args->comm);
    } else if (args->root != root_leader && nc->rank == root_leader) {
        rc = MPI_Recv(args->recvbuf, args->count, args->dtype, args->root,
                      COLL_TAG_BCAST, args->comm, MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS && nc->leaders != MPI_COMM_NULL) {
        a = phase_args(args, nc->leaders, root_node, &plan->inter);
        rc = plan->inter.alg->run(&a);
    }
    if (rc == MPI_SUCCESS) {
        a = phase_args(args, nc->intra, 0, &plan->down);
        rc = plan->down.alg->run(&a);
    }
    return rc;
}

/* Idea: each node reduces to its leader, the leaders to the root's node's
 * leader, which hands the result to the root if it is not the leader.
 * Operand order: each node's ranks in rank order, then the nodes in node
 * order, which is rank order only where nodes hold consecutive ranks
 * (node_applies). Cost: intra(ppn) + inter(n_nodes) + [alpha + m*beta]. */
int node_reduce(const struct coll_args *args, const struct node_comms *nc,
                const struct node_plan *plan)
{
    int root_node = nc->node_of_rank[args->root];
    int root_leader = nc->leader[root_node];
    int is_leader = nc->leaders != MPI_COMM_NULL;
    int is_root = nc->rank == args->root;
    struct coll_layout layout;
    struct coll_args a;
    char *tmp = NULL, *acc = NULL;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = coll_layout_get(args->dtype, &layout)) != MPI_SUCCESS) {
        return rc;
    }
    /* a leader's node result: the root's recvbuf, or a temporary */
    if (is_leader && !is_root) {
        tmp = coll_temp_create(&layout, args->count);
        if (!tmp) {
            return MPI_ERR_NO_MEM;
        }
    }
    acc = is_root ? args->recvbuf : tmp;
    a = phase_args(args, nc->intra, 0, &plan->up);
    if (!is_leader) {
        a.sendbuf =
            args->sendbuf == MPI_IN_PLACE ? args->recvbuf : args->sendbuf;
    }
    a.recvbuf = is_leader ? acc : NULL;
    rc = plan->up.alg->run(&a);
    if (rc == MPI_SUCCESS && is_leader) {
        int is_inter_root = nc->node == root_node;
        a = phase_args(args, nc->leaders, root_node, &plan->inter);
        a.sendbuf = is_inter_root ? MPI_IN_PLACE : acc;
        a.recvbuf = is_inter_root ? acc : NULL;
        rc = plan->inter.alg->run(&a);
    }
    if (rc == MPI_SUCCESS && root_leader != args->root) {
        if (nc->rank == root_leader) {
            rc = MPI_Send(tmp, args->count, args->dtype, args->root,
                          COLL_TAG_REDUCE, args->comm);
        } else if (is_root) {
            rc = MPI_Recv(args->recvbuf, args->count, args->dtype, root_leader,
                          COLL_TAG_REDUCE, args->comm, MPI_STATUS_IGNORE);
        }
    }
    coll_temp_destroy(tmp, &layout);
    return rc;
}

/* Idea (K = plan->leaders >= 2 leaders per node, each node's ranks 0 ..
 * K-1): the vector cut in K slices as coll_block_start cuts it; slice k
 * reduced on each node to its rank k, allreduced among the ranks k of every
 * node (nc->peers), broadcast on each node from its rank k. Every node
 * needs K ranks (node_applies); empty slices (count < K) are left out on
 * every rank alike. Operand order as node_reduce's. Cost, m/K a slice: K
 * intra reduces(ppn, m/K) + inter allreduce(n_nodes, m/K), K at once on
 * each node + K intra bcasts(ppn, m/K). */
static int node_allreduce_slices(const struct coll_args *args,
                                 const struct node_comms *nc,
                                 const struct node_plan *plan)
{
    int n_slices = plan->leaders;
    const char *operand =
        args->sendbuf == MPI_IN_PLACE ? args->recvbuf : args->sendbuf;
    char *recv = args->recvbuf;
    struct coll_layout layout;
    struct coll_args a;
    int rc = coll_layout_get(args->dtype, &layout);

    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        const struct node_phase *phase =
            node_plan_phase(plan, (enum node_phase_id)ph);
        for (int k = 0; rc == MPI_SUCCESS && k < n_slices; k++) {
            int first = coll_block_start(args->count, n_slices, k);
            MPI_Aint at = coll_block_offset(first, 1, layout.extent);
            int is_mine = nc->local == k;
            if (ph == NODE_INTER && !is_mine) {
                continue;
            }
            a = phase_args(args, ph == NODE_INTER ? nc->peers : nc->intra,
                           ph == NODE_INTER ? 0 : k, phase);
            a.count = coll_block_start(args->count, n_slices, k + 1) - first;
            a.sendbuf = MPI_IN_PLACE;
            a.recvbuf = recv + at;
            if (ph == NODE_UP && (!is_mine || args->sendbuf != MPI_IN_PLACE)) {
                a.sendbuf = operand + at;
            }
            if (ph == NODE_UP && !is_mine) {
                /* not significant at a reduce's others: nothing lands */
                a.recvbuf = NULL;
            }
            if (a.count > 0) {
                rc = phase->alg->run(&a);
            }
        }
    }
    return rc;
}

/* Idea: each node reduces to its leader, the leaders allreduce, each
 * leader broadcasts on its node (K leaders: node_allreduce_slices).
 * Operand order as node_reduce's. Cost: intra reduce(ppn) + inter
 * allreduce(n_nodes) + intra bcast(ppn). */
int node_allreduce(const struct coll_args *args, const struct node_comms *nc,
                   const struct node_plan *plan)
{
    int is_leader = nc->leaders != MPI_COMM_NULL;
    struct coll_args a;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if (plan->leaders > 1) {
        return node_allreduce_slices(args, nc, plan);
    }
    a = phase_args(args, nc->intra, 0, &plan->up);
    if (!is_leader) {
        /* recvbuf is not significant here: nothing may land in it */
        a.sendbuf =
            args->sendbuf == MPI_IN_PLACE ? args->recvbuf : args->sendbuf;
        a.recvbuf = NULL;
    }
    rc = plan->up.alg->run(&a);
    if (rc == MPI_SUCCESS && is_leader) {
        a = phase_args(args, nc->leaders, 0, &plan->inter);
        a.sendbuf = MPI_IN_PLACE;
        rc = plan->inter.alg->run(&a);
    }
    if (rc == MPI_SUCCESS) {
        a = phase_args(args, nc->intra, 0, &plan->down);
        rc = plan->down.alg->run(&a);
    }
    return rc;
}

/* What the compositions of P blocks start from: node blocks of q blocks
 * each, q = nc->layout.ppn the ranks of the largest node (the flat
 * algorithms take equal blocks, so a node of fewer ranks pads its node
 * block: its slots past its ranks are sent but never read), all n_nodes * q
 * blocks within an int's count, the datatype's layout and the bytes of one
 * block. */
static int node_blocks_begin(const struct coll_args *args,
                             const struct node_comms *nc,
                             struct coll_layout *layout, MPI_Aint *block)
{
    if ((long)nc->n_nodes * nc->layout.ppn * args->count > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    int rc = coll_layout_get(args->dtype, layout);
    *block = coll_block_offset(1, args->count, layout->extent);
    return rc;
}

/* 1 where node blocks of q slots in node order are the P blocks in rank
 * order: nodes of equal size holding consecutive ranks. */
static int node_blocks_are_ranks(const struct node_comms *nc)
{
    return nc->layout.is_consecutive && nc->layout.is_regular;
}

/* Copies the P blocks between slots (node n's j-th rank's block at slot
 * n*q + j) and ranks (rank i's at block i): into ranks if is_to_ranks. */
static int node_blocks_move(const struct coll_args *args,
                            const struct node_comms *nc, MPI_Aint block,
                            char *slots, char *ranks, int is_to_ranks, int tag)
{
    int rc = MPI_SUCCESS;
    for (int n = 0; n < nc->n_nodes; n++) {
        for (int i = nc->node_first[n];
             rc == MPI_SUCCESS && i < nc->node_first[n + 1]; i++) {
            char *slot =
                slots +
                ((MPI_Aint)n * nc->layout.ppn + i - nc->node_first[n]) * block;
            char *rank = ranks + nc->node_ranks[i] * block;
            rc = coll_copy(is_to_ranks ? slot : rank, is_to_ranks ? rank : slot,
                           args->count, args->dtype, args->comm, tag);
        }
    }
    return rc;
}

/* Idea: each node gathers its blocks to its leader, the leaders allgather
 * node blocks of q blocks (node_blocks_begin), each leader broadcasts all P
 * blocks on its node. Where node blocks are the ranks' in order
 * (node_blocks_are_ranks) a node block is a stretch of recvbuf and the
 * leaders exchange in place; elsewhere they exchange in a temporary and
 * each leader puts the blocks at their ranks. Cost: intra gather(ppn) +
 * inter allgather(n_nodes, q*m) + intra bcast(ppn, P*m) [+ P copies]. */
int node_allgather(const struct coll_args *args, const struct node_comms *nc,
                   const struct node_plan *plan)
{
    int is_leader = nc->leaders != MPI_COMM_NULL;
    int q = nc->layout.ppn;
    struct coll_layout layout;
    struct coll_args a;
    char *tmp = NULL, *recv = args->recvbuf;
    MPI_Aint block;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = node_blocks_begin(args, nc, &layout, &block)) != MPI_SUCCESS) {
        return rc;
    }
    int is_in_order = node_blocks_are_ranks(nc);
    if (is_leader && !is_in_order) {
        tmp = coll_temp_create(&layout, nc->n_nodes * q * args->count);
        if (!tmp) {
            return MPI_ERR_NO_MEM;
        }
    }
    char *slots = is_in_order ? recv : tmp;
    a = phase_args(args, nc->intra, 0, &plan->up);
    if (args->sendbuf == MPI_IN_PLACE && !(is_leader && is_in_order)) {
        a.sendbuf = recv + nc->rank * block;
    }
    a.recvbuf = is_leader ? slots + (MPI_Aint)nc->node * q * block : NULL;
    rc = plan->up.alg->run(&a);
    if (rc == MPI_SUCCESS && is_leader) {
        a = phase_args(args, nc->leaders, 0, &plan->inter);
        a.sendbuf = MPI_IN_PLACE;
        a.recvbuf = slots;
        a.count = q * args->count;
        rc = plan->inter.alg->run(&a);
    }
    if (rc == MPI_SUCCESS && tmp) {
        rc =
            node_blocks_move(args, nc, block, tmp, recv, 1, COLL_TAG_ALLGATHER);
    }
    if (rc == MPI_SUCCESS) {
        a = phase_args(args, nc->intra, 0, &plan->down);
        a.count = nc->size * args->count;
        rc = plan->down.alg->run(&a);
    }
    coll_temp_destroy(tmp, &layout);
    return rc;
}

/* Idea: each node gathers its blocks to its leader, the leaders gather
 * node blocks of q blocks (node_blocks_begin) to the root's node's leader,
 * which hands all P blocks to the root if it is not the leader. Where node
 * blocks are the ranks' in order and the root leads its node, the blocks
 * land in recvbuf; elsewhere in a temporary, which that leader puts in rank
 * order. Cost: intra gather(ppn) + inter gather(n_nodes, q*m) [+ alpha +
 * P*m*beta]. */
int node_gather(const struct coll_args *args, const struct node_comms *nc,
                const struct node_plan *plan)
{
    int root_node = nc->node_of_rank[args->root];
    int root_leader = nc->leader[root_node];
    int is_leader = nc->leaders != MPI_COMM_NULL;
    int is_root = nc->rank == args->root;
    int is_inter_root = nc->rank == root_leader;
    int q = nc->layout.ppn;
    struct coll_layout layout;
    struct coll_args a;
    char *tmp = NULL, *ordered = NULL, *slots = NULL;
    MPI_Aint block;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = node_blocks_begin(args, nc, &layout, &block)) != MPI_SUCCESS) {
        return rc;
    }
    int is_in_order = node_blocks_are_ranks(nc);
    int is_direct = is_in_order && root_leader == args->root;
    /* the inter root holds every node block; the other leaders their own */
    int n_tmp = is_inter_root ? nc->n_nodes * q : q;
    if (is_leader && !(is_direct && is_inter_root)) {
        tmp = coll_temp_create(&layout, n_tmp * args->count);
        if (!tmp) {
            return MPI_ERR_NO_MEM;
        }
    }
    slots = is_direct && is_inter_root ? args->recvbuf : tmp;
    a = phase_args(args, nc->intra, 0, &plan->up);
    if (args->sendbuf == MPI_IN_PLACE && !(is_direct && is_root)) {
        a.sendbuf = (char *)args->recvbuf + nc->rank * block;
    }
    a.recvbuf = NULL;
    if (is_leader) {
        a.recvbuf =
            is_inter_root ? slots + (MPI_Aint)nc->node * q * block : slots;
    }
    rc = plan->up.alg->run(&a);
    if (rc == MPI_SUCCESS && is_leader) {
        a = phase_args(args, nc->leaders, root_node, &plan->inter);
        a.sendbuf = is_inter_root ? MPI_IN_PLACE : slots;
        a.recvbuf = is_inter_root ? slots : NULL;
        a.count = q * args->count;
        rc = plan->inter.alg->run(&a);
    }
    if (rc == MPI_SUCCESS && is_inter_root && !is_direct) {
        /* in rank order: in recvbuf at the root, else in a temporary */
        ordered = slots;
        if (!is_in_order) {
            ordered = is_root
                          ? args->recvbuf
                          : coll_temp_create(&layout, nc->size * args->count);
            rc = ordered ? node_blocks_move(args, nc, block, slots, ordered, 1,
                                            COLL_TAG_GATHER)
                         : MPI_ERR_NO_MEM;
        }
        if (rc == MPI_SUCCESS && !is_root) {
            rc = MPI_Send(ordered, nc->size * args->count, args->dtype,
                          args->root, COLL_TAG_GATHER, args->comm);
        }
    } else if (rc == MPI_SUCCESS && is_root && !is_inter_root) {
        rc = MPI_Recv(args->recvbuf, nc->size * args->count, args->dtype,
                      root_leader, COLL_TAG_GATHER, args->comm,
                      MPI_STATUS_IGNORE);
    }
    if (ordered != slots && ordered != args->recvbuf) {
        coll_temp_destroy(ordered, &layout);
    }
    coll_temp_destroy(tmp, &layout);
    return rc;
}

/* Idea: a root that does not lead its node hands its P blocks to its
 * leader, which scatters node blocks of q blocks (node_blocks_begin) among
 * the leaders (where they are not the ranks' blocks in order it puts them
 * in node blocks in a temporary first); each leader scatters its node's
 * blocks on its node. Cost: [alpha + P*m*beta] + inter scatter(n_nodes,
 * q*m) + intra scatter(ppn). */
int node_scatter(const struct coll_args *args, const struct node_comms *nc,
                 const struct node_plan *plan)
{
    int root_node = nc->node_of_rank[args->root];
    int root_leader = nc->leader[root_node];
    int is_leader = nc->leaders != MPI_COMM_NULL;
    int is_root = nc->rank == args->root;
    int is_inter_root = nc->rank == root_leader;
    int q = nc->layout.ppn;
    struct coll_layout layout;
    struct coll_args a;
    char *got = NULL, *sorted = NULL, *mine = NULL, *own = NULL;
    const char *slots = args->sendbuf;
    MPI_Aint block;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    if ((rc = node_blocks_begin(args, nc, &layout, &block)) != MPI_SUCCESS) {
        return rc;
    }
    int n_all = nc->size * args->count;
    if (is_inter_root && !is_root) {
        got = coll_temp_create(&layout, n_all);
        rc = got ? MPI_Recv(got, n_all, args->dtype, args->root,
                            COLL_TAG_SCATTER, args->comm, MPI_STATUS_IGNORE)
                 : MPI_ERR_NO_MEM;
        slots = got;
    } else if (is_root && !is_inter_root) {
        rc = MPI_Send(args->sendbuf, n_all, args->dtype, root_leader,
                      COLL_TAG_SCATTER, args->comm);
    }
    if (rc == MPI_SUCCESS && is_inter_root && !node_blocks_are_ranks(nc)) {
        sorted = coll_temp_create(&layout, nc->n_nodes * q * args->count);
        rc = sorted ? node_blocks_move(args, nc, block, sorted, (char *)slots,
                                       0, COLL_TAG_SCATTER)
                    : MPI_ERR_NO_MEM;
        slots = sorted;
    }
    if (rc == MPI_SUCCESS && is_leader && !is_inter_root) {
        mine = coll_temp_create(&layout, q * args->count);
        rc = mine ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS && is_leader) {
        a = phase_args(args, nc->leaders, root_node, &plan->inter);
        a.sendbuf = is_inter_root ? slots : NULL;
        a.recvbuf = is_inter_root ? MPI_IN_PLACE : mine;
        a.count = q * args->count;
        rc = plan->inter.alg->run(&a);
    }
    /* the root's own block stays in sendbuf with MPI_IN_PLACE: one that
     * does not lead its node receives it again, into a temporary */
    if (rc == MPI_SUCCESS && is_root && !is_leader &&
        args->recvbuf == MPI_IN_PLACE) {
        own = coll_temp_create(&layout, args->count);
        rc = own ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) {
        a = phase_args(args, nc->intra, 0, &plan->down);
        a.sendbuf = !is_leader      ? NULL
                    : is_inter_root ? slots + (MPI_Aint)nc->node * q * block
                                    : mine;
        a.recvbuf = own ? own : args->recvbuf;
        rc = plan->down.alg->run(&a);
    }
    coll_temp_destroy(got, &layout);
    coll_temp_destroy(sorted, &layout);
    coll_temp_destroy(mine, &layout);
    coll_temp_destroy(own, &layout);
    return rc;
}

/* A leader's copies between mine, P blocks for each rank of its node (the
 * node's i-th rank's block of comm rank r at i*P + r), and pairs,
 * node-to-node blocks ([node m][local rank of the source][local rank of
 * the destination], q x q blocks a node). is_pack: mine holds what this
 * node's ranks send (r the destination), copied into pairs; else pairs
 * holds what node m's ranks sent here, copied into mine (r the source). */
static int node_pairs_move(const struct coll_args *args,
                           const struct node_comms *nc, MPI_Aint block,
                           char *mine, char *pairs, int is_pack)
{
    int q = nc->layout.ppn, rc = MPI_SUCCESS;
    int n_here = nc->node_first[nc->node + 1] - nc->node_first[nc->node];
    for (int m = 0; m < nc->n_nodes; m++) {
        int first = nc->node_first[m], n_m = nc->node_first[m + 1] - first;
        for (int here = 0; rc == MPI_SUCCESS && here < n_here; here++) {
            for (int there = 0; rc == MPI_SUCCESS && there < n_m; there++) {
                int from = is_pack ? here : there, to = is_pack ? there : here;
                char *pair =
                    pairs + (((MPI_Aint)m * q + from) * q + to) * block;
                char *blk = mine + ((MPI_Aint)here * nc->size +
                                    nc->node_ranks[first + there]) *
                                       block;
                rc = coll_copy(is_pack ? blk : pair, is_pack ? pair : blk,
                               args->count, args->dtype, args->comm,
                               COLL_TAG_ALLTOALL);
            }
        }
    }
    return rc;
}

/* Idea: each node gathers its ranks' P blocks to its leader, which packs
 * them by destination node into node-to-node blocks of q x q blocks (q as
 * node_blocks_begin's: a node of fewer ranks pads); the leaders exchange
 * them with a flat alltoall; each leader unpacks what it received into each
 * of its ranks' P blocks in source rank order and scatters them on its node.
 * Cost: intra gather(ppn, P*m) + inter alltoall(n_nodes, q*q*m) + intra
 * scatter(ppn, P*m) + 2*ppn*P block copies at each leader. */
int node_alltoall(const struct coll_args *args, const struct node_comms *nc,
                  const struct node_plan *plan)
{
    int is_leader = nc->leaders != MPI_COMM_NULL;
    int q = nc->layout.ppn, n_ranks = nc->size;
    int n_here = nc->node_first[nc->node + 1] - nc->node_first[nc->node];
    const char *operand =
        args->sendbuf == MPI_IN_PLACE ? args->recvbuf : args->sendbuf;
    struct coll_layout layout;
    struct coll_args a;
    char *mine = NULL, *out = NULL, *in = NULL;
    MPI_Aint block;
    int rc;

    if (args->count == 0) {
        return MPI_SUCCESS;
    }
    /* n_nodes * q * q blocks hold every other count here */
    if ((long)nc->n_nodes * q * q * args->count > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    if ((rc = node_blocks_begin(args, nc, &layout, &block)) != MPI_SUCCESS) {
        return rc;
    }
    int n_pairs = nc->n_nodes * q * q * args->count;
    if (is_leader) {
        mine = coll_temp_create(&layout, n_here * n_ranks * args->count);
        out = coll_temp_create(&layout, n_pairs);
        in = coll_temp_create(&layout, n_pairs);
        if (!mine || !out || !in) {
            rc = MPI_ERR_NO_MEM;
        }
    }
    if (rc == MPI_SUCCESS) {
        a = phase_args(args, nc->intra, 0, &plan->up);
        a.sendbuf = operand;
        a.recvbuf = mine;
        a.count = n_ranks * args->count;
        rc = plan->up.alg->run(&a);
    }
    if (rc == MPI_SUCCESS && is_leader) {
        rc = node_pairs_move(args, nc, block, mine, out, 1);
    }
    if (rc == MPI_SUCCESS && is_leader) {
        a = phase_args(args, nc->leaders, 0, &plan->inter);
        a.sendbuf = out;
        a.recvbuf = in;
        a.count = q * q * args->count;
        rc = plan->inter.alg->run(&a);
    }
    if (rc == MPI_SUCCESS && is_leader) {
        rc = node_pairs_move(args, nc, block, mine, in, 0);
    }
    if (rc == MPI_SUCCESS) {
        a = phase_args(args, nc->intra, 0, &plan->down);
        a.sendbuf = mine;
        a.count = n_ranks * args->count;
        rc = plan->down.alg->run(&a);
    }
    coll_temp_destroy(mine, &layout);
    coll_temp_destroy(out, &layout);
    coll_temp_destroy(in, &layout);
    return rc;
}

/* Idea: a barrier on each node, among the leaders, on each node again: a
 * leader leaves the first only when its node entered, the second only when
 * every node did, and its node's ranks leave the third only after it. */
int node_barrier(const struct coll_args *args, const struct node_comms *nc,
                 const struct node_plan *plan)
{
    struct coll_args a = phase_args(args, nc->intra, 0, &plan->up);
    int rc = plan->up.alg->run(&a);
    if (rc == MPI_SUCCESS && nc->leaders != MPI_COMM_NULL) {
        a = phase_args(args, nc->leaders, 0, &plan->inter);
        rc = plan->inter.alg->run(&a);
    }
    if (rc == MPI_SUCCESS) {
        a = phase_args(args, nc->intra, 0, &plan->down);
        rc = plan->down.alg->run(&a);
    }
    return rc;
}

static const struct {
    const char *collective;
    node_fn run;
} node_colls[] = {
    {"bcast", node_bcast},         {"reduce", node_reduce},
    {"allreduce", node_allreduce}, {"allgather", node_allgather},
    {"barrier", node_barrier},     {"gather", node_gather},
    {"scatter", node_scatter},     {"alltoall", node_alltoall},
};
enum { N_NODE_COLLS = sizeof node_colls / sizeof node_colls[0] };

node_fn node_find(const char *collective)
{
    for (int i = 0; i < N_NODE_COLLS; i++) {
        if (strcmp(node_colls[i].collective, collective) == 0) {
            return node_colls[i].run;
        }
    }
    return NULL;
}

/* Whether alg applies on every node's communicator. */
static int applies_on_nodes(const struct coll_alg *alg,
                            const struct node_comms *nc, MPI_Op op)
{
    for (int n = 0; n < nc->n_nodes; n++) {
        int n_ranks = nc->node_first[n + 1] - nc->node_first[n];
        if (!coll_alg_applies(alg, n_ranks, op)) {
            return 0;
        }
    }
    return 1;
}

int node_is_composed(const struct node_comms *nc)
{
    return nc->n_nodes > 1 && nc->n_nodes < nc->size;
}

int node_applies(const char *collective, const struct node_comms *nc,
                 const struct node_plan *plan, MPI_Op op)
{
    const struct coll_def *c = coll_find(collective);
    if (!c || !node_find(collective) || plan->leaders < 1) {
        return 0;
    }
    /* K leaders: the node's K lowest ranks, on every node */
    if (plan->leaders > 1 &&
        (strcmp(collective, "allreduce") != 0 || plan->leaders > nc->min_ppn)) {
        return 0;
    }
    if (op != MPI_OP_NULL && !nc->layout.is_consecutive) {
        int is_commutative = 0;
        if (MPI_Op_commutative(op, &is_commutative) != MPI_SUCCESS ||
            !is_commutative) {
            return 0;
        }
    }
    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        const struct coll_def *pc = node_phase_coll(c, (enum node_phase_id)ph);
        const struct coll_alg *alg =
            node_plan_phase(plan, (enum node_phase_id)ph)->alg;
        /* the bcast, gather, scatter and barrier phases take no op */
        MPI_Op phase_op = pc && pc->is_reduction ? op : MPI_OP_NULL;
        int applies = !pc || (ph == NODE_INTER
                                  ? coll_alg_applies(alg, nc->n_nodes, phase_op)
                                  : applies_on_nodes(alg, nc, phase_op));
        if (!applies) {
            return 0;
        }
    }
    return 1;
}
