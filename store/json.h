/* A small JSON reader for checking the exported files: a tree of values
 * that keeps object members in file order and the line of each value.
 * Private to store/. */
#ifndef STORE_JSON_H
#define STORE_JSON_H

#include <stddef.h>

enum json_type {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
};

struct json {
    enum json_type type;
    int line;       /* line where the value starts, from 1 */
    int boolean;    /* JSON_BOOL */
    int is_integer; /* JSON_NUMBER written without fraction or exponent */
    long long integer;
    double number;
    char *string;        /* JSON_STRING */
    int n;               /* JSON_ARRAY items, JSON_OBJECT members */
    char **keys;         /* JSON_OBJECT member names, in file order */
    struct json **items; /* array items or member values */
};

/* Parses text; on failure prints "what:LINE: problem" once and returns -1.
 * *out is caller-frees with json_destroy. */
int json_parse(const char *text, size_t len, const char *what,
               struct json **out);
void json_destroy(struct json *j);
/* The member named key of an object, or NULL (borrowed). */
const struct json *json_get(const struct json *obj, const char *key);

#endif
