/* The leaf budget of C4.5 trees (train_options.max_leaves, `tree -r
 * --leaves N`) on a synthetic map whose penalties are known by
 * construction: C4.5 grows many leaves over stripes of two methods 2 %
 * apart (alternate communicator sizes), while one corner, where every other
 * method is twice as slow, is what matters. Cut to 4 leaves by penalty, the
 * tree keeps the corner and gives the rest the method 0.5 % off everywhere; by
 * majority class the rest would cost 2 % at half its points. Case weights
 * by the penalty at stake (`--weights stake`) make C4.5 isolate one point
 * where its neighbours' method is 30 % off, which unweighted it leaves in
 * one leaf; cut by least worst penalty first (`--leaf-cut worst`), the
 * budget keeps it where least total penalty gives it up. */
#include <stdio.h>
#include <stdlib.h>

#include "decision/decision.h"
#include "tests/check.h"

enum { N_PROCS = 8, N_MSGS = 8, N_CELLS = N_PROCS * N_MSGS, N_METHODS = 4 };
enum { A, B, C, D }; /* a/0 b/0 c/0 d/0 */

static int procs[N_PROCS] = {2, 3, 4, 5, 6, 7, 8, 9};
static long msgs[N_MSGS] = {1, 2, 4, 8, 16, 32, 64, 128};
static int best[N_CELLS];
static double best_us[N_CELLS], default_us[N_CELLS];
static double time_us[N_CELLS * N_METHODS];
static struct run_method methods[N_METHODS] = {
    {"a", 0, "a/0"}, {"b", 0, "b/0"}, {"c", 0, "c/0"}, {"d", 0, "d/0"}};
static int ppn_values[] = {1};
static struct run_grid grid = {.name = "bcast",
                               .ppn = 1,
                               .n_procs = N_PROCS,
                               .n_msgs = N_MSGS,
                               .procs = procs,
                               .msgs = msgs,
                               .best = best,
                               .best_us = best_us,
                               .default_us = default_us,
                               .time_us = time_us};
static const struct run_data run = {.n_methods = N_METHODS,
                                    .methods = methods,
                                    .n_grids = 1,
                                    .grids = &grid,
                                    .n_ppn = 1,
                                    .ppn = ppn_values};

/* The corner: procs >= 8 and at least 64 B. */
static bool is_corner(int p, int m)
{
    return procs[p] >= 8 && msgs[m] >= 64;
}

/* Times in us: in the corner d 10, the others 20 (100 % off); elsewhere a
 * and c alternate by communicator size as the optimum at 10, the other 10.2 (2
 * % off), b 10.05 (0.5 % off) and d 20. */
static void make_map(void)
{
    for (int p = 0; p < N_PROCS; p++) {
        for (int m = 0; m < N_MSGS; m++) {
            int c = p * N_MSGS + m;
            double *t = time_us + c * N_METHODS;
            default_us[c] = -1;
            best_us[c] = 10;
            if (is_corner(p, m)) {
                t[A] = t[B] = t[C] = 20;
                t[D] = 10;
                best[c] = D;
            } else {
                bool is_a = p % 2 == 0;
                t[A] = is_a ? 10 : 10.2;
                t[C] = is_a ? 10.2 : 10;
                t[B] = 10.05;
                t[D] = 20;
                best[c] = is_a ? A : C;
            }
        }
    }
}

/* The tree of the map under opt; its leaves and its penalties' mean and
 * max over every point (%), and the largest in the corner. */
static void build(const struct train_options *opt, int *leaves, double *mean,
                  double *max, double *corner_max)
{
    struct decision *d = NULL;
    const char *coll = "bcast";
    *leaves = -1;
    *mean = *max = *corner_max = 1e9;
    CHECK_INT(0, train_create_decision(&run, "c45", &coll, 1, &d));
    if (!d) {
        return;
    }
    CHECK_INT(0, train_trees(opt, &run, -1, NULL, d));
    int tests, depth;
    decision_count(d, leaves, &tests, &depth);
    *mean = *max = *corner_max = 0;
    for (int p = 0; p < N_PROCS; p++) {
        for (int m = 0; m < N_MSGS; m++) {
            int c = p * N_MSGS + m,
                k = decision_lookup(d, 0, procs[p], msgs[m]);
            CHECK(k >= 0 && k < N_METHODS);
            if (k < 0 || k >= N_METHODS) {
                continue;
            }
            double pct = 100 * (time_us[c * N_METHODS + k] / best_us[c] - 1);
            *mean += pct / N_CELLS;
            *max = pct > *max ? pct : *max;
            if (is_corner(p, m) && pct > *corner_max) {
                *corner_max = pct;
            }
        }
    }
    decision_destroy(d);
}

static void options(struct train_options *opt, int max_leaves, bool is_majority)
{
    train_options_init(opt);
    opt->c45.min_objs = 1;
    opt->c45.cf = 1; /* C4.5 prunes next to nothing: the stripes stay */
    opt->is_next_size = true; /* no third methods between sizes: the
                                 tree's leaves are the decision's */
    opt->max_leaves = max_leaves;
    opt->is_majority = is_majority;
}

static void test_budget(void)
{
    struct train_options opt;
    int leaves;
    double mean, max, corner;
    /* C4.5 alone: 10 leaves (a stripe each below 64 B, then procs 2 and
     * the corner apart from the rest at 64 and 128 B). */
    options(&opt, 0, false);
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK(leaves > 4);
    CHECK(corner < 1e-9);
    /* At most 4 leaves by penalty (C4.5's tree takes procs 2 apart first,
     * then the sizes up to 32 B, then the corner: 4 leaves isolate it):
     * the corner kept (d, exact there), b elsewhere but at procs 2, 0.5 %
     * at each of at most 60 points. */
    options(&opt, 4, false);
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK(leaves <= 4);
    CHECK(corner < 1e-9);
    CHECK(max < 0.5 + 1e-6);
    CHECK(mean < 60 * 0.5 / 64 + 1e-6);
    /* The same budget, collapsed leaves by majority class (C4.5's): the
     * rest takes a or c, 2 % off at half its points. */
    options(&opt, 4, true);
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK(leaves <= 4);
    CHECK(corner < 1e-9);
    CHECK(max > 1.9);
    /* One leaf: the method of least total penalty over all 64 points is b
     * (4 x 100 + 60 x 0.5 = 430 against d's 60 x 100). */
    options(&opt, 1, false);
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK_INT(1, leaves);
    CHECK(corner > 99 && corner < 101);
}

/* One point, (6, 16 B), where c is the optimum and a and b are 30 % off;
 * elsewhere a (at even procs indexes, or with is_striped every point) at
 * 10, b 0.2 % off there (2 % with is_striped, where b is the optimum at
 * odd ones and a 2 % off), c 4 % off, d twice as slow. */
enum { POINT_P = 4, POINT_M = 4 };
static void make_point_map(bool is_striped)
{
    for (int p = 0; p < N_PROCS; p++) {
        for (int m = 0; m < N_MSGS; m++) {
            int c = p * N_MSGS + m;
            double *t = time_us + c * N_METHODS;
            bool is_a = !is_striped || p % 2 == 0;
            default_us[c] = -1;
            best_us[c] = 10;
            t[A] = is_a ? 10 : 10.2;
            t[B] = is_a ? (is_striped ? 10.2 : 10.02) : 10;
            t[C] = 10.4;
            t[D] = 20;
            best[c] = is_a ? A : B;
            if (p == POINT_P && m == POINT_M) {
                t[A] = t[B] = 13;
                t[C] = 10;
                best[c] = C;
            }
        }
    }
}

static void test_stake(void)
{
    struct train_options opt;
    int leaves;
    double mean, max, corner;
    make_point_map(false);
    /* unweighted, C4.5 grows one leaf: a, 30 % off at the point */
    options(&opt, 25, false);
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK_INT(1, leaves);
    CHECK(max > 29.9);
    /* weighted by the penalty at stake (1 + 30 / 5 there, 1 elsewhere,
     * averaging 1), it isolates the point: c there, a elsewhere */
    opt.stake_pct = 5;
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK(leaves > 1 && leaves <= 5);
    CHECK(max < 1e-9);
}

static void test_worst_first(void)
{
    struct train_options opt;
    int leaves;
    double mean, max, corner;
    make_point_map(true);
    /* 4 leaves: by least total penalty the stripes are worth more than
     * the point (b there, 30 % off); least worst first keeps the point
     * apart and the rest within 4 % (c: 0.4 at each point it takes) */
    options(&opt, 4, false);
    opt.stake_pct = 5;
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK(leaves <= 4);
    CHECK(max > 29.9);
    opt.is_worst_first = true;
    build(&opt, &leaves, &mean, &max, &corner);
    CHECK(leaves <= 4);
    CHECK(max < 4 + 1e-6);
}

int main(void)
{
    make_map();
    test_budget();
    test_stake();
    test_worst_first();
    return check_exit();
}
