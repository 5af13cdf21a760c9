/* The profile's text form: the header line PROFILE_HEADER, "ranks N",
 * then one line per point "collective procs per_node msg_bytes calls
 * seconds", each optionally followed by its "arrival calls_sampled
 * spread_median_us spread_p90_us shape" line and that by up to
 * PROFILE_VECTORS_MAX "offsets o_0 ... o_procs-1" lines (a sampled call's
 * offsets in us, listed from the root) and a "next collective msg_bytes
 * gap_us" line (the call that most often followed, and the mean time
 * before it); '#' starts a comment line. A
 * point appears once. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "store/profile.h"
#include "util/grow.h"

static const char *const shape_names[PROFILE_N_SHAPES] = {
    "together", "root_last", "root_first", "one_late", "uniform", "mixed"};

const char *profile_shape_name(enum profile_shape shape)
{
    return shape_names[shape];
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The rules, in this order (docs/usage.md, Application profiles), S the
 * spread: the first half is offsets below S/2, the second above it. */
enum profile_shape profile_shape_of(const double *offset_us, int n, int root)
{
    double spread = 0, second = 0, gap = 0;
    double *sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
    enum profile_shape shape = PROFILE_MIXED;
    for (int i = 0; i < n; i++) {
        spread = offset_us[i] > spread ? offset_us[i] : spread;
    }
    if (n < 2 || spread < PROFILE_TOGETHER_US) {
        free(sorted);
        return PROFILE_TOGETHER;
    }
    if (!sorted) {
        return PROFILE_MIXED;
    }
    memcpy(sorted, offset_us, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_double);
    second = sorted[n - 2]; /* the second last arrival */
    for (int i = 1; i < n; i++) {
        gap = sorted[i] - sorted[i - 1] > gap ? sorted[i] - sorted[i - 1] : gap;
    }
    bool is_rooted = root >= 0 && root < n;
    if (is_rooted && offset_us[root] == spread && second < spread / 2) {
        shape = PROFILE_ROOT_LAST;
    } else if (is_rooted && offset_us[root] == sorted[0] &&
               sorted[1] > spread / 2) {
        shape = PROFILE_ROOT_FIRST;
    } else if (second < spread / 2) {
        shape = PROFILE_ONE_LATE;
    } else if (gap <= spread / 2) {
        shape = PROFILE_UNIFORM;
    }
    free(sorted);
    return shape;
}

void profile_clear(struct profile *p)
{
    for (int i = 0; i < p->n_points; i++) {
        free(p->points[i].vectors_us);
    }
    free(p->points);
    p->points = NULL;
    p->n_points = 0;
}

void profile_destroy(struct profile *p)
{
    if (p) {
        profile_clear(p);
        free(p);
    }
}

/* Points by (collective, procs, per_node, msg_bytes), then by line. */
static int compare_place(const void *a, const void *b)
{
    const struct profile_point *x = *(const struct profile_point *const *)a;
    const struct profile_point *y = *(const struct profile_point *const *)b;
    int c = strcmp(x->collective, y->collective);
    if (c != 0) {
        return c;
    }
    if (x->procs != y->procs) {
        return x->procs < y->procs ? -1 : 1;
    }
    if (x->per_node != y->per_node) {
        return x->per_node < y->per_node ? -1 : 1;
    }
    if (x->msg_bytes != y->msg_bytes) {
        return x->msg_bytes < y->msg_bytes ? -1 : 1;
    }
    return (x->line > y->line) - (x->line < y->line);
}

/* The first line that lists a point again, 0 if none, -1 out of memory:
 * sorted by point and line, a repeat follows its first listing. */
static int first_repeat(const struct profile *p)
{
    size_t n = (size_t)p->n_points;
    const struct profile_point **by = malloc((n + 1) * sizeof *by);
    int first = 0;
    if (!by) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        by[i] = &p->points[i];
    }
    qsort(by, n, sizeof *by, compare_place);
    for (size_t i = 1; i < n; i++) {
        bool is_repeat =
            strcmp(by[i]->collective, by[i - 1]->collective) == 0 &&
            by[i]->procs == by[i - 1]->procs &&
            by[i]->per_node == by[i - 1]->per_node &&
            by[i]->msg_bytes == by[i - 1]->msg_bytes;
        if (is_repeat && (first == 0 || by[i]->line < first)) {
            first = by[i]->line;
        }
    }
    free(by);
    return first;
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

/* An arrival line (after "arrival") into *a; a message in err. */
static int parse_arrival(const char *text, struct profile_arrival *a,
                         const char **err)
{
    char shape[16], tail;
    long long sampled;
    double median, p90;
    int n = sscanf(text, "%lld %lf %lf %15s %c", &sampled, &median, &p90, shape,
                   &tail);
    if (n != 4) {
        *err = "expected 'arrival calls_sampled spread_median_us "
               "spread_p90_us shape'";
    } else if (sampled < 1 || sampled > LONG_MAX) {
        *err = "calls_sampled is not a count >= 1";
    } else if (!isfinite(median) || median < 0) {
        *err = "spread_median_us is not a time >= 0";
    } else if (!isfinite(p90) || p90 < median) {
        *err = "spread_p90_us is not a time >= spread_median_us";
    } else {
        for (int k = 0; k < PROFILE_N_SHAPES; k++) {
            if (strcmp(shape, shape_names[k]) == 0) {
                *a = (struct profile_arrival){.sampled = (long)sampled,
                                              .spread_median_us = median,
                                              .spread_p90_us = p90,
                                              .shape = (enum profile_shape)k};
                return 0;
            }
        }
        *err = "the shape is not together, root_last, root_first, "
               "one_late, uniform or mixed";
    }
    return -1;
}

/* An offsets line (after "offsets") appended to pt's vectors; a message
 * in err. */
static int parse_offsets(const char *text, struct profile_point *pt,
                         const char **err)
{
    if (pt->n_vectors >= PROFILE_VECTORS_MAX) {
        *err = "more offsets lines than a point keeps (16)";
        return -1;
    }
    if (pt->procs > PROFILE_VECTOR_PROCS_MAX) {
        *err = "offsets on more than 128 ranks";
        return -1;
    }
    double *grown =
        realloc(pt->vectors_us, (size_t)(pt->n_vectors + 1) *
                                    (size_t)pt->procs * sizeof *grown);
    if (!grown) {
        *err = "out of memory";
        return -1;
    }
    pt->vectors_us = grown;
    double *v = &grown[(size_t)pt->n_vectors * (size_t)pt->procs];
    const char *c = text;
    for (int i = 0; i < pt->procs; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(c, &end);
        if (end == c || errno != 0 || !isfinite(v[i]) || v[i] < 0) {
            *err = "expected 'offsets' and one time >= 0 (us) per rank";
            return -1;
        }
        c = end;
    }
    if (c[strspn(c, " \t")] != '\0') {
        *err = "more offsets than the point's procs";
        return -1;
    }
    pt->n_vectors++;
    return 0;
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
    char line[2048];
    int line_no = 0, rc = -1, repeat = 0, follows = 0;
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
        if (strncmp(s, "arrival", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
            struct profile_point *last =
                p->n_points ? &p->points[p->n_points - 1] : NULL;
            if (!last || last->line != line_no - 1) {
                err = "an arrival line follows its point's line";
                goto bad;
            }
            if (parse_arrival(s + 8, &last->arrival, &err) != 0) {
                goto bad;
            }
            follows = line_no;
            continue;
        }
        if (strncmp(s, "next", 4) == 0 && (s[4] == ' ' || s[4] == '\t')) {
            /* after its point's arrival line or an offsets line */
            struct profile_point *last = &p->points[p->n_points - 1];
            char name[STORE_NAME_MAX + 1], tail;
            long long msg;
            double gap;
            if (follows != line_no - 1) {
                err = "a next line follows its point's arrival or offsets "
                      "lines";
                goto bad;
            }
            if (sscanf(s + 5, "%32s %lld %lf %c", name, &msg, &gap, &tail) !=
                    3 ||
                strspn(name, "abcdefghijklmnopqrstuvwxyz_") != strlen(name) ||
                strlen(name) >= sizeof last->next_collective || msg < 0 ||
                msg > LONG_MAX || !isfinite(gap)) {
                err = "expected 'next collective msg_bytes gap_us'";
                goto bad;
            }
            snprintf(last->next_collective, sizeof last->next_collective, "%s",
                     name);
            last->next_msg_bytes = (long)msg;
            last->next_gap_us = gap;
            follows = 0; /* nothing follows it */
            continue;
        }
        if (strncmp(s, "offsets", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
            /* after its point's arrival line or another offsets line */
            if (follows != line_no - 1) {
                err = "an offsets line follows its point's arrival line";
                goto bad;
            }
            if (parse_offsets(s + 8, &p->points[p->n_points - 1], &err) != 0) {
                goto bad;
            }
            follows = line_no;
            continue;
        }
        struct profile_point pt;
        if (parse_point(s, &pt, &err) != 0) {
            goto bad;
        }
        pt.line = line_no;
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
    /* Repeats are looked for once all points are read (sorted: a quadratic
     * search took minutes on large profiles), and said first when an
     * earlier line than the bad one repeats a point. */
    repeat = first_repeat(p);
    if (repeat != 0) {
        goto bad;
    }
    *out = p;
    p = NULL;
    rc = 0;
    goto done;
bad:
    if (repeat == 0 && p) {
        repeat = first_repeat(p);
    }
    if (repeat < 0) {
        fprintf(stderr, "%s: out of memory\n", path);
    } else if (repeat > 0) {
        fprintf(stderr, "%s:%d: this point is already listed\n", path, repeat);
    } else {
        fprintf(stderr, "%s:%d: %s\n", path, line_no, err);
    }
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
    fprintf(f, "# collective procs per_node msg_bytes calls seconds; then "
               "arrival calls_sampled spread_median_us spread_p90_us shape; "
               "offsets of sampled calls (us, from the root); next "
               "collective msg_bytes gap_us\n");
    for (int i = 0; i < p->n_points; i++) {
        const struct profile_point *pt = &p->points[i];
        fprintf(f, "%s %d %d %ld %ld %.9g\n", pt->collective, pt->procs,
                pt->per_node, pt->msg_bytes, pt->calls, pt->seconds);
        if (pt->arrival.sampled > 0) {
            fprintf(f, "arrival %ld %.3f %.3f %s\n", pt->arrival.sampled,
                    pt->arrival.spread_median_us, pt->arrival.spread_p90_us,
                    shape_names[pt->arrival.shape]);
            for (int k = 0; k < pt->n_vectors; k++) {
                fputs("offsets", f);
                for (int r = 0; r < pt->procs; r++) {
                    fprintf(f, " %.3f", pt->vectors_us[k * pt->procs + r]);
                }
                fputc('\n', f);
            }
            if (pt->next_collective[0]) {
                fprintf(f, "next %s %ld %.3f\n", pt->next_collective,
                        pt->next_msg_bytes, pt->next_gap_us);
            }
        }
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
