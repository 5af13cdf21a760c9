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
 * journal's records are loaded; damaged lines (bad checksum, torn last write)
 * are reported on stderr and skipped; a torn tail is cut off so that new
 * records start on a line of their own. If the journal was written with other
 * settings, prints one line naming the differing keys and fails.
 * *out is caller-frees with journal_close. */
int journal_open(const char *path, const struct journal_settings *settings,
                 struct journal **out);
/* Opens a journal read-only, loading its records and settings (offline
 * tools). */
int journal_load(const char *path, struct journal **out);
void journal_close(struct journal *j);

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
/* Reads a measurements.csv the same way (every row applicable). */
int table_read_measurements(const char *path, struct measurement **rows,
                            size_t *n);

/* Export formats of the optimal-method table, one row per format. */
struct export_format {
    const char *name;
    int (*write)(FILE *out, const struct measurement *rows, size_t n);
    const char *summary;
};
extern const struct export_format export_formats[];
extern const int export_formats_size;
const struct export_format *export_find(const char *name);

/* The method label used everywhere a method is named: "binomial/1024". */
void method_label(char *buf, size_t size, const char *algorithm,
                  int segment_bytes);

/* Writes data to path atomically (temporary file, fsync, rename). */
int store_write_file(const char *path, int (*write)(FILE *, const void *),
                     const void *arg);
/* mkdir -p; then checks that the directory is writable. */
int store_make_dir(const char *path);

#endif
