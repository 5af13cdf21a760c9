/* A run directory as the offline commands see it: an unfinished sweep's
 * tables from its journal (the points done, each point's optimum as the
 * sweep takes it, the grid's size), a directory of predictions, and the
 * check that no output replaces a run's own files (issue 37, items 3 and
 * 6). Expected rows are written out by hand from the records below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "../records.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"

static struct point_result point(const char *coll, int procs, long msg,
                                 const char *strategy, const char *alg, int seg)
{
    struct point_result p = {
        .procs = procs, .ppn = 1, .msg_bytes = msg, .segment_bytes = seg};
    snprintf(p.collective, sizeof p.collective, "%s", coll);
    snprintf(p.strategy, sizeof p.strategy, "%s", strategy);
    snprintf(p.algorithm, sizeof p.algorithm, "%s", alg);
    return p;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Three points of a grid of 12 done, in journal order reduce before
 * bcast; one searched twice; one where the library's default was faster;
 * a fourth point measured but not done. */
static void test_unfinished(const char *dir)
{
    char path[4096];
    struct journal_settings s = {0};
    struct journal *j;
    journal_settings_add(&s, "backend", "own");
    snprintf(path, sizeof path, "%s/journal", dir);
    CHECK_INT(0, journal_open(path, &s, &j));
    CHECK_INT(0, journal_append_grid(j, 12));
    struct measurement recs[] = {
        test_record("reduce", 4, 8, "binomial", 0, 30),
        test_record("reduce", 4, 8, "linear", 0, 20),
        test_record("reduce", 4, 8, "default", 0, 25),
        test_record("bcast", 4, 8, "linear", 0, 10),
        test_record("bcast", 4, 8, "default", 0, 9),
        test_record("bcast", 2, 8, "binomial", 0, 5),
        test_record("bcast", 2, 8, "linear", 0, 6),
        test_record("bcast", 8, 8, "linear", 0, 50), /* no point record */
    };
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
        CHECK_INT(0, journal_append(j, &recs[i]));
    }
    struct point_result pts[] = {
        point("reduce", 4, 8, "exhaustive", "linear", 0),
        point("bcast", 4, 8, "exhaustive", "linear", 0),
        point("bcast", 2, 8, "smgd", "linear", 0),
        point("bcast", 2, 8, "exhaustive", "binomial", 0),
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        CHECK_INT(0, journal_append_point(j, &pts[i]));
    }
    journal_close(j);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(12, journal_grid_points(j));

    struct run_tables t;
    CHECK_INT(0, table_read_run_tables(dir, j, "test", &t));
    CHECK(t.is_partial && !t.is_predicted && t.has_measured);
    /* reduce first (the journal names it first), then bcast by procs; the
     * later search of bcast P=2 wins; default/0 wins at bcast P=4. */
    static const char *const want_opt[][2] = {
        {"reduce", "linear"}, {"bcast", "binomial"}, {"bcast", "default"}};
    static const int want_procs[] = {4, 2, 4};
    CHECK_INT(3, t.n_optimal);
    for (size_t i = 0; i < 3 && i < t.n_optimal; i++) {
        CHECK_STR(want_opt[i][0], t.optimal[i].collective);
        CHECK_STR(want_opt[i][1], t.optimal[i].algorithm);
        CHECK_INT(want_procs[i], t.optimal[i].procs);
    }
    /* Every record at the points done, the default last at each. */
    static const char *const want_meas[] = {"binomial", "linear", "default",
                                            "binomial", "linear", "linear",
                                            "default"};
    CHECK_INT(7, t.n_measured);
    for (size_t i = 0; i < 7 && i < t.n_measured; i++) {
        CHECK_STR(want_meas[i], t.measured[i].algorithm);
    }
    table_run_tables_free(&t);

    /* optimal.csv, once written, is what is read. */
    write_file(dir, "optimal.csv",
               "collective,procs,msg_bytes,algorithm,segment_bytes,time_us\n"
               "reduce,4,8,linear,0,20.000\n");
    CHECK_INT(0, table_read_run_tables(dir, j, "test", &t));
    CHECK(!t.is_partial && !t.has_measured);
    CHECK_INT(1, t.n_optimal);
    table_run_tables_free(&t);
    journal_close(j);
}

/* A directory of the model's predictions: the least time per point. */
static void test_predicted(const char *dir)
{
    struct run_tables t;
    write_file(dir, "predicted.csv",
               "collective,procs,msg_bytes,algorithm,segment_bytes,"
               "predicted_us\n"
               "bcast,64,1,linear,0,9.000\n"
               "bcast,64,1,binomial,0,4.000\n"
               "bcast,64,1,chain,0,7.000\n"
               "bcast,64,1024,linear,0,30.000\n"
               "bcast,64,1024,binomial,0,40.000\n");
    CHECK_INT(0, table_read_run_tables(dir, NULL, "test", &t));
    CHECK(t.is_predicted && !t.is_partial);
    CHECK_INT(5, t.n_measured);
    CHECK_INT(2, t.n_optimal);
    if (t.n_optimal == 2) {
        CHECK_STR("binomial", t.optimal[0].algorithm);
        CHECK(t.optimal[0].mean_us == 4.0 && t.optimal[0].reps == 0);
        CHECK_STR("linear", t.optimal[1].algorithm);
        CHECK(t.optimal[1].mean_us == 30.0);
    }
    table_run_tables_free(&t);
}

static void test_check_output(const char *run, const char *other)
{
    char path[4096], link[4096];
    snprintf(path, sizeof path, "%s/journal", run);
    CHECK_INT(-1, rundir_check_output("test", run, path));
    snprintf(path, sizeof path, "%s/../%s/optimal.csv", run,
             strrchr(run, '/') + 1);
    CHECK_INT(-1, rundir_check_output("test", run, path));
    /* not there yet, under a run file's name */
    snprintf(path, sizeof path, "%s/compare.csv", run);
    CHECK_INT(-1, rundir_check_output("test", run, path));
    /* a link to the journal, elsewhere */
    snprintf(path, sizeof path, "%s/journal", run);
    snprintf(link, sizeof link, "%s/alias", other);
    CHECK_INT(0, symlink(path, link));
    CHECK_INT(-1, rundir_check_output("test", run, link));
    /* another run directory's file, without -r naming it */
    CHECK_INT(-1, rundir_check_output("test", NULL, path));
    /* other names are outputs */
    snprintf(path, sizeof path, "%s/rules.conf", run);
    CHECK_INT(0, rundir_check_output("test", run, path));
    snprintf(path, sizeof path, "%s/journal", other);
    CHECK_INT(0, rundir_check_output("test", run, path));
}

int main(void)
{
    char run[] = "/tmp/autotune-runtables-XXXXXX";
    char pred[] = "/tmp/autotune-predicted-XXXXXX";
    CHECK(mkdtemp(run) != NULL);
    CHECK(mkdtemp(pred) != NULL);
    test_unfinished(run);
    test_predicted(pred);
    test_check_output(run, pred);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", run, pred);
    CHECK_INT(0, system(cmd));
    return check_exit();
}
