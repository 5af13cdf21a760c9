/* The export formats, one row each, and the export itself: written to
 * memory, checked as the target library would read it, then stored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "store/export.h"
#include "store/tables.h"

const struct export_format export_formats[] = {
    {"csv", export_csv, NULL, NULL,
     "the optimal-method table as CSV (optimal.csv)"},
    {"json", export_json, NULL, NULL,
     "the optimal-method table as a JSON array"},
    {"ompi", export_ompi, export_check_ompi, "Open MPI",
     "Open MPI coll/tuned dynamic rules, classic format (4.1, 5.0)"},
    {"ompi-v2", export_ompi_v2, export_check_ompi, "Open MPI",
     "the same with rule-file-version-2 and max requests (4.1.8+, 5.0.7+)"},
    {"ompi-json", export_ompi_json, export_check_ompi_json, "Open MPI",
     "Open MPI coll/tuned rules in the JSON format of 6.0"},
    {"dec", export_dec, NULL, NULL,
     "the exact decision (decision/decision.h's .dec file), for "
     "libautotune"},
    {"mpich", export_mpich, export_check_mpich, "MPICH",
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
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
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
