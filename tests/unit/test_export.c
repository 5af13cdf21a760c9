/* The exporters' checkers reject what Open MPI and MPICH reject (first rule
 * not at 0, descending sizes, unknown algorithms, count mismatches, missing
 * catch-alls), accept what the writers produce, and export refuses to write
 * a file that fails its check or a native run in another library's format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "decision/decision.h"
#include "store/export.h"
#include "store/json.h"
#include "store/libraries.h"
#include "store/ompi_eval.h"
#include "store/tables.h"
#include "tests/rules_eval.h"

static int ompi(const char *text)
{
    return export_check_ompi(text, strlen(text), "test");
}

static int ompi_json(const char *text)
{
    return export_check_ompi_json(text, strlen(text), "test");
}

static int mpich(const char *text)
{
    return export_check_mpich(text, strlen(text), "test");
}

static void test_check_ompi(void)
{
    /* Open MPI's documentation example shape: bcast binomial, pipeline. */
    CHECK_INT(0, ompi("1 # collectives\n7 # bcast\n1\n16\n3\n"
                      "0 6 0 0\n65536 3 0 8192\n1048576 0 0 0\n"));
    /* ompi-collectives-tuning's decision.file: the first rule at 8. */
    CHECK_INT(-1, ompi("1\n0\n1\n4\n1\n8 3 0 0\n"));
    CHECK_INT(-1, ompi("1\n7\n1\n2\n2\n0 6 0 0\n0 3 0 0\n")); /* equal */
    CHECK_INT(-1, ompi("1\n7\n1\n2\n2\n0 6 0 0\n9 3 0 0 # x\n5 3 0 0\n"));
    CHECK_INT(-1, ompi("1\n7\n1\n2\n1\n0 99 0 0\n"));   /* number */
    CHECK_INT(-1, ompi("1\n2\n1\n2\n1\n0 7 0 0\n"));    /* allreduce 7: 6.0 */
    CHECK_INT(-1, ompi("2\n7\n1\n2\n1\n0 6 0 0\n"));    /* a collective short */
    CHECK_INT(-1, ompi("1\n7\n1\n2\n1\n0 6 0 0\n5\n")); /* numbers left */
    CHECK_INT(-1, ompi("1\n7\n1\n2\n1\n0 6 -1 0\n"));   /* negative */
    CHECK_INT(-1, ompi("1\n7\n1\n2\n1\n0 06 0 0\n"));   /* octal */
    CHECK_INT(-1, ompi("1\n7\n2\n4\n1\n0 6 0 0\n2\n1\n0 6 0 0\n")); /* procs */
    CHECK_INT(-1, ompi("1\n7\n1\n2\n1\n0 6 0 0\n7\n"));
    CHECK_INT(-1, ompi("2\n7\n1\n2\n1\n0 6 0 0\n7\n1\n2\n1\n0 6 0 0\n"));
    /* allgather two_proc: fine when the next size starts at 3, not when its
     * block reaches every larger communicator. */
    CHECK_INT(0, ompi("1\n0\n2\n2\n1\n0 6 0 0\n3\n1\n0 0 0 0\n"));
    CHECK_INT(-1, ompi("1\n0\n1\n2\n1\n0 6 0 0\n"));
    CHECK_INT(-1, ompi("1\n0\n2\n2\n1\n0 6 0 0\n4\n1\n0 4 0 0\n"));
    /* Version 2: max requests on the rule's line, read only there. */
    CHECK_INT(0, ompi("rule-file-version-2\n1\n3\n1\n64\n2\n"
                      "0 0 0 0 0\n512000 4 0 0 64\n"));
    CHECK_INT(-1, ompi("1\n3\n1\n64\n2\n0 0 0 0 0\n512000 4 0 0 64\n"));
    CHECK_INT(-1, ompi("rule-file-version-3\n1\n7\n1\n2\n1\n0 6 0 0\n"));
}

static void test_check_ompi_json(void)
{
    const char *good =
        "{\"rule_file_version\": 3, \"module\": \"tuned\", \"collectives\": "
        "{\"allreduce\": [{\"comm_size_min\": 0, \"comm_size_max\": 7, "
        "\"rules\": [{\"msg_size_min\": 0, \"msg_size_max\": 1023, \"alg\": "
        "3}, {\"msg_size_min\": 1024, \"msg_size_max\": \"inf\", \"alg\": 7, "
        "\"seg_size\": 0}]}, {\"comm_size_min\": 8, \"comm_size_max\": "
        "\"inf\", \"rules\": [{\"msg_size_min\": 0, \"msg_size_max\": \"inf\", "
        "\"alg\": 0}]}]}}";
    CHECK_INT(0, ompi_json(good));
    char *bad = strdup(good);
    /* A gap between communicator ranges. */
    memcpy(strstr(bad, "\"comm_size_min\": 8") + 17, "9", 1);
    CHECK_INT(-1, ompi_json(bad));
    free(bad);
    CHECK_INT(-1, ompi_json("{\"rule_file_version\": 3, \"module\": "
                            "\"tuned\", \"collectives\": {\"bcast\": "
                            "[{\"comm_size_min\": 0, \"comm_size_max\": "
                            "\"inf\", \"rules\": [{\"msg_size_min\": 0, "
                            "\"msg_size_max\": 99, \"alg\": 6}]}]}}"));
    CHECK_INT(-1, ompi_json("{\"rule_file_version\": 3, \"module\": "
                            "\"tuned\", \"collectives\": {\"bcast\": "
                            "[{\"comm_size_min\": 0, \"comm_size_max\": "
                            "\"inf\", \"rules\": [{\"msg_size_min\": 0, "
                            "\"msg_size_max\": \"inf\", \"alg\": 6, "
                            "\"segsize\": 8}]}]}}"));
    CHECK_INT(-1, ompi_json("{\"rule_file_version\": 3, \"collectives\": {}"));
}

static void test_check_mpich(void)
{
    /* Every collective must be there; a file of one is refused. */
    CHECK_INT(-1, mpich("{\"collective=bcast\": {\"comm_type=intra\": "
                        "{\"algorithm=MPIR_Bcast_intra_binomial\": {}}, "
                        "\"comm_type=inter\": {\"algorithm=MPIR_Bcast_inter_"
                        "remote_send_local_bcast\": {}}}}"));
    CHECK_INT(-1, mpich("{\"collective=bcast\": {\"comm_type=intra\": "
                        "{\"comm_size<4\": {\"algorithm=MPIR_Bcast_intra_"
                        "binomial\": {}}}}}")); /* no case for size >= 4 */
    CHECK_INT(-1, mpich("{\"collective=bcast\": {\"comm_type=intra\": "
                        "{\"comm_size=any\": {\"algorithm=MPIR_Bcast_intra_"
                        "binomial\": {}}, \"comm_size<4\": {\"algorithm=MPIR_"
                        "Bcast_intra_binomial\": {}}}}}")); /* any not last */
    CHECK_INT(-1, mpich("{\"collective=bcast\": {\"comm_type=intra\": "
                        "{\"comm_sise<4\": {}}}}"));
    CHECK_INT(-1, mpich("{\"collective=gather\": {\"comm_type=intra\": "
                        "{\"avg_msg_size<4\": {\"algorithm=MPIR_Gather_intra_"
                        "binomial\": {}}, \"avg_msg_size=any\": {\"algorithm="
                        "MPIR_Gather_intra_binomial\": {}}}}}"));
    CHECK_INT(-1, mpich("{\"collective=bcast\": {\"comm_type=intra\": "
                        "{\"algorithm=MPIR_Bcast_intra_bogus\": {}}}}"));
}

/* The fixture's rows through every format: each output passes its check. */
static void test_writers(void)
{
    struct measurement *rows;
    size_t n;
    CHECK_INT(0, table_read_optimal("tests/export/optimal.csv", &rows, &n));
    FILE *quiet = fopen("/dev/null", "w");
    struct export_context ctx = {.source = "tests/export/optimal.csv",
                                 .backend = "own",
                                 .library = "",
                                 .chain_fanout = 3,
                                 .warn = quiet};
    for (int i = 0; i < export_formats_size; i++) {
        const struct export_format *f = &export_formats[i];
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        CHECK_INT(0, f->write(mem, rows, n, &ctx));
        fclose(mem);
        if (f->check) {
            CHECK_INT(0, f->check(text, len, f->name));
        }
        if (strcmp(f->name, "ompi") == 0) {
            /* chain_fanout from the context; merged equal rules; a rule
             * starts just above the previous measured size (4096). */
            CHECK(strstr(text, "\n4097 2 3 8192 # chain") != NULL);
            CHECK(strstr(text, "\n1 # message sizes\n0 4 0 0 # bruck") != NULL);
        }
        if (strcmp(f->name, "ompi-v2") == 0) {
            CHECK(strncmp(text, "rule-file-version-2\n", 20) == 0);
            /* alltoall bruck at 256 B on 4 ranks, above 1 B x 4 */
            CHECK(strstr(text, "\n5 3 0 0 0 # bruck") != NULL);
        }
        free(text);
    }
    fclose(quiet);
    free(rows);
}

/* Sizes past what MPICH reads (int): allgather's total_msg_size at 4 and 8
 * ranks of 1, 2 and 4 GiB puts two cuts of each block past INT_MAX. The
 * file stops at the first (the rule before covers the rest) and passes
 * MPICH's check, and the warning is said once for the collective, not once
 * per communicator size. */
static void test_mpich_int_limit(void)
{
    const char *path = "build/tests/export-int-limit.csv";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("collective,procs,msg_bytes,algorithm,segment_bytes,time_us\n", f);
    for (int p = 4; p <= 8; p *= 2) {
        fprintf(f, "allgather,%d,1073741824,ring,0,1.000\n", p);
        fprintf(f, "allgather,%d,2147483648,bruck,0,1.000\n", p);
        fprintf(f, "allgather,%d,4294967296,ring,0,1.000\n", p);
    }
    fclose(f);
    struct measurement *rows;
    size_t n;
    CHECK_INT(0, table_read_optimal(path, &rows, &n));
    char *text = NULL, *warned = NULL;
    size_t len = 0, warned_len = 0;
    FILE *mem = open_memstream(&text, &len);
    FILE *warn = open_memstream(&warned, &warned_len);
    struct export_context ctx = {.source = path,
                                 .backend = "own",
                                 .library = "",
                                 .chain_fanout = 4,
                                 .warn = warn};
    CHECK_INT(0, export_mpich(mem, rows, n, &ctx));
    fclose(mem);
    fclose(warn);
    CHECK_INT(0, export_check_mpich(text, len, "test"));
    int n_warnings = 0;
    for (const char *w = warned; (w = strstr(w, "past what MPICH reads"));
         w++) {
        n_warnings++;
    }
    CHECK_INT(1, n_warnings);
    free(text);
    free(warned);
    free(rows);
}

static int write_bad(FILE *out, const struct measurement *rows, size_t n,
                     const struct export_context *ctx)
{
    (void)rows;
    (void)n;
    (void)ctx;
    fputs("1\n7\n1\n2\n1\n8 6 0 0\n", out);
    return 0;
}

static void test_refusals(void)
{
    struct measurement row = {
        .procs = 2, .ppn = 1, .msg_bytes = 8, .segment_bytes = 0};
    snprintf(row.collective, sizeof row.collective, "bcast");
    snprintf(row.algorithm, sizeof row.algorithm, "binomial");
    FILE *quiet = fopen("/dev/null", "w");
    struct export_context ctx = {.source = "test",
                                 .backend = "own",
                                 .library = "",
                                 .chain_fanout = 4,
                                 .warn = quiet};
    const char *path = "build/tests/test_export.out";
    unlink(path);
    struct export_format bad = {
        "ompi",     write_bad,      export_check_ompi,
        "Open MPI", EXPORT_PPN_ONE, "a writer with a bug"};
    CHECK_INT(-1, export_write(&bad, path, &row, 1, &ctx));
    CHECK(access(path, F_OK) != 0);
    /* A native Open MPI run: Open MPI's formats only. */
    ctx.backend = "native";
    ctx.library = "Open_MPI_v4.1.4";
    CHECK_INT(-1, export_write(export_find("mpich"), path, &row, 1, &ctx));
    CHECK(access(path, F_OK) != 0);
    CHECK_INT(0, export_write(export_find("ompi"), path, &row, 1, &ctx));
    CHECK(access(path, F_OK) == 0);
    unlink(path);
    fclose(quiet);
}

static void test_tables(void)
{
    /* Open MPI's collective ids agree between its two tables. */
    static const char *const colls[] = {"allgather", "allreduce", "alltoall",
                                        "barrier",   "bcast",     "gather",
                                        "reduce",    "scatter"};
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++) {
        const struct ompi_coll *c = ompi_coll_find(colls[i]);
        const struct ompi_alg *a = ompi_alg_by_number(colls[i], 1);
        CHECK(c && a);
        if (c && a) {
            CHECK_INT(c->coll_id, a->coll_id);
        }
        CHECK(mpich_coll_of(colls[i]) != NULL);
    }
}

/* Open MPI 4.1's algorithms that combine a non-commutative operation's
 * operands out of rank order, as tests/mpi/noncommutative_probe.c found
 * them under mpirun (reduce chain, pipeline, binary, binomial; allreduce
 * ring, segmented ring; and 6.0's allgather_reduce, from its source). */
static int reorders(const char *collective, long alg)
{
    if (strcmp(collective, "reduce") == 0) {
        return alg >= 2 && alg <= 5;
    }
    return strcmp(collective, "allreduce") == 0 &&
           (alg == 4 || alg == 5 || alg == 7);
}

/* Reordering rules met on a grid of calls to a classic file. */
static int count_reordering(const char *text)
{
    static struct ompi_eval e;
    static const char *const colls[] = {"reduce", "allreduce"};
    int n = 0;
    CHECK_INT(0, ompi_eval_load(text, &e));
    for (int c = 0; c < 2; c++) {
        for (int procs = 1; procs <= 6; procs++) {
            for (long m = 1; m <= (1L << 21); m *= 2) {
                for (long d = -1; d <= 1; d++) {
                    long seg;
                    n += reorders(colls[c], ompi_eval_alg(&e, colls[c], procs,
                                                          m + d, &seg));
                }
            }
        }
    }
    return n;
}

static int count_reordering_json(const char *text, size_t len)
{
    struct json *root;
    int n = 0;
    CHECK_INT(0, json_parse(text, len, "ompi-json", &root));
    const struct json *colls = json_get(root, "collectives");
    for (int i = 0; colls && i < colls->n; i++) {
        for (int b = 0; b < colls->items[i]->n; b++) {
            const struct json *rules =
                json_get(colls->items[i]->items[b], "rules");
            for (int r = 0; rules && r < rules->n; r++) {
                const struct json *alg = json_get(rules->items[r], "alg");
                n += alg && reorders(colls->keys[i], (long)alg->integer);
            }
        }
    }
    json_destroy(root);
    return n;
}

static char *export_to_text(const struct export_format *f,
                            const struct measurement *rows, size_t n,
                            const struct export_context *ctx, size_t *len)
{
    char *text = NULL;
    FILE *mem = open_memstream(&text, len);
    CHECK_INT(0, f->write(mem, rows, n, ctx));
    fclose(mem);
    CHECK_INT(0, f->check(text, *len, f->name));
    return text;
}

/* Reduce and allreduce rules keep the operand order unless
 * --assume-commutative: no call of the grid meets a reordering algorithm
 * in any Open MPI format; where one was tuned, the rule holds the fastest
 * order-keeping method measured there (tests/export/noncommutative:
 * in_order_binary/1024 at 66 us before linear at 70 us; rabenseifner at
 * 95 us before recursive doubling at 99 us). */
static void test_keep_order(void)
{
    const char *dir = "tests/export/noncommutative";
    struct measurement *rows, *measured;
    size_t n, n_measured;
    CHECK_INT(0, table_read_optimal("tests/export/noncommutative/optimal.csv",
                                    &rows, &n));
    CHECK_INT(0, table_read_measurements(
                     "tests/export/noncommutative/measurements.csv", &measured,
                     &n_measured));
    FILE *quiet = fopen("/dev/null", "w");
    static const char *const formats[] = {"ompi", "ompi-v2", "ompi-json"};
    for (int assume = 0; assume <= 1; assume++) {
        struct export_context ctx = {.source = dir,
                                     .backend = "own",
                                     .library = "",
                                     .chain_fanout = 4,
                                     .warn = quiet,
                                     .assume_commutative = assume,
                                     .measured = measured,
                                     .n_measured = n_measured};
        for (int f = 0; f < 3; f++) {
            size_t len;
            char *text =
                export_to_text(export_find(formats[f]), rows, n, &ctx, &len);
            int n_reordering = f < 2 ? count_reordering(text)
                                     : count_reordering_json(text, len);
            if (assume ? n_reordering == 0 : n_reordering != 0) {
                fprintf(stderr, "%s, assume_commutative %d: %d reordering\n",
                        formats[f], assume, n_reordering);
                check_failures++;
            }
            if (f == 0 && !assume) {
                static struct ompi_eval e;
                long seg;
                CHECK_INT(0, ompi_eval_load(text, &e));
                CHECK_INT(6, ompi_eval_alg(&e, "reduce", 2, 16384, &seg));
                CHECK_INT(1024, seg);
                CHECK_INT(6, ompi_eval_alg(&e, "allreduce", 4, 4096, &seg));
                CHECK_INT(1, ompi_eval_alg(&e, "reduce", 2, 16, &seg));
                CHECK_INT(0, ompi_eval_alg(&e, "reduce", 4, 16, &seg));
                CHECK_INT(7, ompi_eval_alg(&e, "reduce", 2, 65536, &seg));
            }
            free(text);
        }
    }
    fclose(quiet);
    free(rows);
    free(measured);
}

/* On two ranks, methods of ours that are one message (or one exchange)
 * there go to MPICH's algorithm that is too, on communicators of two only
 * (issue 37: they were warned about as having no counterpart). The names
 * expected are MPICH's, written here; a segmented pipeline and split_binary
 * (two messages on two ranks) still have none. */
static void test_mpich_two_procs(void)
{
    static const struct {
        const char *collective, *algorithm, *mpich;
    } cases[] = {
        {"bcast", "linear", "MPIR_Bcast_intra_binomial"},
        {"reduce", "chain", "MPIR_Reduce_intra_binomial"},
        {"gather", "linear", "MPIR_Gather_intra_binomial"},
        {"scatter", "linear_nb", "MPIR_Scatter_intra_binomial"},
        {"allgather", "two_proc", "MPIR_Allgather_intra_ring"},
        {"alltoall", "linear", "MPIR_Alltoall_intra_pairwise"},
        {"barrier", "two_proc", "MPIR_Barrier_intra_dissemination"},
    };
    size_t n = sizeof cases / sizeof cases[0];
    struct measurement rows[2 * sizeof cases / sizeof cases[0] + 2];
    memset(rows, 0, sizeof rows);
    for (size_t i = 0; i < n; i++) {
        /* the method at 2 ranks, and the library's at 3 (a block of 2
         * ranks and one from 3) */
        for (int k = 0; k < 2; k++) {
            struct measurement *m = &rows[2 * i + (size_t)k];
            snprintf(m->collective, sizeof m->collective, "%s",
                     cases[i].collective);
            snprintf(m->algorithm, sizeof m->algorithm, "%s",
                     k ? "default" : cases[i].algorithm);
            m->procs = 2 + k;
            m->ppn = 1;
            m->msg_bytes = strcmp(cases[i].collective, "barrier") ? 1024 : 0;
            m->mean_us = 1.0;
            m->reps = 1;
            m->is_applicable = 1;
        }
    }
    struct measurement *seg = &rows[2 * n], *split = &rows[2 * n + 1];
    *seg = rows[0];
    seg->msg_bytes = 65536;
    seg->segment_bytes = 1024;
    snprintf(seg->algorithm, sizeof seg->algorithm, "pipeline");
    *split = rows[0];
    split->msg_bytes = 4096;
    snprintf(split->algorithm, sizeof split->algorithm, "split_binary");
    /* rows sorted as optimal.csv's: bcast's at 2 ranks together */
    struct measurement sorted[sizeof rows / sizeof rows[0]];
    size_t k = 0;
    sorted[k++] = rows[0];
    sorted[k++] = *split;
    sorted[k++] = *seg;
    for (size_t i = 1; i < 2 * n; i++) {
        sorted[k++] = rows[i];
    }
    char *text = NULL, *warned = NULL;
    size_t len = 0, warned_len = 0;
    FILE *mem = open_memstream(&text, &len);
    FILE *warn = open_memstream(&warned, &warned_len);
    struct export_context ctx = {.source = "two",
                                 .backend = "own",
                                 .library = "",
                                 .chain_fanout = 4,
                                 .warn = warn};
    CHECK_INT(0, export_mpich(mem, sorted, k, &ctx));
    fclose(mem);
    fclose(warn);
    CHECK_INT(0, export_check_mpich(text, len, "two"));
    struct json *root = NULL;
    CHECK_INT(0, json_parse(text, len, "two", &root));
    for (size_t i = 0; root && i < n; i++) {
        const struct mpich_coll *c = mpich_coll_of(cases[i].collective);
        struct mpich_call call = {2, 1024, 2048, 1024, 0, 0};
        const char *got = mpich_eval_alg(root, c->name, &call);
        if (!got || strcmp(got, cases[i].mpich) != 0) {
            fprintf(stderr, "%s %s on 2 ranks: MPICH runs %s, not %s\n",
                    cases[i].collective, cases[i].algorithm,
                    got ? got : "(none)", cases[i].mpich);
            check_failures++;
        }
        char what[128];
        snprintf(what, sizeof what, "%s P=2 m=%ld: %s/0 not exported",
                 cases[i].collective, rows[2 * i].msg_bytes,
                 cases[i].algorithm);
        CHECK(strstr(warned, what) == NULL);
    }
    CHECK(strstr(warned, "bcast P=2 m=65536: pipeline/1024 not exported") !=
          NULL);
    CHECK(strstr(warned, "bcast P=2 m=4096: split_binary/0 not exported") !=
          NULL);
    json_destroy(root);
    free(text);
    free(warned);
}

/* A row of the optimal table. */
static struct measurement ppn_row(const char *collective, int procs, int ppn,
                                  long msg_bytes, const char *algorithm)
{
    struct measurement m;
    memset(&m, 0, sizeof m);
    snprintf(m.collective, sizeof m.collective, "%s", collective);
    snprintf(m.algorithm, sizeof m.algorithm, "%s", algorithm);
    m.procs = procs;
    m.ppn = ppn;
    m.msg_bytes = msg_bytes;
    m.mean_us = 1.0;
    m.reps = 1;
    m.is_applicable = 1;
    return m;
}

static size_t count_of(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) {
        n++;
    }
    return n;
}

/* Ranks per node in the exports: MPICH's comm_avg_ppn cases where the
 * rules differ (none where they agree), evaluated as MPICH 4.0 does (size
 * <= value x nodes); Open MPI 6.0's one-per-node rules before those for
 * every communicator; the checkers' rules for both. */
static void test_ppn(void)
{
    struct measurement rows[] = {
        ppn_row("allreduce", 4, 1, 1, "recursive_doubling"),
        ppn_row("allreduce", 4, 4, 1, "recursive_doubling"),
        ppn_row("bcast", 4, 1, 1, "binomial"),
        ppn_row("bcast", 4, 1, 1024, "scatter_allgather"),
        ppn_row("bcast", 4, 4, 1, "binomial"),
        ppn_row("bcast", 4, 4, 1024, "scatter_allgather_ring"),
    };
    size_t n = sizeof rows / sizeof rows[0];
    FILE *quiet = fopen("/dev/null", "w");
    struct export_context ctx = {.source = "ppn",
                                 .backend = "own",
                                 .library = "",
                                 .chain_fanout = 4,
                                 .warn = quiet,
                                 .is_lineless = 1};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CHECK_INT(0, export_mpich(mem, rows, n, &ctx));
    fclose(mem);
    CHECK_INT(0, export_check_mpich(text, len, "ppn"));
    /* bcast alone differs by ranks per node */
    CHECK_INT(1, (int)count_of(text, "\"comm_avg_ppn<=1\""));
    CHECK_INT(0, (int)count_of(text, "\"comm_avg_ppn<=4\""));
    struct json *root = NULL;
    CHECK_INT(0, json_parse(text, len, "ppn", &root));
    static const struct {
        int nodes;
        const char *alg;
    } cases[] = {
        {4, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"},
        {1, "MPIR_Bcast_intra_scatter_ring_allgather"},
        {2, "MPIR_Bcast_intra_scatter_ring_allgather"}, /* avg 2: 4's */
    };
    for (size_t i = 0; root && i < sizeof cases / sizeof cases[0]; i++) {
        struct mpich_call call = {4, 1024, 4096, 1024, 0, cases[i].nodes};
        const char *got = mpich_eval_alg(root, "bcast", &call);
        if (!got || strcmp(got, cases[i].alg) != 0) {
            fprintf(stderr,
                    "bcast on 4 ranks, %d nodes: MPICH runs %s, not %s\n",
                    cases[i].nodes, got ? got : "(none)", cases[i].alg);
            check_failures++;
        }
    }
    json_destroy(root);
    /* MPICH 4.0 knows "comm_avg_ppn<=" alone, and no "comm_avg_ppn=any"
     * (4.1 on: any "=any") */
    char *ppn_case = strstr(text, "\"comm_avg_ppn<=1\"");
    char *any =
        ppn_case ? strstr(ppn_case, "\n        \"comm_size=any\"") : NULL;
    CHECK(any != NULL);
    if (any) {
        memcpy(any + 10, "comm_avg_ppn", strlen("comm_avg_ppn"));
        CHECK_INT(-1, mpich(text));
        memcpy(any + 10, "comm_size=an", strlen("comm_avg_ppn"));
        CHECK_INT(0, mpich(text));
        memcpy(ppn_case + 1, "comm_avg_ppn>1 ", strlen("comm_avg_ppn<=1"));
        CHECK_INT(-1, mpich(text));
    }
    free(text);
    /* --ppn 4: that value's rules, no key */
    ctx.ppn = 4;
    mem = open_memstream(&text, &len);
    CHECK_INT(0, export_mpich(mem, rows, n, &ctx));
    fclose(mem);
    CHECK_INT(0, (int)count_of(text, "comm_avg_ppn"));
    root = NULL;
    CHECK_INT(0, json_parse(text, len, "ppn", &root));
    struct mpich_call apart = {4, 1024, 4096, 1024, 0, 4};
    const char *got = root ? mpich_eval_alg(root, "bcast", &apart) : NULL;
    CHECK(got && strcmp(got, "MPIR_Bcast_intra_scatter_ring_allgather") == 0);
    json_destroy(root);
    free(text);

    /* ompi-json, 4 per node for every communicator: the one-per-node
     * rules first. */
    mem = open_memstream(&text, &len);
    CHECK_INT(0, export_ompi_json(mem, rows, n, &ctx));
    fclose(mem);
    CHECK_INT(0, export_check_ompi_json(text, len, "ppn"));
    /* allreduce and bcast: 3 blocks each (below 4, 4, above) */
    CHECK_INT(6, (int)count_of(text, "\"one-per-node\""));
    root = NULL;
    CHECK_INT(0, json_parse(text, len, "ppn", &root));
    const struct json *bcast =
        root ? json_get(json_get(root, "collectives"), "bcast") : NULL;
    CHECK(bcast && bcast->n > 0 &&
          json_get(bcast->items[0], "comm_rank_distribution") != NULL);
    json_destroy(root);
    free(text);
    fclose(quiet);

    /* ompi-json: a chain per distribution, from 0 to inf, "any" last. */
    const char *chain_1 =
        "{\"comm_size_min\": 0, \"comm_size_max\": \"inf\", "
        "\"comm_rank_distribution\": \"one-per-node\", \"rules\": "
        "[{\"msg_size_min\": 0, \"msg_size_max\": \"inf\", \"alg\": 6}]}";
    const char *chain_any =
        "{\"comm_size_min\": 0, \"comm_size_max\": \"inf\", \"rules\": "
        "[{\"msg_size_min\": 0, \"msg_size_max\": \"inf\", \"alg\": 1}]}";
    const char *short_1 =
        "{\"comm_size_min\": 0, \"comm_size_max\": 7, "
        "\"comm_rank_distribution\": \"one-per-node\", \"rules\": "
        "[{\"msg_size_min\": 0, \"msg_size_max\": \"inf\", \"alg\": 6}]}";
    const char *odd =
        "{\"comm_size_min\": 0, \"comm_size_max\": \"inf\", "
        "\"comm_rank_distribution\": \"two-per-node\", \"rules\": "
        "[{\"msg_size_min\": 0, \"msg_size_max\": \"inf\", \"alg\": 6}]}";
    const char *lists[][2] = {{chain_1, chain_any}, {chain_1, NULL},
                              {chain_any, chain_1}, {short_1, chain_any},
                              {odd, chain_any},     {chain_1, chain_1}};
    const int want[] = {0, 0, -1, -1, -1, -1};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"rule_file_version\": 3, \"module\": \"tuned\", "
                 "\"collectives\": {\"bcast\": [%s%s%s]}}",
                 lists[i][0], lists[i][1] ? ", " : "",
                 lists[i][1] ? lists[i][1] : "");
        CHECK_INT(want[i], ompi_json(doc));
    }
}

int main(void)
{
    test_check_ompi();
    test_check_ompi_json();
    test_check_mpich();
    test_writers();
    test_mpich_int_limit();
    test_refusals();
    test_tables();
    test_keep_order();
    test_mpich_two_procs();
    test_ppn();
    return check_exit();
}
