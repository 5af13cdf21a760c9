/* Cuts between measured sizes: two methods whose times are power laws
 * crossing at 1024 B, measured at 128, 512, 4096 and 16384 B only, put the
 * cut of the C4.5 tree, of the quadtree and of the exact table at 1024 (the
 * log-log interpolation is exact for power laws); a collective of one
 * method keeps it everywhere; the old rule (--between next) still cuts at
 * the measured size; the same on communicator sizes (4 and 16 measured,
 * crossing at 8); a third method that is faster than both neighbours'
 * between them takes its sizes. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision/decision.h"
#include "store/export.h"
#include "store/journal.h"
#include "store/tables.h"
#include "tests/check.h"

static const long sizes[] = {128, 512, 4096, 16384};
enum { N_SIZES = 4 };

/* binomial wins above 1024 B, linear below: 2 m^0.5 = m^0.6 at m = 2^10 */
static double time_binomial(long m)
{
    return 2 * pow((double)m, 0.5);
}
static double time_linear(long m)
{
    return pow((double)m, 0.6);
}

static void write_time(FILE *f, const char *coll, int procs, long m,
                       const char *alg, double t)
{
    fprintf(f, "%s,%d,%ld,%s,0,1,%.17g,%.17g,%.17g,%.17g,0,0.001\n", coll,
            procs, m, alg, t, t, t, t);
}

/* The run's two tables, opened for writing, their headers written. */
static void open_run(const char *dir, FILE **meas, FILE **opt)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/measurements.csv", dir);
    *meas = fopen(path, "w");
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    *opt = fopen(path, "w");
    CHECK(*meas && *opt);
    if (!*meas || !*opt) {
        exit(1);
    }
    fprintf(*meas, "collective,procs,msg_bytes,algorithm,segment_bytes,reps,"
                   "mean_us,median_us,min_us,max_us,sd_us,cost_s\n");
    fprintf(*opt, "collective,procs,msg_bytes,algorithm,segment_bytes,"
                  "time_us\n");
}

/* A new run directory from template dir, its tables opened; false (a
 * failure counted) when it cannot be made. */
static bool new_run(char *dir, FILE **meas, FILE **opt)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        check_failures++;
        return false;
    }
    open_run(dir, meas, opt);
    return true;
}

/* The run of dir and its optimal table. */
static void load_run(const char *dir, struct run_data **r,
                     struct measurement **rows, size_t *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    CHECK_INT(0, run_data_load(dir, NULL, 0, r));
    CHECK_INT(0, table_read_optimal(path, rows, n));
}

static void write_run(const char *dir)
{
    FILE *meas, *opt;
    open_run(dir, &meas, &opt);
    for (int procs = 4; procs <= 8; procs += 4) {
        for (int i = 0; i < N_SIZES; i++) {
            long m = sizes[i];
            double b = time_binomial(m), l = time_linear(m);
            write_time(meas, "bcast", procs, m, "binomial", b);
            write_time(meas, "bcast", procs, m, "linear", l);
            fprintf(opt, "bcast,%d,%ld,%s,0,%.17g\n", procs, m,
                    b < l ? "binomial" : "linear", b < l ? b : l);
            /* reduce: binomial only, always the optimum */
            write_time(meas, "reduce", procs, m, "binomial", b);
            write_time(meas, "reduce", procs, m, "linear", 2 * b);
            fprintf(opt, "reduce,%d,%ld,binomial,0,%.17g\n", procs, m, b);
        }
    }
    fclose(meas);
    fclose(opt);
}

/* bcast at 1 KiB and 64 KiB on 4 and 16 processes: linear's time grows as
 * P, binomial's as 2.83 sqrt(P): they cross at P = 8 between the two. */
static void write_procs_run(const char *dir)
{
    FILE *meas, *opt;
    open_run(dir, &meas, &opt);
    for (int procs = 4; procs <= 16; procs *= 4) {
        for (long m = 1024; m <= 65536; m *= 64) {
            double l = procs * sqrt((double)m);
            double b = sqrt(8.0) * sqrt((double)procs) * sqrt((double)m);
            write_time(meas, "bcast", procs, m, "binomial", b);
            write_time(meas, "bcast", procs, m, "linear", l);
            fprintf(opt, "bcast,%d,%ld,%s,0,%.17g\n", procs, m,
                    b < l ? "binomial" : "linear", b < l ? b : l);
        }
    }
    fclose(meas);
    fclose(opt);
}

static const char *choice(const struct decision *d, const char *coll, int procs,
                          long m)
{
    int c = decision_find_collective(d, coll);
    return c < 0 ? "?" : d->methods[decision_lookup(d, c, procs, m)];
}

/* bcast at both procs: linear up to 1024 B, binomial above; reduce
 * binomial everywhere (between and beyond the measured sizes). */
static void check_crossing(const struct decision *d, const char *what, long cut)
{
    for (int procs = 4; procs <= 8; procs += 4) {
        for (long m = 1; m <= 20000; m++) {
            const char *want = m <= cut ? "linear/0" : "binomial/0";
            const char *got = choice(d, "bcast", procs, m);
            if (strcmp(want, got) != 0) {
                fprintf(stderr, "%s: bcast P=%d m=%ld: %s, expected %s\n", what,
                        procs, m, got, want);
                check_failures++;
                return;
            }
            if (decision_find_collective(d, "reduce") >= 0) {
                CHECK_STR("binomial/0", choice(d, "reduce", procs, m));
            }
        }
    }
}

static void remove_run(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/measurements.csv", dir);
    unlink(path);
    rmdir(dir);
}

/* A log time ratio that is a line from lo (at the smaller size) to hi. */
static struct between_diff line(double lo, double hi)
{
    return (struct between_diff){2, {0, 1}, {lo, hi}};
}

static void check_between_cut(void)
{
    double lo = log(time_linear(512) / time_binomial(512));
    double hi = log(time_linear(4096) / time_binomial(4096));
    struct between_diff crossing = line(lo, hi), twice = line(2 * lo, hi);
    struct between_diff up = line(0.1, 0.2), down = line(-0.1, -0.2);
    struct between_diff zero = line(0, 0);
    CHECK_INT(1024, between_cut(512, 4096, 1, &crossing));
    CHECK_INT(1448, between_cut(512, 4096, 1, &twice)); /* 512 * 8^0.5 */
    CHECK_INT(512, between_cut(512, 4096, 1, &up));     /* upper wins */
    CHECK_INT(4095, between_cut(512, 4096, 1, &down));
    CHECK_INT(512, between_cut(512, 4096, 1, &zero));    /* a tie */
    CHECK_INT(512, between_cut(512, 513, 1, &crossing)); /* nothing between */
    /* two points: one loses little below its crossing (512..1024), the
     * other much above its own (at 2896): the cut goes near the latter */
    struct between_diff two[] = {line(lo, hi), line(3 * lo, -0.5 * lo)};
    long cut = between_cut(512, 4096, 2, two);
    CHECK(cut > 1024 && cut <= 2896);
    /* a bend: the lower method ahead up to s = 0.5, then the line to the
     * upper's lead: the crossing is past the bend, at s = 0.75 */
    struct between_diff bend = {3, {0, 0.5, 1}, {-0.2, -0.1, 0.1}};
    CHECK_INT(2435, between_cut(512, 4096, 1, &bend)); /* 512 * 8^0.75 */
}

/* A segment size between two measured message sizes: knomial/2048 at
 * 1 KiB runs unsegmented (knomial/0's time); knomial/0 grows 4x from 1 to
 * 4 KiB (a protocol limit), knomial/2048 is 150 us at 4 KiB, linear/0 95
 * to 200 us. The line of knomial/2048's own two times crosses linear's at
 * 1,262 B; but up to 2 KiB it is knomial unsegmented, slower than linear
 * all the way, and the cut is at 3,027 B, past 2 KiB. */
static void check_segment_between(void)
{
    char dir[] = "/tmp/autotune-between-seg-XXXXXX";
    FILE *meas, *opt;
    if (!new_run(dir, &meas, &opt)) {
        return;
    }
    static const long m[2] = {1024, 4096};
    static const double knomial[2] = {100, 400}, linear[2] = {95, 200};
    for (int i = 0; i < 2; i++) {
        write_time(meas, "bcast", 8, m[i], "knomial", knomial[i]);
        write_time(meas, "bcast", 8, m[i], "linear", linear[i]);
    }
    fprintf(meas, "bcast,8,4096,knomial,2048,1,150,150,150,150,0,0.001\n");
    fprintf(opt, "bcast,8,1024,linear,0,95\nbcast,8,4096,knomial,2048,150\n");
    fclose(meas);
    fclose(opt);
    struct run_data *r = NULL;
    struct measurement *rows = NULL;
    long *cuts = NULL, *procs_cuts = NULL;
    size_t n = 0;
    load_run(dir, &r, &rows, &n);
    if (r && rows) {
        CHECK_INT(
            0, between_table_cuts(r, rows, n, &cuts, &procs_cuts, NULL, NULL));
        CHECK_INT(3027, cuts ? cuts[1] : 0);
        struct train_options o;
        train_options_init(&o);
        struct decision *exact = NULL;
        CHECK_INT(0, train_exact(&o, r, -1, &exact));
        if (exact) {
            CHECK_STR("linear/0", choice(exact, "bcast", 8, 3027));
            CHECK_STR("knomial/2048", choice(exact, "bcast", 8, 3028));
        }
        decision_destroy(exact);
    }
    free(cuts);
    free(procs_cuts);
    free(rows);
    run_data_destroy(r);
    remove_run(dir);
}

/* The procs cut of the tree, the exact table and the export's cuts at 8. */
static void check_procs_crossing(void)
{
    char dir[] = "/tmp/autotune-between-procs-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        check_failures++;
        return;
    }
    write_procs_run(dir);
    struct run_data *r = NULL;
    struct decision *tree = NULL, *exact = NULL, *table = NULL;
    struct measurement *rows = NULL;
    long *cuts = NULL, *procs_cuts = NULL;
    size_t n = 0;
    struct train_options opt;
    train_options_init(&opt);
    opt.c45.min_objs = 1;
    load_run(dir, &r, &rows, &n);
    if (r && rows) {
        const char *coll = r->grids[0].name;
        CHECK_INT(0, train_create_decision(r, "c45", &coll, 1, &tree));
        CHECK_INT(0, train_trees(&opt, r, -1, NULL, tree));
        CHECK_INT(0, train_exact(&opt, r, -1, &exact));
        CHECK_INT(
            0, between_table_cuts(r, rows, n, &cuts, &procs_cuts, NULL, NULL));
        CHECK_INT(
            0, decision_from_table(rows, n, cuts, procs_cuts, NULL, 0, &table));
    }
    const struct decision *ds[] = {tree, exact, table};
    for (int k = 0; k < 3; k++) {
        for (int procs = 4; ds[k] && procs <= 16; procs++) {
            for (long m = 1024; m <= 65536; m *= 8) {
                CHECK_STR(procs <= 8 ? "linear/0" : "binomial/0",
                          choice(ds[k], "bcast", procs, m));
            }
        }
    }
    for (size_t i = 0; procs_cuts && i < n; i++) {
        CHECK_INT(rows[i].procs == 16 ? 8 : -1, procs_cuts[i]);
    }
    decision_destroy(tree);
    decision_destroy(exact);
    decision_destroy(table);
    free(cuts);
    free(procs_cuts);
    free(rows);
    run_data_destroy(r);
    remove_run(dir);
}

/* A third method between two measured sizes (1 KiB and 16 KiB at 8 and 16
 * processes, the same times at both): linear is the optimum at 1 KiB (100 us),
 * binomial at 16 KiB (400 us); knomial is second at both (105, 420 us), within
 * 10 % there, and its interpolated times (105 4^s, s the log16 of m / 1 KiB)
 * are below linear's (100 16^s) above 4^s = 1.05, m = 1128.96, and below
 * binomial's (200 2^s) up to 2^s = 200 / 105, m = 13479.2: it takes
 * 1129..13479 in the exact table and the export's inserts, the C4.5 tree
 * and the quadtree, and between the pair of neighbours alone (--between
 * pair) the cut is where linear meets binomial, 8^s = 2, m = 2580.3. chain/1024
 * (segmented at 16 KiB only) is faster than knomial on its line but is no
 * candidate: at 1 KiB its segment is no segmentation. */
static void check_third_method(void)
{
    char dir[] = "/tmp/autotune-between-third-XXXXXX";
    FILE *meas, *opt;
    if (!new_run(dir, &meas, &opt)) {
        return;
    }
    static const long m[2] = {1024, 16384};
    static const double linear[2] = {100, 1600}, binomial[2] = {200, 400},
                        knomial[2] = {105, 420};
    for (int procs = 8; procs <= 16; procs += 8) {
        for (int i = 0; i < 2; i++) {
            write_time(meas, "bcast", procs, m[i], "linear", linear[i]);
            write_time(meas, "bcast", procs, m[i], "binomial", binomial[i]);
            write_time(meas, "bcast", procs, m[i], "knomial", knomial[i]);
        }
        fprintf(meas,
                "bcast,%d,1024,chain,1024,1,101,101,101,101,0,0.001\n"
                "bcast,%d,16384,chain,1024,1,410,410,410,410,0,0.001\n",
                procs, procs);
        fprintf(opt,
                "bcast,%d,1024,linear,0,100\nbcast,%d,16384,binomial,0,400\n",
                procs, procs);
    }
    fclose(meas);
    fclose(opt);
    struct run_data *r = NULL;
    struct measurement *rows = NULL;
    long *cuts = NULL, *procs_cuts = NULL;
    struct export_insert *ins = NULL;
    size_t n = 0, n_ins = 0;
    load_run(dir, &r, &rows, &n);
    if (r && rows) {
        CHECK_INT(0, between_table_cuts(r, rows, n, &cuts, &procs_cuts, &ins,
                                        &n_ins));
        CHECK_INT(2, (long)n_ins);
        CHECK_INT(13479, cuts ? cuts[1] : 0);
        for (size_t i = 0; i < n_ins; i++) {
            CHECK_STR("knomial", ins[i].m.algorithm);
            CHECK_INT(1128, ins[i].cut_below);
            CHECK_INT(13479, ins[i].m.msg_bytes);
            CHECK_INT(2 * (long)i + 1, (long)ins[i].above);
        }
        /* the exact table (export and tree -r --exact), the C4.5 tree and
         * the quadtree, with third methods; then the three without */
        struct train_options o;
        train_options_init(&o);
        o.c45.min_objs = 1;
        o.max_depth = 3;
        const char *coll = r->grids[0].name;
        struct decision *d[6] = {NULL};
        for (int pair = 0; pair < 2; pair++) {
            o.is_pair_only = pair;
            CHECK_INT(0, train_exact(&o, r, -1, &d[3 * pair]));
            CHECK_INT(
                0, train_create_decision(r, "c45", &coll, 1, &d[3 * pair + 1]));
            CHECK_INT(0, d[3 * pair + 1]
                             ? train_trees(&o, r, -1, NULL, d[3 * pair + 1])
                             : -1);
            CHECK_INT(0, train_quadtree(&o, r, -1, &d[3 * pair + 2]));
        }
        struct decision *table = NULL;
        CHECK_INT(0, decision_from_table(rows, n, cuts, procs_cuts, ins, n_ins,
                                         &table));
        for (int k = 0; k < 7; k++) {
            const struct decision *dk = k < 6 ? d[k] : table;
            for (long b = 1; dk && b <= 20000; b++) {
                const char *want = k >= 3 && k < 6
                                       ? (b <= 2580 ? "linear/0" : "binomial/0")
                                   : b <= 1128  ? "linear/0"
                                   : b <= 13479 ? "knomial/0"
                                                : "binomial/0";
                int procs = b % 2 ? 8 : 16;
                if (strcmp(want, choice(dk, "bcast", procs, b)) != 0) {
                    fprintf(stderr,
                            "third method, decision %d: P=%d m=%ld: %s, "
                            "expected %s\n",
                            k, procs, b, choice(dk, "bcast", procs, b), want);
                    check_failures++;
                    break;
                }
            }
        }
        for (int k = 0; k < 6; k++) {
            decision_destroy(d[k]);
        }
        decision_destroy(table);
    }
    free(ins);
    free(cuts);
    free(procs_cuts);
    free(rows);
    run_data_destroy(r);
    remove_run(dir);
}

/* Two groups of procs under one message cut: at 4 and 8 processes linear
 * (m^0.6) gives way to binomial (2 m^0.5) at 1024 B, at 16 and 32 to
 * knomial (2048^0.1 m^0.5) at 2048 B; each other's upper method is twice
 * as slow. Measured at 512 and 4096 B only, the C4.5 tree cuts the message
 * size at 512 for all, then the procs; each group's sizes between the two
 * get their own crossing, in the tree, the quadtree and the exact table
 * alike, where one cut for all would be between the two. */
static void check_group_cuts(void)
{
    char dir[] = "/tmp/autotune-between-groups-XXXXXX";
    FILE *meas, *opt;
    if (!new_run(dir, &meas, &opt)) {
        return;
    }
    double c = pow(2048, 0.1);
    for (int procs = 4; procs <= 32; procs *= 2) {
        for (long m = 512; m <= 4096; m *= 8) {
            bool is_small = procs <= 8;
            double l = time_linear(m), s = sqrt((double)m);
            double b = (is_small ? 2 : 4 * c) * s, k = (is_small ? 4 : c) * s;
            write_time(meas, "bcast", procs, m, "linear", l);
            write_time(meas, "bcast", procs, m, "binomial", b);
            write_time(meas, "bcast", procs, m, "knomial", k);
            double best = m == 512 ? l : is_small ? b : k;
            fprintf(opt, "bcast,%d,%ld,%s,0,%.17g\n", procs, m,
                    m == 512   ? "linear"
                    : is_small ? "binomial"
                               : "knomial",
                    best);
        }
    }
    fclose(meas);
    fclose(opt);
    struct run_data *r = NULL;
    struct measurement *rows = NULL;
    size_t n = 0;
    load_run(dir, &r, &rows, &n);
    struct decision *d[3] = {NULL};
    if (r && rows) {
        struct train_options o;
        train_options_init(&o);
        o.c45.min_objs = 1;
        o.max_depth = 3;
        const char *coll = r->grids[0].name;
        CHECK_INT(0, train_create_decision(r, "c45", &coll, 1, &d[0]));
        CHECK_INT(0, d[0] ? train_trees(&o, r, -1, NULL, d[0]) : -1);
        CHECK_INT(0, train_quadtree(&o, r, -1, &d[1]));
        CHECK_INT(0, train_exact(&o, r, -1, &d[2]));
    }
    for (int k = 0; k < 3; k++) {
        for (int procs = 4; d[k] && procs <= 32; procs *= 2) {
            long cut = procs <= 8 ? 1024 : 2048;
            const char *upper = procs <= 8 ? "binomial/0" : "knomial/0";
            for (long m = 1; m <= 20000; m++) {
                const char *want = m <= cut ? "linear/0" : upper;
                const char *got = choice(d[k], "bcast", procs, m);
                if (strcmp(want, got) != 0) {
                    fprintf(stderr,
                            "groups, decision %d: P=%d m=%ld: %s, expected "
                            "%s\n",
                            k, procs, m, got, want);
                    check_failures++;
                    break;
                }
            }
        }
        decision_destroy(d[k]);
    }
    free(rows);
    run_data_destroy(r);
    remove_run(dir);
}

static int compare_long(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

/* Whether, at procs between message sizes a < b, d's choices are the
 * method at a, then at most one other, then the method at b (each part
 * possibly empty); says where not. The choices change only just past a
 * message cut: cuts (n, ascending) are d's. */
static bool is_lo_third_hi(const struct decision *d, int c, const long *cuts,
                           int n, int procs, long a, long b, const char *what)
{
    int lo = decision_lookup(d, c, procs, a),
        hi = decision_lookup(d, c, procs, b);
    int phase = 0, third = -1; /* 0: lo, 1: a third, 2: hi */
    for (int i = -1; i < n; i++) {
        if (i >= 0 && (cuts[i] < a || cuts[i] >= b - 1)) {
            continue; /* the cut of no size between them (or no cut) */
        }
        long m = i < 0 ? a + 1 : cuts[i] + 1;
        int k = decision_lookup(d, c, procs, m);
        int now = phase == 0 && k == lo                                ? 0
                  : phase <= 1 && (third < 0 || k == third) && k != hi ? 1
                  : k == hi                                            ? 2
                                                                       : -1;
        if (now < 0 || now < phase) {
            fprintf(stderr, "%s: P=%d between %ld and %ld: %s at %ld\n", what,
                    procs, a, b, d->methods[k], m);
            return false;
        }
        third = now == 1 ? k : third;
        phase = now;
    }
    return true;
}

/* The small real run (tests/decision/run) with each of some measurement
 * rows left out in turn (a method untimed at one point, as on an adaptive
 * grid): between every two neighbouring sizes at every procs, every
 * C4.5 tree's and quadtree's choices go from the method at the smaller
 * size to the one at the larger, with at most one method between. */
static void check_lo_third_hi(void)
{
    FILE *in = fopen("tests/decision/run/measurements.csv", "r");
    CHECK(in != NULL);
    if (!in) {
        return;
    }
    static char lines[4096][256];
    int n = 0;
    while (n < 4096 && fgets(lines[n], sizeof lines[n], in)) {
        n++;
    }
    CHECK(!fgets(lines[0], sizeof lines[0], in)); /* all of it read */
    fclose(in);
    /* every 3rd row of bcast's and reduce's, and none */
    for (int skip = 0; skip < n; skip += skip == 0 ? 1 : 3) {
        char dir[] = "/tmp/autotune-between-skip-XXXXXX";
        if (!mkdtemp(dir)) {
            check_failures++;
            return;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/measurements.csv", dir);
        FILE *out = fopen(path, "w");
        for (int i = 0; out && i < n; i++) {
            if (i == 0 || i != skip) {
                fputs(lines[i], out);
            }
        }
        if (out) {
            fclose(out);
        }
        snprintf(path, sizeof path, "cp tests/decision/run/optimal.csv %s/",
                 dir);
        CHECK_INT(0, system(path));
        struct run_data *r = NULL;
        CHECK_INT(0, run_data_load(dir, NULL, 0, &r));
        for (int g = 0; r && g < r->n_grids; g++) {
            struct train_options o;
            train_options_init(&o);
            o.c45.min_objs = 1;
            const char *coll = r->grids[g].name;
            struct decision *d[2] = {NULL, NULL};
            CHECK_INT(0, train_create_decision(r, "c45", &coll, 1, &d[0]));
            struct run_data one = *r;
            one.grids = &r->grids[g];
            one.n_grids = 1;
            CHECK_INT(0, d[0] ? train_trees(&o, &one, -1, NULL, d[0]) : -1);
            o.max_depth = 4;
            CHECK_INT(0, train_quadtree(&o, &one, -1, &d[1]));
            const struct run_grid *grid = &r->grids[g];
            for (int k = 0; k < 2; k++) {
                bool ok = d[k] != NULL;
                long *cuts = malloc(((size_t)(d[k] ? d[k]->n_nodes : 0) + 1) *
                                    sizeof *cuts);
                int n_cuts = 0;
                for (int i = 0; ok && cuts && i < d[k]->n_nodes; i++) {
                    if (d[k]->leaf_method[i] < 0) {
                        cuts[n_cuts++] = (long)d[k]->nodes[i].msg_cut;
                    }
                }
                qsort(cuts, (size_t)n_cuts, sizeof *cuts, compare_long);
                ok &= cuts != NULL;
                for (int p = 0; ok && p < grid->n_procs; p++) {
                    for (int m = 0; ok && m + 1 < grid->n_msgs; m++) {
                        char what[64];
                        snprintf(what, sizeof what, "%s %s, row %d left out",
                                 coll, k ? "quadtree" : "tree", skip);
                        ok = is_lo_third_hi(d[k], 0, cuts, n_cuts,
                                            grid->procs[p], grid->msgs[m],
                                            grid->msgs[m + 1], what);
                    }
                }
                free(cuts);
                check_failures += !ok;
                decision_destroy(d[k]);
            }
        }
        run_data_destroy(r);
        remove_run(dir);
    }
}

int main(void)
{
    check_lo_third_hi();
    check_group_cuts();
    check_third_method();
    check_procs_crossing();
    check_between_cut();
    check_segment_between();
    char dir[] = "/tmp/autotune-between-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    write_run(dir);
    struct run_data *r = NULL;
    CHECK_INT(0, run_data_load(dir, NULL, 0, &r));
    if (!r) {
        return check_exit();
    }
    struct train_options opt;
    train_options_init(&opt);
    opt.c45.min_objs = 1;
    const char *colls[] = {r->grids[0].name, r->grids[1].name};
    for (int is_next = 0; is_next <= 1; is_next++) {
        opt.is_next_size = is_next;
        long cut = is_next ? 512 : 1024;
        struct decision *d = NULL;
        CHECK_INT(0, train_create_decision(r, "c45", colls, 2, &d));
        CHECK_INT(0, train_trees(&opt, r, -1, NULL, d));
        check_crossing(d, is_next ? "tree, next size" : "tree", cut);
        decision_destroy(d);
        CHECK_INT(0, train_exact(&opt, r, -1, &d));
        check_crossing(d, is_next ? "exact, next size" : "exact", cut);
        decision_destroy(d);
        d = NULL;
        opt.max_depth = 3;
        CHECK_INT(0, train_quadtree(&opt, r, -1, &d));
        check_crossing(d, is_next ? "quadtree, next size" : "quadtree", cut);
        opt.max_depth = -1;
        decision_destroy(d);
    }
    /* The export's cuts: the row at 4096 B (binomial after linear) cuts at
     * the crossing; a row whose method goes on cuts at the size below. */
    char path[4096];
    struct measurement *rows = NULL;
    size_t n = 0;
    long *cuts = NULL, *procs_cuts = NULL;
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    CHECK_INT(0, table_read_optimal(path, &rows, &n));
    CHECK_INT(0,
              between_table_cuts(r, rows, n, &cuts, &procs_cuts, NULL, NULL));
    for (size_t i = 0; cuts && i < n; i++) {
        long want =
            rows[i].msg_bytes == 128 ? -1
            : rows[i].msg_bytes == 4096 &&
                    strcmp(rows[i].collective, "bcast") == 0
                ? 1024
                : rows[i].msg_bytes / (rows[i].msg_bytes == 4096 ? 8 : 4);
        CHECK_INT(want, cuts[i]);
    }
    struct decision *d = NULL;
    CHECK_INT(0, decision_from_table(rows, n, cuts, procs_cuts, NULL, 0, &d));
    if (d) {
        check_crossing(d, "export --format dec", 1024);
    }
    decision_destroy(d);
    free(cuts);
    free(procs_cuts);
    free(rows);
    run_data_destroy(r);
    remove_run(dir);
    return check_exit();
}
