/* The compact decision: one node array for C4.5 trees and quadtrees alike,
 * its builders and its walk. Children of a node are contiguous and come
 * after it, so a lookup is one index computation per level, no pointers,
 * and every walk ends. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decision/c45.h"
#include "decision/decision.h"
#include "decision/internal.h"

/* Whether the n values of ppn are ascending, distinct and >= 1. */
static bool is_ppn_list(int n, const int *ppn)
{
    for (int k = 0; k < n; k++) {
        if (ppn[k] < 1 || (k > 0 && ppn[k] <= ppn[k - 1])) {
            return false;
        }
    }
    return true;
}

int decision_create(const char *kind, int n_methods, const char *const *methods,
                    int n_colls, const char *const *colls, int n_ppn,
                    const int *ppn, struct decision **out)
{
    static const int one = 1;
    struct decision *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!ppn && n_ppn == 1) {
        ppn = &one;
    }
    if (!d || n_methods < 1 || n_colls < 1 || n_ppn < 1 ||
        n_ppn > DECISION_MAX_PPN || !ppn || !is_ppn_list(n_ppn, ppn)) {
        fprintf(stderr, "decision: %s\n",
                !d ? "out of memory"
                : n_ppn < 1 || n_ppn > DECISION_MAX_PPN || !ppn ||
                        !is_ppn_list(n_ppn, ppn)
                    ? "needs 1 to 64 ranks per node values, ascending"
                    : "needs a method and a collective");
        free(d);
        return -1;
    }
    snprintf(d->kind, sizeof d->kind, "%s", kind);
    d->n_methods = n_methods;
    d->n_colls = n_colls;
    d->n_ppn = n_ppn;
    size_t n_tables = (size_t)n_colls * (size_t)n_ppn;
    d->methods = calloc((size_t)n_methods, sizeof *d->methods);
    d->colls = calloc((size_t)n_colls, sizeof *d->colls);
    d->ppn = calloc((size_t)n_ppn, sizeof *d->ppn);
    d->roots = malloc(n_tables * sizeof *d->roots);
    if (!d->methods || !d->colls || !d->ppn || !d->roots) {
        fprintf(stderr, "decision: out of memory\n");
        decision_destroy(d);
        return -1;
    }
    for (size_t t = 0; t < n_tables; t++) {
        d->roots[t] = -1;
    }
    for (int k = 0; k < n_ppn; k++) {
        d->ppn[k] = ppn[k];
    }
    for (int i = 0; i < n_methods; i++) {
        snprintf(d->methods[i], sizeof d->methods[i], "%s", methods[i]);
    }
    for (int i = 0; colls && i < n_colls; i++) {
        snprintf(d->colls[i], sizeof d->colls[i], "%s", colls[i]);
    }
    *out = d;
    return 0;
}

void decision_destroy(struct decision *d)
{
    if (!d) {
        return;
    }
    free(d->methods);
    free(d->colls);
    free(d->ppn);
    free(d->roots);
    free(d->nodes);
    free(d->leaf_method);
    free(d->ranges);
    decision_drop_flat(d);
    free(d);
}

int decision_find_ppn(const struct decision *d, int ppn)
{
    for (int k = 0; k < d->n_ppn; k++) {
        if (d->ppn[k] == ppn) {
            return k;
        }
    }
    return -1;
}

int decision_nearest_ppn(const struct decision *d, int ppn)
{
    int best = 0;
    double x = log2(ppn > 1 ? ppn : 1), best_dist = INFINITY;
    /* Ascending: a tie keeps the smaller value, found first. */
    for (int k = 0; k < d->n_ppn; k++) {
        double dist = fabs(log2(d->ppn[k]) - x);
        if (dist < best_dist) {
            best_dist = dist;
            best = k;
        }
    }
    return best;
}

static int n_tables(const struct decision *d)
{
    return d->n_colls * d->n_ppn;
}

int decision_set_range(struct decision *d, int table,
                       const struct decision_range *range)
{
    if (!d->ranges &&
        !(d->ranges = calloc((size_t)n_tables(d), sizeof *d->ranges))) {
        fprintf(stderr, "decision: out of memory\n");
        return -1;
    }
    d->ranges[table] = *range;
    return 0;
}

int decision_add_node(struct decision *d)
{
    if (d->n_nodes == INT32_MAX / 2) {
        fprintf(stderr, "decision: too many nodes\n");
        return -1;
    }
    if (d->n_nodes == d->cap_nodes) {
        int cap = d->cap_nodes ? 2 * d->cap_nodes : 64;
        struct decision_node *nodes =
            realloc(d->nodes, (size_t)cap * sizeof *nodes);
        if (nodes) {
            d->nodes = nodes;
        }
        int32_t *methods =
            realloc(d->leaf_method, (size_t)cap * sizeof *methods);
        if (methods) {
            d->leaf_method = methods;
        }
        if (!nodes || !methods) {
            fprintf(stderr, "decision: out of memory\n");
            return -1;
        }
        d->cap_nodes = cap;
    }
    int node = d->n_nodes++;
    decision_set_leaf(d, node, 0);
    return node;
}

void decision_set_leaf(struct decision *d, int node, int method)
{
    decision_drop_flat(d);
    d->nodes[node] = (struct decision_node){INT64_MAX, INT32_MAX, -1};
    d->leaf_method[node] = method;
}

int decision_add_nodes(struct decision *d, int count)
{
    int first = d->n_nodes;
    for (int i = 0; i < count; i++) {
        if (decision_add_node(d) < 0) {
            return -1;
        }
    }
    return first;
}

int decision_add_split(struct decision *d, int node, bool is_procs, int64_t cut,
                       int *lo, int *hi)
{
    int child = decision_add_nodes(d, is_procs ? 3 : 2);
    if (child < 0) {
        return -1;
    }
    d->nodes[node] = (struct decision_node){
        is_procs ? INT64_MAX : cut, is_procs ? (int32_t)cut : INT32_MAX, child};
    d->leaf_method[node] = -1;
    *lo = child;
    *hi = child + (is_procs ? 2 : 1);
    return 0;
}

int decision_add_quad(struct decision *d, int node, int32_t procs_cut,
                      int64_t msg_cut, int *child)
{
    *child = decision_add_nodes(d, 4);
    if (*child < 0) {
        return -1;
    }
    d->nodes[node] = (struct decision_node){msg_cut, procs_cut, *child};
    d->leaf_method[node] = -1;
    return 0;
}

enum node_kind decision_node_kind(const struct decision *d, int i)
{
    const struct decision_node *n = &d->nodes[i];
    if (d->leaf_method[i] >= 0) {
        return NODE_LEAF;
    }
    if (n->procs_cut == INT32_MAX) {
        return NODE_MSG;
    }
    return n->msg_cut == INT64_MAX ? NODE_PROCS : NODE_QUAD;
}

int decision_children(const struct decision *d, int i, int out[4])
{
    static const int steps[][4] = {{0}, {0, 1}, {0, 2}, {0, 1, 2, 3}};
    static const int counts[] = {0, 2, 2, 4};
    enum node_kind k = decision_node_kind(d, i);
    for (int c = 0; c < counts[k]; c++) {
        out[c] = d->nodes[i].child + steps[k][c];
    }
    return counts[k];
}

/* Copies old node i of d to slot at of nodes/leaves, its child block
 * (the blocks decision_add_split and decision_add_quad make) from *next
 * on, then their subtrees: every block after its parent. */
static void renumber_from(const struct decision *d, int i, int at,
                          struct decision_node *nodes, int32_t *leaves,
                          int *next)
{
    static const int block[] = {0, 2, 3, 4}; /* by enum node_kind */
    enum node_kind kind = decision_node_kind(d, i);
    nodes[at] = d->nodes[i];
    leaves[at] = d->leaf_method[i];
    if (kind == NODE_LEAF) {
        return;
    }
    int first = *next;
    *next += block[kind];
    nodes[at].child = first;
    for (int c = 0; c < block[kind]; c++) {
        renumber_from(d, d->nodes[i].child + c, first + c, nodes, leaves, next);
    }
}

int decision_renumber(struct decision *d)
{
    struct decision_node *nodes = malloc((size_t)d->n_nodes * sizeof *nodes);
    int32_t *leaves = malloc((size_t)d->n_nodes * sizeof *leaves);
    int *roots = malloc((size_t)n_tables(d) * sizeof *roots);
    if (!nodes || !leaves || !roots) {
        free(nodes);
        free(leaves);
        free(roots);
        fprintf(stderr, "decision: out of memory\n");
        return -1;
    }
    int next = 0;
    for (int c = 0; c < n_tables(d); c++) {
        int same = -1; /* tables that share a root keep sharing it */
        for (int e = 0; e < c && same < 0; e++) {
            same = d->roots[e] == d->roots[c] ? roots[e] : -1;
        }
        if (d->roots[c] < 0) {
            roots[c] = -1;
            continue;
        }
        if (same >= 0) {
            roots[c] = same;
            continue;
        }
        roots[c] = next++;
        renumber_from(d, d->roots[c], roots[c], nodes, leaves, &next);
    }
    decision_drop_flat(d);
    free(d->nodes);
    free(d->leaf_method);
    d->nodes = nodes;
    d->leaf_method = leaves;
    d->cap_nodes = d->n_nodes;
    d->n_nodes = next;
    for (int c = 0; c < n_tables(d); c++) {
        d->roots[c] = roots[c];
    }
    free(roots);
    return 0;
}

void decision_set_root(struct decision *d, int table, int node)
{
    decision_drop_flat(d);
    for (int c = 0; c < n_tables(d); c++) {
        if (table < 0 || c == table) {
            d->roots[c] = node;
        }
    }
}

int decision_find_collective(const struct decision *d, const char *name)
{
    for (int i = 0; i < d->n_colls; i++) {
        if (strcmp(d->colls[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* The leaf that a lookup's walk ends at; *depth gets its tests. */
static int32_t leaf_of(const struct decision *d, int table, int procs,
                       long msg_bytes, int *depth)
{
    int32_t i = d->roots[table];
    *depth = 0;
    while (d->leaf_method[i] < 0) {
        const struct decision_node *n = &d->nodes[i];
        i = n->child + 2 * (procs > n->procs_cut) + (msg_bytes > n->msg_cut);
        (*depth)++;
    }
    return i;
}

int decision_leaf(const struct decision *d, int table, int procs,
                  long msg_bytes)
{
    int depth;
    return leaf_of(d, table, procs, msg_bytes, &depth);
}

int decision_depth(const struct decision *d, int table, int procs,
                   long msg_bytes)
{
    int depth;
    leaf_of(d, table, procs, msg_bytes, &depth);
    return depth;
}

static void count_from(const struct decision *d, int node, int depth,
                       int *leaves, int *tests, int *max_depth)
{
    int children[4];
    int n = decision_children(d, node, children);
    if (n == 0) {
        (*leaves)++;
        *max_depth = depth > *max_depth ? depth : *max_depth;
        return;
    }
    (*tests)++;
    for (int c = 0; c < n; c++) {
        count_from(d, children[c], depth + 1, leaves, tests, max_depth);
    }
}

void decision_count(const struct decision *d, int *leaves, int *tests,
                    int *max_depth)
{
    *leaves = *tests = *max_depth = 0;
    for (int c = 0; c < n_tables(d); c++) {
        bool is_seen = d->roots[c] < 0;
        for (int e = 0; e < c; e++) {
            is_seen = is_seen || d->roots[e] == d->roots[c];
        }
        if (!is_seen) {
            count_from(d, d->roots[c], 0, leaves, tests, max_depth);
        }
    }
}

static void mark_used(const struct decision *d, int node, bool *used)
{
    int children[4];
    int n = decision_children(d, node, children);
    if (n == 0) {
        used[d->leaf_method[node]] = true;
    }
    for (int c = 0; c < n; c++) {
        mark_used(d, children[c], used);
    }
}

void decision_methods_used(const struct decision *d, int table, bool *used)
{
    for (int k = 0; k < d->n_methods; k++) {
        used[k] = false;
    }
    if (d->roots[table] >= 0) {
        mark_used(d, d->roots[table], used);
    }
}

/* ---- from C4.5 ---- */

struct c45_map {
    struct decision *d;
    int attr_procs, attr_ppn; /* the tree's attributes (attr_ppn -1: none) */
    int coll;      /* the collective a combined tree is specialised to */
    int ppn;       /* the ppn value a ppn test is specialised to */
    int max_depth; /* < 0: none */
};

/* Fills node with the C4.5 subtree t. */
static int add_c45_node(const struct c45_map *m, int node,
                        const struct c45_node *t, int depth)
{
    int lo, hi;
    /* A test on the collective or ppn is no test of the decision. */
    bool is_specialised = t->type == C45_TEST_DISCRETE ||
                          (t->type == C45_TEST_CUT && t->attr == m->attr_ppn);
    if (depth == m->max_depth && !is_specialised) {
        decision_set_leaf(m->d, node, t->leaf_class);
        return 0;
    }
    switch (t->type) {
    case C45_LEAF:
        decision_set_leaf(m->d, node, t->leaf_class);
        return 0;
    case C45_TEST_CUT:
        if (t->attr == m->attr_ppn) {
            /* The table's ppn decides it: no test left in the decision. */
            return add_c45_node(m, node, t->branches[m->ppn > floorf(t->cut)],
                                depth);
        }
        /* Queries are integers: x <= cut exactly when x <= floor(cut). */
        if (decision_add_split(m->d, node, t->attr == m->attr_procs,
                               (int64_t)floorf(t->cut), &lo, &hi)) {
            return -1;
        }
        return add_c45_node(m, lo, t->branches[0], depth + 1) ||
               add_c45_node(m, hi, t->branches[1], depth + 1);
    case C45_TEST_DISCRETE:
        /* Only the collective is discrete: its value m->coll + 1. */
        return add_c45_node(m, node, t->branches[m->coll], depth);
    case C45_TEST_SUBSET:
        break;
    }
    fprintf(stderr, "decision: C4.5 subset tests are not supported\n");
    return -1;
}

int decision_add_c45(struct decision *d, int table, const struct c45_tree *t,
                     bool has_collective, bool has_ppn, int max_depth)
{
    for (int c = 0; c < n_tables(d); c++) {
        if (table >= 0 && c != table) {
            continue;
        }
        int procs = has_collective ? 1 : 0;
        struct c45_map m = {d,
                            procs,
                            has_ppn ? procs + 1 : -1,
                            c / d->n_ppn,
                            d->ppn[c % d->n_ppn],
                            max_depth};
        int root = decision_add_node(d);
        if (root < 0 || add_c45_node(&m, root, t->root, 0)) {
            return -1;
        }
        decision_set_root(d, c, root);
    }
    return 0;
}
