/* `autotune tree`: c4.5's batch mode (-f -m -c -u -g -s) with its output;
 * the stem prints without its directory so outputs compare across paths. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "autotune/decision_cli.h"
#include "decision/c45.h"

#define MAX_OPTION_LINES 16

struct tree_args {
    const char *stem;
    struct c45_options opt;
    bool is_unseen;
    char lines[MAX_OPTION_LINES][128]; /* Options: block, in argv order */
    int n_lines;
    double min_objs, cf_pct; /* -m, -c as given */
};

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Each option adds its line to the Options: block, as c4.5 prints it. */
static const char *add_line(struct tree_args *a, const char *line)
{
    snprintf(a->lines[a->n_lines], sizeof a->lines[0], "%s", line);
    if (a->n_lines < MAX_OPTION_LINES - 1) {
        a->n_lines++;
    }
    return NULL;
}

static const char *take_stem(void *args, const char *option, const char *text)
{
    char line[128];
    (void)option;
    snprintf(line, sizeof line, "\tFile stem <%s>\n", base_name(text));
    return add_line(args, line);
}

static const char *take_min_objs(void *args, const char *option,
                                 const char *text)
{
    struct tree_args *a = args;
    char line[128];
    (void)option;
    (void)text;
    a->opt.min_objs = (int)a->min_objs;
    snprintf(line, sizeof line,
             "\tSensible test requires 2 branches with >=%d cases\n",
             a->opt.min_objs);
    return add_line(a, line);
}

static const char *take_confidence(void *args, const char *option,
                                   const char *text)
{
    struct tree_args *a = args;
    char line[128];
    (void)option;
    (void)text;
    /* c4.5 keeps CF as a float, then divides by 100 in float. */
    float cf = (float)a->cf_pct;
    a->opt.cf = cf / 100;
    snprintf(line, sizeof line, "\tPruning confidence level %g%%\n",
             (double)cf);
    return add_line(a, line);
}

static const char *take_flag(void *args, const char *option, const char *text)
{
    (void)text;
    return add_line(args, option[1] == 'u'   ? "\tTrees evaluated on unseen "
                                               "cases\n"
                          : option[1] == 'g' ? "\tGain criterion used\n"
                                             : "\tTests on discrete "
                                               "attribute groups\n");
}

#define TREE_OPTION(name, value, kind, field, min, max, parse, required, help) \
    {                                                                          \
        name, value, kind, offsetof(struct tree_args, field), min, max, NULL,  \
            parse, required, false, help                                       \
    }

static const struct cli_option tree_c45_options[] = {
    TREE_OPTION("-f", "STEM", CLI_TEXT, stem, 0, 0, take_stem, true,
                "read STEM.names, STEM.data (and STEM.test with -u)"),
    TREE_OPTION("-m", "M", CLI_REAL, min_objs, 1, 1000000, take_min_objs, false,
                "least cases in two branches of a test (2)"),
    TREE_OPTION("-c", "C", CLI_REAL, cf_pct, 0.001, 100, take_confidence, false,
                "pruning confidence, percent (25)"),
    TREE_OPTION("-u", NULL, CLI_FLAG, is_unseen, 0, 0, take_flag, false,
                "evaluate on STEM.test too"),
    TREE_OPTION("-g", NULL, CLI_FLAG, opt.use_gain, 0, 0, take_flag, false,
                "the gain criterion, not the gain ratio"),
    TREE_OPTION("-s", NULL, CLI_FLAG, opt.subsetting, 0, 0, take_flag, false,
                "tests on groups of discrete values"),
};

const struct cli_spec tree_c45_cli = {
    "autotune tree",
    NULL,
    "C4.5 as release 8 on STEM.names and STEM.data, printing what c4.5 "
    "prints.\n",
    tree_c45_options,
    CLI_N(tree_c45_options),
    NULL,
    0};

static int parse_args(int argc, char **argv, struct tree_args *args)
{
    c45_options_init(&args->opt);
    return cli_parse(&tree_c45_cli, argc, argv, args, stderr) == CLI_OK ? 0
                                                                        : -1;
}

static char *path_of(const char *stem, const char *ext)
{
    size_t n = strlen(stem) + strlen(ext) + 1;
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s%s", stem, ext);
    } else {
        fprintf(stderr, "autotune tree: out of memory\n");
    }
    return p;
}

/* Misclassified items of d; with matrix, also fills the confusion matrix. */
static int count_errors(const struct c45_tree *t, const struct c45_data *d,
                        int *matrix, int *errors)
{
    *errors = 0;
    for (int i = 0; i < d->n_items; i++) {
        int predicted;
        if (c45_classify(t, d->values + (size_t)i * d->n_attrs, &predicted)) {
            return -1;
        }
        if (predicted != d->classes[i]) {
            (*errors)++;
        }
        if (matrix) {
            matrix[d->classes[i] * d->n_classes + predicted]++;
        }
    }
    return 0;
}

static int evaluate(const char *what, const struct c45_tree *raw,
                    const struct c45_tree *pruned, const struct c45_data *d,
                    int *matrix)
{
    int raw_errors, pruned_errors;
    if (count_errors(raw, d, NULL, &raw_errors) ||
        count_errors(pruned, d, matrix, &pruned_errors)) {
        return -1;
    }
    float estimate = 100 * pruned->root->errors / pruned->root->items;
    c45_print_eval_header(stdout, what, d->n_items);
    c45_print_eval_row(stdout, c45_tree_size(raw), raw_errors,
                       c45_tree_size(pruned), pruned_errors, d->n_items,
                       estimate);
    return 0;
}

int tree_main(int argc, char **argv)
{
    struct tree_args *args = calloc(1, sizeof *args);
    struct c45_data *data = NULL, *test = NULL;
    struct c45_tree *raw = NULL, *pruned = NULL;
    char *names_path = NULL, *data_path = NULL, *test_path = NULL;
    int *matrix = NULL;
    int status = 1;
    if (!args) {
        fprintf(stderr, "autotune tree: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0) {
            free(args);
            return tree_run_main(argc, argv);
        }
    }
    if (parse_args(argc, argv, args)) {
        status = 2; /* a usage error */
        goto done;
    }
    names_path = path_of(args->stem, ".names");
    data_path = path_of(args->stem, ".data");
    test_path = path_of(args->stem, ".test");
    if (!names_path || !data_path || !test_path) {
        goto done;
    }
    /* Read everything before printing, so that bad input prints only the
     * error. */
    if (c45_data_read_names(names_path, &data)) {
        goto done;
    }
    if (c45_data_read_items(data, data_path)) {
        goto done;
    }
    if (data->n_items == 0) {
        fprintf(stderr, "%s: no cases\n", data_path);
        goto done;
    }
    if (args->is_unseen && (c45_data_copy_schema(data, &test) ||
                            c45_data_read_items(test, test_path))) {
        goto done;
    }

    time_t now = time(NULL);
    printf("\nC4.5 [release 8] decision tree generator\t%s", ctime(&now));
    printf("----------------------------------------\n");
    printf("\n    Options:\n");
    for (int i = 0; i < args->n_lines; i++) {
        fputs(args->lines[i], stdout);
    }
    printf("\nRead %d cases (%d attributes) from %s.data\n", data->n_items,
           data->n_attrs, base_name(args->stem));

    bool is_changed;
    if (c45_build(data, &args->opt, &raw)) {
        goto done;
    }
    printf("\nDecision Tree:\n");
    c45_print_tree(stdout, raw, data);
    if (c45_tree_copy(raw, &pruned) ||
        c45_prune(pruned, data, &args->opt, &is_changed)) {
        goto done;
    }
    if (is_changed) {
        printf("\n\nSimplified Decision Tree:\n");
        c45_print_tree(stdout, pruned, data);
    }
    printf("\n\nTree saved\n\n\n");
    if (evaluate("training", raw, pruned, data, NULL)) {
        goto done;
    }
    if (test) {
        matrix = calloc((size_t)data->n_classes * (size_t)data->n_classes,
                        sizeof(int));
        if (!matrix) {
            fprintf(stderr, "autotune tree: out of memory\n");
            goto done;
        }
        printf("\n");
        if (evaluate("test", raw, pruned, test, matrix)) {
            goto done;
        }
        if (data->n_classes <= 21) {
            c45_print_confusion(stdout, data, matrix);
        }
    }
    status = 0;
done:
    fflush(stdout);
    free(matrix);
    c45_tree_destroy(raw);
    c45_tree_destroy(pruned);
    c45_data_destroy(data);
    c45_data_destroy(test);
    free(names_path);
    free(data_path);
    free(test_path);
    free(args);
    return status;
}
