/* The adaptive grid walk on synthetic decision maps whose boundaries are
 * known: it must measure both sides of every boundary, and nothing but the
 * coarse grid (and its probes) where one method wins everywhere; along the
 * ranks per node too, where a ppn lacks rows its neighbours have. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "search/refine.h"
#include "tests/check.h"

#define N_PROCS 63 /* 2..64 */
#define N_MSGS 21  /* 1 B..1 MiB by 2 */
#define COARSE (15 * 6)
/* the coarse cells with 8 points or more besides their corners: procs
 * 5..7, 9..15, 17..31, 33..63 by the 5 message intervals */
#define PROBES (4 * 5)
/* then one point of every procs still measured nowhere: the 48 between
 * coarse procs but the centre probes' 6, 12, 24 and 48 */
#define ROW_PROBES (63 - 15 - 4)

static int procs[N_PROCS];
static long msgs[N_MSGS];

struct map {
    int (*label)(int pi, int mi);
    int measured;
};

static int one_method(int pi, int mi)
{
    (void)pi;
    (void)mi;
    return 7;
}

/* Three methods: 0 below a cut that rises with procs, 1 above it, 2 on
 * large messages past 40 processes. */
static int three_regions(int pi, int mi)
{
    int p = procs[pi];
    if (p >= 40 && mi >= 15) {
        return 2;
    }
    return mi >= 6 + pi / 10 ? 1 : 0;
}

/* A time that log-log interpolation reproduces exactly: P^0.5 m^0.75. */
static double power_time(int pi, int mi)
{
    return 3 * pow(procs[pi], 0.5) * pow((double)msgs[mi], 0.75);
}

static int map_measure(void *ctx, int pi, int mi, int *label, double *time_us)
{
    struct map *m = ctx;
    m->measured++;
    *label = m->label(pi, mi);
    *time_us = power_time(pi, mi);
    return 0;
}

static int count_measured(const struct refine_point *out, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        k += out[i].is_measured;
    }
    return k;
}

/* The points whose label is not the map's. */
static int count_wrong(int (*label)(int, int), const struct refine_point *out)
{
    int wrong = 0;
    for (int i = 0; i < N_PROCS * N_MSGS; i++) {
        wrong += out[i].label != label(i / N_MSGS, i % N_MSGS);
    }
    return wrong;
}

/* Walks the 63 x 21 grid over a map (with centre probes of rectangles of
 * probe_points or more, and row probes or not); returns how many points it
 * measured. */
static int walk_map(int (*label)(int, int),
                    double (*penalty)(void *, int, int, int), int probe_points,
                    int probe_rows, struct refine_point *out)
{
    struct refine_grid g = {procs, N_PROCS, msgs, N_MSGS};
    struct refine_params p = REFINE_PARAMS_DEFAULT;
    p.probe_points = probe_points;
    p.probe_rows = probe_rows;
    struct map m = {label, 0};
    struct refine_oracle o = {map_measure, penalty, NULL, &m};
    CHECK_INT(0, refine_walk(&g, &p, &o, out));
    CHECK_INT(m.measured, count_measured(out, N_PROCS * N_MSGS));
    return m.measured;
}

static void test_one_method(void)
{
    struct refine_point out[N_PROCS * N_MSGS];
    /* procs 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64; messages
     * 1, 16, ..., 1 MiB (index 0, 4, 8, 12, 16, 20) */
    CHECK_INT(COARSE, walk_map(one_method, NULL, 0, 0, out));
    for (int pi = 0; pi < N_PROCS; pi++) {
        for (int mi = 0; mi < N_MSGS; mi++) {
            const struct refine_point *pt = &out[pi * N_MSGS + mi];
            CHECK_INT(7, pt->label);
            CHECK(fabs(pt->time_us - power_time(pi, mi)) <
                  1e-9 * power_time(pi, mi));
        }
    }
    /* with the default probes: the centre of each large coarse cell and
     * one point of every other procs, which fit, and nothing more */
    CHECK_INT(COARSE + PROBES, walk_map(one_method, NULL, 8, 0, out));
    CHECK_INT(COARSE + PROBES + ROW_PROBES,
              walk_map(one_method, NULL, 8, 1, out));
}

static void test_boundaries(void)
{
    struct refine_point out[N_PROCS * N_MSGS];
    struct refine_params defaults = REFINE_PARAMS_DEFAULT;
    CHECK(walk_map(three_regions, NULL, defaults.probe_points,
                   defaults.probe_rows, out) < N_PROCS * N_MSGS / 2);
    int wrong = 0, unseen = 0;
    for (int pi = 0; pi < N_PROCS; pi++) {
        for (int mi = 0; mi < N_MSGS; mi++) {
            const struct refine_point *pt = &out[pi * N_MSGS + mi];
            wrong += pt->label != three_regions(pi, mi);
            /* a boundary cell on a line of the coarse grid (procs 2^k or
             * 2^k +- 1, a message size by 16): the walk located it, so both
             * sides were measured; between those lines the boundary
             * cells are inferred, and must be right (wrong above) */
            int n = procs[pi];
            bool is_coarse_procs = (n & (n - 1)) == 0 ||
                                   ((n - 1) & (n - 2)) == 0 ||
                                   ((n + 1) & n) == 0;
            if (mi % 4 == 0 && pi + 1 < N_PROCS &&
                three_regions(pi, mi) != three_regions(pi + 1, mi)) {
                unseen +=
                    !pt->is_measured + !out[(pi + 1) * N_MSGS + mi].is_measured;
            }
            if (is_coarse_procs && mi + 1 < N_MSGS &&
                three_regions(pi, mi) != three_regions(pi, mi + 1)) {
                unseen +=
                    !pt->is_measured + !out[pi * N_MSGS + mi + 1].is_measured;
            }
        }
    }
    CHECK_INT(0, wrong);
    CHECK_INT(0, unseen);
}

/* Methods that differ by less than agree_penalty are one region: a map of
 * two near-equal methods measures only the coarse grid. */
static double near_equal_penalty(void *ctx, int pi, int mi, int label)
{
    (void)ctx;
    (void)pi;
    (void)mi;
    return label == 0 || label == 1 ? 0.01 : -1;
}

static int striped(int pi, int mi)
{
    return (pi + mi) % 2;
}

static void test_near_equal(void)
{
    struct refine_point out[N_PROCS * N_MSGS];
    CHECK_INT(COARSE, walk_map(striped, near_equal_penalty, 0, 0, out));
}

/* What it cannot see: an island of another method strictly inside a
 * coarse cell whose corners and centre agree (odd procs 17..23, 4 and 8
 * bytes; the cell's centre is P=24). */
static int island(int pi, int mi)
{
    int p = procs[pi];
    return p >= 17 && p <= 23 && p % 2 == 1 && mi >= 2 && mi <= 3;
}

static void test_island_missed(void)
{
    struct refine_point out[N_PROCS * N_MSGS];
    CHECK_INT(COARSE + PROBES + ROW_PROBES, walk_map(island, NULL, 8, 1, out));
    CHECK_INT(0, out[(17 - 2) * N_MSGS + 2].label);
}

/* An island that holds its cell's centre: the probe there sees it, and
 * the refinement around it finds all of it; without probes it is missed. */
static int centred_island(int pi, int mi)
{
    int p = procs[pi];
    return p >= 21 && p <= 27 && mi >= 1 && mi <= 3 ? 3 : 0;
}

/* With every probe, the walk gets the whole map right; with the probes
 * of probe_points and probe_rows only, it misses point (p, mi). */
static void check_probed(int (*label)(int, int), int probe_points,
                         int probe_rows, int p, int mi)
{
    struct refine_point out[N_PROCS * N_MSGS];
    walk_map(label, NULL, 8, 1, out);
    CHECK_INT(0, count_wrong(label, out));
    walk_map(label, NULL, probe_points, probe_rows, out);
    CHECK_INT(0, out[(p - 2) * N_MSGS + mi].label);
}

/* A communicator size between coarse ones (13: no centre probe's) with a
 * method of its own at every message size: one row probe finds it, and the
 * refinement around it all of it; without row probes it is missed. */
static int odd_row(int pi, int mi)
{
    (void)mi;
    return procs[pi] == 13 ? 5 : 0;
}

/* One algorithm whose best segment size doubles with the message size:
 * label 10 + mi stands for it at segment 2^mi, and each step away from a
 * point's own segment size loses 10 % there. Its points agree, so only
 * the coarse grid is measured, and every point between inherits the
 * segment size between its corners'. */
static int drifting(int pi, int mi)
{
    (void)pi;
    return 10 + mi;
}

static double drifting_penalty(void *ctx, int pi, int mi, int label)
{
    (void)ctx;
    return label >= 10 ? 0.1 * abs(label - drifting(pi, mi)) : -1;
}

/* The same, but every other segment size loses 60 % (as past an eager
 * limit). */
static double broken_penalty(void *ctx, int pi, int mi, int label)
{
    (void)ctx;
    return label >= 10 ? (label == drifting(pi, mi) ? 0 : 0.6) : -1;
}

static int drifting_between(void *ctx, int a, int b, double f, int pi, int mi)
{
    (void)ctx;
    (void)pi;
    (void)mi;
    return a >= 10 && b >= 10 ? (int)lround((1 - f) * a + f * b) : -1;
}

/* Two segment sizes with none between (label 10 below 512 B, 11 from it),
 * each losing 60 % where the other wins: the size "between" is one of
 * theirs, which holds at its own point only, so the boundary is found. */
static int two_sizes(int pi, int mi)
{
    (void)pi;
    return mi < 9 ? 10 : 11;
}

static double two_sizes_penalty(void *ctx, int pi, int mi, int label)
{
    (void)ctx;
    return label == two_sizes(pi, mi) ? 0 : 0.6;
}

static int nearer_size(void *ctx, int a, int b, double f, int pi, int mi)
{
    (void)ctx;
    (void)pi;
    (void)mi;
    return f < 0.5 ? a : b;
}

static void test_no_size_between(void)
{
    struct refine_grid g = {procs, N_PROCS, msgs, N_MSGS};
    struct refine_params p = REFINE_PARAMS_DEFAULT;
    struct map m = {two_sizes, 0};
    struct refine_oracle o = {map_measure, two_sizes_penalty, nearer_size, &m};
    struct refine_point out[N_PROCS * N_MSGS];
    CHECK_INT(0, refine_walk(&g, &p, &o, out));
    CHECK_INT(0, count_wrong(two_sizes, out));
}

/* Walks the drifting map; returns how many points it measured. */
static int walk_drifting(double (*penalty)(void *, int, int, int),
                         int (*between)(void *, int, int, double, int, int),
                         struct refine_point *out)
{
    struct refine_grid g = {procs, N_PROCS, msgs, N_MSGS};
    struct refine_params p = REFINE_PARAMS_DEFAULT;
    p.probe_points = 0;
    p.probe_rows = 0;
    struct map m = {drifting, 0};
    struct refine_oracle o = {map_measure, penalty, between, &m};
    CHECK_INT(0, refine_walk(&g, &p, &o, out));
    return m.measured;
}

static void test_segment_drift(void)
{
    struct refine_point out[N_PROCS * N_MSGS];
    CHECK_INT(COARSE, walk_drifting(drifting_penalty, drifting_between, out));
    CHECK_INT(0, count_wrong(drifting, out));
    /* every size of the coarse procs is measured: without the oracle's
     * between (every size its own method), where the size between is not
     * known to hold, and where it is known to lose */
    CHECK_INT(15 * N_MSGS, walk_drifting(drifting_penalty, NULL, out));
    CHECK_INT(15 * N_MSGS, walk_drifting(NULL, drifting_between, out));
    CHECK_INT(15 * N_MSGS,
              walk_drifting(broken_penalty, drifting_between, out));
    CHECK_INT(0, count_wrong(drifting, out));
}

/* One procs value and one message size: the single point is measured. */
static void test_single_point(void)
{
    int one_proc = 4;
    long one_msg = 0;
    struct refine_grid g = {&one_proc, 1, &one_msg, 1};
    struct refine_params p = REFINE_PARAMS_DEFAULT;
    struct map m = {one_method, 0};
    struct refine_oracle o = {map_measure, NULL, NULL, &m};
    struct refine_point out[1];
    CHECK_INT(0, refine_walk(&g, &p, &o, out));
    CHECK_INT(1, m.measured);
    CHECK_INT(1, out[0].is_measured);
}

/* Four ranks per node, each with the procs of [2, 4, 6, 8, 12, 16] it
 * divides: ppn 4 lacks the rows 2 and 6, ppn 8 those and 4 and 12. */
#define L_ROWS (6 + 6 + 4 + 2)
#define L_MSGS 9 /* 1 B .. 256 B by 2: coarse at 1, 16 and 256 B */
static const int l_ppn[L_ROWS] = {1, 1, 1, 1, 1, 1, 2, 2, 2,
                                  2, 2, 2, 4, 4, 4, 4, 8, 8};
static const int l_procs[L_ROWS] = {2, 4,  6,  8, 12, 16, 2,  4, 6,
                                    8, 12, 16, 4, 8,  12, 16, 8, 16};
static long l_msgs[L_MSGS];

struct layered {
    int (*label)(int row, int mi);
    int asked[L_ROWS][L_MSGS]; /* how often the oracle measured there */
};

/* One method below 64 B, another from 64 B up, at every ppn: a boundary
 * between the coarse sizes 16 and 256 B, which the walk refines to 32
 * and 64 B. */
static int same_at_every_ppn(int row, int mi)
{
    (void)row;
    return mi >= 6 ? 1 : 0;
}

/* As same_at_every_ppn, but from 4 ranks per node up another method wins
 * from 64 B. */
static int other_above_ppn_2(int row, int mi)
{
    return mi < 6 ? 0 : l_ppn[row] >= 4 ? 2 : 1;
}

static int layered_measure(void *ctx, int row, int mi, int *label,
                           double *time_us)
{
    struct layered *l = ctx;
    l->asked[row][mi]++;
    *label = l->label(row, mi);
    *time_us = 2 * pow(l_procs[row], 0.5) * pow((double)l_msgs[mi] + 1, 0.5);
    return 0;
}

/* A method not the optimum loses 50 %. */
static double layered_penalty(void *ctx, int row, int mi, int label)
{
    const struct layered *l = ctx;
    return label == l->label(row, mi) ? 0 : 0.5;
}

static int walk_layers(struct layered *l, struct refine_point *out)
{
    struct refine_layers g = {l_ppn, l_procs, L_ROWS, l_msgs, L_MSGS};
    struct refine_params p = REFINE_PARAMS_DEFAULT;
    struct refine_oracle o = {layered_measure, layered_penalty, NULL, l};
    CHECK_INT(0, refine_walk_layers(&g, &p, &o, out));
    int wrong = 0, asked_twice = 0;
    for (int row = 0; row < L_ROWS; row++) {
        for (int mi = 0; mi < L_MSGS; mi++) {
            const struct refine_point *pt = &out[row * L_MSGS + mi];
            wrong += pt->label != l->label(row, mi);
            asked_twice += l->asked[row][mi] > 1;
            /* measured exactly where the oracle was asked */
            CHECK_INT(l->asked[row][mi], pt->is_measured);
        }
    }
    CHECK_INT(0, asked_twice);
    return wrong;
}

/* The ppn axis refines as the others do: every ppn measures its coarse
 * grid (a ppn between others can differ from both everywhere); a ppn
 * between two walked ones takes their method at a point its own walk
 * would measure to refine, where both measured it and agree, and
 * measures where they disagree or one lacks the row. */
static void test_ppn_layers(void)
{
    struct refine_point out[L_ROWS * L_MSGS];
    struct layered same = {same_at_every_ppn, {{0}}};
    CHECK_INT(0, walk_layers(&same, out));
    int coarse_m[3] = {0, 4, 8};
    for (int k = 0; k < 3; k++) {
        /* every ppn's coarse grid at 8 ranks: rows 3, 9, 13, 16 */
        CHECK_INT(1, same.asked[3][coarse_m[k]]);
        CHECK_INT(1, same.asked[9][coarse_m[k]]);
        CHECK_INT(1, same.asked[13][coarse_m[k]]);
        CHECK_INT(1, same.asked[16][coarse_m[k]]);
    }
    /* ppn 1 and 8 (walked alone) refine the boundary at 8 ranks: 64 B,
     * then 32 B */
    CHECK_INT(1, same.asked[3][6]);
    CHECK_INT(1, same.asked[3][5]);
    CHECK_INT(1, same.asked[16][6]);
    CHECK_INT(1, same.asked[16][5]);
    /* ppn 2 between them at 8 ranks: both measured 32 and 64 B and agree,
     * so it takes their methods there without measuring, with a time
     * between theirs (in log ppn) */
    CHECK_INT(0, same.asked[9][6]);
    CHECK_INT(0, same.asked[9][5]);
    CHECK_INT(0, out[9 * L_MSGS + 6].is_measured);
    double t1 = out[3 * L_MSGS + 6].time_us, t8 = out[16 * L_MSGS + 6].time_us;
    CHECK(fabs(out[9 * L_MSGS + 6].time_us - t1 * pow(t8 / t1, 1.0 / 3)) <
          1e-9 * t1);
    /* its 2 ranks row, missing at ppn 8, is refined by measuring */
    CHECK_INT(1, same.asked[6][6]);
    CHECK_INT(1, same.asked[6][5]);
    /* ppn 4, between ppn 2 (whose 32 and 64 B at 8 ranks are inferred: no
     * guide) and ppn 8, measures them */
    CHECK_INT(1, same.asked[13][6]);

    struct layered differ = {other_above_ppn_2, {{0}}};
    CHECK_INT(0, walk_layers(&differ, out));
    /* ppn 2 at 8 ranks: ppn 1 and 8 differ at 64 B (measured there) */
    CHECK_INT(1, differ.asked[9][6]);
}

int main(void)
{
    for (int i = 0; i < L_MSGS; i++) {
        l_msgs[i] = 1L << i;
    }
    for (int i = 0; i < N_PROCS; i++) {
        procs[i] = i + 2;
    }
    for (int i = 0; i < N_MSGS; i++) {
        msgs[i] = 1L << i;
    }
    test_one_method();
    test_boundaries();
    test_near_equal();
    test_island_missed();
    check_probed(centred_island, 0, 0, 24, 2);
    check_probed(odd_row, 8, 0, 13, 10);
    test_segment_drift();
    test_no_size_between();
    test_single_point();
    test_ppn_layers();
    return check_exit();
}
