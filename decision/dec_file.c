/* The .dec file: a decision as text (methods, collectives, roots, nodes),
 * written whole or not at all; loading checks every line and reports
 * file:line, so a decision that loads is one that every walk can end. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"
#include "decision/internal.h"
#include "store/tables.h"

#define DECISION_MAGIC "autotune-decision 1"

static int write_decision(FILE *f, const void *arg)
{
    const struct decision *d = arg;
    fprintf(f, "%s\nkind %s\nmethods %d\n", DECISION_MAGIC, d->kind,
            d->n_methods);
    for (int i = 0; i < d->n_methods; i++) {
        fprintf(f, "%s\n", d->methods[i]);
    }
    fprintf(f, "collectives %d\n", d->n_colls);
    for (int i = 0; i < d->n_colls; i++) {
        fprintf(f, "%s %" PRId32 "\n", d->colls[i], d->roots[i]);
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
    for (int i = 0; i < d->n_colls; i++) {
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
    char line[256];
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

static int bad_line(const struct reader *r, const char *what)
{
    fprintf(r->err, "%s:%d: '%s': expected %s\n", r->path, r->lineno, r->line,
            what);
    return -1;
}

/* "KEY N" with 1 <= N <= max. */
static int read_count(struct reader *r, const char *key, int max, int *out)
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
    /* Children come after their parent: every walk ends at a leaf. */
    int children[4];
    int n = decision_children(d, i, children);
    if (child <= i || children[n - 1] >= d->n_nodes) {
        return bad_line(r, "children after the node and within the nodes");
    }
    return 0;
}

/* "range COLLECTIVE_INDEX PROCS_MIN PROCS_MAX MSG_MIN MSG_MAX". */
static int read_range(struct reader *r, struct decision *d)
{
    struct decision_range range;
    int coll, used = 0;
    if (sscanf(r->line,
               "range %d %" SCNd32 " %" SCNd32 " %" SCNd64 " %" SCNd64 "%n",
               &coll, &range.procs_min, &range.procs_max, &range.msg_min,
               &range.msg_max, &used) != 5 ||
        r->line[used] != '\0' || coll < 0 || coll >= d->n_colls ||
        range.procs_min < 1 || range.procs_max < range.procs_min ||
        range.msg_min < 0 || range.msg_max < range.msg_min) {
        return bad_line(r, "'range COLLECTIVE_INDEX PROCS_MIN PROCS_MAX "
                           "MSG_MIN MSG_MAX' (a collective's measured range)");
    }
    return decision_set_range(d, coll, &range);
}

int decision_read(FILE *in, const char *path, FILE *err, struct decision **out)
{
    struct reader r = {in, err, path, 0, ""};
    struct decision *d = NULL;
    char kind[RUN_NAME_MAX] = "";
    int rc = -1, n_methods, n_colls, n_nodes;
    char **names = NULL;
    *out = NULL;
    if (read_line(&r, "the header")) {
        goto done;
    }
    if (strcmp(r.line, DECISION_MAGIC) != 0) {
        bad_line(&r, "'" DECISION_MAGIC "'");
        goto done;
    }
    if (read_line(&r, "kind")) {
        goto done;
    }
    if (sscanf(r.line, "kind %31s", kind) != 1) {
        bad_line(&r, "'kind NAME'");
        goto done;
    }
    if (read_count(&r, "methods", 65535, &n_methods)) {
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
        if (!(names[i] = strdup(r.line))) {
            fprintf(err, "%s: out of memory\n", path);
            goto done;
        }
    }
    if (read_count(&r, "collectives", 1024, &n_colls)) {
        goto done;
    }
    if (decision_create(kind, n_methods, (const char *const *)names, n_colls,
                        NULL, &d)) {
        goto done;
    }
    for (int i = 0; i < n_colls; i++) {
        int used = 0;
        if (read_line(&r, "a collective") ||
            sscanf(r.line, "%31s %" SCNd32 "%n", d->colls[i], &d->roots[i],
                   &used) != 2 ||
            r.line[used] != '\0') {
            if (r.lineno > 0 && !feof(r.f)) {
                bad_line(&r, "'COLLECTIVE ROOT'");
            }
            goto done;
        }
    }
    if (read_count(&r, "nodes", INT32_MAX / 4, &n_nodes) ||
        decision_add_nodes(d, n_nodes) < 0) {
        goto done;
    }
    for (int i = 0; i < n_colls; i++) {
        if (d->roots[i] < 0 || d->roots[i] >= n_nodes) {
            fprintf(err, "%s: collective %s: root %" PRId32 " is not a node\n",
                    path, d->colls[i], d->roots[i]);
            goto done;
        }
    }
    for (int i = 0; i < n_nodes; i++) {
        if (read_line(&r, "a node") || read_node(&r, d, i)) {
            goto done;
        }
    }
    /* Optional after the nodes: each collective's measured range. */
    while (fgets(r.line, sizeof r.line, r.f)) {
        r.lineno++;
        r.line[strcspn(r.line, "\r\n")] = '\0';
        if (read_range(&r, d)) {
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
