/* MPICH's MPIR-level collective algorithms, by our names: the one place that
 * knows them. Names and restrictions from MPICH 4.0's collective selection
 * (src/mpi/coll/coll_algorithms.txt, csel_container.c); only algorithms that
 * do what ours do are listed, and only unsegmented ones (MPICH's take no
 * segment size). */
#include <string.h>

#include "store/libraries.h"

static const struct mpich_alg mpich_algs[] = {
    {"allgather", "bruck", "MPIR_Allgather_intra_brucks", 0},
    {"allgather", "recursive_doubling",
     "MPIR_Allgather_intra_recursive_doubling", MPICH_POW2_PROCS},
    {"allgather", "ring", "MPIR_Allgather_intra_ring", 0},
    {"allreduce", "recursive_doubling",
     "MPIR_Allreduce_intra_recursive_doubling", 0},
    {"allreduce", "rabenseifner",
     "MPIR_Allreduce_intra_reduce_scatter_allgather",
     MPICH_BUILTIN_OP | MPICH_COUNT_GE_POF2},
    {"alltoall", "bruck", "MPIR_Alltoall_intra_brucks", MPICH_NOT_IN_PLACE},
    {"alltoall", "pairwise", "MPIR_Alltoall_intra_pairwise",
     MPICH_NOT_IN_PLACE},
    {"barrier", "bruck", "MPIR_Barrier_intra_dissemination", 0},
    {"bcast", "binomial", "MPIR_Bcast_intra_binomial", 0},
    {"bcast", "scatter_allgather",
     "MPIR_Bcast_intra_scatter_recursive_doubling_allgather", MPICH_POW2_PROCS},
    {"bcast", "scatter_allgather_ring",
     "MPIR_Bcast_intra_scatter_ring_allgather", 0},
    {"gather", "binomial", "MPIR_Gather_intra_binomial", 0},
    {"reduce", "binomial", "MPIR_Reduce_intra_binomial", 0},
    {"reduce", "rabenseifner", "MPIR_Reduce_intra_reduce_scatter_gather",
     MPICH_BUILTIN_OP | MPICH_COUNT_GE_POF2},
    {"scatter", "binomial", "MPIR_Scatter_intra_binomial", 0},
};

/* On two ranks, these of ours send one message from one rank to the other
 * (bcast, reduce: with one operation, in rank order; gather, scatter) or
 * swap one between them (allgather, alltoall, barrier), unsegmented, as
 * MPICH's algorithm named does there: the file runs it on communicators of
 * two ranks only (not split_binary, in_order_binary, linear_sync gather,
 * gather_bcast, tree, linear barrier: two messages in turn there). */
static const struct mpich_alg mpich_two_procs_algs[] = {
    {"allgather", "neighbor_exchange", "MPIR_Allgather_intra_ring",
     MPICH_TWO_PROCS},
    {"allgather", "two_proc", "MPIR_Allgather_intra_ring", MPICH_TWO_PROCS},
    {"alltoall", "linear", "MPIR_Alltoall_intra_pairwise",
     MPICH_TWO_PROCS | MPICH_NOT_IN_PLACE},
    {"alltoall", "linear_sync", "MPIR_Alltoall_intra_pairwise",
     MPICH_TWO_PROCS | MPICH_NOT_IN_PLACE},
    {"alltoall", "two_proc", "MPIR_Alltoall_intra_pairwise",
     MPICH_TWO_PROCS | MPICH_NOT_IN_PLACE},
    {"barrier", "recursive_doubling", "MPIR_Barrier_intra_dissemination",
     MPICH_TWO_PROCS},
    {"barrier", "two_proc", "MPIR_Barrier_intra_dissemination",
     MPICH_TWO_PROCS},
    {"bcast", "binary", "MPIR_Bcast_intra_binomial", MPICH_TWO_PROCS},
    {"bcast", "chain", "MPIR_Bcast_intra_binomial", MPICH_TWO_PROCS},
    {"bcast", "knomial", "MPIR_Bcast_intra_binomial", MPICH_TWO_PROCS},
    {"bcast", "linear", "MPIR_Bcast_intra_binomial", MPICH_TWO_PROCS},
    {"bcast", "pipeline", "MPIR_Bcast_intra_binomial", MPICH_TWO_PROCS},
    {"gather", "binary", "MPIR_Gather_intra_binomial", MPICH_TWO_PROCS},
    {"gather", "chain", "MPIR_Gather_intra_binomial", MPICH_TWO_PROCS},
    {"gather", "linear", "MPIR_Gather_intra_binomial", MPICH_TWO_PROCS},
    {"reduce", "binary", "MPIR_Reduce_intra_binomial", MPICH_TWO_PROCS},
    {"reduce", "chain", "MPIR_Reduce_intra_binomial", MPICH_TWO_PROCS},
    {"reduce", "linear", "MPIR_Reduce_intra_binomial", MPICH_TWO_PROCS},
    {"reduce", "pipeline", "MPIR_Reduce_intra_binomial", MPICH_TWO_PROCS},
    {"scatter", "binary", "MPIR_Scatter_intra_binomial", MPICH_TWO_PROCS},
    {"scatter", "chain", "MPIR_Scatter_intra_binomial", MPICH_TWO_PROCS},
    {"scatter", "linear", "MPIR_Scatter_intra_binomial", MPICH_TWO_PROCS},
    {"scatter", "linear_nb", "MPIR_Scatter_intra_binomial", MPICH_TWO_PROCS},
};

/* MPICH reads only the given file: a collective it selects and does not find
 * there makes MPI_Init or the call crash, so every one is listed. The defaults
 * run with any arguments and take no parameters. */
const struct mpich_coll mpich_colls[] = {
    {"allgather", "allgather", MPICH_KEY_TOTAL, "MPIR_Allgather_intra_ring",
     NULL, "MPIR_Allgather_inter_local_gather_remote_bcast"},
    {"allgatherv", NULL, MPICH_KEY_NONE, "MPIR_Allgatherv_intra_ring", NULL,
     "MPIR_Allgatherv_inter_remote_gather_local_bcast"},
    {"allreduce", "allreduce", MPICH_KEY_AVG,
     "MPIR_Allreduce_intra_recursive_doubling", NULL,
     "MPIR_Allreduce_inter_reduce_exchange_bcast"},
    {"alltoall", "alltoall", MPICH_KEY_AVG, "MPIR_Alltoall_intra_pairwise",
     "MPIR_Alltoall_intra_pairwise_sendrecv_replace",
     "MPIR_Alltoall_inter_pairwise_exchange"},
    {"alltoallv", NULL, MPICH_KEY_NONE, "MPIR_Alltoallv_intra_scattered",
     "MPIR_Alltoallv_intra_pairwise_sendrecv_replace",
     "MPIR_Alltoallv_inter_pairwise_exchange"},
    {"alltoallw", NULL, MPICH_KEY_NONE, "MPIR_Alltoallw_intra_scattered",
     "MPIR_Alltoallw_intra_pairwise_sendrecv_replace",
     "MPIR_Alltoallw_inter_pairwise_exchange"},
    {"barrier", "barrier", MPICH_KEY_NONE, "MPIR_Barrier_intra_dissemination",
     NULL, "MPIR_Barrier_inter_bcast"},
    {"bcast", "bcast", MPICH_KEY_AVG, "MPIR_Bcast_intra_binomial", NULL,
     "MPIR_Bcast_inter_remote_send_local_bcast"},
    {"exscan", NULL, MPICH_KEY_NONE, "MPIR_Exscan_intra_recursive_doubling",
     NULL, NULL},
    {"gather", "gather", MPICH_KEY_TOTAL, "MPIR_Gather_intra_binomial", NULL,
     "MPIR_Gather_inter_linear"},
    {"gatherv", NULL, MPICH_KEY_NONE, "MPIR_Gatherv_allcomm_linear", NULL,
     "MPIR_Gatherv_allcomm_linear"},
    {"reduce", "reduce", MPICH_KEY_AVG, "MPIR_Reduce_intra_binomial", NULL,
     "MPIR_Reduce_inter_local_reduce_remote_send"},
    {"reduce_scatter", NULL, MPICH_KEY_NONE,
     "MPIR_Reduce_scatter_intra_recursive_doubling", NULL,
     "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter"},
    {"reduce_scatter_block", NULL, MPICH_KEY_NONE,
     "MPIR_Reduce_scatter_block_intra_recursive_doubling", NULL,
     "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter"},
    {"scan", NULL, MPICH_KEY_NONE, "MPIR_Scan_intra_recursive_doubling", NULL,
     NULL},
    {"scatter", "scatter", MPICH_KEY_TOTAL, "MPIR_Scatter_intra_binomial", NULL,
     "MPIR_Scatter_inter_linear"},
    {"scatterv", NULL, MPICH_KEY_NONE, "MPIR_Scatterv_allcomm_linear", NULL,
     "MPIR_Scatterv_allcomm_linear"},
    {"iallgather", NULL, MPICH_KEY_NONE, "MPIR_Iallgather_intra_sched_ring",
     NULL, "MPIR_Iallgather_inter_sched_local_gather_remote_bcast"},
    {"iallgatherv", NULL, MPICH_KEY_NONE, "MPIR_Iallgatherv_intra_sched_ring",
     NULL, "MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast"},
    {"iallreduce", NULL, MPICH_KEY_NONE,
     "MPIR_Iallreduce_intra_sched_recursive_doubling", NULL,
     "MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast"},
    {"ialltoall", NULL, MPICH_KEY_NONE, "MPIR_Ialltoall_intra_sched_pairwise",
     "MPIR_Ialltoall_intra_sched_inplace",
     "MPIR_Ialltoall_inter_sched_pairwise_exchange"},
    {"ialltoallv", NULL, MPICH_KEY_NONE, "MPIR_Ialltoallv_intra_sched_blocked",
     "MPIR_Ialltoallv_intra_sched_inplace",
     "MPIR_Ialltoallv_inter_sched_pairwise_exchange"},
    {"ialltoallw", NULL, MPICH_KEY_NONE, "MPIR_Ialltoallw_intra_sched_blocked",
     "MPIR_Ialltoallw_intra_sched_inplace",
     "MPIR_Ialltoallw_inter_sched_pairwise_exchange"},
    {"ibarrier", NULL, MPICH_KEY_NONE,
     "MPIR_Ibarrier_intra_sched_recursive_doubling", NULL,
     "MPIR_Ibarrier_inter_sched_bcast"},
    {"ibcast", NULL, MPICH_KEY_NONE, "MPIR_Ibcast_intra_sched_binomial", NULL,
     "MPIR_Ibcast_inter_sched_flat"},
    {"iexscan", NULL, MPICH_KEY_NONE,
     "MPIR_Iexscan_intra_sched_recursive_doubling", NULL, NULL},
    {"igather", NULL, MPICH_KEY_NONE, "MPIR_Igather_intra_sched_binomial", NULL,
     "MPIR_Igather_inter_sched_long"},
    {"igatherv", NULL, MPICH_KEY_NONE, "MPIR_Igatherv_allcomm_sched_linear",
     NULL, "MPIR_Igatherv_allcomm_sched_linear"},
    {"ireduce", NULL, MPICH_KEY_NONE, "MPIR_Ireduce_intra_sched_binomial", NULL,
     "MPIR_Ireduce_inter_sched_local_reduce_remote_send"},
    {"ireduce_scatter", NULL, MPICH_KEY_NONE,
     "MPIR_Ireduce_scatter_intra_sched_recursive_doubling", NULL,
     "MPIR_Ireduce_scatter_inter_sched_remote_reduce_local_scatterv"},
    {"ireduce_scatter_block", NULL, MPICH_KEY_NONE,
     "MPIR_Ireduce_scatter_block_intra_sched_recursive_doubling", NULL,
     "MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv"},
    {"iscan", NULL, MPICH_KEY_NONE, "MPIR_Iscan_intra_sched_recursive_doubling",
     NULL, NULL},
    {"iscatter", NULL, MPICH_KEY_NONE, "MPIR_Iscatter_intra_sched_binomial",
     NULL, "MPIR_Iscatter_inter_sched_linear"},
    {"iscatterv", NULL, MPICH_KEY_NONE, "MPIR_Iscatterv_allcomm_sched_linear",
     NULL, "MPIR_Iscatterv_allcomm_sched_linear"},
    {"neighbor_allgather", NULL, MPICH_KEY_NONE,
     "MPIR_Neighbor_allgather_allcomm_nb", NULL, NULL},
    {"neighbor_allgatherv", NULL, MPICH_KEY_NONE,
     "MPIR_Neighbor_allgatherv_allcomm_nb", NULL, NULL},
    {"neighbor_alltoall", NULL, MPICH_KEY_NONE,
     "MPIR_Neighbor_alltoall_allcomm_nb", NULL, NULL},
    {"neighbor_alltoallv", NULL, MPICH_KEY_NONE,
     "MPIR_Neighbor_alltoallv_allcomm_nb", NULL, NULL},
    {"neighbor_alltoallw", NULL, MPICH_KEY_NONE,
     "MPIR_Neighbor_alltoallw_allcomm_nb", NULL, NULL},
    {"ineighbor_allgather", NULL, MPICH_KEY_NONE,
     "MPIR_Ineighbor_allgather_allcomm_sched_linear", NULL, NULL},
    {"ineighbor_allgatherv", NULL, MPICH_KEY_NONE,
     "MPIR_Ineighbor_allgatherv_allcomm_sched_linear", NULL, NULL},
    {"ineighbor_alltoall", NULL, MPICH_KEY_NONE,
     "MPIR_Ineighbor_alltoall_allcomm_sched_linear", NULL, NULL},
    {"ineighbor_alltoallv", NULL, MPICH_KEY_NONE,
     "MPIR_Ineighbor_alltoallv_allcomm_sched_linear", NULL, NULL},
    {"ineighbor_alltoallw", NULL, MPICH_KEY_NONE,
     "MPIR_Ineighbor_alltoallw_allcomm_sched_linear", NULL, NULL},
};
const int mpich_colls_size = (int)(sizeof mpich_colls / sizeof mpich_colls[0]);

/* MPICH 4.0's own selection on intra-communicators for the collectives we
 * tune, as its compiled-in file (maint/tuning/coll/mpir/generic.json, the
 * one our file replaces) decides it; checked against the string inside
 * the installed libmpich by tests/sh/test_export_mpich.sh. One case per
 * line: the conditions from the outermost, then the algorithm; lines that
 * share leading conditions are one branch, tried in order. */
static const char *const bcast_default[] = {
    "comm_size<8 comm_hierarchy=parent avg_msg_size<=0 MPIR_Bcast_intra_smp",
    "comm_size<8 comm_hierarchy=parent avg_msg_size=any "
    "MPIR_Bcast_intra_binomial",
    "comm_size<8 comm_hierarchy=any MPIR_Bcast_intra_binomial",
    "comm_size=pow2 comm_hierarchy=parent avg_msg_size<=0 "
    "MPIR_Bcast_intra_smp",
    "comm_size=pow2 comm_hierarchy=parent avg_msg_size<=12288 "
    "MPIR_Bcast_intra_binomial",
    "comm_size=pow2 comm_hierarchy=parent avg_msg_size<=524288 "
    "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
    "comm_size=pow2 comm_hierarchy=parent avg_msg_size=any "
    "MPIR_Bcast_intra_scatter_ring_allgather",
    "comm_size=pow2 comm_hierarchy=any avg_msg_size<=12288 "
    "MPIR_Bcast_intra_binomial",
    "comm_size=pow2 comm_hierarchy=any avg_msg_size<=524288 "
    "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
    "comm_size=pow2 comm_hierarchy=any avg_msg_size=any "
    "MPIR_Bcast_intra_scatter_ring_allgather",
    "comm_size=any comm_hierarchy=parent avg_msg_size<=0 MPIR_Bcast_intra_smp",
    "comm_size=any comm_hierarchy=parent avg_msg_size<=12288 "
    "MPIR_Bcast_intra_binomial",
    "comm_size=any comm_hierarchy=parent avg_msg_size=any "
    "MPIR_Bcast_intra_scatter_ring_allgather",
    "comm_size=any comm_hierarchy=any avg_msg_size<=12288 "
    "MPIR_Bcast_intra_binomial",
    "comm_size=any comm_hierarchy=any avg_msg_size=any "
    "MPIR_Bcast_intra_scatter_ring_allgather",
    NULL};
static const char *const reduce_default[] = {
    "comm_hierarchy=parent avg_msg_size<=0 is_commutative=yes "
    "MPIR_Reduce_intra_smp",
    "comm_hierarchy=parent avg_msg_size<=0 is_commutative=no "
    "MPIR_Reduce_intra_binomial",
    "comm_hierarchy=parent avg_msg_size<=2048 MPIR_Reduce_intra_binomial",
    "comm_hierarchy=parent avg_msg_size=any is_op_built_in=yes count<pow2 "
    "MPIR_Reduce_intra_binomial",
    "comm_hierarchy=parent avg_msg_size=any is_op_built_in=yes count=any "
    "MPIR_Reduce_intra_reduce_scatter_gather",
    "comm_hierarchy=parent avg_msg_size=any is_op_built_in=no "
    "MPIR_Reduce_intra_binomial",
    "comm_hierarchy=any avg_msg_size<=2048 MPIR_Reduce_intra_binomial",
    "comm_hierarchy=any avg_msg_size=any is_op_built_in=yes count<pow2 "
    "MPIR_Reduce_intra_binomial",
    "comm_hierarchy=any avg_msg_size=any is_op_built_in=yes count=any "
    "MPIR_Reduce_intra_reduce_scatter_gather",
    "comm_hierarchy=any avg_msg_size=any is_op_built_in=no "
    "MPIR_Reduce_intra_binomial",
    NULL};
static const char *const allreduce_default[] = {
    "avg_msg_size<=0 is_commutative=yes MPIR_Allreduce_intra_smp",
    "avg_msg_size<=0 is_commutative=no "
    "MPIR_Allreduce_intra_recursive_doubling",
    "avg_msg_size<=8 MPIR_Allreduce_intra_recursive_doubling",
    "avg_msg_size=any is_op_built_in=no "
    "MPIR_Allreduce_intra_recursive_doubling",
    "avg_msg_size=any is_op_built_in=yes count<pow2 "
    "MPIR_Allreduce_intra_recursive_doubling",
    "avg_msg_size=any is_op_built_in=yes count=any "
    "MPIR_Allreduce_intra_reduce_scatter_allgather",
    NULL};
static const char *const allgather_default[] = {
    "comm_size=pow2 total_msg_size<524288 "
    "MPIR_Allgather_intra_recursive_doubling",
    "comm_size=pow2 total_msg_size=any MPIR_Allgather_intra_ring",
    "comm_size=any total_msg_size<81920 MPIR_Allgather_intra_brucks",
    "comm_size=any total_msg_size=any MPIR_Allgather_intra_ring", NULL};
static const char *const alltoall_default[] = {
    "is_sendbuf_inplace=yes MPIR_Alltoall_intra_pairwise_sendrecv_replace",
    "is_sendbuf_inplace=no comm_size<8 avg_msg_size<=32768 "
    "MPIR_Alltoall_intra_scattered",
    "is_sendbuf_inplace=no comm_size<8 avg_msg_size=any "
    "MPIR_Alltoall_intra_pairwise",
    "is_sendbuf_inplace=no comm_size=any avg_msg_size<=256 "
    "MPIR_Alltoall_intra_brucks",
    "is_sendbuf_inplace=no comm_size=any avg_msg_size<=32768 "
    "MPIR_Alltoall_intra_scattered",
    "is_sendbuf_inplace=no comm_size=any avg_msg_size=any "
    "MPIR_Alltoall_intra_pairwise",
    NULL};
static const char *const barrier_default[] = {
    "comm_hierarchy=parent MPIR_Barrier_intra_smp",
    "comm_hierarchy=any MPIR_Barrier_intra_dissemination", NULL};
static const char *const gather_default[] = {"MPIR_Gather_intra_binomial",
                                             NULL};
static const char *const scatter_default[] = {"MPIR_Scatter_intra_binomial",
                                              NULL};

static const struct {
    const char *name;
    const char *const *cases;
} mpich_defaults[] = {
    {"allgather", allgather_default}, {"allreduce", allreduce_default},
    {"alltoall", alltoall_default},   {"barrier", barrier_default},
    {"bcast", bcast_default},         {"gather", gather_default},
    {"reduce", reduce_default},       {"scatter", scatter_default},
};

const char *const *mpich_default_cases(const struct mpich_coll *c)
{
    for (size_t i = 0; i < sizeof mpich_defaults / sizeof mpich_defaults[0];
         i++) {
        if (strcmp(mpich_defaults[i].name, c->name) == 0) {
            return mpich_defaults[i].cases;
        }
    }
    return NULL;
}

const char *mpich_case_algorithm(const char *line)
{
    const char *space = strrchr(line, ' ');
    return space ? space + 1 : line;
}

const struct mpich_coll *mpich_coll_find(const char *name)
{
    for (int i = 0; i < mpich_colls_size; i++) {
        if (strcmp(mpich_colls[i].name, name) == 0) {
            return &mpich_colls[i];
        }
    }
    return NULL;
}

const struct mpich_coll *mpich_coll_of(const char *collective)
{
    for (int i = 0; i < mpich_colls_size; i++) {
        if (mpich_colls[i].collective &&
            strcmp(mpich_colls[i].collective, collective) == 0) {
            return &mpich_colls[i];
        }
    }
    return NULL;
}

static const struct mpich_alg *alg_in(const struct mpich_alg *algs, size_t n,
                                      const char *collective,
                                      const char *algorithm)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(algs[i].collective, collective) == 0 &&
            strcmp(algs[i].algorithm, algorithm) == 0) {
            return &algs[i];
        }
    }
    return NULL;
}

const struct mpich_alg *mpich_alg_find(const char *collective,
                                       const char *algorithm)
{
    return alg_in(mpich_algs, sizeof mpich_algs / sizeof mpich_algs[0],
                  collective, algorithm);
}

const struct mpich_alg *mpich_alg_two_procs(const char *collective,
                                            const char *algorithm)
{
    return alg_in(mpich_two_procs_algs,
                  sizeof mpich_two_procs_algs / sizeof mpich_two_procs_algs[0],
                  collective, algorithm);
}

int mpich_alg_exists(const struct mpich_coll *c, const char *name)
{
    if (strcmp(name, c->intra) == 0 ||
        (c->intra_inplace && strcmp(name, c->intra_inplace) == 0) ||
        (c->inter && strcmp(name, c->inter) == 0)) {
        return 1;
    }
    const char *const *cases = mpich_default_cases(c);
    for (int i = 0; cases && cases[i]; i++) {
        if (strcmp(mpich_case_algorithm(cases[i]), name) == 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof mpich_algs / sizeof mpich_algs[0]; i++) {
        if (c->collective &&
            strcmp(mpich_algs[i].collective, c->collective) == 0 &&
            strcmp(mpich_algs[i].name, name) == 0) {
            return 1;
        }
    }
    return 0;
}
