/* Training a decision on a run's map: the label of each point (ties go to
 * the neighbour's method), held-out folds, C4.5 trees and quadtrees, leaves
 * by least penalty, and the penalties of a decision's choices
 * ([Pjesivac-Grbovic 2006]). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decision/c45.h"
#include "decision/decision.h"
#include "store/export.h"
#include "store/journal.h"
#include "util/grow.h"
#include "util/tuning.h"

void train_options_init(struct train_options *opt)
{
    memset(opt, 0, sizeof *opt);
    c45_options_init(&opt->c45);
    opt->max_depth = -1;
    opt->accuracy_pct = 100;
}

/* Adds the penalty of choosing method at cell of grid g. */
static void score_choice(const struct run_data *r, int g, long cell, int method,
                         struct train_scores *s)
{
    const struct run_grid *grid = &r->grids[g];
    double t = grid->time_us[cell * r->n_methods + method];
    if (grid->is_inferred && grid->is_inferred[cell]) {
        s->n_inferred++;
    } else if (t < 0) {
        s->n_unrunnable++;
    } else {
        double penalty = tuning_penalty(t, grid->best_us[cell]);
        s->v[s->n++] = penalty;
        if (s->on_miss && penalty > 0) {
            s->on_miss(s->miss_ctx, r, g, cell, method, penalty);
        }
    }
}

/* Penalties of d's choices for grid g (collective dc of d) on the cells
 * whose fold is fold (all cells when fold < 0); adds the depth of each. */
void train_score_decision(const struct train_options *opt,
                          const struct run_data *r, int g,
                          const struct decision *d, int dc, int fold,
                          struct train_scores *s, long *depth_sum)
{
    const struct run_grid *grid = &r->grids[g];
    if (dc < 0 || d->roots[dc] < 0) {
        return; /* nothing for this grid's collective and ppn */
    }
    for (int p = 0; p < grid->n_procs; p++) {
        for (int m = 0; m < grid->n_msgs; m++) {
            long cell = (long)p * grid->n_msgs + m;
            if (grid->best[cell] < 0 ||
                (fold >= 0 && train_fold_of(opt, r, g, cell) != fold)) {
                continue;
            }
            int k = decision_lookup(d, dc, grid->procs[p], grid->msgs[m]);
            /* a decision's methods start with the run's; one after them
             * (default/0 where the run never timed it) has no time */
            if (k >= r->n_methods) {
                s->n_untimed++;
            } else {
                score_choice(r, g, cell, k, s);
            }
            if (depth_sum) {
                *depth_sum +=
                    decision_depth(d, dc, grid->procs[p], grid->msgs[m]);
            }
        }
    }
}

void train_score_default(const struct run_data *r, int g,
                         struct train_scores *s)
{
    const struct run_grid *grid = &r->grids[g];
    for (long cell = 0; cell < (long)grid->n_procs * grid->n_msgs; cell++) {
        double t = grid->default_us[cell];
        if (grid->best[cell] >= 0 && t >= 0) {
            s->v[s->n++] = tuning_penalty(t, grid->best_us[cell]);
        }
    }
}

int train_scores_alloc(const struct run_data *r, struct train_scores *s)
{
    long cells = 0;
    for (int g = 0; g < r->n_grids; g++) {
        cells += (long)r->grids[g].n_procs * r->grids[g].n_msgs;
    }
    s->v = malloc((size_t)(cells + 1) * sizeof *s->v);
    s->n = s->n_unrunnable = s->n_inferred = s->n_untimed = 0;
    s->on_miss = NULL;
    s->miss_ctx = NULL;
    if (!s->v) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    return 0;
}

int train_create_decision(const struct run_data *r, const char *kind,
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
    int rc = decision_create(kind, r->n_methods, methods, n_colls, colls,
                             r->n_ppn > 0 ? r->n_ppn : 1,
                             r->n_ppn > 0 ? r->ppn : NULL, out);
    free(methods);
    if (rc == 0) {
        (*out)->chain_fanout = r->chain_fanout;
    }
    return rc;
}

int train_table(const struct decision *d, const struct run_data *r, int g)
{
    const struct run_grid *grid = &r->grids[g];
    int c = decision_find_collective(d, grid->name);
    int k = d->n_ppn == 1 ? 0 : decision_find_ppn(d, grid->ppn);
    return c < 0 || k < 0 ? -1 : decision_table(d, c, k);
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
void train_labels(const struct train_options *opt, const struct run_data *r,
                  int g, int skip, int *labels)
{
    const struct run_grid *grid = &r->grids[g];
    double limit = 1 + opt->near_pct / 100;
    for (int p = 0; p < grid->n_procs; p++) {
        int left = -1; /* the row's last label */
        for (int m = 0; m < grid->n_msgs; m++) {
            long c = (long)p * grid->n_msgs + m;
            int below = p > 0 ? labels[c - grid->n_msgs] : -1;
            labels[c] =
                train_is_training(opt, r, g, c, skip) ? grid->best[c] : -1;
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
        row[k] = t < 0 ? 1000 : tuning_penalty(t, grid->best_us[from]);
    }
}

/* The distinct collectives of grids g0..g1-1 into names (room for
 * g1 - g0), in grid order; their count. */
static int grid_collectives(const struct run_data *r, int g0, int g1,
                            const char **names)
{
    int n = 0;
    for (int g = g0; g < g1; g++) {
        int c = 0;
        while (c < n && strcmp(names[c], r->grids[g].name) != 0) {
            c++;
        }
        if (c == n) {
            names[n++] = r->grids[g].name;
        }
    }
    return n;
}

int run_data_collectives(const struct run_data *r, const char **names)
{
    return grid_collectives(r, 0, r->n_grids, names);
}

/* Grids g0..g1-1 are of several collectives: their data set has the
 * collective attribute. */
static bool has_collective_attr(const struct run_data *r, int g0, int g1)
{
    for (int g = g0 + 1; g < g1; g++) {
        if (strcmp(r->grids[g].name, r->grids[g0].name) != 0) {
            return true;
        }
    }
    return false;
}

/* The run has several ppn values: every data set has the ppn attribute. */
static bool has_ppn_attr(const struct run_data *r)
{
    return r->n_ppn > 1;
}

/* Items past the largest training size of each communicator size, where
 * the run has a calibration (between_beyond_times: what the exact decision
 * prices there): each labelled by the corrected model's fastest method,
 * with every method's penalty there and a case weight, the sizes of one
 * communicator size weighing one training size between them, so that the
 * tree's last cut is placed by the model and the leaf budget prices it.
 * Trees do not extrapolate: without these, the largest size's method holds
 * beyond it. */
struct beyond_item {
    int grid, procs, label;
    long msgs;
    float weight; /* a share of one training size (1 / BEYOND_ITEMS) */
    double stake; /* the penalty there of the largest size's label */
};
struct beyond_items {
    int n;
    size_t cap, penalty_cap;
    struct beyond_item *item;
    double *penalty; /* n x n_methods, fractions */
};

/* Sizes per communicator size past the largest training size. */
enum { BEYOND_ITEMS = 8 };

static void beyond_items_free(struct beyond_items *b)
{
    free(b->item);
    free(b->penalty);
    memset(b, 0, sizeof *b);
}

/* Room for one more item (and its n_methods penalties) in b. */
static int beyond_items_grow(struct beyond_items *b, int n_methods)
{
    size_t need = (size_t)b->n + 1;
    struct beyond_item *item = grow(b->item, &b->cap, need, sizeof *item, 64);
    b->item = item ? item : b->item;
    double *pen = item ? grow(b->penalty, &b->penalty_cap, need * n_methods,
                              sizeof *pen, 64 * (size_t)n_methods)
                       : NULL;
    b->penalty = pen ? pen : b->penalty;
    if (!pen) {
        fprintf(stderr, "autotune tree: out of memory\n");
        return -1;
    }
    return 0;
}

/* The items past the largest training size (labels: train_labels of grid
 * g) of each communicator size of grid g into b. */
static int beyond_of_grid(const struct run_data *r, int g, const int *labels,
                          struct beyond_items *b)
{
    const struct run_grid *grid = &r->grids[g];
    int nm = r->n_methods;
    long sizes[BEYOND_ITEMS];
    double *times = malloc((size_t)BEYOND_ITEMS * nm * sizeof *times);
    if (!times) {
        fprintf(stderr, "autotune tree: out of memory\n");
        return -1;
    }
    int rc = 0;
    for (int p = 0; p < grid->n_procs && rc == 0; p++) {
        long c = -1, c_below = -1;
        for (int m = grid->n_msgs - 1; m >= 0 && c_below < 0; m--) {
            long cell = (long)p * grid->n_msgs + m;
            if (labels[cell] >= 0) {
                *(c < 0 ? &c : &c_below) = cell;
            }
        }
        int n = c < 0 ? 0
                      : between_beyond_times(r, g, c, c_below, labels[c],
                                             BEYOND_ITEMS, sizes, times);
        for (int i = 0; i < n && rc == 0; i++) {
            const double *t = times + (size_t)i * nm;
            int best = labels[c];
            for (int k = 0; k < nm; k++) {
                best = t[k] > 0 && t[k] < t[best] ? k : best;
            }
            rc = beyond_items_grow(b, nm);
            if (rc) {
                break;
            }
            double *row = b->penalty + (size_t)b->n * nm;
            for (int k = 0; k < nm; k++) {
                /* a method the model does not price there: its penalty
                 * at the largest size */
                double own = grid->time_us[c * nm + k];
                row[k] = t[k] > 0   ? tuning_penalty(t[k], t[best])
                         : own >= 0 ? tuning_penalty(own, grid->best_us[c])
                                    : 1000;
            }
            b->item[b->n++] = (struct beyond_item){
                .grid = g,
                .procs = grid->procs[p],
                .label = best,
                .msgs = sizes[i],
                .weight = 1.0f / (float)n,
                .stake = row[labels[c]],
            };
        }
    }
    free(times);
    return rc;
}

/* The C4.5 data set of grids g0..g1-1 (with a collective attribute when
 * they are of several collectives, ranks per node when the run has
 * several values), only cells outside fold skip (all when skip < 0). */
/* The penalty at stake at training cell c of grid (labels: the training
 * labels): the largest penalty there of a neighbouring training point's
 * label (the nearest labelled along each axis, either side), what a leaf
 * that groups c with that neighbour would lose at c; a method that cannot
 * run there counts 1000 %. */
static double at_stake(const struct run_data *r, const struct run_grid *grid,
                       const int *labels, long c)
{
    int nm = r->n_methods, p = (int)(c / grid->n_msgs),
        m = (int)(c % grid->n_msgs);
    double x = 0;
    const double *t = grid->time_us + c * nm;
    for (int axis = 0; axis < 2; axis++) {
        int at = axis == 0 ? p : m,
            n = axis == 0 ? grid->n_procs : grid->n_msgs;
        for (int side = -1; side <= 1; side += 2) {
            for (int k = at + side; k >= 0 && k < n; k += side) {
                long o = axis == 0 ? (long)k * grid->n_msgs + m
                                   : (long)p * grid->n_msgs + k;
                if (labels[o] < 0) {
                    continue;
                }
                double pen =
                    t[labels[o]] < 0
                        ? 10
                        : tuning_penalty(t[labels[o]], grid->best_us[c]);
                x = pen > x ? pen : x;
                break;
            }
        }
    }
    return x;
}

/* The stake counted at most (a fraction): between sizes 256 times apart
 * (the default runs) a neighbour's label can be 10 times slower, and
 * weights of 200 left every other point, and the points past the largest
 * size, too light to split off (held out on default-grig and -frodo, with
 * no cap: bcast 2.93 and 4.20 % mean, as unweighted trees without the
 * model; at 50 %: 0.02 and 0.32 %). */
#define STAKE_MAX 0.5

/* The case weight of a point of this stake (a fraction), before the
 * weights are scaled to average 1: 1 + stake / opt->stake_pct (1 with
 * stake_pct 0). */
static double case_weight(const struct train_options *opt, double stake)
{
    return opt->stake_pct > 0
               ? 1 + 100 * fmin(stake, STAKE_MAX) / opt->stake_pct
               : 1;
}

/* An item's attribute values (train_c45_data's attributes) into v; their
 * count. */
static int item_values(bool has_coll, int coll, int procs, bool has_ppn,
                       int ppn, long msg_bytes, float *v)
{
    int n_v = 0;
    if (has_coll) {
        v[n_v++] = (float)(coll + 1);
    }
    v[n_v++] = (float)procs;
    if (has_ppn) {
        v[n_v++] = (float)ppn;
    }
    v[n_v++] = (float)msg_bytes;
    return n_v;
}

static int c45_data_of(const struct train_options *opt,
                       const struct run_data *r, int g0, int g1, int skip,
                       struct beyond_items *beyond, struct c45_data **out)
{
    struct c45_data *d = NULL;
    int *labels = NULL;
    bool has_coll = has_collective_attr(r, g0, g1), has_ppn = has_ppn_attr(r);
    const char **names = malloc((size_t)(g1 - g0) * sizeof *names);
    if (!names || c45_data_create(&d)) {
        free(names);
        return -1;
    }
    for (int k = 0; k < r->n_methods; k++) {
        if (c45_data_add_class(d, r->methods[k].label)) {
            goto fail;
        }
    }
    int n_names = grid_collectives(r, g0, g1, names);
    if ((has_coll && c45_data_add_discrete(d, "collective", n_names, names)) ||
        c45_data_add_continuous(d, "communicator_size") ||
        (has_ppn && c45_data_add_continuous(d, "ranks_per_node")) ||
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
        train_labels(opt, r, g, skip, labels);
        int coll = 0;
        while (strcmp(names[coll], grid->name) != 0) {
            coll++;
        }
        for (int p = 0; p < grid->n_procs; p++) {
            for (int m = 0; m < grid->n_msgs; m++) {
                long cell = (long)p * grid->n_msgs + m;
                float v[4];
                item_values(has_coll, coll, grid->procs[p], has_ppn, grid->ppn,
                            grid->msgs[m], v);
                double w =
                    opt->stake_pct > 0
                        ? case_weight(opt, at_stake(r, grid, labels, cell))
                        : 1;
                if (labels[cell] >= 0 &&
                    c45_data_add_weighted_item(d, v, labels[cell], (float)w)) {
                    goto fail;
                }
            }
        }
        int first = beyond ? beyond->n : 0;
        if (beyond && beyond_of_grid(r, g, labels, beyond)) {
            goto fail;
        }
        for (int i = first; beyond && i < beyond->n; i++) {
            float v[4];
            item_values(has_coll, coll, beyond->item[i].procs, has_ppn,
                        grid->ppn, beyond->item[i].msgs, v);
            double w = beyond->item[i].weight *
                       case_weight(opt, beyond->item[i].stake);
            if (c45_data_add_weighted_item(d, v, beyond->item[i].label,
                                           (float)w)) {
                goto fail;
            }
        }
    }
    if (d->n_items == 0) {
        fprintf(stderr, "autotune tree: no points to build from\n");
        goto fail;
    }
    /* case weights at stake average 1, as counts do: -m and C4.5's
     * least split keep their scale */
    if (opt->stake_pct > 0 && d->weights) {
        double sum = 0;
        for (int i = 0; i < d->n_items; i++) {
            sum += d->weights[i];
        }
        for (int i = 0; i < d->n_items; i++) {
            d->weights[i] = (float)(d->weights[i] * d->n_items / sum);
        }
    }
    free(labels);
    free(names);
    *out = d;
    return 0;
fail:
    free(labels);
    free(names);
    c45_data_destroy(d);
    return -1;
}

int train_c45_data(const struct train_options *opt, const struct run_data *r,
                   int g0, int g1, int skip, struct c45_data **out)
{
    return c45_data_of(opt, r, g0, g1, skip, NULL, out);
}

struct c45_result {
    struct c45_tree *tree; /* pruned */
    int leaves, errors, n_items;
    int c45_leaves;   /* of C4.5's pruned tree */
    int grown_leaves; /* of the tree C4.5 grows, with a leaf budget; 0 */
    double bound;     /* the leaves' worst training penalty allowed */
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

/* A C4.5 tree flattened in preorder (a parent before its children), for
 * the leaf budget: node i's children are kids[first[i]..first[i] +
 * nodes[i]->n_branches - 1]. */
struct flat_tree {
    int n;
    struct c45_node **nodes;
    int *first, *kids;
};

static int tree_nodes(const struct c45_node *n)
{
    int k = 1;
    for (int b = 0; b < n->n_branches; b++) {
        k += tree_nodes(n->branches[b]);
    }
    return k;
}

/* Appends n and its subtree; returns n's index. */
static int flatten(struct flat_tree *f, int *n_kids, struct c45_node *n)
{
    int i = f->n++;
    f->nodes[i] = n;
    f->first[i] = *n_kids;
    *n_kids += n->n_branches;
    for (int b = 0; b < n->n_branches; b++) {
        f->kids[f->first[i] + b] = flatten(f, n_kids, n->branches[b]);
    }
    return i;
}

/* The branch of test node n that an item of these values takes (the data
 * sets of train_c45_data have no unknown values). */
static int branch_of(const struct c45_node *n, const float *values)
{
    float v = values[n->attr];
    if (n->type == C45_TEST_CUT) {
        return v <= n->cut ? 0 : 1;
    }
    if (n->type == C45_TEST_SUBSET) {
        for (int b = 0; b < n->n_branches; b++) {
            if (n->subsets[b][(int)v]) {
                return b;
            }
        }
        return 0;
    }
    return (int)v - 1;
}

/* The least total penalty of node i's subtree cut to at most j leaves
 * (j = 1..max; cost[i * (max + 1) + j]); into knap (n_branches + 1 rows
 * of max + 1), the least of its first c children with at most j leaves
 * between them, each at least one. Children's costs first. */
static void knapsack(const struct flat_tree *f, int i, int max,
                     const double *cost, double *knap)
{
    int nb = f->nodes[i]->n_branches;
    for (int j = 0; j <= max; j++) {
        knap[j] = j == 0 ? 0 : HUGE_VAL;
    }
    for (int c = 1; c <= nb; c++) {
        const double *kid =
            cost + (size_t)f->kids[f->first[i] + c - 1] * (max + 1);
        double *row = knap + (size_t)c * (max + 1);
        const double *prev = row - (max + 1);
        for (int j = 0; j <= max; j++) {
            row[j] = HUGE_VAL;
            for (int t = 1; t <= j; t++) {
                if (prev[j - t] + kid[t] < row[j]) {
                    row[j] = prev[j - t] + kid[t];
                }
            }
        }
    }
}

/* Cuts node i's subtree to at most j leaves at the least total penalty
 * (cost, leaf: the one-leaf cost and method of each node), collapsing a
 * node where one leaf costs no more than its children. */
static int apply_budget(const struct flat_tree *f, int i, int j, int max,
                        const double *cost, const double *leaf_cost,
                        const int *leaf_method)
{
    struct c45_node *n = f->nodes[i];
    if (n->type == C45_LEAF) {
        return 0;
    }
    int nb = n->n_branches;
    if (j < nb || leaf_cost[i] <= cost[(size_t)i * (max + 1) + j]) {
        c45_node_make_leaf(n, leaf_method[i]);
        return 0;
    }
    double *knap = malloc((size_t)(nb + 1) * (max + 1) * sizeof *knap);
    if (!knap) {
        fprintf(stderr, "autotune tree: out of memory\n");
        return -1;
    }
    knapsack(f, i, max, cost, knap);
    /* from the last child back: the share t that reaches knap[c][j] */
    int rc = 0, left = j;
    for (int c = nb; c >= 1 && rc == 0; c--) {
        int kid = f->kids[f->first[i] + c - 1];
        const double *kc = cost + (size_t)kid * (max + 1);
        const double *prev = knap + (size_t)(c - 1) * (max + 1);
        double want = knap[(size_t)c * (max + 1) + left];
        int t = 1;
        while (t < left && prev[left - t] + kc[t] != want) {
            t++;
        }
        rc = apply_budget(f, kid, t, max, cost, leaf_cost, leaf_method);
        left -= t;
    }
    free(knap);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The least total penalty of each node's subtree cut to at most j leaves
 * (cost), each leaf's cost and method: among the methods whose worst
 * penalty over its points is at most bound, the least total (a leaf with
 * none costs HUGE_VAL). 0 or -1. */
static int dp_costs(const struct flat_tree *fp, const struct train_options *opt,
                    int nm, int max, const double *sum, const double *worst,
                    double bound, double *cost, double *leaf_cost,
                    int *leaf_method)
{
    const struct flat_tree f = *fp;
    int total = f.n;
    double *knap = NULL;
    for (int i = total - 1; i >= 0; i--) {
        const double *s = sum + (size_t)i * nm;
        const double *w = worst + (size_t)i * nm;
        int best = f.nodes[i]->leaf_class;
        for (int k = 0; k < nm && !opt->is_majority; k++) {
            bool ok = w[k] <= bound, best_ok = w[best] <= bound;
            best = (ok && !best_ok) || (ok == best_ok && s[k] < s[best]) ? k
                                                                         : best;
        }
        leaf_method[i] = best;
        leaf_cost[i] = w[best] <= bound ? s[best] : HUGE_VAL;
        double *ci = cost + (size_t)i * (max + 1);
        int nb = f.nodes[i]->n_branches;
        ci[0] = HUGE_VAL;
        for (int j = 1; j <= max; j++) {
            ci[j] = leaf_cost[i];
        }
        if (nb == 0) {
            continue;
        }
        free(knap);
        knap = malloc((size_t)(nb + 1) * (max + 1) * sizeof *knap);
        if (!knap) {
            fprintf(stderr, "autotune tree: out of memory\n");
            return -1;
        }
        knapsack(&f, i, max, cost, knap);
        for (int j = 1; j <= max; j++) {
            double split = knap[(size_t)nb * (max + 1) + j];
            ci[j] = split < ci[j] ? split : ci[j];
        }
    }
    free(knap);
    return 0;
}

/* Prunes tree (built from data, the training points of grids g0..g1-1
 * outside fold skip, in train_c45_data's order) to at most
 * opt->max_leaves leaves at the least total penalty over those points,
 * each leaf taking the method of its least penalty (C4.5's class with
 * is_majority): the subtrees kept are the ones that save the most
 * penalty, rather than C4.5's majority-class errors. An exact dynamic
 * programme over the tree's prunings (no greedy order). With
 * opt->is_worst_first, the least total among the cuts whose worst penalty
 * at a training point is the least any cut reaches (*bound_out: that
 * worst, which the leaves' methods keep; HUGE_VAL without). */
static int prune_to_budget(const struct train_options *opt,
                           const struct run_data *r, int g0, int g1, int skip,
                           const struct beyond_items *beyond,
                           const struct c45_data *data, struct c45_tree *tree,
                           double *bound_out)
{
    int max = opt->max_leaves, nm = r->n_methods, rc = -1;
    struct flat_tree f = {0};
    int total = tree_nodes(tree->root), n_kids = 0, item = 0;
    f.nodes = malloc((size_t)total * sizeof *f.nodes);
    f.first = malloc((size_t)total * sizeof *f.first);
    f.kids = malloc((size_t)total * sizeof *f.kids);
    double *sum = calloc((size_t)total * nm, sizeof *sum);
    double *worst = calloc((size_t)total * nm, sizeof *worst);
    double *raw = malloc((size_t)nm * sizeof *raw);
    double *row = malloc((size_t)nm * sizeof *row);
    double *cost = malloc((size_t)total * (max + 1) * sizeof *cost);
    double *leaf_cost = malloc((size_t)total * sizeof *leaf_cost);
    int *leaf_method = malloc((size_t)total * sizeof *leaf_method);
    if (!f.nodes || !f.first || !f.kids || !sum || !row || !cost ||
        !leaf_cost || !leaf_method || !worst || !raw) {
        fprintf(stderr, "autotune tree: out of memory\n");
        goto done;
    }
    flatten(&f, &n_kids, tree->root);
    /* the items in train_c45_data's order: each grid's points, then its
     * items past the largest size */
    for (int g = g0, b = 0; g < g1; g++) {
        const struct run_grid *grid = &r->grids[g];
        long n_cells = (long)grid->n_procs * grid->n_msgs;
        for (long c = 0;
             c < n_cells || (b < beyond->n && beyond->item[b].grid == g); c++) {
            if (c < n_cells) {
                if (!train_is_training(opt, r, g, c, skip)) {
                    continue;
                }
                penalty_row(r, grid, c, row);
                memcpy(raw, row, (size_t)nm * sizeof *raw);
            } else {
                for (int k = 0; k < nm; k++) {
                    raw[k] = beyond->penalty[b * nm + k];
                    row[k] = beyond->item[b].weight * raw[k];
                }
                b++;
            }
            const float *v = data->values + (size_t)item++ * data->n_attrs;
            for (int i = 0;;
                 i = f.kids[f.first[i] + branch_of(f.nodes[i], v)]) {
                for (int k = 0; k < nm; k++) {
                    sum[(size_t)i * nm + k] += row[k];
                    double *w = &worst[(size_t)i * nm + k];
                    *w = raw[k] > *w ? raw[k] : *w;
                }
                if (f.nodes[i]->type == C45_LEAF) {
                    break;
                }
            }
        }
    }
    double bound = HUGE_VAL;
    if (opt->is_worst_first) {
        /* the least worst training penalty any cut reaches: each node's
         * best method's worst is a candidate */
        double *cand = malloc((size_t)total * sizeof *cand);
        if (!cand) {
            goto done;
        }
        for (int i = 0; i < total; i++) {
            cand[i] = HUGE_VAL;
            for (int k = 0; k < nm; k++) {
                double w = worst[(size_t)i * nm + k];
                cand[i] = w < cand[i] ? w : cand[i];
            }
        }
        qsort(cand, (size_t)total, sizeof *cand, cmp_double);
        int lo = 0, hi = total - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (dp_costs(&f, opt, nm, max, sum, worst, cand[mid], cost,
                         leaf_cost, leaf_method) < 0) {
                free(cand);
                goto done;
            }
            if (isfinite(cost[max])) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        bound = cand[lo];
        free(cand);
    }
    *bound_out = bound;
    if (dp_costs(&f, opt, nm, max, sum, worst, bound, cost, leaf_cost,
                 leaf_method) < 0) {
        goto done;
    }
    rc = apply_budget(&f, 0, max, max, cost, leaf_cost, leaf_method);
done:
    free(f.nodes);
    free(f.first);
    free(f.kids);
    free(sum);
    free(worst);
    free(raw);
    free(row);
    free(cost);
    free(leaf_cost);
    free(leaf_method);
    return rc;
}

/* The leaves and training errors of res->tree over data's items. */
static int tree_stats(const struct c45_data *data, struct c45_result *res)
{
    res->n_items = data->n_items;
    res->errors = 0;
    for (int i = 0; i < data->n_items; i++) {
        int k;
        if (c45_classify(res->tree, data->values + (size_t)i * data->n_attrs,
                         &k)) {
            return -1;
        }
        res->errors += k != data->classes[i];
    }
    res->leaves = count_leaves(res->tree->root);
    return 0;
}

/* The tree of the training points of grids g0..g1-1 outside fold skip
 * (data): C4.5's pruned tree, or with a leaf budget (opt->max_leaves > 0)
 * the tree C4.5 grows, cut to at most that many leaves by penalty instead
 * of C4.5's pessimistic pruning (held out every other message size on the
 * committed runs, a little better than cutting the pruned tree, and much
 * better than cutting to the pruned tree's leaves: make bench-corrected). */
static int c45_grow(const struct train_options *opt, const struct run_data *r,
                    int g0, int g1, int skip, const struct beyond_items *beyond,
                    const struct c45_data *data, struct c45_result *res)
{
    struct c45_tree *raw = NULL;
    bool is_changed;
    memset(res, 0, sizeof *res);
    res->bound = HUGE_VAL;
    if (c45_build(data, &opt->c45, &raw) || c45_tree_copy(raw, &res->tree) ||
        c45_prune(res->tree, data, &opt->c45, &is_changed)) {
        c45_tree_destroy(raw);
        return -1;
    }
    res->predicted_pct = 100 * res->tree->root->errors / res->tree->root->items;
    res->c45_leaves = count_leaves(res->tree->root);
    if (opt->max_leaves > 0) {
        c45_tree_destroy(res->tree);
        res->tree = raw;
        raw = NULL;
        res->grown_leaves = count_leaves(res->tree->root);
        if (res->grown_leaves > opt->max_leaves &&
            prune_to_budget(opt, r, g0, g1, skip, beyond, data, res->tree,
                            &res->bound)) {
            return -1;
        }
    }
    c45_tree_destroy(raw);
    return tree_stats(data, res);
}

/* Gives each leaf of d that training points of grids g0..g1-1 (outside
 * fold skip) reach the method of the least total penalty over them (C4.5's
 * class on ties): C4.5 labels a leaf with its most common class, which
 * can be far off at the points where it is not the optimum. Returns the
 * number of leaves changed, or -1. */
static int leaves_by_penalty(const struct train_options *opt,
                             const struct run_data *r, int g0, int g1, int skip,
                             const struct beyond_items *beyond, double bound,
                             struct decision *d)
{
    int n = r->n_methods, n_changed = 0;
    double *sum = calloc((size_t)d->n_nodes * n, sizeof *sum);
    double *worst = calloc((size_t)d->n_nodes * n, sizeof *worst);
    double *row = malloc((size_t)n * sizeof *row);
    char *is_reached = calloc((size_t)d->n_nodes, 1);
    if (!sum || !worst || !row || !is_reached) {
        fprintf(stderr, "autotune tree: out of memory\n");
        n_changed = -1;
        goto done;
    }
    for (int g = g0; g < g1; g++) {
        const struct run_grid *grid = &r->grids[g];
        for (long c = 0; c < (long)grid->n_procs * grid->n_msgs; c++) {
            if (!train_is_training(opt, r, g, c, skip)) {
                continue;
            }
            int leaf = decision_leaf(d, train_table(d, r, g),
                                     grid->procs[c / grid->n_msgs],
                                     grid->msgs[c % grid->n_msgs]);
            penalty_row(r, grid, c, row);
            for (int k = 0; k < n; k++) {
                sum[(size_t)leaf * n + k] += row[k];
                double *w = &worst[(size_t)leaf * n + k];
                *w = row[k] > *w ? row[k] : *w;
            }
            is_reached[leaf] = 1;
        }
    }
    for (int b = 0; beyond && b < beyond->n; b++) {
        int g = beyond->item[b].grid;
        int leaf = decision_leaf(d, train_table(d, r, g), beyond->item[b].procs,
                                 beyond->item[b].msgs);
        for (int k = 0; k < n; k++) {
            double pen = beyond->penalty[(size_t)b * n + k];
            sum[(size_t)leaf * n + k] += beyond->item[b].weight * pen;
            double *w = &worst[(size_t)leaf * n + k];
            *w = pen > *w ? pen : *w;
        }
        is_reached[leaf] = 1;
    }
    for (int leaf = 0; leaf < d->n_nodes; leaf++) {
        if (!is_reached[leaf]) {
            continue;
        }
        const double *s_leaf = sum + (size_t)leaf * n;
        const double *w = worst + (size_t)leaf * n;
        int best = d->leaf_method[leaf];
        for (int k = 0; k < n; k++) {
            bool ok = w[k] <= bound, best_ok = w[best] <= bound;
            best =
                (ok && !best_ok) || (ok == best_ok && s_leaf[k] < s_leaf[best])
                    ? k
                    : best;
        }
        if (best != d->leaf_method[leaf]) {
            decision_set_leaf(d, leaf, best);
            n_changed++;
        }
    }
done:
    free(sum);
    free(worst);
    free(row);
    free(is_reached);
    return n_changed;
}

int train_leaves_by_penalty(const struct train_options *opt,
                            const struct run_data *r, int g0, int g1, int skip,
                            struct decision *d)
{
    return leaves_by_penalty(opt, r, g0, g1, skip, NULL, HUGE_VAL, d);
}

/* Splits leaf `node` (method k) so that the cell of cut index i on one
 * axis (values above cuts[i - 1], up to cuts[i]; the first and last cells
 * reach beyond) goes on at *node and the rest keeps k. */
static int isolate_cell(struct decision *d, int *node, bool is_procs,
                        const int64_t *cuts, int n, int i, int k)
{
    int lo, hi;
    if (i > 0) {
        if (decision_add_split(d, *node, is_procs, cuts[i - 1], &lo, &hi)) {
            return -1;
        }
        decision_set_leaf(d, lo, k);
        *node = hi;
    }
    if (i < n - 1) {
        if (decision_add_split(d, *node, is_procs, cuts[i], &lo, &hi)) {
            return -1;
        }
        decision_set_leaf(d, hi, k);
        *node = lo;
    }
    return 0;
}

int train_give_back(const struct train_options *opt, const struct run_data *r,
                    int g, int skip, struct decision *d, int dc)
{
    const struct run_grid *grid = &r->grids[g];
    int def = run_data_default_method(r), n_given = 0;
    int64_t *procs = malloc((size_t)grid->n_procs * sizeof *procs);
    int64_t *msgs = malloc((size_t)grid->n_msgs * sizeof *msgs);
    if (!procs || !msgs) {
        fprintf(stderr, "autotune: out of memory\n");
        n_given = -1;
        goto done;
    }
    for (int p = 0; p < grid->n_procs; p++) {
        procs[p] = grid->procs[p];
    }
    for (int m = 0; m < grid->n_msgs; m++) {
        msgs[m] = grid->msgs[m];
    }
    for (long c = 0; def >= 0 && c < (long)grid->n_procs * grid->n_msgs; c++) {
        int p = (int)(c / grid->n_msgs), m = (int)(c % grid->n_msgs);
        if (!train_is_training(opt, r, g, c, skip) || grid->best[c] != def) {
            continue;
        }
        int node = decision_leaf(d, dc, grid->procs[p], grid->msgs[m]);
        int k = d->leaf_method[node];
        if (k == def) {
            continue;
        }
        if (isolate_cell(d, &node, true, procs, grid->n_procs, p, k) ||
            isolate_cell(d, &node, false, msgs, grid->n_msgs, m, k)) {
            n_given = -1;
            goto done;
        }
        decision_set_leaf(d, node, def);
        n_given++;
    }
done:
    free(procs);
    free(msgs);
    return n_given;
}

int train_collective_end(const struct run_data *r, int g0)
{
    int g1 = g0 + 1;
    while (g1 < r->n_grids &&
           strcmp(r->grids[g1].name, r->grids[g0].name) == 0) {
        g1++;
    }
    return g1;
}

/* The tree of grids g0..g1-1 into each of their tables of d, specialised
 * to the table's collective and ppn. */
static int add_tree(const struct train_options *opt, const struct run_data *r,
                    int g0, int g1, const struct c45_tree *tree,
                    struct decision *d)
{
    for (int g = g0; g < g1; g++) {
        if (decision_add_c45(d, train_table(d, r, g), tree,
                             has_collective_attr(r, g0, g1), has_ppn_attr(r),
                             opt->max_depth)) {
            return -1;
        }
    }
    return 0;
}

/* The trees of one fold (skip < 0: all points) into a decision: one per
 * collective (over all its ranks per node), or one combined tree, with
 * leaves by penalty unless is_majority. Prints them when report. */
int train_trees(const struct train_options *opt, const struct run_data *r,
                int skip, FILE *report, struct decision *d)
{
    for (int g0 = 0, g1; g0 < r->n_grids; g0 = g1) {
        g1 = opt->is_combined ? r->n_grids : train_collective_end(r, g0);
        struct c45_data *data = NULL;
        struct c45_result res = {0};
        /* past the largest size as the exact decision prices it: with a
         * calibration, and cuts between sizes by the model's times */
        struct beyond_items beyond = {0};
        bool is_beyond = r->model && !opt->is_next_size && !opt->is_pair_only;
        int rc = c45_data_of(opt, r, g0, g1, skip, is_beyond ? &beyond : NULL,
                             &data) ||
                 c45_grow(opt, r, g0, g1, skip, &beyond, data, &res) ||
                 add_tree(opt, r, g0, g1, res.tree, d);
        int n_changed = 0, n_given = 0, n_third = 0;
        if (rc == 0 && !opt->is_majority) {
            n_changed =
                leaves_by_penalty(opt, r, g0, g1, skip, &beyond, res.bound, d);
            rc = n_changed < 0;
        }
        for (int g = g0; rc == 0 && g < g1; g++) {
            int table = train_table(d, r, g);
            int given = train_give_back(opt, r, g, skip, d, table);
            int third = given < 0 || opt->is_next_size
                            ? 0
                            : decision_place_cuts(opt, r, g, skip, d, table);
            rc = given < 0 || third < 0;
            n_given += given;
            n_third += third;
        }
        if (rc == 0 && report) {
            fprintf(report, "%s: C4.5 tree (-m %d -c %g) from %d points",
                    opt->is_combined ? "combined" : r->grids[g0].name,
                    opt->c45.min_objs, (double)(opt->c45.cf * 100),
                    data->n_items - beyond.n);
            if (beyond.n > 0) {
                fprintf(report,
                        " and %d past the largest training sizes (the "
                        "corrected model's fastest methods)",
                        beyond.n);
            }
            fprintf(report, "\n");
            c45_print_tree(report, res.tree, data);
            if (opt->max_depth >= 0) {
                fprintf(report,
                        "\n\n(used truncated to %d levels: a test that deep "
                        "becomes a leaf of the class C4.5 predicts there)",
                        opt->max_depth);
            }
            fprintf(report,
                    "\n\n%d leaves, size %d, training errors %d (%.1f%%)",
                    res.leaves, c45_tree_size(res.tree), res.errors,
                    100.0 * res.errors / res.n_items);
            if (opt->max_leaves > 0 && res.grown_leaves > opt->max_leaves) {
                fprintf(report,
                        "\n(the tree C4.5 grows, %d leaves, cut to at most "
                        "%d where that loses the least penalty: --leaves %d; "
                        "C4.5's pruning keeps %d)\n",
                        res.grown_leaves, opt->max_leaves, opt->max_leaves,
                        res.c45_leaves);
            } else if (opt->max_leaves > 0) {
                fprintf(report,
                        "\n(the tree C4.5 grows, within --leaves %d, not "
                        "pruned; C4.5's pruning keeps %d)\n",
                        opt->max_leaves, res.c45_leaves);
            } else {
                fprintf(report, ", predicted error %.1f%%\n",
                        (double)res.predicted_pct);
            }
            if (!opt->is_majority) {
                fprintf(report,
                        "(the decision gives %d of its leaves the method of "
                        "the least penalty over their points, not C4.5's "
                        "class)\n",
                        n_changed);
            }
            if (n_given > 0) {
                fprintf(report,
                        "(and gives %d points where the library's default "
                        "was measured faster back to default/0)\n",
                        n_given);
            }
            if (n_third > 0) {
                fprintf(report,
                        "(and gives %d third methods the sizes between two "
                        "training sizes where they are faster, in leaves of "
                        "their own; --between pair for none)\n",
                        n_third);
            }
            fprintf(report, "\n");
        }
        c45_tree_destroy(res.tree);
        c45_data_destroy(data);
        beyond_items_free(&beyond);
        if (rc) {
            return -1;
        }
    }
    return 0;
}

/* The cell nearest to (p, m) along axis (0: its column of procs, 1: its
 * row of message sizes; the smaller value first) that has a label, or
 * -1. */
static long nearest_labelled(const struct run_grid *grid, const int *labels,
                             int p, int m, int axis)
{
    int n = axis == 0 ? grid->n_procs : grid->n_msgs, at = axis == 0 ? p : m;
    for (int dist = 0; dist < n; dist++) {
        for (int side = -1; side <= 1; side += 2) {
            int k = at + side * dist;
            long cell = axis == 0 ? (long)k * grid->n_msgs + m
                                  : (long)p * grid->n_msgs + k;
            if (k >= 0 && k < n && labels[cell] >= 0) {
                return cell;
            }
        }
    }
    return -1;
}

/* The grid's map of training labels (train_labels) with the cells of fold
 * skip replaced by the nearest other cell of their row (the previous
 * message size first), or, when the whole row is held out, of their column
 * (the previous communicator size first); -1 if none; penalty (NULL: not
 * wanted) gets the penalties of the cell each label came from. labels:
 * scratch of the map's size. */
static int fill_map(const struct train_options *opt, const struct run_data *r,
                    int g, int skip, int *labels, int *cells, double *penalty)
{
    const struct run_grid *grid = &r->grids[g];
    train_labels(opt, r, g, skip, labels);
    for (int p = 0; p < grid->n_procs; p++) {
        for (int m = 0; m < grid->n_msgs; m++) {
            long cell = (long)p * grid->n_msgs + m;
            long from = nearest_labelled(grid, labels, p, m, 1);
            from = from >= 0 ? from : nearest_labelled(grid, labels, p, m, 0);
            if (from < 0) {
                fprintf(stderr,
                        "autotune quadtree: %s P=%d has no point to build "
                        "from\n",
                        grid->name, grid->procs[p]);
                return -1;
            }
            cells[cell] = labels[from];
            if (penalty) {
                penalty_row(r, grid, from, penalty + cell * r->n_methods);
            }
        }
    }
    return 0;
}

/* The quadtree of grid g into its table of d. */
static int quadtree_of_grid(const struct train_options *opt,
                            const struct run_data *r, int g, int skip,
                            struct decision *d)
{
    const struct run_grid *grid = &r->grids[g];
    size_t n_cells = (size_t)grid->n_procs * grid->n_msgs;
    int *cells = malloc(n_cells * sizeof *cells);
    int *labels = malloc(n_cells * sizeof *labels);
    double *penalty = NULL;
    int rc = -1, table = train_table(d, r, g);
    if (!opt->is_majority) {
        penalty = malloc(n_cells * r->n_methods * sizeof *penalty);
    }
    if (!cells || !labels || (!opt->is_majority && !penalty)) {
        fprintf(stderr, "autotune quadtree: out of memory\n");
        goto done;
    }
    struct quadtree_input in = {grid->n_procs, grid->n_msgs, grid->procs,
                                grid->msgs,    cells,        penalty};
    if (fill_map(opt, r, g, skip, labels, cells, penalty) ||
        quadtree_build(d, table, &in, opt->max_depth, opt->accuracy_pct) ||
        train_give_back(opt, r, g, skip, d, table) < 0 ||
        (!opt->is_next_size &&
         decision_place_cuts(opt, r, g, skip, d, table) < 0)) {
        goto done;
    }
    rc = 0;
done:
    free(cells);
    free(labels);
    free(penalty);
    return rc;
}

int train_quadtree(const struct train_options *opt, const struct run_data *r,
                   int skip, struct decision **out)
{
    const char *coll = r->grids[0].name;
    *out = NULL;
    if (train_create_decision(r, "quadtree", &coll, 1, out)) {
        return -1;
    }
    /* One quadtree per ranks per node (the first grid's collective). */
    for (int g = 0; g < train_collective_end(r, 0); g++) {
        if (quadtree_of_grid(opt, r, g, skip, *out)) {
            return -1;
        }
    }
    return 0;
}

/* Gives d, built over other methods, the run's: each leaf the run's index
 * of its label. A label the run lacks (default/0 of a run that never timed
 * it, on procs outside the measured ones, which no score reaches) comes
 * after the run's methods, so the decision still says it. */
static int adopt_run_methods(struct decision *d, const struct run_data *r)
{
    int n = r->n_methods;
    char(*methods)[RUN_LABEL_MAX] =
        calloc((size_t)(n + d->n_methods), sizeof *methods);
    int *to = malloc((size_t)d->n_methods * sizeof *to);
    if (!methods || !to) {
        free(methods);
        free(to);
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    for (int k = 0; k < r->n_methods; k++) {
        snprintf(methods[k], sizeof methods[k], "%s", r->methods[k].label);
    }
    for (int k = 0; k < d->n_methods; k++) {
        to[k] = run_data_find_method(r, d->methods[k]);
        if (to[k] < 0) {
            snprintf(methods[n], sizeof methods[n], "%s", d->methods[k]);
            to[k] = n++;
        }
    }
    for (int i = 0; i < d->n_nodes; i++) {
        if (d->leaf_method[i] >= 0) {
            d->leaf_method[i] = to[d->leaf_method[i]];
        }
    }
    free(to);
    free(d->methods);
    d->methods = methods;
    d->n_methods = n;
    return decision_prepare(d);
}

int train_exact(const struct train_options *opt, const struct run_data *r,
                int skip, struct decision **out)
{
    size_t n = 0, cap = 1;
    for (int g = 0; g < r->n_grids; g++) {
        cap += (size_t)r->grids[g].n_procs * r->grids[g].n_msgs;
    }
    struct measurement *rows = calloc(cap, sizeof *rows);
    long *msg_cuts = NULL, *procs_cuts = NULL;
    struct export_insert *inserts = NULL;
    size_t n_inserts = 0;
    int rc = -1;
    *out = NULL;
    if (!rows) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    for (int g = 0; g < r->n_grids; g++) {
        const struct run_grid *grid = &r->grids[g];
        for (long c = 0; c < (long)grid->n_procs * grid->n_msgs; c++) {
            if (!train_is_training(opt, r, g, c, skip)) {
                continue;
            }
            const struct run_method *k = &r->methods[grid->best[c]];
            struct measurement *row = &rows[n++];
            snprintf(row->collective, sizeof row->collective, "%s", grid->name);
            snprintf(row->algorithm, sizeof row->algorithm, "%s", k->algorithm);
            row->procs = grid->procs[c / grid->n_msgs];
            row->ppn = grid->ppn;
            row->msg_bytes = grid->msgs[c % grid->n_msgs];
            row->segment_bytes = k->segment_bytes;
            row->is_applicable = 1;
        }
    }
    /* the cuts the exports take between the training rows */
    if ((!opt->is_next_size &&
         between_table_cuts(r, rows, n, &msg_cuts, &procs_cuts,
                            opt->is_pair_only ? NULL : &inserts,
                            &n_inserts) != 0) ||
        decision_from_table(rows, n, msg_cuts, procs_cuts, inserts, n_inserts,
                            out) != 0 ||
        adopt_run_methods(*out, r) != 0) {
        goto done;
    }
    (*out)->chain_fanout = r->chain_fanout;
    rc = decision_prepare(*out);
done:
    free(rows);
    free(msg_cuts);
    free(procs_cuts);
    free(inserts);
    return rc;
}
