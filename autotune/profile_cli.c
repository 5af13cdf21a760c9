/* `autotune profile`: the points an application spent the most time in,
 * and with a run, what the tuned choice saves at each: calls x (default -
 * tuned), the speedup the tuner predicts (seed 003 §3.1's instrumented
 * runs). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/profile_cli.h"
#include "collectives/collectives.h"
#include "store/profile.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "tune/config.h"

static const struct speedup_row *find_row(const struct speedup_row *rows,
                                          size_t n,
                                          const struct profile_point *pt)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].collective, pt->collective) == 0 &&
            rows[i].procs == pt->procs && rows[i].msg_bytes == pt->msg_bytes) {
            return &rows[i];
        }
    }
    return NULL;
}

static int point_is_covered(const struct measurement *optimal, size_t n,
                            const struct profile_point *pt)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(optimal[i].collective, pt->collective) == 0 &&
            optimal[i].procs == pt->procs &&
            optimal[i].msg_bytes == pt->msg_bytes) {
            return 1;
        }
    }
    return 0;
}

void profile_print_coverage(FILE *f, const char *run,
                            const struct measurement *optimal, size_t n)
{
    char path[4096];
    struct profile *p;
    FILE *probe;
    snprintf(path, sizeof path, "%s/" RUNDIR_PROFILE, run);
    if (!(probe = fopen(path, "r"))) {
        return;
    }
    fclose(probe);
    if (profile_load(path, &p) != 0) {
        return;
    }
    double total = profile_total_seconds(p), covered = 0;
    int n_covered = 0;
    for (int i = 0; i < p->n_points; i++) {
        if (point_is_covered(optimal, n, &p->points[i])) {
            covered += p->points[i].seconds;
            n_covered++;
        }
    }
    fprintf(f,
            "application profile: the run covers %d of its %d points, "
            "%.1f %% of its %.6f s in collectives\n",
            n_covered, p->n_points, total > 0 ? 100 * covered / total : 100.0,
            total);
    profile_destroy(p);
}

/* The run's tuned and default times per point (speedup.csv's rows), and
 * the arrival pattern it timed them under (its journal's
 * measure.arrival, "together" where it has none). */
static int load_run(const char *run, struct speedup_row **rows, size_t *n,
                    char *arrival, size_t arrival_size)
{
    struct measurement *optimal = NULL;
    struct journal *j = NULL;
    size_t n_opt = 0;
    int rc = -1;
    if (table_read_run_and_journal(run, "profile", &j, &optimal, &n_opt) == 0 &&
        speedup_rows_build(j, optimal, n_opt, rows, n) == 0) {
        const char *v =
            journal_setting(journal_get_settings(j), "measure.arrival");
        snprintf(arrival, arrival_size, "%s", v ? v : "together");
        rc = 0;
    }
    journal_close(j);
    free(optimal);
    return rc;
}

/* With a run: the tuned method, both times and the saving of the point
 * (printed when is_printed), added to the totals. */
static void add_tuned(const struct profile_point *pt,
                      const struct speedup_row *row, int is_printed,
                      double *saved_s, double *default_s)
{
    char method[STORE_METHOD_MAX + 16];
    /* the sweep tunes no communicator of one process (a local copy) */
    snprintf(method, sizeof method, "%s",
             pt->procs < 2 ? "(one process: nothing to tune)"
                           : "(not in the run)");
    double saved = 0;
    if (row) {
        saved = (double)pt->calls * (row->default_us - row->time_us) / 1e6;
        snprintf(method, sizeof method, "%s/%d", row->algorithm,
                 row->segment_bytes);
        *saved_s += saved;
        *default_s += (double)pt->calls * row->default_us / 1e6;
    }
    if (is_printed && row) {
        printf("  %-20s %13.3f %11.3f %8.6f\n", method, row->time_us,
               row->default_us, saved);
    } else if (is_printed) {
        printf("  %s\n", method);
    }
}

/* The point's arrival spread (us, median and p90 over its sampled calls)
 * and shape; "-" where the profile has none (older, or one process). The
 * shape is padded when more columns follow. */
static void print_arrival(const struct profile_arrival *a, int is_last)
{
    const char *shape = a->sampled > 0 ? profile_shape_name(a->shape) : "-";
    if (a->sampled > 0) {
        printf(" %10.3f %10.3f", a->spread_median_us, a->spread_p90_us);
    } else {
        printf(" %10s %10s", "-", "-");
    }
    printf(is_last ? " %s" : " %-10s", shape);
}

/* A run timed with every rank together, where the profile's ranks arrive
 * further apart (p90) than the tuned method takes: one line on how many
 * points, the widest by that ratio. */
static void warn_spread(const struct profile *p, const char *run,
                        const struct speedup_row *rows, size_t n_rows)
{
    const struct profile_point *worst = NULL;
    const struct speedup_row *worst_row = NULL;
    int n = 0;
    for (int i = 0; i < p->n_points; i++) {
        const struct profile_point *pt = &p->points[i];
        const struct speedup_row *row = find_row(rows, n_rows, pt);
        if (!row || pt->arrival.sampled == 0 ||
            !(pt->arrival.spread_p90_us > row->time_us)) {
            continue;
        }
        n++;
        if (!worst || pt->arrival.spread_p90_us / row->time_us >
                          worst->arrival.spread_p90_us / worst_row->time_us) {
            worst = pt;
            worst_row = row;
        }
    }
    if (n > 0) {
        printf("warning: %s was timed with every rank arriving together, but "
               "at %d point%s the profile's p90 arrival spread exceeds the "
               "tuned method's time (most: %s on %d ranks, %ld bytes, "
               "%.3f us against %.3f us): its saving there may not hold; "
               "measure.arrival = \"profile\" times each point as its ranks "
               "arrive\n",
               run, n, n == 1 ? "" : "s", worst->collective, worst->procs,
               worst->msg_bytes, worst->arrival.spread_p90_us,
               worst_row->time_us);
    }
}

struct profile_args {
    const char *file, *run;
    int top;
};

static const struct cli_option profile_options[] = {
    {"-r", "RUN", CLI_TEXT, offsetof(struct profile_args, run), 0, 0, NULL,
     NULL, false, false, "each point's tuned method and the time it saves"},
    {"-n", "N", CLI_INT, offsetof(struct profile_args, top), 1, 1e9, NULL, NULL,
     false, false, "how many points to show (20)"},
};

const struct cli_spec profile_cli = {
    "autotune profile",
    NULL,
    "The N (20) points of an application profile (AUTOTUNE_PROFILE) that "
    "took the\nmost time, with how their ranks arrived: the spread from the "
    "first to the last\n(median and p90 over the calls, in us) and its "
    "shape. With a run, each point's\ntuned method, its time and the "
    "default's, and the time saved: calls x\n(default - tuned).\n",
    profile_options,
    CLI_N(profile_options),
    "FILE.prof",
    offsetof(struct profile_args, file)};

int profile_main(int argc, char **argv)
{
    struct profile_args a = {NULL, NULL, 20};
    int bad = cli_parse(&profile_cli, argc, argv, &a, stderr);
    if (bad) {
        return bad;
    }
    const char *file = a.file, *run = a.run;
    long top = a.top;
    struct profile *p = NULL;
    struct speedup_row *rows = NULL;
    size_t n_rows = 0;
    char arrival[128] = "";
    if (config_load_profile(file, &p) != 0 ||
        (run && load_run(run, &rows, &n_rows, arrival, sizeof arrival) != 0)) {
        profile_destroy(p);
        return 1;
    }
    profile_sort_by_cost(p);
    double total = profile_total_seconds(p), saved_s = 0, default_s = 0;
    long calls = 0;
    for (int i = 0; i < p->n_points; i++) {
        calls += p->points[i].calls;
    }
    printf("profile %s: %d ranks, %d points, %ld calls, %.6f s in "
           "collectives (mean over ranks)\n",
           file, p->n_ranks, p->n_points, calls, total);
    printf("%-10s %6s %8s %10s %8s %11s %6s %10s %10s %s\n", "collective",
           "procs", "per_node", "msg_bytes", "calls", "seconds", "share",
           "spread_p50", "spread_p90",
           run ? "arrival     tuned method         tuned_us/call  default_us  "
                 "saved_s"
               : "arrival");
    for (int i = 0; i < p->n_points; i++) {
        const struct profile_point *pt = &p->points[i];
        const struct speedup_row *row = run ? find_row(rows, n_rows, pt) : NULL;
        if (i < top) {
            printf("%-10s %6d %8d %10ld %8ld %11.6f %5.1f%%", pt->collective,
                   pt->procs, pt->per_node, pt->msg_bytes, pt->calls,
                   pt->seconds, total > 0 ? 100 * pt->seconds / total : 0);
            print_arrival(&pt->arrival, !run);
            if (!run) {
                printf("\n");
            }
        }
        if (run) {
            add_tuned(pt, row, i < top, &saved_s, &default_s);
        }
    }
    if (p->n_points > top) {
        printf("(%d more points)\n", p->n_points - (int)top);
    }
    if (run) {
        printf("predicted with %s: calls x (default - tuned) = %.6f s saved "
               "of %.6f s at the default (the run's times, timed with "
               "arrival %s)\n",
               run, saved_s, default_s, arrival);
        if (strcmp(arrival, "together") == 0) {
            warn_spread(p, run, rows, n_rows);
        }
    }
    profile_destroy(p);
    free(rows);
    return 0;
}
