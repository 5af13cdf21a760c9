/* The sweep's configuration, read from a libconfig file and validated
 * completely before anything is measured or written. */
#ifndef TUNE_CONFIG_H
#define TUNE_CONFIG_H

#include "collectives/collectives.h"
#include "search/search.h"

#define CONFIG_MAX_COLLS 16
#define CONFIG_MAX_ALGS 32
#define CONFIG_MAX_SEGS 64
/* Node-aware methods a collective's algorithms list may expand to. */
#define CONFIG_MAX_NODE_METHODS 1024
/* 1 PiB: beyond any node's memory, and exact in the double that carries a
 * size to the workers. */
#define CONFIG_MAX_MSG_BYTES (1LL << 50)

/* How the ranks reach each timed call (measure.arrival; tune/measure.h
 * says what each times). The shapes delay ranks by up to spread_us. */
enum config_arrival {
    ARRIVAL_TOGETHER = 0, /* every rank at the common start */
    ARRIVAL_BARRIER,      /* after the library's MPI_Barrier, as IMB/OSU */
    ARRIVAL_PROFILE,      /* each point as its profile point's arrival line
                             says (struct config_point's pattern) */
    ARRIVAL_UNIFORM,      /* delays evenly spaced over [0, spread], shuffled */
    ARRIVAL_ROOT_LAST,    /* the root delayed by spread */
    ARRIVAL_ROOT_FIRST,   /* every rank but the root delayed by spread */
    ARRIVAL_ONE_LATE,     /* the highest rank delayed by spread */
    ARRIVAL_COUNT
};
/* Indexed by enum config_arrival: the names in the config and journal. */
extern const char *const config_arrival_names[];

struct config_measure {
    int warmup, min_reps, max_reps;
    double rse; /* stop when the relative standard error is below this */
    enum config_arrival arrival;
    double spread_us; /* the shapes' (uniform and after): >= 0 */
    /* measure.arrival = "profile" at a point with recorded calls: call i
     * of an experiment delays rank r by vectors_us[(i mod n_vectors) x
     * procs + r] (us), in place of the shape; vectors_us on comm rank 0
     * only (measure_run sends each rank its own). */
    int n_vectors;
    const double *vectors_us;
    /* measure.arrival = "profile" where the profile names the call that
     * came next: each rank runs the library's next_coll (root 0) on
     * next_msg_bytes, next_gap_us after it leaves each timed call, as the
     * application's ranks start it (untimed; NULL: none). */
    const struct coll_def *next_coll;
    long next_msg_bytes;
    double next_gap_us;
};

/* Whose algorithms are timed: ours (collectives/) or the MPI library's,
 * forced one at a time through MPI_T (collectives/native.c). */
enum config_backend { BACKEND_OWN = 0, BACKEND_NATIVE = 1 };
extern const char *const config_backend_names[];

/* A point of the grid: a collective at a layout (procs ranks, ppn of
 * them on each node) and a message size. */
struct config_point {
    int ci; /* index into colls */
    int procs;
    int ppn;
    long msg_bytes;
    /* A profile's point: its recorded arrival as a pattern to time under
     * (measure.arrival = "profile"), and the profile's line of the point
     * when it has no arrival line (else 0). */
    enum config_arrival arrival;
    double spread_us;
    int unrecorded_line;
    /* The profile point's recorded calls (n_vectors x procs offsets, us,
     * from the root; the profile's): replayed in place of the shape. */
    int n_vectors;
    const double *vectors_us;
    /* The profile point's next call (next_coll NULL: none), which each rank
     * starts next_gap_us after it leaves a timed call. */
    const struct coll_def *next_coll;
    long next_msg_bytes;
    double next_gap_us;
};

/* A communicator the sweep times on: procs ranks, ppn on each of
 * procs / ppn nodes. */
struct config_layout {
    int procs, ppn;
};

struct profile;

struct config {
    char path[1024];
    char output[1024];
    int n_colls;
    const struct coll_def *colls[CONFIG_MAX_COLLS];
    int n_algs[CONFIG_MAX_COLLS];                /* selected algorithms ... */
    int algs[CONFIG_MAX_COLLS][CONFIG_MAX_ALGS]; /* ... as table indices */
    /* node-aware methods listed in algorithms (collectives/method.h's
     * numbers, ascending), after the table's algorithms at every point */
    int n_node_methods[CONFIG_MAX_COLLS];
    int node_methods[CONFIG_MAX_COLLS][CONFIG_MAX_NODE_METHODS];
    int has_node_methods; /* some collective has some */
    int n_procs;
    int *procs; /* ascending */
    int procs_line;
    /* ranks_per_node: ascending; [1] when not given. Without it the sweep
     * times world ranks 0..procs-1 as launched, as one rank per node. */
    int n_ppn;
    int *ppn;
    int ppn_line;
    int is_ppn_given;
    /* The (procs, ppn) pairs of the grid, ppn then procs ascending: every
     * procs with every ranks_per_node that divides it (a profile's: its
     * points'). */
    int n_layouts;
    struct config_layout *layouts;
    int n_msgs;
    long *msg_sizes; /* ascending, bytes */
    int msg_line;
    int n_segs;
    int *seg_sizes; /* ascending, bytes, 0 = unsegmented */
    const struct search_strategy *search;
    int search_line; /* 0: not in the file (the default) */
    struct search_params search_params;
    struct config_measure measure;
    int chain_fanout;
    enum config_backend backend;
    /* Time the library's own collective (its default decision) once per
     * point as method default/0, the baseline of speedup.csv. */
    int has_baseline;
    /* profile = "app.prof": the application's points, costliest first, are
     * the grid (procs and message sizes are theirs). NULL otherwise. */
    struct profile *profile;
    char profile_path[1024];
    int n_points;
    struct config_point *points;
    /* grid = "adaptive": measure the points search/refine.h chooses, infer
     * the others. */
    int is_grid_adaptive;
    /* grid_options.max_penalty: with a calibration, the walk refines where
     * the predicted penalty of the inferred choice exceeds this fraction
     * (refine_params.max_penalty); 0 (the key not set): the walk without
     * predictions, the calibration unused by it. */
    double grid_max_penalty;
    /* grid_options.start = "model": the walk starts from the model's
     * predictions (refine_walk_seeded) and measures at most this fraction
     * of the points (grid_options.budget, default CONFIG_GRID_BUDGET;
     * max_penalty then defaults to CONFIG_GRID_MAX_PENALTY); 0: the walk
     * of the coarse grid. */
    double grid_budget;
};

/* grid_options' defaults with start = "model" (issue 36's targets: at
 * most 15 % of the points measured, no point more than 10 % behind). */
#define CONFIG_GRID_BUDGET 0.15
#define CONFIG_GRID_MAX_PENALTY 0.10

/* Reads and validates path; on error prints one line "file:line: key: what"
 * and fails. Free with config_free. */
int config_load(const char *path, struct config *out);
void config_free(struct config *c);
/* Checks what a live sweep needs: every procs entry <= world_size; with
 * ranks_per_node (is_ppn_given), nodes for every layout's block placement
 * (collectives/nodes.h: node_of_rank[r] is world rank r's node, and rank
 * 0's node must be among them: the controller is in every communicator);
 * and buffers the algorithms can count (their MPI counts are int). */
int config_check_world(const struct config *c, int world_size,
                       const int *node_of_rank);
/* 1 if the file at path sets backend = "native" (read quietly before
 * MPI_Init, which the native backend must prepare; 0 on any error: the full
 * check after MPI_Init reports it). */
int config_peek_native(const char *path);
struct profile;
/* profile_load, and every point's collective one autotune tunes: the one
 * check of a profile, for `autotune profile` and a config's profile = ...
 * An error names path:line. Caller frees *out with profile_destroy. */
int config_load_profile(const char *path, struct profile **out);

#endif
