/* The journal (store/journal.c) on arbitrary bytes: loaded read-only, then
 * opened for a resume, appended to and loaded again. Oracles: every record
 * and point result loaded is a line whose checksum holds (a damaged line is
 * skipped, never loaded); a resume refuses a file that is not a journal,
 * cuts no intact line from one (only a torn tail) and keeps every record it
 * loaded and the one it appended. FUZZ_SKIP_OPEN=1 skips the two resume
 * oracles that tests/fuzz/crashes/journal/open/ fails, so that a fuzzer
 * spends its time on new bugs rather than on those. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/journal.h"
#include "tests/fuzz/fuzz.h"

/* An independent CRC-32 (IEEE, reflected), bit by bit. */
static uint32_t crc32_bits(const char *s, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= (unsigned char)s[i];
        for (int k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
        }
    }
    return ~crc;
}

/* What the intact lines of the input hold: a line is intact when it ends
 * with '\n', holds no NUL and reads "payload *crc" with the CRC-32 of
 * payload in hexadecimal. Payloads are read with the formats the journal
 * writes. */
struct intact {
    struct measurement *records;
    size_t n_records;
    struct point_result *points;
    size_t n_points;
    size_t intact_end; /* bytes up to the end of the last intact line */
    int is_journal;    /* the first line is the journal's magic line */
};

#define MAGIC_LINE "autotune-journal 1 *f411b1db\n"

static void intact_add(struct intact *t, const char *payload)
{
    struct measurement *m = &t->records[t->n_records];
    struct point_result *p = &t->points[t->n_points];
    int used = 0;
    memset(m, 0, sizeof *m);
    memset(p, 0, sizeof *p);
    /* with the ranks per node after procs, or without (then 1) */
    int n = sscanf(
        payload, "m %31s %d %d %ld %31s %d %d %d %lf %lf %lf %lf %lf %lf%n",
        m->collective, &m->procs, &m->ppn, &m->msg_bytes, m->algorithm,
        &m->segment_bytes, &m->is_applicable, &m->reps, &m->mean_us,
        &m->median_us, &m->min_us, &m->max_us, &m->sd_us, &m->cost_s, &used);
    if (n != 14 || payload[used] != '\0') {
        used = 0;
        m->ppn = 1;
        n = 1 + sscanf(payload,
                       "m %31s %d %ld %31s %d %d %d %lf %lf %lf %lf %lf %lf%n",
                       m->collective, &m->procs, &m->msg_bytes, m->algorithm,
                       &m->segment_bytes, &m->is_applicable, &m->reps,
                       &m->mean_us, &m->median_us, &m->min_us, &m->max_us,
                       &m->sd_us, &m->cost_s, &used);
    }
    if (n == 14 && payload[used] == '\0' && m->procs >= 1 && m->ppn >= 1 &&
        m->procs % m->ppn == 0 && m->msg_bytes >= 0 && m->segment_bytes >= 0) {
        t->n_records++;
    }
    used = 0;
    n = sscanf(payload, "p %31s %d %d %ld %31s %31s %d%n", p->collective,
               &p->procs, &p->ppn, &p->msg_bytes, p->strategy, p->algorithm,
               &p->segment_bytes, &used);
    if (n != 7 || payload[used] != '\0') {
        used = 0;
        p->ppn = 1;
        n = 1 + sscanf(payload, "p %31s %d %ld %31s %31s %d%n", p->collective,
                       &p->procs, &p->msg_bytes, p->strategy, p->algorithm,
                       &p->segment_bytes, &used);
    }
    if (n == 7 && payload[used] == '\0' && p->procs >= 1 && p->ppn >= 1 &&
        p->procs % p->ppn == 0) {
        t->n_points++;
    }
}

static void intact_lines(const uint8_t *data, size_t size, struct intact *out)
{
    size_t max_lines = size / 2 + 1;
    memset(out, 0, sizeof *out);
    out->records = calloc(max_lines, sizeof *out->records);
    out->points = calloc(max_lines, sizeof *out->points);
    if (!out->records || !out->points) {
        fuzz_fail("out of memory");
    }
    /* An empty file, or the magic line torn by a crash, is a journal. */
    out->is_journal = !memchr(data, '\n', size) &&
                      size < sizeof MAGIC_LINE - 1 &&
                      memcmp(data, MAGIC_LINE, size) == 0;
    for (size_t start = 0, end; start < size; start = end + 1) {
        const uint8_t *nl = memchr(data + start, '\n', size - start);
        if (!nl) {
            break;
        }
        end = (size_t)(nl - data);
        size_t len = end - start;
        const char *line = (const char *)data + start;
        if (memchr(line, '\0', len)) {
            continue;
        }
        char *copy = malloc(len + 1);
        if (!copy) {
            fuzz_fail("out of memory");
        }
        memcpy(copy, line, len);
        copy[len] = '\0';
        /* The checksum's text is read as the journal reads it (strtoul):
         * what matters is that the payload is the one checksummed. */
        char *star = strrchr(copy, '*');
        if (star && star != copy && star[-1] == ' ') {
            char *crc_end;
            unsigned long crc = strtoul(star + 1, &crc_end, 16);
            size_t payload_len = (size_t)(star - 1 - copy);
            if (crc_end != star + 1 && *crc_end == '\0' &&
                crc == crc32_bits(copy, payload_len)) {
                copy[payload_len] = '\0';
                intact_add(out, copy);
                out->intact_end = end + 1;
                out->is_journal |=
                    start == 0 && strcmp(copy, "autotune-journal 1") == 0;
            }
        }
        free(copy);
    }
}

static void intact_free(struct intact *t)
{
    free(t->records);
    free(t->points);
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0; /* NaN included */
}

static int record_equal(const struct measurement *a,
                        const struct measurement *b)
{
    return strcmp(a->collective, b->collective) == 0 && a->procs == b->procs &&
           a->ppn == b->ppn && a->msg_bytes == b->msg_bytes &&
           strcmp(a->algorithm, b->algorithm) == 0 &&
           a->segment_bytes == b->segment_bytes &&
           a->is_applicable == b->is_applicable && a->reps == b->reps &&
           same_double(a->mean_us, b->mean_us) &&
           same_double(a->median_us, b->median_us) &&
           same_double(a->min_us, b->min_us) &&
           same_double(a->max_us, b->max_us) &&
           same_double(a->sd_us, b->sd_us) && same_double(a->cost_s, b->cost_s);
}

static int point_equal(const struct point_result *a,
                       const struct point_result *b)
{
    return strcmp(a->collective, b->collective) == 0 && a->procs == b->procs &&
           a->ppn == b->ppn && a->msg_bytes == b->msg_bytes &&
           strcmp(a->strategy, b->strategy) == 0 &&
           strcmp(a->algorithm, b->algorithm) == 0 &&
           a->segment_bytes == b->segment_bytes;
}

static int is_intact_record(const struct intact *t, const struct measurement *m)
{
    for (size_t i = 0; i < t->n_records; i++) {
        if (record_equal(&t->records[i], m)) {
            return 1;
        }
    }
    return 0;
}

static int is_intact_point(const struct intact *t, const struct point_result *p)
{
    for (size_t i = 0; i < t->n_points; i++) {
        if (point_equal(&t->points[i], p)) {
            return 1;
        }
    }
    return 0;
}

static void check_loaded(const struct journal *j, const struct intact *t,
                         const char *when)
{
    for (size_t i = 0; i < journal_count(j); i++) {
        const struct measurement *m = journal_record(j, i);
        if (!is_intact_record(t, m)) {
            fuzz_fail("%s: record %zu (%s %d %ld %s %d) is on no intact line",
                      when, i, m->collective, m->procs, m->msg_bytes,
                      m->algorithm, m->segment_bytes);
        }
    }
    for (size_t i = 0; i < journal_point_count(j); i++) {
        const struct point_result *p = journal_point(j, i);
        if (!is_intact_point(t, p)) {
            fuzz_fail("%s: point result %zu (%s %d %ld %s) is on no intact "
                      "line",
                      when, i, p->collective, p->procs, p->msg_bytes,
                      p->strategy);
        }
    }
}

static int same_records(const struct journal *a, const struct journal *b)
{
    for (size_t i = 0; i < journal_count(a); i++) {
        const struct measurement *m = journal_record(a, i);
        const struct measurement *found =
            journal_find(b, m->collective, m->procs, m->ppn, m->msg_bytes,
                         m->algorithm, m->segment_bytes);
        if (!found || !record_equal(found, m)) {
            return 0;
        }
    }
    return 1;
}

/* A resume may cut a torn tail, never an intact line before it. */
static void check_kept(const char *path, const uint8_t *data,
                       const struct intact *t)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fuzz_fail("cannot read %s back", path);
    }
    size_t kept = 0;
    for (int c; kept < t->intact_end && (c = getc(f)) != EOF; kept++) {
        if (c != data[kept]) {
            break;
        }
    }
    fclose(f);
    if (kept < t->intact_end) {
        fuzz_fail("journal_open kept %zu bytes of the %zu up to the last "
                  "intact line",
                  kept, t->intact_end);
    }
}

static struct measurement appended_record(void)
{
    struct measurement m;
    memset(&m, 0, sizeof m);
    strcpy(m.collective, "fuzz");
    strcpy(m.algorithm, "appended");
    m.procs = 3;
    m.ppn = 1;
    m.msg_bytes = 77;
    m.is_applicable = 1;
    m.reps = 5;
    m.mean_us = m.median_us = m.min_us = m.max_us = 1.0 / 3.0;
    m.cost_s = 1e-3;
    return m;
}

static int is_skipping_open(void)
{
    static int is_skipping = -1;
    if (is_skipping < 0) {
        const char *v = getenv("FUZZ_SKIP_OPEN");
        is_skipping = v && strcmp(v, "1") == 0;
    }
    return is_skipping;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(0, data, size);
    struct intact intact;
    struct journal *loaded = NULL, *opened = NULL, *reloaded = NULL;
    intact_lines(data, size, &intact);

    if (journal_load(path, &loaded) != 0) {
        goto done;
    }
    check_loaded(loaded, &intact, "journal_load");

    /* A resume with the journal's own settings, so none conflicts. */
    if (journal_open(path, journal_get_settings(loaded), &opened) != 0) {
        goto done;
    }
    if (!intact.is_journal && !is_skipping_open()) {
        fuzz_fail("journal_open took a file that is not a journal");
    }
    check_loaded(opened, &intact, "journal_open");
    if (journal_count(opened) != journal_count(loaded) ||
        !same_records(loaded, opened)) {
        fuzz_fail("journal_open loaded %zu records, journal_load %zu",
                  journal_count(opened), journal_count(loaded));
    }
    struct measurement extra = appended_record();
    int is_new =
        !journal_find(opened, extra.collective, extra.procs, extra.ppn,
                      extra.msg_bytes, extra.algorithm, extra.segment_bytes);
    if (journal_append(opened, &extra) != 0) {
        fuzz_fail("journal_append failed");
    }
    size_t want = journal_count(opened);
    journal_close(opened);
    opened = NULL;
    if (!is_skipping_open()) {
        check_kept(path, data, &intact);
    }
    if (journal_load(path, &reloaded) != 0) {
        fuzz_fail("the resumed journal no longer loads");
    }
    if (journal_count(reloaded) != want || !same_records(loaded, reloaded) ||
        (is_new && !journal_find(reloaded, extra.collective, extra.procs,
                                 extra.ppn, extra.msg_bytes, extra.algorithm,
                                 extra.segment_bytes))) {
        fuzz_fail("after a resume and one append: %zu records, expected %zu",
                  journal_count(reloaded), want);
    }
done:
    journal_close(loaded);
    journal_close(opened);
    journal_close(reloaded);
    intact_free(&intact);
    return 0;
}
