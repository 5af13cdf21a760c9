/* speedup.csv's rows pair each point's tuned choice with the journal's
 * default/0 record; the summary's median, maximum and minimum, and points
 * without a default are left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "store/tables.h"

static struct measurement row(const char *coll, long msg, const char *alg,
                              double mean_us)
{
    struct measurement m = {.procs = 4,
                            .ppn = 1,
                            .msg_bytes = msg,
                            .is_applicable = 1,
                            .reps = 1,
                            .mean_us = mean_us};
    snprintf(m.collective, sizeof m.collective, "%s", coll);
    snprintf(m.algorithm, sizeof m.algorithm, "%s", alg);
    return m;
}

int main(void)
{
    char path[] = "/tmp/test_speedup_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    unlink(path);
    struct journal_settings s = {0};
    struct journal *j;
    CHECK_INT(0, journal_open(path, &s, &j));
    /* tuned choices at four points; defaults at three of them */
    struct measurement opt[] = {
        row("bcast", 1, "linear", 10), row("bcast", 8, "binomial", 20),
        row("reduce", 1, "chain", 5), row("reduce", 8, "chain", 40)};
    struct measurement def[] = {row("bcast", 1, STORE_DEFAULT_ALGORITHM, 30),
                                row("bcast", 8, STORE_DEFAULT_ALGORITHM, 20),
                                row("reduce", 8, STORE_DEFAULT_ALGORITHM, 20)};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(0, journal_append(j, &def[i]));
    }
    struct speedup_row *rows;
    size_t n;
    CHECK_INT(0, speedup_rows_build(j, opt, 4, &rows, &n));
    CHECK_INT(3, n);
    CHECK_STR("linear", rows[0].algorithm);
    CHECK(rows[0].speedup == 3.0);
    CHECK(rows[1].speedup == 1.0);
    CHECK_STR("reduce", rows[2].collective);
    CHECK(rows[2].speedup == 0.5);
    CHECK(rows[2].default_us == 20);

    struct speedup_summary sum;
    speedup_summarise(rows, n, NULL, &sum);
    CHECK_INT(3, sum.points);
    CHECK(sum.median == 1.0 && sum.max == 3.0 && sum.min == 0.5);
    CHECK_INT(1, sum.default_faster);
    speedup_summarise(rows, n, "bcast", &sum);
    CHECK_INT(2, sum.points);
    CHECK(sum.median == 2.0); /* even count: mean of the middle two */
    speedup_summarise(rows, n, "alltoall", &sum);
    CHECK_INT(0, sum.points);

    /* Read back from optimal.csv, a time is rounded to 1 ns: the speedup
     * takes the journal's own record of the choice, so a point whose
     * optimum is the default is 1, not slower. */
    struct measurement exact[] = {
        row("allreduce", 8, STORE_DEFAULT_ALGORITHM, 12.3456),
        row("allreduce", 64, "ring", 7.0004),
        row("allreduce", 64, STORE_DEFAULT_ALGORITHM, 7.0004)};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(0, journal_append(j, &exact[i]));
    }
    struct measurement rounded[] = {
        row("allreduce", 8, STORE_DEFAULT_ALGORITHM, 12.346),
        row("allreduce", 64, "ring", 7.000)};
    struct speedup_row *back;
    size_t n_back;
    CHECK_INT(0, speedup_rows_build(j, rounded, 2, &back, &n_back));
    CHECK_INT(2, n_back);
    if (n_back == 2) {
        CHECK(back[0].speedup == 1.0 && back[0].time_us == 12.3456);
        CHECK(back[1].speedup == 1.0);
    }
    speedup_summarise(back, n_back, NULL, &sum);
    CHECK_INT(0, sum.default_faster);
    free(back);

    char csv[64];
    snprintf(csv, sizeof csv, "%s.csv", path);
    CHECK_INT(0, table_write_speedup(csv, rows, n));
    FILE *f = fopen(csv, "r");
    char line[256] = "";
    CHECK(f && fgets(line, sizeof line, f));
    CHECK_STR("collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us,"
              "default_us,speedup\n",
              line);
    CHECK(f && fgets(line, sizeof line, f));
    CHECK_STR("bcast,4,1,1,linear,0,10.000,30.000,3.0000\n", line);
    if (f) {
        fclose(f);
    }
    free(rows);
    journal_close(j);
    unlink(csv);
    unlink(path);
    return check_failures ? 1 : 0;
}
