/* The exports say what the decision says: on a grid of points between,
 * on and outside the measured ones and at and next to every cut between
 * two measured sizes (where the methods' interpolated times cross, from
 * the run's measurements when it has them), the exact decision (export --format
 * dec, loaded back), the Open MPI rules file (read and matched as Open MPI
 * does) and the MPICH selection file (walked as MPICH does) name the same
 * algorithm, or all leave the call to the library. That holds also where
 * Open MPI or MPICH scale the key by the communicator size (allgather,
 * alltoall, gather, scatter): the exports write those rules once per
 * communicator size between two measured ones. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision/decision.h"
#include "store/export.h"
#include "store/tables.h"
#include "tests/check.h"
#include "tests/rules_eval.h"

/* What Open MPI runs for our method (algorithm 0: its fixed decision). */
static long expect_ompi(const char *coll, const char *alg, int seg, int procs,
                        long *segsize)
{
    *segsize = 0;
    const struct ompi_alg *a = ompi_alg_find(coll, alg);
    if (strcmp(alg, STORE_DEFAULT_ALGORITHM) == 0 || !a || a->since > 401 ||
        (seg > 0 && !a->is_segmented) || a->max_requests ||
        ((a->rule_flags & OMPI_RULE_TWO_PROCS) && procs != 2)) {
        return 0;
    }
    *segsize = a->is_segmented ? seg : 0;
    return a->number;
}

/* What MPICH runs for our method: where it has none, MPICH's own choice
 * for the call, as the file ref (MPICH's compiled-in selection) makes it. */
static const char *expect_mpich(const char *coll, const char *alg, int seg,
                                const struct mpich_call *call,
                                const struct json *ref)
{
    const struct mpich_coll *c = mpich_coll_of(coll);
    const struct mpich_alg *a = mpich_alg_find(coll, alg);
    a = a ? a : mpich_alg_two_procs(coll, alg);
    if (!a || seg > 0 || strcmp(alg, STORE_DEFAULT_ALGORITHM) == 0 ||
        ((a->restrictions & MPICH_TWO_PROCS) && call->procs != 2) ||
        ((a->restrictions & MPICH_POW2_PROCS) &&
         !mpich_eval_is_pow2(call->procs)) ||
        ((a->restrictions & MPICH_COUNT_GE_POF2) &&
         call->count < mpich_eval_pof2(call->procs))) {
        return mpich_eval_alg(ref, c->name, call);
    }
    return a->name;
}

/* Our record of MPICH's own choice (an export of no rows) against MPICH's
 * compiled-in file: the same algorithm for every collective we tune, on a
 * grid of communicator sizes and message sizes around every threshold
 * either file names, with and without node hierarchy. */
static void check_defaults(const struct json *ours, const struct json *theirs)
{
    static const long thresholds[] = {0,     8,     256,    2048,    12288,
                                      32768, 81920, 524288, 1L << 20};
    int n_points = 0;
    for (int i = 0; i < mpich_colls_size; i++) {
        const struct mpich_coll *c = &mpich_colls[i];
        if (!c->collective) {
            continue;
        }
        for (int procs = 1; procs <= 80; procs++) {
            long sizes[64];
            int n = 0;
            long pof2 = mpich_eval_pof2(procs);
            sizes[n++] = pof2 - 1;
            sizes[n++] = pof2;
            for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0];
                 t++) {
                long v = thresholds[t];
                sizes[n++] = v;
                sizes[n++] = v + 1;
                sizes[n++] = v > 0 ? v - 1 : 0;
                sizes[n++] = v / procs;
                sizes[n++] = v / procs + 1;
            }
            for (int k = 0; k < n; k++) {
                for (int h = 0; h < 2; h++) {
                    long m = sizes[k];
                    struct mpich_call call = {procs, m, m * procs, m, h, 0};
                    const char *want = mpich_eval_alg(theirs, c->name, &call);
                    const char *got = mpich_eval_alg(ours, c->name, &call);
                    n_points++;
                    if (!want || !got || strcmp(want, got) != 0) {
                        fprintf(stderr,
                                "%s P=%d m=%ld hierarchy %d: MPICH's own "
                                "file %s, our record of it %s\n",
                                c->name, procs, m, h, want ? want : "(none)",
                                got ? got : "(none)");
                        check_failures++;
                    }
                }
            }
        }
    }
    printf("MPICH's own choice: %d points compared with its compiled-in "
           "file\n",
           n_points);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void check_run(const char *source, const struct measurement *rows,
                      size_t n, const long *cuts, const long *procs_cuts,
                      const struct export_insert *ins, size_t n_ins,
                      const struct json *ref)
{
    struct decision *made = NULL, *d = NULL;
    char path[] = "/tmp/autotune-agree-XXXXXX";
    CHECK_INT(
        0, decision_from_table(rows, n, cuts, procs_cuts, ins, n_ins, &made));
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (!made || fd < 0) {
        decision_destroy(made);
        return;
    }
    close(fd);
    CHECK_INT(0, decision_save(made, path));
    CHECK_INT(0, decision_load(path, &d)); /* what libautotune loads */
    unlink(path);
    decision_destroy(made);
    if (!d) {
        return;
    }
    char *ompi =
        export_text(export_ompi, rows, n, source, cuts, procs_cuts, ins, n_ins);
    char *mpich = export_text(export_mpich, rows, n, source, cuts, procs_cuts,
                              ins, n_ins);
    static struct ompi_eval e;
    struct json *root = NULL;
    if (!ompi || !mpich) {
        free(ompi);
        free(mpich);
        decision_destroy(d);
        return;
    }
    CHECK_INT(0, ompi_eval_load(ompi, &e));
    CHECK_INT(0, json_parse(mpich, strlen(mpich), "mpich", &root));
    long *sizes = malloc((9 * n + 6 * n_ins + 4) * sizeof *sizes);
    int max_procs = 0, n_sizes = 0, n_points = 0, n_library = 0;
    int n_mpich_library = 0;
    sizes[n_sizes++] = 0;
    sizes[n_sizes++] = 1L << 30;
    for (size_t i = 0; i < n; i++) {
        long m = rows[i].msg_bytes;
        max_procs = rows[i].procs > max_procs ? rows[i].procs : max_procs;
        sizes[n_sizes++] = m;
        sizes[n_sizes++] = m + 1;
        sizes[n_sizes++] = m > 0 ? m - 1 : 0;
        sizes[n_sizes++] = m + m / 2 + 1;
        sizes[n_sizes++] = 2 * m + 3;
        if (cuts && cuts[i] >= 0) {
            sizes[n_sizes++] = cuts[i];
            sizes[n_sizes++] = cuts[i] + 1;
            sizes[n_sizes++] = cuts[i] > 0 ? cuts[i] - 1 : 0;
        }
    }
    for (size_t i = 0; i < n_ins; i++) { /* both ends of a third method */
        long ends[2] = {ins[i].cut_below, ins[i].m.msg_bytes};
        for (int end = 0; end < 2; end++) {
            sizes[n_sizes++] = ends[end];
            sizes[n_sizes++] = ends[end] + 1;
            sizes[n_sizes++] = ends[end] - 1;
        }
    }
    qsort(sizes, (size_t)n_sizes, sizeof *sizes, cmp_long);
    for (int c = 0; root && c < d->n_colls; c++) {
        const char *coll = d->colls[c];
        const struct ompi_coll *oc = ompi_coll_find(coll);
        const struct mpich_coll *mc = mpich_coll_of(coll);
        int lo = 1 << 30, hi = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(rows[i].collective, coll) == 0) {
                lo = rows[i].procs < lo ? rows[i].procs : lo;
                hi = rows[i].procs > hi ? rows[i].procs : hi;
            }
        }
        for (int procs = 1; procs <= max_procs + 3; procs++) {
            for (int s = 0; s < n_sizes; s++) {
                long m = sizes[s];
                if (s > 0 && sizes[s - 1] == m) {
                    continue;
                }
                const char *label = d->methods[decision_lookup(d, c, procs, m)];
                char alg[64];
                int seg = 0;
                snprintf(alg, sizeof alg, "%s", label);
                char *slash = strchr(alg, '/');
                if (slash) {
                    seg = atoi(slash + 1);
                    *slash = '\0';
                }
                int is_outside = procs < lo || procs > hi;
                if (is_outside) {
                    CHECK_STR("default/0", label);
                }
                n_points++;
                long want_seg, got_seg;
                long want = expect_ompi(coll, alg, seg, procs, &want_seg);
                long got = oc ? ompi_eval_alg(&e, coll, procs, m, &got_seg) : 0;
                n_library += want == 0;
                if (oc && (want != got || (want && want_seg != got_seg))) {
                    fprintf(stderr,
                            "%s: %s P=%d m=%ld: decision %s, Open MPI "
                            "rules %ld/%ld, expected %ld/%ld\n",
                            source, coll, procs, m, label, got, got_seg, want,
                            want_seg);
                    check_failures++;
                }
                for (int h = 0; mc && h < 2; h++) {
                    struct mpich_call call = {procs, m, m * procs, m, h, 0};
                    const char *mwant =
                        expect_mpich(coll, alg, seg, &call, ref);
                    const char *mgot = mpich_eval_alg(root, mc->name, &call);
                    n_mpich_library += h == 0 && mwant && mgot &&
                                       strcmp(mwant, mgot) == 0 &&
                                       !mpich_alg_find(coll, alg);
                    if (!mwant || !mgot || strcmp(mwant, mgot) != 0) {
                        fprintf(stderr,
                                "%s: %s P=%d m=%ld hierarchy %d: decision "
                                "%s, MPICH file %s, expected %s\n",
                                source, coll, procs, m, h, label,
                                mgot ? mgot : "(none)",
                                mwant ? mwant : "(none)");
                        check_failures++;
                    }
                }
            }
        }
    }
    printf("%s: %d points compared, %d of them the library's in Open MPI, "
           "%d MPICH's own choice\n",
           source, n_points, n_library, n_mpich_library);
    CHECK(n_points > 100);
    free(sizes);
    json_destroy(root);
    free(ompi);
    free(mpich);
    decision_destroy(d);
}

/* MPICH's own choice: MPICH's compiled-in file when MPICH_SELECTION_JSON
 * names it (test_export_mpich.sh takes it from the installed libmpich),
 * checked against our record of it; else our record. Caller frees. */
static struct json *load_reference(void)
{
    char *text =
        export_text(export_mpich, NULL, 0, "defaults", NULL, NULL, NULL, 0);
    struct json *ours = NULL, *theirs = NULL;
    if (!text || json_parse(text, strlen(text), "defaults", &ours) != 0) {
        free(text);
        return NULL;
    }
    free(text);
    const char *path = getenv("MPICH_SELECTION_JSON");
    if (!path || !*path) {
        return ours;
    }
    FILE *f = fopen(path, "r");
    char buf[1 << 16];
    size_t len = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) {
        fclose(f);
    }
    CHECK(len > 0 && len < sizeof buf);
    if (len > 0 && len < sizeof buf &&
        json_parse(buf, len, path, &theirs) == 0) {
        check_defaults(ours, theirs);
        json_destroy(ours);
        return theirs;
    }
    return ours;
}

int main(void)
{
    struct json *ref = load_reference();
    CHECK(ref != NULL);
    if (!ref) {
        return check_exit();
    }
    const char *runs[] = {"tests/export", "tests/export/constant-total",
                          "results/bench-runs/default-grig",
                          "results/bench-runs/default-frodo-all"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        struct measurement *rows = NULL;
        size_t n = 0;
        struct run_data *r = NULL;
        long *cuts = NULL, *procs_cuts = NULL;
        struct export_insert *ins = NULL;
        size_t n_ins = 0;
        int n_moved = 0;
        struct journal *journal; /* read once, as export reads it */
        CHECK_INT(0, table_load_run_journal(runs[i], &journal));
        CHECK_INT(0,
                  table_read_run_optimal(runs[i], journal, "test", &rows, &n));
        if (i > 1) { /* tests/export's tables have no measurements */
            CHECK_INT(
                0, run_data_load_with_journal(runs[i], journal, NULL, 0, &r));
            CHECK_INT(0, r ? between_table_cuts(r, rows, n, &cuts, &procs_cuts,
                                                &ins, &n_ins)
                           : -1);
        }
        int n_procs_moved = 0;
        for (size_t k = 1; cuts && k < n; k++) {
            n_moved += cuts[k] > rows[k - 1].msg_bytes;
            bool is_measured = false; /* a procs cut at a measured procs */
            for (size_t j = 0; j < n && procs_cuts[k] >= 0; j++) {
                is_measured |= rows[j].procs == procs_cuts[k];
            }
            n_procs_moved += procs_cuts[k] >= 0 && !is_measured &&
                             rows[k - 1].procs != rows[k].procs;
        }
        if (cuts) {
            printf("%s: %d message and %d procs cuts between measured "
                   "sizes, %zu third methods\n",
                   runs[i], n_moved, n_procs_moved, n_ins);
            CHECK(n_moved > 10);
            CHECK(n_procs_moved > 0);
            CHECK(n_ins > 0);
        }
        if (rows) {
            check_run(runs[i], rows, n, NULL, NULL, NULL, 0, ref); /* next */
        }
        if (rows && cuts) {
            check_run(runs[i], rows, n, cuts, procs_cuts, NULL, 0, ref);
            check_run(runs[i], rows, n, cuts, procs_cuts, ins, n_ins, ref);
        }
        free(ins);
        free(cuts);
        free(procs_cuts);
        run_data_destroy(r);
        free(rows);
        journal_close(journal);
    }
    json_destroy(ref);
    return check_exit();
}
