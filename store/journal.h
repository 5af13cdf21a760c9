/* The run directory's journal: crash-safe, append-only records of every
 * measurement and completed point, fingerprinted by the sweep's settings.
 * Never calls MPI. */
#ifndef STORE_JOURNAL_H
#define STORE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#define STORE_NAME_MAX 32
/* A method's name: a table algorithm, or a node-aware method naming its
 * phases (collectives/method.h's COLL_METHOD_MAX). */
#define STORE_METHOD_MAX 128

/* One experiment: a method (algorithm, segment) timed at a grid point. */
struct measurement {
    char collective[STORE_NAME_MAX];
    int procs; /* the communicator's size */
    int ppn;   /* its ranks per node (1 in journals written before) */
    long msg_bytes;
    char algorithm[STORE_METHOD_MAX];
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
    int procs, ppn;
    long msg_bytes;
    char strategy[STORE_NAME_MAX];
    char algorithm[STORE_METHOD_MAX];
    int segment_bytes;
};

/* Settings a journal's records depend on; a journal is only reused by a
 * sweep whose settings are equal. Each entry is "key=value". */
#define STORE_MAX_SETTINGS 24
struct journal_settings {
    int n;
    char entries[STORE_MAX_SETTINGS][128];
};

/* The value of key in a journal's settings, or NULL (borrowed). */
const char *journal_setting(const struct journal_settings *s, const char *key);
/* The CRC-32 (IEEE) of n bytes: each line's checksum, and a fingerprint of
 * what a setting would be too long to hold. */
uint32_t journal_crc32(const char *data, size_t n);

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
const struct measurement *
journal_find(const struct journal *j, const char *collective, int procs,
             int ppn, long msg_bytes, const char *algorithm, int segment_bytes);
/* The strategy's recorded result at this point, or NULL (borrowed). */
const struct point_result *journal_find_point(const struct journal *j,
                                              const char *collective, int procs,
                                              int ppn, long msg_bytes,
                                              const char *strategy);
/* Records that a strategy completed a point (once per point and strategy). */
int journal_append_point(struct journal *j, const struct point_result *p);
size_t journal_point_count(const struct journal *j);
/* The number of points of the sweep's grid, recorded when it starts (again
 * when a resume's grid differs), so that a command reading an unfinished
 * run can say how much is done; 0 for a journal written before it was. */
int journal_append_grid(struct journal *j, long points);
long journal_grid_points(const struct journal *j);
const struct point_result *journal_point(const struct journal *j, size_t i);
size_t journal_count(const struct journal *j);
/* Records in the order they were appended (borrowed). */
const struct measurement *journal_record(const struct journal *j, size_t i);
const struct journal_settings *journal_get_settings(const struct journal *j);

/* The method label used everywhere a method is named: "binomial/1024"
 * (room for the longest: a node-aware method's name and a segment size). */
#define STORE_LABEL_MAX (STORE_METHOD_MAX + 16)
void method_label(char *buf, size_t size, const char *algorithm,
                  int segment_bytes);

/* The library's own collective, timed at every point as the baseline:
 * recorded as method "default/0". */
#define STORE_DEFAULT_ALGORITHM "default"

#endif
