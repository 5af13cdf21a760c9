/* `autotune tree -r RUN` and `autotune quadtree -r RUN`: decision functions
 * built from a run's optimal table and scored by their penalty against the
 * run's measurements (seed 000, eq. 6), on the grid and on held-out points. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decision/decision.h"

#define MAX_COLLS 16

/* What both commands accept; each reads the fields it needs. */
struct run_args {
    const char *cmd;
    const char *run;
    const char *stem;
    const char *colls[MAX_COLLS];
    int n_colls;
    bool is_combined;
    bool emit_names, emit_c, emit_c_table, emit_c_tree;
    int holdout_folds; /* 0: none; 2 with holdout_sizes: every other size */
    bool holdout_sizes;
    struct c45_options opt;
    int max_depth;       /* quadtree; -1: no limit */
    double accuracy_pct; /* quadtree; 100: exact */
    double near_pct;     /* methods this close to a point's optimum are
                            equally good labels there (see labels_of) */
    bool is_majority;    /* leaves keep C4.5's class, depth-limited
                            quadtree leaves the most common method */
};

/* A subset of the grid cells: cell (g, c) is in fold fold_of(g, c). */
struct folds {
    const struct run_args *args;
    const struct run_data *r;
};

static int fold_of(const struct folds *f, int g, long cell)
{
    const struct run_args *a = f->args;
    if (a->holdout_sizes) {
        return (int)(cell % f->r->grids[g].n_msgs) % 2;
    }
    long index = cell;
    for (int e = 0; e < g; e++) {
        index += (long)f->r->grids[e].n_procs * f->r->grids[e].n_msgs;
    }
    return (int)(index % a->holdout_folds);
}

/* ---- arguments ---- */

static int parse_double(const char *cmd, const char *opt, const char *text,
                        double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno || !(v >= lo && v <= hi)) {
        fprintf(stderr, "autotune %s: %s: '%s' is not a number in %g..%g\n",
                cmd, opt, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_list(struct run_args *a, const char *opt, char *text,
                      int (*add)(struct run_args *, const char *, const char *))
{
    for (char *item = strtok(text, ","); item; item = strtok(NULL, ",")) {
        if (add(a, opt, item)) {
            return -1;
        }
    }
    return 0;
}

static int add_collective(struct run_args *a, const char *opt, const char *name)
{
    if (a->n_colls == MAX_COLLS) {
        fprintf(stderr, "autotune %s: %s: more than %d collectives\n", a->cmd,
                opt, MAX_COLLS);
        return -1;
    }
    a->colls[a->n_colls++] = name;
    return 0;
}

static int add_emit(struct run_args *a, const char *opt, const char *what)
{
    if (strcmp(what, "names") == 0) {
        a->emit_names = true;
    } else if (strcmp(what, "c") == 0) {
        a->emit_c = true;
    } else if (strcmp(what, "c-table") == 0) {
        a->emit_c_table = true;
    } else if (strcmp(what, "c-tree") == 0) {
        a->emit_c_tree = true;
    } else {
        fprintf(stderr,
                "autotune %s: %s: unknown output '%s' (valid: names, "
                "c, c-table, c-tree)\n",
                a->cmd, opt, what);
        return -1;
    }
    return 0;
}

static int parse_holdout(struct run_args *a, const char *opt, const char *text)
{
    char *end;
    long k = strtol(text, &end, 10);
    if (strcmp(text, "sizes") == 0) {
        a->holdout_sizes = true;
        a->holdout_folds = 2;
        return 0;
    }
    if (end == text || *end != '\0' || k < 2 || k > 1000) {
        fprintf(stderr,
                "autotune %s: %s: '%s' is neither 'sizes' nor a "
                "number of folds in 2..1000\n",
                a->cmd, opt, text);
        return -1;
    }
    a->holdout_folds = (int)k;
    return 0;
}

static int parse_args(int argc, char **argv, const char *usage,
                      struct run_args *a)
{
    double v;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        bool is_flag = strcmp(opt, "--combined") == 0;
        if (!is_flag && i + 1 >= argc) {
            fprintf(stderr, "autotune %s: %s needs a value\n%s", a->cmd, opt,
                    usage);
            return -1;
        }
        char *val = is_flag ? NULL : argv[++i];
        int rc = 0;
        if (is_flag) {
            a->is_combined = true;
        } else if (strcmp(opt, "-r") == 0) {
            a->run = val;
        } else if (strcmp(opt, "-o") == 0) {
            a->stem = val;
        } else if (strcmp(opt, "-m") == 0 && strcmp(a->cmd, "tree") == 0) {
            rc = parse_double(a->cmd, opt, val, 1, 1000000, &v);
            a->opt.min_objs = (int)v;
        } else if (strcmp(opt, "-c") == 0 && strcmp(a->cmd, "tree") == 0) {
            rc = parse_double(a->cmd, opt, val, 0.001, 100, &v);
            a->opt.cf = (float)v / 100; /* as c4.5: float, then / 100 */
        } else if (strcmp(opt, "--collectives") == 0 ||
                   strcmp(opt, "--collective") == 0) {
            rc = parse_list(a, opt, val, add_collective);
        } else if (strcmp(opt, "--emit") == 0) {
            rc = parse_list(a, opt, val, add_emit);
        } else if (strcmp(opt, "--holdout") == 0) {
            rc = parse_holdout(a, opt, val);
        } else if (strcmp(opt, "--depth") == 0) {
            rc = parse_double(a->cmd, opt, val, 0, 30, &v);
            if (rc == 0 && v != (int)v) {
                fprintf(stderr,
                        "autotune %s: %s: '%s' is not a whole "
                        "number of levels\n",
                        a->cmd, opt, val);
                rc = -1;
            }
            a->max_depth = (int)v;
        } else if (strcmp(opt, "--accuracy") == 0) {
            rc = parse_double(a->cmd, opt, val, 0.001, 100, &v);
            a->accuracy_pct = v;
        } else if (strcmp(opt, "--near") == 0) {
            rc = parse_double(a->cmd, opt, val, 0, 100, &a->near_pct);
        } else if (strcmp(opt, "--leaf") == 0) {
            a->is_majority = strcmp(val, "majority") == 0;
            if (!a->is_majority && strcmp(val, "penalty") != 0) {
                fprintf(stderr,
                        "autotune %s: %s: '%s' is neither 'penalty' nor "
                        "'majority'\n",
                        a->cmd, opt, val);
                rc = -1;
            }
        } else {
            fprintf(stderr, "autotune %s: unknown option '%s'\n%s", a->cmd, opt,
                    usage);
            return -1;
        }
        if (rc) {
            return -1;
        }
    }
    if (!a->run) {
        fprintf(stderr, "autotune %s: -r RUN is required\n%s", a->cmd, usage);
        return -1;
    }
    return 0;
}

/* ---- scoring ---- */

struct scores {
    double *v; /* penalties, fractions */
    int n, n_unrunnable;
};

/* Adds the penalty of choosing method at cell of grid g. */
static void score_choice(const struct run_data *r, int g, long cell, int method,
                         struct scores *s)
{
    const struct run_grid *grid = &r->grids[g];
    double t = grid->time_us[cell * r->n_methods + method];
    if (t < 0) {
        s->n_unrunnable++;
    } else {
        s->v[s->n++] = (t - grid->best_us[cell]) / grid->best_us[cell];
    }
}

/* Penalties of d's choices for grid g (collective dc of d) on the cells
 * whose fold is fold (all cells when fold < 0); adds the depth of each. */
static void score_decision(const struct run_data *r, const struct folds *f,
                           int g, const struct decision *d, int dc, int fold,
                           struct scores *s, long *depth_sum)
{
    const struct run_grid *grid = &r->grids[g];
    for (int p = 0; p < grid->n_procs; p++) {
        for (int m = 0; m < grid->n_msgs; m++) {
            long cell = (long)p * grid->n_msgs + m;
            if (grid->best[cell] < 0 ||
                (fold >= 0 && fold_of(f, g, cell) != fold)) {
                continue;
            }
            int k = decision_lookup(d, dc, grid->procs[p], grid->msgs[m]);
            score_choice(r, g, cell, k, s);
            if (depth_sum) {
                *depth_sum +=
                    decision_depth(d, dc, grid->procs[p], grid->msgs[m]);
            }
        }
    }
}

static void score_default(const struct run_data *r, int g, struct scores *s)
{
    const struct run_grid *grid = &r->grids[g];
    for (long cell = 0; cell < (long)grid->n_procs * grid->n_msgs; cell++) {
        double t = grid->default_us[cell];
        if (grid->best[cell] >= 0 && t >= 0) {
            s->v[s->n++] = (t - grid->best_us[cell]) / grid->best_us[cell];
        }
    }
}

static void print_penalty_header(void)
{
    printf("%-28s %7s %9s %9s %9s %9s\n", "penalty (%)", "points", "min", "max",
           "mean", "median");
}

static void print_penalty(const char *coll, const char *what, struct scores *s)
{
    struct penalty_stats st;
    char name[64];
    penalty_stats_compute(s->v, s->n, s->n_unrunnable, &st);
    snprintf(name, sizeof name, "%s %s", coll, what);
    printf("%-28s %7d %9.2f %9.2f %9.2f %9.2f\n", name, st.n, st.min, st.max,
           st.mean, st.median);
    if (st.n_unrunnable) {
        printf("  (%d more points chose a method that cannot run there; not "
               "scored)\n",
               st.n_unrunnable);
    }
    s->n = s->n_unrunnable = 0;
}

static int alloc_scores(const struct run_data *r, struct scores *s)
{
    long cells = 0;
    for (int g = 0; g < r->n_grids; g++) {
        cells += (long)r->grids[g].n_procs * r->grids[g].n_msgs;
    }
    s->v = malloc((size_t)(cells + 1) * sizeof *s->v);
    s->n = s->n_unrunnable = 0;
    if (!s->v) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    return 0;
}

static void print_default(const struct run_data *r, struct scores *s)
{
    if (!r->has_default) {
        printf("(the run did not time the MPI library's default method)\n");
        return;
    }
    for (int g = 0; g < r->n_grids; g++) {
        score_default(r, g, s);
        print_penalty(r->grids[g].name, "default", s);
    }
}

/* ---- building ---- */

static int create_decision(const struct run_data *r, const char *kind,
                           const char *const *colls, int n_colls,
                           struct decision **out)
{
    const char **methods = malloc((size_t)r->n_methods * sizeof *methods);
    if (!methods) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    for (int k = 0; k < r->n_methods; k++) {
        methods[k] = r->methods[k].label;
    }
    int rc = decision_create(kind, r->n_methods, methods, n_colls, colls, out);
    free(methods);
    return rc;
}

/* Cell c of grid g is a training point: it has an optimum and is not in
 * the held-out fold skip (none when skip < 0). */
static bool is_training(const struct folds *f, int g, long c, int skip)
{
    return f->r->grids[g].best[c] >= 0 &&
           (skip < 0 || fold_of(f, g, c) != skip);
}

/* Method k is within near_pct of the optimum at cell c (the optimum is). */
static bool is_near(const struct run_data *r, const struct run_grid *grid,
                    long c, int k, double limit)
{
    double t = grid->time_us[c * r->n_methods + k];
    return k == grid->best[c] || (t >= 0 && t <= limit * grid->best_us[c]);
}

/* The training label of each cell of grid g outside fold skip (-1 for the
 * others): its optimum, unless the label of the previous message size at
 * these procs (the last labelled), or else of the previous procs at this
 * size, is within near_pct of it (0: an exact tie). The optimum among
 * equals is otherwise the first measured, and a label that changes for
 * nothing splits the map where no tree needs to (at 2 processes every tree
 * is one message, at 3 most are the same star). Penalties stay measured
 * against the optimum. labels is caller-allocated (n_procs x n_msgs). */
static void labels_of(const struct run_data *r, const struct folds *f, int g,
                      int skip, int *labels)
{
    const struct run_grid *grid = &r->grids[g];
    double limit = 1 + f->args->near_pct / 100;
    for (int p = 0; p < grid->n_procs; p++) {
        int left = -1; /* the row's last label */
        for (int m = 0; m < grid->n_msgs; m++) {
            long c = (long)p * grid->n_msgs + m;
            int below = p > 0 ? labels[c - grid->n_msgs] : -1;
            labels[c] = is_training(f, g, c, skip) ? grid->best[c] : -1;
            if (labels[c] < 0) {
                continue;
            }
            if (left >= 0 && is_near(r, grid, c, left, limit)) {
                labels[c] = left;
            } else if (below >= 0 && is_near(r, grid, c, below, limit)) {
                labels[c] = below;
            }
            left = labels[c];
        }
    }
}

/* Every method's penalty at cell `from` into row (n_methods), fractions;
 * a method that cannot run there costs 1000 (100000 %). */
static void penalty_row(const struct run_data *r, const struct run_grid *grid,
                        long from, double *row)
{
    for (int k = 0; k < r->n_methods; k++) {
        double t = grid->time_us[from * r->n_methods + k];
        row[k] = t < 0 ? 1000 : (t - grid->best_us[from]) / grid->best_us[from];
    }
}

/* The C4.5 data set of grids g0..g1-1 (with a collective attribute when
 * there are several), only cells outside fold skip (all when skip < 0). */
static int c45_data_of(const struct run_data *r, const struct folds *f, int g0,
                       int g1, int skip, struct c45_data **out)
{
    struct c45_data *d = NULL;
    int *labels = NULL;
    bool has_coll = g1 - g0 > 1;
    const char *names[MAX_COLLS];
    if (c45_data_create(&d)) {
        return -1;
    }
    for (int k = 0; k < r->n_methods; k++) {
        if (c45_data_add_class(d, r->methods[k].label)) {
            goto fail;
        }
    }
    for (int g = g0; g < g1; g++) {
        names[g - g0] = r->grids[g].name;
    }
    if ((has_coll && c45_data_add_discrete(d, "collective", g1 - g0, names)) ||
        c45_data_add_continuous(d, "communicator_size") ||
        c45_data_add_continuous(d, "message_size")) {
        goto fail;
    }
    for (int g = g0; g < g1; g++) {
        const struct run_grid *grid = &r->grids[g];
        free(labels);
        labels = malloc((size_t)grid->n_procs * grid->n_msgs * sizeof *labels);
        if (!labels) {
            fprintf(stderr, "autotune tree: out of memory\n");
            goto fail;
        }
        labels_of(r, f, g, skip, labels);
        for (int p = 0; p < grid->n_procs; p++) {
            for (int m = 0; m < grid->n_msgs; m++) {
                long cell = (long)p * grid->n_msgs + m;
                float v[3] = {(float)(g - g0 + 1), (float)grid->procs[p],
                              (float)grid->msgs[m]};
                if (labels[cell] >= 0 &&
                    c45_data_add_item(d, has_coll ? v : v + 1, labels[cell])) {
                    goto fail;
                }
            }
        }
    }
    if (d->n_items == 0) {
        fprintf(stderr, "autotune tree: no points to build from\n");
        goto fail;
    }
    free(labels);
    *out = d;
    return 0;
fail:
    free(labels);
    c45_data_destroy(d);
    return -1;
}

struct c45_result {
    struct c45_tree *tree; /* pruned */
    int leaves, errors, n_items;
    float predicted_pct;
};

static int count_leaves(const struct c45_node *n)
{
    int leaves = n->type == C45_LEAF;
    for (int b = 0; b < n->n_branches && n->type != C45_LEAF; b++) {
        leaves += count_leaves(n->branches[b]);
    }
    return leaves;
}

static int c45_grow(const struct c45_data *data, const struct c45_options *opt,
                    struct c45_result *res)
{
    struct c45_tree *raw = NULL;
    bool is_changed;
    memset(res, 0, sizeof *res);
    if (c45_build(data, opt, &raw) || c45_tree_copy(raw, &res->tree) ||
        c45_prune(res->tree, data, opt, &is_changed)) {
        c45_tree_destroy(raw);
        return -1;
    }
    c45_tree_destroy(raw);
    res->n_items = data->n_items;
    for (int i = 0; i < data->n_items; i++) {
        int k;
        if (c45_classify(res->tree, data->values + (size_t)i * data->n_attrs,
                         &k)) {
            return -1;
        }
        res->errors += k != data->classes[i];
    }
    res->leaves = count_leaves(res->tree->root);
    res->predicted_pct = 100 * res->tree->root->errors / res->tree->root->items;
    return 0;
}

/* Gives each leaf of d that training points of grids g0..g1-1 (outside
 * fold skip) reach the method of the least total penalty over them (C4.5's
 * class on ties): C4.5 labels a leaf with its most common class, which
 * can be far off at the points where it is not the optimum. Returns the
 * number of leaves changed, or -1. */
static int leaves_by_penalty(const struct run_data *r, const struct folds *f,
                             int g0, int g1, int skip, struct decision *d)
{
    int n = r->n_methods, n_changed = 0;
    double *sum = calloc((size_t)d->n_nodes * n, sizeof *sum);
    double *row = malloc((size_t)n * sizeof *row);
    char *is_reached = calloc((size_t)d->n_nodes, 1);
    if (!sum || !row || !is_reached) {
        fprintf(stderr, "autotune tree: out of memory\n");
        n_changed = -1;
        goto done;
    }
    for (int g = g0; g < g1; g++) {
        const struct run_grid *grid = &r->grids[g];
        for (long c = 0; c < (long)grid->n_procs * grid->n_msgs; c++) {
            if (!is_training(f, g, c, skip)) {
                continue;
            }
            int leaf = decision_leaf(d, g, grid->procs[c / grid->n_msgs],
                                     grid->msgs[c % grid->n_msgs]);
            penalty_row(r, grid, c, row);
            for (int k = 0; k < n; k++) {
                sum[(size_t)leaf * n + k] += row[k];
            }
            is_reached[leaf] = 1;
        }
    }
    for (int leaf = 0; leaf < d->n_nodes; leaf++) {
        if (!is_reached[leaf]) {
            continue;
        }
        const double *s_leaf = sum + (size_t)leaf * n;
        int best = d->leaf_method[leaf];
        for (int k = 0; k < n; k++) {
            best = s_leaf[k] < s_leaf[best] ? k : best;
        }
        if (best != d->leaf_method[leaf]) {
            decision_set_leaf(d, leaf, best);
            n_changed++;
        }
    }
done:
    free(sum);
    free(row);
    free(is_reached);
    return n_changed;
}

/* The trees of one fold (skip < 0: all points) into a decision: one per
 * grid, or one combined tree, with leaves by penalty unless is_majority.
 * Prints them when is_verbose. */
static int build_trees(const struct run_args *a, const struct run_data *r,
                       const struct folds *f, int skip, bool is_verbose,
                       struct decision *d)
{
    int n_trees = a->is_combined ? 1 : r->n_grids;
    for (int t = 0; t < n_trees; t++) {
        int g0 = a->is_combined ? 0 : t,
            g1 = a->is_combined ? r->n_grids : t + 1;
        struct c45_data *data = NULL;
        struct c45_result res = {0};
        int rc = c45_data_of(r, f, g0, g1, skip, &data) ||
                 c45_grow(data, &a->opt, &res) ||
                 decision_add_c45(d, a->is_combined ? -1 : t, res.tree,
                                  a->is_combined, a->max_depth);
        int n_changed = 0;
        if (rc == 0 && !a->is_majority) {
            n_changed = leaves_by_penalty(r, f, g0, g1, skip, d);
            rc = n_changed < 0;
        }
        if (rc == 0 && is_verbose) {
            printf("%s: C4.5 tree (-m %d -c %g) from %d points\n",
                   a->is_combined ? "combined" : r->grids[t].name,
                   a->opt.min_objs, (double)(a->opt.cf * 100), data->n_items);
            c45_print_tree(stdout, res.tree, data);
            if (a->max_depth >= 0) {
                printf("\n\n(used truncated to %d levels: a test that deep "
                       "becomes a leaf of the class C4.5 predicts there)",
                       a->max_depth);
            }
            printf("\n\n%d leaves, size %d, training errors %d (%.1f%%), "
                   "predicted error %.1f%%\n",
                   res.leaves, c45_tree_size(res.tree), res.errors,
                   100.0 * res.errors / res.n_items, (double)res.predicted_pct);
            if (!a->is_majority) {
                printf("(the decision gives %d of its leaves the method of "
                       "the least penalty over their points, not C4.5's "
                       "class)\n",
                       n_changed);
            }
            printf("\n");
        }
        c45_tree_destroy(res.tree);
        c45_data_destroy(data);
        if (rc) {
            return -1;
        }
    }
    return 0;
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
static int emit_names(const struct run_args *a, const struct run_data *r,
                      const struct folds *f)
{
    int n_sets = a->is_combined ? 1 : r->n_grids;
    for (int t = 0; t < n_sets; t++) {
        int g0 = a->is_combined ? 0 : t,
            g1 = a->is_combined ? r->n_grids : t + 1;
        char suffix[64], path[4096];
        struct c45_data *d = NULL;
        if (c45_data_of(r, f, g0, g1, -1, &d)) {
            return -1;
        }
        snprintf(suffix, sizeof suffix, "%s%s.names", a->is_combined ? "" : "-",
                 a->is_combined ? "" : r->grids[t].name);
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

/* ---- tree -r ---- */

static const char tree_usage[] =
    "usage: autotune tree -r RUN [-m M] [-c C] [--collectives a,b] "
    "[--combined]\n"
    "                     [--depth N] [--holdout sizes|K] [--near PCT] "
    "[--leaf penalty|majority]\n"
    "                     [--emit names,c,c-tree,c-table] [-o STEM]\n";

int tree_run_main(int argc, char **argv)
{
    struct run_args a = {.cmd = "tree", .max_depth = -1};
    struct run_data *r = NULL;
    struct decision *d = NULL, *hd = NULL;
    struct scores s = {0};
    char stem[4096];
    int status = 1;
    c45_options_init(&a.opt);
    if (parse_args(argc, argv, tree_usage, &a)) {
        status = 2; /* a usage error */
        goto done;
    }
    if (run_data_load(a.run, a.n_colls ? a.colls : NULL, a.n_colls, &r) ||
        alloc_scores(r, &s)) {
        goto done;
    }
    if (a.is_combined && r->n_grids < 2) {
        fprintf(stderr, "autotune tree: --combined needs two collectives or "
                        "more\n");
        goto done;
    }
    if (!a.stem) {
        snprintf(stem, sizeof stem, "%s/tree", a.run);
        a.stem = stem;
    }
    const char *colls[MAX_COLLS + 1];
    for (int g = 0; g < r->n_grids && g <= MAX_COLLS; g++) {
        colls[g] = r->grids[g].name;
    }
    struct folds f = {&a, r};
    if (create_decision(r, "c45", colls, r->n_grids, &d) ||
        build_trees(&a, r, &f, -1, true, d)) {
        goto done;
    }
    long depth_sum = 0;
    print_penalty_header();
    for (int g = 0; g < r->n_grids; g++) {
        score_decision(r, &f, g, d, g, -1, &s, &depth_sum);
        print_penalty(r->grids[g].name, "tree", &s);
    }
    print_default(r, &s);
    if (a.holdout_folds) {
        printf("held out (%s):\n", a.holdout_sizes ? "every other message "
                                                     "size"
                                                   : "folds of grid points");
        for (int g = 0; g < r->n_grids; g++) {
            for (int fold = a.holdout_sizes; fold < a.holdout_folds; fold++) {
                decision_destroy(hd);
                hd = NULL;
                if (create_decision(r, "c45", colls, r->n_grids, &hd) ||
                    build_trees(&a, r, &f, fold, false, hd)) {
                    goto done;
                }
                score_decision(r, &f, g, hd, g, fold, &s, NULL);
            }
            print_penalty(r->grids[g].name, "tree held out", &s);
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
             a.opt.min_objs, (double)(a.opt.cf * 100),
             a.is_combined ? ", one tree for all collectives" : "");
    if (write_outputs(&a, d, comment) ||
        (a.emit_names && emit_names(&a, r, &f))) {
        goto done;
    }
    status = 0;
done:
    free(s.v);
    decision_destroy(d);
    decision_destroy(hd);
    run_data_destroy(r);
    return status;
}

/* ---- quadtree ---- */

static const char quadtree_usage[] =
    "usage: autotune quadtree -r RUN --collective C (--depth N | --accuracy "
    "PCT)\n"
    "                         [--holdout sizes|K] [--near PCT] "
    "[--leaf penalty|majority]\n"
    "                         [--emit c,c-tree,c-table] [-o STEM]\n";

/* The grid's map of training labels (labels_of) with the cells of fold
 * skip replaced by the nearest other cell of their row (the previous
 * message size first), or -1 if none; penalty (NULL: not wanted) gets the
 * penalties of the cell each label came from. labels: scratch of the map's
 * size. */
static int fill_map(const struct run_data *r, const struct folds *f, int g,
                    int skip, int *labels, int *cells, double *penalty)
{
    const struct run_grid *grid = &r->grids[g];
    labels_of(r, f, g, skip, labels);
    for (int p = 0; p < grid->n_procs; p++) {
        for (int m = 0; m < grid->n_msgs; m++) {
            long row = (long)p * grid->n_msgs;
            int found = -1;
            for (int dist = 0; dist < grid->n_msgs && found < 0; dist++) {
                for (int side = -1; side <= 1 && found < 0; side += 2) {
                    int mm = m + side * dist;
                    if (mm < 0 || mm >= grid->n_msgs || labels[row + mm] < 0) {
                        continue;
                    }
                    found = labels[row + mm];
                    if (penalty) {
                        penalty_row(r, grid, row + mm,
                                    penalty + (row + m) * r->n_methods);
                    }
                }
            }
            if (found < 0) {
                fprintf(stderr,
                        "autotune quadtree: %s P=%d has no point to build "
                        "from\n",
                        grid->name, grid->procs[p]);
                return -1;
            }
            cells[row + m] = found;
        }
    }
    return 0;
}

/* labels, cells: scratch of the map's size; penalty: of the map's size
 * times the methods, or NULL (leaves by majority). */
static int build_quadtree(const struct run_args *a, const struct run_data *r,
                          const struct folds *f, int skip, int *labels,
                          int *cells, double *penalty, struct decision **out)
{
    const struct run_grid *grid = &r->grids[0];
    const char *coll = grid->name;
    struct quadtree_input in = {grid->n_procs, grid->n_msgs, grid->procs,
                                grid->msgs,    cells,        penalty};
    if (create_decision(r, "quadtree", &coll, 1, out) ||
        fill_map(r, f, 0, skip, labels, cells, penalty) ||
        quadtree_build(*out, 0, &in, a->max_depth, a->accuracy_pct)) {
        return -1;
    }
    return 0;
}

int quadtree_main(int argc, char **argv)
{
    struct run_args a = {
        .cmd = "quadtree", .max_depth = -1, .accuracy_pct = -1};
    struct run_data *r = NULL;
    struct decision *d = NULL, *hd = NULL;
    struct scores s = {0};
    int *cells = NULL, *labels = NULL;
    double *penalty = NULL;
    char stem[4096];
    int status = 1;
    status = 2; /* until the arguments are known good: usage errors */
    if (parse_args(argc, argv, quadtree_usage, &a)) {
        goto done;
    }
    if (a.n_colls != 1 || a.is_combined || a.emit_names) {
        fprintf(stderr, "autotune quadtree: %s\n%s",
                a.n_colls != 1 ? "give one --collective"
                               : "--combined and --emit names are for trees",
                quadtree_usage);
        goto done;
    }
    if (a.max_depth < 0 && a.accuracy_pct < 0) {
        fprintf(stderr,
                "autotune quadtree: --depth or --accuracy is "
                "required\n%s",
                quadtree_usage);
        goto done;
    }
    status = 1;
    if (a.accuracy_pct < 0) {
        a.accuracy_pct = 100;
    }
    if (run_data_load(a.run, a.colls, 1, &r) || alloc_scores(r, &s)) {
        goto done;
    }
    const struct run_grid *grid = &r->grids[0];
    cells = malloc((size_t)grid->n_procs * grid->n_msgs * sizeof *cells);
    labels = malloc((size_t)grid->n_procs * grid->n_msgs * sizeof *labels);
    if (!a.is_majority) {
        penalty = malloc((size_t)grid->n_procs * grid->n_msgs * r->n_methods *
                         sizeof *penalty);
    }
    if (!cells || !labels || (!a.is_majority && !penalty)) {
        fprintf(stderr, "autotune quadtree: out of memory\n");
        goto done;
    }
    if (!a.stem) {
        snprintf(stem, sizeof stem, "%s/quadtree-%s", a.run, grid->name);
        a.stem = stem;
    }
    struct folds f = {&a, r};
    if (build_quadtree(&a, r, &f, -1, labels, cells, penalty, &d)) {
        goto done;
    }
    printf("%s: quadtree on a %d x %d map (procs %d..%d, %ld..%ld B), ",
           grid->name, grid->n_procs, grid->n_msgs, grid->procs[0],
           grid->procs[grid->n_procs - 1], grid->msgs[0],
           grid->msgs[grid->n_msgs - 1]);
    if (a.max_depth >= 0) {
        printf("max depth %d, ", a.max_depth);
    }
    printf("accuracy %g%%\n", a.accuracy_pct);
    long depth_sum = 0;
    print_penalty_header();
    score_decision(r, &f, 0, d, 0, -1, &s, &depth_sum);
    long points = s.n + s.n_unrunnable;
    print_penalty(grid->name, "quadtree", &s);
    print_default(r, &s);
    if (a.holdout_folds) {
        printf("held out (%s):\n", a.holdout_sizes ? "every other message "
                                                     "size"
                                                   : "folds of grid points");
        for (int fold = a.holdout_sizes; fold < a.holdout_folds; fold++) {
            decision_destroy(hd);
            hd = NULL;
            if (build_quadtree(&a, r, &f, fold, labels, cells, penalty, &hd)) {
                goto done;
            }
            score_decision(r, &f, 0, hd, 0, fold, &s, NULL);
        }
        print_penalty(grid->name, "quadtree held out", &s);
    }
    print_shape(d, depth_sum, points);
    char comment[256];
    snprintf(comment, sizeof comment,
             "Quadtree decision for %s (max depth "
             "%d, accuracy %g%%)",
             grid->name, a.max_depth, a.accuracy_pct);
    if (write_outputs(&a, d, comment)) {
        goto done;
    }
    status = 0;
done:
    free(cells);
    free(labels);
    free(penalty);
    free(s.v);
    decision_destroy(d);
    decision_destroy(hd);
    run_data_destroy(r);
    return status;
}
