/* The journal keeps every appended record across reopen, skips damaged
 * lines without losing the others, and refuses conflicting or unreadable
 * settings; the run directory's lock and --fresh rotation. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "store/journal.h"
#include "store/rundir.h"

static struct measurement record(const char *alg, int seg, double mean_us)
{
    struct measurement m = {.procs = 7,
                            .ppn = 1,
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
        journal_find(j, "bcast", 7, 1, 1024, "binomial", 1024);
    CHECK(m != NULL);
    /* Exact round trip: a replay must see the very same numbers. */
    CHECK(m && memcmp(m, &b, sizeof b) == 0);
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "binomial", 2048) == NULL);
    CHECK(journal_find(j, "reduce", 7, 1, 1024, "binomial", 0) == NULL);
    m = journal_find(j, "bcast", 7, 1, 1024, "two_proc", 0);
    CHECK(m && m->is_applicable == 0);
    journal_close(j);
}

static void test_points(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    struct point_result p = {
        .procs = 5, .ppn = 1, .msg_bytes = 64, .segment_bytes = 1024};
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
    CHECK(journal_find(j, "reduce", 5, 1, 64, "exhaustive", -1) == NULL);
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
        journal_find(j, "bcast", 7, 1, 1024, "chain", 4321);
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
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "linear", 0) != NULL);
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "linear", 1) == NULL);
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "linear", 2) != NULL);
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "linear", 3) == NULL);
    /* The torn tail is cut, so the next record starts on its own line. */
    struct measurement m = record("linear", 3, 13);
    CHECK_INT(0, journal_append(j, &m));
    journal_close(j);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(3, journal_count(j));
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "linear", 3) != NULL);
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

/* The whole file, NUL bytes included (caller-frees). */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 20);
    *n = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
    if (f) {
        fclose(f);
    }
    return buf;
}

static void spit(const char *path, const char *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
}

/* A journal of n records "linear" with segments 0..n-1 (line k + 3 holds
 * segment k). */
static void write_journal(const char *path, int n)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    unlink(path);
    CHECK_INT(0, journal_open(path, &s, &j));
    for (int i = 0; i < n; i++) {
        struct measurement m = record("linear", i, 10 + i);
        CHECK_INT(0, journal_append(j, &m));
    }
    journal_close(j);
}

/* Where line `lineno` (1-based) starts in buf. */
static char *line_start(char *buf, int lineno)
{
    char *p = buf;
    for (int i = 1; i < lineno; i++) {
        p = strchr(p, '\n') + 1;
    }
    return p;
}

/* A damaged line in the middle (a NUL byte, an over-long line) is skipped
 * and every line after it kept; the file is not cut there. */
static void test_damage_in_middle(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    size_t n;
    write_journal(path, 10);
    char *buf = slurp(path, &n);
    line_start(buf, 7)[5] = '\0'; /* the record of segment 4 */
    spit(path, buf, n);
    fprintf(stderr, "(a damaged line 7 is expected here:)\n");
    CHECK_INT(0, journal_open(path, &s, &j));
    CHECK_INT(9, journal_count(j));
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "linear", 4) == NULL);
    CHECK(journal_find(j, "bcast", 7, 1, 1024, "linear", 9) != NULL);
    CHECK_INT((long)n, file_size(path));
    struct measurement m = record("linear", 4, 14);
    CHECK_INT(0, journal_append(j, &m));
    journal_close(j);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(10, journal_count(j));
    journal_close(j);

    /* 3000 bytes of junk on a line of their own, between lines 5 and 6. */
    write_journal(path, 10);
    free(buf);
    buf = slurp(path, &n);
    char *junk = malloc(n + 3001);
    size_t head = (size_t)(line_start(buf, 6) - buf);
    memcpy(junk, buf, head);
    memset(junk + head, 'x', 3000);
    junk[head + 2999] = '\n';
    memcpy(junk + head + 3000, buf + head, n - head);
    spit(path, junk, n + 3000);
    fprintf(stderr, "(a damaged line 6 is expected here:)\n");
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(10, journal_count(j));
    journal_close(j);
    CHECK_INT(0, journal_open(path, &s, &j));
    CHECK_INT(10, journal_count(j));
    journal_close(j);
    CHECK_INT((long)n + 3000, file_size(path));
    free(junk);
    free(buf);
}

/* A damaged settings line: resuming is refused and changes nothing;
 * offline readers get the records and know the settings are unknown. */
static void test_damaged_settings(const char *path)
{
    struct journal_settings s = settings(0.05), other = settings(0.1);
    struct journal *j;
    size_t n, n_after;
    write_journal(path, 4);
    char *buf = slurp(path, &n);
    char *rse = strstr(buf, "measure.rse=0.05");
    rse[strlen("measure.rse=0.0")] = '1'; /* what a flipped bit does */
    spit(path, buf, n);
    fprintf(stderr, "(damaged settings messages are expected here:)\n");
    CHECK(journal_open(path, &other, &j) != 0);
    CHECK(journal_open(path, &s, &j) != 0);
    char *after = slurp(path, &n_after);
    CHECK(n_after == n && memcmp(buf, after, n) == 0);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_INT(0, journal_has_settings(j));
    CHECK(journal_setting(journal_get_settings(j), "measure.rse") == NULL);
    CHECK_INT(4, journal_count(j));
    journal_close(j);
    free(after);
    free(buf);

    /* A journal that ends before its settings line was ever written whole
     * (a sweep stopped at once) has nothing to protect: resumed. */
    write_journal(path, 0);
    buf = slurp(path, &n);
    CHECK_INT(0, truncate(path, (off_t)(strchr(buf, '\n') - buf + 10)));
    CHECK_INT(0, journal_open(path, &s, &j));
    CHECK_INT(1, journal_has_settings(j));
    journal_close(j);
    CHECK_INT(0, journal_load(path, &j));
    CHECK_STR("0.05", journal_setting(journal_get_settings(j), "measure.rse"));
    journal_close(j);
    free(buf);
}

/* A file that is not a journal is never cut, even one torn line. */
static void test_torn_foreign_file(const char *path)
{
    struct journal_settings s = settings(0.05);
    struct journal *j;
    spit(path, "hello", 5);
    CHECK(journal_open(path, &s, &j) != 0);
    CHECK_INT(5, file_size(path));
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    }
    if (d) {
        closedir(d);
    }
    return d ? n : -1;
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    spit(path, text, strlen(text));
}

static char *read_text(const char *dir, const char *name)
{
    char path[512];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, F_OK) != 0) {
        return NULL;
    }
    char *buf = slurp(path, &n);
    buf[n] = '\0';
    return buf;
}

/* The lock names this host and process; a live holder refuses and nothing
 * changes; a dead one's lock is taken over; closing removes it. */
static void test_lock(const char *dir)
{
    char host[256], me[300];
    struct rundir_lock *lock;
    gethostname(host, sizeof host);
    snprintf(me, sizeof me, "%s %ld\n", host, (long)getpid());
    CHECK_INT(0, rundir_lock_open(dir, &lock));
    char *text = read_text(dir, "lock");
    CHECK_STR(me, text);
    free(text);
    CHECK_INT(1, count_entries(dir));
    rundir_lock_close(lock);
    CHECK_INT(0, count_entries(dir));

    /* A child holds it: refused while it lives, taken over once it died. */
    int to_child[2], from_child[2];
    CHECK_INT(0, pipe(to_child));
    CHECK_INT(0, pipe(from_child));
    pid_t child = fork();
    if (child == 0) {
        char c = 0;
        int rc = rundir_lock_open(dir, &lock);
        CHECK_INT(1, write(from_child[1], &c, 1));
        CHECK_INT(1, read(to_child[0], &c, 1));
        _exit(rc == 0 ? 0 : 1); /* dies holding it, as kill -9 would */
    }
    char c;
    CHECK_INT(1, read(from_child[0], &c, 1));
    char *held = read_text(dir, "lock");
    fprintf(stderr, "(a refusal naming process %ld is expected here:)\n",
            (long)child);
    CHECK(rundir_lock_open(dir, &lock) != 0);
    text = read_text(dir, "lock");
    CHECK(held && text && strcmp(held, text) == 0);
    CHECK_INT(1, count_entries(dir));
    free(text);
    CHECK_INT(1, write(to_child[1], &c, 1));
    int status;
    CHECK_INT(child, waitpid(child, &status, 0));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    fprintf(stderr, "(a take-over of process %ld's lock is expected here:)\n",
            (long)child);
    CHECK_INT(0, rundir_lock_open(dir, &lock));
    text = read_text(dir, "lock");
    CHECK_STR(me, text);
    free(text);
    free(held);
    rundir_lock_close(lock);
    for (int i = 0; i < 2; i++) {
        close(to_child[i]);
        close(from_child[i]);
    }

    /* Written by hand: a live process of this host (ours: the parent of
     * this test is alive) refuses; another host's cannot be checked. */
    char text_live[300];
    snprintf(text_live, sizeof text_live, "%s %ld\n", host, (long)getppid());
    write_text(dir, "lock", text_live);
    CHECK(rundir_lock_open(dir, &lock) != 0);
    write_text(dir, "lock", "some-other-host.example 12345\n");
    CHECK(rundir_lock_open(dir, &lock) != 0);
    text = read_text(dir, "lock");
    CHECK_STR("some-other-host.example 12345\n", text);
    free(text);
    write_text(dir, "lock", "");
    CHECK_INT(0, rundir_lock_open(dir, &lock));
    rundir_lock_close(lock);
    CHECK_INT(0, count_entries(dir));

    /* The lock cannot be created (its temporary is in the way): the error
     * names RUN/lock, the path the user knows, not the temporary. */
    char tmp_lock[512], lock_path[512], err_path[] = "/tmp/test_lock_XXXXXX";
    char said[1024] = "";
    snprintf(tmp_lock, sizeof tmp_lock, "%s/lock.%ld", dir, (long)getpid());
    snprintf(lock_path, sizeof lock_path, "%s/lock: ", dir);
    CHECK_INT(0, mkdir(tmp_lock, 0755));
    int fd = mkstemp(err_path), saved = dup(2);
    CHECK(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    int rc = rundir_lock_open(dir, &lock);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(rc != 0);
    CHECK(pread(fd, said, sizeof said - 1, 0) > 0);
    close(fd);
    unlink(err_path);
    CHECK(strstr(said, lock_path) == said);
    CHECK(strstr(said, tmp_lock) == NULL);
    CHECK_INT(0, rmdir(tmp_lock));
    CHECK_INT(0, count_entries(dir));
}

/* --fresh moves the journal, tables and decisions to old/1, old/2, ...;
 * nothing is overwritten, other files stay. */
static void test_fresh(const char *dir)
{
    char old[512];
    CHECK_INT(0, rundir_start_fresh(dir)); /* nothing to move */
    CHECK_INT(0, count_entries(dir));
    for (int gen = 1; gen <= 3; gen++) {
        char text[32];
        snprintf(text, sizeof text, "sweep %d\n", gen);
        write_text(dir, "journal", text);
        write_text(dir, "optimal.csv", text);
        write_text(dir, "measurements.csv", text);
        write_text(dir, "speedup.csv", text);
        write_text(dir, "compare.csv", text);
        write_text(dir, "tree.dec", text);
        write_text(dir, "quadtree-bcast.dec", text);
        write_text(dir, "notes.txt", "mine\n");
        CHECK_INT(0, rundir_start_fresh(dir));
        CHECK_INT(2, count_entries(dir)); /* notes.txt and old */
    }
    for (int gen = 1; gen <= 3; gen++) {
        char text[32];
        snprintf(text, sizeof text, "sweep %d\n", gen);
        snprintf(old, sizeof old, "%s/old/%d", dir, gen);
        CHECK_INT(7, count_entries(old));
        char *journal = read_text(old, "journal");
        char *tree = read_text(old, "tree.dec");
        CHECK_STR(text, journal);
        CHECK_STR(text, tree);
        free(journal);
        free(tree);
    }
    /* Numbers go on from the highest, past a gap. */
    snprintf(old, sizeof old, "%s/old/7", dir);
    CHECK_INT(0, mkdir(old, 0755));
    write_text(dir, "journal", "sweep 4\n");
    CHECK_INT(0, rundir_start_fresh(dir));
    snprintf(old, sizeof old, "%s/old/8", dir);
    char *journal = read_text(old, "journal");
    CHECK_STR("sweep 4\n", journal);
    free(journal);
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
    test_damage_in_middle(path);
    test_damaged_settings(path);
    test_torn_foreign_file(path);
    unlink(path);

    char dir[] = "/tmp/autotune-rundir-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_lock(dir);
    test_fresh(dir);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(0, system(cmd));
    return check_exit();
}
