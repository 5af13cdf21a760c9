/* A run directory's tables as the offline commands read them, checked
 * against the run's journal: tables written before the journal's records
 * were measured again (a run directory whose journal was re-swept but whose
 * tables were copied from an older sweep) would give trees, exports and
 * reports times that no longer hold. Not in libautotune. No MPI. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"

int table_check_rows(const struct journal *j, const char *table_path,
                     const struct measurement *rows, size_t n)
{
    for (size_t i = 0; j && i < n; i++) {
        const struct measurement *m = &rows[i];
        const struct measurement *rec =
            m->reps > 0
                ? journal_find(j, m->collective, m->procs, m->ppn, m->msg_bytes,
                               m->algorithm, m->segment_bytes)
                : NULL; /* reps 0: inferred, never measured */
        /* the tables print times to the nanosecond */
        if (rec && rec->is_applicable &&
            fabs(rec->mean_us - m->mean_us) > 0.0006) {
            fprintf(stderr,
                    "%s:%zu: %s P=%d ppn=%d m=%ld %s/%d: %.3f us, but the "
                    "journal says %.3f us: the tables are older than the "
                    "journal (resume the sweep to write them again)\n",
                    table_path, i + 2, m->collective, m->procs, m->ppn,
                    m->msg_bytes, m->algorithm, m->segment_bytes, m->mean_us,
                    rec->mean_us);
            return -1;
        }
    }
    return 0;
}

int table_load_run_journal(const char *run, struct journal **out)
{
    char path[4096];
    *out = NULL;
    if (rundir_path(path, sizeof path, run, RUNDIR_JOURNAL) != 0 ||
        access(path, F_OK) != 0) {
        return 0; /* tables alone (predicted, hand-written): nothing to hold
                     them to */
    }
    return journal_load(path, out) != 0 ? -1 : 0; /* it said why */
}

void table_note_unchecked(const char *run)
{
    fprintf(stderr,
            "%s: its tables are used without the check against the "
            "journal, which could not be read\n",
            run);
}

int table_check_journal(const struct journal *j,
                        const struct table_rows *tables, int n_tables)
{
    int rc = 0;
    for (int t = 0; t < n_tables && rc == 0; t++) {
        rc = table_check_rows(j, tables[t].path, tables[t].rows, tables[t].n);
    }
    return rc;
}

int table_point_optimum(const struct journal *j, const struct point_result *p,
                        struct measurement *out)
{
    const struct measurement *chosen =
        journal_find(j, p->collective, p->procs, p->ppn, p->msg_bytes,
                     p->algorithm, p->segment_bytes);
    const struct measurement *library =
        journal_find(j, p->collective, p->procs, p->ppn, p->msg_bytes,
                     STORE_DEFAULT_ALGORITHM, 0);
    if (!chosen || !chosen->is_applicable) {
        return -1;
    }
    *out = table_is_default_faster(chosen, library) ? *library : *chosen;
    return 0;
}

/* A row of a table built from the journal, and where it goes. */
struct placed {
    struct measurement m;
    int coll;     /* the collective's place in the journal's first mentions */
    size_t point; /* for measurements: the optimal row it belongs to */
    int is_default;
    size_t order; /* in the journal */
};

static int cmp_point(const struct placed *a, const struct placed *b)
{
    if (a->coll != b->coll) {
        return a->coll < b->coll ? -1 : 1;
    }
    if (a->m.ppn != b->m.ppn) {
        return a->m.ppn < b->m.ppn ? -1 : 1;
    }
    if (a->m.procs != b->m.procs) {
        return a->m.procs < b->m.procs ? -1 : 1;
    }
    return (a->m.msg_bytes > b->m.msg_bytes) -
           (a->m.msg_bytes < b->m.msg_bytes);
}

static int cmp_key(const void *x, const void *y)
{
    return cmp_point(x, y);
}

/* Grid order (collectives as the journal first names them, ranks per
 * node, procs, message size); a point done twice (by two strategies) keeps its
 * last. */
static int cmp_optimal(const void *x, const void *y)
{
    const struct placed *a = x, *b = y;
    int c = cmp_point(a, b);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* A point's methods as they were measured, the library's default last. */
static int cmp_measured(const void *x, const void *y)
{
    const struct placed *a = x, *b = y;
    if (a->point != b->point) {
        return a->point < b->point ? -1 : 1;
    }
    if (a->is_default != b->is_default) {
        return a->is_default - b->is_default;
    }
    return (a->order > b->order) - (a->order < b->order);
}

static int coll_place(const char **names, int *n, const char *name)
{
    for (int i = 0; i < *n; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    names[*n] = name;
    return (*n)++;
}

/* The tables of an unfinished sweep: the optimum of every point its
 * journal says is done, and every applicable record at those points. */
static int tables_from_journal(const struct journal *j, struct run_tables *t)
{
    size_t n_points = journal_point_count(j), n_rec = journal_count(j), n = 0;
    struct placed *opt = calloc(n_points + 1, sizeof *opt);
    struct placed *meas = calloc(n_rec + 1, sizeof *meas);
    const char **colls = calloc(n_points + n_rec + 1, sizeof *colls);
    int n_colls = 0, rc = -1;
    if (!opt || !meas || !colls) {
        goto done;
    }
    for (size_t i = 0; i < n_points; i++) {
        const struct point_result *p = journal_point(j, i);
        if (table_point_optimum(j, p, &opt[n].m) == 0) {
            opt[n].coll = coll_place(colls, &n_colls, p->collective);
            opt[n].order = i;
            n++;
        }
    }
    qsort(opt, n, sizeof *opt, cmp_optimal);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && cmp_point(&opt[kept - 1], &opt[i]) == 0) {
            kept--; /* the later strategy's */
        }
        opt[kept++] = opt[i];
    }
    size_t n_meas = 0;
    for (size_t i = 0; i < n_rec; i++) {
        const struct measurement *m = journal_record(j, i);
        struct placed key = {.m = *m};
        key.coll = coll_place(colls, &n_colls, m->collective);
        struct placed *at = bsearch(&key, opt, kept, sizeof *opt, cmp_key);
        if (!at || !m->is_applicable ||
            journal_find(j, m->collective, m->procs, m->ppn, m->msg_bytes,
                         m->algorithm, m->segment_bytes) != m) {
            continue; /* not at a point done; or recorded twice */
        }
        key.point = (size_t)(at - opt);
        key.is_default = strcmp(m->algorithm, STORE_DEFAULT_ALGORITHM) == 0;
        key.order = i;
        meas[n_meas++] = key;
    }
    qsort(meas, n_meas, sizeof *meas, cmp_measured);
    t->optimal = malloc((kept + 1) * sizeof *t->optimal);
    t->measured = malloc((n_meas + 1) * sizeof *t->measured);
    if (!t->optimal || !t->measured) {
        goto done;
    }
    for (size_t i = 0; i < kept; i++) {
        t->optimal[i] = opt[i].m;
    }
    for (size_t i = 0; i < n_meas; i++) {
        t->measured[i] = meas[i].m;
    }
    t->n_optimal = kept;
    t->n_measured = n_meas;
    rc = 0;
done:
    if (rc != 0) {
        fprintf(stderr, "autotune: out of memory reading the journal\n");
    }
    free(opt);
    free(meas);
    free(colls);
    return rc;
}

/* The model's predictions as tables: every prediction a measurement of
 * reps 0, the least at each point its optimum. */
static int tables_from_predictions(struct run_tables *t)
{
    if (table_read_predicted(t->measured_path, &t->measured, &t->n_measured) !=
        0) {
        return -1;
    }
    t->optimal = malloc((t->n_measured + 1) * sizeof *t->optimal);
    if (!t->optimal) {
        fprintf(stderr, "%s: out of memory\n", t->measured_path);
        return -1;
    }
    for (size_t i = 0; i < t->n_measured; i++) {
        const struct measurement *m = &t->measured[i];
        struct measurement *last =
            t->n_optimal ? &t->optimal[t->n_optimal - 1] : NULL;
        if (last && last->procs == m->procs && last->ppn == m->ppn &&
            last->msg_bytes == m->msg_bytes &&
            strcmp(last->collective, m->collective) == 0) {
            *last = m->mean_us < last->mean_us ? *m : *last;
        } else {
            t->optimal[t->n_optimal++] = *m;
        }
    }
    return 0;
}

static bool is_readable(const char *path)
{
    return access(path, R_OK) == 0;
}

int table_read_run_tables(const char *run, const struct journal *journal,
                          const char *command, struct run_tables *t)
{
    const char *sp = command ? " " : "", *cmd = command ? command : "";
    memset(t, 0, sizeof *t);
    if (rundir_path(t->optimal_path, sizeof t->optimal_path, run,
                    RUNDIR_OPTIMAL) != 0 ||
        rundir_path(t->measured_path, sizeof t->measured_path, run,
                    RUNDIR_MEASUREMENTS) != 0) {
        return -1;
    }
    char journal_path[4096];
    bool has_optimal = is_readable(t->optimal_path);
    int why = errno;
    bool has_journal_file = rundir_path(journal_path, sizeof journal_path, run,
                                        RUNDIR_JOURNAL) == 0 &&
                            access(journal_path, F_OK) == 0;
    if (has_optimal) {
        t->has_measured = is_readable(t->measured_path);
        if (table_read_optimal(t->optimal_path, &t->optimal, &t->n_optimal) !=
                0 ||
            (t->has_measured &&
             table_read_measurements(t->measured_path, &t->measured,
                                     &t->n_measured) != 0)) {
            goto fail;
        }
        struct table_rows tables[] = {
            {t->optimal_path, t->optimal, t->n_optimal},
            {t->measured_path, t->measured, t->n_measured}};
        if (table_check_journal(journal, tables, t->has_measured ? 2 : 1) !=
            0) {
            goto fail;
        }
        /* What `autotune predict -o` wrote before predicted.csv: no
         * journal, and not one row was run. */
        bool is_run = journal != NULL || !t->has_measured;
        for (size_t i = 0; !is_run && i < t->n_measured; i++) {
            is_run = t->measured[i].reps > 0;
        }
        t->is_predicted = !is_run && t->n_measured > 0;
        t->is_lined = true;
    } else if (journal && why == ENOENT) {
        if (tables_from_journal(journal, t) != 0) {
            goto fail;
        }
        long total = journal_grid_points(journal);
        char of[64] = "";
        if (total > 0) {
            snprintf(of, sizeof of, " of %ld", total);
        }
        if (t->n_optimal == 0) {
            fprintf(stderr,
                    "autotune%s%s: %s: the sweep has not finished a point yet "
                    "(0%s points done): resume it first\n",
                    sp, cmd, run, of);
            goto fail;
        }
        fprintf(stderr,
                "autotune%s%s: %s: the sweep has not finished: %zu%s points "
                "done%s; these are their results, from the journal (the same "
                "sweep command resumes it)\n",
                sp, cmd, run, t->n_optimal, of,
                total > 0 ? "" : " (the journal does not say of how many)");
        t->has_measured = true;
        t->is_partial = true;
        snprintf(t->optimal_path, sizeof t->optimal_path, "%s/" RUNDIR_JOURNAL,
                 run);
        snprintf(t->measured_path, sizeof t->measured_path, "%s",
                 t->optimal_path);
    } else if (!has_journal_file && why == ENOENT &&
               rundir_path(t->measured_path, sizeof t->measured_path, run,
                           RUNDIR_PREDICTED) == 0 &&
               is_readable(t->measured_path)) {
        if (tables_from_predictions(t) != 0) {
            goto fail;
        }
        t->has_measured = true;
        t->is_predicted = true;
        snprintf(t->optimal_path, sizeof t->optimal_path, "%s",
                 t->measured_path);
    } else {
        /* One line: a table that is not there (no sweep wrote it yet). */
        fprintf(stderr,
                "autotune%s%s: %s: %s (a sweep writes it: run or resume one "
                "first)\n",
                sp, cmd, t->optimal_path, strerror(why));
        goto fail;
    }
    if (t->is_predicted) {
        fprintf(stderr,
                "autotune%s%s: %s: these are the model's predicted times "
                "(autotune predict), not measurements: nothing here was "
                "run\n",
                sp, cmd, run);
    }
    return 0;
fail:
    table_run_tables_free(t);
    return -1;
}

void table_run_tables_free(struct run_tables *t)
{
    free(t->optimal);
    free(t->measured);
    t->optimal = t->measured = NULL;
    t->n_optimal = t->n_measured = 0;
}

int table_read_run_optimal(const char *run, const struct journal *journal,
                           const char *command, struct measurement **rows,
                           size_t *n)
{
    struct run_tables t;
    *rows = NULL;
    *n = 0;
    if (table_read_run_tables(run, journal, command, &t) != 0) {
        return -1;
    }
    table_prefer_default(t.optimal, t.n_optimal, t.measured, t.n_measured);
    *rows = t.optimal;
    *n = t.n_optimal;
    free(t.measured);
    return 0;
}

int table_read_run_and_journal(const char *run, const char *command,
                               struct journal **journal,
                               struct measurement **rows, size_t *n)
{
    *rows = NULL;
    if (table_load_run_journal(run, journal) != 0 ||
        table_read_run_optimal(run, *journal, command, rows, n) != 0) {
        return -1;
    }
    if (!*journal) {
        fprintf(stderr, "%s/" RUNDIR_JOURNAL ": %s\n", run, strerror(ENOENT));
        return -1;
    }
    return 0;
}
