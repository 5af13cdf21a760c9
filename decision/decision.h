/* Decision functions built from optimal-method tables: the compact
 * in-memory decision (lookup, file, generated C), the quadtree builder, a
 * run's decision map, penalty statistics and training (tie labels, folds,
 * leaves by penalty). C4.5 itself is decision/c45.h. */
#ifndef DECISION_H
#define DECISION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "decision/c45.h"
#include "store/export.h"

/* ---- A run's decision map (optimal.csv + measurements.csv) ---- */

#define RUN_NAME_MAX 32
/* A method's label "ALGORITHM/SEGMENT_BYTES" (node-aware names are long). */
#define RUN_LABEL_MAX STORE_LABEL_MAX

/* A method as the run timed it; label is "algorithm/segment_bytes". */
struct run_method {
    char algorithm[STORE_METHOD_MAX];
    int segment_bytes;
    char label[RUN_LABEL_MAX];
};

/* One collective's grid at one ranks per node: cell (p, m) is procs[p] x
 * msgs[m], row-major. */
struct run_grid {
    char name[RUN_NAME_MAX];
    int ppn; /* ranks per node, >= 1 */
    int n_procs, n_msgs;
    int *procs;      /* ascending */
    long *msgs;      /* ascending */
    int *best;       /* the optimum's method index; -1: no optimum recorded */
    double *best_us; /* the optimum's time */
    double *default_us; /* the "default" method's time; -1: not timed */
    double *time_us;    /* cell x n_methods; -1: the method cannot run */
    bool *is_inferred;  /* the optimum was inferred (grid = "adaptive") */
    bool has_inferred;  /* some cell's was */
};

struct run_data {
    int n_methods; /* in the order measurements.csv first names them */
    struct run_method *methods;
    int n_grids;
    struct run_grid *grids; /* one per (collective, ppn): collectives in the
                               order optimal.csv names them (or as asked),
                               each collective's ppn ascending */
    int n_ppn;              /* distinct ppn values of the grids */
    int *ppn;               /* ascending */
    bool has_default;       /* some point timed the "default" method */
    int chain_fanout;       /* the journal's `chain_fanout`; 0: not recorded */
    /* the model's predicted times (autotune predict), nothing measured:
     * every cell's optimum is_inferred */
    bool is_predicted;
    /* the calibration the cuts between measured sizes correct, NULL:
     * none (run_data_load_model, run_data_set_model) */
    struct run_model *model;
};

/* Reads RUN/optimal.csv and RUN/measurements.csv; collectives (n of them,
 * NULL for all) selects and orders the grids. A method whose segment is at
 * least the message size was not timed there and runs unsegmented: it gets
 * the time of algorithm/0. The library's default, where timed, is the last
 * method ("default/0", run_data_default_method) and the optimum where it
 * was faster (table_prefer_default). The tables are checked against the
 * run's journal (table_load_run_journal). Caller frees with
 * run_data_destroy. */
int run_data_load(const char *run_dir, const char *const *collectives, int n,
                  struct run_data **out);
struct journal;
/* The same, checked against journal, the run's journal that a caller who
 * reads it too has loaded (NULL: the run has none): read once. */
int run_data_load_with_journal(const char *run_dir,
                               const struct journal *journal,
                               const char *const *collectives, int n,
                               struct run_data **out);
void run_data_destroy(struct run_data *r);
/* The model's time of r's method k at (procs, msg_bytes) on grid g: 0 and
 * *time_us, 1 when it has none, -1 on an error already said. */
typedef int (*run_model_fn)(void *arg, const struct run_data *r, int g, int k,
                            int procs, long msg_bytes, double *time_us);
/* The calibration at path, or with path NULL at run_dir/model.csv when
 * there (none: r keeps no model): between measured sizes, the decisions
 * then follow the model's times corrected by what was measured
 * (decision/between_model.c). 0, or 1 with one line (a bad calibration). */
int run_data_load_model(struct run_data *r, const char *run_dir,
                        const char *path);
/* The same with the model's times from fn (arg borrowed; tests give
 * synthetic ones). 0, or -1 out of memory. */
int run_data_set_model(struct run_data *r, run_model_fn fn, void *arg);
int run_data_find_method(const struct run_data *r, const char *label);
/* The distinct collectives of r's grids into names (room for n_grids;
 * borrowed from r), in grid order; their count. */
int run_data_collectives(const struct run_data *r, const char **names);
/* The index of the "default/0" method, or -1 when the run never timed it. */
int run_data_default_method(const struct run_data *r);

/* Penalty statistics ([Pjesivac-Grbovic 2006], eq. 6) over a set of points, in
 * percent. */
struct penalty_stats {
    int n;            /* points scored */
    int n_unrunnable; /* points whose chosen method cannot run there */
    double min, max, mean, median;
};
/* Statistics of the n penalties (fractions, not percent) in v; v is
 * reordered. */
void penalty_stats_compute(double *v, int n, int n_unrunnable,
                           struct penalty_stats *out);

/* ---- The compact decision: node array, lookup, file, generated C ---- */

/* A node: the next node is child + 2 * (procs > procs_cut) +
 * (msg_bytes > msg_cut). A quadtree node has four children; a test on the
 * message size alone has procs_cut = INT32_MAX (children child, child + 1),
 * one on procs alone msg_cut = INT64_MAX (children child, child + 2; the
 * slot between is unused). A leaf has leaf_method >= 0 (a parallel array,
 * so that tests stay 16 bytes, four to a cache line). */
struct decision_node {
    int64_t msg_cut;
    int32_t procs_cut;
    int32_t child;
};

/* One attribute's cuts as a bucket table, so that finding the interval of
 * x (the number of cuts below x) takes no data-dependent branch. Bucket of
 * v = x - 1 (0 when x <= 0): v itself below 2^(bits + 1), then 2^bits
 * buckets per doubling (v's top bits + 1 bits), all from n_buckets - 1 on
 * in the last. v = x - 1 puts a cut at m 2^k (m < 2^(bits + 1)), as at any
 * power of two, between buckets; a cut that falls inside a bucket is one
 * of its n_inner corrections (INT64_MAX pads). is_direct: every bucket is
 * below 2^(bits + 1), so the bucket of v is min(v, n_buckets - 1). */
struct decision_axis {
    int bits;
    int n_buckets;
    bool is_direct;
    int n_inner;
    int32_t *first; /* n_buckets: the cuts below the bucket */
    int64_t *inner; /* n_buckets x n_inner: the cuts inside it */
};

/* A decision flattened to the rectangles of its cuts: cells[p * n_msg + m]
 * is the method for procs in interval p and msg_bytes in interval m. Every
 * test compares with one of these cuts, so it is exact. cells NULL: too
 * many rectangles (decision_lookup walks the nodes instead). */
struct decision_flat {
    struct decision_axis procs, msg;
    int n_msg;
    uint16_t *cells;
};

/* The communicator and message sizes a table was measured at; a lookup
 * outside them extrapolates (libautotune's AUTOTUNE_OUTSIDE). */
struct decision_range {
    int32_t procs_min, procs_max; /* procs_max 0: not recorded */
    int64_t msg_min, msg_max;
};

/* A table is one (collective c, ppn index k): t = c * n_ppn + k
 * (decision_table). roots, flat and ranges are indexed by the table; with
 * one ppn value the table is the collective's index. */
#define DECISION_MAX_PPN 64
struct decision {
    char kind[RUN_NAME_MAX]; /* "c45" or "quadtree" */
    int chain_fanout;        /* the chains the run timed chain methods with (its
                                `chain_fanout`); 0: not recorded (the default) */
    int n_methods;
    char (*methods)[RUN_LABEL_MAX];
    int n_colls;
    char (*colls)[RUN_NAME_MAX];
    int n_ppn;      /* ranks per node tuned for; a file without them: 1, {1} */
    int32_t *ppn;   /* n_ppn, ascending, distinct, >= 1 */
    int32_t *roots; /* n_colls x n_ppn; -1: nothing for that table (the
                       collective was not tuned at that ppn) */
    int n_nodes, cap_nodes;
    struct decision_node *nodes;
    int32_t *leaf_method;       /* n_nodes: the method of a leaf, -1 on tests */
    struct decision_flat *flat; /* n_colls x n_ppn; NULL until
                                   decision_prepare */
    struct decision_range *ranges; /* n_colls x n_ppn, or NULL: none recorded */
};

/* An empty decision for these methods, collectives and ranks per node
 * (names copied; colls NULL leaves the collective names empty; ppn NULL
 * with n_ppn 1: {1}; else ascending, distinct, >= 1); every root -1 until
 * set. Caller frees with decision_destroy. */
int decision_create(const char *kind, int n_methods, const char *const *methods,
                    int n_colls, const char *const *colls, int n_ppn,
                    const int *ppn, struct decision **out);
/* The table of collective coll at ppn index k. */
static inline int decision_table(const struct decision *d, int coll, int k)
{
    return coll * d->n_ppn + k;
}
/* The index of exactly ppn in d->ppn, or -1. */
int decision_find_ppn(const struct decision *d, int ppn);
/* The index of the ppn value nearest ppn in log2 distance (ties: the
 * smaller value). */
int decision_nearest_ppn(const struct decision *d, int ppn);
void decision_destroy(struct decision *d);
/* Builders: a new node's index, or -1. Nodes start as leaves of method 0.
 * Each drops the flattened form (decision_prepare builds it again). */
int decision_add_node(struct decision *d);
void decision_set_leaf(struct decision *d, int node, int method);
/* Make node a test and add its children: *lo (attribute <= cut) and *hi. */
int decision_add_split(struct decision *d, int node, bool is_procs, int64_t cut,
                       int *lo, int *hi);
/* Make node a quadtree node; its four children start at *child. */
int decision_add_quad(struct decision *d, int node, int32_t procs_cut,
                      int64_t msg_cut, int *child);
/* Sets the root of table (all tables when table < 0). */
void decision_set_root(struct decision *d, int table, int node);
/* Records the measured range of table (the exact decision does; the .dec
 * file keeps it). 0 or -1 (out of memory). */
int decision_set_range(struct decision *d, int table,
                       const struct decision_range *range);
/* Whether procs and msg_bytes lie in range r (NULL: no range, so
 * everywhere), ends included. */
static inline bool decision_range_holds(const struct decision_range *r,
                                        int procs, long msg_bytes)
{
    return !r || (procs >= r->procs_min && procs <= r->procs_max &&
                  msg_bytes >= r->msg_min && msg_bytes <= r->msg_max);
}
/* The measured range of table, or NULL when not recorded. */
static inline const struct decision_range *
decision_get_range(const struct decision *d, int table)
{
    return d->ranges && d->ranges[table].procs_max > 0 ? &d->ranges[table]
                                                       : NULL;
}
/* Index of a collective or method by name, or -1. */
int decision_find_collective(const struct decision *d, const char *name);
/* Builds the flattened form of every table, which decision_lookup
 * then uses (decision_load calls it; call it again after changing nodes
 * directly). 0 or -1 (out of memory). */
int decision_prepare(struct decision *d);

/* The method chosen for table (decision_table; its root >= 0), procs and
 * msg_bytes, by walking the nodes from the root: one unpredictable branch
 * per level. */
static inline int decision_walk(const struct decision *d, int table, int procs,
                                long msg_bytes)
{
    const struct decision_node *nodes = d->nodes;
    const int32_t *leaf_method = d->leaf_method;
    int32_t i = d->roots[table];
    int method;
    while ((method = leaf_method[i]) < 0) {
        const struct decision_node *n = &nodes[i];
        i = n->child + 2 * (procs > n->procs_cut) + (msg_bytes > n->msg_cut);
    }
    return method;
}

/* Bits needed for v, at least 1. */
static inline int decision_bit_length(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 64 - __builtin_clzll(v | 1);
#else
    int n = 1;
    while (v >>= 1) {
        n++;
    }
    return n;
#endif
}

/* The bucket of v = x - 1 with 2^bits buckets per doubling (see struct
 * decision_axis), before the last bucket takes everything above. */
static inline uint64_t decision_bucket(int bits, uint64_t v)
{
    int shift = decision_bit_length(v) - bits - 1;
    shift = shift > 0 ? shift : 0;
    return ((uint64_t)shift << bits) + (v >> shift);
}

/* The interval of x on axis a: the number of cuts below x. */
static inline int decision_interval(const struct decision_axis *a, int64_t x)
{
    uint64_t v = x > 0 ? (uint64_t)x - 1 : 0;
    uint64_t last = (uint64_t)a->n_buckets - 1;
    uint64_t b = a->is_direct ? v : decision_bucket(a->bits, v);
    b = b < last ? b : last;
    int k = a->first[b];
    for (int i = 0; i < a->n_inner; i++) {
        k += x > a->inner[b * (uint64_t)a->n_inner + (uint64_t)i];
    }
    return k;
}

/* The method chosen for table (decision_table; its root >= 0), procs and
 * msg_bytes: the flattened form's cell when decision_prepare built it,
 * else the walk. */
static inline int decision_lookup(const struct decision *d, int table,
                                  int procs, long msg_bytes)
{
    const struct decision_flat *f = d->flat ? &d->flat[table] : NULL;
    if (f && f->cells) {
        return f->cells[decision_interval(&f->procs, procs) * f->n_msg +
                        decision_interval(&f->msg, msg_bytes)];
    }
    return decision_walk(d, table, procs, msg_bytes);
}
/* The leaf node that lookup ends at (by the walk). */
int decision_leaf(const struct decision *d, int table, int procs,
                  long msg_bytes);
/* Tests made by that lookup (the leaf's depth). */
int decision_depth(const struct decision *d, int table, int procs,
                   long msg_bytes);
/* Leaves, tests and the deepest leaf, over all roots (>= 0). */
void decision_count(const struct decision *d, int *leaves, int *tests,
                    int *max_depth);

/* A text file: methods, collectives, roots and nodes, then optional
 * `chain_fanout N` and `range ...` lines; a decision for other ranks per
 * node than {1} says them on a `ranks_per_node` line (format 2; a file
 * without it is for one rank per node); loading checks every line and
 * reports file:line, and every count against the file's length before
 * allocating for it. A file over DECISION_FILE_MAX_BYTES is refused. */
#define DECISION_FILE_MAX_BYTES (32L << 20)
int decision_save(const struct decision *d, const char *path);
/* The same text to an open stream; 0 or -1. */
int decision_write(const struct decision *d, FILE *f);
/* The exact decision of an optimal table's rows (decision/exact.c, kind
 * "exact"): a table per (collective, ppn) of the rows (their ppn values
 * the decision's; a row's ppn 0 counts as 1), the row's method at every
 * measured point; a
 * message size between two measured ones takes the smaller one's method up
 * to msg_cuts of the larger's row (between_table_cuts), the larger's above
 * it; a communicator size between two measured ones likewise up to
 * procs_cuts (without cuts, NULL, or where one is -1: the larger's all the
 * way, as every test is `value <= cut`); the n_inserts inserts (NULL: none;
 * between_table_cuts) take their sizes; below the smallest measured
 * message size the smallest's, above the largest the largest's;
 * communicator sizes below or above the measured ones say default/0 (the
 * library decides). The methods are the rows' labels, then default/0 if no
 * row names it. Caller frees with decision_destroy. */
struct measurement;
struct export_insert;
int decision_from_table(const struct measurement *rows, size_t n,
                        const long *msg_cuts, const long *procs_cuts,
                        const struct export_insert *inserts, size_t n_inserts,
                        struct decision **out);
int decision_load(const char *path, struct decision **out);
/* decision_load from an open stream: path names it in messages, which go
 * to err (libautotune reads a file rank 0 broadcast, and prints rank 0's
 * message alone). */
int decision_read(FILE *in, const char *path, FILE *err, struct decision **out);
/* decision_read of the len bytes of text (len 0: "empty"). */
int decision_read_text(const char *text, size_t len, const char *path,
                       FILE *err, struct decision **out);
/* Sets used[k] (n_methods entries, caller-allocated) for every method a
 * lookup of table can return (none when its root is -1), and clears the
 * others. */
void decision_methods_used(const struct decision *d, int table, bool *used);
/* Self-contained C: PREFIX_decide(table, procs, msg_bytes) returning the
 * method index (-1 for an unknown table or one with nothing),
 * PREFIX_method_name and PREFIX_collective_name; with one ppn value the
 * table is the collective's index, with several PREFIX_table(collective,
 * ppn) gives it (-1: not tuned at that ppn). The table form is the flattened
 * form's tables (constant time, the faster on random queries; the tree form
 * past 2^16 rectangles or more than 4 cuts in one bucket); the tree form nests
 * if-statements as the tree does. */
enum decision_c_form { DECISION_C_TREE, DECISION_C_TABLE };
int decision_emit_c(const struct decision *d, FILE *f, const char *prefix,
                    const char *comment, enum decision_c_form form);

/* From a C4.5 tree built on attributes (procs, msg), preceded by the
 * collective when has_collective, with ppn between procs and msg when
 * has_ppn; class k is method k. Sets the root of table, or of every table
 * when table < 0: the tree is specialised to each table (a test on the
 * collective follows that collective's branch, a test on ppn that table's
 * ppn value's). With max_depth >= 0, a test that deep becomes a leaf of
 * the class C4.5 predicts there. */
int decision_add_c45(struct decision *d, int table, const struct c45_tree *t,
                     bool has_collective, bool has_ppn, int max_depth);

/* Quadtree over one collective's map ([Pjesivac-Grbovic 2007b]): n_procs x
 * n_msgs cells of method indexes, reshaped to 2^k x 2^k by replicating rows and
 * columns; a block becomes a leaf with its most common method when that method
 * covers at least accuracy_pct of it, or when the block is at max_depth
 * (< 0: no limit): then with the method of the least total penalty over
 * the block when penalties are given, else again the most common. Sets the
 * root of table. */
struct quadtree_input {
    int n_procs, n_msgs;
    const int *procs;
    const long *msgs;
    const int *cells; /* every cell a method index */
    /* NULL, or each cell's penalty of every method (cell x n_methods, a
     * fraction; a large one where the method cannot run) */
    const double *penalty;
};
int quadtree_build(struct decision *d, int table,
                   const struct quadtree_input *in, int max_depth,
                   double accuracy_pct);

/* ---- Training: decisions from a run's map (decision/train.c) ---- */

/* How decisions are trained on a run and which points are held out. */
struct train_options {
    struct c45_options c45; /* trees: c4.5's -m, -c, ... */
    bool is_combined;       /* one tree for all collectives, which tests the
                               collective, instead of one per collective */
    int max_depth;          /* trees and quadtrees; -1: no limit */
    double accuracy_pct;    /* quadtree; 100: exact */
    double near_pct;        /* methods this close to a point's optimum are
                               equally good labels there (train_labels) */
    bool is_majority;       /* leaves keep C4.5's class, depth-limited
                               quadtree leaves the most common method */
    int max_leaves;         /* C4.5 trees: the tree C4.5 grows, cut to at
                               most this many leaves where that loses the
                               least penalty (train.c); 0: C4.5's pruning */
    bool is_worst_first;    /* that cut: among those of the least worst
                               training penalty (each leaf's method, too,
                               among those within it), the least total */
    double stake_pct;       /* > 0: C4.5 grows with case weights 1 + the
                               penalty at stake at a point (the largest of
                               its training neighbours' labels there, %) /
                               stake_pct, averaging 1; 0: every point 1 */
    int holdout_folds;      /* 0: none; 2 when every other value of an axis */
    enum holdout_axis {
        HOLDOUT_POINTS, /* folds of grid points */
        HOLDOUT_SIZES,  /* every other message size */
        HOLDOUT_PROCS,  /* every other communicator size, but the largest */
    } holdout_axis;
    bool is_next_size; /* a size between two training sizes takes the next
                          one's method (before: the cut where the two
                          methods' interpolated times cross) */
    bool is_pair_only; /* the exact decision: between two training sizes
                          only their two methods, no third (before: the
                          inserts of between_table_cuts) */
};

/* c4.5's defaults, no depth limit, exact quadtrees, exact ties only,
 * leaves by penalty, nothing held out. */
void train_options_init(struct train_options *opt);
/* The fold of cell (p * n_msgs + m) of grid g, when points are held out:
 * every other message size or communicator size, or the grid points of
 * all grids in turn. */
int train_fold_of(const struct train_options *opt, const struct run_data *r,
                  int g, long cell);
/* Cell of grid g is a training point: it has an optimum and is not in
 * the held-out fold skip (none when skip < 0). */
bool train_is_training(const struct train_options *opt,
                       const struct run_data *r, int g, long cell, int skip);
/* The training label of each cell of grid g outside fold skip (-1 for the
 * others, and for cells without an optimum): its optimum, unless the label
 * of the previous message size at these procs (the last labelled), or else
 * of the previous procs at this size, is within near_pct of it (0: an exact
 * tie). labels is caller-allocated (n_procs x n_msgs). */
void train_labels(const struct train_options *opt, const struct run_data *r,
                  int g, int skip, int *labels);
/* The C4.5 data set of the training labels of grids g0..g1-1 outside fold
 * skip (all when skip < 0): attributes the collective (when the grids are
 * of several), communicator_size, ranks_per_node (when the run has
 * several values) and message_size. Caller frees with c45_data_destroy. */
int train_c45_data(const struct train_options *opt, const struct run_data *r,
                   int g0, int g1, int skip, struct c45_data **out);
/* An empty decision over the run's methods and ranks per node values, for
 * collectives colls (distinct: run_data_collectives); caller frees. */
int train_create_decision(const struct run_data *r, const char *kind,
                          const char *const *colls, int n_colls,
                          struct decision **out);
/* The table of d for grid g (its collective and ppn), or -1. */
int train_table(const struct decision *d, const struct run_data *r, int g);
/* The grid after the last of grid g0's collective (its grids are
 * consecutive, one per ppn). */
int train_collective_end(const struct run_data *r, int g0);
/* Gives each leaf of d that training points of grids g0..g1-1 (outside
 * fold skip) reach the method of the least total penalty over them (C4.5's
 * class on ties). Returns the number of leaves changed, or -1. */
int train_leaves_by_penalty(const struct train_options *opt,
                            const struct run_data *r, int g0, int g1, int skip,
                            struct decision *d);
/* Never slower than the library: at every training point of grid g
 * (outside fold skip) whose optimum is the library's default, d (its
 * table dc) says default/0. A leaf that says otherwise there is split
 * around the point's cell (the cells of the cut rule: a size between two
 * measured ones goes with the next measured size above it), the rest of it
 * unchanged. Returns the number of points given back, or -1. */
int train_give_back(const struct train_options *opt, const struct run_data *r,
                    int g, int skip, struct decision *d, int dc);
/* The C4.5 trees of the points outside fold skip (skip < 0: all points)
 * into d (made by train_create_decision with every grid's collective): one
 * per collective over all its ranks per node, or one combined tree, with
 * leaves by penalty unless is_majority; each table of d is the tree
 * specialised to its collective and ppn (so it is the tree at every tuned
 * ppn). Prints each tree and its figures on report unless NULL. */
int train_trees(const struct train_options *opt, const struct run_data *r,
                int skip, FILE *report, struct decision *d);
/* The quadtrees of the run's first collective, one per ranks per node
 * (each from that grid's training labels outside fold skip, a held-out
 * cell taking the nearest label of its row). Caller frees *out (also on
 * failure). */
int train_quadtree(const struct train_options *opt, const struct run_data *r,
                   int skip, struct decision **out);

/* The exact decision of the training points of every grid (outside fold
 * skip): decision_from_table of their optima, over the run's methods, with
 * the cuts and inserts of between_table_cuts (what the exports write)
 * unless opt->is_next_size (no inserts if opt->is_pair_only). Caller frees
 * *out (also on failure). */
int train_exact(const struct train_options *opt, const struct run_data *r,
                int skip, struct decision **out);

/* ---- Between measured sizes (decision/between*.c) ---- */

/* log(t of the lower value's method / t of the upper's) at one point (a
 * value of the other attribute) between two neighbouring training values,
 * over s in [0, 1] (0 at the lower value, 1 at the upper, linear in log
 * value): piecewise linear through n knots, s ascending from 0 to 1. Each
 * method's time is interpolated linearly in log-log space, except that a
 * method whose segment size lies strictly between the two message sizes is
 * its algorithm unsegmented up to that size (a segment at least the message
 * is no segmentation): its algorithm's own curve there, then a line to its
 * own time at the larger size. With a calibration (r->model), a method
 * the model prices is instead the model's time corrected by its residuals
 * at the two sizes (model_corrected_at), at up to BETWEEN_CURVE_KNOTS
 * knots (between_model.c); across communicator sizes, interpolated as
 * without. */
enum { BETWEEN_CURVE_KNOTS = 33, BETWEEN_KNOTS = 2 * BETWEEN_CURVE_KNOTS };
struct between_diff {
    int n;
    double s[BETWEEN_KNOTS], f[BETWEEN_KNOTS];
};

/* Where the method of a smaller measured value (lo_value, a message or a
 * communicator size) gives way to that of the next larger (hi_value), for
 * n points that share the cut (diff[i]: point i's log time ratio): the cut
 * of the least penalty summed over the points and integrated over log value
 * between the sizes (against the faster of the two): for one point, where
 * the two methods' times cross. Values <= cut take the lower method; the
 * cut is in lo_value..hi_value-1: lo_value when the upper method is as fast
 * all the way (or on a tie), hi_value - 1 when the lower is. */
long between_cut(long lo_value, long hi_value, int n,
                 const struct between_diff *diff);
/* *diff: the log time ratio of methods k_lo and k_hi (r's indexes) between
 * cells cell_lo and cell_hi of grid g; false, setting nothing, when either
 * cannot run at either cell. */
bool between_add(const struct run_data *r, const struct run_grid *g,
                 long cell_lo, long cell_hi, int k_lo, int k_hi,
                 struct between_diff *diff);
/* Moves every cut of table dc of d (built from grid g's points
 * outside fold skip) between the neighbouring training values of its
 * attribute, to where the methods the decision gives at those two values
 * cross (between_cut over the training points of the other attribute the
 * node covers). At a message cut the procs that share the two sizes'
 * methods choose together, each such group its own cut (the sizes between
 * the two become a strip split by procs when the groups differ); unless
 * opt->is_pair_only, a group's choice, and the sizes between two training
 * sizes inside a leaf, can also be a third method, where it lowers the
 * summed penalty. The choice at every training point stays. The number of
 * third methods, or -1. */
int decision_place_cuts(const struct train_options *opt,
                        const struct run_data *r, int g, int skip,
                        struct decision *d, int dc);
/* For every optimal-table row, the cut below it: msg_cuts between it and
 * the row of the next smaller size at its procs that has a row (sizes <=
 * cut take that row's method), between_cut of their two methods; that
 * row's size where they share the method or a time is missing; -1 for the
 * smallest size or a row the run lacks. procs_cuts between its procs and
 * the next smaller procs of its collective with rows, between_cut over the
 * sizes with a row at both; -1 for the smallest procs. Both (n entries)
 * caller-frees. With inserts (NULL: none), where a method neither row has
 * is the fastest between them by the interpolated times (within 10 % of
 * the optimum at one of the two sizes, and segmented at both if at all),
 * its sizes are an insert (sorted by row; caller frees) and msg_cuts
 * gives the start of the row's own method above them. */
struct export_insert;
int between_table_cuts(const struct run_data *r, const struct measurement *rows,
                       size_t n, long **msg_cuts, long **procs_cuts,
                       struct export_insert **inserts, size_t *n_inserts);

/* Past cell c of grid g, the largest training size at its procs (c_below:
 * the training size below it, -1: none), where method own was chosen:
 * n_sizes sizes evenly in log size up to one training step beyond it (what
 * the exact decision prices there: between_table_cuts) into sizes, and the
 * corrected model's time of each method at each (times, n_sizes x
 * n_methods; -1: a method it does not price, or that cannot overtake own
 * by then). n_sizes, or 0: r has no model, or it cannot price own. */
int between_beyond_times(const struct run_data *r, int g, long c, long c_below,
                         int own, int n_sizes, long *sizes, double *times);

/* Penalties of choices (fractions), for penalty_stats_compute. */
struct train_scores {
    double *v; /* room for every cell of the run */
    int n, n_unrunnable;
    int n_inferred; /* points of an adaptive grid never timed: not scored */
    int n_untimed;  /* points whose choice the run never timed (the
                       library's default outside the measured sizes) */
    /* NULL, or called for every scored choice that is not the optimum
     * (penalty > 0, a fraction), e.g. to list them */
    void (*on_miss)(void *ctx, const struct run_data *r, int g, long cell,
                    int method, double penalty);
    void *miss_ctx;
};
/* s->v for every cell of r; caller frees s->v. */
int train_scores_alloc(const struct run_data *r, struct train_scores *s);
/* Adds the penalties of d's choices for grid g (table dc of d: nothing
 * when dc < 0 or its root is) on the cells of fold fold (all cells when
 * fold < 0), and to *depth_sum (unless NULL) the tests each lookup made. */
void train_score_decision(const struct train_options *opt,
                          const struct run_data *r, int g,
                          const struct decision *d, int dc, int fold,
                          struct train_scores *s, long *depth_sum);
/* Adds the penalties of the "default" method on grid g where it was timed. */
void train_score_default(const struct run_data *r, int g,
                         struct train_scores *s);

/* ---- Export formats (decision/export.c) ----
 * The registry of store/export.h's formats, one row each: it lives here,
 * above every writer it names (the store/ ones and export_dec). */
extern const struct export_format export_formats[];
extern const int export_formats_size;
const struct export_format *export_find(const char *name);
/* Writes the export to out_path (atomically) or, when NULL, to stdout. A
 * library format is first written to memory and read back with its check;
 * a file that fails it is not written. A run measured with a library's own
 * algorithms (backend native) exports to that library's formats only.
 * Ranks per node: ctx->ppn (--ppn, 0 if not given) and the format's ppn
 * decide which rows the file holds; 2 (a usage error, said in one line)
 * when they cannot (several values where the format holds one, a value
 * the table lacks); -1 on any other failure. */
int export_write(const struct export_format *format, const char *out_path,
                 const struct measurement *rows, size_t n,
                 const struct export_context *ctx);
/* The exact decision as a .dec file, for libautotune (decision/exact.c). */
int export_dec(FILE *out, const struct measurement *rows, size_t n,
               const struct export_context *ctx);

#endif
