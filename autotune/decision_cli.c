/* `autotune tree -r RUN` and `autotune quadtree -r RUN`: decision functions
 * built from a run's optimal table and scored by their penalty against the
 * run's measurements ([Pjesivac-Grbovic 2006], eq. 6), on the grid and on
 * held-out points. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/decision_cli.h"
#include "decision/decision.h"
#include "store/rundir.h"

#define MAX_COLLS 16
/* The defaults of tree -r and quadtree: the settings of the least held-out
 * penalty (every other message size) on the committed dense runs
 * (tests/bench/between.sh tune, results/bench/between-tune.csv). */
#define TREE_RUN_MIN_OBJS 1
/* tree -r's leaf budget (issue 36: at most 25 leaves; make bench-corrected
 * measured no held-out mean worse than C4.5's pruning at this budget) */
#define TREE_RUN_MAX_LEAVES 25
/* tree -r's case weights: 1 + the penalty at stake / 5 % (make
 * bench-corrected: held-out max and mean lower on most families) */
#define TREE_RUN_STAKE_PCT 5.0
#define QUADTREE_DEPTH 4

/* What both commands accept; each reads the fields it needs. */
struct run_args {
    const char *cmd;
    const char *run;
    const char *model_path; /* --model; NULL: RUN/model.csv, if there */
    const char *stem;
    const char *colls[MAX_COLLS];
    int n_colls;
    bool emit_names, emit_c, emit_c_table, emit_c_tree;
    bool is_exact;  /* tree -r --exact: the exact table, not C4.5 */
    bool is_misses; /* --misses: every point off its optimum, on stderr */
    double confidence_pct; /* -c, as given */
    int leaf, between;     /* --leaf, --between: the choice's index */
    int weights, leaf_cut; /* --weights, --leaf-cut: the choice's index */
    struct train_options train;
};

/* ---- arguments ---- */

static const char *take_collective(void *args, const char *option,
                                   const char *name)
{
    struct run_args *a = args;
    (void)option;
    if (a->n_colls == MAX_COLLS) {
        return "is one collective too many";
    }
    a->colls[a->n_colls++] = name;
    return NULL;
}

static const char *take_emit(void *args, const char *option, const char *what)
{
    struct run_args *a = args;
    (void)option;
    bool *flag = strcmp(what, "names") == 0     ? &a->emit_names
                 : strcmp(what, "c") == 0       ? &a->emit_c
                 : strcmp(what, "c-table") == 0 ? &a->emit_c_table
                 : strcmp(what, "c-tree") == 0  ? &a->emit_c_tree
                                                : NULL;
    if (!flag) {
        return "is not an output (valid: names, c, c-table, c-tree)";
    }
    *flag = true;
    return NULL;
}

static const char *take_holdout(void *args, const char *option,
                                const char *text)
{
    struct train_options *t = &((struct run_args *)args)->train;
    char *end;
    long k = strtol(text, &end, 10);
    (void)option;
    if (strcmp(text, "sizes") == 0 || strcmp(text, "procs") == 0) {
        t->holdout_axis = text[0] == 's' ? HOLDOUT_SIZES : HOLDOUT_PROCS;
        t->holdout_folds = 2;
        return NULL;
    }
    if (end == text || *end != '\0' || k < 2 || k > 1000) {
        return "is neither 'sizes', 'procs' nor a number of folds in 2..1000";
    }
    t->holdout_folds = (int)k;
    return NULL;
}

/* -c: a percentage; c4.5 keeps it as a float, then divides by 100. */
static const char *take_confidence(void *args, const char *option,
                                   const char *text)
{
    struct run_args *a = args;
    (void)option;
    (void)text;
    a->train.c45.cf = (float)a->confidence_pct / 100;
    return NULL;
}

static const char *take_leaf(void *args, const char *option, const char *text)
{
    struct run_args *a = args;
    (void)option;
    (void)text;
    a->train.is_majority = a->leaf == 1;
    return NULL;
}

static const char *take_weights(void *args, const char *option,
                                const char *text)
{
    struct run_args *a = args;
    (void)option;
    (void)text;
    a->train.stake_pct = a->weights == 0 ? TREE_RUN_STAKE_PCT : 0;
    return NULL;
}

static const char *take_leaf_cut(void *args, const char *option,
                                 const char *text)
{
    struct run_args *a = args;
    (void)option;
    (void)text;
    a->train.is_worst_first = a->leaf_cut == 1;
    return NULL;
}

static const char *take_between(void *args, const char *option,
                                const char *text)
{
    struct run_args *a = args;
    (void)option;
    (void)text;
    a->train.is_pair_only = a->between == 1;
    a->train.is_next_size = a->between == 2;
    return NULL;
}

/* The options tree -r and quadtree share, then each one's own. */
#define RUN_ARGS_OPTION(name, value, kind, field, min, max, choices, parse,    \
                        help)                                                  \
    {                                                                          \
        name, value, kind, offsetof(struct run_args, field), min, max,         \
            choices, parse, false, false, help                                 \
    }
#define SHARED_OPTIONS                                                         \
    {"-r",                                                                     \
     "RUN",                                                                    \
     CLI_TEXT,                                                                 \
     offsetof(struct run_args, run),                                           \
     0,                                                                        \
     0,                                                                        \
     NULL,                                                                     \
     NULL,                                                                     \
     true,                                                                     \
     false,                                                                    \
     "the run directory"},                                                     \
        RUN_ARGS_OPTION("--depth", "N", CLI_INT, train.max_depth, 0, 30, NULL, \
                        NULL, "at most N levels"),                             \
        {"--holdout",                                                          \
         "sizes|procs|K",                                                      \
         CLI_CUSTOM,                                                           \
         0,                                                                    \
         0,                                                                    \
         0,                                                                    \
         NULL,                                                                 \
         take_holdout,                                                         \
         false,                                                                \
         false,                                                                \
         "also score held out: every other message size or procs, or K "       \
         "folds"},                                                             \
        RUN_ARGS_OPTION("--near", "PCT", CLI_REAL, train.near_pct, 0, 100,     \
                        NULL, NULL,                                            \
                        "methods this close to a point's optimum count as "    \
                        "right there"),                                        \
        RUN_ARGS_OPTION("--leaf", NULL, CLI_CHOICE, leaf, 0, 0,                \
                        "penalty|majority", take_leaf,                         \
                        "a leaf's method: least penalty, or C4.5's class"),    \
        RUN_ARGS_OPTION("--between", NULL, CLI_CHOICE, between, 0, 0,          \
                        "cross|pair|next", take_between,                       \
                        "what a size between two training sizes takes"),       \
        RUN_ARGS_OPTION("--model", "FILE", CLI_TEXT, model_path, 0, 0, NULL,   \
                        NULL,                                                  \
                        "the calibration between measured sizes (default: "    \
                        "RUN/model.csv, if there)"),                           \
        RUN_ARGS_OPTION("--misses", NULL, CLI_FLAG, is_misses, 0, 0, NULL,     \
                        NULL, "print every point off its optimum, on stderr"), \
        RUN_ARGS_OPTION("-o", "STEM", CLI_TEXT, stem, 0, 0, NULL, NULL,        \
                        "write STEM.dec (and --emit's files)")

static const struct cli_option tree_run_options[] = {
    SHARED_OPTIONS,
    RUN_ARGS_OPTION("-m", "M", CLI_INT, train.c45.min_objs, 1, 1000000, NULL,
                    NULL, "C4.5's least cases in two branches of a test (1)"),
    RUN_ARGS_OPTION("-c", "C", CLI_REAL, confidence_pct, 0.001, 100, NULL,
                    take_confidence, "C4.5's pruning confidence, percent (25)"),
    {"--collectives", "a,b", CLI_CUSTOM, 0, 0, 0, NULL, take_collective, false,
     true, "these collectives only"},
    RUN_ARGS_OPTION("--leaves", "N", CLI_INT, train.max_leaves, 0, 1000000,
                    NULL, NULL,
                    "the grown tree cut to at most N leaves by penalty "
                    "(25; 0: C4.5's pruning)"),
    RUN_ARGS_OPTION("--leaf-cut", NULL, CLI_CHOICE, leaf_cut, 0, 0,
                    "total|worst", take_leaf_cut,
                    "that cut: least total penalty, or least worst first"),
    RUN_ARGS_OPTION("--weights", NULL, CLI_CHOICE, weights, 0, 0, "stake|none",
                    take_weights,
                    "C4.5's case weights: the penalty at stake, or none"),
    RUN_ARGS_OPTION("--combined", NULL, CLI_FLAG, train.is_combined, 0, 0, NULL,
                    NULL, "one tree for all collectives"),
    RUN_ARGS_OPTION("--exact", NULL, CLI_FLAG, is_exact, 0, 0, NULL, NULL,
                    "the exact table instead of C4.5"),
    {"--emit", "names,c,c-tree,c-table", CLI_CUSTOM, 0, 0, 0, NULL, take_emit,
     false, true, "also write C4.5's input files or the decision as C"},
};

static const struct cli_option quadtree_options[] = {
    SHARED_OPTIONS,
    {"--collective", "C", CLI_CUSTOM, 0, 0, 0, NULL, take_collective, true,
     false, "the collective"},
    RUN_ARGS_OPTION("--accuracy", "PCT", CLI_REAL, train.accuracy_pct, 0.001,
                    100, NULL, NULL,
                    "stop splitting where this share of points is right"),
    {"--emit", "c,c-tree,c-table", CLI_CUSTOM, 0, 0, 0, NULL, take_emit, false,
     true, "also write the decision as C"},
};

const struct cli_spec tree_run_cli = {
    "autotune tree",
    NULL,
    "The C4.5 decision trees of a run, scored by their penalty against its "
    "measured\noptimum; writes RUN/tree.dec (or STEM.dec), which "
    "libautotune loads.\n",
    tree_run_options,
    CLI_N(tree_run_options),
    NULL,
    0};

const struct cli_spec quadtree_cli = {
    "autotune quadtree",
    NULL,
    "The quadtree decision of one collective of a run (--depth 4 unless "
    "--depth or\n--accuracy is given); writes RUN/quadtree-C.dec (or "
    "STEM.dec).\n",
    quadtree_options,
    CLI_N(quadtree_options),
    NULL,
    0};

static int parse_args(int argc, char **argv, const struct cli_spec *spec,
                      struct run_args *a)
{
    if (cli_parse(spec, argc, argv, a, stderr) != CLI_OK) {
        return -1;
    }
    /* -o STEM: none of the files it names may be one of a run's own. */
    static const char *const suffixes[] = {".dec",    ".c",     "-table.c",
                                           "-tree.c", ".names", ".data"};
    for (size_t k = 0; a->stem && k < sizeof suffixes / sizeof *suffixes; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", a->stem, suffixes[k]);
        if (rundir_check_output(a->cmd, a->run, path) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- scoring ---- */

/* Grid g's name in the figures: its collective, and its ranks per node
 * when the run has several. */
static const char *grid_label(const struct run_data *r, int g, char *buf,
                              size_t size)
{
    const struct run_grid *grid = &r->grids[g];
    if (r->n_ppn <= 1) {
        return grid->name;
    }
    snprintf(buf, size, "%s ppn %d", grid->name, grid->ppn);
    return buf;
}

/* --misses: one line on stderr per scored point whose choice is not the
 * optimum; ctx is where it was scored ("training", "held-out"). */
static void print_miss(void *ctx, const struct run_data *r, int g, long cell,
                       int method, double penalty)
{
    const struct run_grid *grid = &r->grids[g];
    int best = grid->best[cell];
    char label[RUN_NAME_MAX + 16];
    fprintf(stderr,
            "miss %s %s P=%d %ld B: chose %s (%.1f us), optimum %s (%.1f "
            "us), penalty %.2f %%\n",
            (const char *)ctx, grid_label(r, g, label, sizeof label),
            grid->procs[cell / grid->n_msgs], grid->msgs[cell % grid->n_msgs],
            r->methods[method].label,
            grid->time_us[cell * r->n_methods + method], r->methods[best].label,
            grid->best_us[cell], 100 * penalty);
}

/* Points scored from here on are listed as what (with --misses). */
static void misses_as(const struct run_args *a, struct train_scores *s,
                      const char *what)
{
    s->on_miss = a->is_misses ? print_miss : NULL;
    s->miss_ctx = (void *)what;
}

/* The first column's width: wider for the "ppn N" of a run with several. */
static int name_width(const struct run_data *r)
{
    return r->n_ppn > 1 ? 36 : 28;
}

static void print_penalty_header(const struct run_data *r)
{
    printf("%-*s %7s %9s %9s %9s %9s\n", name_width(r), "penalty (%)", "points",
           "min", "max", "mean", "median");
}

static void print_penalty(const struct run_data *r, const char *coll,
                          const char *what, struct train_scores *s)
{
    struct penalty_stats st;
    char name[96];
    penalty_stats_compute(s->v, s->n, s->n_unrunnable, &st);
    snprintf(name, sizeof name, "%s %s", coll, what);
    printf("%-*s %7d %9.2f %9.2f %9.2f %9.2f\n", name_width(r), name, st.n,
           st.min, st.max, st.mean, st.median);
    if (st.n_unrunnable) {
        printf("  (%d more points chose a method that cannot run there; not "
               "scored)\n",
               st.n_unrunnable);
    }
    if (s->n_inferred) {
        printf("  (%d more points were %s, not timed: not scored)\n",
               s->n_inferred,
               r->is_predicted ? "predicted by the model"
                               : "inferred by the adaptive grid");
    }
    if (s->n_untimed) {
        printf("  (%d more points chose the library's default, which the run "
               "did not time: not scored)\n",
               s->n_untimed);
    }
    s->n = s->n_unrunnable = s->n_inferred = s->n_untimed = 0;
}

static void print_default(const struct run_data *r, struct train_scores *s)
{
    if (!r->has_default) {
        printf("(the run did not time the MPI library's default method)\n");
        return;
    }
    char label[RUN_NAME_MAX + 16];
    for (int g = 0; g < r->n_grids; g++) {
        train_score_default(r, g, s);
        print_penalty(r, grid_label(r, g, label, sizeof label), "default", s);
    }
}

/* Scores decs[f] (f first..n-1) on grid g: each on its own fold when
 * is_held_out, else the one decision on every point. */
static void score_grid(const struct run_args *a, const struct run_data *r,
                       int g, struct decision *const *decs, int first, int n,
                       bool is_held_out, struct train_scores *s,
                       long *depth_sum)
{
    for (int f = first; f < n; f++) {
        train_score_decision(&a->train, r, g, decs[f],
                             train_table(decs[f], r, g), is_held_out ? f : -1,
                             s, depth_sum);
    }
}

/* The penalty lines of decs (score_grid) on each grid; with several ranks
 * per node values, then on each value's grids (when they are of several
 * collectives) and on all. */
static void print_scores(const struct run_args *a, const struct run_data *r,
                         struct decision *const *decs, int first, int n,
                         bool is_held_out, const char *what,
                         struct train_scores *s, long *depth_sum)
{
    char label[RUN_NAME_MAX + 16];
    for (int g = 0; g < r->n_grids; g++) {
        score_grid(a, r, g, decs, first, n, is_held_out, s, depth_sum);
        print_penalty(r, grid_label(r, g, label, sizeof label), what, s);
    }
    bool is_one_collective = train_collective_end(r, 0) == r->n_grids;
    for (int k = is_one_collective ? r->n_ppn : 0;
         r->n_ppn > 1 && k <= r->n_ppn; k++) {
        for (int g = 0; g < r->n_grids; g++) {
            if (k == r->n_ppn || r->grids[g].ppn == r->ppn[k]) {
                score_grid(a, r, g, decs, first, n, is_held_out, s, NULL);
            }
        }
        if (k < r->n_ppn) {
            snprintf(label, sizeof label, "ppn %d", r->ppn[k]);
        }
        print_penalty(r, k < r->n_ppn ? label : "all", what, s);
    }
}

/* ---- files ---- */

static FILE *open_output(const char *stem, const char *suffix, char *path,
                         size_t size)
{
    snprintf(path, size, "%s%s", stem, suffix);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
    }
    return f;
}

static int close_output(FILE *f, const char *path)
{
    if (ferror(f) | (fclose(f) != 0)) {
        fprintf(stderr, "%s: write failed\n", path);
        return -1;
    }
    printf("wrote %s\n", path);
    return 0;
}

/* STEM.names/.data (combined) or STEM-COLL.names/.data, for c4.5 itself. */
static int emit_names(const struct run_args *a, const struct run_data *r)
{
    for (int g0 = 0, g1; g0 < r->n_grids; g0 = g1) {
        g1 = a->train.is_combined ? r->n_grids : train_collective_end(r, g0);
        char suffix[RUN_NAME_MAX + 16], path[4096];
        struct c45_data *d = NULL;
        if (train_c45_data(&a->train, r, g0, g1, -1, &d)) {
            return -1;
        }
        snprintf(suffix, sizeof suffix, "%s%s.names",
                 a->train.is_combined ? "" : "-",
                 a->train.is_combined ? "" : r->grids[g0].name);
        FILE *out = open_output(a->stem, suffix, path, sizeof path);
        int rc = -1;
        if (out) {
            for (int k = 0; k < d->n_classes; k++) {
                fprintf(out, "%s%s", d->class_names[k],
                        k + 1 < d->n_classes ? ", " : ".\n\n");
            }
            for (int i = 0; i < d->n_attrs; i++) {
                const struct c45_attr *at = &d->attrs[i];
                fprintf(out, "%s: ", at->name);
                for (int v = 0; at->kind == C45_DISCRETE && v < at->n_values;
                     v++) {
                    fprintf(out, "%s%s", at->value_names[v],
                            v + 1 < at->n_values ? ", " : ".\n");
                }
                if (at->kind != C45_DISCRETE) {
                    fprintf(out, "continuous.\n");
                }
            }
            rc = close_output(out, path);
        }
        strcpy(strstr(suffix, ".names"), ".data");
        out = rc ? NULL : open_output(a->stem, suffix, path, sizeof path);
        rc = -1;
        if (out) {
            for (int i = 0; i < d->n_items; i++) {
                const float *v = d->values + (size_t)i * d->n_attrs;
                for (int j = 0; j < d->n_attrs; j++) {
                    const struct c45_attr *at = &d->attrs[j];
                    if (at->kind == C45_DISCRETE) {
                        fprintf(out, "%s, ", at->value_names[(int)v[j] - 1]);
                    } else {
                        fprintf(out, "%.0f, ", (double)v[j]);
                    }
                }
                fprintf(out, "%s.\n", d->class_names[d->classes[i]]);
            }
            rc = close_output(out, path);
        }
        c45_data_destroy(d);
        if (rc) {
            return -1;
        }
    }
    return 0;
}

static int emit_c(const char *stem, const char *suffix,
                  const struct decision *d, const char *comment,
                  enum decision_c_form form)
{
    char path[4096];
    FILE *f = open_output(stem, suffix, path, sizeof path);
    if (!f) {
        return -1;
    }
    int rc = decision_emit_c(d, f, "autotune", comment, form);
    return close_output(f, path) || rc;
}

static int write_outputs(const struct run_args *a, const struct decision *d,
                         const char *comment)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.dec", a->stem);
    if (decision_save(d, path)) {
        return -1;
    }
    printf("wrote %s\n", path);
    int rc = 0;
    /* c is the table form, the fastest; c-table names it too (STEM-table.c,
     * as before the table form became the default). */
    if (a->emit_c) {
        rc = emit_c(a->stem, ".c", d, comment, DECISION_C_TABLE);
    }
    if (a->emit_c_table && rc == 0) {
        rc = emit_c(a->stem, "-table.c", d, comment, DECISION_C_TABLE);
    }
    if (a->emit_c_tree && rc == 0) {
        rc = emit_c(a->stem, "-tree.c", d, comment, DECISION_C_TREE);
    }
    return rc;
}

static void print_shape(const struct decision *d, long depth_sum, long points)
{
    int leaves, tests, max_depth;
    decision_count(d, &leaves, &tests, &max_depth);
    printf("%s: %d leaves, %d nodes, max depth %d, mean depth %.2f over %ld "
           "points, %zu bytes in memory\n",
           d->kind, leaves, leaves + tests, max_depth,
           points ? (double)depth_sum / points : 0.0, points,
           (size_t)d->n_nodes * (sizeof *d->nodes + sizeof *d->leaf_method));
}

/* ---- held-out scores, for trees and quadtrees ---- */

/* Trains a decision on r without fold `fold`. */
typedef int (*train_fold_fn)(const struct run_args *a, const struct run_data *r,
                             int fold, struct decision **out);

/* The C4.5 trees of r's points outside fold skip, printed on report
 * unless NULL. */
static int train_tree_decision(const struct run_args *a,
                               const struct run_data *r, int skip, FILE *report,
                               struct decision **out)
{
    const char **colls = malloc((size_t)r->n_grids * sizeof *colls);
    if (!colls) {
        fprintf(stderr, "autotune tree: out of memory\n");
        return -1;
    }
    int n_colls = run_data_collectives(r, colls);
    int rc = train_create_decision(r, "c45", colls, n_colls, out) ||
             train_trees(&a->train, r, skip, report, *out);
    free(colls);
    return rc;
}

static int train_tree_fold(const struct run_args *a, const struct run_data *r,
                           int fold, struct decision **out)
{
    return train_tree_decision(a, r, fold, NULL, out);
}

static int train_exact_fold(const struct run_args *a, const struct run_data *r,
                            int fold, struct decision **out)
{
    return train_exact(&a->train, r, fold, out);
}

static int train_quadtree_fold(const struct run_args *a,
                               const struct run_data *r, int fold,
                               struct decision **out)
{
    return train_quadtree(&a->train, r, fold, out);
}

static void print_held_out_header(const struct run_args *a)
{
    static const char *const what[] = {
        [HOLDOUT_POINTS] = "folds of grid points",
        [HOLDOUT_SIZES] = "every other message size",
        [HOLDOUT_PROCS] = "every other communicator size",
    };
    printf("held out (%s):\n", what[a->train.holdout_axis]);
}

/* The penalty of decisions each trained without one fold and scored on
 * it (print_scores). */
static int print_held_out(const struct run_args *a, const struct run_data *r,
                          const char *what, train_fold_fn train,
                          struct train_scores *s)
{
    /* every other value: trained on the first, scored on the second */
    int first = a->train.holdout_axis != HOLDOUT_POINTS;
    int n = a->train.holdout_folds, rc = 0;
    struct decision **decs = calloc((size_t)n, sizeof *decs);
    if (!decs) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    for (int fold = first; rc == 0 && fold < n; fold++) {
        rc = train(a, r, fold, &decs[fold]);
    }
    if (rc == 0) {
        misses_as(a, s, "held-out");
        print_scores(a, r, decs, first, n, true, what, s, NULL);
    }
    for (int fold = 0; fold < n; fold++) {
        decision_destroy(decs[fold]);
    }
    free(decs);
    return rc ? -1 : 0;
}

/* ---- tree -r ---- */

int tree_run_main(int argc, char **argv)
{
    struct run_args a = {.cmd = "tree"};
    struct run_data *r = NULL;
    struct decision *d = NULL;
    struct train_scores s = {0};
    char stem[4096];
    int status = 1;
    train_options_init(&a.train);
    /* -m 1 held out best on the committed runs (make bench-between-tune);
     * tree -f keeps c4.5's -m 2 */
    a.train.c45.min_objs = TREE_RUN_MIN_OBJS;
    a.train.max_leaves = TREE_RUN_MAX_LEAVES;
    a.train.stake_pct = TREE_RUN_STAKE_PCT;
    if (parse_args(argc, argv, &tree_run_cli, &a)) {
        status = 2; /* a usage error */
        goto done;
    }
    if (run_data_load(a.run, a.n_colls ? a.colls : NULL, a.n_colls, &r) ||
        run_data_load_model(r, a.run, a.model_path) ||
        train_scores_alloc(r, &s)) {
        goto done;
    }
    const char **colls = malloc((size_t)r->n_grids * sizeof *colls);
    int n_colls = colls ? run_data_collectives(r, colls) : 0;
    free(colls);
    if (a.train.is_combined && n_colls < 2) {
        fprintf(stderr, "autotune tree: --combined needs two collectives or "
                        "more\n");
        goto done;
    }
    if (!a.stem) {
        snprintf(stem, sizeof stem, "%s/tree", a.run);
        a.stem = stem;
    }
    if (a.is_exact ? train_exact(&a.train, r, -1, &d)
                   : train_tree_decision(&a, r, -1, stdout, &d)) {
        goto done;
    }
    const char *what = a.is_exact ? "exact" : "tree";
    char held[32];
    snprintf(held, sizeof held, "%s held out", what);
    long depth_sum = 0;
    print_penalty_header(r);
    misses_as(&a, &s, "training");
    print_scores(&a, r, &d, 0, 1, false, what, &s, &depth_sum);
    print_default(r, &s);
    if (a.train.holdout_folds) {
        print_held_out_header(&a);
        if (print_held_out(&a, r, held,
                           a.is_exact ? train_exact_fold : train_tree_fold,
                           &s)) {
            goto done;
        }
    }
    long points = 0;
    for (int g = 0; g < r->n_grids; g++) {
        for (long c = 0; c < (long)r->grids[g].n_procs * r->grids[g].n_msgs;
             c++) {
            points += r->grids[g].best[c] >= 0;
        }
    }
    print_shape(d, depth_sum, points);
    char comment[256];
    snprintf(comment, sizeof comment, "C4.5 decision (-m %d -c %g)%s",
             a.train.c45.min_objs, (double)(a.train.c45.cf * 100),
             a.train.is_combined ? ", one tree for all collectives" : "");
    if (a.is_exact) {
        snprintf(comment, sizeof comment, "the exact decision of the table");
    }
    if (write_outputs(&a, d, comment) || (a.emit_names && emit_names(&a, r))) {
        goto done;
    }
    status = 0;
done:
    free(s.v);
    decision_destroy(d);
    run_data_destroy(r);
    return status;
}

/* ---- quadtree ---- */

int quadtree_main(int argc, char **argv)
{
    struct run_args a = {.cmd = "quadtree"};
    struct run_data *r = NULL;
    struct decision *d = NULL;
    struct train_scores s = {0};
    char stem[4096];
    int status = 2; /* until the arguments are known good: usage errors */
    train_options_init(&a.train);
    a.train.accuracy_pct = -1; /* not given */
    if (parse_args(argc, argv, &quadtree_cli, &a)) {
        goto done;
    }
    if (a.n_colls != 1 || a.emit_names) {
        fprintf(stderr, "autotune quadtree: %s\n",
                a.n_colls != 1 ? "give one --collective"
                               : "--emit names is for trees");
        goto done;
    }
    if (a.train.max_depth < 0 && a.train.accuracy_pct < 0) {
        a.train.max_depth = QUADTREE_DEPTH; /* held out best */
    }
    status = 1;
    if (a.train.accuracy_pct < 0) {
        a.train.accuracy_pct = 100;
    }
    if (run_data_load(a.run, a.colls, 1, &r) ||
        run_data_load_model(r, a.run, a.model_path) ||
        train_scores_alloc(r, &s)) {
        goto done;
    }
    const struct run_grid *grid = &r->grids[0];
    if (!a.stem) {
        snprintf(stem, sizeof stem, "%s/quadtree-%s", a.run, grid->name);
        a.stem = stem;
    }
    if (train_quadtree(&a.train, r, -1, &d)) {
        goto done;
    }
    /* one quadtree per ranks per node */
    long points = 0;
    for (int g = 0; g < r->n_grids; g++) {
        char label[RUN_NAME_MAX + 16];
        const struct run_grid *gg = &r->grids[g];
        printf("%s: quadtree on a %d x %d map (procs %d..%d, %ld..%ld B), ",
               grid_label(r, g, label, sizeof label), gg->n_procs, gg->n_msgs,
               gg->procs[0], gg->procs[gg->n_procs - 1], gg->msgs[0],
               gg->msgs[gg->n_msgs - 1]);
        if (a.train.max_depth >= 0) {
            printf("max depth %d, ", a.train.max_depth);
        }
        printf("accuracy %g%%\n", a.train.accuracy_pct);
        for (long c = 0; c < (long)gg->n_procs * gg->n_msgs; c++) {
            points += gg->best[c] >= 0;
        }
    }
    long depth_sum = 0;
    print_penalty_header(r);
    misses_as(&a, &s, "training");
    print_scores(&a, r, &d, 0, 1, false, "quadtree", &s, &depth_sum);
    print_default(r, &s);
    if (a.train.holdout_folds) {
        print_held_out_header(&a);
        if (print_held_out(&a, r, "quadtree held out", train_quadtree_fold,
                           &s)) {
            goto done;
        }
    }
    print_shape(d, depth_sum, points);
    char comment[256];
    snprintf(comment, sizeof comment,
             "Quadtree decision for %s (max depth "
             "%d, accuracy %g%%)",
             grid->name, a.train.max_depth, a.train.accuracy_pct);
    if (write_outputs(&a, d, comment)) {
        goto done;
    }
    status = 0;
done:
    free(s.v);
    decision_destroy(d);
    run_data_destroy(r);
    return status;
}
