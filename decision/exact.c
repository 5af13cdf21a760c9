/* The exact decision of an optimal table (export --format dec): the
 * table's method at every measured point, by the cut rule the exports
 * share (between two measured sizes, message or communicator, the cut
 * between_table_cuts gives, or without it the next measured one's
 * method), and default/0 for communicator sizes outside the measured ones;
 * one table per (collective, ranks per node) of the rows, each with its
 * measured range. */
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "store/export.h"
#include "store/tables.h"

/* A row and the cut below it (sizes <= cut_below take the method of the
 * next smaller measured size). */
struct exact_row {
    struct measurement m;
    long cut_below, procs_cut_below;
};

struct exact_build {
    struct decision *d;
    const struct exact_row *rows; /* one collective's, sorted */
    int def;                      /* the default/0 method */
};

static int cmp_row(const void *pa, const void *pb)
{
    const struct measurement *a = &((const struct exact_row *)pa)->m;
    const struct measurement *b = &((const struct exact_row *)pb)->m;
    if (a->procs != b->procs) {
        return a->procs < b->procs ? -1 : 1;
    }
    return (a->msg_bytes > b->msg_bytes) - (a->msg_bytes < b->msg_bytes);
}

static int method_of(const struct decision *d, const struct exact_row *row)
{
    const struct measurement *m = &row->m;
    char label[RUN_LABEL_MAX];
    method_label(label, sizeof label, m->algorithm, m->segment_bytes);
    for (int k = 0; k < d->n_methods; k++) {
        if (strcmp(d->methods[k], label) == 0) {
            return k;
        }
    }
    return -1;
}

/* Rows lo..hi-1 of one procs value, runs of one method merged: splits on
 * the last size of each run. */
static int build_row(struct exact_build *b, int node, int lo, int hi)
{
    int last = lo; /* the last row of the first run */
    while (last + 1 < hi && method_of(b->d, &b->rows[last + 1]) ==
                                method_of(b->d, &b->rows[lo])) {
        last++;
    }
    if (last + 1 == hi) {
        decision_set_leaf(b->d, node, method_of(b->d, &b->rows[lo]));
        return 0;
    }
    /* the run boundary nearest the middle: a balanced walk */
    int mid = lo, best = -1;
    for (int i = lo; i + 1 < hi; i++) {
        if (method_of(b->d, &b->rows[i]) != method_of(b->d, &b->rows[i + 1]) &&
            (best < 0 || abs((i - lo) - (hi - i - 2)) < best)) {
            best = abs((i - lo) - (hi - i - 2));
            mid = i;
        }
    }
    int l, h;
    long cut = b->rows[mid + 1].cut_below;
    if (cut < b->rows[mid].m.msg_bytes || cut >= b->rows[mid + 1].m.msg_bytes) {
        cut = b->rows[mid].m.msg_bytes; /* none given: the next size's */
    }
    return decision_add_split(b->d, node, false, cut, &l, &h) ||
           build_row(b, l, lo, mid + 1) || build_row(b, h, mid + 1, hi);
}

/* Rows lo..hi-1 holding procs values first..last (indexes into starts). */
static int build_procs(struct exact_build *b, int node, const int *starts,
                       int first, int last)
{
    if (first == last) {
        return build_row(b, node, starts[first], starts[first + 1]);
    }
    int mid = (first + last) / 2, l, h;
    long cut = b->rows[starts[mid + 1]].procs_cut_below;
    if (cut < b->rows[starts[mid]].m.procs ||
        cut >= b->rows[starts[mid + 1]].m.procs) {
        cut = b->rows[starts[mid]].m.procs; /* none given: the next one's */
    }
    return decision_add_split(b->d, node, true, cut, &l, &h) ||
           build_procs(b, l, starts, first, mid) ||
           build_procs(b, h, starts, mid + 1, last);
}

/* One table's rows (sorted): default/0 below and above the measured
 * communicator sizes, the rows' decision between. */
static int build_collective(struct exact_build *b, int table, int n)
{
    int *starts = malloc((size_t)(n + 1) * sizeof *starts);
    int n_procs = 0, root = decision_add_node(b->d), lo, hi, in, above;
    if (!starts || root < 0) {
        free(starts);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (i == 0 || b->rows[i].m.procs != b->rows[i - 1].m.procs) {
            starts[n_procs++] = i;
        }
    }
    starts[n_procs] = n;
    int rc = decision_add_split(b->d, root, true, b->rows[0].m.procs - 1, &lo,
                                &hi) ||
             decision_add_split(b->d, hi, true, b->rows[n - 1].m.procs, &in,
                                &above) ||
             build_procs(b, in, starts, 0, n_procs - 1);
    if (rc == 0) {
        decision_set_leaf(b->d, lo, b->def);
        decision_set_leaf(b->d, above, b->def);
        decision_set_root(b->d, table, root);
    }
    free(starts);
    return rc ? -1 : 0;
}

/* Row i of the table, then the inserts. */
static const struct measurement *row_or_insert(const struct measurement *rows,
                                               size_t n,
                                               const struct export_insert *ins,
                                               size_t i)
{
    return i < n ? &rows[i] : &ins[i - n].m;
}

/* A row's ranks per node (rows built before them say 0: one). */
static int row_ppn(const struct measurement *m)
{
    return m->ppn > 0 ? m->ppn : 1;
}

/* Adds the ppn of m to the n ascending values of ppn; the new count. */
static int add_ppn(int *ppn, int n, const struct measurement *m)
{
    int v = row_ppn(m), at = n;
    while (at > 0 && ppn[at - 1] > v) {
        at--;
    }
    if (at > 0 && ppn[at - 1] == v) {
        return n;
    }
    memmove(ppn + at + 1, ppn + at, (size_t)(n - at) * sizeof *ppn);
    ppn[at] = v;
    return n + 1;
}

int decision_from_table(const struct measurement *rows, size_t n,
                        const long *msg_cuts, const long *procs_cuts,
                        const struct export_insert *inserts, size_t n_inserts,
                        struct decision **out)
{
    int rc = -1, n_methods = 0, n_colls = 0, n_ppn = 0;
    size_t n_all = n + n_inserts;
    int *ppn = calloc(n + 1, sizeof *ppn);
    char(*labels)[RUN_LABEL_MAX] = calloc(n_all + 1, sizeof *labels);
    const char **methods = calloc(n_all + 1, sizeof *methods);
    const char **colls = calloc(n + 1, sizeof *colls);
    struct exact_row *sorted = malloc((n_all + 1) * sizeof *sorted);
    *out = NULL;
    if (!labels || !methods || !colls || !sorted || !ppn) {
        fprintf(stderr, "autotune: out of memory\n");
        goto done;
    }
    for (size_t i = 0; i <= n_all; i++) {
        char label[RUN_LABEL_MAX];
        if (i < n_all) {
            const struct measurement *m = row_or_insert(rows, n, inserts, i);
            method_label(label, sizeof label, m->algorithm, m->segment_bytes);
        } else {
            method_label(label, sizeof label, STORE_DEFAULT_ALGORITHM, 0);
        }
        int k = 0;
        while (k < n_methods && strcmp(labels[k], label) != 0) {
            k++;
        }
        if (k == n_methods) {
            snprintf(labels[n_methods], sizeof labels[0], "%s", label);
            methods[n_methods] = labels[n_methods];
            n_methods++;
        }
        int c = 0;
        while (i < n && c < n_colls && strcmp(colls[c], rows[i].collective)) {
            c++;
        }
        if (i < n && c == n_colls) {
            colls[n_colls++] = rows[i].collective;
        }
        n_ppn = i < n ? add_ppn(ppn, n_ppn, &rows[i]) : n_ppn;
    }
    if (n_colls == 0) {
        fprintf(stderr, "autotune: an empty optimal table\n");
        goto done;
    }
    if (n_ppn > DECISION_MAX_PPN) {
        fprintf(stderr,
                "autotune: %d ranks per node values (a decision holds at most "
                "%d)\n",
                n_ppn, DECISION_MAX_PPN);
        goto done;
    }
    if (decision_create("exact", n_methods, methods, n_colls, colls, n_ppn, ppn,
                        out)) {
        goto done;
    }
    struct exact_build b = {*out, sorted, -1};
    char def_label[RUN_LABEL_MAX];
    method_label(def_label, sizeof def_label, STORE_DEFAULT_ALGORITHM, 0);
    for (int k = 0; k < n_methods; k++) {
        b.def = strcmp(methods[k], def_label) == 0 ? k : b.def;
    }
    for (int t = 0; t < n_colls * n_ppn; t++) {
        const char *coll = colls[t / n_ppn];
        int at_ppn = ppn[t % n_ppn], count = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(rows[i].collective, coll) == 0 &&
                row_ppn(&rows[i]) == at_ppn) {
                sorted[count].m = rows[i];
                sorted[count].procs_cut_below = procs_cuts ? procs_cuts[i] : -1;
                sorted[count++].cut_below = msg_cuts ? msg_cuts[i] : -1;
            }
        }
        if (count == 0) {
            continue; /* not tuned at this ppn: its root stays -1 */
        }
        /* the measured range: the rows' (an insert past the largest
         * measured size is predicted there, not measured) */
        struct decision_range range = {sorted[0].m.procs, sorted[0].m.procs,
                                       sorted[0].m.msg_bytes,
                                       sorted[0].m.msg_bytes};
        for (int i = 1; i < count; i++) {
            const struct measurement *m = &sorted[i].m;
            range.procs_min =
                m->procs < range.procs_min ? m->procs : range.procs_min;
            range.procs_max =
                m->procs > range.procs_max ? m->procs : range.procs_max;
            range.msg_min =
                m->msg_bytes < range.msg_min ? m->msg_bytes : range.msg_min;
            range.msg_max =
                m->msg_bytes > range.msg_max ? m->msg_bytes : range.msg_max;
        }
        for (size_t i = 0; i < n_inserts; i++) {
            if (strcmp(inserts[i].m.collective, coll) == 0 &&
                row_ppn(&inserts[i].m) == at_ppn) {
                sorted[count].m = inserts[i].m;
                sorted[count].procs_cut_below = -1;
                sorted[count++].cut_below = inserts[i].cut_below;
            }
        }
        qsort(sorted, (size_t)count, sizeof *sorted, cmp_row);
        if (build_collective(&b, t, count) ||
            decision_set_range(*out, t, &range)) {
            goto done;
        }
    }
    rc = decision_prepare(*out);
done:
    if (rc != 0) {
        decision_destroy(*out);
        *out = NULL;
    }
    free(labels);
    free(methods);
    free(colls);
    free(sorted);
    free(ppn);
    return rc;
}

int export_dec(FILE *out, const struct measurement *rows, size_t n,
               const struct export_context *ctx)
{
    struct decision *d = NULL;
    if (decision_from_table(rows, n, ctx->msg_cuts, ctx->procs_cuts,
                            ctx->inserts, ctx->n_inserts, &d) != 0) {
        return -1;
    }
    d->chain_fanout = ctx->chain_fanout;
    int rc = decision_write(d, out);
    decision_destroy(d);
    return rc;
}
