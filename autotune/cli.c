/* The one parser of every command's options (cli.h): each option is found
 * in the command's table, its value checked against the table's kind and
 * range, and stored at its offset in the command's argument struct. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/cli.h"
#include "util/grow.h"

static const struct cli_option *find_option(const struct cli_spec *spec,
                                            const char *name)
{
    for (int i = 0; i < spec->n_options; i++) {
        if (strcmp(spec->options[i].name, name) == 0) {
            return &spec->options[i];
        }
    }
    return NULL;
}

/* A choice's value is one of its choices; a flag, a custom flag (value
 * NULL) take none. */
static bool takes_value(const struct cli_option *o)
{
    return o->value != NULL || o->kind == CLI_CHOICE;
}

/* The index of text among choices ("a|b|c"), or -1. */
static int choice_index(const char *choices, const char *text)
{
    size_t len = strlen(text);
    int index = 0;
    for (const char *c = choices; *c; index++) {
        size_t n = strcspn(c, "|");
        if (n == len && strncmp(c, text, n) == 0) {
            return index;
        }
        c += n + (c[n] == '|');
    }
    return -1;
}

/* Stores text by the option's kind; returns why it cannot, or NULL. */
static const char *store_value(const struct cli_option *o, void *args,
                               const char *text, char *why, size_t why_size)
{
    char *field = (char *)args + o->target;
    char *end;
    errno = 0;
    switch (o->kind) {
    case CLI_FLAG:
        *(bool *)field = true;
        return NULL;
    case CLI_TEXT:
        *(const char **)field = text;
        return NULL;
    case CLI_INT: {
        long v = strtol(text, &end, 10);
        if (end == text || *end || errno || v < o->min || v > o->max) {
            snprintf(why, why_size, "is not a whole number in %.10g..%.10g",
                     o->min, o->max);
            return why;
        }
        *(int *)field = (int)v;
        return NULL;
    }
    case CLI_REAL: {
        double v = strtod(text, &end);
        if (end == text || *end || errno || !(v >= o->min && v <= o->max)) {
            snprintf(why, why_size, "is not a number in %.10g..%.10g", o->min,
                     o->max);
            return why;
        }
        *(double *)field = v;
        return NULL;
    }
    case CLI_CHOICE: {
        int index = choice_index(o->choices, text);
        if (index < 0) {
            snprintf(why, why_size, "is not one of %s", o->choices);
            return why;
        }
        *(int *)field = index;
        return NULL;
    }
    case CLI_CUSTOM:
        return NULL;
    }
    return NULL;
}

/* The copies of list values whose items the commands' arguments borrow:
 * freed at exit, so that a leak checker sees none. */
static char **copies;
static size_t n_copies, copies_cap;

static void free_copies(void)
{
    for (size_t i = 0; i < n_copies; i++) {
        free(copies[i]);
    }
    free(copies);
    copies = NULL;
    n_copies = copies_cap = 0;
}

static char *keep_copy(const char *text)
{
    static bool is_registered;
    char **grown = grow(copies, &copies_cap, n_copies + 1, sizeof *copies, 8);
    if (!grown) {
        return NULL;
    }
    copies = grown;
    if (!is_registered) {
        is_registered = atexit(free_copies) == 0;
    }
    char *copy = strdup(text);
    if (copy) {
        copies[n_copies++] = copy;
    }
    return copy;
}

/* Stores one option's value (text: NULL for a flag); returns why not. */
static const char *take(const struct cli_option *o, void *args,
                        const char *text, char *why, size_t why_size)
{
    const char *problem = store_value(o, args, text, why, why_size);
    if (problem || !o->parse) {
        return problem;
    }
    if (!o->is_list) {
        return o->parse(args, o->name, text);
    }
    /* Items are borrowed from a copy that lives as long as the process,
     * as argv does (kept in copies, freed at exit). */
    char *copy = keep_copy(text);
    if (!copy) {
        return "could not be read (out of memory)";
    }
    for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
        if ((problem = o->parse(args, o->name, item)) != NULL) {
            snprintf(why, why_size, "has '%s', which %s", item, problem);
            return why;
        }
    }
    return NULL;
}

int cli_parse(const struct cli_spec *spec, int argc, char **argv, void *args,
              FILE *err)
{
    bool seen[64] = {false};
    bool has_operand = false;
    char why[160];
    const char *cmd = spec->invocation;
    /* "mpirun -np N autotune model" speaks as "autotune model". */
    const char *word = strstr(cmd, "autotune");
    cmd = word ? word : cmd;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const struct cli_option *o = find_option(spec, arg);
        if (!o) {
            if (spec->operand && arg[0] != '-' && !has_operand) {
                *(const char **)((char *)args + spec->operand_target) = arg;
                has_operand = true;
                continue;
            }
            if (err) {
                fprintf(err, "%s: %s '%s' (%s --help lists them)\n", cmd,
                        arg[0] == '-' ? "unknown option"
                                      : "unexpected argument",
                        arg, cmd);
            }
            return CLI_USAGE;
        }
        const char *text = NULL;
        if (takes_value(o)) {
            if (i + 1 >= argc) {
                if (err) {
                    fprintf(err, "%s: %s needs a value (%s)\n", cmd, arg,
                            o->value ? o->value : o->choices);
                }
                return CLI_USAGE;
            }
            text = argv[++i];
        }
        const char *problem = take(o, args, text, why, sizeof why);
        if (problem) {
            if (err) {
                fprintf(err, "%s: %s: '%s' %s\n", cmd, arg, text ? text : "",
                        problem);
            }
            return CLI_USAGE;
        }
        int index = (int)(o - spec->options);
        if (index < (int)(sizeof seen / sizeof seen[0])) {
            seen[index] = true;
        }
    }
    for (int i = 0; i < spec->n_options; i++) {
        const struct cli_option *o = &spec->options[i];
        if (o->is_required && !seen[i]) {
            if (err) {
                fprintf(err, "%s: %s %s is required\n", cmd, o->name,
                        o->value ? o->value : "");
            }
            return CLI_USAGE;
        }
    }
    if (spec->operand && !has_operand) {
        if (err) {
            fprintf(err, "%s: %s is required\n", cmd, spec->operand);
        }
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* One option as usage shows it: "-r RUN", "[--misses]". */
static void option_text(const struct cli_option *o, char *text, size_t size)
{
    const char *value = o->kind == CLI_CHOICE ? o->choices : o->value;
    snprintf(text, size, "%s%s%s%s%s", o->is_required ? "" : "[", o->name,
             value ? " " : "", value ? value : "", o->is_required ? "" : "]");
}

/* Prints "usage: INVOCATION" and the options, wrapped under the first. */
static void print_usage_line(const char *lead, const struct cli_spec *spec,
                             FILE *out)
{
    int indent = fprintf(out, "%s%s", lead, spec->invocation);
    int column = indent;
    char text[160];
    for (int i = -1; i <= spec->n_options; i++) {
        /* The operand first, then the options in the table's order. */
        if (i == -1 || i == spec->n_options) {
            if (i == spec->n_options || !spec->operand) {
                continue;
            }
            snprintf(text, sizeof text, "%s", spec->operand);
        } else {
            option_text(&spec->options[i], text, sizeof text);
        }
        int len = (int)strlen(text);
        if (column + 1 + len > 79 && column > indent) {
            fprintf(out, "\n%*s", indent, "");
            column = indent;
        }
        column += fprintf(out, " %s", text);
    }
    fputc('\n', out);
}

/* Prints text from column at to 79 columns, continued lines at indent. */
static void print_wrapped(FILE *out, const char *text, int column, int indent)
{
    const char *word = text;
    bool is_first = true;
    fprintf(out, "%*s", indent - column, "");
    column = indent;
    while (*word) {
        int len = (int)strcspn(word, " ");
        if (!is_first && column + 1 + len > 79) {
            fprintf(out, "\n%*s", indent, "");
            column = indent;
            is_first = true;
        }
        column += fprintf(out, "%s%.*s", is_first ? "" : " ", len, word);
        is_first = false;
        word += len;
        word += strspn(word, " ");
    }
    fputc('\n', out);
}

void cli_print_usage(const struct cli_spec *spec, FILE *out)
{
    print_usage_line("usage: ", spec, out);
}

void cli_print_help(const struct cli_spec *spec, FILE *out)
{
    print_usage_line("usage: ", spec, out);
    if (spec->also) {
        fprintf(out, "       %s\n", spec->also);
    }
    fputs(spec->summary, out);
    if (spec->n_options > 0) {
        fprintf(out, "options:\n");
    }
    for (int i = 0; i < spec->n_options; i++) {
        const struct cli_option *o = &spec->options[i];
        char text[160];
        const char *value = o->kind == CLI_CHOICE ? o->choices : o->value;
        snprintf(text, sizeof text, "%s%s%s", o->name, value ? " " : "",
                 value ? value : "");
        int column = fprintf(out, "  %s", text);
        if (column > 24) {
            fprintf(out, "\n");
            column = 0;
        }
        print_wrapped(out, o->help, column, 25);
    }
}

void cli_print_brief(const struct cli_spec *spec, const char *brief, FILE *out)
{
    char line[160];
    int n = snprintf(line, sizeof line, "  %s", spec->invocation);
    bool has_optional = false;
    for (int i = -1; i < spec->n_options && n < (int)sizeof line; i++) {
        if (i == -1) {
            if (spec->operand) {
                n += snprintf(line + n, sizeof line - (size_t)n, " %s",
                              spec->operand);
            }
            continue;
        }
        const struct cli_option *o = &spec->options[i];
        if (!o->is_required) {
            has_optional = true;
            continue;
        }
        n += snprintf(line + n, sizeof line - (size_t)n, " %s%s%s", o->name,
                      o->value ? " " : "", o->value ? o->value : "");
    }
    if (has_optional && n < (int)sizeof line) {
        snprintf(line + n, sizeof line - (size_t)n, " [options]");
    }
    if (strlen(line) > 48) {
        fprintf(out, "%s\n  %-47s %s\n", line, "", brief);
    } else {
        fprintf(out, "%-49s %s\n", line, brief);
    }
}

const struct cli_option config_options[CONFIG_N_OPTIONS] = {
    {"-c", "tune.cfg", CLI_TEXT, offsetof(struct config_args, path), 0, 0, NULL,
     NULL, true, false, "the config (docs/usage.md: Configuration)"},
    {"--fresh", NULL, CLI_FLAG, offsetof(struct config_args, is_fresh), 0, 0,
     NULL, NULL, false, false,
     "start over: the previous run's files move to RUN/old/N/"},
};
