/* The profile's text form: the header line PROFILE_HEADER, "ranks N",
 * then one line per point "collective procs per_node msg_bytes calls
 * seconds"; '#' starts a comment line. A point appears once. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/profile.h"
#include "util/grow.h"

void profile_destroy(struct profile *p)
{
    if (p) {
        free(p->points);
        free(p);
    }
}

static int same_point(const struct profile_point *a,
                      const struct profile_point *b)
{
    return strcmp(a->collective, b->collective) == 0 && a->procs == b->procs &&
           a->per_node == b->per_node && a->msg_bytes == b->msg_bytes;
}

/* One point line into *pt; a message naming what is wrong in err. */
static int parse_point(char *line, struct profile_point *pt, const char **err)
{
    char name[STORE_NAME_MAX + 1], tail;
    long long procs, per_node, msg, calls;
    double seconds;
    int n = sscanf(line, "%32s %lld %lld %lld %lld %lf %c", name, &procs,
                   &per_node, &msg, &calls, &seconds, &tail);
    if (n != 6) {
        *err = "expected 'collective procs per_node msg_bytes calls seconds'";
        return -1;
    }
    for (const char *c = name; *c; c++) {
        if (!islower((unsigned char)*c) && *c != '_') {
            *err = "the collective is not a name (a-z, _)";
            return -1;
        }
    }
    if (strlen(name) >= sizeof pt->collective) {
        *err = "the collective's name is too long";
    } else if (procs < 1 || procs > INT_MAX) {
        *err = "procs is not a number of processes >= 1";
    } else if (per_node < 1 || per_node > procs) {
        *err = "per_node is not in 1..procs";
    } else if (msg < 0 || msg > LONG_MAX) {
        *err = "msg_bytes is not a size in bytes";
    } else if (calls < 0 || calls > LONG_MAX) {
        *err = "calls is not a count >= 0";
    } else if (!isfinite(seconds) || seconds < 0) {
        *err = "seconds is not a time >= 0";
    } else {
        *pt = (struct profile_point){.procs = (int)procs,
                                     .per_node = (int)per_node,
                                     .msg_bytes = (long)msg,
                                     .calls = (long)calls,
                                     .seconds = seconds};
        snprintf(pt->collective, sizeof pt->collective, "%s", name);
        return 0;
    }
    return -1;
}

static int add_point(struct profile *p, size_t *cap,
                     const struct profile_point *pt)
{
    struct profile_point *grown =
        grow(p->points, cap, (size_t)p->n_points + 1, sizeof *grown, 64);
    if (!grown) {
        return -1;
    }
    p->points = grown;
    p->points[p->n_points++] = *pt;
    return 0;
}

int profile_load(const char *path, struct profile **out)
{
    FILE *f = fopen(path, "r");
    struct profile *p = calloc(1, sizeof *p);
    char line[512];
    int line_no = 0, rc = -1;
    size_t cap = 0;
    const char *err = NULL;
    *out = NULL;
    if (!f || !p) {
        fprintf(stderr, "%s: %s\n", path,
                f ? "out of memory" : strerror(errno));
        goto done;
    }
    while (fgets(line, sizeof line, f)) {
        line_no++;
        if (!strchr(line, '\n') && !feof(f)) {
            err = "line too long";
            goto bad;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (line_no == 1) {
            if (strcmp(line, PROFILE_HEADER) != 0) {
                err = "not a profile (the first line is not '" PROFILE_HEADER
                      "')";
                goto bad;
            }
            continue;
        }
        char *s = line + strspn(line, " \t");
        if (*s == '#' || *s == '\0') {
            continue;
        }
        if (p->n_ranks == 0) {
            char tail;
            if (sscanf(s, "ranks %d %c", &p->n_ranks, &tail) != 1 ||
                p->n_ranks < 1) {
                err = "expected 'ranks N' (N >= 1) after the header";
                goto bad;
            }
            continue;
        }
        struct profile_point pt;
        if (parse_point(s, &pt, &err) != 0) {
            goto bad;
        }
        pt.line = line_no;
        for (int i = 0; i < p->n_points; i++) {
            if (same_point(&p->points[i], &pt)) {
                err = "this point is already listed";
                goto bad;
            }
        }
        if (add_point(p, &cap, &pt) != 0) {
            fprintf(stderr, "%s: out of memory\n", path);
            goto done;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: read error\n", path);
        goto done;
    }
    if (line_no == 0 || p->n_ranks == 0) {
        fprintf(stderr, "%s:%d: %s\n", path, line_no + 1,
                line_no == 0 ? "empty; expected '" PROFILE_HEADER "'"
                             : "expected 'ranks N' after the header");
        goto done;
    }
    *out = p;
    p = NULL;
    rc = 0;
    goto done;
bad:
    fprintf(stderr, "%s:%d: %s\n", path, line_no, err);
done:
    if (f) {
        fclose(f);
    }
    profile_destroy(p);
    return rc;
}

int profile_write(FILE *f, const struct profile *p)
{
    fprintf(f, PROFILE_HEADER "\nranks %d\n", p->n_ranks);
    fprintf(f, "# collective procs per_node msg_bytes calls seconds\n");
    for (int i = 0; i < p->n_points; i++) {
        const struct profile_point *pt = &p->points[i];
        fprintf(f, "%s %d %d %ld %ld %.9g\n", pt->collective, pt->procs,
                pt->per_node, pt->msg_bytes, pt->calls, pt->seconds);
    }
    return ferror(f) ? -1 : 0;
}

static int compare_cost(const void *a, const void *b)
{
    const struct profile_point *x = a, *y = b;
    int c;
    if (x->seconds != y->seconds) {
        return x->seconds < y->seconds ? 1 : -1;
    }
    if (x->calls != y->calls) {
        return x->calls < y->calls ? 1 : -1;
    }
    if ((c = strcmp(x->collective, y->collective)) != 0) {
        return c;
    }
    if (x->procs != y->procs) {
        return x->procs < y->procs ? -1 : 1;
    }
    if (x->msg_bytes != y->msg_bytes) {
        return x->msg_bytes < y->msg_bytes ? -1 : 1;
    }
    return (x->per_node > y->per_node) - (x->per_node < y->per_node);
}

void profile_sort_by_cost(struct profile *p)
{
    if (p->n_points > 1) {
        qsort(p->points, (size_t)p->n_points, sizeof *p->points, compare_cost);
    }
}

double profile_total_seconds(const struct profile *p)
{
    double total = 0;
    for (int i = 0; i < p->n_points; i++) {
        total += p->points[i].seconds;
    }
    return total;
}
