/* report/: --points parsing, sizes and times as axis labels, escaping of
 * names in SVG text, letters unique per collective and the same in every
 * run, and one map per (collective, ranks per node), named "ppn N" only
 * in a run with several values. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"
#include "report/report.h"
#include "report/svg.h"
#include "tests/check.h"

static void test_points(void)
{
    struct report_point *p;
    int n;
    CHECK_INT(0, report_parse_points("16:64K,3:1,64:1M", &p, &n));
    CHECK_INT(3, n);
    if (n == 3) {
        CHECK_INT(16, p[0].procs);
        CHECK_INT(65536, p[0].msg_bytes);
        CHECK_INT(1, p[1].msg_bytes);
        CHECK_INT(1048576, p[2].msg_bytes);
    }
    free(p);
    static const char *const bad[] = {"16",   "16:",      ":4",    "0:4",
                                      "4:-1", "4:1G",     "4:1K2", "4:1,",
                                      "x:1",  "4:1,,2:2", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(report_parse_points(bad[i], &p, &n) != 0);
        CHECK(p == NULL);
    }
}

static void test_labels(void)
{
    char buf[32];
    static const struct {
        double bytes;
        const char *text;
    } sizes[] = {{0, "0"},        {1, "1"},        {512, "512"},
                 {1024, "1K"},    {1536, "1.5K"},  {65536, "64K"},
                 {1048576, "1M"}, {3 << 20, "3M"}, {1 << 30, "1G"}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        svg_format_bytes(buf, sizeof buf, sizes[i].bytes);
        CHECK_STR(sizes[i].text, buf);
    }
    svg_format_us(buf, sizeof buf, 50);
    CHECK_STR("50 us", buf);
    svg_format_us(buf, sizeof buf, 2000);
    CHECK_STR("2 ms", buf);
    svg_format_us(buf, sizeof buf, 3e6);
    CHECK_STR("3 s", buf);
}

static void test_escape(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_text(f, 0, 0, "start", 10, "#000000", 0, "a<b & \"c\" 'd'>");
    fclose(f);
    CHECK(strstr(text, ">a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;</text>"));
    free(text);
    char buf[16];
    svg_escape_to(buf, sizeof buf, "a&b");
    CHECK_STR("a&amp;b", buf);
    svg_escape_to(buf, sizeof buf, "&&&&&&");
    CHECK(strlen(buf) < sizeof buf && strncmp(buf, "&amp;", 5) == 0);
}

/* Two collectives' tables, as autotune lends collectives/table.c's: one
 * with shared initials, and bcast's. */
static const char *table_alg(const char *collective, int place)
{
    static const char *const initials[] = {"binary", "binomial", "bruck",
                                           "b",      "bb",       "linear"};
    static const char *const bcast[] = {"linear",
                                        "chain",
                                        "pipeline",
                                        "binary",
                                        "split_binary",
                                        "binomial",
                                        "knomial",
                                        "scatter_allgather",
                                        "scatter_allgather_ring"};
    bool is_bcast = strcmp(collective, "bcast") == 0;
    int n = is_bcast ? (int)(sizeof bcast / sizeof bcast[0])
                     : (int)(sizeof initials / sizeof initials[0]);
    return place >= n ? NULL : is_bcast ? bcast[place] : initials[place];
}

static void set_algs(struct report_algs *a, const char *const *names, int n)
{
    a->n = a->n_fastest = 0;
    for (int i = 0; i < n; i++) {
        snprintf(a->name[a->n++], RUN_NAME_MAX, "%s", names[i]);
    }
}

/* Algorithms that share first letters still get distinct letters. */
static void test_letters(void)
{
    static const char *const names[] = {"binary", "binomial", "bruck",
                                        "b",      "bb",       "linear"};
    struct report_algs a;
    set_algs(&a, names, 6);
    report_algs_letter(&a, "initials", table_alg);
    CHECK_INT('B', a.letter[0]);
    CHECK_INT('I', a.letter[1]);
    CHECK_INT('R', a.letter[2]);
    CHECK_INT('b', a.letter[3]);
    CHECK_INT('A', a.letter[4]);
    CHECK_INT('L', a.letter[5]);
    for (int i = 0; i < a.n; i++) {
        for (int k = 0; k < i; k++) {
            CHECK(a.letter[i] != a.letter[k]);
        }
    }
}

/* An algorithm's letter comes from its place in the collective's table,
 * not from which algorithms a run timed or in what order: two runs with
 * different ones give it the same letter. */
static void test_letters_stable(void)
{
    static const char *const run1[] = {"scatter_allgather_ring", "chain",
                                       "binomial"};
    static const char *const run2[] = {
        "chain",    "split_binary",           "scatter_allgather",
        "binomial", "scatter_allgather_ring", "default",
        "ring_v2" /* not in the table: after it */};
    static const struct {
        const char *name;
        char letter;
    } want[] = {{"chain", 'C'},
                {"split_binary", 'S'},
                {"binomial", 'I'},
                {"scatter_allgather", 'A'},
                {"scatter_allgather_ring", 'T'},
                {"default", 'D'},
                {"ring_v2", 'R'}};
    struct report_algs a1, a2;
    set_algs(&a1, run1, 3);
    set_algs(&a2, run2, 7);
    report_algs_letter(&a1, "bcast", table_alg);
    report_algs_letter(&a2, "bcast", table_alg);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int k1 = report_algs_find(&a1, want[i].name);
        int k2 = report_algs_find(&a2, want[i].name);
        CHECK(k2 >= 0);
        if (k1 >= 0) {
            CHECK_INT(want[i].letter, a1.letter[k1]);
        }
        if (k2 >= 0) {
            CHECK_INT(want[i].letter, a2.letter[k2]);
        }
    }
}

static const char *no_table_alg(const char *collective, int place)
{
    (void)collective;
    (void)place;
    return NULL;
}

/* The terminal map of collective: run's maps, in order, each named by its
 * first line's title (what comes before ": the fastest"). */
static void check_maps(const char *run, const char *collective,
                       const char *want)
{
    char *text = NULL, got[256] = "";
    size_t len = 0, n = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out != NULL);
    if (!out) {
        return;
    }
    CHECK_INT(
        0, report_print_map(run, NULL, no_table_alg, collective, out, false));
    fclose(out);
    for (const char *at = text; at && (at = strstr(at, ": the fastest"));
         at++) {
        const char *line = at;
        while (line > text && line[-1] != '\n') {
            line--;
        }
        n += (size_t)snprintf(got + n, sizeof got - n, "%s%.*s", n ? "|" : "",
                              (int)(at - line), line);
    }
    CHECK_STR(want, got);
    free(text);
}

static void test_maps_per_ppn(void)
{
    check_maps("tests/decision/ppn-run", "allgather",
               "allgather, ppn 1|allgather, ppn 8");
    check_maps("tests/decision/run", "bcast", "bcast");
}

int main(void)
{
    test_points();
    test_labels();
    test_escape();
    test_letters();
    test_letters_stable();
    test_maps_per_ppn();
    return check_exit();
}
