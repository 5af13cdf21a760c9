/* Open MPI coll/tuned's algorithm numbers, by our algorithm names, and where
 * it runs another than the one forced: the one place that knows them
 * (exporters and the native backend both read it).
 * Numbers from coll_tuned_<coll>_decision.c, v4.1.8 and v5.0.x; the
 * is_segmented column marks the algorithms that take the forced segment size
 * (the others ignore it: coll_tuned_<coll>_intra_do_this); rule_flags and
 * max_requests say what else a rules file must carry to run ours.
 * OMPI_RULE_REORDERS, from coll_base_reduce.c and coll_base_allreduce.c and
 * run with a matrix product (tests/mpi/noncommutative_probe.c): reduce 2-5
 * fold each child into the accumulator as child (op) own, allreduce 4-5
 * reduce ring blocks in ring order, 7 (6.0) folds rank t into rank 0's as
 * t (op) 0. Reduce 7 and allreduce 6 run linear for such an operation; 2
 * (reduce_bcast) runs Open MPI's reduce decision: the file's reduce rules. */
#include <string.h>

#include "store/libraries.h"

static const struct ompi_alg ompi_algs[] = {
    {"allgather", 0, "gather_bcast", 1, 401, 0, 0, 0},
    {"allgather", 0, "bruck", 2, 401, 0, 0, 0},
    {"allgather", 0, "recursive_doubling", 3, 401, 0, 0, 0},
    {"allgather", 0, "ring", 4, 401, 0, 0, 0},
    {"allgather", 0, "neighbor_exchange", 5, 401, 0, 0, 0},
    {"allgather", 0, "two_proc", 6, 401, 0, OMPI_RULE_TWO_PROCS, 0},
    {"allreduce", 2, "linear", 1, 401, 0, 0, 0},
    {"allreduce", 2, "reduce_bcast", 2, 401, 0, 0, 0},
    {"allreduce", 2, "recursive_doubling", 3, 401, 0, 0, 0},
    {"allreduce", 2, "ring", 4, 401, 0, OMPI_RULE_REORDERS, 0},
    {"allreduce", 2, "segmented_ring", 5, 401, 1, OMPI_RULE_REORDERS, 0},
    {"allreduce", 2, "rabenseifner", 6, 401, 0, 0, 0},
    {"allreduce", 2, "allgather_reduce", 7, 600, 0, OMPI_RULE_REORDERS, 0},
    {"alltoall", 3, "linear", 1, 401, 0, 0, 0},
    {"alltoall", 3, "pairwise", 2, 401, 0, 0, 0},
    {"alltoall", 3, "bruck", 3, 401, 0, 0, 0},
    {"alltoall", 3, "linear_sync", 4, 401, 0, 0, 4},
    {"alltoall", 3, "two_proc", 5, 401, 0, OMPI_RULE_TWO_PROCS, 0},
    {"barrier", 6, "linear", 1, 401, 0, 0, 0},
    {"barrier", 6, "double_ring", 2, 401, 0, 0, 0},
    {"barrier", 6, "recursive_doubling", 3, 401, 0, 0, 0},
    {"barrier", 6, "bruck", 4, 401, 0, 0, 0},
    {"barrier", 6, "two_proc", 5, 401, 0, OMPI_RULE_TWO_PROCS, 0},
    {"barrier", 6, "tree", 6, 401, 0, 0, 0},
    {"bcast", 7, "linear", 1, 401, 0, 0, 0},
    {"bcast", 7, "chain", 2, 401, 1, OMPI_RULE_FANINOUT, 0},
    {"bcast", 7, "pipeline", 3, 401, 1, 0, 0},
    {"bcast", 7, "split_binary", 4, 401, 1, 0, 0},
    {"bcast", 7, "binary", 5, 401, 1, 0, 0},
    {"bcast", 7, "binomial", 6, 401, 1, 0, 0},
    {"bcast", 7, "knomial", 7, 401, 1, 0, 0},
    {"bcast", 7, "scatter_allgather", 8, 401, 0, 0, 0},
    {"bcast", 7, "scatter_allgather_ring", 9, 401, 0, 0, 0},
    {"gather", 9, "linear", 1, 401, 0, 0, 0},
    {"gather", 9, "binomial", 2, 401, 0, 0, 0},
    {"gather", 9, "linear_sync", 3, 401, 1, 0, 0},
    {"reduce", 11, "linear", 1, 401, 0, 0, 0},
    {"reduce", 11, "chain", 2, 401, 1, OMPI_RULE_FANINOUT | OMPI_RULE_REORDERS,
     0},
    {"reduce", 11, "pipeline", 3, 401, 1, OMPI_RULE_REORDERS, 0},
    {"reduce", 11, "binary", 4, 401, 1, OMPI_RULE_REORDERS, 0},
    {"reduce", 11, "binomial", 5, 401, 1, OMPI_RULE_REORDERS, 0},
    {"reduce", 11, "in_order_binary", 6, 401, 1, 0, 0},
    {"reduce", 11, "rabenseifner", 7, 401, 0, 0, 0},
    {"scatter", 15, "linear", 1, 401, 0, 0, 0},
    {"scatter", 15, "binomial", 2, 401, 0, 0, 0},
    {"scatter", 15, "linear_nb", 3, 401, 0, 0, 0},
};

const struct ompi_alg *ompi_alg_find(const char *collective,
                                     const char *algorithm)
{
    for (size_t i = 0; i < sizeof ompi_algs / sizeof ompi_algs[0]; i++) {
        const struct ompi_alg *a = &ompi_algs[i];
        if (strcmp(a->collective, collective) == 0 &&
            strcmp(a->algorithm, algorithm) == 0) {
            return a;
        }
    }
    return NULL;
}

const struct ompi_alg *ompi_alg_by_number(const char *collective, int number)
{
    for (size_t i = 0; i < sizeof ompi_algs / sizeof ompi_algs[0]; i++) {
        const struct ompi_alg *a = &ompi_algs[i];
        if (strcmp(a->collective, collective) == 0 && a->number == number) {
            return a;
        }
    }
    return NULL;
}

/* Where Open MPI 4.1 quietly runs another algorithm than the forced one
 * (coll_base_<collective>.c): such points are not applicable, so a record
 * never names an algorithm that did not run. count is in bytes. The
 * OMPI_RULE_TWO_PROCS algorithms fail instead on other sizes. */
struct ompi_substitute {
    const char *collective, *algorithm;
    int (*substitutes)(int n_ranks, long count, int seg_bytes);
    const char *instead; /* what runs */
};

static int pow2_floor(int n)
{
    int p = 1;
    while (2 * p <= n) {
        p *= 2;
    }
    return p;
}

static int count_below_ranks(int n_ranks, long count, int seg_bytes)
{
    (void)seg_bytes;
    return count < n_ranks;
}

static int count_below_pow2(int n_ranks, long count, int seg_bytes)
{
    (void)seg_bytes;
    return count < pow2_floor(n_ranks);
}

static int halves_below_segment(int n_ranks, long count, int seg_bytes)
{
    (void)n_ranks;
    return count < 2 || seg_bytes > count / 2;
}

static int ranks_not_pow2(int n_ranks, long count, int seg_bytes)
{
    (void)count;
    (void)seg_bytes;
    return pow2_floor(n_ranks) != n_ranks;
}

static int ranks_odd(int n_ranks, long count, int seg_bytes)
{
    (void)count;
    (void)seg_bytes;
    return n_ranks % 2 != 0;
}

static const struct ompi_substitute ompi_substitutes[] = {
    {"bcast", "scatter_allgather", count_below_ranks, "linear"},
    {"bcast", "scatter_allgather_ring", count_below_ranks, "linear"},
    {"bcast", "split_binary", halves_below_segment, "pipeline"},
    {"reduce", "rabenseifner", count_below_pow2, "linear"},
    {"allreduce", "rabenseifner", count_below_pow2, "linear"},
    {"allreduce", "ring", count_below_ranks, "recursive_doubling"},
    {"allgather", "recursive_doubling", ranks_not_pow2, "bruck"},
    {"allgather", "neighbor_exchange", ranks_odd, "ring"},
};

int ompi_alg_runs_as_named(const char *collective, const char *algorithm,
                           int n_ranks, long count, int seg_bytes)
{
    const struct ompi_alg *a = ompi_alg_find(collective, algorithm);
    if (a && (a->rule_flags & OMPI_RULE_TWO_PROCS) && n_ranks != 2) {
        return 0;
    }
    for (size_t i = 0; i < sizeof ompi_substitutes / sizeof ompi_substitutes[0];
         i++) {
        const struct ompi_substitute *s = &ompi_substitutes[i];
        if (strcmp(s->collective, collective) == 0 &&
            strcmp(s->algorithm, algorithm) == 0 &&
            s->substitutes(n_ranks, count, seg_bytes)) {
            return 0;
        }
    }
    return 1;
}

static const struct ompi_coll ompi_colls[] = {
    {"allgather", 0, "allgather", OMPI_KEY_BYTES_X_PROCS},
    {"allreduce", 2, "allreduce", OMPI_KEY_BYTES},
    {"alltoall", 3, "alltoall", OMPI_KEY_BYTES_X_PROCS},
    {"barrier", 6, "barrier", OMPI_KEY_NONE},
    {"bcast", 7, "bcast", OMPI_KEY_BYTES},
    {"gather", 9, "gather", OMPI_KEY_BYTES_X_PROCS},
    {"reduce", 11, "reduce", OMPI_KEY_BYTES},
    {"scatter", 15, "scatter", OMPI_KEY_BYTES_X_PROCS},
};

const struct ompi_coll *ompi_coll_find(const char *collective)
{
    for (size_t i = 0; i < sizeof ompi_colls / sizeof ompi_colls[0]; i++) {
        if (strcmp(ompi_colls[i].collective, collective) == 0) {
            return &ompi_colls[i];
        }
    }
    return NULL;
}

const struct ompi_coll *ompi_coll_by_id(int coll_id)
{
    for (size_t i = 0; i < sizeof ompi_colls / sizeof ompi_colls[0]; i++) {
        if (ompi_colls[i].coll_id == coll_id) {
            return &ompi_colls[i];
        }
    }
    return NULL;
}
