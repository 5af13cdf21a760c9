/* The run directory's tables (measurements.csv, optimal.csv) and the
 * optimal-method exports. Files are replaced atomically, never half written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"

#define MEASUREMENTS_HEADER                                                    \
    "collective,procs,msg_bytes,algorithm,segment_bytes,reps,mean_us,"         \
    "median_us,min_us,max_us,sd_us,cost_s"
#define OPTIMAL_HEADER                                                         \
    "collective,procs,msg_bytes,algorithm,segment_bytes,time_us"

void method_label(char *buf, size_t size, const char *algorithm,
                  int segment_bytes)
{
    snprintf(buf, size, "%s/%d", algorithm, segment_bytes);
}

int store_make_dir(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        fprintf(stderr, "%s: path too long\n", path);
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                fprintf(stderr, "%s: cannot create directory: %s\n", buf,
                        strerror(errno));
                return -1;
            }
            *p = c;
            if (!c) {
                break;
            }
        }
    }
    if (access(path, W_OK | X_OK) != 0) {
        fprintf(stderr, "%s: directory is not writable: %s\n", path,
                strerror(errno));
        return -1;
    }
    return 0;
}

int store_write_file(const char *path, int (*write)(FILE *, const void *),
                     const void *arg)
{
    char tmp[4096];
    int rc = -1;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        fprintf(stderr, "%s: path too long\n", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
        return -1;
    }
    if (write(f, arg) != 0 || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fprintf(stderr, "%s: write failed: %s\n", tmp, strerror(errno));
        fclose(f);
        goto done;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        goto done;
    }
    rc = 0;
done:
    if (rc != 0) {
        unlink(tmp);
    }
    return rc;
}

struct rows {
    const struct measurement *rows;
    size_t n;
};

static int write_measurements_csv(FILE *f, const void *arg)
{
    const struct rows *r = arg;
    fprintf(f, "%s\n", MEASUREMENTS_HEADER);
    for (size_t i = 0; i < r->n; i++) {
        const struct measurement *m = &r->rows[i];
        fprintf(f, "%s,%d,%ld,%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f\n",
                m->collective, m->procs, m->msg_bytes, m->algorithm,
                m->segment_bytes, m->reps, m->mean_us, m->median_us, m->min_us,
                m->max_us, m->sd_us, m->cost_s);
    }
    return ferror(f) ? -1 : 0;
}

static int write_optimal_csv(FILE *f, const void *arg)
{
    const struct rows *r = arg;
    fprintf(f, "%s\n", OPTIMAL_HEADER);
    for (size_t i = 0; i < r->n; i++) {
        const struct measurement *m = &r->rows[i];
        fprintf(f, "%s,%d,%ld,%s,%d,%.3f\n", m->collective, m->procs,
                m->msg_bytes, m->algorithm, m->segment_bytes, m->mean_us);
    }
    return ferror(f) ? -1 : 0;
}

int table_write_measurements(const char *path, const struct measurement *rows,
                             size_t n)
{
    struct rows r = {rows, n};
    return store_write_file(path, write_measurements_csv, &r);
}

int table_write_optimal(const char *path, const struct measurement *rows,
                        size_t n)
{
    struct rows r = {rows, n};
    return store_write_file(path, write_optimal_csv, &r);
}

static int parse_optimal_row(const char *line, struct measurement *m)
{
    int used = 0;
    if (sscanf(line, "%31[^,],%d,%ld,%31[^,],%d,%lf%n", m->collective,
               &m->procs, &m->msg_bytes, m->algorithm, &m->segment_bytes,
               &m->mean_us, &used) != 6 ||
        line[used] != '\0') {
        return -1;
    }
    return 0;
}

static int parse_measurement_row(const char *line, struct measurement *m)
{
    int used = 0;
    if (sscanf(line, "%31[^,],%d,%ld,%31[^,],%d,%d,%lf,%lf,%lf,%lf,%lf,%lf%n",
               m->collective, &m->procs, &m->msg_bytes, m->algorithm,
               &m->segment_bytes, &m->reps, &m->mean_us, &m->median_us,
               &m->min_us, &m->max_us, &m->sd_us, &m->cost_s, &used) != 12 ||
        line[used] != '\0') {
        return -1;
    }
    return 0;
}

/* Reads a table whose first line is header and whose rows parse_row reads;
 * every row read is an applicable measurement. */
static int read_table(const char *path, const char *header, const char *what,
                      int (*parse_row)(const char *, struct measurement *),
                      struct measurement **rows, size_t *n)
{
    char line[512];
    int lineno = 0, rc = -1;
    size_t cap = 0;
    *rows = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (lineno == 1) {
            if (strcmp(line, header) != 0) {
                fprintf(stderr, "%s:1: not %s\n", path, what);
                goto done;
            }
            continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            struct measurement *grown = realloc(*rows, cap * sizeof **rows);
            if (!grown) {
                fprintf(stderr, "%s: out of memory\n", path);
                goto done;
            }
            *rows = grown;
        }
        struct measurement *m = &(*rows)[*n];
        memset(m, 0, sizeof *m);
        if (parse_row(line, m) != 0) {
            fprintf(stderr, "%s:%d: malformed row\n", path, lineno);
            goto done;
        }
        m->is_applicable = 1;
        (*n)++;
    }
    if (lineno == 0) {
        fprintf(stderr, "%s: empty file\n", path);
        goto done;
    }
    rc = 0;
done:
    fclose(f);
    if (rc != 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

int table_read_optimal(const char *path, struct measurement **rows, size_t *n)
{
    return read_table(path, OPTIMAL_HEADER, "an optimal-method table",
                      parse_optimal_row, rows, n);
}

int table_read_run_optimal(const char *run, const char *command,
                           struct measurement **rows, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/optimal.csv", run);
    if (table_read_optimal(path, rows, n) != 0) {
        fprintf(stderr,
                "autotune %s: %s has no complete optimal table (run or "
                "resume the sweep first)\n",
                command, run);
        return -1;
    }
    return 0;
}

int table_read_measurements(const char *path, struct measurement **rows,
                            size_t *n)
{
    return read_table(path, MEASUREMENTS_HEADER, "a measurements table",
                      parse_measurement_row, rows, n);
}

static int export_csv(FILE *out, const struct measurement *rows, size_t n,
                      const struct export_context *ctx)
{
    (void)ctx;
    struct rows r = {rows, n};
    return write_optimal_csv(out, &r);
}

static int export_json(FILE *out, const struct measurement *rows, size_t n,
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
