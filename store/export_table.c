/* The library-neutral exports of the optimal-method table: CSV and JSON. */
#include <stdio.h>

#include "store/export.h"
#include "store/tables.h"

int export_csv(FILE *out, const struct measurement *rows, size_t n,
               const struct export_context *ctx)
{
    (void)ctx;
    return table_print_optimal(out, rows, n);
}

int export_json(FILE *out, const struct measurement *rows, size_t n,
                const struct export_context *ctx)
{
    (void)ctx;
    char label[2 * STORE_NAME_MAX];
    fprintf(out, "[\n");
    for (size_t i = 0; i < n; i++) {
        const struct measurement *m = &rows[i];
        method_label(label, sizeof label, m->algorithm, m->segment_bytes);
        fprintf(out,
                "  {\"collective\": \"%s\", \"procs\": %d, \"msg_bytes\": "
                "%ld, \"algorithm\": \"%s\", \"segment_bytes\": %d, "
                "\"method\": \"%s\", \"time_us\": %.3f}%s\n",
                m->collective, m->procs, m->msg_bytes, m->algorithm,
                m->segment_bytes, label, m->mean_us, i + 1 < n ? "," : "");
    }
    fprintf(out, "]\n");
    return ferror(out) ? -1 : 0;
}
