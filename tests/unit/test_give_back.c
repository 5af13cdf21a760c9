/* Never slower than the library: on the committed baseline runs
 * (results/bench-runs/default-*), every point where the library's default
 * (default/0) was measured faster than every tuned method is default in the
 * optimal table (and only there), in the dec export, in every tree and
 * quadtree built from the run, and in the Open MPI export (algorithm 0,
 * its fixed decision). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "store/export.h"
#include "store/tables.h"
#include "tests/check.h"
#include "tests/rules_eval.h"

struct point {
    char collective[STORE_NAME_MAX];
    int procs;
    long msg_bytes;
};

/* The points of meas where default/0 beats every other method, found from
 * the measurements alone. */
static int default_faster(const struct measurement *meas, size_t n,
                          struct point *out, int cap)
{
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        const struct measurement *d = &meas[i];
        if (strcmp(d->algorithm, STORE_DEFAULT_ALGORITHM) != 0) {
            continue;
        }
        double best = -1;
        for (size_t k = 0; k < n; k++) {
            const struct measurement *m = &meas[k];
            if (k != i && m->procs == d->procs &&
                m->msg_bytes == d->msg_bytes &&
                strcmp(m->collective, d->collective) == 0 &&
                (best < 0 || m->mean_us < best)) {
                best = m->mean_us;
            }
        }
        if (best >= 0 && d->mean_us < best && found < cap) {
            struct point *p = &out[found++];
            snprintf(p->collective, sizeof p->collective, "%s", d->collective);
            p->procs = d->procs;
            p->msg_bytes = d->msg_bytes;
        }
    }
    return found;
}

/* d says default/0 at every point (collective index = grid index). */
static void check_decision(const char *what, const struct run_data *r,
                           const struct decision *d, const struct point *pts,
                           int n_pts, int only_grid)
{
    int def = run_data_default_method(r);
    for (int i = 0; i < n_pts; i++) {
        int dc = decision_find_collective(d, pts[i].collective);
        if (dc < 0 || (only_grid >= 0 &&
                       strcmp(r->grids[only_grid].name, pts[i].collective))) {
            continue;
        }
        int k = decision_lookup(d, dc, pts[i].procs, pts[i].msg_bytes);
        if (k != def) {
            fprintf(stderr, "%s: %s P=%d m=%ld: %s, not default/0\n", what,
                    pts[i].collective, pts[i].procs, pts[i].msg_bytes,
                    d->methods[k]);
        }
        CHECK_INT(def, k);
    }
}

static void check_trees(const char *run, const struct point *pts, int n_pts)
{
    struct run_data *r = NULL;
    CHECK_INT(0, run_data_load(run, NULL, 0, &r));
    if (!r) {
        return;
    }
    CHECK(run_data_default_method(r) == r->n_methods - 1);
    const char *colls[16];
    for (int g = 0; g < r->n_grids && g < 16; g++) {
        colls[g] = r->grids[g].name;
    }
    /* trees: c4.5's defaults, coarse, combined, majority leaves, shallow */
    for (int variant = 0; variant < 5; variant++) {
        struct train_options opt;
        struct decision *d = NULL;
        train_options_init(&opt);
        opt.c45.min_objs = variant == 1 ? 8 : opt.c45.min_objs;
        opt.is_combined = variant == 2 && r->n_grids > 1;
        opt.is_majority = variant == 3;
        opt.max_depth = variant == 4 ? 1 : -1;
        CHECK_INT(0, train_create_decision(r, "c45", colls, r->n_grids, &d));
        CHECK_INT(0, train_trees(&opt, r, -1, NULL, d));
        char what[128];
        snprintf(what, sizeof what, "%s tree variant %d", run, variant);
        check_decision(what, r, d, pts, n_pts, -1);
        decision_destroy(d);
    }
    /* quadtrees, one collective each: depth 1 and 3, 60 % accurate */
    for (int g = 0; g < r->n_grids && g < 16; g++) {
        struct run_data *rg = NULL;
        CHECK_INT(0, run_data_load(run, &colls[g], 1, &rg));
        for (int variant = 0; rg && variant < 3; variant++) {
            struct train_options opt;
            struct decision *d = NULL;
            train_options_init(&opt);
            opt.max_depth = variant == 0 ? 1 : variant == 1 ? 3 : -1;
            opt.accuracy_pct = variant == 2 ? 60 : 100;
            CHECK_INT(0, train_quadtree(&opt, rg, -1, &d));
            char what[128];
            snprintf(what, sizeof what, "%s quadtree %s variant %d", run,
                     colls[g], variant);
            if (d) {
                check_decision(what, rg, d, pts, n_pts, 0);
            }
            decision_destroy(d);
        }
        run_data_destroy(rg);
    }
    run_data_destroy(r);
}

static void check_run(const char *run)
{
    char path[512];
    struct measurement *meas = NULL, *opt = NULL;
    size_t n_meas = 0, n_opt = 0;
    struct point pts[64];
    snprintf(path, sizeof path, "%s/measurements.csv", run);
    CHECK_INT(0, table_read_measurements(path, &meas, &n_meas));
    int n_pts = default_faster(meas, n_meas, pts, 64);
    CHECK(n_pts > 0); /* the runs have such points: the test means something */
    printf("%s: %d points where the default was faster\n", run, n_pts);

    /* the optimal table: default exactly there */
    struct journal *journal;
    CHECK_INT(0, table_load_run_journal(run, &journal));
    CHECK_INT(0, table_read_run_optimal(run, journal, "test", &opt, &n_opt));
    journal_close(journal);
    int n_default = 0;
    for (size_t i = 0; i < n_opt; i++) {
        int is_default = strcmp(opt[i].algorithm, STORE_DEFAULT_ALGORITHM) == 0;
        n_default += is_default;
        int is_listed = 0;
        for (int k = 0; k < n_pts; k++) {
            is_listed |= pts[k].procs == opt[i].procs &&
                         pts[k].msg_bytes == opt[i].msg_bytes &&
                         strcmp(pts[k].collective, opt[i].collective) == 0;
        }
        CHECK_INT(is_listed, is_default);
    }
    CHECK_INT(n_pts, n_default);

    /* the dec export (the exact decision): default/0 there */
    struct decision *exact = NULL;
    CHECK_INT(0, decision_from_table(opt, n_opt, NULL, NULL, NULL, 0, &exact));
    for (int k = 0; exact && k < n_pts; k++) {
        int dc = decision_find_collective(exact, pts[k].collective);
        CHECK_STR("default/0", exact->methods[decision_lookup(
                                   exact, dc, pts[k].procs, pts[k].msg_bytes)]);
    }
    decision_destroy(exact);

    /* the Open MPI export: its fixed decision there */
    char *text =
        export_text(export_ompi, opt, n_opt, path, NULL, NULL, NULL, 0);
    static struct ompi_eval e;
    CHECK(text && ompi_eval_load(text, &e) == 0);
    for (int k = 0; text && k < n_pts; k++) {
        long seg;
        CHECK_INT(0, ompi_eval_alg(&e, pts[k].collective, pts[k].procs,
                                   pts[k].msg_bytes, &seg));
    }
    free(text);
    check_trees(run, pts, n_pts);
    free(meas);
    free(opt);
}

int main(void)
{
    check_run("results/bench-runs/default-grig");
    check_run("results/bench-runs/default-frodo");
    check_run("results/bench-runs/default-grig-all");
    check_run("results/bench-runs/default-frodo-all");
    return check_exit();
}
