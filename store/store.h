/* Run-directory storage: the crash-safe journal of measurements, the tables
 * derived from it and the export formats. Never calls MPI. */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include <stdio.h>

#define STORE_NAME_MAX 32

/* One experiment: a method (algorithm, segment) timed at a grid point. */
struct measurement {
    char collective[STORE_NAME_MAX];
    int procs;
    long msg_bytes;
    char algorithm[STORE_NAME_MAX];
    int segment_bytes;
    int is_applicable; /* 0: the algorithm cannot run here; no times */
    int reps;
    double mean_us, median_us, min_us, max_us, sd_us;
    double cost_s; /* what the experiment cost to run, all included */
};

/* A grid point that a search strategy completed, and its choice ("-" when
 * no method could run). */
struct point_result {
    char collective[STORE_NAME_MAX];
    int procs;
    long msg_bytes;
    char strategy[STORE_NAME_MAX];
    char algorithm[STORE_NAME_MAX];
    int segment_bytes;
};

/* Settings a journal's records depend on; a journal is only reused by a
 * sweep whose settings are equal. Each entry is "key=value". */
#define STORE_MAX_SETTINGS 16
struct journal_settings {
    int n;
    char entries[STORE_MAX_SETTINGS][128];
};

void journal_settings_add(struct journal_settings *s, const char *key,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct journal;

/* Opens (creating if needed) the journal at path for appending. An existing
 * journal's records are loaded; a damaged line (bad checksum, a NUL byte,
 * over-long) is reported with its line number and skipped, and every line
 * after it is kept; only a torn last line (no newline: an interrupted write)
 * is cut off, so that new records start on a line of their own. Fails with
 * one line, changing nothing, if the journal was written with other settings
 * (naming the differing keys) or its settings line (line 2) is damaged.
 * *out is caller-frees with journal_close. */
int journal_open(const char *path, const struct journal_settings *settings,
                 struct journal **out);
/* Opens a journal read-only, loading its records and settings (offline
 * tools); a damaged settings line is reported and leaves the settings empty
 * (see journal_has_settings). */
int journal_load(const char *path, struct journal **out);
void journal_close(struct journal *j);
/* 0 when the journal's settings line could not be read. */
int journal_has_settings(const struct journal *j);

/* Appends one record and flushes it to disk before returning. */
int journal_append(struct journal *j, const struct measurement *m);
/* The recorded result for this method at this point, or NULL (borrowed). */
const struct measurement *journal_find(const struct journal *j,
                                       const char *collective, int procs,
                                       long msg_bytes, const char *algorithm,
                                       int segment_bytes);
/* Records that a strategy completed a point (once per point and strategy). */
int journal_append_point(struct journal *j, const struct point_result *p);
size_t journal_point_count(const struct journal *j);
const struct point_result *journal_point(const struct journal *j, size_t i);
size_t journal_count(const struct journal *j);
/* Records in the order they were appended (borrowed). */
const struct measurement *journal_record(const struct journal *j, size_t i);
const struct journal_settings *journal_get_settings(const struct journal *j);

/* Tables. Rows are written in the order given; the caller orders them. */
int table_write_measurements(const char *path, const struct measurement *rows,
                             size_t n);
int table_write_optimal(const char *path, const struct measurement *rows,
                        size_t n);
/* Reads an optimal.csv into *rows (caller-frees with free). */
int table_read_optimal(const char *path, struct measurement **rows, size_t *n);
/* Reads RUN/optimal.csv for the offline command `command`; when the run has
 * none yet, says so once and that the sweep must finish first. */
int table_read_run_optimal(const char *run, const char *command,
                           struct measurement **rows, size_t *n);
/* Reads a measurements.csv the same way (every row applicable). */
int table_read_measurements(const char *path, struct measurement **rows,
                            size_t *n);

/* What an exporter needs to know about the run besides its optimal table. */
struct export_context {
    const char *source;  /* the optimal table's path: warnings name its lines */
    const char *backend; /* "own" (collectives/) or "native" (the library's) */
    const char *library; /* the MPI library the run measured; "" if unknown */
    int chain_fanout;    /* chains of the chain algorithms in the run */
    FILE *warn; /* one line per row that could not be exported, and why */
};

/* Export formats of the optimal-method table, one row per format. rows[i]
 * is line i + 2 of ctx->source. */
struct export_format {
    const char *name;
    int (*write)(FILE *out, const struct measurement *rows, size_t n,
                 const struct export_context *ctx);
    /* Reads the written text back with the rules the target library
     * enforces; prints "what: line N: problem" and fails on the first
     * violation. NULL for formats no library loads. */
    int (*check)(const char *text, size_t len, const char *what);
    /* The library whose algorithms the format names ("Open MPI",
     * "MPICH"), NULL for library-neutral formats. */
    const char *library;
    const char *summary;
};
extern const struct export_format export_formats[];
extern const int export_formats_size;
const struct export_format *export_find(const char *name);
/* Writes the export to out_path (atomically) or, when NULL, to stdout. A
 * library format is first written to memory and read back with its check;
 * a file that fails it is not written. A run measured with a library's own
 * algorithms (backend native) exports to that library's formats only. */
int export_write(const struct export_format *format, const char *out_path,
                 const struct measurement *rows, size_t n,
                 const struct export_context *ctx);

/* The Open MPI and MPICH formats (store/export_ompi.c,
 * store/export_mpich.c). */
int export_ompi(FILE *out, const struct measurement *rows, size_t n,
                const struct export_context *ctx);
int export_ompi_v2(FILE *out, const struct measurement *rows, size_t n,
                   const struct export_context *ctx);
int export_ompi_json(FILE *out, const struct measurement *rows, size_t n,
                     const struct export_context *ctx);
int export_check_ompi(const char *text, size_t len, const char *what);
int export_check_ompi_json(const char *text, size_t len, const char *what);
int export_mpich(FILE *out, const struct measurement *rows, size_t n,
                 const struct export_context *ctx);
int export_check_mpich(const char *text, size_t len, const char *what);

/* Open MPI coll/tuned's number for one of our algorithms (store/ompi_algs.c):
 * exporters and the native backend share it. */
struct ompi_alg {
    const char *collective; /* our name: "bcast" */
    int coll_id;            /* the collective's ID in rules files: bcast 7 */
    const char *algorithm;  /* our name: "split_binary" */
    int number;             /* coll_tuned_bcast_algorithm = 4 */
    int since;              /* first Open MPI release with it: 401 = 4.1 */
    int is_segmented; /* coll_tuned_<coll>_algorithm_segmentsize changes it */
    unsigned rule_flags; /* OMPI_RULE_*: what else a rules file must say */
    int max_requests;    /* the rule's max requests that reproduces ours */
};
enum ompi_rule_flag {
    OMPI_RULE_FANINOUT = 1u << 0, /* takes the rule's fan-in/out (chains) */
    OMPI_RULE_TWO_PROCS = 1u << 1 /* fails on communicators of != 2 ranks */
};
/* The row for (collective, algorithm) or NULL when Open MPI has no such
 * algorithm (borrowed). */
const struct ompi_alg *ompi_alg_find(const char *collective,
                                     const char *algorithm);
const struct ompi_alg *ompi_alg_by_number(const char *collective, int number);

/* How Open MPI's coll/tuned keys its rules' message sizes for a collective:
 * what it computes from the call's arguments (coll_tuned_decision_dynamic.c)
 * in terms of our per-rank block bytes. */
enum ompi_msg_key {
    OMPI_KEY_BYTES,         /* count x type size: bcast, reduce, allreduce */
    OMPI_KEY_BYTES_X_PROCS, /* that times the communicator size */
    OMPI_KEY_NONE           /* always 0: barrier */
};
struct ompi_coll {
    const char *collective; /* our name */
    int coll_id;            /* ID in rules files */
    const char *json_name;  /* key in the JSON rules format */
    enum ompi_msg_key msg_key;
};
/* The row for one of our collectives, NULL if Open MPI's tuned has none. */
const struct ompi_coll *ompi_coll_find(const char *collective);
const struct ompi_coll *ompi_coll_by_id(int coll_id);

/* MPICH's MPIR-level algorithms (store/mpich_algs.c), for the selection
 * JSON file MPICH reads instead of its compiled-in one. */
enum mpich_restriction {
    MPICH_POW2_PROCS = 1u << 0,    /* communicator size a power of two */
    MPICH_BUILTIN_OP = 1u << 1,    /* predefined reduction operation */
    MPICH_COUNT_GE_POF2 = 1u << 2, /* count >= largest power of two <= P */
    MPICH_NOT_IN_PLACE = 1u << 3   /* sendbuf is not MPI_IN_PLACE */
};
/* One of our algorithms and MPICH's counterpart. */
struct mpich_alg {
    const char *collective; /* ours: "bcast" */
    const char *algorithm;  /* ours: "binomial" */
    const char *name;       /* MPICH's: "MPIR_Bcast_intra_binomial" */
    unsigned restrictions;  /* MPICH_*: where MPICH's may run */
};
/* How MPICH keys message sizes in its selection conditions. */
enum mpich_msg_key {
    MPICH_KEY_NONE, /* no message condition */
    MPICH_KEY_AVG,  /* avg_msg_size: count x type size */
    MPICH_KEY_TOTAL /* total_msg_size: count x P (x type size) */
};
/* Every collective MPICH selects through the file, with the algorithm used
 * where the run has no choice (any arguments, no parameters). */
struct mpich_coll {
    const char *name;       /* "bcast", "ibcast", "neighbor_alltoall" */
    const char *collective; /* ours, or NULL */
    enum mpich_msg_key msg_key;
    const char *intra;         /* default on intra-communicators */
    const char *intra_inplace; /* instead with MPI_IN_PLACE, or NULL */
    const char *inter;         /* default on inter-communicators, or NULL */
};
extern const struct mpich_coll mpich_colls[];
extern const int mpich_colls_size;
const struct mpich_coll *mpich_coll_find(const char *name);
const struct mpich_coll *mpich_coll_of(const char *collective);
const struct mpich_alg *mpich_alg_find(const char *collective,
                                       const char *algorithm);
/* 1 if name is an algorithm MPICH 4.0 accepts for that collective. */
int mpich_alg_exists(const struct mpich_coll *c, const char *name);

/* The method label used everywhere a method is named: "binomial/1024". */
void method_label(char *buf, size_t size, const char *algorithm,
                  int segment_bytes);

/* The library's own collective, timed at every point as the baseline:
 * recorded as method "default/0". */
#define STORE_DEFAULT_ALGORITHM "default"

/* One row of speedup.csv: a point's tuned choice against the default. */
struct speedup_row {
    char collective[STORE_NAME_MAX];
    int procs;
    long msg_bytes;
    char algorithm[STORE_NAME_MAX];
    int segment_bytes;
    double time_us, default_us, speedup; /* speedup = default_us / time_us */
};

/* A row for every optimal row whose point has a default record in j, in the
 * optimal rows' order; *rows is caller-frees (NULL when *n is 0). */
int speedup_rows_build(const struct journal *j, const struct measurement *opt,
                       size_t n_opt, struct speedup_row **rows, size_t *n);
int table_write_speedup(const char *path, const struct speedup_row *rows,
                        size_t n);
/* Median and maximum speedup of the rows of one collective (NULL: all). */
struct speedup_summary {
    size_t points, default_faster;
    double median, max, min;
};
void speedup_summarise(const struct speedup_row *rows, size_t n,
                       const char *collective, struct speedup_summary *out);

/* Writes data to path atomically (temporary file, fsync, rename). */
int store_write_file(const char *path, int (*write)(FILE *, const void *),
                     const void *arg);
/* mkdir -p; then checks that the directory is writable. */
int store_make_dir(const char *path);

/* The run directory's lock (store/rundir.c): RUN/lock names the host and
 * process of the one sweep that writes the run. Taken atomically; a lock
 * left by a process that is gone from this host is taken over (one line
 * says so); one held by a live process, or by another host, fails with one
 * line naming them, and nothing changes. *out is caller-frees with
 * rundir_lock_close, which removes the lock. */
struct rundir_lock;
int rundir_lock_open(const char *dir, struct rundir_lock **out);
void rundir_lock_close(struct rundir_lock *lock);
/* --fresh: moves the previous sweep's journal, tables and decisions to
 * DIR/old/N/ (N one more than the highest there), so that DIR/old/N is a run
 * directory of its own; nothing is deleted. Call it holding the lock. */
int rundir_start_fresh(const char *dir);

/* The value of key in a journal's settings, or NULL (borrowed). */
const char *journal_setting(const struct journal_settings *s, const char *key);

#endif
