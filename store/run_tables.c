/* A run directory's tables as the offline commands read them, checked
 * against the run's journal: tables written before the journal's records
 * were measured again (a run directory whose journal was re-swept but whose
 * tables were copied from an older sweep) would give trees, exports and
 * reports times that no longer hold. Not in libautotune. No MPI. */
#include <errno.h>
#include <math.h>
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
            m->reps > 0 ? journal_find(j, m->collective, m->procs, m->msg_bytes,
                                       m->algorithm, m->segment_bytes)
                        : NULL; /* reps 0: inferred, never measured */
        /* the tables print times to the nanosecond */
        if (rec && rec->is_applicable &&
            fabs(rec->mean_us - m->mean_us) > 0.0006) {
            fprintf(stderr,
                    "%s:%zu: %s P=%d m=%ld %s/%d: %.3f us, but the journal "
                    "says %.3f us: the tables are older than the journal "
                    "(resume the sweep to write them again)\n",
                    table_path, i + 2, m->collective, m->procs, m->msg_bytes,
                    m->algorithm, m->segment_bytes, m->mean_us, rec->mean_us);
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

int table_read_run_optimal(const char *run, const struct journal *journal,
                           const char *command, struct measurement **rows,
                           size_t *n)
{
    char opt_path[4096], meas_path[4096];
    struct measurement *meas = NULL;
    size_t n_meas = 0;
    if (rundir_path(opt_path, sizeof opt_path, run, RUNDIR_OPTIMAL) != 0) {
        return -1;
    }
    /* One line: a table that is not there (no sweep wrote it yet), or
     * where in it the table is damaged (table_read_optimal's). */
    if (access(opt_path, R_OK) != 0) {
        fprintf(stderr,
                "autotune %s: %s: %s (a sweep writes it: run or resume one "
                "first)\n",
                command, opt_path, strerror(errno));
        return -1;
    }
    if (table_read_optimal(opt_path, rows, n) != 0) {
        return -1;
    }
    int has_meas = rundir_path(meas_path, sizeof meas_path, run,
                               RUNDIR_MEASUREMENTS) == 0 &&
                   access(meas_path, R_OK) == 0;
    int rc = has_meas ? table_read_measurements(meas_path, &meas, &n_meas) : 0;
    struct table_rows tables[] = {{opt_path, *rows, *n},
                                  {meas_path, meas, n_meas}};
    if (rc != 0 ||
        table_check_journal(journal, tables, has_meas ? 2 : 1) != 0) {
        free(meas);
        free(*rows);
        *rows = NULL;
        return -1;
    }
    if (has_meas) {
        table_prefer_default(*rows, *n, meas, n_meas);
    }
    free(meas);
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
