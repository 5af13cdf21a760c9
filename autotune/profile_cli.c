/* `autotune profile`: the points an application spent the most time in,
 * and with a run, what the tuned choice saves at each: calls x (default -
 * tuned), the speedup the tuner predicts (seed 003 §3.1's instrumented
 * runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/profile_cli.h"
#include "collectives/collectives.h"
#include "store/profile.h"
#include "store/rundir.h"
#include "store/tables.h"

int profile_load_tunable(const char *path, struct profile **out)
{
    if (profile_load(path, out) != 0) {
        return -1;
    }
    for (int i = 0; i < (*out)->n_points; i++) {
        const struct profile_point *pt = &(*out)->points[i];
        if (!coll_find(pt->collective)) {
            fprintf(stderr,
                    "%s:%d: unknown collective '%s' (autotune --list names "
                    "them)\n",
                    path, pt->line, pt->collective);
            profile_destroy(*out);
            *out = NULL;
            return -1;
        }
    }
    return 0;
}

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

/* The run's tuned and default times per point (speedup.csv's rows). */
static int load_run(const char *run, struct speedup_row **rows, size_t *n)
{
    struct measurement *optimal = NULL;
    struct journal *j = NULL;
    size_t n_opt = 0;
    int rc = -1;
    if (table_read_run_and_journal(run, "profile", &j, &optimal, &n_opt) == 0 &&
        speedup_rows_build(j, optimal, n_opt, rows, n) == 0) {
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
    char method[2 * STORE_NAME_MAX + 16];
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

int profile_main(int argc, char **argv)
{
    const char *file = NULL, *run = NULL;
    long top = 20;
    char problem[256] = "";
    for (int i = 1; i < argc && !*problem; i++) {
        char *end = NULL;
        if ((strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "-n") == 0) &&
            i + 1 >= argc) {
            snprintf(problem, sizeof problem, "%s needs a value", argv[i]);
        } else if (strcmp(argv[i], "-r") == 0) {
            run = argv[++i];
        } else if (strcmp(argv[i], "-n") == 0) {
            top = strtol(argv[++i], &end, 10);
            if (top < 1 || *end || end == argv[i]) {
                snprintf(problem, sizeof problem,
                         "-n: '%s' is not a number of points (1 or more)",
                         argv[i]);
            }
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else {
            snprintf(problem, sizeof problem, "unexpected argument '%s'",
                     argv[i]);
        }
    }
    if (!*problem && !file) {
        snprintf(problem, sizeof problem, "FILE.prof is required");
    }
    if (*problem) {
        fprintf(stderr,
                "autotune profile: %s\nusage: autotune profile FILE.prof "
                "[-r RUN] [-n N]\n",
                problem);
        return 2;
    }
    struct profile *p = NULL;
    struct speedup_row *rows = NULL;
    size_t n_rows = 0;
    if (profile_load_tunable(file, &p) != 0 ||
        (run && load_run(run, &rows, &n_rows) != 0)) {
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
    printf("%-10s %6s %8s %10s %8s %11s %6s%s\n", "collective", "procs",
           "per_node", "msg_bytes", "calls", "seconds", "share",
           run ? "  tuned method         tuned_us/call  default_us  saved_s"
               : "");
    for (int i = 0; i < p->n_points; i++) {
        const struct profile_point *pt = &p->points[i];
        const struct speedup_row *row = run ? find_row(rows, n_rows, pt) : NULL;
        if (i < top) {
            printf("%-10s %6d %8d %10ld %8ld %11.6f %5.1f%%", pt->collective,
                   pt->procs, pt->per_node, pt->msg_bytes, pt->calls,
                   pt->seconds, total > 0 ? 100 * pt->seconds / total : 0);
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
               "of %.6f s at the default (the run's times)\n",
               run, saved_s, default_s);
    }
    profile_destroy(p);
    free(rows);
    return 0;
}
