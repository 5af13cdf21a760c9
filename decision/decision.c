/* The compact decision: one node array for C4.5 trees and quadtrees alike,
 * its text file and its generated C. Children of a node are contiguous and
 * come after it, so a lookup is one index computation per level, no
 * pointers, and every walk ends. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decision/c45.h"
#include "decision/decision.h"
#include "store/store.h"

#define DECISION_MAGIC "autotune-decision 1"

static void drop_flat(struct decision *d);

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
    drop_flat(d);
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
    drop_flat(d);
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
    drop_flat(d);
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

/* The leaf that a lookup's walk ends at; *depth gets its tests. */
static int32_t leaf_of(const struct decision *d, int collective, int procs,
                       long msg_bytes, int *depth)
{
    int32_t i = d->roots[collective];
    *depth = 0;
    while (d->leaf_method[i] < 0) {
        const struct decision_node *n = &d->nodes[i];
        i = n->child + 2 * (procs > n->procs_cut) + (msg_bytes > n->msg_cut);
        (*depth)++;
    }
    return i;
}

int decision_leaf(const struct decision *d, int collective, int procs,
                  long msg_bytes)
{
    int depth;
    return leaf_of(d, collective, procs, msg_bytes, &depth);
}

int decision_depth(const struct decision *d, int collective, int procs,
                   long msg_bytes)
{
    int depth;
    leaf_of(d, collective, procs, msg_bytes, &depth);
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

/* ---- flattened form ---- */

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

/* The sorted distinct cuts of each attribute under root; a message cut at
 * INT64_MAX cuts nothing (no message lies above it) and is left out. */
static int root_cuts(const struct decision *d, int root, struct cuts *procs,
                     struct cuts *msgs)
{
    if (collect_cuts(d, root, procs, msgs)) {
        return -1;
    }
    cuts_sort_unique(procs);
    cuts_sort_unique(msgs);
    if (msgs->n && msgs->v[msgs->n - 1] == INT64_MAX) {
        msgs->n--;
    }
    return 0;
}

/* Limits of the flattened form: beyond them lookups walk the nodes. */
#define AXIS_MAX_BITS 12
#define AXIS_MAX_BUCKETS 4096
#define FLAT_MAX_CELLS (1 << 16)
/* Cuts inside one bucket cost a compare each on every lookup; past this
 * many (cuts closer than any bucket width allows), the walk is faster. */
#define AXIS_MAX_INNER 4

/* decision_interval's bucket before the last one is applied. */
static uint64_t raw_bucket(int bits, int64_t x)
{
    return decision_bucket(bits, x > 0 ? (uint64_t)x - 1 : 0);
}

/* A cut inside its bucket: values of the bucket lie on both sides. */
static bool is_inner(int bits, int64_t cut)
{
    return raw_bucket(bits, cut) == raw_bucket(bits, cut + 1);
}

/* The most cuts inside one bucket. Cuts of a bucket are consecutive in c,
 * and a cut that ends its bucket comes after those inside it. */
static int most_inner(const struct cuts *c, int bits)
{
    int most = 0, run = 0;
    uint64_t prev = UINT64_MAX;
    for (int i = 0; i < c->n; i++) {
        if (is_inner(bits, c->v[i])) {
            uint64_t b = raw_bucket(bits, c->v[i]);
            run = b == prev ? run + 1 : 1;
            prev = b;
            most = run > most ? run : most;
        }
    }
    return most;
}

/* The axis for sorted distinct cuts (each below INT64_MAX). Of the bucket
 * widths, the one with the fewest cuts inside a bucket (each is a compare
 * per lookup), then a direct table (no bit length), then fewest buckets. */
static int axis_build(struct decision_axis *a, const struct cuts *c)
{
    uint64_t best_key = UINT64_MAX;
    for (int bits = 0; bits <= AXIS_MAX_BITS; bits++) {
        uint64_t n = c->n ? raw_bucket(bits, c->v[c->n - 1] + 1) + 1 : 1;
        bool is_direct = n <= (2ULL << bits);
        uint64_t key = ((uint64_t)most_inner(c, bits) << 32) +
                       ((uint64_t)!is_direct << 31) + n;
        if (n <= AXIS_MAX_BUCKETS && key < best_key) {
            best_key = key;
            *a = (struct decision_axis){
                bits, (int)n, is_direct, (int)(key >> 32), NULL, NULL};
        }
    }
    size_t n = (size_t)a->n_buckets, k = (size_t)a->n_inner;
    a->first = calloc(n, sizeof *a->first);
    a->inner = k ? malloc(n * k * sizeof *a->inner) : NULL;
    if (!a->first || (k && !a->inner)) {
        fprintf(stderr, "decision: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < n * k; i++) {
        a->inner[i] = INT64_MAX;
    }
    /* first[b]: the cuts in buckets below b (a bucket's own last cut
     * has no value of the bucket above it); inner: the rest of b's. */
    size_t filled = 0;
    for (int i = 0; i < c->n; i++) {
        uint64_t b = raw_bucket(a->bits, c->v[i]);
        if (i > 0 && b != raw_bucket(a->bits, c->v[i - 1])) {
            filled = 0;
        }
        if (is_inner(a->bits, c->v[i])) {
            a->inner[b * k + filled++] = c->v[i];
        }
        for (uint64_t above = b + 1; above < n; above++) {
            a->first[above]++;
        }
    }
    return 0;
}

static void axis_free(struct decision_axis *a)
{
    free(a->first);
    free(a->inner);
}

static void flat_free(struct decision_flat *f)
{
    axis_free(&f->procs);
    axis_free(&f->msg);
    free(f->cells);
}

/* The flattened form of collective coll; f->cells stays NULL when it has
 * too many cells (or methods for 16 bits). */
static int flat_build(const struct decision *d, int coll,
                      struct decision_flat *f)
{
    struct cuts pc = {0}, mc = {0};
    *f = (struct decision_flat){0};
    int rc = root_cuts(d, d->roots[coll], &pc, &mc);
    size_t n_cells = (size_t)(pc.n + 1) * (size_t)(mc.n + 1);
    if (rc == 0 && n_cells <= FLAT_MAX_CELLS && d->n_methods <= UINT16_MAX) {
        rc = axis_build(&f->procs, &pc) || axis_build(&f->msg, &mc) ? -1 : 0;
        f->n_msg = mc.n + 1;
        if (rc == 0 && (f->procs.n_inner > AXIS_MAX_INNER ||
                        f->msg.n_inner > AXIS_MAX_INNER)) {
            flat_free(f);
            *f = (struct decision_flat){0};
            free(pc.v);
            free(mc.v);
            return 0; /* the walk then, and the tree form */
        }
        f->cells = rc ? NULL : malloc(n_cells * sizeof *f->cells);
        if (rc == 0 && !f->cells) {
            fprintf(stderr, "decision: out of memory\n");
            rc = -1;
        }
        /* A cell's method is the walk's at one point of its rectangle. */
        for (int p = 0; rc == 0 && p <= pc.n; p++) {
            for (int m = 0; m <= mc.n; m++) {
                f->cells[p * f->n_msg + m] = (uint16_t)decision_walk(
                    d, coll, (int)interval_value(&pc, p),
                    (long)interval_value(&mc, m));
            }
        }
    }
    if (rc) {
        flat_free(f);
        *f = (struct decision_flat){0};
    }
    free(pc.v);
    free(mc.v);
    return rc;
}

static void drop_flat(struct decision *d)
{
    for (int c = 0; d->flat && c < d->n_colls; c++) {
        flat_free(&d->flat[c]);
    }
    free(d->flat);
    d->flat = NULL;
}

int decision_prepare(struct decision *d)
{
    drop_flat(d);
    d->flat = calloc((size_t)d->n_colls, sizeof *d->flat);
    if (!d->flat) {
        fprintf(stderr, "decision: out of memory\n");
        return -1;
    }
    for (int c = 0; c < d->n_colls; c++) {
        if (flat_build(d, c, &d->flat[c])) {
            drop_flat(d);
            return -1;
        }
    }
    return 0;
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
        /* a: the procs cut to check, b: the message cut (any below
         * INT64_MAX, 4 GiB and more included). */
        b = is_procs ? 0 : a;
        a = is_procs ? a : 0;
        d->nodes[i] = (struct decision_node){
            is_procs ? INT64_MAX : b, is_procs ? (int32_t)a : INT32_MAX, child};
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

    if (decision_prepare(d)) {
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

/* The smallest unsigned C type holding 0..max. */
static const char *c_type(long max)
{
    return max <= 255     ? "unsigned char"
           : max <= 65535 ? "unsigned short"
                          : "int";
}

/* The interval of x (procs or msg_bytes) on axis a as statements setting
 * VAR; the arrays are named after VAR. */
static void emit_axis(FILE *f, const char *prefix,
                      const struct decision_axis *a, const char *x,
                      const char *var, int indent)
{
    if (a->n_buckets == 1) {
        fprintf(f, "%*sconst int %s = 0; /* no cuts */\n", indent, "", var);
        return;
    }
    int max = 0;
    for (int b = 0; b < a->n_buckets; b++) {
        max = a->first[b] > max ? a->first[b] : max;
    }
    fprintf(f, "%*sstatic const %s %s_first[%d] = {\n", indent, "", c_type(max),
            var, a->n_buckets);
    for (int b = 0; b < a->n_buckets; b++) {
        bool is_line_end = b % 16 == 15 || b == a->n_buckets - 1;
        fprintf(f, "%*s%" PRId32 ",%s", b % 16 ? 0 : indent + 4, "",
                a->first[b], is_line_end ? "\n" : " ");
    }
    fprintf(f, "%*s};\n", indent, "");
    if (a->n_inner) {
        fprintf(f,
                "%*s/* Cuts inside a bucket (padded with the largest "
                "value). */\n",
                indent, "");
        fprintf(f, "%*sstatic const long long %s_inner[%d][%d] = {\n", indent,
                "", var, a->n_buckets, a->n_inner);
        for (int b = 0; b < a->n_buckets; b++) {
            fprintf(f, "%*s{", indent + 4, "");
            for (int i = 0; i < a->n_inner; i++) {
                int64_t cut = a->inner[b * a->n_inner + i];
                /* -9223372036854775808LL is minus an unsigned constant. */
                if (cut == INT64_MIN) {
                    fprintf(f, "%s(-9223372036854775807LL - 1)", i ? ", " : "");
                } else {
                    fprintf(f, "%s%" PRId64 "LL", i ? ", " : "", cut);
                }
            }
            fprintf(f, "},\n");
        }
        fprintf(f, "%*s};\n", indent, "");
    }
    if (a->is_direct) {
        fprintf(f, "%*sunsigned long long %s_bucket = %s_clamp(%s, %d);\n",
                indent, "", var, prefix, x, a->n_buckets - 1);
    } else {
        fprintf(f, "%*sunsigned long long %s_bucket = %s_bucket(%s, %d, %d);\n",
                indent, "", var, prefix, x, a->bits, a->n_buckets - 1);
    }
    fprintf(f, "%*sint %s = %s_first[%s_bucket];\n", indent, "", var, var, var);
    if (a->n_inner) {
        fprintf(f,
                "%*sfor (int i = 0; i < %d; i++) {\n"
                "%*s%s += %s > %s_inner[%s_bucket][i];\n%*s}\n",
                indent, "", a->n_inner, indent + 4, "", var, x, var, var,
                indent, "");
    }
}

/* The decision of collective coll as its flattened form: the interval of
 * procs and of msg_bytes on the tree's cuts, and the method of that
 * rectangle; the tree form when it has too many rectangles. */
static int emit_table(const struct decision *d, FILE *f, const char *prefix,
                      const struct decision_flat *flat, int coll, int indent)
{
    struct cuts pc = {0}, mc = {0};
    if (!flat->cells) {
        const struct region everything = {{INT64_MIN, INT64_MIN},
                                          {INT64_MAX, INT64_MAX}};
        fprintf(f, "%*s/* Too many rectangles or close cuts for a table. */\n",
                indent, "");
        emit_node(d, f, d->roots[coll], everything, indent);
        return 0;
    }
    int rc = root_cuts(d, d->roots[coll], &pc, &mc);
    if (rc == 0 && pc.n == 0 && mc.n == 0) {
        fprintf(f, "%*sreturn %d; /* %s */\n", indent, "", flat->cells[0],
                d->methods[flat->cells[0]]);
    } else if (rc == 0) {
        emit_axis(f, prefix, &flat->procs, "procs", "p", indent);
        emit_axis(f, prefix, &flat->msg, "msg_bytes", "m", indent);
        /* The columns' cuts, wrapped at 80 columns. */
        int col = fprintf(f, "%*s/* Columns: msg_bytes", indent, "");
        for (int m = 0; m < mc.n; m++) {
            char cut[32];
            int len = snprintf(cut, sizeof cut, " <= %" PRId64 ",", mc.v[m]);
            if (col + len > 78) {
                col = fprintf(f, "\n%*s *", indent, "") - 1;
            }
            col += fprintf(f, "%s", cut);
        }
        if (col > 70) {
            fprintf(f, "\n%*s *", indent, "");
        }
        fprintf(f, " above. */\n");
        fprintf(f, "%*sstatic const %s cells[%d][%d] = {\n", indent, "",
                c_type(d->n_methods - 1), pc.n + 1, mc.n + 1);
        for (int p = 0; p <= pc.n; p++) {
            fprintf(f, "%*s{", indent + 4, "");
            for (int m = 0; m <= mc.n; m++) {
                fprintf(f, "%s%d", m ? ", " : "",
                        flat->cells[p * flat->n_msg + m]);
            }
            if (p < pc.n) {
                fprintf(f, "}, /* procs <= %" PRId64 " */\n", pc.v[p]);
            } else {
                fprintf(f, "}, /* above */\n");
            }
        }
        fprintf(f, "%*s};\n", indent, "");
        fprintf(f, "%*sreturn cells[p][m];\n", indent, "");
    }
    free(pc.v);
    free(mc.v);
    return rc;
}

/* The helpers the table form's axes use, each emitted only if used (an
 * unused static function is a warning). */
static void emit_helpers(FILE *f, const char *prefix,
                         const struct decision_flat *flats, int n)
{
    bool is_direct = false, is_log = false;
    for (int c = 0; c < n; c++) {
        const struct decision_axis *axes[] = {&flats[c].procs, &flats[c].msg};
        for (int i = 0; flats[c].cells && i < 2; i++) {
            if (axes[i]->n_buckets == 1) {
                continue; /* no cuts: no bucket */
            }
            is_direct = is_direct || axes[i]->is_direct;
            is_log = is_log || !axes[i]->is_direct;
        }
    }
    if (is_direct) {
        fprintf(f,
                "/* min(x - 1, last), 0 for x <= 0: a bucket per value. */\n"
                "static unsigned long long %s_clamp(long long x, "
                "unsigned long long last)\n{\n"
                "    unsigned long long v = x > 0 ? (unsigned long long)x - 1 "
                ": 0;\n"
                "    return v < last ? v : last;\n}\n\n",
                prefix);
    }
    if (is_log) {
        fprintf(
            f,
            "/* Bucket of v = x - 1 (0 for x <= 0): v itself below 2^(bits + "
            "1),\n * then 2^bits buckets per doubling (v's top bits + 1 "
            "bits), last for all\n * above; cuts at powers of two fall "
            "between buckets. */\n"
            "static unsigned long long %s_bucket(long long x, int bits,\n"
            "    unsigned long long last)\n{\n"
            "    unsigned long long v = x > 0 ? (unsigned long long)x - 1 : "
            "0;\n"
            "#if defined(__GNUC__) || defined(__clang__)\n"
            "    int length = 64 - __builtin_clzll(v | 1);\n"
            "#else\n"
            "    int length = 1;\n"
            "    for (unsigned long long w = v >> 1; w; w >>= 1) {\n"
            "        length++;\n    }\n"
            "#endif\n"
            "    int shift = length - bits - 1;\n"
            "    shift = shift > 0 ? shift : 0;\n"
            "    unsigned long long b = ((unsigned long long)shift << bits) + "
            "(v >> shift);\n"
            "    return b < last ? b : last;\n}\n\n",
            prefix);
    }
}

/* The decision of collective coll, in either form. */
static int emit_root(const struct decision *d, FILE *f, const char *prefix,
                     const struct decision_flat *flats, int coll, int indent)
{
    if (flats) {
        return emit_table(d, f, prefix, &flats[coll], coll, indent);
    }
    const struct region everything = {{INT64_MIN, INT64_MIN},
                                      {INT64_MAX, INT64_MAX}};
    emit_node(d, f, d->roots[coll], everything, indent);
    return 0;
}

int decision_emit_c(const struct decision *d, FILE *f, const char *prefix,
                    const char *comment, enum decision_c_form form)
{
    struct decision_flat *flats = NULL;
    int rc = 0;
    if (form == DECISION_C_TABLE) {
        flats = calloc((size_t)d->n_colls, sizeof *flats);
        if (!flats) {
            fprintf(stderr, "decision: out of memory\n");
            return -1;
        }
        for (int c = 0; c < d->n_colls && rc == 0; c++) {
            rc = flat_build(d, c, &flats[c]); /* reports its own failure */
        }
        if (rc) {
            goto done;
        }
    }
    /* The table form where each collective has one (see flat_build). */
    bool is_table = flats != NULL;
    for (int c = 0; flats && c < d->n_colls; c++) {
        is_table = is_table && flats[c].cells;
    }
    fprintf(f,
            "/* %s\n * Generated by autotune (%s form); methods and "
            "collectives are numbered\n * as in %s_method_name and "
            "%s_collective_name. */\n",
            comment,
            is_table ? "table"
            : flats  ? "table and tree"
                     : "tree",
            prefix, prefix);
    fprintf(f, "int %s_decide(int collective, int procs, long msg_bytes);\n",
            prefix);
    fprintf(f, "const char *%s_method_name(int method);\n", prefix);
    fprintf(f, "const char *%s_collective_name(int collective);\n\n", prefix);
    if (flats) {
        emit_helpers(f, prefix, flats, d->n_colls);
    }
    fprintf(f, "int %s_decide(int collective, int procs, long msg_bytes)\n{\n",
            prefix);
    fprintf(f, "    (void)collective;\n    (void)procs;\n"
               "    (void)msg_bytes;\n");
    bool is_shared = true;
    for (int c = 1; c < d->n_colls; c++) {
        is_shared = is_shared && d->roots[c] == d->roots[0];
    }
    if (is_shared) {
        fprintf(f,
                "    if (collective < 0 || collective >= %d) {\n"
                "        return -1;\n    }\n",
                d->n_colls);
        rc = emit_root(d, f, prefix, flats, 0, 4);
    } else {
        for (int c = 0; c < d->n_colls && rc == 0; c++) {
            fprintf(f, "    if (collective == %d) { /* %s */\n", c,
                    d->colls[c]);
            rc = emit_root(d, f, prefix, flats, c, 8);
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
done:
    for (int c = 0; flats && c < d->n_colls; c++) {
        flat_free(&flats[c]);
    }
    free(flats);
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
