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
#include "store/libraries.h"
#include "store/tables.h"

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
    struct export_context ctx = {
        "tests/export/optimal.csv", "own", "", 3, quiet, NULL, NULL, NULL, 0};
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
    struct export_context ctx = {path, "own", "", 4, warn, NULL, NULL, NULL, 0};
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
    struct measurement row = {.procs = 2, .msg_bytes = 8, .segment_bytes = 0};
    snprintf(row.collective, sizeof row.collective, "bcast");
    snprintf(row.algorithm, sizeof row.algorithm, "binomial");
    FILE *quiet = fopen("/dev/null", "w");
    struct export_context ctx = {"test", "own", "",   4, quiet,
                                 NULL,   NULL,  NULL, 0};
    const char *path = "build/tests/test_export.out";
    unlink(path);
    struct export_format bad = {"ompi", write_bad, export_check_ompi,
                                "Open MPI", "a writer with a bug"};
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

int main(void)
{
    test_check_ompi();
    test_check_ompi_json();
    test_check_mpich();
    test_writers();
    test_mpich_int_limit();
    test_refusals();
    test_tables();
    return check_exit();
}
