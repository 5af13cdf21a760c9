/* Training called directly through struct train_options, on a hand-made run:
 * held-out folds, tie labels with and without --near, the C4.5 data set,
 * leaves by penalty, a tree and a quadtree, and penalty scoring; on the
 * fixture run, no decision choosing a method that cannot run. */
#include <stdio.h>
#include <stdlib.h>

#include "decision/decision.h"
#include "tests/check.h"

/* bcast on procs {2, 4} x msgs {1, 10, 100}, methods a/0 and b/0:
 *   P=2: a 1 b 2 | a 1.05 b 1 | a 3 b 1
 *   P=4: a 2 b 2 | a 5 b 1    | a -  b 1   (tie at 4 x 1 recorded as b) */
static int procs[] = {2, 4};
static long msgs[] = {1, 10, 100};
static int best[] = {0, 1, 1, 1, 1, 1};
static double best_us[] = {1, 1, 1, 2, 1, 1};
static double default_us[] = {-1, -1, -1, -1, -1, -1};
static double time_us[] = {1, 2, 1.05, 1, 3, 1, 2, 2, 5, 1, -1, 1};
static struct run_method methods[] = {{"a", 0, "a/0"}, {"b", 0, "b/0"}};
static int ppn_values[] = {1};
static struct run_grid grid = {.name = "bcast",
                               .ppn = 1,
                               .n_procs = 2,
                               .n_msgs = 3,
                               .procs = procs,
                               .msgs = msgs,
                               .best = best,
                               .best_us = best_us,
                               .default_us = default_us,
                               .time_us = time_us};
static const struct run_data run = {.n_methods = 2,
                                    .methods = methods,
                                    .n_grids = 1,
                                    .grids = &grid,
                                    .n_ppn = 1,
                                    .ppn = ppn_values};

static void check_labels(const char *what, const int *expected,
                         const int *labels)
{
    for (int c = 0; c < 6; c++) {
        if (expected[c] != labels[c]) {
            fprintf(stderr, "%s: cell %d: expected label %d, got %d\n", what, c,
                    expected[c], labels[c]);
            CHECK(expected[c] == labels[c]);
        }
    }
}

static void test_folds(void)
{
    struct train_options opt;
    train_options_init(&opt);
    opt.holdout_axis = HOLDOUT_SIZES;
    opt.holdout_folds = 2;
    for (int c = 0; c < 6; c++) {
        CHECK_INT(c % 3 % 2, train_fold_of(&opt, &run, 0, c));
    }
    opt.holdout_axis = HOLDOUT_PROCS; /* 2 procs x 3 sizes: the largest */
    for (int c = 0; c < 6; c++) {     /* procs is always trained on */
        CHECK_INT(0, train_fold_of(&opt, &run, 0, c));
    }
    opt.holdout_axis = HOLDOUT_POINTS;
    opt.holdout_folds = 4;
    for (int c = 0; c < 6; c++) {
        CHECK_INT(c % 4, train_fold_of(&opt, &run, 0, c));
    }
}

static void test_labels(void)
{
    struct train_options opt;
    int labels[6];
    train_options_init(&opt);
    CHECK_INT(0, (int)opt.near_pct);
    /* An exact tie takes the neighbour's label (4 x 1: a from below). */
    static const int exact[] = {0, 1, 1, 0, 1, 1};
    train_labels(&opt, &run, 0, -1, labels);
    check_labels("near 0", exact, labels);
    /* Within 10 %, a at 2 x 10 (5 % slower) keeps its left neighbour's. */
    static const int near[] = {0, 0, 1, 0, 1, 1};
    opt.near_pct = 10;
    train_labels(&opt, &run, 0, -1, labels);
    check_labels("near 10", near, labels);
    /* Holding out every other size leaves the 10 B column unlabelled. */
    static const int held[] = {0, -1, 1, 0, -1, 1};
    opt.near_pct = 0;
    opt.holdout_axis = HOLDOUT_SIZES;
    opt.holdout_folds = 2;
    train_labels(&opt, &run, 0, 1, labels);
    check_labels("held out", held, labels);
}

static void test_c45_data(void)
{
    struct train_options opt;
    struct c45_data *data = NULL;
    train_options_init(&opt);
    CHECK_INT(0, train_c45_data(&opt, &run, 0, 1, -1, &data));
    if (!data) {
        return;
    }
    CHECK_INT(6, data->n_items);
    CHECK_INT(2, data->n_attrs); /* one collective: no collective attribute */
    CHECK_INT(2, data->n_classes);
    CHECK_STR("b/0", data->class_names[1]);
    CHECK_INT(1, data->classes[2]); /* 2 x 100: b */
    CHECK_INT(100, (int)data->values[2 * data->n_attrs + 1]);
    c45_data_destroy(data);
}

static void test_trees(void)
{
    struct train_options opt;
    struct decision *d = NULL;
    const char *coll = "bcast";
    train_options_init(&opt);
    CHECK_INT(2, opt.c45.min_objs);
    CHECK_INT(-1, opt.max_depth);
    /* One leaf of a over every point: leaves by penalty make it b, whose
     * penalties sum to 1 (a cannot run at 4 x 100). */
    CHECK_INT(0, train_create_decision(&run, "c45", &coll, 1, &d));
    if (!d) {
        return;
    }
    int leaf = decision_add_node(d);
    decision_set_leaf(d, leaf, 0);
    decision_set_root(d, 0, leaf);
    CHECK_INT(1, train_leaves_by_penalty(&opt, &run, 0, 1, -1, d));
    CHECK_INT(1, decision_lookup(d, 0, 2, 1));
    decision_destroy(d);
    /* The C4.5 tree splits at 1 B: a up to it, b above; between 1 and 10
     * B each procs has its own cut where the interpolated times cross: at
     * 2 ranks 10^0.934 = 8.6 B (1.05^s = 2^(1 - s)), so a at 5 B (1.035
     * against 1.231); at 4 ranks at 1 B (a 2 -> 5, b 2 -> 1). */
    d = NULL;
    CHECK_INT(0, train_create_decision(&run, "c45", &coll, 1, &d));
    CHECK_INT(0, train_trees(&opt, &run, -1, NULL, d));
    CHECK_INT(0, decision_lookup(d, 0, 2, 1));
    CHECK_INT(0, decision_lookup(d, 0, 4, 1));
    CHECK_INT(0, decision_lookup(d, 0, 2, 5));
    CHECK_INT(0, decision_lookup(d, 0, 2, 8));
    CHECK_INT(1, decision_lookup(d, 0, 2, 9));
    CHECK_INT(1, decision_lookup(d, 0, 4, 2));
    CHECK_INT(1, decision_lookup(d, 0, 4, 100));
    /* Its penalties: 0 at the four points it gets right, 0 at 4 x 1 (a
     * ties b), none unrunnable; depth 1 at 1 B, 2 above (the strip
     * between 1 and 10 B, split by procs, below a test at 9 B). */
    struct train_scores s;
    CHECK_INT(0, train_scores_alloc(&run, &s));
    long depth_sum = 0;
    train_score_decision(&opt, &run, 0, d, 0, -1, &s, &depth_sum);
    CHECK_INT(6, s.n);
    CHECK_INT(0, s.n_unrunnable);
    CHECK_INT(10, depth_sum);
    for (int i = 0; i < s.n; i++) {
        CHECK(s.v[i] == 0);
    }
    free(s.v);
    decision_destroy(d);
}

static void test_quadtree_and_scores(void)
{
    struct train_options opt;
    struct decision *d = NULL;
    train_options_init(&opt);
    opt.is_majority = true;
    opt.near_pct = 10;
    CHECK_INT(0, train_quadtree(&opt, &run, -1, &d));
    if (!d) {
        return;
    }
    static const int near[] = {0, 0, 1, 0, 1, 1};
    for (int c = 0; c < 6; c++) {
        CHECK_INT(near[c], decision_lookup(d, 0, procs[c / 3], msgs[c % 3]));
    }
    /* a at 2 x 10 costs 5 %. */
    struct train_scores s;
    CHECK_INT(0, train_scores_alloc(&run, &s));
    train_score_decision(&opt, &run, 0, d, 0, -1, &s, NULL);
    CHECK_INT(6, s.n);
    struct penalty_stats st;
    penalty_stats_compute(s.v, s.n, s.n_unrunnable, &st);
    CHECK(st.max > 4.99 && st.max < 5.01);
    CHECK(st.min == 0);
    free(s.v);
    decision_destroy(d);
}

/* A decision that names a method after the run's (default/0, which the
 * run never timed, as the exact table does outside the measured sizes):
 * its points are counted, not scored, and nothing past the run's times is
 * read (the last cell included). */
static void test_untimed_choice(void)
{
    static const char *const names[] = {"a/0", "b/0", "default/0"};
    static const char *const colls[] = {"bcast"};
    struct decision *d = NULL;
    CHECK_INT(0, decision_create("exact", 3, names, 1, colls, 1, NULL, &d));
    if (!d) {
        return;
    }
    int root = decision_add_node(d), lo, hi;
    CHECK_INT(0, decision_add_split(d, root, true, 2, &lo, &hi));
    decision_set_leaf(d, lo, 1);
    decision_set_leaf(d, hi, 2);
    decision_set_root(d, 0, root);
    CHECK_INT(0, decision_prepare(d));
    struct train_options opt;
    train_options_init(&opt);
    struct train_scores s;
    CHECK_INT(0, train_scores_alloc(&run, &s));
    train_score_decision(&opt, &run, 0, d, 0, -1, &s, NULL);
    CHECK_INT(3, s.n);
    CHECK_INT(3, s.n_untimed);
    free(s.v);
    decision_destroy(d);
}

/* No choice of d (made by case i of what), over every measured cell of r
 * (training and held-out), names a method the run found cannot run
 * there; d is destroyed. */
static void check_runnable(const char *what, size_t i, const struct run_data *r,
                           struct decision *d, bool is_one_grid)
{
    struct train_options opt;
    struct train_scores s;
    int n = 0;
    train_options_init(&opt);
    CHECK(d != NULL);
    if (!d || train_scores_alloc(r, &s) != 0) {
        return;
    }
    for (int g = 0; g < (is_one_grid ? 1 : r->n_grids); g++) {
        train_score_decision(&opt, r, g, d, g, -1, &s, NULL);
        n += s.n_unrunnable;
        s.n = s.n_unrunnable = s.n_inferred = s.n_untimed = 0;
    }
    if (n != 0) {
        fprintf(stderr, "%s case %zu: %d choices cannot run\n", what, i, n);
    }
    CHECK_INT(0, n);
    free(s.v);
    decision_destroy(d);
}

/* On the fixture run, whose maps have methods that cannot run at some
 * points: no tree, quadtree or exact decision, held out or not, depth
 * limited or not, ever chooses one of them at a measured point (the
 * decision goldens were the only test that saw it happen). */
static void test_never_unrunnable(void)
{
    struct run_data *r = NULL;
    CHECK_INT(0, run_data_load("tests/decision/run", NULL, 0, &r));
    if (!r) {
        return;
    }
    long unrunnable_cells = 0;
    for (int g = 0; g < r->n_grids; g++) {
        const struct run_grid *rg = &r->grids[g];
        for (long i = 0; i < (long)rg->n_procs * rg->n_msgs * r->n_methods;
             i++) {
            unrunnable_cells += rg->time_us[i] < 0;
        }
    }
    CHECK(unrunnable_cells > 0); /* else this test proves nothing */
    const char *colls[] = {r->grids[0].name, r->grids[1].name};
    static const struct {
        enum holdout_axis axis;
        int folds, skip, max_depth, min_objs;
        bool is_combined, is_majority, is_next_size;
    } cases[] = {
        {HOLDOUT_POINTS, 0, -1, -1, 2, false, false, true},
        {HOLDOUT_POINTS, 0, -1, -1, 1, false, false, false},
        {HOLDOUT_SIZES, 2, 1, -1, 8, false, false, true},
        {HOLDOUT_SIZES, 2, 0, -1, 2, false, false, false},
        {HOLDOUT_PROCS, 2, 1, 2, 2, false, false, false},
        {HOLDOUT_POINTS, 4, 0, -1, 2, true, false, true},
        {HOLDOUT_POINTS, 4, 3, 1, 2, true, false, false},
        {HOLDOUT_POINTS, 4, 1, -1, 2, false, true, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct train_options opt;
        train_options_init(&opt);
        opt.holdout_axis = cases[i].axis;
        opt.holdout_folds = cases[i].folds;
        opt.max_depth = cases[i].max_depth;
        opt.c45.min_objs = cases[i].min_objs;
        opt.is_combined = cases[i].is_combined;
        opt.is_majority = cases[i].is_majority;
        opt.is_next_size = cases[i].is_next_size;
        struct decision *d = NULL;
        CHECK_INT(0, train_create_decision(r, "c45", colls, 2, &d));
        CHECK_INT(0, train_trees(&opt, r, cases[i].skip, NULL, d));
        check_runnable("tree", i, r, d, false);
        d = NULL;
        opt.max_depth = cases[i].max_depth < 0 ? 3 : cases[i].max_depth;
        CHECK_INT(0, train_quadtree(&opt, r, cases[i].skip, &d));
        check_runnable("quadtree", i, r, d, true);
        d = NULL;
        CHECK_INT(0, train_exact(&opt, r, cases[i].skip, &d));
        check_runnable("exact", i, r, d, false);
    }
    run_data_destroy(r);
}

int main(void)
{
    test_never_unrunnable();
    test_untimed_choice();
    test_folds();
    test_labels();
    test_c45_data();
    test_trees();
    test_quadtree_and_scores();
    return check_exit();
}
