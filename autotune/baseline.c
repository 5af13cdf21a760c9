/* The library's default decision as a baseline: one default/0 record per
 * point, never a search candidate; speedup = default time / tuned time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/baseline.h"
#include "autotune/measure.h"
#include "autotune/profile_cli.h"
#include "store/tables.h"

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

static void print_summary_line(FILE *f, const char *what,
                               const struct speedup_summary *sum)
{
    fprintf(f, "%-12s %6zu %8.2f %8.2f %8.2f %8zu\n", what, sum->points,
            sum->median, sum->max, sum->min, sum->default_faster);
}

static const char *setting_of(const struct journal *j, const char *key)
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
           setting_of(j, "default"), counts->measured, counts->reused,
           sum.median, sum.max, sum.points);
    free(rows);
}

int report_print_speedup(const char *run)
{
    struct journal *j = NULL;
    struct measurement *optimal = NULL;
    struct speedup_row *rows = NULL;
    size_t n_opt = 0, n_rows = 0;
    int status = 1;
    if (table_read_run_and_journal(run, "report", &j, &optimal, &n_opt) != 0 ||
        speedup_rows_build(j, optimal, n_opt, &rows, &n_rows) != 0) {
        goto done;
    }
    if (n_rows == 0) {
        fprintf(stderr,
                "autotune report: %s has no default/0 records (swept with "
                "baseline = false?)\n",
                run);
        goto done;
    }
    printf("run %s: backend %s, library %s, default %s\n", run,
           setting_of(j, "backend"), setting_of(j, "library"),
           setting_of(j, "default"));
    printf("speedup of the tuned choice over the library default "
           "(default_us / time_us):\n");
    printf("%-12s %6s %8s %8s %8s %8s\n", "collective", "points", "median",
           "max", "min", "slower");
    struct speedup_summary sum;
    for (size_t i = 0; i < n_rows; i++) {
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) {
            seen = strcmp(rows[k].collective, rows[i].collective) == 0;
        }
        if (!seen) {
            speedup_summarise(rows, n_rows, rows[i].collective, &sum);
            print_summary_line(stdout, rows[i].collective, &sum);
        }
    }
    speedup_summarise(rows, n_rows, NULL, &sum);
    print_summary_line(stdout, "all", &sum);
    const struct speedup_row *best = &rows[0];
    for (size_t i = 1; i < n_rows; i++) {
        best = rows[i].speedup > best->speedup ? &rows[i] : best;
    }
    printf("largest gain: %s P=%d %ld B, %s/%d %.3f us against the "
           "default's %.3f us\n",
           best->collective, best->procs, best->msg_bytes, best->algorithm,
           best->segment_bytes, best->time_us, best->default_us);
    if (n_rows < n_opt) {
        printf("(%zu of %zu points have no default/0 record)\n", n_opt - n_rows,
               n_opt);
    }
    profile_print_coverage(stdout, run, optimal, n_opt);
    status = 0;
done:
    journal_close(j);
    free(optimal);
    free(rows);
    return status;
}
