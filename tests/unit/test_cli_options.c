/* The one option parser (autotune/cli.c): values land at their offsets,
 * ranges and choices are checked, lists reach the reader item by item, and
 * every usage error is one line in one format, status 2. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "autotune/cli.h"

struct args {
    const char *run, *file;
    bool is_verbose;
    int depth, leaf;
    double near;
    int n_items;
    char items[4][16];
};

static const char *take_item(void *args, const char *option, const char *text)
{
    struct args *a = args;
    (void)option;
    if (strcmp(text, "bad") == 0) {
        return "is not an item";
    }
    snprintf(a->items[a->n_items++ % 4], sizeof a->items[0], "%s", text);
    return NULL;
}

static const struct cli_option options[] = {
    {"-r", "RUN", CLI_TEXT, offsetof(struct args, run), 0, 0, NULL, NULL, true,
     false, "the run"},
    {"--verbose", NULL, CLI_FLAG, offsetof(struct args, is_verbose), 0, 0, NULL,
     NULL, false, false, "say more"},
    {"--depth", "N", CLI_INT, offsetof(struct args, depth), 0, 30, NULL, NULL,
     false, false, "levels"},
    {"--leaf", NULL, CLI_CHOICE, offsetof(struct args, leaf), 0, 0,
     "penalty|majority", NULL, false, false, "leaves"},
    {"--near", "PCT", CLI_REAL, offsetof(struct args, near), 0, 100, NULL, NULL,
     false, false, "near"},
    {"--items", "a,b", CLI_CUSTOM, 0, 0, 0, NULL, take_item, false, true,
     "items"},
};

static const struct cli_spec spec = {"autotune demo",
                                     NULL,
                                     "A demo.\n",
                                     options,
                                     CLI_N(options),
                                     "FILE",
                                     offsetof(struct args, file)};

/* Parses the words of line (space-separated) into *a; the error line, if
 * any, into err_line. */
static int parse(const char *line, struct args *a, char *err_line, size_t size)
{
    static char words[256], name[] = "demo";
    char *argv[16] = {name};
    int argc = 1;
    snprintf(words, sizeof words, "%s", line);
    for (char *w = strtok(words, " "); w && argc < 16; w = strtok(NULL, " ")) {
        argv[argc++] = w;
    }
    *a = (struct args){.depth = -1, .leaf = -1};
    FILE *err = tmpfile();
    int rc = cli_parse(&spec, argc, argv, a, err);
    rewind(err);
    err_line[0] = '\0';
    if (!fgets(err_line, (int)size, err)) {
        err_line[0] = '\0';
    }
    char extra[64];
    CHECK(fgets(extra, sizeof extra, err) == NULL); /* one line at most */
    fclose(err);
    return rc;
}

int main(void)
{
    struct args a;
    char err[256];

    CHECK_INT(CLI_OK, parse("f.prof -r R --depth 3 --leaf majority --near "
                            "2.5 --verbose --items x,y",
                            &a, err, sizeof err));
    CHECK_STR("", err);
    CHECK_STR("R", a.run);
    CHECK_STR("f.prof", a.file);
    CHECK_INT(3, a.depth);
    CHECK_INT(1, a.leaf);
    CHECK(a.near == 2.5);
    CHECK(a.is_verbose);
    CHECK_INT(2, a.n_items);
    CHECK_STR("y", a.items[1]);

    /* The last of a repeated option wins, as before the table. */
    CHECK_INT(CLI_OK, parse("F -r A -r B", &a, err, sizeof err));
    CHECK_STR("B", a.run);

    struct {
        const char *line, *error;
    } bad[] = {
        {"F", "autotune demo: -r RUN is required\n"},
        {"-r R", "autotune demo: FILE is required\n"},
        {"F -r R --bogus", "autotune demo: unknown option '--bogus' (autotune "
                           "demo --help lists them)\n"},
        {"F G -r R", "autotune demo: unexpected argument 'G' (autotune demo "
                     "--help lists them)\n"},
        {"F -r", "autotune demo: -r needs a value (RUN)\n"},
        {"F -r R --leaf", "autotune demo: --leaf needs a value "
                          "(penalty|majority)\n"},
        {"F -r R --depth 31", "autotune demo: --depth: '31' is not a whole "
                              "number in 0..30\n"},
        {"F -r R --depth 2.5", "autotune demo: --depth: '2.5' is not a whole "
                               "number in 0..30\n"},
        {"F -r R --near x", "autotune demo: --near: 'x' is not a number in "
                            "0..100\n"},
        {"F -r R --near nan", "autotune demo: --near: 'nan' is not a number "
                              "in 0..100\n"},
        {"F -r R --leaf best", "autotune demo: --leaf: 'best' is not one of "
                               "penalty|majority\n"},
        {"F -r R --items x,bad", "autotune demo: --items: 'x,bad' has 'bad', "
                                 "which is not an item\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(CLI_USAGE, parse(bad[i].line, &a, err, sizeof err));
        CHECK_STR(bad[i].error, err);
    }

    /* Quiet ranks say nothing, and get the same status. */
    char name[] = "demo", bogus[] = "--bogus";
    char *argv[] = {name, bogus};
    CHECK_INT(CLI_USAGE, cli_parse(&spec, 2, argv, &a, NULL));

    /* --help names every option, and usage wraps within 80 columns. */
    FILE *out = tmpfile();
    cli_print_help(&spec, out);
    rewind(out);
    char line[256], text[4096] = "";
    while (fgets(line, sizeof line, out)) {
        CHECK(strlen(line) <= 81);
        strncat(text, line, sizeof text - strlen(text) - 1);
    }
    fclose(out);
    CHECK(strncmp(text, "usage: autotune demo FILE -r RUN [--verbose]", 44) ==
          0);
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        CHECK(strstr(text, options[i].name) != NULL);
    }
    return check_exit();
}
