/* The compact decision: one node array for C4.5 trees and quadtrees alike,
 * its text file and its generated C. Children of a node are contiguous and
 * come after it, so a lookup is one index computation per level, no
 * pointers, and every walk ends. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "store/store.h"

#define DECISION_MAGIC "autotune-decision 1"

int decision_create(const char *kind, int n_methods, const char *const *methods,
                    int n_colls, const char *const *colls,
                    struct decision **out)
{
    struct decision *d = calloc(1, sizeof *d);
    *out = NULL;
    if (!d || n_methods < 1 || n_colls < 1) {
        fprintf(stderr, "decision: %s\n",
                d ? "needs a method and a collective" : "out of memory");
        free(d);
        return -1;
    }
    snprintf(d->kind, sizeof d->kind, "%s", kind);
    d->n_methods = n_methods;
    d->n_colls = n_colls;
    d->methods = calloc((size_t)n_methods, sizeof *d->methods);
    d->colls = calloc((size_t)n_colls, sizeof *d->colls);
    d->roots = calloc((size_t)n_colls, sizeof *d->roots);
    if (!d->methods || !d->colls || !d->roots) {
        fprintf(stderr, "decision: out of memory\n");
        decision_destroy(d);
        return -1;
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
    free(d->roots);
    free(d->nodes);
    free(d->leaf_method);
    free(d);
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
    d->nodes[node] = (struct decision_node){INT64_MAX, INT32_MAX, -1};
    d->leaf_method[node] = method;
}

/* count consecutive new nodes; the first's index, or -1. */
static int add_nodes(struct decision *d, int count)
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
    int child = add_nodes(d, is_procs ? 3 : 2);
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
    *child = add_nodes(d, 4);
    if (*child < 0) {
        return -1;
    }
    d->nodes[node] = (struct decision_node){msg_cut, procs_cut, *child};
    d->leaf_method[node] = -1;
    return 0;
}

enum node_kind { NODE_LEAF, NODE_MSG, NODE_PROCS, NODE_QUAD };

static enum node_kind kind_of(const struct decision *d, int i)
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

/* The children of node i (none for a leaf). */
static int children_of(const struct decision *d, int i, int out[4])
{
    static const int steps[][4] = {{0}, {0, 1}, {0, 2}, {0, 1, 2, 3}};
    static const int counts[] = {0, 2, 2, 4};
    enum node_kind k = kind_of(d, i);
    for (int c = 0; c < counts[k]; c++) {
        out[c] = d->nodes[i].child + steps[k][c];
    }
    return counts[k];
}

void decision_set_root(struct decision *d, int coll, int node)
{
    for (int c = 0; c < d->n_colls; c++) {
        if (coll < 0 || c == coll) {
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

int decision_depth(const struct decision *d, int collective, int procs,
                   long msg_bytes)
{
    int32_t i = d->roots[collective];
    int depth = 0;
    while (d->leaf_method[i] < 0) {
        const struct decision_node *n = &d->nodes[i];
        i = n->child + 2 * (procs > n->procs_cut) + (msg_bytes > n->msg_cut);
        depth++;
    }
    return depth;
}

static void count_from(const struct decision *d, int node, int depth,
                       int *leaves, int *tests, int *max_depth)
{
    int children[4];
    int n = children_of(d, node, children);
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
    for (int c = 0; c < d->n_colls; c++) {
        bool is_seen = false;
        for (int e = 0; e < c; e++) {
            is_seen = is_seen || d->roots[e] == d->roots[c];
        }
        if (!is_seen) {
            count_from(d, d->roots[c], 0, leaves, tests, max_depth);
        }
    }
}

/* ---- file ---- */

static int write_decision(FILE *f, const void *arg)
{
    const struct decision *d = arg;
    fprintf(f, "%s\nkind %s\nmethods %d\n", DECISION_MAGIC, d->kind,
            d->n_methods);
    for (int i = 0; i < d->n_methods; i++) {
        fprintf(f, "%s\n", d->methods[i]);
    }
    fprintf(f, "collectives %d\n", d->n_colls);
    for (int i = 0; i < d->n_colls; i++) {
        fprintf(f, "%s %" PRId32 "\n", d->colls[i], d->roots[i]);
    }
    fprintf(f, "nodes %d\n", d->n_nodes);
    for (int i = 0; i < d->n_nodes; i++) {
        const struct decision_node *n = &d->nodes[i];
        switch (kind_of(d, i)) {
        case NODE_LEAF:
            fprintf(f, "leaf %" PRId32 "\n", d->leaf_method[i]);
            break;
        case NODE_MSG:
            fprintf(f, "split msg_bytes %" PRId64 " %" PRId32 "\n", n->msg_cut,
                    n->child);
            break;
        case NODE_PROCS:
            fprintf(f, "split procs %" PRId32 " %" PRId32 "\n", n->procs_cut,
                    n->child);
            break;
        case NODE_QUAD:
            fprintf(f, "quad %" PRId32 " %" PRId64 " %" PRId32 "\n",
                    n->procs_cut, n->msg_cut, n->child);
            break;
        }
    }
    return ferror(f) ? -1 : 0;
}

int decision_save(const struct decision *d, const char *path)
{
    return store_write_file(path, write_decision, d);
}

struct reader {
    FILE *f;
    const char *path;
    int lineno;
    char line[256];
};

static int read_line(struct reader *r, const char *what)
{
    if (!fgets(r->line, sizeof r->line, r->f)) {
        fprintf(stderr, "%s:%d: ends before %s\n", r->path, r->lineno + 1,
                what);
        return -1;
    }
    r->lineno++;
    r->line[strcspn(r->line, "\r\n")] = '\0';
    return 0;
}

static int bad_line(const struct reader *r, const char *what)
{
    fprintf(stderr, "%s:%d: '%s': expected %s\n", r->path, r->lineno, r->line,
            what);
    return -1;
}

/* "KEY N" with 1 <= N <= max. */
static int read_count(struct reader *r, const char *key, int max, int *out)
{
    size_t len = strlen(key);
    char *end;
    if (read_line(r, key)) {
        return -1;
    }
    long v = 0;
    bool is_ok = strncmp(r->line, key, len) == 0 && r->line[len] == ' ';
    if (is_ok) {
        v = strtol(r->line + len + 1, &end, 10);
        is_ok = end != r->line + len + 1 && *end == '\0' && v >= 1 && v <= max;
    }
    if (!is_ok) {
        char what[64];
        snprintf(what, sizeof what, "'%s N' with 1 <= N <= %d", key, max);
        return bad_line(r, what);
    }
    *out = (int)v;
    return 0;
}

static int read_node(struct reader *r, struct decision *d, int i)
{
    char attr[16];
    int64_t a, b;
    int32_t child;
    int used = 0;
    if (sscanf(r->line, "leaf %" SCNd32 "%n", &child, &used) == 1 &&
        r->line[used] == '\0') {
        if (child < 0 || child >= d->n_methods) {
            return bad_line(r, "a method index");
        }
        decision_set_leaf(d, i, child);
        return 0;
    }
    if (sscanf(r->line, "quad %" SCNd64 " %" SCNd64 " %" SCNd32 "%n", &a, &b,
               &child, &used) == 3 &&
        r->line[used] == '\0') {
        d->nodes[i] = (struct decision_node){b, (int32_t)a, child};
    } else if (sscanf(r->line, "split %15s %" SCNd64 " %" SCNd32 "%n", attr, &a,
                      &child, &used) == 3 &&
               r->line[used] == '\0' &&
               (strcmp(attr, "procs") == 0 || strcmp(attr, "msg_bytes") == 0)) {
        bool is_procs = strcmp(attr, "procs") == 0;
        b = a;
        d->nodes[i] = (struct decision_node){
            is_procs ? INT64_MAX : a, is_procs ? (int32_t)a : INT32_MAX, child};
    } else {
        return bad_line(r, "'leaf M', 'split procs|msg_bytes CUT CHILD' or "
                           "'quad PROCS_CUT MSG_CUT CHILD'");
    }
    if (a < INT32_MIN || a >= INT32_MAX || b == INT64_MAX) {
        return bad_line(r, "cuts below INT32_MAX (procs) and INT64_MAX");
    }
    d->leaf_method[i] = -1;
    /* Children come after their parent: every walk ends at a leaf. */
    int children[4];
    int n = children_of(d, i, children);
    if (child <= i || children[n - 1] >= d->n_nodes) {
        return bad_line(r, "children after the node and within the nodes");
    }
    return 0;
}

int decision_load(const char *path, struct decision **out)
{
    struct reader r = {fopen(path, "r"), path, 0, ""};
    struct decision *d = NULL;
    char kind[RUN_NAME_MAX] = "";
    int rc = -1, n_methods, n_colls, n_nodes;
    char **names = NULL;
    *out = NULL;
    if (!r.f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (read_line(&r, "the header")) {
        goto done;
    }
    if (strcmp(r.line, DECISION_MAGIC) != 0) {
        bad_line(&r, "'" DECISION_MAGIC "'");
        goto done;
    }
    if (read_line(&r, "kind")) {
        goto done;
    }
    if (sscanf(r.line, "kind %31s", kind) != 1) {
        bad_line(&r, "'kind NAME'");
        goto done;
    }
    if (read_count(&r, "methods", 65535, &n_methods)) {
        goto done;
    }
    names = calloc((size_t)n_methods, sizeof *names);
    if (!names) {
        fprintf(stderr, "%s: out of memory\n", path);
        goto done;
    }
    for (int i = 0; i < n_methods; i++) {
        if (read_line(&r, "a method")) {
            goto done;
        }
        if (!(names[i] = strdup(r.line))) {
            fprintf(stderr, "%s: out of memory\n", path);
            goto done;
        }
    }
    if (read_count(&r, "collectives", 1024, &n_colls)) {
        goto done;
    }
    if (decision_create(kind, n_methods, (const char *const *)names, n_colls,
                        NULL, &d)) {
        goto done;
    }
    for (int i = 0; i < n_colls; i++) {
        int used = 0;
        if (read_line(&r, "a collective") ||
            sscanf(r.line, "%31s %" SCNd32 "%n", d->colls[i], &d->roots[i],
                   &used) != 2 ||
            r.line[used] != '\0') {
            if (r.lineno > 0 && !feof(r.f)) {
                bad_line(&r, "'COLLECTIVE ROOT'");
            }
            goto done;
        }
    }
    if (read_count(&r, "nodes", INT32_MAX / 4, &n_nodes) ||
        add_nodes(d, n_nodes) < 0) {
        goto done;
    }
    for (int i = 0; i < n_colls; i++) {
        if (d->roots[i] < 0 || d->roots[i] >= n_nodes) {
            fprintf(stderr,
                    "%s: collective %s: root %" PRId32 " is not a node\n", path,
                    d->colls[i], d->roots[i]);
            goto done;
        }
    }
    for (int i = 0; i < n_nodes; i++) {
        if (read_line(&r, "a node") || read_node(&r, d, i)) {
            goto done;
        }
    }
    if (fgets(r.line, sizeof r.line, r.f)) {
        fprintf(stderr, "%s:%d: text after the last node\n", path,
                r.lineno + 1);
        goto done;
    }

    *out = d;
    d = NULL;
    rc = 0;
done:
    for (int i = 0; names && i < n_methods; i++) {
        free(names[i]);
    }
    free(names);
    decision_destroy(d);
    fclose(r.f);
    return rc;
}

/* ---- generated C ---- */

/* The method of every leaf under node, or -1 if they differ. */
static int uniform_method(const struct decision *d, int node)
{
    int children[4];
    int n = children_of(d, node, children);
    if (n == 0) {
        return d->leaf_method[node];
    }
    int method = uniform_method(d, children[0]);
    for (int c = 1; c < n && method >= 0; c++) {
        method = uniform_method(d, children[c]) == method ? method : -1;
    }
    return method;
}

/* The values a branch can still see: lo < procs <= hi, likewise msg_bytes
 * ([0] procs, [1] msg_bytes). */
struct region {
    int64_t lo[2], hi[2];
};

/* One side of a test: a node, or the message-size half of a quadtree node
 * (children lo and hi split at msg_cut). */
struct side {
    int node;
    int lo, hi;
    int64_t msg_cut;
};

static void emit_node(const struct decision *d, FILE *f, int node,
                      struct region r, int indent);
static void emit_test(const struct decision *d, FILE *f, int attr, int64_t cut,
                      struct side a, struct side b, struct region r,
                      int indent);

static int side_method(const struct decision *d, struct side s)
{
    if (s.node >= 0) {
        return uniform_method(d, s.node);
    }
    int method = uniform_method(d, s.lo);
    return method == uniform_method(d, s.hi) ? method : -1;
}

static void emit_side(const struct decision *d, FILE *f, struct side s,
                      struct region r, int indent)
{
    if (s.node >= 0) {
        emit_node(d, f, s.node, r, indent);
    } else {
        emit_test(d, f, 1, s.msg_cut, (struct side){s.lo, 0, 0, 0},
                  (struct side){s.hi, 0, 0, 0}, r, indent);
    }
}

/* if (x <= cut) { a } b, where x is procs (attr 0) or msg_bytes (1). A test
 * the region already decides is left out (replicated rows and columns of a
 * reshaped quadtree repeat cuts), and two sides whose leaves all agree are
 * one return (seed 002's merging of conditions with the same color). */
static void emit_test(const struct decision *d, FILE *f, int attr, int64_t cut,
                      struct side a, struct side b, struct region r, int indent)
{
    static const char *const vars[] = {"procs", "msg_bytes"};
    if (cut >= r.hi[attr]) {
        emit_side(d, f, a, r, indent);
        return;
    }
    if (cut <= r.lo[attr]) {
        emit_side(d, f, b, r, indent);
        return;
    }
    int method = side_method(d, a);
    if (method >= 0 && method == side_method(d, b)) {
        fprintf(f, "%*sreturn %d; /* %s */\n", indent, "", method,
                d->methods[method]);
        return;
    }
    struct region below = r, above = r;
    below.hi[attr] = cut;
    above.lo[attr] = cut;
    fprintf(f, "%*sif (%s <= %" PRId64 "%s) {\n", indent, "", vars[attr], cut,
            attr ? "L" : "");
    emit_side(d, f, a, below, indent + 4);
    fprintf(f, "%*s}\n", indent, "");
    emit_side(d, f, b, above, indent);
}

static void emit_node(const struct decision *d, FILE *f, int node,
                      struct region r, int indent)
{
    const struct decision_node *n = &d->nodes[node];
    int c = n->child;
    switch (kind_of(d, node)) {
    case NODE_LEAF:
        fprintf(f, "%*sreturn %d; /* %s */\n", indent, "", d->leaf_method[node],
                d->methods[d->leaf_method[node]]);
        break;
    case NODE_MSG:
        emit_test(d, f, 1, n->msg_cut, (struct side){c, 0, 0, 0},
                  (struct side){c + 1, 0, 0, 0}, r, indent);
        break;
    case NODE_PROCS:
        emit_test(d, f, 0, n->procs_cut, (struct side){c, 0, 0, 0},
                  (struct side){c + 2, 0, 0, 0}, r, indent);
        break;
    case NODE_QUAD:
        /* Four children: procs first, then the message size. */
        emit_test(d, f, 0, n->procs_cut,
                  (struct side){-1, c, c + 1, n->msg_cut},
                  (struct side){-1, c + 2, c + 3, n->msg_cut}, r, indent);
        break;
    }
}

static void emit_names(FILE *f, const char *prefix, const char *what,
                       const char *var, int n, const char *names, size_t stride)
{
    fprintf(f, "const char *%s_%s_name(int %s)\n{\n", prefix, what, var);
    fprintf(f, "    static const char *const names[] = {\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "        \"%s\",\n", names + (size_t)i * stride);
    }
    fprintf(f, "    };\n    return %s >= 0 && %s < %d ? names[%s] : 0;\n}\n",
            var, var, n, var);
}

/* ---- generated C, table form ---- */

/* The sorted distinct cuts of one attribute under a node. */
struct cuts {
    int64_t *v;
    int n, cap;
};

static int cuts_add(struct cuts *c, int64_t v)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 16;
        int64_t *grown = realloc(c->v, (size_t)cap * sizeof *grown);
        if (!grown) {
            fprintf(stderr, "decision: out of memory\n");
            return -1;
        }
        c->v = grown;
        c->cap = cap;
    }
    c->v[c->n++] = v;
    return 0;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int collect_cuts(const struct decision *d, int node, struct cuts *procs,
                        struct cuts *msgs)
{
    const struct decision_node *n = &d->nodes[node];
    enum node_kind k = kind_of(d, node);
    if (((k == NODE_PROCS || k == NODE_QUAD) &&
         cuts_add(procs, n->procs_cut)) ||
        ((k == NODE_MSG || k == NODE_QUAD) && cuts_add(msgs, n->msg_cut))) {
        return -1;
    }
    int children[4];
    int count = children_of(d, node, children);
    for (int c = 0; c < count; c++) {
        if (collect_cuts(d, children[c], procs, msgs)) {
            return -1;
        }
    }
    return 0;
}

static void cuts_sort_unique(struct cuts *c)
{
    if (c->n == 0) {
        return;
    }
    qsort(c->v, (size_t)c->n, sizeof *c->v, compare_int64);
    int kept = 1;
    for (int i = 1; i < c->n; i++) {
        if (c->v[i] != c->v[kept - 1]) {
            c->v[kept++] = c->v[i];
        }
    }
    c->n = kept;
}

/* A value in interval k of the cuts (values above k of them): its top. */
static int64_t interval_value(const struct cuts *c, int k)
{
    return k < c->n ? c->v[k] : c->n ? c->v[c->n - 1] + 1 : 1;
}

/* The decision of collective coll as a table of cells: procs and msg_bytes
 * each count the cuts they lie above, and the cell at those counts holds
 * the method: the decision map, cut where the tree cuts. */
static int emit_table(const struct decision *d, FILE *f, int coll, int indent)
{
    struct cuts pc = {0}, mc = {0};
    int rc = collect_cuts(d, d->roots[coll], &pc, &mc);
    if (rc == 0) {
        cuts_sort_unique(&pc);
        cuts_sort_unique(&mc);
        if (mc.n && mc.v[mc.n - 1] == INT64_MAX) {
            mc.n--; /* no message lies above it */
        }
    }
    if (rc == 0 && pc.n == 0 && mc.n == 0) {
        int method = decision_lookup(d, coll, 1, 1);
        fprintf(f, "%*sreturn %d; /* %s */\n", indent, "", method,
                d->methods[method]);
    } else if (rc == 0) {
        fprintf(f, "%*sstatic const %s cells[%d][%d] = {\n", indent, "",
                d->n_methods <= 127 ? "signed char" : "short", pc.n + 1,
                mc.n + 1);
        for (int p = 0; p <= pc.n; p++) {
            fprintf(f, "%*s{", indent + 4, "");
            for (int m = 0; m <= mc.n; m++) {
                fprintf(f, "%s%d", m ? ", " : "",
                        decision_lookup(d, coll, (int)interval_value(&pc, p),
                                        (long)interval_value(&mc, m)));
            }
            if (p < pc.n) {
                fprintf(f, "}, /* procs <= %" PRId64 " */\n", pc.v[p]);
            } else {
                fprintf(f, "}, /* above */\n");
            }
        }
        fprintf(f, "%*s};\n", indent, "");
        fprintf(f, "%*sint p = 0, m = 0;\n", indent, "");
        for (int i = 0; i < pc.n; i++) {
            fprintf(f, "%*sif (procs > %" PRId64 ") p++;\n", indent, "",
                    pc.v[i]);
        }
        for (int i = 0; i < mc.n; i++) {
            fprintf(f, "%*sif (msg_bytes > %" PRId64 "L) m++;\n", indent, "",
                    mc.v[i]);
        }
        fprintf(f, "%*sreturn cells[p][m];\n", indent, "");
    }
    free(pc.v);
    free(mc.v);
    return rc;
}

/* The decision of collective coll, in either form. */
static int emit_root(const struct decision *d, FILE *f, int coll, int indent,
                     enum decision_c_form form)
{
    if (form == DECISION_C_TABLE) {
        return emit_table(d, f, coll, indent);
    }
    const struct region everything = {{INT64_MIN, INT64_MIN},
                                      {INT64_MAX, INT64_MAX}};
    emit_node(d, f, d->roots[coll], everything, indent);
    return 0;
}

int decision_emit_c(const struct decision *d, FILE *f, const char *prefix,
                    const char *comment, enum decision_c_form form)
{
    fprintf(f,
            "/* %s\n * Generated by autotune (%s form); methods and "
            "collectives are numbered\n * as in %s_method_name and "
            "%s_collective_name. */\n",
            comment, form == DECISION_C_TABLE ? "table" : "tree", prefix,
            prefix);
    fprintf(f, "int %s_decide(int collective, int procs, long msg_bytes);\n",
            prefix);
    fprintf(f, "const char *%s_method_name(int method);\n", prefix);
    fprintf(f, "const char *%s_collective_name(int collective);\n\n", prefix);
    fprintf(f, "int %s_decide(int collective, int procs, long msg_bytes)\n{\n",
            prefix);
    fprintf(f, "    (void)collective;\n    (void)procs;\n"
               "    (void)msg_bytes;\n");
    bool is_shared = true;
    for (int c = 1; c < d->n_colls; c++) {
        is_shared = is_shared && d->roots[c] == d->roots[0];
    }
    int rc = 0;
    if (is_shared) {
        fprintf(f,
                "    if (collective < 0 || collective >= %d) {\n"
                "        return -1;\n    }\n",
                d->n_colls);
        rc = emit_root(d, f, 0, 4, form);
    } else {
        for (int c = 0; c < d->n_colls && rc == 0; c++) {
            fprintf(f, "    if (collective == %d) { /* %s */\n", c,
                    d->colls[c]);
            rc = emit_root(d, f, c, 8, form);
            fprintf(f, "    }\n");
        }
        fprintf(f, "    return -1;\n");
    }
    fprintf(f, "}\n\n");
    emit_names(f, prefix, "method", "method", d->n_methods, d->methods[0],
               sizeof d->methods[0]);
    fprintf(f, "\n");
    emit_names(f, prefix, "collective", "collective", d->n_colls, d->colls[0],
               sizeof d->colls[0]);
    return rc || ferror(f) ? -1 : 0;
}

/* ---- from C4.5 ---- */

struct c45_map {
    struct decision *d;
    bool has_collective;
    int coll;      /* the collective a combined tree is specialised to */
    int max_depth; /* < 0: none */
};

/* Fills node with the C4.5 subtree t. */
static int add_c45_node(const struct c45_map *m, int node,
                        const struct c45_node *t, int depth)
{
    int lo, hi;
    if (depth == m->max_depth && t->type != C45_TEST_DISCRETE) {
        decision_set_leaf(m->d, node, t->leaf_class);
        return 0;
    }
    switch (t->type) {
    case C45_LEAF:
        decision_set_leaf(m->d, node, t->leaf_class);
        return 0;
    case C45_TEST_CUT:
        /* Queries are integers: x <= cut exactly when x <= floor(cut). */
        if (decision_add_split(m->d, node, t->attr == m->has_collective,
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

int decision_add_c45(struct decision *d, int coll, const struct c45_tree *t,
                     bool has_collective, int max_depth)
{
    for (int c = 0; c < d->n_colls; c++) {
        if (coll >= 0 && c != coll) {
            continue;
        }
        struct c45_map m = {d, has_collective, c, max_depth};
        int root = decision_add_node(d);
        if (root < 0 || add_c45_node(&m, root, t->root, 0)) {
            return -1;
        }
        decision_set_root(d, c, root);
    }
    return 0;
}
