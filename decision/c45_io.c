/* C4.5 data sets: building them in memory and reading .names/.data files
 * with c4.5's lexical rules. Every input error names file:line. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/c45.h"

#define NAME_MAX_LEN 1000

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

static int out_of_memory(void)
{
    fprintf(stderr, "c45: out of memory\n");
    return -1;
}

int c45_data_create(struct c45_data **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : out_of_memory();
}

void c45_data_destroy(struct c45_data *d)
{
    if (!d) {
        return;
    }
    for (int k = 0; k < d->n_classes; k++) {
        free(d->class_names[k]);
    }
    free(d->class_names);
    for (int a = 0; a < d->n_attrs; a++) {
        struct c45_attr *at = &d->attrs[a];
        free(at->name);
        for (int v = 0; v < at->n_values; v++) {
            free(at->value_names[v]);
        }
        free(at->value_names);
    }
    free(d->attrs);
    free(d->values);
    free(d->classes);
    free(d->weights);
    free(d);
}

int c45_data_add_class(struct c45_data *d, const char *name)
{
    char **names =
        realloc(d->class_names, sizeof(char *) * (size_t)(d->n_classes + 1));
    if (!names) {
        return out_of_memory();
    }
    d->class_names = names;
    names[d->n_classes] = dup_string(name);
    if (!names[d->n_classes]) {
        return out_of_memory();
    }
    d->n_classes++;
    return 0;
}

/* Items are fixed-width rows, so attributes come before items. */
static int add_attr(struct c45_data *d, const char *name,
                    enum c45_attr_kind kind, int max_values)
{
    if (d->n_items > 0) {
        fprintf(stderr, "c45: attribute %s added after items\n", name);
        return -1;
    }
    struct c45_attr *attrs =
        realloc(d->attrs, sizeof *attrs * (size_t)(d->n_attrs + 1));
    if (!attrs) {
        return out_of_memory();
    }
    d->attrs = attrs;
    struct c45_attr *at = &attrs[d->n_attrs];
    memset(at, 0, sizeof *at);
    at->kind = kind;
    at->max_values = max_values;
    at->name = dup_string(name);
    if (max_values > 0) {
        at->value_names = calloc((size_t)max_values, sizeof(char *));
    }
    d->n_attrs++;
    if (!at->name || (max_values > 0 && !at->value_names)) {
        return out_of_memory();
    }
    return 0;
}

static int add_value(struct c45_attr *at, const char *name)
{
    if (at->n_values >= at->max_values) {
        return -1;
    }
    at->value_names[at->n_values] = dup_string(name);
    if (!at->value_names[at->n_values]) {
        return out_of_memory();
    }
    at->n_values++;
    return 0;
}

int c45_data_add_discrete(struct c45_data *d, const char *name, int n_values,
                          const char *const *value_names)
{
    if (n_values < 2) {
        fprintf(stderr, "c45: attribute %s needs at least two values\n", name);
        return -1;
    }
    if (add_attr(d, name, C45_DISCRETE, n_values)) {
        return -1;
    }
    for (int v = 0; v < n_values; v++) {
        if (add_value(&d->attrs[d->n_attrs - 1], value_names[v])) {
            return -1;
        }
    }
    return 0;
}

int c45_data_add_continuous(struct c45_data *d, const char *name)
{
    return add_attr(d, name, C45_CONTINUOUS, 0);
}

int c45_data_add_item(struct c45_data *d, const float *values, int class_idx)
{
    if (class_idx < 0 || class_idx >= d->n_classes) {
        fprintf(stderr, "c45: class %d out of range\n", class_idx);
        return -1;
    }
    if (d->n_items == d->cap_items) {
        int cap = d->cap_items ? 2 * d->cap_items : 256;
        size_t width = (size_t)(d->n_attrs > 0 ? d->n_attrs : 1);
        if (cap < d->cap_items ||
            (size_t)cap > SIZE_MAX / sizeof(float) / width) {
            return out_of_memory();
        }
        float *vals = realloc(d->values, sizeof(float) * width * (size_t)cap);
        if (!vals) {
            return out_of_memory();
        }
        d->values = vals;
        int *cls = realloc(d->classes, sizeof(int) * (size_t)cap);
        if (!cls) {
            return out_of_memory();
        }
        d->classes = cls;
        if (d->weights) {
            float *w = realloc(d->weights, sizeof(float) * (size_t)cap);
            if (!w) {
                return out_of_memory();
            }
            d->weights = w;
        }
        d->cap_items = cap;
    }
    memcpy(d->values + (size_t)d->n_items * d->n_attrs, values,
           sizeof(float) * (size_t)d->n_attrs);
    d->classes[d->n_items] = class_idx;
    if (d->weights) {
        d->weights[d->n_items] = 1.0f;
    }
    d->n_items++;
    return 0;
}

int c45_data_add_weighted_item(struct c45_data *d, const float *values,
                               int class_idx, float weight)
{
    if (!(weight > 0)) {
        fprintf(stderr, "c45: case weight %g is not positive\n",
                (double)weight);
        return -1;
    }
    if (c45_data_add_item(d, values, class_idx)) {
        return -1;
    }
    if (!d->weights && weight != 1.0f) {
        d->weights = malloc(sizeof(float) * (size_t)d->cap_items);
        if (!d->weights) {
            d->n_items--;
            return out_of_memory();
        }
        for (int i = 0; i < d->n_items; i++) {
            d->weights[i] = 1.0f;
        }
    }
    if (d->weights) {
        d->weights[d->n_items - 1] = weight;
    }
    return 0;
}

int c45_data_copy_schema(const struct c45_data *d, struct c45_data **out)
{
    struct c45_data *n = NULL;
    *out = NULL;
    if (c45_data_create(&n)) {
        return -1;
    }
    for (int k = 0; k < d->n_classes; k++) {
        if (c45_data_add_class(n, d->class_names[k])) {
            goto fail;
        }
    }
    for (int a = 0; a < d->n_attrs; a++) {
        const struct c45_attr *at = &d->attrs[a];
        if (add_attr(n, at->name, at->kind, at->max_values)) {
            goto fail;
        }
        for (int v = 0; v < at->n_values; v++) {
            if (add_value(&n->attrs[a], at->value_names[v])) {
                goto fail;
            }
        }
    }
    *out = n;
    return 0;
fail:
    c45_data_destroy(n);
    return -1;
}

/* A name ends at ':', ',', newline, '|' (a comment) or a '.' followed by
 * white space; '\' escapes a character; runs of spaces read as one. */
struct reader {
    FILE *f;
    const char *path;
    int line;      /* current line */
    int name_line; /* line on which the last name started */
    int delim;     /* what ended the last name; EOF at end of file */
    char name[NAME_MAX_LEN + 1];
};

static int is_space(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' ||
           ch == '\v';
}

static int next_char(struct reader *r)
{
    int ch = getc(r->f);
    if (ch == '\n') {
        r->line++;
    }
    return ch;
}

static void skip_comment(struct reader *r)
{
    int ch;
    do {
        ch = next_char(r);
    } while (ch != '\n' && ch != EOF);
}

/* Returns 1 with r->name set, 0 at end of file, -1 on a name too long. */
static int read_name(struct reader *r)
{
    int ch;
    while ((ch = next_char(r)) == '|' || is_space(ch)) {
        if (ch == '|') {
            skip_comment(r);
        }
    }
    if (ch == EOF) {
        r->delim = EOF;
        return 0;
    }
    /* A newline ending this name counts towards the next line. */
    r->name_line = r->line;
    size_t n = 0;
    while (ch != ':' && ch != ',' && ch != '\n' && ch != '|' && ch != EOF) {
        if (ch == '.') {
            int next = next_char(r);
            if (next == '|' || next == EOF || is_space(next)) {
                ch = next;
                break;
            }
            if (n < NAME_MAX_LEN) {
                r->name[n++] = '.';
            }
            ch = next;
            continue;
        }
        if (ch == '\\') {
            ch = next_char(r);
            if (ch == EOF) {
                break;
            }
        }
        if (n >= NAME_MAX_LEN) {
            fprintf(stderr, "%s:%d: name longer than %d characters\n", r->path,
                    r->name_line, NAME_MAX_LEN);
            return -1;
        }
        r->name[n++] = (char)ch;
        if (ch == ' ' || ch == '\t') {
            while ((ch = next_char(r)) == ' ' || ch == '\t') {
            }
        } else {
            ch = next_char(r);
        }
    }
    if (ch == '|') {
        skip_comment(r);
    }
    r->delim = ch;
    while (n > 0 && is_space((unsigned char)r->name[n - 1])) {
        n--;
    }
    r->name[n] = '\0';
    return 1;
}

/* The last name ended its line (or the file): a newline, comment, '.'. */
static int ends_line(const struct reader *r)
{
    return r->delim != ',' && r->delim != ':';
}

static int open_reader(struct reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->line = 1;
    r->f = fopen(path, "r");
    if (!r->f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int read_attr_type(struct reader *r, struct c45_data *d,
                          const char *attr_name)
{
    int line = r->line;
    int got = read_name(r);
    if (got <= 0) {
        if (got == 0) {
            fprintf(stderr, "%s:%d: attribute %s: no values\n", r->path, line,
                    attr_name);
        }
        return -1;
    }
    if (ends_line(r) && strcmp(r->name, "continuous") == 0) {
        return c45_data_add_continuous(d, attr_name);
    }
    if (ends_line(r) && strcmp(r->name, "ignore") == 0) {
        return add_attr(d, attr_name, C45_IGNORE, 0);
    }
    if (ends_line(r) && strncmp(r->name, "discrete ", 9) == 0) {
        char *end;
        long n = strtol(r->name + 9, &end, 10);
        if (*end != '\0' || n < 2 || n > 32767) {
            fprintf(stderr, "%s:%d: attribute %s: bad \"%s\"\n", r->path,
                    r->name_line, attr_name, r->name);
            return -1;
        }
        return add_attr(d, attr_name, C45_DISCRETE, (int)n);
    }

    /* A list of values: count them first, then store them. */
    char **names = NULL;
    int n = 0, status = -1, first_line = r->name_line;
    for (;;) {
        char **grown = realloc(names, sizeof(char *) * (size_t)(n + 1));
        if (!grown) {
            out_of_memory();
            goto done;
        }
        names = grown;
        names[n] = dup_string(r->name);
        if (!names[n]) {
            out_of_memory();
            goto done;
        }
        for (int v = 0; v < n; v++) {
            if (strcmp(names[v], names[n]) == 0) {
                fprintf(stderr, "%s:%d: attribute %s: value %s twice\n",
                        r->path, r->name_line, attr_name, names[n]);
                n++;
                goto done;
            }
        }
        n++;
        if (r->delim != ',') {
            break;
        }
        got = read_name(r);
        if (got <= 0) {
            if (got == 0) {
                fprintf(stderr,
                        "%s:%d: attribute %s: value list ends "
                        "with ','\n",
                        r->path, r->line, attr_name);
            }
            goto done;
        }
    }
    if (r->delim == ':') {
        fprintf(stderr, "%s:%d: attribute %s: unexpected ':' after %s\n",
                r->path, r->name_line, attr_name, r->name);
        goto done;
    }
    if (n < 2) {
        fprintf(stderr,
                "%s:%d: attribute %s: a discrete attribute needs "
                "at least two values\n",
                r->path, first_line, attr_name);
        goto done;
    }
    status = c45_data_add_discrete(d, attr_name, n, (const char *const *)names);
done:
    for (int v = 0; v < n; v++) {
        free(names[v]);
    }
    free(names);
    return status;
}

int c45_data_read_names(const char *path, struct c45_data **out)
{
    struct reader r;
    struct c45_data *d = NULL;
    int status = -1;
    *out = NULL;
    if (open_reader(&r, path)) {
        return -1;
    }
    if (c45_data_create(&d)) {
        goto done;
    }
    /* The class list, then one "attribute: type." per attribute. */
    do {
        int got = read_name(&r);
        if (got <= 0) {
            if (got == 0) {
                fprintf(stderr, "%s:%d: expected the list of classes\n", path,
                        r.line);
            }
            goto done;
        }
        if (r.delim == ':') {
            fprintf(stderr,
                    "%s:%d: expected the list of classes, "
                    "found attribute %s\n",
                    path, r.name_line, r.name);
            goto done;
        }
        for (int k = 0; k < d->n_classes; k++) {
            if (strcmp(d->class_names[k], r.name) == 0) {
                fprintf(stderr, "%s:%d: class %s twice\n", path, r.name_line,
                        r.name);
                goto done;
            }
        }
        if (c45_data_add_class(d, r.name)) {
            goto done;
        }
    } while (r.delim == ',');

    for (;;) {
        int got = read_name(&r);
        if (got < 0) {
            goto done;
        }
        if (got == 0) {
            break;
        }
        if (r.delim != ':') {
            fprintf(stderr, "%s:%d: expected ':' after attribute name %s\n",
                    path, r.name_line, r.name);
            goto done;
        }
        char attr_name[NAME_MAX_LEN + 1];
        memcpy(attr_name, r.name, sizeof attr_name);
        for (int a = 0; a < d->n_attrs; a++) {
            if (strcmp(d->attrs[a].name, attr_name) == 0) {
                fprintf(stderr, "%s:%d: attribute %s twice\n", path,
                        r.name_line, attr_name);
                goto done;
            }
        }
        if (read_attr_type(&r, d, attr_name)) {
            goto done;
        }
    }
    if (d->n_attrs == 0) {
        fprintf(stderr, "%s:%d: no attributes\n", path, r.line);
        goto done;
    }
    *out = d;
    d = NULL;
    status = 0;
done:
    fclose(r.f);
    c45_data_destroy(d);
    return status;
}

/* One value of attribute a; discrete "discrete N" attributes learn values
 * as they appear. */
static int parse_value(struct reader *r, struct c45_data *d, int a, float *out)
{
    struct c45_attr *at = &d->attrs[a];
    if (at->kind == C45_IGNORE) {
        *out = 0;
        return 0;
    }
    if (strcmp(r->name, "?") == 0) {
        *out = at->kind == C45_DISCRETE ? C45_UNKNOWN_DISCRETE
                                        : C45_UNKNOWN_CONTINUOUS;
        return 0;
    }
    if (at->kind == C45_CONTINUOUS) {
        char *end;
        errno = 0;
        double v = strtod(r->name, &end);
        if (end == r->name || *end != '\0' || isnan(v)) {
            fprintf(stderr, "%s:%d: attribute %s: '%s' is not a number\n",
                    r->path, r->name_line, at->name, r->name);
            return -1;
        }
        /* Thresholds are floats: an infinity, or a value a float cannot
         * hold, would order nothing. */
        if (!(fabs(v) <= FLT_MAX)) {
            fprintf(stderr,
                    "%s:%d: attribute %s: %s is out of range (at most %g in "
                    "magnitude)\n",
                    r->path, r->name_line, at->name, r->name, (double)FLT_MAX);
            return -1;
        }
        *out = (float)v;
        return 0;
    }
    for (int v = 0; v < at->n_values; v++) {
        if (strcmp(at->value_names[v], r->name) == 0) {
            *out = (float)(v + 1);
            return 0;
        }
    }
    if (at->n_values < at->max_values) {
        /* Only attributes declared "discrete N" have room left. */
        if (add_value(at, r->name)) {
            return -1;
        }
        *out = (float)at->n_values;
        return 0;
    }
    fprintf(stderr, "%s:%d: attribute %s: unknown value '%s'\n", r->path,
            r->name_line, at->name, r->name);
    return -1;
}

int c45_data_read_items(struct c45_data *d, const char *path)
{
    struct reader r;
    int status = -1;
    float *vals = NULL;
    if (open_reader(&r, path)) {
        return -1;
    }
    vals = calloc((size_t)(d->n_attrs > 0 ? d->n_attrs : 1), sizeof(float));
    if (!vals) {
        out_of_memory();
        goto done;
    }
    for (;;) {
        int got = read_name(&r);
        if (got < 0) {
            goto done;
        }
        if (got == 0) {
            break;
        }
        /* A case may continue on the next line after a ','. */
        int line = r.name_line;
        for (int a = 0; a < d->n_attrs; a++) {
            if (a > 0) {
                got = read_name(&r);
                if (got < 0) {
                    goto done;
                }
            }
            if (got == 0 || ends_line(&r)) {
                int found = got == 0 ? a : a + 1;
                fprintf(stderr,
                        "%s:%d: expected %d values and a class, "
                        "found %d field%s\n",
                        path, line, d->n_attrs, found, found == 1 ? "" : "s");
                goto done;
            }
            if (r.delim == ':') {
                fprintf(stderr, "%s:%d: unexpected ':' after '%s'\n", path,
                        r.name_line, r.name);
                goto done;
            }
            if (parse_value(&r, d, a, &vals[a])) {
                goto done;
            }
        }
        got = read_name(&r);
        if (got < 0) {
            goto done;
        }
        if (got == 0) {
            fprintf(stderr,
                    "%s:%d: expected %d values and a class, found "
                    "%d fields\n",
                    path, line, d->n_attrs, d->n_attrs);
            goto done;
        }
        if (!ends_line(&r)) {
            fprintf(stderr,
                    "%s:%d: expected %d values and a class, found "
                    "more fields\n",
                    path, line, d->n_attrs);
            goto done;
        }
        int cls = -1;
        for (int k = 0; k < d->n_classes; k++) {
            if (strcmp(d->class_names[k], r.name) == 0) {
                cls = k;
                break;
            }
        }
        if (cls < 0) {
            fprintf(stderr, "%s:%d: unknown class '%s'\n", path, line, r.name);
            goto done;
        }
        if (c45_data_add_item(d, vals, cls)) {
            goto done;
        }
    }
    status = 0;
done:
    free(vals);
    fclose(r.f);
    return status;
}
