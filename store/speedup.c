/* speedup.csv: at each point, how far the tuned choice is ahead of the MPI
 * library's default decision (the journal's default/0 record). */
#include <stdlib.h>
#include <string.h>

#include "store/tables.h"

#define SPEEDUP_HEADER                                                         \
    "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us,"          \
    "default_us,speedup"

int speedup_rows_build(const struct journal *j, const struct measurement *opt,
                       size_t n_opt, struct speedup_row **rows, size_t *n)
{
    *n = 0;
    *rows = NULL;
    if (n_opt == 0) {
        return 0;
    }
    *rows = malloc(n_opt * sizeof **rows);
    if (!*rows) {
        return -1;
    }
    for (size_t i = 0; i < n_opt; i++) {
        const struct measurement *o = &opt[i];
        const struct measurement *d =
            journal_find(j, o->collective, o->procs, o->ppn, o->msg_bytes,
                         STORE_DEFAULT_ALGORITHM, 0);
        if (!d || !d->is_applicable || !(o->mean_us > 0)) {
            continue;
        }
        /* The journal's record of the choice, where it has one: optimal.csv
         * rounds times to 1 ns, which made a point whose optimum is the
         * default itself look slower than the default. */
        const struct measurement *t =
            journal_find(j, o->collective, o->procs, o->ppn, o->msg_bytes,
                         o->algorithm, o->segment_bytes);
        double time_us =
            t && t->is_applicable && t->mean_us > 0 ? t->mean_us : o->mean_us;
        struct speedup_row *r = &(*rows)[(*n)++];
        memset(r, 0, sizeof *r);
        snprintf(r->collective, sizeof r->collective, "%s", o->collective);
        snprintf(r->algorithm, sizeof r->algorithm, "%s", o->algorithm);
        r->procs = o->procs;
        r->ppn = o->ppn;
        r->msg_bytes = o->msg_bytes;
        r->segment_bytes = o->segment_bytes;
        r->time_us = time_us;
        r->default_us = d->mean_us;
        r->speedup = d->mean_us / time_us;
    }
    if (*n == 0) {
        free(*rows);
        *rows = NULL;
    }
    return 0;
}

struct speedup_table {
    const struct speedup_row *rows;
    size_t n;
};

static int write_speedup_csv(FILE *f, const void *arg)
{
    const struct speedup_table *t = arg;
    fprintf(f, "%s\n", SPEEDUP_HEADER);
    for (size_t i = 0; i < t->n; i++) {
        const struct speedup_row *r = &t->rows[i];
        fprintf(f, "%s,%d,%d,%ld,%s,%d,%.3f,%.3f,%.4f\n", r->collective,
                r->procs, r->ppn, r->msg_bytes, r->algorithm, r->segment_bytes,
                r->time_us, r->default_us, r->speedup);
    }
    return ferror(f) ? -1 : 0;
}

int table_write_speedup(const char *path, const struct speedup_row *rows,
                        size_t n)
{
    struct speedup_table t = {rows, n};
    return store_write_file(path, write_speedup_csv, &t);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void speedup_summarise(const struct speedup_row *rows, size_t n,
                       const char *collective, struct speedup_summary *out)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    memset(out, 0, sizeof *out);
    for (size_t i = 0; v && i < n; i++) {
        if (collective && strcmp(rows[i].collective, collective) != 0) {
            continue;
        }
        v[out->points++] = rows[i].speedup;
        out->default_faster += rows[i].speedup < 1;
    }
    if (out->points) {
        size_t k = out->points;
        qsort(v, k, sizeof *v, cmp_double);
        out->median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
        out->min = v[0];
        out->max = v[k - 1];
    }
    free(v);
}
