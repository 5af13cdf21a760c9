/* Decisions with ranks per node as an attribute: a run's grids, one per
 * (collective, ppn); C4.5 over (procs, ppn, msg bytes) splitting on ppn
 * where the optimum differs by ppn (a hand-made run whose tree is reasoned
 * out below); the exact decision of a real run at 1 and 8 ranks per node
 * returning each ppn's own optimum at every measured point (the optima
 * read here from optimal.csv, not by the code under test); the cuts the
 * exports take between sizes at each ppn are those of that ppn's rows
 * alone (a run cut to one ppn by the test). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision/decision.h"
#include "store/export.h"
#include "store/tables.h"
#include "tests/check.h"

#define PPN_RUN "tests/decision/ppn-run"

/* ---- a hand-made run: bcast at ppn 1 and 8, procs 2 and 4, four sizes */

static int procs[] = {2, 4};
static long msgs[] = {1, 64, 4096, 262144};
static int ppn_values[] = {1, 8};
/* ppn 1: a everywhere; ppn 8: a up to 64 B, b above. A method off the
 * optimum takes twice its time. Cells (p, m) row-major. */
static int best1[] = {0, 0, 0, 0, 0, 0, 0, 0};
static int best8[] = {0, 0, 1, 1, 0, 0, 1, 1};
static double best_us[] = {1, 1, 1, 1, 1, 1, 1, 1};
static double default_us[] = {-1, -1, -1, -1, -1, -1, -1, -1};
static double time1[] = {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
static double time8[] = {1, 2, 1, 2, 2, 1, 2, 1, 1, 2, 1, 2, 2, 1, 2, 1};
static struct run_method methods[] = {{"a", 0, "a/0"}, {"b", 0, "b/0"}};
static struct run_grid grids[] = {
    {.name = "bcast",
     .ppn = 1,
     .n_procs = 2,
     .n_msgs = 4,
     .procs = procs,
     .msgs = msgs,
     .best = best1,
     .best_us = best_us,
     .default_us = default_us,
     .time_us = time1},
    {.name = "bcast",
     .ppn = 8,
     .n_procs = 2,
     .n_msgs = 4,
     .procs = procs,
     .msgs = msgs,
     .best = best8,
     .best_us = best_us,
     .default_us = default_us,
     .time_us = time8},
};
static const struct run_data run = {.n_methods = 2,
                                    .methods = methods,
                                    .n_grids = 2,
                                    .grids = grids,
                                    .n_ppn = 2,
                                    .ppn = ppn_values};

/* The tree, reasoned out: of the 16 points, 4 are b (ppn 8 above 64 B).
 * procs separates nothing (each procs has 2 b of 8). Splitting ppn at 1
 * gives {8 a} and {4 a, 4 b}; message size at 64 gives the same counts,
 * but C4.5 release 8 charges a continuous test log2(cuts)/points: ppn has
 * one possible cut (log2 1 = 0), message size three, so ppn wins. Below
 * ppn 8, message size at 64 separates the rest with no error (procs still
 * nothing). Leaves pure: pruning keeps it. Each leaf's predicted errors
 * (-c 25) are N (1 - 0.25^(1/N)) with no error seen: 1.27 for N = 8,
 * 1.17 for N = 4. */
static const char expected_tree[] = "\n"
                                    "ranks_per_node <= 1 : a/0 (8.0/1.3)\n"
                                    "ranks_per_node > 1 :\n"
                                    "|   message_size <= 64 : a/0 (4.0/1.2)\n"
                                    "|   message_size > 64 : b/0 (4.0/1.2)\n";

static void test_c45_three_attributes(void)
{
    struct train_options opt;
    struct c45_data *data = NULL;
    train_options_init(&opt);
    CHECK_INT(0, train_c45_data(&opt, &run, 0, 2, -1, &data));
    if (!data) {
        return;
    }
    CHECK_INT(16, data->n_items);
    CHECK_INT(3, data->n_attrs); /* one collective: no collective attribute */
    CHECK_STR("communicator_size", data->attrs[0].name);
    CHECK_STR("ranks_per_node", data->attrs[1].name);
    CHECK_STR("message_size", data->attrs[2].name);
    c45_data_destroy(data);

    /* The tree train_trees prints, and the decision it makes: each ppn's
     * table is the tree at that ppn, with no test on ppn left. */
    const char *coll = "bcast";
    struct decision *d = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    opt.is_next_size = true; /* the cut stays at 64 B */
    CHECK_INT(0, train_create_decision(&run, "c45", &coll, 1, &d));
    CHECK_INT(0, d && report ? train_trees(&opt, &run, -1, report, d) : -1);
    if (report) {
        fclose(report);
    }
    CHECK(text && strstr(text, expected_tree) != NULL);
    if (text && !strstr(text, expected_tree)) {
        fprintf(stderr, "got:\n%s\n", text);
    }
    free(text);
    if (!d) {
        return;
    }
    CHECK_INT(2, d->n_ppn);
    int t1 = decision_table(d, 0, decision_find_ppn(d, 1));
    int t8 = decision_table(d, 0, decision_find_ppn(d, 8));
    CHECK_INT(0, t1);
    CHECK_INT(1, t8);
    for (int p = 0; p < 2; p++) {
        for (int m = 0; m < 4; m++) {
            CHECK_INT(best1[p * 4 + m],
                      decision_lookup(d, t1, procs[p], msgs[m]));
            CHECK_INT(best8[p * 4 + m],
                      decision_lookup(d, t8, procs[p], msgs[m]));
        }
    }
    CHECK_INT(0, decision_depth(d, t1, 4, 262144)); /* a leaf */
    CHECK_INT(1, decision_depth(d, t8, 4, 262144)); /* the size test */
    /* --between next: the sizes up to the next measured take its method */
    CHECK_INT(0, decision_lookup(d, t8, 2, 64));
    CHECK_INT(1, decision_lookup(d, t8, 2, 65));
    CHECK_INT(0, decision_lookup(d, t1, 2, 65));
    /* Scored per grid: no penalty anywhere. */
    struct train_scores s;
    CHECK_INT(0, train_scores_alloc(&run, &s));
    for (int g = 0; g < 2; g++) {
        train_score_decision(&opt, &run, g, d, train_table(d, &run, g), -1, &s,
                             NULL);
    }
    CHECK_INT(16, s.n);
    for (int i = 0; i < s.n; i++) {
        CHECK(s.v[i] == 0);
    }
    free(s.v);
    decision_destroy(d);
}

/* ---- the real run ---- */

struct opt_row {
    char coll[32], label[80];
    int procs, ppn;
    long msg;
};

/* optimal.csv's rows (collective,procs,ppn,msg_bytes,algorithm,
 * segment_bytes,...), read here; their count. */
static int read_optimal(const char *path, struct opt_row *rows, int cap)
{
    FILE *f = fopen(path, "r");
    char line[512], alg[32];
    int n = 0, seg;
    CHECK(f != NULL);
    while (f && n < cap && fgets(line, sizeof line, f)) {
        struct opt_row *o = &rows[n];
        if (sscanf(line, "%31[^,],%d,%d,%ld,%31[^,],%d,", o->coll, &o->procs,
                   &o->ppn, &o->msg, alg, &seg) == 6) {
            snprintf(o->label, sizeof o->label, "%s/%d", alg, seg);
            n++;
        }
    }
    if (f) {
        fclose(f);
    }
    return n;
}

/* d chooses each row's own method at its (collective, ppn) point. */
static void check_exact(const char *what, const struct decision *d,
                        const struct opt_row *rows, int n)
{
    int n_checked = 0;
    for (int i = 0; i < n; i++) {
        int c = decision_find_collective(d, rows[i].coll);
        int k = decision_find_ppn(d, rows[i].ppn);
        CHECK(c >= 0 && k >= 0);
        if (c < 0 || k < 0) {
            continue;
        }
        int t = decision_table(d, c, k);
        const char *got =
            d->methods[decision_lookup(d, t, rows[i].procs, rows[i].msg)];
        if (strcmp(got, rows[i].label) != 0) {
            fprintf(stderr, "%s: %s P=%d ppn=%d %ld B: expected %s, got %s\n",
                    what, rows[i].coll, rows[i].procs, rows[i].ppn, rows[i].msg,
                    rows[i].label, got);
            check_failures++;
        }
        n_checked++;
    }
    CHECK_INT(64, n_checked);
}

static void test_exact_two_ppn(void)
{
    static struct opt_row rows[128];
    int n = read_optimal(PPN_RUN "/optimal.csv", rows, 128);
    CHECK_INT(64, n); /* 4 collectives x 2 ppn x 8 sizes */
    /* The optimum differs by ppn somewhere: else the test shows nothing. */
    int n_differ = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            n_differ += strcmp(rows[i].coll, rows[j].coll) == 0 &&
                        rows[i].procs == rows[j].procs &&
                        rows[i].msg == rows[j].msg && rows[i].ppn == 1 &&
                        rows[j].ppn == 8 &&
                        strcmp(rows[i].label, rows[j].label) != 0;
        }
    }
    CHECK(n_differ >= 8);

    struct run_data *r = NULL;
    CHECK_INT(0, run_data_load(PPN_RUN, NULL, 0, &r));
    if (!r) {
        return;
    }
    /* One grid per (collective, ppn): collectives in optimal.csv's order,
     * ppn ascending. */
    static const char *const order[] = {"bcast", "reduce", "allreduce",
                                        "allgather"};
    CHECK_INT(8, r->n_grids);
    CHECK_INT(2, r->n_ppn);
    CHECK(r->n_ppn == 2 && r->ppn[0] == 1 && r->ppn[1] == 8);
    for (int g = 0; g < r->n_grids && g < 8; g++) {
        CHECK_STR(order[g / 2], r->grids[g].name);
        CHECK_INT(g % 2 ? 8 : 1, r->grids[g].ppn);
        CHECK_INT(1, r->grids[g].n_procs);
        CHECK_INT(8, r->grids[g].n_msgs);
    }

    /* tree --exact */
    struct train_options opt;
    struct decision *d = NULL;
    train_options_init(&opt);
    CHECK_INT(0, train_exact(&opt, r, -1, &d));
    if (d) {
        CHECK_INT(2, d->n_ppn);
        check_exact("tree --exact", d, rows, n);
    }
    decision_destroy(d);

    /* export --format dec: the optimal rows, the cuts the exports take,
     * written and read back as a file. */
    struct measurement *table = NULL;
    size_t n_table = 0;
    long *cuts = NULL, *procs_cuts = NULL;
    struct export_insert *ins = NULL;
    size_t n_ins = 0;
    CHECK_INT(0, table_read_optimal(PPN_RUN "/optimal.csv", &table, &n_table));
    CHECK_INT(0, between_table_cuts(r, table, n_table, &cuts, &procs_cuts, &ins,
                                    &n_ins));
    struct export_context ctx = {0};
    ctx.msg_cuts = cuts;
    ctx.procs_cuts = procs_cuts;
    ctx.inserts = ins;
    ctx.n_inserts = n_ins;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && export_dec(f, table, n_table, &ctx) == 0);
    if (f) {
        fclose(f);
    }
    CHECK(text && strncmp(text,
                          "autotune-decision 2\nkind exact\nranks_per_node 1 "
                          "8\n",
                          48) == 0);
    d = NULL;
    CHECK_INT(0, text ? decision_read_text(text, len, "export.dec", stderr, &d)
                      : -1);
    if (d) {
        check_exact("export --format dec", d, rows, n);
    }
    decision_destroy(d);
    free(text);
    free(table);
    free(cuts);
    free(procs_cuts);
    free(ins);
    run_data_destroy(r);
}

/* Copies the rows of ppn (and the header) of PPN_RUN's file name into
 * dir; 0 or -1. */
static int copy_ppn_rows(const char *dir, const char *name, int ppn)
{
    char path[512], line[512];
    snprintf(path, sizeof path, PPN_RUN "/%s", name);
    FILE *in = fopen(path, "r");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = in ? fopen(path, "w") : NULL;
    int n = 0;
    while (out && fgets(line, sizeof line, in)) {
        int p = 0;
        const char *c2 = strchr(line, ',');
        const char *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
        if (n++ == 0 || (c3 && sscanf(c3 + 1, "%d", &p) == 1 && p == ppn)) {
            fputs(line, out);
        }
    }
    int rc = in && out && !ferror(in) ? 0 : -1;
    if (out && fclose(out) != 0) {
        rc = -1;
    }
    if (in) {
        fclose(in);
    }
    return rc;
}

/* The cuts of every row of a run at 1 and 8 ranks per node equal those of
 * the same row in the run cut to its ppn alone: each ppn's cuts come from
 * its own times. */
static void test_cuts_per_ppn(void)
{
    struct run_data *all = NULL;
    struct measurement *rows = NULL;
    size_t n = 0;
    long *cuts = NULL, *procs_cuts = NULL;
    CHECK_INT(0, run_data_load(PPN_RUN, NULL, 0, &all));
    CHECK_INT(0, table_read_optimal(PPN_RUN "/optimal.csv", &rows, &n));
    CHECK_INT(0, all ? between_table_cuts(all, rows, n, &cuts, &procs_cuts,
                                          NULL, NULL)
                     : -1);
    int n_compared = 0, n_differ_across = 0;
    for (int ppn = 1; cuts && ppn <= 8; ppn += 7) {
        char dir[] = "/tmp/autotune-ppn-cuts-XXXXXX";
        struct run_data *one = NULL;
        struct measurement *rows1 = NULL;
        size_t n1 = 0;
        long *cuts1 = NULL, *pcuts1 = NULL;
        CHECK(mkdtemp(dir) != NULL);
        CHECK_INT(0, copy_ppn_rows(dir, "optimal.csv", ppn));
        CHECK_INT(0, copy_ppn_rows(dir, "measurements.csv", ppn));
        char path[512];
        snprintf(path, sizeof path, "%s/optimal.csv", dir);
        CHECK_INT(0, run_data_load(dir, NULL, 0, &one));
        CHECK_INT(0, table_read_optimal(path, &rows1, &n1));
        CHECK_INT(0, one ? between_table_cuts(one, rows1, n1, &cuts1, &pcuts1,
                                              NULL, NULL)
                         : -1);
        for (size_t i = 0; cuts1 && i < n1; i++) {
            for (size_t j = 0; j < n; j++) {
                if (rows[j].ppn != ppn || rows[j].procs != rows1[i].procs ||
                    rows[j].msg_bytes != rows1[i].msg_bytes ||
                    strcmp(rows[j].collective, rows1[i].collective) != 0) {
                    continue;
                }
                if (cuts[j] != cuts1[i]) {
                    fprintf(stderr, "%s ppn=%d %ld B: cut %ld, alone %ld\n",
                            rows[j].collective, ppn, rows[j].msg_bytes, cuts[j],
                            cuts1[i]);
                    check_failures++;
                }
                n_compared++;
            }
        }
        /* the other ppn's row at the same point cuts elsewhere somewhere */
        for (size_t j = 0; cuts1 && j < n; j++) {
            for (size_t i = 0; rows[j].ppn != ppn && i < n1; i++) {
                n_differ_across +=
                    rows[j].procs == rows1[i].procs &&
                    rows[j].msg_bytes == rows1[i].msg_bytes &&
                    strcmp(rows[j].collective, rows1[i].collective) == 0 &&
                    cuts[j] != cuts1[i];
            }
        }
        snprintf(path, sizeof path, "%s/optimal.csv", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/measurements.csv", dir);
        unlink(path);
        rmdir(dir);
        free(rows1);
        free(cuts1);
        free(pcuts1);
        run_data_destroy(one);
    }
    CHECK_INT(64, n_compared);
    CHECK(n_differ_across > 0);
    free(rows);
    free(cuts);
    free(procs_cuts);
    run_data_destroy(all);
}

int main(void)
{
    test_c45_three_attributes();
    test_exact_two_ppn();
    test_cuts_per_ppn();
    return check_exit();
}
