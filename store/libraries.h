/* What is known about each MPI library: Open MPI's algorithm numbers,
 * version limits and substitutions (store/ompi_algs.c), MPICH's algorithm
 * names (store/mpich_algs.c). The exporters and the native backend read it. */
#ifndef STORE_LIBRARIES_H
#define STORE_LIBRARIES_H

#include <stddef.h>

/* Open MPI coll/tuned's number for one of our algorithms (store/ompi_algs.c):
 * exporters and the native backend share it. */
struct ompi_alg {
    const char *collective; /* our name: "bcast" */
    int coll_id;            /* the collective's ID in rules files: bcast 7 */
    const char *algorithm;  /* our name: "split_binary" */
    int number;             /* coll_tuned_bcast_algorithm = 4 */
    int since;              /* first Open MPI release with it: 401 = 4.1 */
    int is_segmented; /* coll_tuned_<coll>_algorithm_segmentsize changes it */
    unsigned rule_flags; /* OMPI_RULE_*: what else a rules file must say */
    int max_requests;    /* the rule's max requests that reproduces ours */
};
enum ompi_rule_flag {
    OMPI_RULE_FANINOUT = 1u << 0,  /* takes the rule's fan-in/out (chains) */
    OMPI_RULE_TWO_PROCS = 1u << 1, /* fails on communicators of != 2 ranks */
    /* combines the operands of a non-commutative operation out of rank
     * order: wrong results for such an operation (Open MPI's own decision
     * never runs it for one, a rules file forces it on every operation) */
    OMPI_RULE_REORDERS = 1u << 2
};
/* The row for (collective, algorithm) or NULL when Open MPI has no such
 * algorithm (borrowed). */
const struct ompi_alg *ompi_alg_find(const char *collective,
                                     const char *algorithm);
const struct ompi_alg *ompi_alg_by_number(const char *collective, int number);
/* 0 where Open MPI 4.1, forced to run this algorithm on n_ranks ranks for
 * count bytes in seg_bytes segments, runs another one or fails; 1 where it
 * runs the one named (and for algorithms it does not have). */
int ompi_alg_runs_as_named(const char *collective, const char *algorithm,
                           int n_ranks, long count, int seg_bytes);

/* How Open MPI's coll/tuned keys its rules' message sizes for a collective:
 * what it computes from the call's arguments (coll_tuned_decision_dynamic.c)
 * in terms of our per-rank block bytes. */
enum ompi_msg_key {
    OMPI_KEY_BYTES,         /* count x type size: bcast, reduce, allreduce */
    OMPI_KEY_BYTES_X_PROCS, /* that times the communicator size */
    OMPI_KEY_NONE           /* always 0: barrier */
};
struct ompi_coll {
    const char *collective; /* our name */
    int coll_id;            /* ID in rules files */
    const char *json_name;  /* key in the JSON rules format */
    enum ompi_msg_key msg_key;
};
/* The row for one of our collectives, NULL if Open MPI's tuned has none. */
const struct ompi_coll *ompi_coll_find(const char *collective);
const struct ompi_coll *ompi_coll_by_id(int coll_id);

/* MPICH's MPIR-level algorithms (store/mpich_algs.c), for the selection
 * JSON file MPICH reads instead of its compiled-in one. */
enum mpich_restriction {
    MPICH_POW2_PROCS = 1u << 0,    /* communicator size a power of two */
    MPICH_BUILTIN_OP = 1u << 1,    /* predefined reduction operation */
    MPICH_COUNT_GE_POF2 = 1u << 2, /* count >= largest power of two <= P */
    MPICH_NOT_IN_PLACE = 1u << 3,  /* sendbuf is not MPI_IN_PLACE */
    MPICH_TWO_PROCS = 1u << 4      /* stands for ours on two ranks only */
};
/* One of our algorithms and MPICH's counterpart. */
struct mpich_alg {
    const char *collective; /* ours: "bcast" */
    const char *algorithm;  /* ours: "binomial" */
    const char *name;       /* MPICH's: "MPIR_Bcast_intra_binomial" */
    unsigned restrictions;  /* MPICH_*: where MPICH's may run */
};
/* How MPICH keys message sizes in its selection conditions. */
enum mpich_msg_key {
    MPICH_KEY_NONE, /* no message condition */
    MPICH_KEY_AVG,  /* avg_msg_size: count x type size */
    MPICH_KEY_TOTAL /* total_msg_size: count x P (x type size) */
};
/* Every collective MPICH selects through the file, with the algorithm used
 * where the run has no choice (any arguments, no parameters). */
struct mpich_coll {
    const char *name;       /* "bcast", "ibcast", "neighbor_alltoall" */
    const char *collective; /* ours, or NULL */
    enum mpich_msg_key msg_key;
    const char *intra;         /* default on intra-communicators */
    const char *intra_inplace; /* instead with MPI_IN_PLACE, or NULL */
    const char *inter;         /* default on inter-communicators, or NULL */
};
extern const struct mpich_coll mpich_colls[];
extern const int mpich_colls_size;
const struct mpich_coll *mpich_coll_find(const char *name);
const struct mpich_coll *mpich_coll_of(const char *collective);
const struct mpich_alg *mpich_alg_find(const char *collective,
                                       const char *algorithm);
/* Where ours has no counterpart but on two ranks is the same single message
 * (or exchange) as one of MPICH's: that one, with MPICH_TWO_PROCS; NULL
 * otherwise (borrowed). */
const struct mpich_alg *mpich_alg_two_procs(const char *collective,
                                            const char *algorithm);
/* 1 if name is an algorithm MPICH 4.0 accepts for that collective. */
int mpich_alg_exists(const struct mpich_coll *c, const char *name);
/* MPICH 4.0's own choice on intra-communicators, for the collectives we
 * tune (NULL for the others: c->intra stands for it): a NULL-terminated
 * list of cases, tried in order, each "COND COND ... ALGORITHM" with
 * MPICH's condition keys, lines sharing leading conditions forming one
 * branch (borrowed). */
const char *const *mpich_default_cases(const struct mpich_coll *c);
/* The algorithm that ends a case line (borrowed from line). */
const char *mpich_case_algorithm(const char *line);

#endif
