/* C4.5 as release 8 behaves, bit for bit (float arithmetic, its tie rules):
 * data sets and their .names/.data reader, the tree builder and pruner,
 * classification and c4.5's text output. */
#ifndef DECISION_C45_H
#define DECISION_C45_H

#include <stdbool.h>
#include <stdio.h>

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
    int cap_items;  /* rows allocated in values and classes */
    float *values;  /* n_items x n_attrs */
    int *classes;   /* n_items, each 0..n_classes-1 */
    float *weights; /* n_items case weights (cap_items allocated), or NULL:
                       every item weighs 1, release 8's counts */
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
/* The same with a case weight (> 0): the tree is grown and pruned as if
 * the item were weight items (fractions too), as release 8 weighs the parts
 * of an item whose value is unknown. Without such items (every weight 1)
 * the trees are release 8's byte for byte. */
int c45_data_add_weighted_item(struct c45_data *d, const float *values,
                               int class_idx, float weight);
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
/* Makes node n of a tree a leaf of class leaf_class (its subtree freed;
 * errors: its training weight of other classes), for pruning beyond
 * C4.5's own (train.c's leaf budget). */
void c45_node_make_leaf(struct c45_node *n, int leaf_class);
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
/* The evaluation lines c4.5 prints after the trees (c45_print.c). */
void c45_print_eval_header(FILE *f, const char *what, int n_items);
void c45_print_eval_row(FILE *f, int size_before, int errors_before,
                        int size_after, int errors_after, int n_items,
                        float estimate_pct);
void c45_print_confusion(FILE *f, const struct c45_data *d, const int *matrix);

#endif
