/* The library's default decision as a baseline: one default/0 record per
 * point, never a search candidate; speedup = default time / tuned time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/tables.h"
#include "tune/baseline.h"
#include "tune/measure.h"

void baseline_add_setting(const struct config *c,
                          struct journal_settings *settings)
{
    char what[96];
    if (c->has_baseline && native_describe_default(what, sizeof what) == 0) {
        journal_settings_add(settings, "default", "%s", what);
    }
}

int baseline_check_backend(const struct config *c)
{
    const char *names[CONFIG_MAX_COLLS];
    if (c->backend != BACKEND_NATIVE) {
        return 0;
    }
    for (int i = 0; i < c->n_colls; i++) {
        names[i] = c->colls[i]->name;
    }
    return native_check(names, c->n_colls);
}

int baseline_measure(const struct search_point *point,
                     const struct search_oracle *oracle)
{
    struct search_method method = {MEASURE_DEFAULT, 0};
    struct search_point p = *point;
    double time_us;
    p.methods = &method;
    p.n_methods = 1;
    return oracle->time(oracle->ctx, &p, 0, &time_us);
}

int baseline_write_speedup(const struct journal *j, const char *path,
                           const struct measurement *optimal, size_t n)
{
    struct speedup_row *rows;
    size_t n_rows;
    if (speedup_rows_build(j, optimal, n, &rows, &n_rows) != 0) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    int rc = n_rows ? table_write_speedup(path, rows, n_rows) : 0;
    free(rows);
    return rc;
}

const char *baseline_setting(const struct journal *j, const char *key)
{
    const char *value = journal_setting(journal_get_settings(j), key);
    return value ? value : "?";
}

void baseline_print_summary(const struct journal *j,
                            const struct baseline_counts *counts,
                            const struct measurement *optimal, size_t n)
{
    struct speedup_row *rows;
    size_t n_rows;
    struct speedup_summary sum;
    if (counts->measured + counts->reused == 0 ||
        speedup_rows_build(j, optimal, n, &rows, &n_rows) != 0) {
        return;
    }
    speedup_summarise(rows, n_rows, NULL, &sum);
    printf("autotune: baseline default/0 (%s): %ld measured, %ld from the "
           "journal; tuned speedup over it: median %.2fx, max %.2fx over %zu "
           "points\n",
           baseline_setting(j, "default"), counts->measured, counts->reused,
           sum.median, sum.max, sum.points);
    free(rows);
}
