/* The journal keeps every appended record across reopen, skips damaged
 * lines without losing the others, and refuses conflicting settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "store/store.h"

static struct measurement record(const char *alg, int seg, double mean_us)
{
    struct measurement m = {.procs = 7,
                            .msg_bytes = 1024,
                            .segment_bytes = seg,
                            .is_applicable = 1,
                            .reps = 5,
                            .mean_us = mean_us,
                            .median_us = mean_us,
                            .min_us = mean_us / 2,
                            .max_us = mean_us * 2,
                            .sd_us = 0.1,
                            .cost_s = 1e-3 / 3};
    snprintf(m.collective, sizeof m.collective, "bcast");
    snprintf(m.algorithm, sizeof m.algorithm, "%s", alg);
    return m;
}

static struct journal_settings settings(double rse)
{
    struct journal_settings s = {0};
    journal_settings_add(&s, "backend", "own");
    journal_settings_add(&s, "measure.rse", "%g", rse);
    return s;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void test_roundtrip(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    unlink(path);
    CHECK_INT(0, journal_open(path, &s, &j));
    struct measurement a = record("binomial", 0, 12.345678901234567);
    struct measurement b = record("binomial", 1024, 1.0 / 3.0);
    struct measurement na = record("two_proc", 0, 0);
    na.is_applicable = 0;
    CHECK_INT(0, journal_append(j, &a));
    CHECK_INT(0, journal_append(j, &b));
    CHECK_INT(0, journal_append(j, &na));
    journal_close(j);

    CHECK_INT(0, journal_open(path, &s, &j));
    CHECK_INT(3, journal_count(j));
    const struct measurement *m =
        journal_find(j, "bcast", 7, 1024, "binomial", 1024);
    CHECK(m != NULL);
    /* Exact round trip: a replay must see the very same numbers. */
    CHECK(m && memcmp(m, &b, sizeof b) == 0);
    CHECK(journal_find(j, "bcast", 7, 1024, "binomial", 2048) == NULL);
    CHECK(journal_find(j, "reduce", 7, 1024, "binomial", 0) == NULL);
    m = journal_find(j, "bcast", 7, 1024, "two_proc", 0);
    CHECK(m && m->is_applicable == 0);
    journal_close(j);
}

static void test_points(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    struct point_result p = {
        .procs = 5, .msg_bytes = 64, .segment_bytes = 1024};
    unlink(path);
    snprintf(p.collective, sizeof p.collective, "reduce");
    snprintf(p.strategy, sizeof p.strategy, "exhaustive");
    snprintf(p.algorithm, sizeof p.algorithm, "chain");
    CHECK_INT(0, journal_open(path, &s, &j));
    struct measurement m = record("chain", 1024, 3);
    CHECK_INT(0, journal_append(j, &m));
    CHECK_INT(0, journal_append_point(j, &p));
    CHECK_INT(0, journal_append_point(j, &p)); /* a replayed point: kept once */
    snprintf(p.strategy, sizeof p.strategy, "mgd");
    CHECK_INT(0, journal_append_point(j, &p));
    journal_close(j);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(2, journal_point_count(j));
    CHECK_INT(1, journal_count(j));
    CHECK_STR("exhaustive", journal_point(j, 0)->strategy);
    CHECK_STR("chain", journal_point(j, 0)->algorithm);
    CHECK_INT(1024, journal_point(j, 0)->segment_bytes);
    CHECK_STR("mgd", journal_point(j, 1)->strategy);
    /* A point result never shadows a measurement, nor the reverse. */
    CHECK(journal_find(j, "reduce", 5, 64, "exhaustive", -1) == NULL);
    journal_close(j);
}

static void test_many_records(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    unlink(path);
    CHECK_INT(0, journal_open(path, &s, &j));
    for (int i = 0; i < 5000; i++) {
        struct measurement m = record("chain", i, i);
        CHECK_INT(0, journal_append(j, &m));
    }
    journal_close(j);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(5000, journal_count(j));
    const struct measurement *m =
        journal_find(j, "bcast", 7, 1024, "chain", 4321);
    CHECK(m && m->mean_us == 4321);
    journal_close(j);
}

static void test_damage(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    unlink(path);
    CHECK_INT(0, journal_open(path, &s, &j));
    for (int i = 0; i < 4; i++) {
        struct measurement m = record("linear", i, 10 + i);
        CHECK_INT(0, journal_append(j, &m));
    }
    journal_close(j);

    /* Flip one digit of the second record, and tear the last line. */
    FILE *f = fopen(path, "r+");
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    char *second = strstr(strstr(buf, "m bcast") + 1, "m bcast");
    char *digit = strstr(second, " 11");
    digit[2] = '9';
    n -= 7;
    rewind(f);
    fwrite(buf, 1, n, f);
    fclose(f);
    CHECK_INT(0, truncate(path, (off_t)n));

    CHECK_INT(0, journal_open(path, &s, &j));
    CHECK_INT(2, journal_count(j)); /* records 0 and 2 survive */
    CHECK(journal_find(j, "bcast", 7, 1024, "linear", 0) != NULL);
    CHECK(journal_find(j, "bcast", 7, 1024, "linear", 1) == NULL);
    CHECK(journal_find(j, "bcast", 7, 1024, "linear", 2) != NULL);
    CHECK(journal_find(j, "bcast", 7, 1024, "linear", 3) == NULL);
    /* The torn tail is cut, so the next record starts on its own line. */
    struct measurement m = record("linear", 3, 13);
    CHECK_INT(0, journal_append(j, &m));
    journal_close(j);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(3, journal_count(j));
    CHECK(journal_find(j, "bcast", 7, 1024, "linear", 3) != NULL);
    journal_close(j);
}

static void test_conflict(const char *path)
{
    struct journal_settings s = settings(0.05), other = settings(0.1);
    struct journal *j;
    unlink(path);
    CHECK_INT(0, journal_open(path, &s, &j));
    journal_close(j);
    long before = file_size(path);
    fprintf(stderr, "(a conflict message is expected here:)\n");
    CHECK(journal_open(path, &other, &j) != 0);
    CHECK(j == NULL);
    CHECK_INT(before, file_size(path)); /* nothing written */
}

static void test_not_a_journal(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    FILE *f = fopen(path, "w");
    fputs("hello\n", f);
    fclose(f);
    CHECK(journal_open(path, &s, &j) != 0);
    CHECK(journal_load("/nonexistent/journal", &j) != 0);
}

int main(void)
{
    char path[] = "/tmp/autotune-journal-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    test_roundtrip(path);
    test_points(path);
    test_many_records(path);
    test_damage(path);
    test_conflict(path);
    test_not_a_journal(path);
    unlink(path);
    return check_exit();
}
