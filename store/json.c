/* A recursive-descent JSON reader (RFC 8259, without \u escapes beyond
 * ASCII): enough to read back the files the exporters write. */
#include "store/json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

struct parser {
    const char *p, *end;
    int line;
    const char *what;
    int failed;
};

static void fail(struct parser *ps, const char *problem)
{
    if (!ps->failed) {
        fprintf(stderr, "%s:%d: %s\n", ps->what, ps->line, problem);
    }
    ps->failed = 1;
}

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && isspace((unsigned char)*ps->p)) {
        if (*ps->p == '\n') {
            ps->line++;
        }
        ps->p++;
    }
}

static struct json *value_create(struct parser *ps, enum json_type type)
{
    struct json *j = calloc(1, sizeof *j);
    if (!j) {
        fail(ps, "out of memory");
        return NULL;
    }
    j->type = type;
    j->line = ps->line;
    return j;
}

static char *parse_string(struct parser *ps)
{
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    if (!s) {
        fail(ps, "out of memory");
        return NULL;
    }
    ps->p++; /* opening quote */
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if ((unsigned char)c < 0x20) {
            fail(ps, "control character in a string");
            break;
        }
        if (c == '\\') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = ps->p < ps->end ? strchr(from, *ps->p) : NULL;
            if (!k || !*k) {
                fail(ps, "unsupported escape in a string");
                break;
            }
            c = to[k - from];
            ps->p++;
        }
        if (n + 2 > cap) {
            char *grown = realloc(s, cap *= 2);
            if (!grown) {
                fail(ps, "out of memory");
                break;
            }
            s = grown;
        }
        s[n++] = c;
    }
    if (!ps->failed && ps->p >= ps->end) {
        fail(ps, "unterminated string");
    }
    if (ps->failed) {
        free(s);
        return NULL;
    }
    ps->p++; /* closing quote */
    s[n] = '\0';
    return s;
}

static int append(struct parser *ps, struct json *j, char *key,
                  struct json *item)
{
    struct json **items = realloc(j->items, (size_t)(j->n + 1) * sizeof *items);
    if (items) {
        j->items = items;
    }
    if (items && j->type == JSON_OBJECT) {
        char **keys = realloc(j->keys, (size_t)(j->n + 1) * sizeof *keys);
        if (keys) {
            j->keys = keys;
        }
        items = keys ? items : NULL;
    }
    if (!items) {
        fail(ps, "out of memory");
        free(key);
        json_destroy(item);
        return -1;
    }
    if (key) {
        j->keys[j->n] = key;
    }
    j->items[j->n++] = item;
    return 0;
}

static struct json *parse_value(struct parser *ps, int depth);

/* Arrays and objects: items separated by commas, no trailing comma. */
static struct json *parse_container(struct parser *ps, int depth)
{
    int is_object = *ps->p == '{';
    char close = is_object ? '}' : ']';
    struct json *j = value_create(ps, is_object ? JSON_OBJECT : JSON_ARRAY);
    if (!j) {
        return NULL;
    }
    ps->p++;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return j;
    }
    while (!ps->failed) {
        char *key = NULL;
        skip_space(ps);
        if (is_object) {
            if (ps->p >= ps->end || *ps->p != '"') {
                fail(ps, "expected a member name in quotes");
                break;
            }
            if (!(key = parse_string(ps))) {
                break;
            }
            if (json_get(j, key)) {
                fail(ps, "member name repeated in an object");
                free(key);
                break;
            }
            skip_space(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                fail(ps, "expected ':' after a member name");
                free(key);
                break;
            }
            ps->p++;
        }
        struct json *item = parse_value(ps, depth + 1);
        if (!item) {
            free(key);
            break;
        }
        if (append(ps, j, key, item) != 0) {
            break;
        }
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return j;
        }
        fail(ps, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    json_destroy(j);
    return NULL;
}

static struct json *parse_number(struct parser *ps)
{
    const char *start = ps->p;
    if (ps->p < ps->end && *ps->p == '-') {
        ps->p++;
    }
    int is_integer = 1;
    while (ps->p < ps->end &&
           (isdigit((unsigned char)*ps->p) || strchr(".eE+-", *ps->p))) {
        is_integer &= isdigit((unsigned char)*ps->p) != 0;
        ps->p++;
    }
    char buf[64];
    size_t len = (size_t)(ps->p - start);
    if (len == 0 || len >= sizeof buf) {
        fail(ps, "malformed number");
        return NULL;
    }
    memcpy(buf, start, len);
    buf[len] = '\0';
    char *stop;
    errno = 0;
    double d = strtod(buf, &stop);
    if (*stop || errno || (buf[0] == '0' && len > 1 && isdigit(buf[1]))) {
        fail(ps, "malformed number");
        return NULL;
    }
    struct json *j = value_create(ps, JSON_NUMBER);
    if (j) {
        j->number = d;
        j->is_integer = is_integer;
        j->integer = j->is_integer ? strtoll(buf, NULL, 10) : (long long)d;
    }
    return j;
}

static struct json *parse_word(struct parser *ps)
{
    static const struct {
        const char *word;
        enum json_type type;
        int boolean;
    } words[] = {{"true", JSON_BOOL, 1},
                 {"false", JSON_BOOL, 0},
                 {"null", JSON_NULL, 0}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t len = strlen(words[i].word);
        if ((size_t)(ps->end - ps->p) >= len &&
            memcmp(ps->p, words[i].word, len) == 0) {
            ps->p += len;
            struct json *j = value_create(ps, words[i].type);
            if (j) {
                j->boolean = words[i].boolean;
            }
            return j;
        }
    }
    fail(ps, "expected a JSON value");
    return NULL;
}

static struct json *parse_value(struct parser *ps, int depth)
{
    skip_space(ps);
    if (depth > JSON_MAX_DEPTH) {
        fail(ps, "nested too deeply");
        return NULL;
    }
    if (ps->p >= ps->end) {
        fail(ps, "unexpected end of file");
        return NULL;
    }
    char c = *ps->p;
    if (c == '{' || c == '[') {
        return parse_container(ps, depth);
    }
    if (c == '"') {
        int line = ps->line;
        char *s = parse_string(ps);
        struct json *j = s ? value_create(ps, JSON_STRING) : NULL;
        if (!j) {
            free(s);
            return NULL;
        }
        j->line = line;
        j->string = s;
        return j;
    }
    if (c == '-' || isdigit((unsigned char)c)) {
        return parse_number(ps);
    }
    return parse_word(ps);
}

int json_parse(const char *text, size_t len, const char *what,
               struct json **out)
{
    struct parser ps = {text, text + len, 1, what, 0};
    *out = parse_value(&ps, 0);
    if (*out) {
        skip_space(&ps);
        if (ps.p != ps.end) {
            fail(&ps, "text after the JSON value");
            json_destroy(*out);
            *out = NULL;
        }
    }
    return *out ? 0 : -1;
}

void json_destroy(struct json *j)
{
    if (!j) {
        return;
    }
    for (int i = 0; i < j->n; i++) {
        if (j->keys) {
            free(j->keys[i]);
        }
        json_destroy(j->items[i]);
    }
    free(j->keys);
    free(j->items);
    free(j->string);
    free(j);
}

const struct json *json_get(const struct json *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT) {
        return NULL;
    }
    for (int i = 0; i < obj->n; i++) {
        if (strcmp(obj->keys[i], key) == 0) {
            return obj->items[i];
        }
    }
    return NULL;
}
