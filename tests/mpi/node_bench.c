/* Times, under SMPI, the node-aware compositions (collectives/node.h)
 * against the flat algorithms: for each collective and message size, the
 * best flat method and the best composition (every inter-node method,
 * unsegmented and in 8 KiB segments, with binomial, pipelined or linear
 * intra-node phases; allreduce with 1, 2, 4 and 8 leaders per node).
 * One call after one warm-up, the slowest rank's time: deterministic with
 * --cfg=smpi/simulate-computation:no. A benchmark, not a test: no check.
 * Usage: node_bench [collective...] (default bcast reduce allreduce
 * allgather; collectives of P blocks up to 16 KiB) */
#include "collectives/collectives.h"
#include "collectives/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEG = 8192 };

static const long sizes[] = {8, 1024, 16384, 131072, 1048576};

static double time_call(const struct coll_args *args, coll_fn flat,
                        node_fn node, const struct node_comms *nc,
                        const struct node_plan *plan)
{
    double worst = 0;
    for (int rep = 0; rep < 2; rep++) {
        MPI_Barrier(args->comm);
        double t0 = MPI_Wtime();
        int rc = flat ? flat(args) : node(args, nc, plan);
        double t = MPI_Wtime() - t0;
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "node_bench: a call failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, args->comm);
    }
    return worst;
}

static const struct coll_alg *alg_of(const char *coll, const char *name)
{
    const struct coll_def *c = coll_find(coll);
    int i = c ? coll_find_alg(c, name) : -1;
    return i < 0 ? NULL : &c->algs[i];
}

static void bench(const struct coll_def *c, const struct node_comms *nc,
                  long msg_bytes)
{
    int rank, size;
    MPI_Comm_rank(nc->comm, &rank);
    MPI_Comm_size(nc->comm, &size);
    long n_send = coll_buffer_bytes(c->send_blocks, size, msg_bytes);
    long n_recv = coll_buffer_bytes(c->recv_blocks, size, msg_bytes);
    char *send = calloc((size_t)n_send + 1, 1);
    char *recv = calloc((size_t)n_recv + 1, 1);
    if (!send || !recv) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    struct coll_args args = {.sendbuf = send,
                             .recvbuf = recv,
                             .count = (int)msg_bytes,
                             .dtype = MPI_BYTE,
                             .op = c->is_reduction ? MPI_BOR : MPI_OP_NULL,
                             .root = 0,
                             .comm = nc->comm,
                             .chain_fanout = 4};
    char best_flat[80] = "-", best_node[COLL_METHOD_MAX] = "-";
    double t_flat = 1e30, t_node = 1e30;
    for (int a = 0; a < c->n_algs; a++) {
        const struct coll_alg *alg = &c->algs[a];
        for (int s = 0; s < (alg->is_segmented ? 2 : 1); s++) {
            if (!coll_alg_applies(alg, size, args.op)) {
                continue;
            }
            args.seg_bytes = s ? SEG : 0;
            double t = time_call(&args, alg->run, NULL, NULL, NULL);
            if (t < t_flat) {
                t_flat = t;
                snprintf(best_flat, sizeof best_flat, "%s/%d", alg->name,
                         args.seg_bytes);
            }
        }
    }
    /* intra-node phases: the same shape up and down, each of the
     * collective its composition runs there (method.h) */
    static const struct {
        const char *name;
        int seg_bytes;
    } intra[] = {
        {"binomial", 0}, {"binomial", SEG}, {"pipeline", SEG}, {"linear", 0}};
    const struct coll_def *up_coll = node_phase_coll(c, NODE_UP);
    const struct coll_def *down_coll = node_phase_coll(c, NODE_DOWN);
    /* K leaders per node: allreduce only */
    static const int leaders[] = {1, 2, 4, 8};
    int n_leaders = strcmp(c->name, "allreduce") == 0 ? 4 : 1;
    for (size_t k = 0; k < sizeof intra / sizeof intra[0]; k++) {
        struct node_plan plan = {
            1,
            {up_coll ? alg_of(up_coll->name, intra[k].name) : NULL,
             intra[k].seg_bytes},
            {NULL, 0},
            {down_coll ? alg_of(down_coll->name, intra[k].name) : NULL,
             intra[k].seg_bytes}};
        if ((up_coll && !plan.up.alg) || (down_coll && !plan.down.alg)) {
            continue;
        }
        if (plan.up.alg && !plan.up.alg->is_segmented) {
            plan.up.seg_bytes = 0;
        }
        if (plan.down.alg && !plan.down.alg->is_segmented) {
            plan.down.seg_bytes = 0;
        }
        for (int a = 0; a < c->n_algs; a++) {
            plan.inter.alg = &c->algs[a];
            for (int s = 0; s < (plan.inter.alg->is_segmented ? 2 : 1); s++) {
                plan.inter.seg_bytes = s ? SEG : 0;
                for (int l = 0; l < n_leaders; l++) {
                    plan.leaders = leaders[l];
                    if (!node_applies(c->name, nc, &plan, args.op)) {
                        continue;
                    }
                    double t =
                        time_call(&args, NULL, node_find(c->name), nc, &plan);
                    if (t < t_node && node_plan_format(c, &plan, best_node,
                                                       sizeof best_node) == 0) {
                        t_node = t;
                    }
                }
            }
        }
    }
    if (rank == 0) {
        printf("%-9s %8ld  %-28s %10.2f  %-40s %10.2f  %5.2f\n", c->name,
               msg_bytes, best_flat, t_flat * 1e6, best_node, t_node * 1e6,
               t_flat / t_node);
        fflush(stdout);
    }
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    static const char *const all[] = {"bcast", "reduce", "allreduce",
                                      "allgather"};
    const char *const *colls = argc > 1 ? (const char *const *)argv + 1 : all;
    int n_colls = argc > 1 ? argc - 1 : 4;
    int size, n_nodes, block;
    struct node_comms *nc;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *map = malloc((size_t)size * sizeof *map);
    if (!map || nodes_parse_emulation(getenv(NODES_ENV), &block) ||
        nodes_of_comm(MPI_COMM_WORLD, block, map, &n_nodes) ||
        node_comms_create(MPI_COMM_WORLD, map, &nc)) {
        fprintf(stderr, "node_bench: cannot map the nodes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("# P=%d on %d nodes (%d per node); times in us, the slowest "
               "rank's\n# collective bytes best-flat time best-node time "
               "flat/node\n",
               size, n_nodes, nc->layout.ppn);
    }
    for (int i = 0; i < n_colls; i++) {
        const struct coll_def *c = coll_find(colls[i]);
        if (!c || !node_find(colls[i])) {
            fprintf(stderr, "node_bench: %s: no composition\n", colls[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if ((c->send_blocks >= BLOCKS_ROOT_P ||
                 c->recv_blocks >= BLOCKS_ROOT_P) &&
                sizes[s] > 16384) {
                continue;
            }
            bench(c, nc, sizes[s]);
        }
    }
    node_comms_destroy(nc);
    free(map);
    MPI_Finalize();
    return 0;
}
