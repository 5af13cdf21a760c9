/* `autotune report`: without --html, --map or --points, the text summary
 * of baseline.c (which reads its own options); with them, the pictures of
 * report/. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/baseline.h"
#include "autotune/report_cli.h"
#include "collectives/collectives.h"
#include "report/report.h"
#include "store/tables.h"

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

int report_cli_main(int argc, char **argv)
{
    struct report_args a = {NULL, NULL, NULL, NULL};
    int bad = cli_parse(&report_cli, argc, argv, &a, stderr);
    if (bad) {
        return bad;
    }
    const char *run = a.run, *html = a.html, *map = a.map, *points = a.points;
    if (!html && !map && !points) {
        return report_print_speedup(run); /* the text summary */
    }
    if (points && !html) {
        fprintf(stderr, "autotune report: --points goes with --html\n");
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
