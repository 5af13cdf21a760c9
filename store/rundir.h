/* The run directory: its file names (named here only), its lock and
 * --fresh. Never calls MPI. */
#ifndef STORE_RUNDIR_H
#define STORE_RUNDIR_H

#include <stddef.h>

/* The files of a run directory. */
#define RUNDIR_JOURNAL "journal"
#define RUNDIR_MEASUREMENTS "measurements.csv"
#define RUNDIR_OPTIMAL "optimal.csv"
#define RUNDIR_INFERRED "inferred.csv"
#define RUNDIR_SPEEDUP "speedup.csv"
#define RUNDIR_COMPARE "compare.csv"
#define RUNDIR_GRID "grid.csv"
#define RUNDIR_LOCK "lock"
/* A copy of the application profile the sweep was configured with. */
#define RUNDIR_PROFILE "profile.prof"
/* The model (autotune model, autotune predict). */
#define RUNDIR_MODEL_JOURNAL "model.journal"
#define RUNDIR_MODEL "model.csv"
#define RUNDIR_PREDICTED "predicted.csv"

/* Before a command writes a file a user named (export -o, report --html,
 * tree -o, predict -o): fails with one line, "autotune COMMAND: PATH: ...",
 * when writing path would replace one of a run directory's own files (the
 * journal, the tables, the calibration, the profile, the lock: the names
 * above). It compares by identity: path is any of run's own files, by any
 * name or link; or path (existing or not) lies in run, or in any run
 * directory (one holding a journal), under one of those names. The caller
 * writes nothing and exits 2 (a usage error). */
int rundir_check_output(const char *command, const char *run, const char *path);

/* dir/name into buf; fails with one line when it does not fit. */
int rundir_path(char *buf, size_t size, const char *dir, const char *name);

/* The run directory's lock (store/rundir.c): RUN/lock names the host and
 * process of the one sweep that writes the run. Taken atomically; a lock
 * left by a process that is gone from this host is taken over (one line
 * says so); one held by a live process, or by another host, fails with one
 * line naming them, and nothing changes. *out is caller-frees with
 * rundir_lock_close, which removes the lock. */
struct rundir_lock;
int rundir_lock_open(const char *dir, struct rundir_lock **out);
void rundir_lock_close(struct rundir_lock *lock);
/* The lock file's path (borrowed), for a process ending on a signal to
 * remove it. */
const char *rundir_lock_path(const struct rundir_lock *lock);
/* --fresh: moves the previous sweep's journal, tables and decisions to
 * DIR/old/N/ (N one more than the highest there), so that DIR/old/N is a run
 * directory of its own; nothing is deleted. Call it holding the lock. */
int rundir_start_fresh(const char *dir);
/* `autotune model --fresh`: the same for the calibration (model.journal
 * and model.csv); the sweep's files stay. */
int rundir_start_fresh_model(const char *dir);

#endif
