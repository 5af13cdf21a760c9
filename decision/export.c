/* The export formats, one row each, and the export itself: written to
 * memory, checked as the target library would read it, then stored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "store/export.h"
#include "store/tables.h"

const struct export_format export_formats[] = {
    {"csv", export_csv, NULL, NULL, EXPORT_PPN_KEYED,
     "the optimal-method table as CSV (optimal.csv)"},
    {"json", export_json, NULL, NULL, EXPORT_PPN_KEYED,
     "the optimal-method table as a JSON array"},
    {"ompi", export_ompi, export_check_ompi, "Open MPI", EXPORT_PPN_ONE,
     "Open MPI coll/tuned dynamic rules, classic format (4.1, 5.0)"},
    {"ompi-v2", export_ompi_v2, export_check_ompi, "Open MPI", EXPORT_PPN_ONE,
     "the same with rule-file-version-2 and max requests (4.1.8+, 5.0.7+)"},
    {"ompi-json", export_ompi_json, export_check_ompi_json, "Open MPI",
     EXPORT_PPN_DISTRIBUTIONS,
     "Open MPI coll/tuned rules in the JSON format of 6.0"},
    {"dec", export_dec, NULL, NULL, EXPORT_PPN_ALL,
     "the exact decision (decision/decision.h's .dec file), for "
     "libautotune"},
    {"mpich", export_mpich, export_check_mpich, "MPICH", EXPORT_PPN_KEYED,
     "MPICH collective selection JSON (MPIR_CVAR_COLL_SELECTION_TUNING_"
     "JSON_FILE)"},
};
const int export_formats_size =
    (int)(sizeof export_formats / sizeof export_formats[0]);

const struct export_format *export_find(const char *name)
{
    for (int i = 0; i < export_formats_size; i++) {
        if (strcmp(export_formats[i].name, name) == 0) {
            return &export_formats[i];
        }
    }
    return NULL;
}

struct export_text {
    const char *text;
    size_t len;
};

static int write_text(FILE *f, const void *arg)
{
    const struct export_text *t = arg;
    return fwrite(t->text, 1, t->len, f) == t->len ? 0 : -1;
}

/* The journal writes the library's name with '_' for spaces. */
static int library_is(const char *measured, const char *name)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", measured);
    for (char *p = buf; *p; p++) {
        *p = *p == '_' ? ' ' : *p;
    }
    return strstr(buf, name) != NULL;
}

/* "1, 8, 32": values[skip..n-1]. */
static void ppn_list(char *buf, size_t size, const int *values, int n, int skip)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = skip; i < n && len < size; i++) {
        int k = snprintf(buf + len, size - len, "%s%d", i > skip ? ", " : "",
                         values[i]);
        len += k > 0 ? (size_t)k : 0;
    }
}

/* The ranks per node the file holds, by what the format can say of them
 * (export_formats[].ppn): ctx->ppn set to the one value a format without
 * a ranks-per-node key exports. 0, or 2 (a usage error, said in one line)
 * when --ppn names a value the table lacks or the format cannot hold every
 * value of the table and --ppn does not pick one; -1 out of memory. */
static int choose_ppn(const struct export_format *format,
                      const struct measurement *rows, size_t n,
                      struct export_context *ctx)
{
    int *values = NULL, n_values = 0, *spread = NULL, n_spread = 0, rc = 2;
    char list[512];
    if (export_ppn_values(rows, n, ctx, 0, &values, &n_values) != 0 ||
        export_ppn_values(rows, n, ctx, 1, &spread, &n_spread) != 0) {
        free(values);
        fprintf(stderr, "autotune export: out of memory\n");
        return -1;
    }
    int has_1 = n_spread > 0 && spread[0] == 1;
    ppn_list(list, sizeof list, values, n_values, 0);
    int is_known = ctx->ppn == 0;
    for (int i = 0; i < n_values; i++) {
        is_known |= values[i] == ctx->ppn;
    }
    if (ctx->ppn > 0 && format->ppn == EXPORT_PPN_ALL) {
        fprintf(stderr,
                "autotune export: --ppn: the %s format holds every ranks "
                "per node of %s (%s); it takes no --ppn\n",
                format->name, ctx->source, list);
    } else if (!is_known) {
        fprintf(stderr,
                "autotune export: --ppn %d: %s has ranks per node %s only\n",
                ctx->ppn, ctx->source, list);
    } else if (ctx->ppn == 0 && format->ppn == EXPORT_PPN_ONE && n_values > 1) {
        fprintf(stderr,
                "autotune export: %s has ranks per node %s; the %s format "
                "has no ranks-per-node key: export one with --ppn N\n",
                ctx->source, list, format->name);
    } else if (ctx->ppn == 0 && format->ppn == EXPORT_PPN_DISTRIBUTIONS &&
               n_spread - has_1 > 1) {
        ppn_list(list, sizeof list, spread, n_spread, has_1);
        fprintf(stderr,
                "autotune export: %s has ranks per node %s on several nodes%s; "
                "the %s format holds one of them for every communicator "
                "(one rank per node and one node apart): export one with "
                "--ppn N\n",
                ctx->source, list, has_1 ? " besides 1" : "", format->name);
    } else {
        if (ctx->ppn == 0 && format->ppn == EXPORT_PPN_ONE && n_values == 1) {
            ctx->ppn = values[0];
        }
        rc = 0;
    }
    free(values);
    free(spread);
    return rc;
}

int export_write(const struct export_format *format, const char *out_path,
                 const struct measurement *rows, size_t n,
                 const struct export_context *ctx)
{
    if (format->library && strcmp(ctx->backend, "own") != 0 &&
        !library_is(ctx->library, format->library)) {
        fprintf(stderr,
                "autotune export: %s was measured with the %s backend of %s; "
                "those are not %s's algorithms, so it cannot be exported as "
                "%s\n",
                ctx->source, ctx->backend,
                *ctx->library ? ctx->library : "another library",
                format->library, format->name);
        return -1;
    }
    struct export_context c = *ctx;
    int rc = choose_ppn(format, rows, n, &c);
    if (rc != 0) {
        return rc;
    }
    ctx = &c;
    char *text = NULL;
    size_t len = 0;
    rc = -1;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        fprintf(stderr, "autotune export: out of memory\n");
        return -1;
    }
    int wrote = format->write(mem, rows, n, ctx);
    if (fclose(mem) != 0 || wrote != 0) {
        goto done;
    }
    char what[64];
    snprintf(what, sizeof what, "generated %s file", format->name);
    if (format->check && format->check(text, len, what) != 0) {
        fprintf(stderr,
                "autotune export: the %s file fails the check %s applies to "
                "it; nothing written\n",
                format->name, format->library);
        goto done;
    }
    struct export_text t = {text, len};
    rc = out_path ? store_write_file(out_path, write_text, &t)
                  : write_text(stdout, &t);
done:
    free(text);
    return rc;
}
