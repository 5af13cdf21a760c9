/* The run directory's tables (measurements.csv, optimal.csv). Files are
 * replaced atomically, never half written. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/rundir.h"
#include "store/tables.h"
#include "util/grow.h"

/* Every table names the point by collective, procs (the communicator's
 * size), ppn (its ranks per node) and msg_bytes. Tables written before
 * ranks per node were tuned have no ppn column: read as one rank per
 * node. */
#define POINT_COLUMNS "collective,procs,ppn,msg_bytes"
#define LEGACY_POINT_COLUMNS "collective,procs,msg_bytes"
#define MEASUREMENTS_COLUMNS                                                   \
    ",algorithm,segment_bytes,reps,mean_us,median_us,min_us,max_us,sd_us,"     \
    "cost_s"
#define OPTIMAL_COLUMNS ",algorithm,segment_bytes,time_us"
#define PREDICTED_COLUMNS ",algorithm,segment_bytes,predicted_us"
#define INFERRED_COLUMNS                                                       \
    ",algorithm,segment_bytes,predicted_us,uncertainty,penalty"
/* The column of an adaptive grid's table: 1 measured, 0 inferred. */
#define OPTIMAL_MARK ",measured"

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
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: exists and is not a directory\n", path);
        return -1;
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
    /* Errors name path, the file the user asked for, not its temporary. */
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
        return -1;
    }
    if (write(f, arg) != 0 || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fprintf(stderr, "%s: write failed: %s\n", path, strerror(errno));
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

void table_print_point(FILE *f, const struct measurement *m)
{
    fprintf(f, "%s,%d,%d,%ld,%s,%d", m->collective, m->procs, m->ppn,
            m->msg_bytes, m->algorithm, m->segment_bytes);
}

static int write_measurements_csv(FILE *f, const void *arg)
{
    const struct rows *r = arg;
    fprintf(f, "%s\n", POINT_COLUMNS MEASUREMENTS_COLUMNS);
    for (size_t i = 0; i < r->n; i++) {
        const struct measurement *m = &r->rows[i];
        table_print_point(f, m);
        fprintf(f, ",%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f\n", m->reps, m->mean_us,
                m->median_us, m->min_us, m->max_us, m->sd_us, m->cost_s);
    }
    return ferror(f) ? -1 : 0;
}

static int write_optimal_rows(FILE *f, const struct rows *r, bool is_marked)
{
    fprintf(f, "%s%s\n", POINT_COLUMNS OPTIMAL_COLUMNS,
            is_marked ? OPTIMAL_MARK : "");
    for (size_t i = 0; i < r->n; i++) {
        const struct measurement *m = &r->rows[i];
        table_print_point(f, m);
        fprintf(f, ",%.3f", m->mean_us);
        fprintf(f, is_marked ? ",%d\n" : "\n", m->reps > 0);
    }
    return ferror(f) ? -1 : 0;
}

static int write_optimal_csv(FILE *f, const void *arg)
{
    return write_optimal_rows(f, arg, false);
}

static int write_optimal_marked_csv(FILE *f, const void *arg)
{
    return write_optimal_rows(f, arg, true);
}

struct inferred_rows {
    const struct measurement *rows;
    const struct inferred_info *info;
    size_t n;
};

static int write_inferred_csv(FILE *f, const void *arg)
{
    const struct inferred_rows *r = arg;
    fprintf(f, "%s\n", POINT_COLUMNS INFERRED_COLUMNS);
    for (size_t i = 0; i < r->n; i++) {
        const struct measurement *m = &r->rows[i];
        const struct inferred_info *x = &r->info[i];
        if (m->reps > 0) {
            continue;
        }
        table_print_point(f, m);
        fprintf(f, ",%.3f,%.4f,", m->mean_us, x->uncertainty);
        fprintf(f, isinf(x->penalty) ? "inf\n" : "%.4f\n", x->penalty);
    }
    return ferror(f) ? -1 : 0;
}

int table_write_inferred(const char *path, const struct measurement *rows,
                         const struct inferred_info *info, size_t n)
{
    struct inferred_rows r = {rows, info, n};
    return store_write_file(path, write_inferred_csv, &r);
}

int table_print_optimal(FILE *f, const struct measurement *rows, size_t n)
{
    struct rows r = {rows, n};
    return write_optimal_csv(f, &r);
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

int table_write_optimal_marked(const char *path, const struct measurement *rows,
                               size_t n)
{
    struct rows r = {rows, n};
    return store_write_file(path, write_optimal_marked_csv, &r);
}

/* A row with or without the measured column (reps 1 or 0; 1 without). */
static int parse_optimal_row(const char *line, struct measurement *m)
{
    int used = 0, is_measured = 1, marked = 0;
    if (sscanf(line, "%31[^,],%d,%d,%ld,%127[^,],%d,%lf%n", m->collective,
               &m->procs, &m->ppn, &m->msg_bytes, m->algorithm,
               &m->segment_bytes, &m->mean_us, &used) != 7) {
        return -1;
    }
    if (line[used] == ',' &&
        (sscanf(line + used, ",%d%n", &is_measured, &marked) != 1 ||
         (is_measured != 0 && is_measured != 1))) {
        return -1;
    }
    m->reps = is_measured;
    return line[used + marked] == '\0' ? 0 : -1;
}

static int parse_measurement_row(const char *line, struct measurement *m)
{
    int used = 0;
    if (sscanf(line,
               "%31[^,],%d,%d,%ld,%127[^,],%d,%d,%lf,%lf,%lf,%lf,%lf,%lf%n",
               m->collective, &m->procs, &m->ppn, &m->msg_bytes, m->algorithm,
               &m->segment_bytes, &m->reps, &m->mean_us, &m->median_us,
               &m->min_us, &m->max_us, &m->sd_us, &m->cost_s, &used) != 13 ||
        line[used] != '\0') {
        return -1;
    }
    return 0;
}

/* A predicted.csv row: the prediction is every time of the row. */
static int parse_predicted_row(const char *line, struct measurement *m)
{
    int used = 0;
    if (sscanf(line, "%31[^,],%d,%d,%ld,%127[^,],%d,%lf%n", m->collective,
               &m->procs, &m->ppn, &m->msg_bytes, m->algorithm,
               &m->segment_bytes, &m->mean_us, &used) != 7 ||
        line[used] != '\0' || !(m->mean_us >= 0) || !isfinite(m->mean_us)) {
        return -1; /* a prediction is a time */
    }
    m->median_us = m->min_us = m->max_us = m->mean_us;
    return 0;
}

/* A row of a table without the ppn column, with one: ",1" after procs. */
static int add_ppn_column(char *line, size_t size)
{
    char *second = strchr(line, ',');
    char *third = second ? strchr(second + 1, ',') : NULL;
    size_t len = strlen(line);
    if (!third || len + 3 > size) {
        return -1;
    }
    memmove(third + 2, third, strlen(third) + 1);
    memcpy(third, ",1", 2);
    return 0;
}

/* Whether line is the header POINT_COLUMNS columns (is_legacy: without
 * the ppn column), with mark after it when is_marked. */
static bool is_header(const char *line, const char *columns, bool is_legacy,
                      const char *mark)
{
    const char *point = is_legacy ? LEGACY_POINT_COLUMNS : POINT_COLUMNS;
    size_t n_point = strlen(point), n_columns = strlen(columns);
    return strncmp(line, point, n_point) == 0 &&
           strncmp(line + n_point, columns, n_columns) == 0 &&
           strcmp(line + n_point + n_columns, mark) == 0;
}

/* Reads a table whose first line is the point's columns and then columns
 * and whose rows parse_row reads; every row read is an applicable
 * measurement. */
static int read_table(const char *path, const char *columns, const char *what,
                      int (*parse_row)(const char *, struct measurement *),
                      struct measurement **rows, size_t *n)
{
    char line[512];
    int lineno = 0, rc = -1;
    bool is_legacy = false;
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
            const char *mark =
                parse_row == parse_optimal_row ? OPTIMAL_MARK : "";
            bool is_known = false;
            for (int legacy = 0; legacy < 2 && !is_known; legacy++) {
                is_legacy = legacy;
                is_known = is_header(line, columns, is_legacy, "") ||
                           is_header(line, columns, is_legacy, mark);
            }
            if (!is_known) {
                fprintf(stderr, "%s:1: not %s\n", path, what);
                goto done;
            }
            continue;
        }
        struct measurement *grown =
            grow(*rows, &cap, *n + 1, sizeof *grown, 64);
        if (!grown) {
            fprintf(stderr, "%s: out of memory\n", path);
            goto done;
        }
        *rows = grown;
        struct measurement *m = &(*rows)[*n];
        memset(m, 0, sizeof *m);
        if ((is_legacy && add_ppn_column(line, sizeof line) != 0) ||
            parse_row(line, m) != 0 || m->ppn < 1 || m->procs % m->ppn != 0) {
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
    return read_table(path, OPTIMAL_COLUMNS, "an optimal-method table",
                      parse_optimal_row, rows, n);
}

int table_read_predicted(const char *path, struct measurement **rows, size_t *n)
{
    return read_table(path, PREDICTED_COLUMNS, "a predicted-times table",
                      parse_predicted_row, rows, n);
}

bool table_is_default_faster(const struct measurement *optimum,
                             const struct measurement *library)
{
    return library && library->is_applicable &&
           strcmp(library->algorithm, STORE_DEFAULT_ALGORITHM) == 0 &&
           strcmp(optimum->algorithm, STORE_DEFAULT_ALGORITHM) != 0 &&
           library->mean_us < optimum->mean_us;
}

static bool same_point(const struct measurement *a, const struct measurement *b)
{
    return a->procs == b->procs && a->ppn == b->ppn &&
           a->msg_bytes == b->msg_bytes &&
           strcmp(a->collective, b->collective) == 0;
}

size_t table_prefer_default(struct measurement *opt, size_t n_opt,
                            const struct measurement *meas, size_t n_meas)
{
    size_t changed = 0, from = 0;
    for (size_t i = 0; i < n_meas; i++) {
        const struct measurement *d = &meas[i];
        if (strcmp(d->algorithm, STORE_DEFAULT_ALGORITHM) != 0) {
            continue;
        }
        /* Both tables run in grid order: look from the last match on. */
        for (size_t k = 0; k < n_opt; k++) {
            size_t o = (from + k) % n_opt;
            if (same_point(&opt[o], d)) {
                if (table_is_default_faster(&opt[o], d)) {
                    opt[o] = *d;
                    changed++;
                }
                from = o;
                break;
            }
        }
    }
    return changed;
}

int table_read_measurements(const char *path, struct measurement **rows,
                            size_t *n)
{
    return read_table(path, MEASUREMENTS_COLUMNS, "a measurements table",
                      parse_measurement_row, rows, n);
}
