/* The flattened form of a decision: each collective's cuts as bucket tables
 * and the method of every rectangle they make, so that decision_lookup takes
 * no data-dependent branch. Every test compares with one of the cuts. */
#include <stdio.h>
#include <stdlib.h>

#include "decision/decision.h"
#include "decision/internal.h"
#include "util/grow.h"

static int cuts_add(struct decision_cuts *c, int64_t v)
{
    int64_t *grown = grow(c->v, &c->cap, (size_t)c->n + 1, sizeof *grown, 16);
    if (!grown) {
        fprintf(stderr, "decision: out of memory\n");
        return -1;
    }
    c->v = grown;
    c->v[c->n++] = v;
    return 0;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int collect_cuts(const struct decision *d, int node,
                        struct decision_cuts *procs, struct decision_cuts *msgs)
{
    const struct decision_node *n = &d->nodes[node];
    enum node_kind k = decision_node_kind(d, node);
    if (((k == NODE_PROCS || k == NODE_QUAD) &&
         cuts_add(procs, n->procs_cut)) ||
        ((k == NODE_MSG || k == NODE_QUAD) && cuts_add(msgs, n->msg_cut))) {
        return -1;
    }
    int children[4];
    int count = decision_children(d, node, children);
    for (int c = 0; c < count; c++) {
        if (collect_cuts(d, children[c], procs, msgs)) {
            return -1;
        }
    }
    return 0;
}

static void cuts_sort_unique(struct decision_cuts *c)
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
static int64_t interval_value(const struct decision_cuts *c, int k)
{
    return k < c->n ? c->v[k] : c->n ? c->v[c->n - 1] + 1 : 1;
}

int decision_root_cuts(const struct decision *d, int root,
                       struct decision_cuts *procs, struct decision_cuts *msgs)
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
static int most_inner(const struct decision_cuts *c, int bits)
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
static int axis_build(struct decision_axis *a, const struct decision_cuts *c)
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

void decision_flat_free(struct decision_flat *f)
{
    axis_free(&f->procs);
    axis_free(&f->msg);
    free(f->cells);
}

int decision_flat_build(const struct decision *d, int table,
                        struct decision_flat *f)
{
    struct decision_cuts pc = {0}, mc = {0};
    *f = (struct decision_flat){0};
    if (d->roots[table] < 0) {
        return 0; /* nothing to look up */
    }
    int rc = decision_root_cuts(d, d->roots[table], &pc, &mc);
    size_t n_cells = (size_t)(pc.n + 1) * (size_t)(mc.n + 1);
    if (rc == 0 && n_cells <= FLAT_MAX_CELLS && d->n_methods <= UINT16_MAX) {
        rc = axis_build(&f->procs, &pc) || axis_build(&f->msg, &mc) ? -1 : 0;
        f->n_msg = mc.n + 1;
        if (rc == 0 && (f->procs.n_inner > AXIS_MAX_INNER ||
                        f->msg.n_inner > AXIS_MAX_INNER)) {
            decision_flat_free(f);
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
                    d, table, (int)interval_value(&pc, p),
                    (long)interval_value(&mc, m));
            }
        }
    }
    if (rc) {
        decision_flat_free(f);
        *f = (struct decision_flat){0};
    }
    free(pc.v);
    free(mc.v);
    return rc;
}

void decision_drop_flat(struct decision *d)
{
    for (int c = 0; d->flat && c < d->n_colls * d->n_ppn; c++) {
        decision_flat_free(&d->flat[c]);
    }
    free(d->flat);
    d->flat = NULL;
}

int decision_prepare(struct decision *d)
{
    decision_drop_flat(d);
    int n_tables = d->n_colls * d->n_ppn;
    d->flat = calloc((size_t)n_tables, sizeof *d->flat);
    if (!d->flat) {
        fprintf(stderr, "decision: out of memory\n");
        return -1;
    }
    for (int c = 0; c < n_tables; c++) {
        if (decision_flat_build(d, c, &d->flat[c])) {
            decision_drop_flat(d);
            return -1;
        }
    }
    return 0;
}
