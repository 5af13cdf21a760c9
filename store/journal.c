/* The journal: an append-only text file, one checksummed record per line,
 * each flushed to disk before its result is used. Invariant: every record in
 * memory is a line on disk that passed its checksum. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/journal.h"
#include "util/grow.h"

#define JOURNAL_MAGIC "autotune-journal 1"
#define LINE_MAX_BYTES 1024
#define LINE_MAX_TEXT "1024"

/* Line 2 of a journal holds its settings. */
enum settings_state {
    SETTINGS_NONE,    /* not written yet: the journal ends before line 2 */
    SETTINGS_READ,    /* read into settings */
    SETTINGS_DAMAGED, /* line 2 is there but unreadable */
};

struct journal {
    char *path;
    int fd; /* -1 when loaded read-only */
    struct journal_settings settings;
    enum settings_state settings_state;
    const char *settings_damage; /* what is wrong with line 2 (static) */
    struct measurement *records;
    size_t n_records, cap_records;
    size_t *slots; /* open-addressing hash of record index + 1; 0 = empty */
    size_t n_slots;
    struct point_result *points;
    size_t n_points, cap_points;
    long grid_points; /* the last grid record's; 0: none */
};

uint32_t journal_crc32(const char *data, size_t n)
{
    static uint32_t table[256];
    if (!table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            }
            table[i] = c;
        }
    }
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc = table[(crc ^ (unsigned char)data[i]) & 0xFF] ^ (crc >> 8);
    }
    return crc ^ 0xFFFFFFFFu;
}

/* One hash index serves records and point results: a slot holds
 * (item << 1 | kind) + 1, 0 marks an empty slot. A point result is keyed by
 * its strategy in place of the algorithm and segment -1. */
enum item_kind { KIND_RECORD = 0, KIND_POINT = 1 };

struct key {
    const char *collective;
    int procs, ppn;
    long msg_bytes;
    const char *name; /* algorithm, or the point's strategy */
    int segment_bytes;
};

static uint64_t hash_key(const struct key *k)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = k->collective; *p; p++) {
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    }
    for (const char *p = k->name; *p; p++) {
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    }
    h = (h ^ (uint64_t)k->procs) * 1099511628211ull;
    h = (h ^ (uint64_t)k->ppn) * 1099511628211ull;
    h = (h ^ (uint64_t)k->msg_bytes) * 1099511628211ull;
    h = (h ^ (uint64_t)(unsigned)k->segment_bytes) * 1099511628211ull;
    return h;
}

static struct key key_of_slot(const struct journal *j, size_t slot)
{
    size_t item = (slot - 1) >> 1;
    if (((slot - 1) & 1) == KIND_POINT) {
        const struct point_result *p = &j->points[item];
        return (struct key){p->collective, p->procs,    p->ppn,
                            p->msg_bytes,  p->strategy, -1};
    }
    const struct measurement *m = &j->records[item];
    return (struct key){m->collective, m->procs,     m->ppn,
                        m->msg_bytes,  m->algorithm, m->segment_bytes};
}

static int same_key(const struct key *a, const struct key *b)
{
    return a->procs == b->procs && a->ppn == b->ppn &&
           a->msg_bytes == b->msg_bytes &&
           a->segment_bytes == b->segment_bytes &&
           strcmp(a->collective, b->collective) == 0 &&
           strcmp(a->name, b->name) == 0;
}

/* The slot value holding key for an item of this kind, or 0. */
static size_t index_find(const struct journal *j, const struct key *k,
                         enum item_kind kind)
{
    if (!j->n_slots) {
        return 0;
    }
    size_t mask = j->n_slots - 1;
    for (size_t i = hash_key(k) & mask; j->slots[i]; i = (i + 1) & mask) {
        struct key other = key_of_slot(j, j->slots[i]);
        if (((j->slots[i] - 1) & 1) == (size_t)kind && same_key(&other, k)) {
            return j->slots[i];
        }
    }
    return 0;
}

const struct measurement *journal_find(const struct journal *j,
                                       const char *collective, int procs,
                                       int ppn, long msg_bytes,
                                       const char *algorithm, int segment_bytes)
{
    struct key k = {collective, procs,     ppn,
                    msg_bytes,  algorithm, segment_bytes};
    size_t slot = index_find(j, &k, KIND_RECORD);
    return slot ? &j->records[(slot - 1) >> 1] : NULL;
}

const struct point_result *journal_find_point(const struct journal *j,
                                              const char *collective, int procs,
                                              int ppn, long msg_bytes,
                                              const char *strategy)
{
    struct key k = {collective, procs, ppn, msg_bytes, strategy, -1};
    size_t slot = index_find(j, &k, KIND_POINT);
    return slot ? &j->points[(slot - 1) >> 1] : NULL;
}

static void index_insert(struct journal *j, size_t slot)
{
    struct key k = key_of_slot(j, slot);
    size_t mask = j->n_slots - 1;
    size_t i = hash_key(&k) & mask;
    while (j->slots[i]) {
        i = (i + 1) & mask;
    }
    j->slots[i] = slot;
}

/* Keeps the table at most half full; called after an item is added. */
static int index_add(struct journal *j, size_t item, enum item_kind kind)
{
    if (2 * (j->n_records + j->n_points) > j->n_slots) {
        size_t n = j->n_slots ? j->n_slots * 2 : 1024;
        size_t *slots = calloc(n, sizeof *slots);
        if (!slots) {
            return -1;
        }
        free(j->slots);
        j->slots = slots;
        j->n_slots = n;
        for (size_t r = 0; r < j->n_records; r++) {
            index_insert(j, (r << 1 | KIND_RECORD) + 1);
        }
        for (size_t p = 0; p < j->n_points; p++) {
            index_insert(j, (p << 1 | KIND_POINT) + 1);
        }
        return 0;
    }
    index_insert(j, (item << 1 | kind) + 1);
    return 0;
}

/* Adds a record in memory; a key already present keeps its first result. */
static int records_add(struct journal *j, const struct measurement *m)
{
    if (journal_find(j, m->collective, m->procs, m->ppn, m->msg_bytes,
                     m->algorithm, m->segment_bytes)) {
        return 0;
    }
    struct measurement *r =
        grow(j->records, &j->cap_records, j->n_records + 1, sizeof *r, 256);
    if (!r) {
        return -1;
    }
    j->records = r;
    j->records[j->n_records++] = *m;
    return index_add(j, j->n_records - 1, KIND_RECORD);
}

static int has_point(const struct journal *j, const struct point_result *p)
{
    return journal_find_point(j, p->collective, p->procs, p->ppn, p->msg_bytes,
                              p->strategy) != NULL;
}

static int points_add(struct journal *j, const struct point_result *p)
{
    if (has_point(j, p)) {
        return 0;
    }
    struct point_result *r =
        grow(j->points, &j->cap_points, j->n_points + 1, sizeof *r, 256);
    if (!r) {
        return -1;
    }
    j->points = r;
    j->points[j->n_points++] = *p;
    return index_add(j, j->n_points - 1, KIND_POINT);
}

/* A point line carries the ranks per node after procs; a line without it
 * (a journal written before ranks per node were tuned) is one rank per
 * node. */
static int parse_point(const char *s, struct point_result *p)
{
    int used = 0;
    memset(p, 0, sizeof *p);
    int n = sscanf(s, "p %31s %d %d %ld %31s %127s %d%n", p->collective,
                   &p->procs, &p->ppn, &p->msg_bytes, p->strategy, p->algorithm,
                   &p->segment_bytes, &used);
    if (n != 7 || s[used] != '\0') {
        used = 0;
        p->ppn = 1;
        n = 1 + sscanf(s, "p %31s %d %ld %31s %127s %d%n", p->collective,
                       &p->procs, &p->msg_bytes, p->strategy, p->algorithm,
                       &p->segment_bytes, &used);
    }
    return n == 7 && s[used] == '\0' && p->procs >= 1 && p->ppn >= 1 &&
                   p->procs % p->ppn == 0
               ? 0
               : -1;
}

void journal_settings_add(struct journal_settings *s, const char *key,
                          const char *fmt, ...)
{
    if (s->n >= STORE_MAX_SETTINGS) {
        return;
    }
    char value[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    snprintf(s->entries[s->n++], sizeof s->entries[0], "%s=%s", key, value);
}

static int format_record(char *buf, size_t size, const struct measurement *m)
{
    /* %.17g round-trips every double, so a replay sees the same numbers. */
    return snprintf(buf, size,
                    "m %s %d %d %ld %s %d %d %d %.17g %.17g %.17g %.17g %.17g "
                    "%.17g",
                    m->collective, m->procs, m->ppn, m->msg_bytes, m->algorithm,
                    m->segment_bytes, m->is_applicable, m->reps, m->mean_us,
                    m->median_us, m->min_us, m->max_us, m->sd_us, m->cost_s);
}

static int parse_record(const char *s, struct measurement *m)
{
    int used = 0;
    memset(m, 0, sizeof *m);
    int n = sscanf(
        s, "m %31s %d %d %ld %127s %d %d %d %lf %lf %lf %lf %lf %lf%n",
        m->collective, &m->procs, &m->ppn, &m->msg_bytes, m->algorithm,
        &m->segment_bytes, &m->is_applicable, &m->reps, &m->mean_us,
        &m->median_us, &m->min_us, &m->max_us, &m->sd_us, &m->cost_s, &used);
    if (n != 14 || s[used] != '\0') { /* written before ranks per node */
        used = 0;
        m->ppn = 1;
        n = 1 + sscanf(s,
                       "m %31s %d %ld %127s %d %d %d %lf %lf %lf %lf %lf %lf%n",
                       m->collective, &m->procs, &m->msg_bytes, m->algorithm,
                       &m->segment_bytes, &m->is_applicable, &m->reps,
                       &m->mean_us, &m->median_us, &m->min_us, &m->max_us,
                       &m->sd_us, &m->cost_s, &used);
    }
    if (n != 14 || s[used] != '\0' || m->procs < 1 || m->ppn < 1 ||
        m->procs % m->ppn != 0 || m->msg_bytes < 0 || m->segment_bytes < 0) {
        return -1;
    }
    return 0;
}

/* Writes "payload *crc\n" with one write() so a crash tears at most this
 * line, then fsyncs. */
static int write_line(struct journal *j, const char *payload)
{
    char line[LINE_MAX_BYTES];
    int n = snprintf(line, sizeof line, "%s *%08x\n", payload,
                     (unsigned)journal_crc32(payload, strlen(payload)));
    if (n < 0 || (size_t)n >= sizeof line) {
        fprintf(stderr, "%s: record too long\n", j->path);
        return -1;
    }
    for (ssize_t done = 0; done < n;) {
        ssize_t w = write(j->fd, line + done, (size_t)(n - done));
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0) {
            fprintf(stderr, "%s: %s\n", j->path, strerror(errno));
            return -1;
        }
        done += w;
    }
    if (fsync(j->fd) != 0) {
        fprintf(stderr, "%s: fsync: %s\n", j->path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Splits "payload *crc" in place; returns the payload or NULL if the
 * checksum is missing or wrong. */
static char *checked_payload(char *line)
{
    char *star = strrchr(line, '*');
    if (!star || star == line || star[-1] != ' ') {
        return NULL;
    }
    char *end;
    unsigned long crc = strtoul(star + 1, &end, 16);
    if (end == star + 1 || *end != '\0') {
        return NULL;
    }
    star[-1] = '\0';
    if (crc != journal_crc32(line, strlen(line))) {
        return NULL;
    }
    return line;
}

static void parse_settings(char *payload, struct journal_settings *s)
{
    s->n = 0;
    for (char *tok = strtok(payload + strlen("settings"), " "); tok;
         tok = strtok(NULL, " ")) {
        if (s->n < STORE_MAX_SETTINGS) {
            snprintf(s->entries[s->n++], sizeof s->entries[0], "%s", tok);
        }
    }
}

/* One line as read: at most LINE_MAX_BYTES of it are kept. */
struct line {
    char text[LINE_MAX_BYTES + 1];
    int has_newline, has_nul, is_too_long;
};

/* Reads the next line, counting its bytes (a longer line's too) in *offset;
 * returns 0 at the end of the file. */
static int read_line(FILE *f, struct line *l, long *offset)
{
    size_t n = 0;
    long start = *offset;
    int c;
    l->has_newline = l->has_nul = l->is_too_long = 0;
    while ((c = getc_unlocked(f)) != EOF) {
        (*offset)++;
        if (c == '\n') {
            l->has_newline = 1;
            break;
        }
        l->has_nul |= c == '\0';
        if (n < LINE_MAX_BYTES) {
            l->text[n++] = (char)c;
        } else {
            l->is_too_long = 1;
        }
    }
    l->text[n] = '\0';
    return *offset > start;
}

/* What is wrong with a whole line, or NULL; *payload is its checked text. */
static const char *line_damage(struct line *l, char **payload)
{
    *payload = NULL;
    if (l->has_nul) {
        return "a NUL byte";
    }
    if (l->is_too_long) {
        return "longer than " LINE_MAX_TEXT " bytes";
    }
    *payload = checked_payload(l->text);
    return *payload ? NULL : "bad checksum";
}

/* The magic line as written, to recognise a torn first line as ours. */
static int is_magic_prefix(const char *text)
{
    char magic[64];
    snprintf(magic, sizeof magic, "%s *%08x", JOURNAL_MAGIC,
             (unsigned)journal_crc32(JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)));
    return strncmp(magic, text, strlen(text)) == 0;
}

/* Reads every line. A damaged line is reported and skipped, whatever
 * follows it; only a torn last line is left out of *valid_bytes, the length
 * of the prefix made of whole lines, so that it can be cut off. */
static int load_lines(struct journal *j, FILE *f, long *valid_bytes)
{
    struct line *l = malloc(sizeof *l);
    long offset = 0;
    int lineno = 0, rc = 0, is_out_of_memory = 0;
    *valid_bytes = 0;
    while (l && rc == 0 && !is_out_of_memory && read_line(f, l, &offset)) {
        lineno++;
        if (!l->has_newline) {
            if (lineno == 1 && (l->has_nul || !is_magic_prefix(l->text))) {
                fprintf(stderr, "%s:1: not an autotune journal\n", j->path);
                rc = -1;
            } else {
                fprintf(stderr,
                        "%s:%d: torn last line (an interrupted write), "
                        "skipped\n",
                        j->path, lineno);
            }
            break;
        }
        *valid_bytes = offset;
        char *payload;
        const char *damage = line_damage(l, &payload);
        struct measurement m;
        struct point_result point;
        if (lineno == 1) {
            if (damage || strcmp(payload, JOURNAL_MAGIC) != 0) {
                /* Never append to, or cut, a file that is not ours. */
                fprintf(stderr, "%s:1: not an autotune journal\n", j->path);
                rc = -1;
            }
        } else if (lineno == 2) {
            if (!damage && strncmp(payload, "settings", 8) == 0) {
                parse_settings(payload, &j->settings);
                j->settings_state = SETTINGS_READ;
            } else {
                j->settings_state = SETTINGS_DAMAGED;
                j->settings_damage = damage ? damage : "not a settings line";
            }
        } else if (damage) {
            fprintf(stderr, "%s:%d: damaged line (%s), skipped\n", j->path,
                    lineno, damage);
        } else if (strncmp(payload, "settings", 8) == 0) {
            fprintf(stderr, "%s:%d: a second settings line, skipped\n", j->path,
                    lineno);
        } else if (strncmp(payload, "grid ", 5) == 0) {
            j->grid_points = atol(payload + 5);
        } else if (payload[0] == 'p' && parse_point(payload, &point) == 0) {
            is_out_of_memory = points_add(j, &point) != 0;
        } else if (parse_record(payload, &m) == 0) {
            is_out_of_memory = records_add(j, &m) != 0;
        } else {
            fprintf(stderr, "%s:%d: malformed record, line skipped\n", j->path,
                    lineno);
        }
    }
    if (!l || is_out_of_memory) {
        fprintf(stderr, "%s: out of memory\n", j->path);
        rc = -1;
    }
    free(l);
    return rc;
}

static const char *setting_value(const struct journal_settings *s,
                                 const char *entry, size_t key_len)
{
    for (int i = 0; i < s->n; i++) {
        if (strncmp(s->entries[i], entry, key_len + 1) == 0) {
            return s->entries[i] + key_len + 1;
        }
    }
    return NULL;
}

const char *journal_setting(const struct journal_settings *s, const char *key)
{
    char entry[sizeof s->entries[0]];
    if (snprintf(entry, sizeof entry, "%s=", key) >= (int)sizeof entry) {
        return NULL;
    }
    return setting_value(s, entry, strlen(key));
}

/* Prints one line naming every key whose value differs. */
static int check_settings(const struct journal *j,
                          const struct journal_settings *want)
{
    char diff[1024] = "";
    size_t used = 0;
    for (int pass = 0; pass < 2; pass++) {
        const struct journal_settings *a = pass ? &j->settings : want;
        const struct journal_settings *b = pass ? want : &j->settings;
        for (int i = 0; i < a->n; i++) {
            const char *eq = strchr(a->entries[i], '=');
            size_t key_len = eq ? (size_t)(eq - a->entries[i]) : 0;
            const char *va = eq ? eq + 1 : "";
            const char *vb = setting_value(b, a->entries[i], key_len);
            if (vb && (pass || strcmp(va, vb) == 0)) {
                continue;
            }
            const char *journal_v = pass ? va : (vb ? vb : "(none)");
            const char *config_v = pass ? "(none)" : va;
            used += (size_t)snprintf(diff + used, sizeof diff - used,
                                     "%s%.*s (journal %s, config %s)",
                                     used ? ", " : "", (int)key_len,
                                     a->entries[i], journal_v, config_v);
            if (used >= sizeof diff) {
                used = sizeof diff - 1;
            }
        }
    }
    if (used) {
        fprintf(stderr,
                "%s: the config conflicts with the recorded sweep: %s; "
                "use --fresh to start over\n",
                j->path, diff);
        return -1;
    }
    return 0;
}

static int write_settings(struct journal *j)
{
    char payload[LINE_MAX_BYTES - 16] = "settings";
    size_t used = strlen(payload);
    for (int i = 0; i < j->settings.n && used < sizeof payload; i++) {
        used += (size_t)snprintf(payload + used, sizeof payload - used, " %s",
                                 j->settings.entries[i]);
    }
    return write_line(j, payload);
}

static int journal_read(const char *path, struct journal **out, long *valid,
                        int *exists)
{
    *valid = 0;
    *exists = 0;
    struct journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(path))) {
        fprintf(stderr, "%s: out of memory\n", path);
        free(j);
        return -1;
    }
    j->fd = -1;
    *out = j;
    FILE *f = fopen(path, "r");
    *exists = f != NULL;
    if (!f && errno != ENOENT) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!f) {
        return 0;
    }
    int rc = load_lines(j, f, valid);
    fclose(f);
    return rc;
}

int journal_load(const char *path, struct journal **out)
{
    long valid;
    int exists;
    *out = NULL;
    struct journal *j = NULL;
    int rc = journal_read(path, &j, &valid, &exists); /* it said why */
    if (rc != 0 || !exists) {
        if (rc == 0) {
            fprintf(stderr, "%s: %s\n", path, strerror(ENOENT));
        }
        journal_close(j);
        return -1;
    }
    if (j->settings_state == SETTINGS_DAMAGED) {
        fprintf(stderr,
                "%s:2: damaged settings line (%s): how the run was measured "
                "is unknown\n",
                path, j->settings_damage);
    }
    *out = j;
    return 0;
}

int journal_open(const char *path, const struct journal_settings *settings,
                 struct journal **out)
{
    long valid;
    int exists;
    struct journal *j = NULL;
    *out = NULL;
    if (journal_read(path, &j, &valid, &exists) != 0) {
        goto fail;
    }
    if (j->settings_state == SETTINGS_DAMAGED) {
        fprintf(stderr,
                "%s:2: damaged settings line (%s), so the config cannot be "
                "checked against the recorded sweep; use --fresh to start "
                "over (it moves this journal to old/)\n",
                path, j->settings_damage);
        goto fail;
    }
    if (j->settings_state == SETTINGS_READ &&
        check_settings(j, settings) != 0) {
        goto fail;
    }
    j->settings = *settings;
    /* O_APPEND: whatever else writes the file, a record never overwrites
     * another. */
    j->fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (j->fd < 0 || ftruncate(j->fd, valid) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        goto fail;
    }
    if (valid == 0 && write_line(j, JOURNAL_MAGIC) != 0) {
        goto fail;
    }
    if (j->settings_state == SETTINGS_NONE && write_settings(j) != 0) {
        goto fail;
    }
    j->settings_state = SETTINGS_READ;
    *out = j;
    return 0;
fail:
    journal_close(j);
    return -1;
}

void journal_close(struct journal *j)
{
    if (!j) {
        return;
    }
    if (j->fd >= 0) {
        close(j->fd);
    }
    free(j->records);
    free(j->slots);
    free(j->points);
    free(j->path);
    free(j);
}

int journal_append(struct journal *j, const struct measurement *m)
{
    char payload[LINE_MAX_BYTES - 16];
    int n = format_record(payload, sizeof payload, m);
    if (n < 0 || (size_t)n >= sizeof payload) {
        fprintf(stderr, "%s: record too long\n", j->path);
        return -1;
    }
    if (write_line(j, payload) != 0) {
        return -1;
    }
    return records_add(j, m);
}

int journal_append_point(struct journal *j, const struct point_result *p)
{
    char payload[LINE_MAX_BYTES - 16];
    if (has_point(j, p)) {
        return 0;
    }
    snprintf(payload, sizeof payload, "p %s %d %d %ld %s %s %d", p->collective,
             p->procs, p->ppn, p->msg_bytes, p->strategy, p->algorithm,
             p->segment_bytes);
    if (write_line(j, payload) != 0) {
        return -1;
    }
    return points_add(j, p);
}

int journal_append_grid(struct journal *j, long points)
{
    char payload[64];
    if (j->grid_points == points) {
        return 0;
    }
    snprintf(payload, sizeof payload, "grid %ld", points);
    if (write_line(j, payload) != 0) {
        return -1;
    }
    j->grid_points = points;
    return 0;
}

long journal_grid_points(const struct journal *j)
{
    return j->grid_points;
}

size_t journal_point_count(const struct journal *j)
{
    return j->n_points;
}

const struct point_result *journal_point(const struct journal *j, size_t i)
{
    return i < j->n_points ? &j->points[i] : NULL;
}

size_t journal_count(const struct journal *j)
{
    return j->n_records;
}

const struct measurement *journal_record(const struct journal *j, size_t i)
{
    return i < j->n_records ? &j->records[i] : NULL;
}

const struct journal_settings *journal_get_settings(const struct journal *j)
{
    return &j->settings;
}

int journal_has_settings(const struct journal *j)
{
    return j->settings_state == SETTINGS_READ;
}
