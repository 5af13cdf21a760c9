/* `autotune report`: without --html, --map or --points, the text summary
 * of baseline.c (which reads its own options); with them, the pictures of
 * report/. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/baseline.h"
#include "autotune/report_cli.h"
#include "collectives/collectives.h"
#include "report/report.h"
#include "store/rundir.h"
#include "store/tables.h"

static const char report_usage[] =
    "usage: autotune report -r RUN [--html FILE] [--map COLLECTIVE] "
    "[--points P:M,...]\n";

/* report/ builds without MPI, collectives/ with it: the table is lent. */
static const char *table_alg(const char *collective, int place)
{
    const struct coll_def *c = coll_find(collective);
    return c && place < c->n_algs ? c->algs[place].name : NULL;
}

static bool is_picture_option(const char *arg)
{
    return strcmp(arg, "--html") == 0 || strcmp(arg, "--map") == 0 ||
           strcmp(arg, "--points") == 0;
}

int report_cli_main(int argc, char **argv)
{
    char *run = NULL, *html = NULL, *map = NULL, *points = NULL;
    bool has_pictures = false;
    for (int i = 1; i < argc; i++) {
        has_pictures |= is_picture_option(argv[i]);
    }
    if (!has_pictures) {
        return report_main(argc, argv); /* the text summary, its options */
    }
    for (int i = 1; i < argc; i += 2) {
        char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        char **slot = strcmp(opt, "-r") == 0         ? &run
                      : strcmp(opt, "--html") == 0   ? &html
                      : strcmp(opt, "--map") == 0    ? &map
                      : strcmp(opt, "--points") == 0 ? &points
                                                     : NULL;
        if (!slot) {
            fprintf(stderr, "autotune report: unknown option '%s'\n%s", opt,
                    report_usage);
            return 2;
        }
        if (!val) {
            fprintf(stderr, "autotune report: %s needs a value\n%s", opt,
                    report_usage);
            return 2;
        }
        *slot = val;
    }
    if (!run) {
        fprintf(stderr, "autotune report: -r RUN is required\n%s",
                report_usage);
        return 2;
    }
    if (points && !html) {
        fprintf(stderr, "autotune report: --points goes with --html\n%s",
                report_usage);
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
