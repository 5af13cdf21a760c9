/* `autotune report`: without --html, --map or --points, the text summary
 * of baseline.c (which reads its own options); with them, the pictures of
 * report/. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/profile_cli.h"
#include "autotune/report_cli.h"
#include "collectives/collectives.h"
#include "report/report.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "tune/baseline.h"

struct report_args {
    const char *run, *html, *map, *points;
};

static const struct cli_option report_options[] = {
    {"-r", "RUN", CLI_TEXT, offsetof(struct report_args, run), 0, 0, NULL, NULL,
     true, false, "the run directory"},
    {"--html", "FILE", CLI_TEXT, offsetof(struct report_args, html), 0, 0, NULL,
     NULL, false, false, "write the self-contained HTML report"},
    {"--map", "COLLECTIVE", CLI_TEXT, offsetof(struct report_args, map), 0, 0,
     NULL, NULL, false, false, "print the collective's decision map"},
    {"--points", "P:M,...", CLI_TEXT, offsetof(struct report_args, points), 0,
     0, NULL, NULL, false, false,
     "the HTML report's landscapes at PROCS:BYTES (e.g. 16:64K)"},
};

const struct cli_spec report_cli = {
    "autotune report",
    NULL,
    "The speedup of the tuned choice over the library default (default/0) "
    "at the\nrun's points, per collective. --map prints a collective's "
    "decision map (the\nfastest method per procs and message size); "
    "--html writes one self-contained\nHTML file: decision, speedup and "
    "penalty maps (every RUN/*.dec), segment-size\nlandscapes at --points "
    "or chosen automatically, the strategies' costs\n(RUN/compare.csv) and "
    "the run's settings.\n",
    report_options,
    CLI_N(report_options),
    NULL,
    0};

/* report/ builds without MPI, collectives/ with it: the table is lent. */
static const char *table_alg(const char *collective, int place)
{
    const struct coll_def *c = coll_find(collective);
    return c && place < c->n_algs ? c->algs[place].name : NULL;
}

static void print_summary_line(FILE *f, const char *what,
                               const struct speedup_summary *sum)
{
    fprintf(f, "%-12s %6zu %8.2f %8.2f %8.2f %8zu\n", what, sum->points,
            sum->median, sum->max, sum->min, sum->default_faster);
}

/* The text summary: per-collective speedup over the default. */
static int print_speedup(const char *run)
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
    const char *arrival =
        journal_setting(journal_get_settings(j), "measure.arrival");
    /* the pattern the speedups hold under: "together" where the journal
     * has none */
    printf("run %s: backend %s, library %s, default %s, arrival %s\n", run,
           baseline_setting(j, "backend"), baseline_setting(j, "library"),
           baseline_setting(j, "default"), arrival ? arrival : "together");
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

int report_cli_main(int argc, char **argv)
{
    struct report_args a = {NULL, NULL, NULL, NULL};
    int bad = cli_parse(&report_cli, argc, argv, &a, stderr);
    if (bad) {
        return bad;
    }
    const char *run = a.run, *html = a.html, *map = a.map, *points = a.points;
    if (!html && !map && !points) {
        return print_speedup(run); /* the text summary */
    }
    if (points && !html) {
        fprintf(stderr, "autotune report: --points goes with --html\n");
        return 2;
    }
    if (html && rundir_check_output("report", run, html) != 0) {
        return 2;
    }
    struct report_point *pts = NULL;
    int n_pts = 0;
    if (points && report_parse_points(points, &pts, &n_pts) != 0) {
        return 2;
    }
    /* Read once for the map and the page: each damaged line said once. */
    struct journal *j;
    bool is_journal_read = table_load_run_journal(run, &j) == 0;
    if (!is_journal_read && !html) {
        table_note_unchecked(run); /* the map goes on without the check */
    }
    int status = 0;
    if (map && report_print_map(run, j, table_alg, map, stdout,
                                isatty(STDOUT_FILENO)) != 0) {
        status = 1;
    } else if (html) {
        /* The page shows the journal: one that cannot be read fails it. */
        if (!is_journal_read ||
            report_write_html(run, j, table_alg, html, pts, n_pts) != 0) {
            status = 1;
        } else {
            printf("autotune report: wrote %s\n", html);
        }
    }
    free(pts);
    journal_close(j);
    return status;
}
