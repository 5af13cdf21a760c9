/* `autotune tree`: c4.5's batch mode (-f -m -c -u -g -s) with its output;
 * the stem prints without its directory so outputs compare across paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "autotune/decision_cli.h"
#include "decision/c45.h"

static const char tree_usage[] =
    "(usage: autotune tree -f STEM [-m M] [-c C] [-u] [-g] [-s], or "
    "autotune tree -r RUN ...)\n";

#define MAX_OPTION_LINES 16

struct tree_args {
    const char *stem;
    struct c45_options opt;
    bool is_unseen;
    char lines[MAX_OPTION_LINES][128]; /* Options: block, in argv order */
    int n_lines;
};

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int parse_number(const char *opt, const char *text, double lo, double hi,
                        double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= lo && v <= hi)) {
        fprintf(stderr,
                "autotune tree: %s: '%s' is not a number in "
                "%.10g..%.10g\n",
                opt, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct tree_args *args)
{
    c45_options_init(&args->opt);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == '\0' || arg[2] != '\0') {
            fprintf(stderr, "autotune tree: unexpected argument '%s' %s", arg,
                    tree_usage);
            return -1;
        }
        char letter = arg[1];
        const char *value = NULL;
        if (strchr("fmc", letter)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "autotune tree: %s needs a value %s", arg,
                        tree_usage);
                return -1;
            }
            value = argv[++i];
        }
        char *line = args->lines[args->n_lines];
        size_t size = sizeof args->lines[0];
        double v;
        switch (letter) {
        case 'f':
            args->stem = value;
            snprintf(line, size, "\tFile stem <%s>\n", base_name(value));
            break;
        case 'm':
            if (parse_number(arg, value, 1, 1000000, &v)) {
                return -1;
            }
            args->opt.min_objs = (int)v;
            snprintf(line, size,
                     "\tSensible test requires 2 branches with >=%d cases\n",
                     args->opt.min_objs);
            break;
        case 'c': {
            if (parse_number(arg, value, 0.001, 100, &v)) {
                return -1;
            }
            /* c4.5 keeps CF as a float, then divides by 100 in float. */
            float cf = (float)v;
            snprintf(line, size, "\tPruning confidence level %g%%\n",
                     (double)cf);
            args->opt.cf = cf / 100;
            break;
        }
        case 'u':
            args->is_unseen = true;
            snprintf(line, size, "\tTrees evaluated on unseen cases\n");
            break;
        case 'g':
            args->opt.use_gain = true;
            snprintf(line, size, "\tGain criterion used\n");
            break;
        case 's':
            args->opt.subsetting = true;
            snprintf(line, size, "\tTests on discrete attribute groups\n");
            break;
        default:
            fprintf(stderr, "autotune tree: unknown option %s %s", arg,
                    tree_usage);
            return -1;
        }
        if (args->n_lines < MAX_OPTION_LINES - 1) {
            args->n_lines++;
        }
    }
    if (!args->stem) {
        fprintf(stderr, "autotune tree: -f STEM is required %s", tree_usage);
        return -1;
    }
    return 0;
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
