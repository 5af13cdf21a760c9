/* Allocation failure in the readers of a run (the journal, loaded or
 * reopened to resume; its tables; the run's map): the Nth malloc, calloc or
 * realloc fails, for N = 1, 2, ... until a read makes no more than N - 1;
 * each failed read returns an error status, says so in one line on stderr
 * and does not crash (under ASan: leaks nothing). Linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc (Makefile), which reaches
 * the library's own calls, not the C library's internal ones (fopen's
 * buffer, strdup). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "../records.h"
#include "decision/decision.h"
#include "store/journal.h"
#include "store/tables.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static long fail_at; /* the allocation that fails (1-based); 0: none */
static long n_allocs;

static int should_fail(void)
{
    return fail_at > 0 && ++n_allocs == fail_at;
}

void *__wrap_malloc(size_t size)
{
    return should_fail() ? NULL : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    return should_fail() ? NULL : __real_realloc(p, size);
}

static char dir[] = "/tmp/test_alloc.XXXXXX";

/* A small run: a journal of two collectives on a 4 x 6 grid, three
 * methods each, and its measurements and optimal tables. */
static int make_run(void)
{
    static const char *const colls[] = {"bcast", "reduce"};
    static const char *const algs[] = {"binomial", "chain", "linear"};
    enum { N_PROCS = 4, N_MSGS = 6, N_ROWS = 2 * N_PROCS * N_MSGS * 3 };
    struct measurement all[N_ROWS], opt[N_ROWS / 3];
    struct journal_settings s = {0};
    struct journal *j;
    char path[256];
    size_t n = 0, n_opt = 0;
    journal_settings_add(&s, "backend", "own");
    journal_settings_add(&s, "chain_fanout", "4");
    snprintf(path, sizeof path, "%s/journal", dir);
    if (journal_open(path, &s, &j) != 0) {
        return -1;
    }
    for (int c = 0; c < 2; c++) {
        for (int p = 0; p < N_PROCS; p++) {
            for (int m = 0; m < N_MSGS; m++) {
                int best = (p + m + c) % 3;
                for (int a = 0; a < 3; a++) {
                    all[n] =
                        test_record(colls[c], 2 << p, 64L << (2 * m), algs[a],
                                    a == 1 ? 1024 : 0, 10.0 + a + (a == best));
                    all[n].mean_us -= a == best ? 5 : 0;
                    if (journal_append(j, &all[n]) != 0) {
                        journal_close(j);
                        return -1;
                    }
                    if (a == best) {
                        opt[n_opt++] = all[n];
                    }
                    n++;
                }
            }
        }
    }
    journal_close(j);
    snprintf(path, sizeof path, "%s/measurements.csv", dir);
    if (table_write_measurements(path, all, n) != 0) {
        return -1;
    }
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    return table_write_optimal(path, opt, n_opt);
}

static int read_journal(void)
{
    char path[256];
    struct journal *j = NULL;
    snprintf(path, sizeof path, "%s/journal", dir);
    int rc = journal_load(path, &j);
    journal_close(j);
    return rc;
}

/* The journal reopened to append to it, as a resumed sweep does. */
static int reopen_journal(void)
{
    char path[256];
    struct journal_settings s = {0};
    struct journal *j = NULL;
    journal_settings_add(&s, "backend", "own");
    journal_settings_add(&s, "chain_fanout", "4");
    snprintf(path, sizeof path, "%s/journal", dir);
    int rc = journal_open(path, &s, &j);
    journal_close(j);
    return rc;
}

/* One table of the run read with reader. */
static int read_table(const char *name,
                      int (*reader)(const char *, struct measurement **,
                                    size_t *))
{
    char path[256];
    struct measurement *rows = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = reader(path, &rows, &n);
    free(rows);
    return rc;
}

static int read_measurements(void)
{
    return read_table("measurements.csv", table_read_measurements);
}

static int read_optimal(void)
{
    return read_table("optimal.csv", table_read_optimal);
}

static int read_run_data(void)
{
    struct run_data *r = NULL;
    int rc = run_data_load(dir, NULL, 0, &r);
    run_data_destroy(r);
    return rc;
}

/* The lines of a file, or -1. */
static int count_lines(FILE *f)
{
    int n = 0, ch;
    rewind(f);
    while ((ch = getc(f)) != EOF) {
        n += ch == '\n';
    }
    return n;
}

static char err_text[4096];

/* Runs read with stderr into a scratch file (err_text); its status, its
 * stderr's line count (*lines) and whether the text names memory. */
static int run_captured(int (*read)(void), int *lines, int *says_memory)
{
    char *buf = err_text;
    FILE *err = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(err), 2);
    int rc = read();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *lines = count_lines(err);
    rewind(err);
    size_t len = fread(buf, 1, sizeof err_text - 1, err);
    buf[len] = '\0';
    *says_memory = strstr(buf, "memory") != NULL;
    fclose(err);
    return rc;
}

/* Fails the allocations of read one by one: each time an error status and
 * one line naming memory, until the read succeeds without a failure. With
 * may_skip_journal (run_data_load), a failure reading the run's journal
 * may instead leave the tables used unchecked, as for a journal that
 * cannot be read: status 0, that line and the note saying so. */
static void fail_each(const char *what, int (*read)(void), int may_skip_journal)
{
    int lines, says_memory;
    fail_at = 0;
    CHECK_INT(0, run_captured(read, &lines, &says_memory));
    int clean_lines = lines; /* notes a read prints anyway */
    long n_failed = 0;
    for (fail_at = 1; fail_at < 100000; fail_at++) {
        n_allocs = 0;
        int rc = run_captured(read, &lines, &says_memory);
        if (n_allocs < fail_at) {
            CHECK_INT(0, rc); /* nothing failed: the read is whole */
            break;
        }
        n_failed++;
        if (may_skip_journal && rc == 0 && lines == clean_lines + 2 &&
            strstr(err_text, "journal: out of memory") &&
            strstr(err_text, "without the check against the journal")) {
            continue;
        }
        if (rc == 0 || lines != clean_lines + 1 || !says_memory) {
            fprintf(stderr,
                    "%s, allocation %ld failing: status %d, %d line(s) "
                    "on stderr (%d without a failure)%s\n",
                    what, fail_at, rc, lines, clean_lines,
                    says_memory ? "" : ", none naming memory");
            fprintf(stderr, "%s", err_text);
            check_failures++;
        }
    }
    fail_at = 0;
    printf("%s: %ld allocations failed in turn\n", what, n_failed);
    CHECK(n_failed > 0);
}

int main(void)
{
    if (!mkdtemp(dir) || make_run() != 0) {
        fprintf(stderr, "test_alloc: cannot make a run in %s\n", dir);
        return 1;
    }
    fail_each("journal_load", read_journal, 0);
    fail_each("journal_open", reopen_journal, 0);
    fail_each("table_read_measurements", read_measurements, 0);
    fail_each("table_read_optimal", read_optimal, 0);
    fail_each("run_data_load", read_run_data, 1);
    const char *files[] = {"journal", "measurements.csv", "optimal.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    return check_exit();
}
