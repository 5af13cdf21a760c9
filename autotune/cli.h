/* One option table per command and one parser for all of them: a command
 * lists its options once (name, value, where it goes, range, help), and
 * parsing, --help and every usage error come from that list, in one format:
 * "autotune CMD: OPTION: 'VALUE' is not ...", exit status 2. */
#ifndef AUTOTUNE_CLI_H
#define AUTOTUNE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What an option's value is and where it goes (target: an offset into the
 * command's own argument struct). */
enum cli_kind {
    CLI_FLAG,   /* bool, set by the option alone */
    CLI_TEXT,   /* const char *, the argument itself (borrowed from argv) */
    CLI_INT,    /* int, a whole number in [min, max] */
    CLI_REAL,   /* double, a number in [min, max] */
    CLI_CHOICE, /* int, the index of the value among choices ("a|b|c") */
    CLI_CUSTOM, /* parse() alone reads it (and a flag's NULL) */
};

/* A custom option's reader: stores what text says into args, or returns
 * why it cannot ("is not a ..."), which the parser prints after the
 * option and the value. With is_list, it is called once per item of a
 * comma-separated value. */
typedef const char *(*cli_parse_fn)(void *args, const char *option,
                                    const char *text);

struct cli_option {
    const char *name;  /* "-r", "--lookahead" */
    const char *value; /* the value's name in usage ("RUN"); NULL: a flag */
    enum cli_kind kind;
    size_t target;       /* offsetof(args struct, field) */
    double min, max;     /* CLI_INT, CLI_REAL */
    const char *choices; /* CLI_CHOICE: "cross|pair|next" */
    cli_parse_fn parse;  /* CLI_CUSTOM; also called after the others */
    bool is_required;
    bool is_list;     /* the value is a comma-separated list (CLI_CUSTOM) */
    const char *help; /* one line for --help */
};

/* A command: how it is started, its options and at most one operand. */
struct cli_spec {
    const char *invocation; /* "autotune compare", "mpirun -np N autotune" */
    const char *also;       /* a second usage line, or NULL */
    const char *summary;    /* what it does: lines for --help */
    const struct cli_option *options;
    int n_options;
    const char *operand; /* the operand's name ("FILE.prof"), or NULL */
    size_t operand_target;
};

#define CLI_N(options) ((int)(sizeof(options) / sizeof((options)[0])))

enum cli_status {
    CLI_OK = 0,
    CLI_USAGE = 2, /* a usage error, said on err */
};

/* Reads argv[1..argc-1] into args by spec's table, in argv order. A usage
 * error is one line on err (none if err is NULL: the ranks that do not
 * speak) naming the command, the option and the value. */
int cli_parse(const struct cli_spec *spec, int argc, char **argv, void *args,
              FILE *err);

/* --help: the usage lines, the summary and one line per option. */
void cli_print_help(const struct cli_spec *spec, FILE *out);

/* The usage line alone ("usage: autotune compare -r RUN [--misses] ..."),
 * wrapped to 80 columns. */
void cli_print_usage(const struct cli_spec *spec, FILE *out);

/* The arguments of a command that reads a config, -c FILE [--fresh], and
 * their options, which the sweep and `model` share. */
struct config_args {
    const char *path;
    bool is_fresh;
};
#define CONFIG_N_OPTIONS 2
extern const struct cli_option config_options[CONFIG_N_OPTIONS];

/* One line of `autotune --help`: the command with its required options
 * and operand, then brief. */
void cli_print_brief(const struct cli_spec *spec, const char *brief, FILE *out);

#endif
