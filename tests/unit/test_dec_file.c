/* The .dec file's reader against hostile files: counts larger than the
 * file can hold are refused before anything is allocated for them (checked
 * under an address-space limit where no sanitizer reserves its own), a
 * collective listed twice is an error naming both lines, random bytes are
 * never echoed raw; the run's chain_fanout round trip; the measured range
 * holds at both of its ends; a decision for two ranks per node values
 * round trips (format 2) and a format 1 file written before them loads as
 * one rank per node. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decision/decision.h"
#include "tests/check.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HAS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define HAS_SANITIZER 1
#endif
#endif
#ifndef HAS_SANITIZER
#define HAS_SANITIZER 0
#endif

#define HEAD "autotune-decision 1\nkind exact\n"

/* Reads text as the file "t.dec" (from memory, as libautotune does, or
 * through a pipe, which cannot seek) into *d; its messages in msg (caller
 * frees). */
static int read_text(const char *text, bool is_pipe, struct decision **d,
                     char **msg)
{
    size_t msg_len = 0;
    FILE *err = open_memstream(msg, &msg_len);
    FILE *in = NULL;
    int fds[2] = {-1, -1};
    if (is_pipe && pipe(fds) == 0) {
        /* Small texts: the pipe's buffer holds them. */
        CHECK((size_t)write(fds[1], text, strlen(text)) == strlen(text));
        close(fds[1]);
        in = fdopen(fds[0], "r");
    } else if (!is_pipe) {
        in = fmemopen((void *)text, strlen(text), "r");
    }
    CHECK(err != NULL && in != NULL);
    int rc = err && in ? decision_read(in, "t.dec", err, d) : -1;
    if (in) {
        fclose(in);
    }
    if (err) {
        fclose(err);
    }
    return rc;
}

/* text fails to load with exactly one line, want. */
static void check_refused(const char *text, bool is_pipe, const char *want)
{
    struct decision *d = NULL;
    char *msg = NULL;
    CHECK(read_text(text, is_pipe, &d, &msg) != 0);
    CHECK(d == NULL);
    CHECK_STR(want, msg ? msg : "");
    decision_destroy(d);
    free(msg);
}

/* Counts the file cannot hold: one line naming the count, and nothing
 * allocated for it. The child process runs with 256 MiB of address space:
 * 100000000 nodes take 2 GB. */
static void test_counts(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {HEAD "methods 1\nlinear/0\ncollectives 1\nbcast 0\nnodes "
              "100000000\nleaf 0\n",
         "t.dec:7: 'nodes 100000000': expected at most 1 nodes (the 7 bytes "
         "left of the file hold no more)\n"},
        {HEAD "methods 1\nlinear/0\ncollectives 1\nbcast 0\nnodes "
              "536870911\nleaf 0\nleaf 0\n",
         "t.dec:7: 'nodes 536870911': expected at most 2 nodes (the 14 bytes "
         "left of the file hold no more)\n"},
        {HEAD "methods 65535\nlinear/0\n",
         "t.dec:3: 'methods 65535': expected at most 5 methods (the 9 bytes "
         "left of the file hold no more)\n"},
        {HEAD "methods 1\nlinear/0\ncollectives 1024\nbcast 0\n",
         "t.dec:5: 'collectives 1024': expected at most 2 collectives (the 8 "
         "bytes left of the file hold no more)\n"},
    };
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit lim = {256L << 20, 256L << 20};
        if (!HAS_SANITIZER) {
            CHECK_INT(0, setrlimit(RLIMIT_AS, &lim));
        }
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            check_refused(cases[i].text, false, cases[i].want);
            check_refused(cases[i].text, true, cases[i].want);
        }
        _exit(check_exit());
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A collective listed twice is an error naming both lines. */
static void test_twice(void)
{
    check_refused(HEAD "methods 1\nlinear/0\ncollectives 3\nbcast 0\nreduce "
                       "0\nbcast 0\nnodes 1\nleaf 0\n",
                  false,
                  "t.dec:8: 'bcast 0': expected each collective once (bcast "
                  "is on line 6 too)\n");
}

/* A child near INT32_MAX: refused, not wrapped past the check by the
 * child + 1 or + 3 of the node's other children (it crashed the reader,
 * and every rank of an application with it). */
static void test_child_wraps(void)
{
    check_refused(HEAD "methods 2\na/0\nb/0\ncollectives 1\nbcast 0\nnodes "
                       "3\nsplit procs 2147483646 2147483647\nleaf 0\nleaf 1\n",
                  false,
                  "t.dec:9: 'split procs 2147483646 2147483647': expected "
                  "children after the node and within the nodes\n");
    check_refused(HEAD "methods 1\na/0\ncollectives 1\nbcast 0\nnodes "
                       "5\nquad 4 1024 2147483645\nleaf 0\nleaf 0\nleaf "
                       "0\nleaf 0\n",
                  false,
                  "t.dec:8: 'quad 4 1024 2147483645': expected children "
                  "after the node and within the nodes\n");
}

/* Random bytes: one line, every byte printable, the bytes escaped. */
static void test_random_bytes(void)
{
    char text[200];
    unsigned v = 12345;
    for (size_t i = 0; i < sizeof text - 1; i++) {
        v = v * 1103515245u + 12345u;
        text[i] = (char)((v >> 16) % 255 + 1); /* no NUL */
    }
    text[0] = '\x1b'; /* an escape sequence, to be sure */
    text[1] = '[';
    text[sizeof text - 1] = '\0';
    struct decision *d = NULL;
    char *msg = NULL;
    CHECK(read_text(text, false, &d, &msg) != 0);
    const char *m = msg ? msg : "";
    CHECK(strncmp(m, "t.dec:1: '\\x1b[", 15) == 0);
    CHECK(strchr(m, '\n') == m + strlen(m) - 1);
    for (const char *c = m; *c; c++) {
        CHECK(*c == '\n' || ((unsigned char)*c >= 0x20 && *c < 0x7f));
    }
    decision_destroy(d);
    free(msg);
    /* A method or collective name with a control byte. */
    check_refused(HEAD "methods 1\nlin\a"
                       "ear/0\n",
                  false,
                  "t.dec:4: 'lin\\x07ear/0': expected a method "
                  "(ALGORITHM/SEGMENT_BYTES)\n");
}

/* A method longer than a decision keeps: refused, not cut to another
 * (pipeline/000... cut short reads as pipeline/0). */
static void test_long_method(void)
{
    char text[512];
    char zeros[141];
    memset(zeros, '0', sizeof zeros - 1);
    zeros[sizeof zeros - 1] = '\0';
    snprintf(text, sizeof text,
             HEAD "methods 2\npipeline/%s1024\ndefault/0\ncollectives 1\n"
                  "bcast 0\nnodes 1\nleaf 0\n",
             zeros);
    check_refused(text, false,
                  "t.dec:4: 'pipeline/000000000000000000000000000000000000000"
                  "...': expected a method (ALGORITHM/SEGMENT_BYTES) of at "
                  "most 143 bytes\n");
}

/* chain_fanout: written when known, read back; a file without it reads
 * as 0 (the default); a bad or second line is an error. */
static void test_chain_fanout(void)
{
    const char *body = HEAD "methods 1\nchain/8192\ncollectives 1\nbcast "
                            "0\nnodes 1\nleaf 0\n";
    struct decision *d = NULL;
    char *msg = NULL, text[512], *written = NULL;
    size_t written_len = 0;
    CHECK_INT(0, read_text(body, false, &d, &msg));
    CHECK(d && d->chain_fanout == 0);
    free(msg);
    if (!d) {
        return;
    }
    d->chain_fanout = 8;
    FILE *f = open_memstream(&written, &written_len);
    CHECK(f && decision_write(d, f) == 0);
    if (f) {
        fclose(f);
    }
    decision_destroy(d);
    snprintf(text, sizeof text, "%schain_fanout 8\n", body);
    CHECK_STR(text, written ? written : "");
    d = NULL;
    CHECK_INT(0, read_text(text, false, &d, &msg));
    CHECK(d && d->chain_fanout == 8);
    decision_destroy(d);
    free(msg);
    free(written);
    snprintf(text, sizeof text, "%schain_fanout 0\n", body);
    check_refused(text, false,
                  "t.dec:9: 'chain_fanout 0': expected 'chain_fanout N' (N "
                  ">= 1: the chains of the chain methods)\n");
    snprintf(text, sizeof text, "%schain_fanout 8\nchain_fanout 2\n", body);
    check_refused(text, false,
                  "t.dec:10: 'chain_fanout 2': expected one chain_fanout "
                  "line\n");
}

/* A tree or quadtree of a run takes the run's chain_fanout. */
static void test_trained(void)
{
    struct run_data *r = NULL;
    struct train_options opt;
    struct decision *d = NULL;
    train_options_init(&opt);
    CHECK_INT(0, run_data_load("tests/decision/run", NULL, 0, &r));
    if (!r) {
        return;
    }
    CHECK_INT(0, r->chain_fanout); /* the fixture has no journal */
    r->chain_fanout = 8;
    CHECK_INT(0, train_quadtree(&opt, r, -1, &d));
    CHECK(d && d->chain_fanout == 8);
    decision_destroy(d);
    d = NULL;
    CHECK_INT(0, train_exact(&opt, r, -1, &d));
    CHECK(d && d->chain_fanout == 8);
    decision_destroy(d);
    run_data_destroy(r);
}

/* The measured range holds at its four ends, and not one past them. */
static void test_range(void)
{
    const struct decision_range r = {4, 8, 16, 1024};
    CHECK(decision_range_holds(NULL, 1, 0));
    CHECK(decision_range_holds(&r, 4, 16));
    CHECK(decision_range_holds(&r, 8, 1024));
    CHECK(decision_range_holds(&r, 4, 1024));
    CHECK(decision_range_holds(&r, 8, 16));
    CHECK(!decision_range_holds(&r, 3, 16));
    CHECK(!decision_range_holds(&r, 9, 16));
    CHECK(!decision_range_holds(&r, 4, 15));
    CHECK(!decision_range_holds(&r, 4, 1025));
}

/* bcast at ppn 1: a/0 everywhere; at ppn 8: a/0 up to 1024 bytes, b/0
 * above; reduce at ppn 8 only: b/0, measured on 2..16 procs, 1 B..1 MiB. */
static const char ppn_text[] =
    "autotune-decision 2\nkind exact\nranks_per_node 1 8\nmethods 2\na/0\n"
    "b/0\ncollectives 2\nbcast 0 1\nreduce -1 4\nnodes 5\nleaf 0\n"
    "split msg_bytes 1024 2\nleaf 0\nleaf 1\nleaf 1\n"
    "range 3 2 16 1 1048576\n";

static struct decision *make_ppn_decision(void)
{
    static const char *const methods[] = {"a/0", "b/0"};
    static const char *const colls[] = {"bcast", "reduce"};
    static const int ppn[] = {1, 8};
    struct decision *d = NULL;
    int lo, hi;
    CHECK_INT(0, decision_create("exact", 2, methods, 2, colls, 2, ppn, &d));
    if (!d) {
        return NULL;
    }
    int bcast1 = decision_add_node(d), bcast8 = decision_add_node(d);
    CHECK_INT(0, decision_add_split(d, bcast8, false, 1024, &lo, &hi));
    decision_set_leaf(d, hi, 1);
    int reduce8 = decision_add_node(d);
    decision_set_leaf(d, reduce8, 1);
    decision_set_root(d, decision_table(d, 0, 0), bcast1);
    decision_set_root(d, decision_table(d, 0, 1), bcast8);
    decision_set_root(d, decision_table(d, 1, 1), reduce8);
    const struct decision_range range = {2, 16, 1, 1L << 20};
    CHECK_INT(0, decision_set_range(d, decision_table(d, 1, 1), &range));
    return d;
}

/* Two ranks per node values: written as format 2 (the text reasoned out
 * by hand above), read back with the same tables, roots and range. */
static void test_ppn_round_trip(void)
{
    struct decision *d = make_ppn_decision(), *back = NULL;
    char *written = NULL, *msg = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&written, &len);
    CHECK(d && f && decision_write(d, f) == 0);
    if (f) {
        fclose(f);
    }
    CHECK_STR(ppn_text, written ? written : "");
    CHECK_INT(0, read_text(ppn_text, false, &back, &msg));
    CHECK_STR("", msg ? msg : "");
    if (back) {
        CHECK_INT(2, back->n_ppn);
        CHECK_INT(1, back->ppn[0]);
        CHECK_INT(8, back->ppn[1]);
        CHECK_INT(0, decision_find_ppn(back, 1));
        CHECK_INT(1, decision_find_ppn(back, 8));
        CHECK_INT(-1, decision_find_ppn(back, 4));
        /* log2: 2 (1) is nearer 1 (0) than 8 (3); 3 (1.58) and 4 (2)
         * are nearer 8. */
        CHECK_INT(0, decision_nearest_ppn(back, 1));
        CHECK_INT(0, decision_nearest_ppn(back, 2));
        CHECK_INT(1, decision_nearest_ppn(back, 3));
        CHECK_INT(1, decision_nearest_ppn(back, 4));
        CHECK_INT(1, decision_nearest_ppn(back, 64));
        int bcast1 = decision_table(back, 0, 0), bcast8 = 1, reduce1 = 2;
        CHECK_INT(1, decision_table(back, 0, 1));
        CHECK_INT(3, decision_table(back, 1, 1));
        CHECK_INT(0, decision_lookup(back, bcast1, 4, 1L << 20));
        CHECK_INT(0, decision_lookup(back, bcast8, 4, 1024));
        CHECK_INT(1, decision_lookup(back, bcast8, 4, 1025));
        CHECK_INT(1, decision_lookup(back, 3, 4, 1));
        CHECK_INT(-1, back->roots[reduce1]);
        CHECK(decision_get_range(back, reduce1) == NULL);
        CHECK(decision_get_range(back, bcast8) == NULL);
        const struct decision_range *r = decision_get_range(back, 3);
        CHECK(r && r->procs_min == 2 && r->procs_max == 16 && r->msg_min == 1 &&
              r->msg_max == 1L << 20);
    }
    decision_destroy(d);
    decision_destroy(back);
    free(written);
    free(msg);
    /* A tie in log2 distance goes to the smaller value: 4 is one doubling
     * from 2 and from 8. */
    static const char *const one_method[] = {"a/0"};
    static const int two_eight[] = {2, 8};
    d = NULL;
    CHECK_INT(0, decision_create("exact", 1, one_method, 1, one_method, 2,
                                 two_eight, &d));
    CHECK(d && decision_nearest_ppn(d, 4) == 0);
    CHECK(d && decision_nearest_ppn(d, 5) == 1);
    decision_destroy(d);
    /* Bad ranks per node lines and roots. */
    check_refused("autotune-decision 2\nkind exact\nranks_per_node 8 1\n",
                  false,
                  "t.dec:3: 'ranks_per_node 8 1': expected 'ranks_per_node "
                  "P...' (1 to 64 values, ascending, >= 1)\n");
    check_refused("autotune-decision 2\nkind exact\nranks_per_node 0\n", false,
                  "t.dec:3: 'ranks_per_node 0': expected 'ranks_per_node "
                  "P...' (1 to 64 values, ascending, >= 1)\n");
    check_refused("autotune-decision 2\nkind exact\nranks_per_node 1 8\n"
                  "methods 1\na/0\ncollectives 1\nbcast 0\nnodes 1\nleaf 0\n",
                  false,
                  "t.dec:7: 'bcast 0': expected 'COLLECTIVE ROOT' with 2 "
                  "roots (-1: none)\n");
    check_refused(HEAD "methods 1\na/0\ncollectives 1\nbcast -1\nnodes "
                       "1\nleaf 0\n",
                  false,
                  "t.dec:6: 'bcast -1': expected 'COLLECTIVE ROOT' with 1 "
                  "root\n");
}

/* A format 1 file (tests/decision/format1-exact.dec: `export --format dec`
 * of tests/decision/run by the build before ranks per node) loads as one
 * rank per node, and chooses each optimal.csv row's method at its point
 * (the rows read here, not by the code under test). */
static void test_format1_golden(void)
{
    struct decision *d = NULL;
    CHECK_INT(0, decision_load("tests/decision/format1-exact.dec", &d));
    FILE *f = fopen("tests/decision/run/optimal.csv", "r");
    CHECK(f != NULL);
    if (!d || !f) {
        decision_destroy(d);
        if (f) {
            fclose(f);
        }
        return;
    }
    CHECK_INT(1, d->n_ppn);
    CHECK_INT(1, d->ppn[0]);
    CHECK_INT(0, decision_find_ppn(d, 1));
    char line[256], coll[32], alg[32], label[80];
    int procs, seg, n_rows = 0;
    long msg;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%31[^,],%d,%ld,%31[^,],%d,", coll, &procs, &msg, alg,
                   &seg) != 5) {
            continue; /* the header */
        }
        int c = decision_find_collective(d, coll);
        CHECK(c >= 0);
        if (c < 0) {
            continue;
        }
        snprintf(label, sizeof label, "%s/%d", alg, seg);
        CHECK_STR(label, d->methods[decision_lookup(d, decision_table(d, c, 0),
                                                    procs, msg)]);
        n_rows++;
    }
    CHECK_INT(132, n_rows);
    fclose(f);
    decision_destroy(d);
}

int main(void)
{
    test_counts();
    test_twice();
    test_child_wraps();
    test_random_bytes();
    test_long_method();
    test_chain_fanout();
    test_trained();
    test_range();
    test_ppn_round_trip();
    test_format1_golden();
    return check_exit();
}
