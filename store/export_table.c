/* The library-neutral exports of the optimal-method table: CSV and JSON,
 * each row with its ranks per node; and which ranks per node a table
 * holds. */
#include <stdio.h>
#include <stdlib.h>

#include "store/export.h"
#include "store/tables.h"

static int int_compare(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

int export_is_single_node(const struct measurement *m)
{
    return m->ppn > 1 && m->procs == m->ppn;
}

int export_ppn_values(const struct measurement *rows, size_t n,
                      const struct export_context *ctx, int is_spread_only,
                      int **values, int *n_values)
{
    size_t total = n + ctx->n_inserts;
    int *v = malloc((total ? total : 1) * sizeof *v);
    *values = NULL;
    *n_values = 0;
    if (!v) {
        return -1;
    }
    size_t kept = 0;
    for (size_t i = 0; i < total; i++) {
        const struct measurement *m = i < n ? &rows[i] : &ctx->inserts[i - n].m;
        if (!is_spread_only || !export_is_single_node(m)) {
            v[kept++] = m->ppn;
        }
    }
    total = kept;
    qsort(v, total, sizeof *v, int_compare);
    int k = 0;
    for (size_t i = 0; i < total; i++) {
        if (k == 0 || v[k - 1] != v[i]) {
            v[k++] = v[i];
        }
    }
    *values = v;
    *n_values = k;
    return 0;
}

int export_keeps(const struct export_context *ctx, const struct measurement *m)
{
    return ctx->ppn == 0 || m->ppn == ctx->ppn ||
           (ctx->ppn == EXPORT_PPN_SINGLE_NODE && export_is_single_node(m));
}

int export_csv(FILE *out, const struct measurement *rows, size_t n,
               const struct export_context *ctx)
{
    if (ctx->ppn == 0) {
        return table_print_optimal(out, rows, n);
    }
    struct measurement *kept = malloc((n ? n : 1) * sizeof *kept);
    size_t n_kept = 0;
    if (!kept) {
        fprintf(stderr, "%s: out of memory\n", ctx->source);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (export_keeps(ctx, &rows[i])) {
            kept[n_kept++] = rows[i];
        }
    }
    int rc = table_print_optimal(out, kept, n_kept);
    free(kept);
    return rc;
}

int export_json(FILE *out, const struct measurement *rows, size_t n,
                const struct export_context *ctx)
{
    char label[STORE_LABEL_MAX];
    const char *sep = "";
    fprintf(out, "[");
    for (size_t i = 0; i < n; i++) {
        const struct measurement *m = &rows[i];
        if (!export_keeps(ctx, m)) {
            continue;
        }
        method_label(label, sizeof label, m->algorithm, m->segment_bytes);
        fprintf(out,
                "%s\n  {\"collective\": \"%s\", \"procs\": %d, \"ppn\": %d, "
                "\"msg_bytes\": %ld, \"algorithm\": \"%s\", "
                "\"segment_bytes\": %d, \"method\": \"%s\", "
                "\"time_us\": %.3f}",
                sep, m->collective, m->procs, m->ppn, m->msg_bytes,
                m->algorithm, m->segment_bytes, label, m->mean_us);
        sep = ",";
    }
    fprintf(out, "\n]\n");
    return ferror(out) ? -1 : 0;
}
