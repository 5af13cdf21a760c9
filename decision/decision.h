/* Decision functions built from optimal-method tables: a C4.5 builder that
 * reproduces Quinlan's release 8 trees bit for bit (float arithmetic, its tie
 * rules), its .names/.data reader and text output, `autotune tree`; the
 * quadtree builder; the compact in-memory decision and its generated C. */
#ifndef DECISION_H
#define DECISION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* `autotune tree -f STEM [-m M] [-c C] [-u] [-g] [-s]`: argv[0] is "tree".
 * Prints what `c4.5` prints; returns the exit status. */
int tree_main(int argc, char **argv);
/* `autotune tree -r RUN ...` (tree_main hands over when it sees -r) and
 * `autotune quadtree -r RUN ...`; argv[0] is the command. */
int tree_run_main(int argc, char **argv);
int quadtree_main(int argc, char **argv);

/* A data set is a schema (classes, attributes) plus items. Item values are
 * floats, one per attribute, row-major: a continuous value as is, a discrete
 * value as its 1-based index into the attribute's value names. Unknown ("?")
 * is C45_UNKNOWN_DISCRETE or C45_UNKNOWN_CONTINUOUS; as in C4.5, a genuine
 * continuous -999 reads as unknown. */
#define C45_UNKNOWN_DISCRETE 0.0f
#define C45_UNKNOWN_CONTINUOUS (-999.0f)

enum c45_attr_kind { C45_DISCRETE, C45_CONTINUOUS, C45_IGNORE };

struct c45_attr {
    char *name;
    enum c45_attr_kind kind;
    int n_values;       /* discrete: values known so far */
    int max_values;     /* discrete: capacity ("discrete N" grows up to N) */
    char **value_names; /* discrete: value v is value_names[v - 1] */
};

struct c45_data {
    int n_classes;
    char **class_names;
    int n_attrs;
    struct c45_attr *attrs;
    int n_items;
    int cap_items; /* rows allocated in values and classes */
    float *values; /* n_items x n_attrs */
    int *classes;  /* n_items, each 0..n_classes-1 */
};

/* An empty data set with no attributes or classes yet; caller frees with
 * c45_data_destroy, which frees everything it holds. The setters below copy
 * the names they are given; declare classes and attributes before items.
 * All return 0 or -1 after printing why. */
int c45_data_create(struct c45_data **out);
void c45_data_destroy(struct c45_data *d);
int c45_data_add_class(struct c45_data *d, const char *name);
/* n_values names for a discrete attribute (at least two). */
int c45_data_add_discrete(struct c45_data *d, const char *name, int n_values,
                          const char *const *value_names);
int c45_data_add_continuous(struct c45_data *d, const char *name);
/* Appends one item: n_attrs values as described above, and its class. */
int c45_data_add_item(struct c45_data *d, const float *values, int class_idx);
/* A new data set with d's schema and no items (for test data). */
int c45_data_copy_schema(const struct c45_data *d, struct c45_data **out);

/* Reads a .names file (classes, then attributes); errors are printed as
 * file:line. Caller frees *out with c45_data_destroy. */
int c45_data_read_names(const char *names_path, struct c45_data **out);
/* Appends the items of a .data/.test file to d (a "discrete N" attribute
 * learns its values here). */
int c45_data_read_items(struct c45_data *d, const char *path);

struct c45_options {
    int min_objs;    /* -m: a test needs 2 branches with >= this weight */
    float cf;        /* -c / 100: pruning confidence, 0.00001..1 */
    bool use_gain;   /* -g: gain instead of gain ratio */
    bool subsetting; /* -s: tests on groups of discrete values */
};

/* Defaults of c4.5: -m 2, -c 25, gain ratio, no subsets. */
void c45_options_init(struct c45_options *opt);

enum c45_node_type {
    C45_LEAF,
    C45_TEST_DISCRETE, /* branch b is value b + 1 */
    C45_TEST_CUT,      /* branch 0: value <= cut; branch 1: value > cut */
    C45_TEST_SUBSET    /* branch b takes the values v with subsets[b][v] */
};

/* A node; every field may be read to walk the tree, and all of it belongs
 * to the tree (borrowed while the tree lives). */
struct c45_node {
    enum c45_node_type type;
    int leaf_class;    /* the class predicted here (also on tests) */
    float items;       /* training weight that reached the node */
    float errors;      /* unpruned: training errors; pruned: predicted */
    float *class_dist; /* n_classes weights of the items here */
    int attr;          /* tests: the attribute tested */
    float cut;         /* C45_TEST_CUT */
    int n_branches;
    struct c45_node **branches;
    bool **subsets; /* C45_TEST_SUBSET: [b][v], v = 1..n_values */
    int n_values;   /* C45_TEST_SUBSET: the attribute's value count */
};

struct c45_tree {
    int n_classes;
    struct c45_node *root;
    /* Private to c45_prune: the case order growing left, which pruning
     * starts from (float sums over fractional weights depend on it). */
    int *item_order;
    int n_item_order;
};

/* Grows the unpruned tree from all items of d. The tree does not refer to d;
 * caller frees with c45_tree_destroy. */
int c45_build(const struct c45_data *d, const struct c45_options *opt,
              struct c45_tree **out);
/* Pessimistic pruning in place (subtree replacement and raising) with the
 * same items the tree was built from; *is_changed says whether the structure
 * changed. Leaf errors become predicted errors either way. */
int c45_prune(struct c45_tree *t, const struct c45_data *d,
              const struct c45_options *opt, bool *is_changed);
/* A deep copy; caller frees. Destroy accepts NULL. */
int c45_tree_copy(const struct c45_tree *t, struct c45_tree **out);
void c45_tree_destroy(struct c45_tree *t);
/* Number of nodes, leaves included (C4.5's "Size"). */
int c45_tree_size(const struct c45_tree *t);
/* The class C4.5 predicts for one item (n_attrs values as in c45_data):
 * the largest class weight reached, lowest class on ties; an unknown value
 * sends the item down every branch in proportion to its training weight. */
int c45_classify(const struct c45_tree *t, const float *values, int *class_out);
/* The tree as C4.5 prints it (indented lines, [S1] subtrees); d supplies
 * the names and must have the schema the tree was built with. */
void c45_print_tree(FILE *f, const struct c45_tree *t,
                    const struct c45_data *d);

/* ---- A run's decision map (optimal.csv + measurements.csv) ---- */

#define RUN_NAME_MAX 32

/* A method as the run timed it; label is "algorithm/segment_bytes". */
struct run_method {
    char algorithm[RUN_NAME_MAX];
    int segment_bytes;
    char label[2 * RUN_NAME_MAX];
};

/* One collective's grid: cell (p, m) is procs[p] x msgs[m], row-major. */
struct run_grid {
    char name[RUN_NAME_MAX];
    int n_procs, n_msgs;
    int *procs;      /* ascending */
    long *msgs;      /* ascending */
    int *best;       /* the optimum's method index; -1: no optimum recorded */
    double *best_us; /* the optimum's time */
    double *default_us; /* the "default" method's time; -1: not timed */
    double *time_us;    /* cell x n_methods; -1: the method cannot run */
};

struct run_data {
    int n_methods; /* in the order measurements.csv first names them */
    struct run_method *methods;
    int n_grids;
    struct run_grid *grids; /* in the order optimal.csv names them */
    bool has_default;       /* some point timed the "default" method */
};

/* Reads RUN/optimal.csv and RUN/measurements.csv; collectives (n of them,
 * NULL for all) selects and orders the grids. A method whose segment is at
 * least the message size was not timed there and runs unsegmented: it gets
 * the time of algorithm/0. Caller frees with run_data_destroy. */
int run_data_load(const char *run_dir, const char *const *collectives, int n,
                  struct run_data **out);
void run_data_destroy(struct run_data *r);
int run_data_find_method(const struct run_data *r, const char *label);

/* Penalty statistics (seed 000, eq. 6) over a set of points, in percent. */
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

struct decision {
    char kind[RUN_NAME_MAX]; /* "c45" or "quadtree" */
    int n_methods;
    char (*methods)[2 * RUN_NAME_MAX];
    int n_colls;
    char (*colls)[RUN_NAME_MAX];
    int32_t *roots; /* n_colls */
    int n_nodes, cap_nodes;
    struct decision_node *nodes;
    int32_t *leaf_method;       /* n_nodes: the method of a leaf, -1 on tests */
    struct decision_flat *flat; /* n_colls; NULL until decision_prepare */
};

/* An empty decision for these methods and collectives (names copied;
 * colls NULL leaves the collective names empty); caller frees with
 * decision_destroy. */
int decision_create(const char *kind, int n_methods, const char *const *methods,
                    int n_colls, const char *const *colls,
                    struct decision **out);
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
/* Sets the root of collective coll (all collectives when coll < 0). */
void decision_set_root(struct decision *d, int coll, int node);
/* Index of a collective or method by name, or -1. */
int decision_find_collective(const struct decision *d, const char *name);
/* Builds the flattened form of every collective, which decision_lookup
 * then uses (decision_load calls it; call it again after changing nodes
 * directly). 0 or -1 (out of memory). */
int decision_prepare(struct decision *d);

/* The method chosen for collective (an index), procs and msg_bytes, by
 * walking the nodes from the root: one unpredictable branch per level. */
static inline int decision_walk(const struct decision *d, int collective,
                                int procs, long msg_bytes)
{
    const struct decision_node *nodes = d->nodes;
    const int32_t *leaf_method = d->leaf_method;
    int32_t i = d->roots[collective];
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

/* The method chosen for collective (an index), procs and msg_bytes: the
 * flattened form's cell when decision_prepare built it, else the walk. */
static inline int decision_lookup(const struct decision *d, int collective,
                                  int procs, long msg_bytes)
{
    const struct decision_flat *f = d->flat ? &d->flat[collective] : NULL;
    if (f && f->cells) {
        return f->cells[decision_interval(&f->procs, procs) * f->n_msg +
                        decision_interval(&f->msg, msg_bytes)];
    }
    return decision_walk(d, collective, procs, msg_bytes);
}
/* The leaf node that lookup ends at (by the walk). */
int decision_leaf(const struct decision *d, int collective, int procs,
                  long msg_bytes);
/* Tests made by that lookup (the leaf's depth). */
int decision_depth(const struct decision *d, int collective, int procs,
                   long msg_bytes);
/* Leaves, tests and the deepest leaf, over all roots. */
void decision_count(const struct decision *d, int *leaves, int *tests,
                    int *max_depth);

/* A text file: methods, collectives, roots and nodes; loading checks every
 * line and reports file:line. */
int decision_save(const struct decision *d, const char *path);
int decision_load(const char *path, struct decision **out);
/* Self-contained C: PREFIX_decide(collective, procs, msg_bytes) returning
 * the method index (-1 for an unknown collective), PREFIX_method_name and
 * PREFIX_collective_name. The table form is the flattened form's tables
 * (constant time, the faster on random queries; the tree form past 2^16
 * rectangles or more than 4 cuts in one bucket); the tree form nests
 * if-statements as the tree does. */
enum decision_c_form { DECISION_C_TREE, DECISION_C_TABLE };
int decision_emit_c(const struct decision *d, FILE *f, const char *prefix,
                    const char *comment, enum decision_c_form form);

/* From a C4.5 tree built on attributes (procs, msg) or, when has_collective,
 * (collective, procs, msg); class k is method k. Sets the root of
 * collective coll, or of every collective when coll < 0: a combined tree
 * is specialised to each collective (a test on the collective follows that
 * collective's branch). With max_depth >= 0, a test that deep becomes a
 * leaf of the class C4.5 predicts there. */
int decision_add_c45(struct decision *d, int coll, const struct c45_tree *t,
                     bool has_collective, int max_depth);

/* Quadtree over one collective's map (seed 002): n_procs x n_msgs cells of
 * method indexes, reshaped to 2^k x 2^k by replicating rows and columns;
 * a block becomes a leaf with its most common method when that method
 * covers at least accuracy_pct of it, or when the block is at max_depth
 * (< 0: no limit): then with the method of the least total penalty over
 * the block when penalties are given, else again the most common. Sets the
 * root of collective coll. */
struct quadtree_input {
    int n_procs, n_msgs;
    const int *procs;
    const long *msgs;
    const int *cells; /* every cell a method index */
    /* NULL, or each cell's penalty of every method (cell x n_methods, a
     * fraction; a large one where the method cannot run) */
    const double *penalty;
};
int quadtree_build(struct decision *d, int coll,
                   const struct quadtree_input *in, int max_depth,
                   double accuracy_pct);

#endif
