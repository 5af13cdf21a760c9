/* The .dec file: a decision as text (methods, collectives, roots, nodes),
 * written whole or not at all; format 1 is a decision for one rank per
 * node, format 2 adds its ranks per node and a root per (collective, ppn);
 * loading checks every line and reports file:line, so a decision that loads is
 * one that every walk can end, and checks every count against the bytes left
 * before allocating for it, so that a file takes memory in proportion to its
 * length. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "decision/internal.h"
#include "store/tables.h"

#define DECISION_MAGIC "autotune-decision 1"
#define DECISION_MAGIC_PPN "autotune-decision 2"

/* Format 1 holds it: one rank per node, every collective a root. */
static bool is_format_1(const struct decision *d)
{
    bool is_one = d->n_ppn == 1 && d->ppn[0] == 1;
    for (int i = 0; is_one && i < d->n_colls; i++) {
        is_one = d->roots[i] >= 0;
    }
    return is_one;
}

static int write_decision(FILE *f, const void *arg)
{
    const struct decision *d = arg;
    bool is_v1 = is_format_1(d);
    fprintf(f, "%s\nkind %s\n", is_v1 ? DECISION_MAGIC : DECISION_MAGIC_PPN,
            d->kind);
    if (!is_v1) {
        fprintf(f, "ranks_per_node");
        for (int k = 0; k < d->n_ppn; k++) {
            fprintf(f, " %" PRId32, d->ppn[k]);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "methods %d\n", d->n_methods);
    for (int i = 0; i < d->n_methods; i++) {
        fprintf(f, "%s\n", d->methods[i]);
    }
    fprintf(f, "collectives %d\n", d->n_colls);
    for (int i = 0; i < d->n_colls; i++) {
        fprintf(f, "%s", d->colls[i]);
        for (int k = 0; k < d->n_ppn; k++) {
            fprintf(f, " %" PRId32, d->roots[decision_table(d, i, k)]);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "nodes %d\n", d->n_nodes);
    for (int i = 0; i < d->n_nodes; i++) {
        const struct decision_node *n = &d->nodes[i];
        switch (decision_node_kind(d, i)) {
        case NODE_LEAF:
            fprintf(f, "leaf %" PRId32 "\n", d->leaf_method[i]);
            break;
        case NODE_MSG:
            fprintf(f, "split msg_bytes %" PRId64 " %" PRId32 "\n", n->msg_cut,
                    n->child);
            break;
        case NODE_PROCS:
            fprintf(f, "split procs %" PRId32 " %" PRId32 "\n", n->procs_cut,
                    n->child);
            break;
        case NODE_QUAD:
            fprintf(f, "quad %" PRId32 " %" PRId64 " %" PRId32 "\n",
                    n->procs_cut, n->msg_cut, n->child);
            break;
        }
    }
    if (d->chain_fanout > 0) {
        fprintf(f, "chain_fanout %d\n", d->chain_fanout);
    }
    for (int i = 0; i < d->n_colls * d->n_ppn; i++) {
        const struct decision_range *r = decision_get_range(d, i);
        if (r) {
            fprintf(
                f, "range %d %" PRId32 " %" PRId32 " %" PRId64 " %" PRId64 "\n",
                i, r->procs_min, r->procs_max, r->msg_min, r->msg_max);
        }
    }
    return ferror(f) ? -1 : 0;
}

int decision_write(const struct decision *d, FILE *f)
{
    return write_decision(f, d);
}

int decision_save(const struct decision *d, const char *path)
{
    return store_write_file(path, write_decision, d);
}

struct reader {
    FILE *f;
    FILE *err; /* where a bad line is reported */
    const char *path;
    int lineno;
    long end; /* f's length */
    char line[1024];
};

static int read_line(struct reader *r, const char *what)
{
    if (!fgets(r->line, sizeof r->line, r->f)) {
        fprintf(r->err, "%s:%d: ends before %s\n", r->path, r->lineno + 1,
                what);
        return -1;
    }
    r->lineno++;
    r->line[strcspn(r->line, "\r\n")] = '\0';
    return 0;
}

/* text as a short printable excerpt: bytes outside printable ASCII as
 * \xNN, cut with "..." past 48 bytes, so that a file of random bytes
 * never reaches the terminal raw. */
static void excerpt(char *out, size_t size, const char *text)
{
    size_t n = 0;
    for (const char *c = text; *c && n + 8 < size; c++) {
        unsigned char b = (unsigned char)*c;
        if (c - text == 48) {
            n += (size_t)snprintf(out + n, size - n, "...");
            break;
        }
        n += (size_t)(b >= 0x20 && b < 0x7f && b != '\\'
                          ? snprintf(out + n, size - n, "%c", b)
                          : snprintf(out + n, size - n, "\\x%02x", b));
    }
    out[n] = '\0';
}

static int bad_line(const struct reader *r, const char *what)
{
    char shown[256];
    excerpt(shown, sizeof shown, r->line);
    fprintf(r->err, "%s:%d: '%s': expected %s\n", r->path, r->lineno, shown,
            what);
    return -1;
}

/* "KEY N" with 1 <= N <= max, N lines of at least line_bytes each (the
 * newline included) fitting in what is left of the file: a count is
 * checked against the file's length before anything is allocated. */
static int read_count(struct reader *r, const char *key, int max,
                      int line_bytes, int *out)
{
    size_t len = strlen(key);
    char *end;
    if (read_line(r, key)) {
        return -1;
    }
    long v = 0;
    bool is_ok = strncmp(r->line, key, len) == 0 && r->line[len] == ' ';
    if (is_ok) {
        v = strtol(r->line + len + 1, &end, 10);
        is_ok = end != r->line + len + 1 && *end == '\0' && v >= 1 && v <= max;
    }
    if (!is_ok) {
        char what[64];
        snprintf(what, sizeof what, "'%s N' with 1 <= N <= %d", key, max);
        return bad_line(r, what);
    }
    /* The last line may lack its newline. */
    long left = r->end - ftell(r->f) + 1;
    if (left == 1) {
        fprintf(r->err, "%s:%d: ends before the %s\n", r->path, r->lineno + 1,
                key);
        return -1;
    }
    if (v > left / line_bytes) {
        char what[128];
        snprintf(what, sizeof what,
                 "at most %ld %s (the %ld bytes left of the file hold no more)",
                 left / line_bytes, key, left - 1);
        return bad_line(r, what);
    }
    *out = (int)v;
    return 0;
}

static int read_node(struct reader *r, struct decision *d, int i)
{
    char attr[16];
    int64_t a, b;
    int32_t child;
    int used = 0;
    if (sscanf(r->line, "leaf %" SCNd32 "%n", &child, &used) == 1 &&
        r->line[used] == '\0') {
        if (child < 0 || child >= d->n_methods) {
            return bad_line(r, "a method index");
        }
        decision_set_leaf(d, i, child);
        return 0;
    }
    if (sscanf(r->line, "quad %" SCNd64 " %" SCNd64 " %" SCNd32 "%n", &a, &b,
               &child, &used) == 3 &&
        r->line[used] == '\0') {
        d->nodes[i] = (struct decision_node){b, (int32_t)a, child};
    } else if (sscanf(r->line, "split %15s %" SCNd64 " %" SCNd32 "%n", attr, &a,
                      &child, &used) == 3 &&
               r->line[used] == '\0' &&
               (strcmp(attr, "procs") == 0 || strcmp(attr, "msg_bytes") == 0)) {
        bool is_procs = strcmp(attr, "procs") == 0;
        /* a: the procs cut to check, b: the message cut (any below
         * INT64_MAX, 4 GiB and more included). */
        b = is_procs ? 0 : a;
        a = is_procs ? a : 0;
        d->nodes[i] = (struct decision_node){
            is_procs ? INT64_MAX : b, is_procs ? (int32_t)a : INT32_MAX, child};
    } else {
        return bad_line(r, "'leaf M', 'split procs|msg_bytes CUT CHILD' or "
                           "'quad PROCS_CUT MSG_CUT CHILD'");
    }
    if (a < INT32_MIN || a >= INT32_MAX || b == INT64_MAX) {
        return bad_line(r, "cuts below INT32_MAX (procs) and INT64_MAX");
    }
    d->leaf_method[i] = -1;
    /* Children come after their parent: every walk ends at a leaf. The
     * first child is checked before decision_children adds up to 3 to it
     * (a child near INT32_MAX would wrap past the check). */
    int children[4];
    if (child <= i || child >= d->n_nodes) {
        return bad_line(r, "children after the node and within the nodes");
    }
    int n = decision_children(d, i, children);
    if (children[n - 1] >= d->n_nodes) {
        return bad_line(r, "children after the node and within the nodes");
    }
    return 0;
}

/* "range TABLE PROCS_MIN PROCS_MAX MSG_MIN MSG_MAX" (the table: the
 * collective's index in format 1). */
static int read_range(struct reader *r, struct decision *d)
{
    struct decision_range range;
    int coll, used = 0;
    if (sscanf(r->line,
               "range %d %" SCNd32 " %" SCNd32 " %" SCNd64 " %" SCNd64 "%n",
               &coll, &range.procs_min, &range.procs_max, &range.msg_min,
               &range.msg_max, &used) != 5 ||
        r->line[used] != '\0' || coll < 0 || coll >= d->n_colls * d->n_ppn ||
        range.procs_min < 1 || range.procs_max < range.procs_min ||
        range.msg_min < 0 || range.msg_max < range.msg_min) {
        return bad_line(r, d->n_ppn == 1
                               ? "'range COLLECTIVE_INDEX PROCS_MIN PROCS_MAX "
                                 "MSG_MIN MSG_MAX' (a collective's measured "
                                 "range)"
                               : "'range TABLE PROCS_MIN PROCS_MAX MSG_MIN "
                                 "MSG_MAX' (a (collective, ranks per node)'s "
                                 "measured range; TABLE = COLLECTIVE_INDEX x "
                                 "ranks per node values + ranks per node "
                                 "index)");
    }
    return decision_set_range(d, coll, &range);
}

/* Bytes from f's position to its end, or -1 when f cannot seek (a pipe). */
static long bytes_left(FILE *f)
{
    long at = ftell(f), end;
    if (at < 0 || fseek(f, 0, SEEK_END) != 0) {
        return -1;
    }
    end = ftell(f);
    return fseek(f, at, SEEK_SET) == 0 && end >= at ? end - at : -1;
}

/* A stream that cannot tell its length (a pipe) is read into memory, up
 * to DECISION_FILE_MAX_BYTES, and read from there. */
static int read_unseekable(FILE *in, const char *path, FILE *err,
                           struct decision **out)
{
    char *text = NULL, chunk[4096];
    size_t len = 0, got;
    int rc = -1;
    FILE *copy = open_memstream(&text, &len);
    while (copy && (got = fread(chunk, 1, sizeof chunk, in)) > 0 &&
           fwrite(chunk, 1, got, copy) == got &&
           ftell(copy) <= DECISION_FILE_MAX_BYTES) {
    }
    bool is_ok = copy && !ferror(in) && fflush(copy) == 0;
    if (copy) {
        fclose(copy);
    }
    if (!is_ok) {
        fprintf(err, "%s: %s\n", path, copy ? "read error" : "out of memory");
    } else if (len > DECISION_FILE_MAX_BYTES) {
        fprintf(err, "%s: larger than %ld bytes: not a decision file\n", path,
                (long)DECISION_FILE_MAX_BYTES);
    } else {
        rc = decision_read_text(text, len, path, err, out);
    }
    free(text);
    return rc;
}

/* Whether every byte of text is printable ASCII (a name: no control
 * characters, nothing a terminal would act on). */
static bool is_printable(const char *text)
{
    for (const char *c = text; *c; c++) {
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) {
            return false;
        }
    }
    return true;
}

/* "chain_fanout N": the chains the run's chain methods were timed with. */
static int read_chain_fanout(struct reader *r, struct decision *d)
{
    int v, used = 0;
    if (d->chain_fanout > 0) {
        return bad_line(r, "one chain_fanout line");
    }
    if (sscanf(r->line, "chain_fanout %d%n", &v, &used) != 1 ||
        r->line[used] != '\0' || v < 1) {
        return bad_line(r, "'chain_fanout N' (N >= 1: the chains of the "
                           "chain methods)");
    }
    d->chain_fanout = v;
    return 0;
}

/* "ranks_per_node P..." (format 2): 1 to DECISION_MAX_PPN values,
 * ascending, distinct, >= 1. */
static int read_ppn(struct reader *r, int *ppn, int *n_ppn)
{
    static const char key[] = "ranks_per_node";
    const char *at = r->line + sizeof key - 1;
    *n_ppn = 0;
    if (read_line(r, "ranks_per_node")) {
        return -1;
    }
    bool is_ok = strncmp(r->line, key, sizeof key - 1) == 0 && *at == ' ';
    while (is_ok && *at == ' ') {
        char *end;
        long v = strtol(at + 1, &end, 10);
        is_ok = end != at + 1 && (*end == ' ' || *end == '\0') && v >= 1 &&
                v <= INT32_MAX && *n_ppn < DECISION_MAX_PPN &&
                (*n_ppn == 0 || v > ppn[*n_ppn - 1]);
        if (is_ok) {
            ppn[(*n_ppn)++] = (int)v;
        }
        at = end;
    }
    if (!is_ok || *at != '\0') {
        char what[128];
        snprintf(what, sizeof what,
                 "'ranks_per_node P...' (1 to %d values, ascending, >= 1)",
                 DECISION_MAX_PPN);
        return bad_line(r, what);
    }
    return 0;
}

/* "COLLECTIVE ROOT..." (a root per ppn value; -1 in format 2: none). */
static int read_collective(struct reader *r, struct decision *d, int i,
                           bool is_v1)
{
    int used = 0;
    bool is_ok = sscanf(r->line, "%31s%n", d->colls[i], &used) == 1 &&
                 is_printable(d->colls[i]);
    const char *at = r->line + used;
    for (int k = 0; is_ok && k < d->n_ppn; k++) {
        char *end;
        long v = strtol(at, &end, 10);
        is_ok = end != at && *at == ' ' && (*end == ' ' || *end == '\0') &&
                v >= (is_v1 ? 0 : -1) && v < INT32_MAX;
        d->roots[decision_table(d, i, k)] = (int32_t)v;
        at = end;
    }
    if (!is_ok || *at != '\0') {
        char what[64];
        snprintf(what, sizeof what, "'COLLECTIVE ROOT' with %d root%s",
                 d->n_ppn, d->n_ppn > 1 ? "s (-1: none)" : "");
        return bad_line(r, what);
    }
    int first = decision_find_collective(d, d->colls[i]);
    if (first < i) {
        char what[96];
        snprintf(what, sizeof what,
                 "each collective once (%s is on line %d too)", d->colls[i],
                 r->lineno - i + first);
        return bad_line(r, what);
    }
    return 0;
}

int decision_read(FILE *in, const char *path, FILE *err, struct decision **out)
{
    struct reader r = {in, err, path, 0, bytes_left(in), ""};
    struct decision *d = NULL;
    char kind[RUN_NAME_MAX] = "";
    int rc = -1, n_methods, n_colls, n_nodes, n_ppn = 1;
    int ppn[DECISION_MAX_PPN] = {1};
    bool is_v1;
    char **names = NULL;
    *out = NULL;
    if (r.end < 0) {
        return read_unseekable(in, path, err, out);
    }
    if (r.end > DECISION_FILE_MAX_BYTES) {
        fprintf(err, "%s: larger than %ld bytes: not a decision file\n", path,
                (long)DECISION_FILE_MAX_BYTES);
        return -1;
    }
    r.end += ftell(in);
    if (read_line(&r, "the header")) {
        goto done;
    }
    is_v1 = strcmp(r.line, DECISION_MAGIC) == 0;
    if (!is_v1 && strcmp(r.line, DECISION_MAGIC_PPN) != 0) {
        bad_line(&r, "'" DECISION_MAGIC "' or '" DECISION_MAGIC_PPN "'");
        goto done;
    }
    if (read_line(&r, "kind")) {
        goto done;
    }
    if (sscanf(r.line, "kind %31s", kind) != 1) {
        bad_line(&r, "'kind NAME'");
        goto done;
    }
    if (!is_v1 && read_ppn(&r, ppn, &n_ppn)) {
        goto done;
    }
    if (read_count(&r, "methods", 65535, 2, &n_methods)) {
        goto done;
    }
    names = calloc((size_t)n_methods, sizeof *names);
    if (!names) {
        fprintf(err, "%s: out of memory\n", path);
        goto done;
    }
    for (int i = 0; i < n_methods; i++) {
        if (read_line(&r, "a method")) {
            goto done;
        }
        if (!r.line[0] || !is_printable(r.line)) {
            bad_line(&r, "a method (ALGORITHM/SEGMENT_BYTES)");
            goto done;
        }
        /* a decision keeps RUN_LABEL_MAX - 1 bytes: cut, it would name
         * another method (pipeline/000...) */
        if (strlen(r.line) >= RUN_LABEL_MAX) {
            char what[96];
            snprintf(what, sizeof what,
                     "a method (ALGORITHM/SEGMENT_BYTES) of at most %d bytes",
                     RUN_LABEL_MAX - 1);
            bad_line(&r, what);
            goto done;
        }
        if (!(names[i] = strdup(r.line))) {
            fprintf(err, "%s: out of memory\n", path);
            goto done;
        }
    }
    if (read_count(&r, "collectives", 1024, 4, &n_colls)) {
        goto done;
    }
    if (decision_create(kind, n_methods, (const char *const *)names, n_colls,
                        NULL, n_ppn, ppn, &d)) {
        goto done;
    }
    for (int i = 0; i < n_colls; i++) {
        if (read_line(&r, "a collective") || read_collective(&r, d, i, is_v1)) {
            goto done;
        }
    }
    /* "leaf M" and a newline: the shortest node. */
    if (read_count(&r, "nodes", INT32_MAX / 4, 7, &n_nodes) ||
        decision_add_nodes(d, n_nodes) < 0) {
        goto done;
    }
    for (int i = 0; i < n_colls * n_ppn; i++) {
        if (d->roots[i] >= n_nodes) {
            fprintf(err,
                    "%s: collective %s at %" PRId32
                    " ranks per node: root %" PRId32 " is not a node\n",
                    path, d->colls[i / n_ppn], d->ppn[i % n_ppn], d->roots[i]);
            goto done;
        }
    }
    for (int i = 0; i < n_nodes; i++) {
        if (read_line(&r, "a node") || read_node(&r, d, i)) {
            goto done;
        }
    }
    /* Optional after the nodes: the run's chain_fanout, each collective's
     * measured range. */
    while (fgets(r.line, sizeof r.line, r.f)) {
        r.lineno++;
        r.line[strcspn(r.line, "\r\n")] = '\0';
        if (strncmp(r.line, "chain_fanout", 12) == 0 ? read_chain_fanout(&r, d)
                                                     : read_range(&r, d)) {
            goto done;
        }
    }

    if (decision_prepare(d)) {
        goto done;
    }
    *out = d;
    d = NULL;
    rc = 0;
done:
    for (int i = 0; names && i < n_methods; i++) {
        free(names[i]);
    }
    free(names);
    decision_destroy(d);
    return rc;
}

int decision_read_text(const char *text, size_t len, const char *path,
                       FILE *err, struct decision **out)
{
    FILE *in = len > 0 ? fmemopen((void *)text, len, "r") : NULL;
    *out = NULL;
    if (!in) {
        fprintf(err, "%s: %s\n", path, len > 0 ? "out of memory" : "empty");
        return -1;
    }
    int rc = decision_read(in, path, err, out);
    fclose(in);
    return rc;
}

int decision_load(const char *path, struct decision **out)
{
    FILE *f = fopen(path, "r");
    *out = NULL;
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = decision_read(f, path, stderr, out);
    fclose(f);
    return rc;
}
