/* `autotune plan -c CFG`: the grid a config sweeps, its points and the
 * experiments an exhaustive search runs there, and what they will cost as
 * far as the run directory's journal tells: never a figure it cannot back. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/plan_cli.h"
#include "collectives/method.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "tune/grid.h"
#include "tune/measure.h"
#include "tune/progress.h"

/* The experiments of an exhaustive search over the grid, against what the
 * journal (if any) recorded. */
struct plan_tally {
    long points[CONFIG_MAX_COLLS], experiments[CONFIG_MAX_COLLS];
    long *ppn_points; /* for each config ranks_per_node value */
    long baseline, not_applicable;
    long recorded, left, left_unknown;
    double recorded_s, left_s;
    long searched; /* points the config's strategy completed (journal) */
};

/* measure_applies without MPI: every reduction here is MPI_SUM, which is
 * commutative, and MPI_Op_commutative may not be called before MPI_Init. */
static int plan_applies(const struct config *c, const struct coll_def *coll,
                        const struct search_method *m, int procs, int ppn,
                        long msg_bytes)
{
    const struct coll_alg *alg = coll_method_alg(coll, m->alg);
    if (!alg) {
        /* node-aware: on whole nodes, several of them, several ranks on
         * each (collectives/node.h); each phase's needs are not known
         * before the nodes are */
        return c->is_ppn_given && ppn > 1 && procs > ppn;
    }
    if (c->backend == BACKEND_NATIVE) {
        return native_runs_as_named(coll->name, alg->name, procs, msg_bytes,
                                    m->seg_bytes);
    }
    return coll_alg_applies(alg, procs, MPI_OP_NULL);
}

/* One experiment of the grid: recorded in the journal, or left and, where
 * costs says, of a predicted cost. */
static void tally_experiment(struct plan_tally *t, const struct journal *j,
                             const struct progress_costs *costs,
                             const char *coll, int procs, int ppn,
                             long msg_bytes, const char *method, int seg_bytes)
{
    const struct measurement *rec =
        j ? journal_find(j, coll, procs, ppn, msg_bytes, method, seg_bytes)
          : NULL;
    if (rec) {
        t->recorded++;
        t->recorded_s += rec->cost_s;
        return;
    }
    double cost = progress_costs_predict(costs, procs, ppn, msg_bytes);
    t->left++;
    if (cost < 0) {
        t->left_unknown++;
    } else {
        t->left_s += cost;
    }
}

static int tally_grid(const struct config *c, const struct journal *j,
                      const struct progress_costs *costs, struct plan_tally *t)
{
    struct search_method methods[GRID_MAX_METHODS];
    struct config_point *points;
    if (grid_list_points(c, &points) != 0) {
        return -1;
    }
    for (long i = 0; i < grid_points(c); i++) {
        int ci = points[i].ci, procs = points[i].procs, ppn = points[i].ppn;
        long msg = points[i].msg_bytes;
        const struct coll_def *coll = c->colls[ci];
        int n = grid_point_methods(c, ci, msg, methods);
        t->points[ci]++;
        for (int k = 0; k < c->n_ppn; k++) {
            t->ppn_points[k] += c->ppn[k] == ppn;
        }
        t->searched += j && journal_find_point(j, coll->name, procs, ppn, msg,
                                               c->search->name) != NULL;
        for (int k = 0; k < n; k++) {
            if (!plan_applies(c, coll, &methods[k], procs, ppn, msg)) {
                t->not_applicable++;
                continue;
            }
            t->experiments[ci]++;
            tally_experiment(t, j, costs, coll->name, procs, ppn, msg,
                             coll_method_name(coll, methods[k].alg),
                             methods[k].seg_bytes);
        }
        if (c->has_baseline) {
            t->baseline++;
            tally_experiment(t, j, costs, coll->name, procs, ppn, msg,
                             MEASURE_DEFAULT_NAME, 0);
        }
    }
    free(points);
    return 0;
}

static void print_grid(const struct config *c, const struct plan_tally *t)
{
    long points = 0, experiments = 0;
    printf("plan for %s (run directory %s, search %s, backend %s)\n", c->path,
           c->output, c->search->name, config_backend_names[c->backend]);
    printf("collectives:   ");
    for (int ci = 0; ci < c->n_colls; ci++) {
        printf("%s%s (%d algorithm%s)", ci ? ", " : "", c->colls[ci]->name,
               c->n_algs[ci], c->n_algs[ci] == 1 ? "" : "s");
        points += t->points[ci];
        experiments += t->experiments[ci];
    }
    printf("\nprocs:         ");
    for (int i = 0; i < c->n_procs; i++) {
        printf("%s%d", i ? ", " : "", c->procs[i]);
    }
    if (c->is_ppn_given) {
        printf("\nranks/node:    ");
        for (int i = 0; i < c->n_ppn; i++) {
            printf("%s%d (%ld points)", i ? ", " : "", c->ppn[i],
                   t->ppn_points[i]);
        }
    }
    printf("\nmessage sizes: ");
    for (int i = 0; i < c->n_msgs; i++) {
        printf("%s%ld", i ? ", " : "", c->msg_sizes[i]);
    }
    printf(" bytes (%d size%s)\n", c->n_msgs, c->n_msgs == 1 ? "" : "s");
    if (c->profile) {
        printf("profile:       %s: %d points, costliest first\n",
               c->profile_path, c->n_points);
    }
    printf("segment sizes: ");
    for (int i = 0; i < c->n_segs; i++) {
        printf("%s%d", i ? ", " : "", c->seg_sizes[i]);
    }
    printf(" bytes (0 = unsegmented)\npoints:        %ld (", points);
    for (int ci = 0; ci < c->n_colls; ci++) {
        printf("%s%s %ld", ci ? ", " : "", c->colls[ci]->name, t->points[ci]);
    }
    printf(")\nexperiments:   %ld for an exhaustive search (", experiments);
    for (int ci = 0; ci < c->n_colls; ci++) {
        printf("%s%s %ld", ci ? ", " : "", c->colls[ci]->name,
               t->experiments[ci]);
    }
    printf(")");
    if (c->has_baseline) {
        printf(", and %ld of the library default", t->baseline);
    }
    printf("; %ld methods not applicable (recorded, never run)\n",
           t->not_applicable);
    printf("               the pruned searches (");
    for (int i = 0, n = 0; i < search_strategies_size; i++) {
        if (strcmp(search_strategies[i].name, "exhaustive") != 0) {
            printf("%s%s", n++ ? ", " : "", search_strategies[i].name);
        }
    }
    printf(") run fewer, as many as the times they measure lead them to\n");
    if (c->is_grid_adaptive) {
        printf("grid:          adaptive: measures a coarse grid, then where "
               "neighbours disagree, and infers the other points; the "
               "figures above are the most it can take\n");
    }
}

/* What the journal tells of the time left, or why it tells nothing. */
static void print_estimate(const struct config *c, const char *journal_path,
                           const struct journal *j, const struct plan_tally *t)
{
    char left[32];
    if (!j) {
        printf("estimate:      none: %s does not exist (plan estimates from "
               "what a journal's experiments cost)\n",
               journal_path);
        return;
    }
    const char *platform =
        journal_setting(journal_get_settings(j), "smpi.platform");
    const char *unit = platform ? "simulated seconds" : "seconds";
    printf("journal:       %ld of these %ld experiment%s recorded (%.3f %s)\n",
           t->recorded, t->recorded + t->left,
           t->recorded + t->left == 1 ? "" : "s", t->recorded_s, unit);
    long points = 0;
    for (int ci = 0; ci < c->n_colls; ci++) {
        points += t->points[ci];
    }
    printf("searched:      %ld of the %ld points complete with %s%s\n",
           t->searched, points, c->search->name,
           c->is_grid_adaptive ? " (the adaptive walk measures a part)" : "");
    if (t->left > 0 && t->searched == points && !c->is_grid_adaptive) {
        /* A pruned search skipped the rest; it repeats its choices from
         * the journal, so only what the config added since is new. */
        printf("               every point's search is complete: a "
               "resumed sweep times only what the config added since "
               "(algorithms, segment sizes, search options), at most the "
               "%ld experiment%s below\n",
               t->left, t->left == 1 ? "" : "s");
    }
    if (t->left == 0) {
        printf("estimate:      nothing left: the sweep replays the journal\n");
        return;
    }
    if (t->left_unknown > 0) { /* no observation to predict from */
        printf("estimate:      none: the journal has no timed experiment "
               "yet\n");
        return;
    }
    progress_format_duration(left, sizeof left, t->left_s);
    printf("estimate:      %ld experiment%s left, about %s (%.0f %s) for an "
           "exhaustive search: each at the mean cost of the journal's "
           "experiments at its procs and message size, else scaled from the "
           "nearest (docs/design.md, What a sweep does)\n",
           t->left, t->left == 1 ? "" : "s", left, t->left_s, unit);
    if (platform) {
        printf("               the journal was simulated (SMPI, platform "
               "%s): how long the simulation takes on this machine is not "
               "recorded\n",
               platform);
    } else {
        printf("               for a batch allocation: that, plus MPI "
               "start-up and a margin for noise\n");
    }
}

struct plan_args {
    const char *config_path;
};

static const struct cli_option plan_options[] = {
    {"-c", "tune.cfg", CLI_TEXT, offsetof(struct plan_args, config_path), 0, 0,
     NULL, NULL, true, false, "the config"},
};

const struct cli_spec plan_cli = {
    "autotune plan",
    NULL,
    "The grid of tune.cfg, its points, the experiments of an exhaustive "
    "search and,\nfrom a journal in its run directory, an estimate of "
    "their time. No MPI.\n",
    plan_options,
    CLI_N(plan_options),
    NULL,
    0};

int plan_main(int argc, char **argv)
{
    struct plan_args a = {NULL};
    char journal_path[2048];
    struct config cfg;
    struct journal *j = NULL;
    struct progress_costs *costs = NULL;
    struct plan_tally tally = {0};
    int status = 1;
    int bad = cli_parse(&plan_cli, argc, argv, &a, stderr);
    if (bad) {
        return bad;
    }
    const char *config_path = a.config_path;
    if (config_load(config_path, &cfg) != 0) {
        return 1;
    }
    snprintf(journal_path, sizeof journal_path, "%s/" RUNDIR_JOURNAL,
             cfg.output);
    costs = progress_costs_create();
    tally.ppn_points = calloc((size_t)cfg.n_ppn, sizeof *tally.ppn_points);
    if (!costs || !tally.ppn_points) {
        fprintf(stderr, "autotune plan: out of memory\n");
        goto done;
    }
    if (access(journal_path, F_OK) == 0) {
        if (journal_load(journal_path, &j) != 0) {
            goto done;
        }
        for (size_t i = 0; i < journal_count(j); i++) {
            const struct measurement *m = journal_record(j, i);
            if (m->is_applicable && m->cost_s > 0 &&
                progress_costs_add(costs, m->procs, m->ppn, m->msg_bytes,
                                   m->cost_s) != 0) {
                fprintf(stderr, "autotune plan: out of memory\n");
                goto done;
            }
        }
    }
    if (tally_grid(&cfg, j, costs, &tally) != 0) {
        fprintf(stderr, "autotune plan: out of memory\n");
        goto done;
    }
    print_grid(&cfg, &tally);
    print_estimate(&cfg, journal_path, j, &tally);
    status = 0;
done:
    journal_close(j);
    progress_costs_destroy(costs);
    free(tally.ppn_points);
    config_free(&cfg);
    return status;
}
