/* C4.5 release 8 tree growing and pessimistic pruning. Counts, gains and
 * thresholds are float and every tie rule is kept, so trees match c4.5's. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decision/c45_impl.h"

#define LN2 0.69314718055994530942

/* Working state of one build or prune. Cases are reordered in place through
 * item[] (position -> item index) with weight[] following them, because the
 * order of float sums over fractional weights is part of the result. */
struct c45_ctx {
    const struct c45_data *d;
    struct c45_options opt;
    float coeff;
    int n_attrs, n_classes, n_items;
    int *item;
    float *weight;
    bool is_all_known;   /* no unknown value met on the path: weights are 1 */
    bool is_multi_val;   /* every attribute has many values: all in average */
    int rows;            /* rows of freq */
    float *freq;         /* rows x n_classes */
    float *val_freq;     /* rows */
    float *mfreq, *mval; /* a merged partition (-s) */
    float *split_gain, *split_info; /* per case position */
    int *tested;
    float *gain, *info, *bar;
    bool *in_average;
    int *block;   /* n_attrs x rows: value -> subset number, 0 if absent */
    int *n_block; /* per attribute: subsets chosen, 0 if not a subset test */
    bool is_changed;
    bool is_oom;
};

double c45_log2(double x)
{
    return x <= 0 ? 0.0 : log(x) / LN2;
}

float c45_total_info(const float *v, int lo, int hi)
{
    float sum = 0, total = 0;
    for (int i = lo; i <= hi; i++) {
        float n = v[i];
        /* R8 adds a double term to a float sum, rounding each step. */
        sum = (float)(sum + n * c45_log2(n));
        total += n;
    }
    return (float)(total * c45_log2(total) - sum);
}

float c45_coeff(float cf)
{
    static const float val[] = {0,    0.001f, 0.005f, 0.01f, 0.05f,
                                0.1f, 0.2f,   0.4f,   1.0f};
    static const float dev[] = {4.0f,  3.09f, 2.58f, 2.33f, 1.65f,
                                1.28f, 0.84f, 0.25f, 0.0f};
    int i = 0;
    while (i < 8 && cf > val[i]) {
        i++;
    }
    if (i == 0) {
        return dev[0] * dev[0];
    }
    float z = dev[i - 1] +
              (dev[i] - dev[i - 1]) * (cf - val[i - 1]) / (val[i] - val[i - 1]);
    return z * z;
}

float c45_add_errs(float n, float e, float cf, float coeff)
{
    if (n <= 0) {
        return 0; /* also for cf = 1, where the formula gives 0/0 */
    }
    if (e < 1E-6) {
        return (float)(n * (1 - exp(log(cf) / n)));
    }
    if (e < 0.9999) {
        float v0 = (float)(n * (1 - exp(log(cf) / n)));
        return v0 + e * (c45_add_errs(n, 1.0f, cf, coeff) - v0);
    }
    if (e + 0.5 >= n) {
        return (float)(0.67 * (n - e));
    }
    float pr =
        (float)((e + 0.5 + coeff / 2 +
                 sqrt(coeff * ((e + 0.5) * (1 - (e + 0.5) / n) + coeff / 4))) /
                (n + coeff));
    return n * pr - e;
}

/* Gain ratio counts only for tests with at least average gain, which keeps
 * a test with tiny gain and tinier split info from winning. */
int c45_choose_attr(int n_attrs, const float *gain, const float *info,
                    const bool *in_average, bool use_gain)
{
    float av_gain = 0;
    int possible = 0;
    for (int a = 0; a < n_attrs; a++) {
        if (gain[a] > -C45_EPSILON && in_average[a]) {
            possible++;
            av_gain += gain[a];
        }
    }
    av_gain = possible ? av_gain / (float)possible : 1E6f;

    int best = -1;
    float best_val = (float)-C45_EPSILON;
    for (int a = 0; a < n_attrs; a++) {
        if (!(gain[a] > -C45_EPSILON)) {
            continue;
        }
        float val;
        if (use_gain) {
            val = info[a] > 0 ? gain[a] : (float)-C45_EPSILON;
        } else {
            val = gain[a] >= av_gain - C45_EPSILON && info[a] > C45_EPSILON
                      ? gain[a] / info[a]
                      : (float)-C45_EPSILON;
        }
        if (val > best_val) {
            best = a;
            best_val = val;
        }
    }
    return best;
}

float c45_greatest_value_below(const struct c45_data *d, int a, float bar)
{
    float best = -1E30f;
    for (int i = 0; i < d->n_items; i++) {
        float v = d->values[(size_t)i * d->n_attrs + a];
        if (v != C45_UNKNOWN_CONTINUOUS && v <= bar && v > best) {
            best = v;
        }
    }
    return best;
}

float c45_compute_gain(const float *freq, const float *val_freq, int n_classes,
                       int max_val, float base_info, float unknown_rate,
                       float known, int min_objs)
{
    if (known <= 0) {
        return (float)-C45_EPSILON;
    }
    int reasonable = 0;
    for (int v = 1; v <= max_val; v++) {
        if (val_freq[v] >= (float)min_objs) {
            reasonable++;
        }
    }
    if (reasonable < 2) {
        return (float)-C45_EPSILON;
    }
    float this_info = 0;
    for (int v = 1; v <= max_val; v++) {
        this_info +=
            c45_total_info(freq + (size_t)v * n_classes, 0, n_classes - 1);
    }
    return (1 - unknown_rate) * (base_info - this_info / known);
}

static const float *row_at(const struct c45_ctx *c, int pos)
{
    return c->d->values + (size_t)c->item[pos] * c->n_attrs;
}

static float cval(const struct c45_ctx *c, int pos, int a)
{
    return row_at(c, pos)[a];
}

static int class_at(const struct c45_ctx *c, int pos)
{
    return c->d->classes[c->item[pos]];
}

static void swap_cases(struct c45_ctx *c, int a, int b)
{
    int i = c->item[a];
    c->item[a] = c->item[b];
    c->item[b] = i;
    float w = c->weight[a];
    c->weight[a] = c->weight[b];
    c->weight[b] = w;
}

/* While no unknown value has been met the weights are all 1, and release 8
 * counts instead of summing; after a restore by division they may not be. */
static float count_items(const struct c45_ctx *c, int fp, int lp)
{
    if (c->is_all_known) {
        return (float)(lp - fp + 1);
    }
    float sum = 0;
    for (int i = fp; i <= lp; i++) {
        sum += c->weight[i];
    }
    return sum;
}

static float *freq_row(struct c45_ctx *c, int v)
{
    return c->freq + (size_t)v * c->n_classes;
}

static void reset_freq(struct c45_ctx *c, int max_val)
{
    memset(c->freq, 0, sizeof(float) * (size_t)(max_val + 1) * c->n_classes);
    memset(c->val_freq, 0, sizeof(float) * (size_t)(max_val + 1));
}

/* Branch (1-based) an item takes at a test; 0 for unknown, or a value that no
 * subset holds. */
static int outcome(const struct c45_node *t, const float *vals)
{
    float v = vals[t->attr];
    switch (t->type) {
    case C45_TEST_DISCRETE:
        return (int)v;
    case C45_TEST_CUT:
        if (v == C45_UNKNOWN_CONTINUOUS) {
            return 0;
        }
        return v <= t->cut ? 1 : 2;
    case C45_TEST_SUBSET: {
        int dv = (int)v;
        if (dv == 0) {
            return 0;
        }
        for (int b = 0; b < t->n_branches; b++) {
            if (t->subsets[b][dv]) {
                return b + 1;
            }
        }
        return 0;
    }
    case C45_LEAF:
        break;
    }
    assert(0);
    return 0;
}

/* Moves the cases in [bp, ep] that take branch v to the front of the range;
 * returns the last of them (bp - 1 if none). */
static int group_cases(struct c45_ctx *c, int v, int bp, int ep,
                       const struct c45_node *t)
{
    for (int i = bp; i <= ep; i++) {
        if (outcome(t, row_at(c, i)) == v) {
            swap_cases(c, bp, i);
            bp++;
        }
    }
    return bp - 1;
}

/* Three-way quicksort on attribute a, pivot the last case. */
static void sort_cases(struct c45_ctx *c, int lo, int hi, int a)
{
    while (lo < hi) {
        float pivot = cval(c, hi, a);
        int lt = lo, i = lo, gt = hi;
        while (i <= gt) {
            float v = cval(c, i, a);
            if (v < pivot) {
                swap_cases(c, lt++, i++);
            } else if (v > pivot) {
                swap_cases(c, i, gt--);
            } else {
                i++;
            }
        }
        if (lt - lo < hi - gt) {
            sort_cases(c, lo, lt - 1, a);
            lo = gt + 1;
        } else {
            sort_cases(c, gt + 1, hi, a);
            hi = lt - 1;
        }
    }
}

static void compute_frequencies(struct c45_ctx *c, int a, int fp, int lp)
{
    int nv = c->d->attrs[a].n_values;
    reset_freq(c, nv);
    for (int i = fp; i <= lp; i++) {
        int dv = (int)cval(c, i, a);
        freq_row(c, dv)[class_at(c, i)] += c->weight[i];
    }
    for (int v = 0; v <= nv; v++) {
        float sum = 0;
        for (int k = 0; k < c->n_classes; k++) {
            sum += freq_row(c, v)[k];
        }
        c->val_freq[v] = sum;
    }
}

/* Entropy (times weight) of the known cases, summed in double as R8 does. */
static float discr_known_base_info(struct c45_ctx *c, float known, int max_val)
{
    double sum = 0;
    for (int k = 0; k < c->n_classes; k++) {
        float count = 0;
        for (int v = 1; v <= max_val; v++) {
            count += freq_row(c, v)[k];
        }
        sum += count * c45_log2(count);
    }
    return (float)((known * c45_log2(known) - sum) / known);
}

static float gain_of(struct c45_ctx *c, float base_info, float unknown_rate,
                     int max_val, float known)
{
    return c45_compute_gain(c->freq, c->val_freq, c->n_classes, max_val,
                            base_info, unknown_rate, known, c->opt.min_objs);
}

static void eval_discrete(struct c45_ctx *c, int a, int fp, int lp, float items)
{
    int nv = c->d->attrs[a].n_values;
    compute_frequencies(c, a, fp, lp);
    float known = items - c->val_freq[0];
    if (items <= c->val_freq[0]) {
        c->gain[a] = (float)-C45_EPSILON;
        c->info[a] = 0;
        return;
    }
    float unknown_rate = c->val_freq[0] / items;
    float base_info = discr_known_base_info(c, known, nv);
    c->gain[a] = gain_of(c, base_info, unknown_rate, nv, known);
    c->info[a] = c45_total_info(c->val_freq, 0, nv) / items;
}

static void eval_continuous(struct c45_ctx *c, int a, int fp, int lp)
{
    float items = count_items(c, fp, lp);
    c->gain[a] = (float)-C45_EPSILON;
    c->info[a] = 0;
    reset_freq(c, 2);

    /* Unknowns go to the front; only known values are sorted and cut. */
    int xp = fp;
    for (int i = fp; i <= lp; i++) {
        if (cval(c, i, a) == C45_UNKNOWN_CONTINUOUS) {
            freq_row(c, 0)[class_at(c, i)] += c->weight[i];
            swap_cases(c, xp, i);
            xp++;
        }
    }
    for (int k = 0; k < c->n_classes; k++) {
        c->val_freq[0] += freq_row(c, 0)[k];
    }
    float known = items - c->val_freq[0];
    float unknown_rate = (float)(1.0 - known / items);
    if (known < (float)(2 * c->opt.min_objs)) {
        return;
    }
    sort_cases(c, xp, lp, a);

    float *low = freq_row(c, 1), *high = freq_row(c, 2);
    for (int i = xp; i <= lp; i++) {
        high[class_at(c, i)] += c->weight[i];
        c->split_gain[i] = (float)-C45_EPSILON;
        c->split_info[i] = 0;
    }
    float base_info = c45_total_info(high, 0, c->n_classes - 1) / known;

    /* Cuts must leave MinSplit on each side; MinSplit is capped at 25 even
     * when -m is larger, so such cuts count as tries yet never gain. */
    float min_split = (float)(0.10 * known / c->n_classes);
    if (min_split <= (float)c->opt.min_objs) {
        min_split = (float)c->opt.min_objs;
    } else if (min_split > 25) {
        min_split = 25;
    }
    float low_items = 0;
    int tries = 0;
    for (int i = xp; i < lp; i++) {
        int k = class_at(c, i);
        float w = c->weight[i];
        low_items += w;
        low[k] += w;
        high[k] -= w;
        if (low_items < min_split) {
            continue;
        }
        if (low_items > known - min_split) {
            break;
        }
        if (cval(c, i, a) < cval(c, i + 1, a) - 1E-5) {
            c->val_freq[1] = low_items;
            c->val_freq[2] = known - low_items;
            c->split_gain[i] = gain_of(c, base_info, unknown_rate, 2, known);
            c->split_info[i] = c45_total_info(c->val_freq, 0, 2) / items;
            tries++;
        }
    }

    /* The MDL cost of choosing among the cuts tried; lowest cut on ties. */
    float thresh_cost = (float)(c45_log2(tries) / items);
    float best_val = 0;
    int best = -1;
    for (int i = xp; i < lp; i++) {
        float val = c->split_gain[i] - thresh_cost;
        if (val > best_val) {
            best = i;
            best_val = val;
        }
    }
    if (best < 0) {
        return;
    }
    c->bar[a] = (cval(c, best, a) + cval(c, best + 1, a)) / 2;
    c->gain[a] = best_val;
    c->info[a] = c->split_info[best];
}

/* Worth of a partition while merging subsets: gain ratio, or gain with -g. */
static float subset_worth(const struct c45_ctx *c, float gain, float info)
{
    if (c->opt.use_gain) {
        return info > 0 && gain > -C45_EPSILON ? gain : (float)-C45_EPSILON;
    }
    return gain >= 0 && info > C45_EPSILON ? gain / info : (float)-C45_EPSILON;
}

/* Copies the blocks 1..blocks of freq into mfreq with block b2 merged into
 * b1 and the later blocks moved up one. */
static void merge_blocks(struct c45_ctx *c, int blocks, int b1, int b2)
{
    size_t row = (size_t)c->n_classes;
    c->mval[0] = c->val_freq[0];
    memcpy(c->mfreq, c->freq, sizeof(float) * row);
    for (int b = 1, m = 1; b <= blocks; b++) {
        if (b == b2) {
            continue;
        }
        memcpy(c->mfreq + m * row, freq_row(c, b), sizeof(float) * row);
        c->mval[m] = c->val_freq[b];
        if (b == b1) {
            for (size_t k = 0; k < row; k++) {
                c->mfreq[m * row + k] += freq_row(c, b2)[k];
            }
            c->mval[m] += c->val_freq[b2];
        }
        m++;
    }
}

/* Groups of values (-s): start with one block per value present, then merge
 * the pair of blocks giving the best split as long as that improves it. */
static void eval_subset(struct c45_ctx *c, int a, int fp, int lp, float items)
{
    int nv = c->d->attrs[a].n_values;
    int *block = c->block + (size_t)a * c->rows;
    c->n_block[a] = 0;
    compute_frequencies(c, a, fp, lp);
    if (items <= c->val_freq[0]) {
        c->gain[a] = (float)-C45_EPSILON;
        c->info[a] = 0;
        return;
    }
    float known = items - c->val_freq[0];
    float unknown_rate = c->val_freq[0] / items;
    float base_info = discr_known_base_info(c, known, nv);

    int blocks = 0;
    for (int v = 1; v <= nv; v++) {
        block[v] = 0;
        if (c->val_freq[v] > 0) {
            blocks++;
            block[v] = blocks;
            memmove(freq_row(c, blocks), freq_row(c, v),
                    sizeof(float) * c->n_classes);
            c->val_freq[blocks] = c->val_freq[v];
        }
    }
    int initial_blocks = blocks;
    float cur_gain = gain_of(c, base_info, unknown_rate, blocks, known);
    float cur_info = c45_total_info(c->val_freq, 0, blocks) / items;
    float cur_val = subset_worth(c, cur_gain, cur_info);

    while (blocks > 2) {
        int best1 = 0, best2 = 0;
        float best_val = cur_val, best_gain = 0, best_info = 0;
        for (int b1 = 1; b1 < blocks; b1++) {
            for (int b2 = b1 + 1; b2 <= blocks; b2++) {
                merge_blocks(c, blocks, b1, b2);
                float g = c45_compute_gain(c->mfreq, c->mval, c->n_classes,
                                           blocks - 1, base_info, unknown_rate,
                                           known, c->opt.min_objs);
                float inf = c45_total_info(c->mval, 0, blocks - 1) / items;
                float val = subset_worth(c, g, inf);
                if (val > best_val) {
                    best1 = b1;
                    best2 = b2;
                    best_val = val;
                    best_gain = g;
                    best_info = inf;
                }
            }
        }
        if (!best1) {
            break;
        }
        merge_blocks(c, blocks, best1, best2);
        memcpy(c->freq, c->mfreq,
               sizeof(float) * (size_t)blocks * c->n_classes);
        memcpy(c->val_freq, c->mval, sizeof(float) * (size_t)blocks);
        for (int v = 1; v <= nv; v++) {
            if (block[v] == best2) {
                block[v] = best1;
            } else if (block[v] > best2) {
                block[v]--;
            }
        }
        blocks--;
        cur_val = best_val;
        cur_gain = best_gain;
        cur_info = best_info;
    }
    c->gain[a] = cur_gain;
    c->info[a] = cur_info;
    c->n_block[a] = blocks < initial_blocks ? blocks : 0;
}

static void node_free_contents(struct c45_node *t);

static void node_destroy(struct c45_node *t)
{
    if (t) {
        node_free_contents(t);
        free(t);
    }
}

static void node_free_branches(struct c45_node *t)
{
    for (int b = 0; b < t->n_branches; b++) {
        node_destroy(t->branches[b]);
        if (t->subsets) {
            free(t->subsets[b]);
        }
    }
    free(t->branches);
    free(t->subsets);
    t->branches = NULL;
    t->subsets = NULL;
    t->n_branches = 0;
}

static void node_free_contents(struct c45_node *t)
{
    node_free_branches(t);
    free(t->class_dist);
    t->class_dist = NULL;
}

static struct c45_node *leaf_create(struct c45_ctx *c, const float *dist,
                                    int leaf_class, float items, float errors)
{
    struct c45_node *t = calloc(1, sizeof *t);
    float *copy = malloc(sizeof(float) * (size_t)c->n_classes);
    if (!t || !copy) {
        free(t);
        free(copy);
        c->is_oom = true;
        return NULL;
    }
    memcpy(copy, dist, sizeof(float) * (size_t)c->n_classes);
    t->type = C45_LEAF;
    t->leaf_class = leaf_class;
    t->items = items;
    t->errors = errors;
    t->class_dist = copy;
    t->attr = -1;
    return t;
}

/* Turns leaf t into a test with n empty branches (and subsets if asked). */
static int make_test(struct c45_ctx *c, struct c45_node *t,
                     enum c45_node_type type, int a, int n)
{
    int nv = c->d->attrs[a].n_values;
    t->branches = calloc((size_t)n, sizeof(struct c45_node *));
    if (!t->branches) {
        c->is_oom = true;
        return -1;
    }
    t->n_branches = n;
    t->type = type;
    t->attr = a;
    if (type == C45_TEST_SUBSET) {
        t->n_values = nv;
        t->subsets = calloc((size_t)n, sizeof *t->subsets);
        if (!t->subsets) {
            c->is_oom = true;
            return -1;
        }
        for (int b = 0; b < n; b++) {
            t->subsets[b] = calloc((size_t)nv + 1, sizeof(bool));
            if (!t->subsets[b]) {
                c->is_oom = true;
                return -1;
            }
        }
    }
    return 0;
}

static int setup_test(struct c45_ctx *c, struct c45_node *t, int a)
{
    const struct c45_attr *at = &c->d->attrs[a];
    if (at->kind == C45_CONTINUOUS) {
        if (make_test(c, t, C45_TEST_CUT, a, 2)) {
            return -1;
        }
        t->cut = c45_greatest_value_below(c->d, a, c->bar[a]);
        return 0;
    }
    if (c->n_block[a] == 0) {
        return make_test(c, t, C45_TEST_DISCRETE, a, at->n_values);
    }
    if (make_test(c, t, C45_TEST_SUBSET, a, c->n_block[a])) {
        return -1;
    }
    const int *block = c->block + (size_t)a * c->rows;
    for (int v = 1; v <= at->n_values; v++) {
        if (block[v]) {
            t->subsets[block[v] - 1][v] = true;
        }
    }
    return 0;
}

static struct c45_node *form_tree(struct c45_ctx *c, int fp, int lp)
{
    int nc = c->n_classes;
    float *dist = calloc((size_t)nc, sizeof(float));
    struct c45_node *t = NULL;
    if (!dist) {
        c->is_oom = true;
        return NULL;
    }
    float cases = count_items(c, fp, lp);
    for (int i = fp; i <= lp; i++) {
        dist[class_at(c, i)] += c->weight[i];
    }
    int best_class = 0;
    for (int k = 1; k < nc; k++) {
        if (dist[k] > dist[best_class]) {
            best_class = k;
        }
    }
    float best_items = dist[best_class];
    t = leaf_create(c, dist, best_class, cases, cases - best_items);
    if (!t || best_items == cases || cases < (float)(2 * c->opt.min_objs)) {
        goto done;
    }

    for (int a = 0; a < c->n_attrs; a++) {
        const struct c45_attr *at = &c->d->attrs[a];
        c->gain[a] = (float)-C45_EPSILON;
        c->info[a] = 0;
        c->n_block[a] = 0;
        c->in_average[a] = false;
        if (at->kind == C45_IGNORE) {
            continue;
        }
        int n_values = 0;
        if (at->kind == C45_DISCRETE) {
            n_values = at->n_values;
            if (c->opt.subsetting) {
                eval_subset(c, a, fp, lp, cases);
            } else if (!c->tested[a]) {
                eval_discrete(c, a, fp, lp, cases);
            }
        } else {
            eval_continuous(c, a, fp, lp);
        }
        c->in_average[a] = c->is_multi_val || n_values < 0.3 * c->n_items;
    }
    int att = c45_choose_attr(c->n_attrs, c->gain, c->info, c->in_average,
                              c->opt.use_gain);
    if (att < 0 || setup_test(c, t, att)) {
        goto done;
    }

    /* Cases with an unknown value go down every branch, their weight scaled
     * by the share of known cases that branch takes. */
    int kp = group_cases(c, 0, fp, lp, t) + 1;
    bool was_all_known = c->is_all_known;
    if (kp != fp) {
        c->is_all_known = false;
    }
    float known_cases = cases - count_items(c, fp, kp - 1);
    c->tested[att]++;
    t->errors = 0;
    for (int b = 0; b < t->n_branches; b++) {
        int ep = group_cases(c, b + 1, kp, lp, t);
        if (kp <= ep) {
            float factor = count_items(c, kp, ep) / known_cases;
            for (int i = fp; i < kp; i++) {
                c->weight[i] *= factor;
            }
            t->branches[b] = form_tree(c, fp, ep);
            if (!t->branches[b]) {
                break;
            }
            t->errors += t->branches[b]->errors;
            group_cases(c, 0, fp, ep, t);
            for (int i = fp; i < kp; i++) {
                c->weight[i] /= factor;
            }
        } else {
            t->branches[b] = leaf_create(c, dist, best_class, 0, 0);
            if (!t->branches[b]) {
                break;
            }
        }
    }
    c->tested[att]--;
    c->is_all_known = was_all_known;

    /* A subtree no better than a leaf on the training cases is collapsed;
     * the node keeps the subtree's summed errors. */
    if (!c->is_oom && t->errors >= cases - best_items - C45_EPSILON) {
        node_free_branches(t);
        t->type = C45_LEAF;
        t->attr = -1;
    }
done:
    free(dist);
    return t;
}

static void ctx_free(struct c45_ctx *c)
{
    free(c->item);
    free(c->weight);
    free(c->freq);
    free(c->val_freq);
    free(c->mfreq);
    free(c->mval);
    free(c->split_gain);
    free(c->split_info);
    free(c->tested);
    free(c->gain);
    free(c->info);
    free(c->bar);
    free(c->in_average);
    free(c->block);
    free(c->n_block);
}

static int ctx_init(struct c45_ctx *c, const struct c45_data *d,
                    const struct c45_options *opt)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->opt = *opt;
    c->coeff = c45_coeff(opt->cf);
    c->n_attrs = d->n_attrs;
    c->n_classes = d->n_classes;
    c->n_items = d->n_items;
    int max_vals = 2;
    c->is_multi_val = true;
    for (int a = 0; a < d->n_attrs; a++) {
        const struct c45_attr *at = &d->attrs[a];
        int nv = at->kind == C45_DISCRETE ? at->n_values : 0;
        if (nv > max_vals) {
            max_vals = nv;
        }
        if (at->kind != C45_IGNORE && nv < 0.3 * d->n_items) {
            c->is_multi_val = false;
        }
    }
    if (opt->subsetting) {
        c->is_multi_val = true;
    }
    c->rows = max_vals + 1;
    size_t n = (size_t)(d->n_items > 0 ? d->n_items : 1);
    size_t na = (size_t)(d->n_attrs > 0 ? d->n_attrs : 1);
    size_t cells = (size_t)c->rows * (size_t)c->n_classes;
    c->item = malloc(n * sizeof(int));
    c->weight = malloc(n * sizeof(float));
    c->freq = calloc(cells, sizeof(float));
    c->val_freq = calloc((size_t)c->rows, sizeof(float));
    c->mfreq = calloc(cells, sizeof(float));
    c->mval = calloc((size_t)c->rows, sizeof(float));
    c->split_gain = calloc(n, sizeof(float));
    c->split_info = calloc(n, sizeof(float));
    c->tested = calloc(na, sizeof(int));
    c->gain = calloc(na, sizeof(float));
    c->info = calloc(na, sizeof(float));
    c->bar = calloc(na, sizeof(float));
    c->in_average = calloc(na, sizeof(bool));
    c->block = calloc(na * (size_t)c->rows, sizeof(int));
    c->n_block = calloc(na, sizeof(int));
    if (!c->item || !c->weight || !c->freq || !c->val_freq || !c->mfreq ||
        !c->mval || !c->split_gain || !c->split_info || !c->tested ||
        !c->gain || !c->info || !c->bar || !c->in_average || !c->block ||
        !c->n_block) {
        ctx_free(c);
        fprintf(stderr, "c45: out of memory\n");
        return -1;
    }
    for (int i = 0; i < d->n_items; i++) {
        c->item[i] = i;
        c->weight[i] = d->weights ? d->weights[i] : 1.0f;
    }
    /* case weights are summed as fractional ones are, never counted */
    c->is_all_known = !d->weights;
    return 0;
}

void c45_options_init(struct c45_options *opt)
{
    opt->min_objs = 2;
    opt->cf = 0.25f;
    opt->use_gain = false;
    opt->subsetting = false;
}

static int check_inputs(const struct c45_data *d, const struct c45_options *opt)
{
    if (d->n_items < 1 || d->n_classes < 1) {
        fprintf(stderr, "c45: no items or no classes to build a tree from\n");
        return -1;
    }
    if (opt->min_objs < 1 || !(opt->cf > 0 && opt->cf <= 1)) {
        fprintf(stderr, "c45: bad options (min_objs %d, cf %g)\n",
                opt->min_objs, opt->cf);
        return -1;
    }
    return 0;
}

int c45_build(const struct c45_data *d, const struct c45_options *opt,
              struct c45_tree **out)
{
    struct c45_ctx c;
    struct c45_tree *t = NULL;
    int status = -1;
    *out = NULL;
    if (check_inputs(d, opt) || ctx_init(&c, d, opt)) {
        return -1;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        goto done;
    }
    t->n_classes = d->n_classes;
    t->root = form_tree(&c, 0, d->n_items - 1);
    if (c.is_oom || !t->root) {
        goto done;
    }
    /* Pruning starts from the case order growing left, as c4.5 does. */
    t->item_order = c.item;
    t->n_item_order = d->n_items;
    c.item = NULL;
    *out = t;
    t = NULL;
    status = 0;
done:
    if (status) {
        fprintf(stderr, "c45: out of memory\n");
    }
    c45_tree_destroy(t);
    ctx_free(&c);
    return status;
}

/* T := its branch b: the branch's fields move into t, the rest is freed. */
static void raise_branch(struct c45_node *t, int b)
{
    struct c45_node *br = t->branches[b];
    t->branches[b] = NULL;
    node_free_contents(t);
    *t = *br;
    free(br);
}

/* Predicted errors of subtree t on cases [fp, lp]; with is_update, also
 * relabels t and replaces it by a leaf or by its largest branch when that is
 * predicted to do no worse (within 0.1). */
static float estimate_errors(struct c45_ctx *c, struct c45_node *t, int fp,
                             int lp, bool is_update)
{
    int nc = c->n_classes;
    float *dist = calloc((size_t)nc, sizeof(float));
    if (!dist) {
        c->is_oom = true;
        return 0;
    }
    float cases = count_items(c, fp, lp);
    for (int i = fp; i <= lp; i++) {
        dist[class_at(c, i)] += c->weight[i];
    }
    int best_class = t->leaf_class;
    for (int k = 0; k < nc; k++) {
        if (dist[k] > dist[best_class]) {
            best_class = k;
        }
    }
    float leaf_errors = cases - dist[best_class];
    float extra = c45_add_errs(cases, leaf_errors, c->opt.cf, c->coeff);
    float result;
    if (is_update) {
        t->items = cases;
        t->leaf_class = best_class;
        memcpy(t->class_dist, dist, sizeof(float) * (size_t)nc);
    }
    free(dist);
    if (t->type == C45_LEAF) {
        result = leaf_errors + extra;
        if (is_update) {
            t->errors = result;
        }
        return result;
    }

    int kp = group_cases(c, 0, fp, lp, t) + 1;
    float known_cases = count_items(c, kp, lp);
    bool was_all_known = c->is_all_known;
    if (kp != fp) {
        c->is_all_known = false;
    }
    float tree_errors = 0, max_factor = 0;
    int max_br = 0;
    for (int b = 0; b < t->n_branches; b++) {
        int ep = group_cases(c, b + 1, kp, lp, t);
        if (kp <= ep) {
            float factor = count_items(c, kp, ep) / known_cases;
            if (factor >= max_factor) {
                max_br = b;
                max_factor = factor;
            }
            for (int i = fp; i < kp; i++) {
                c->weight[i] *= factor;
            }
            tree_errors +=
                estimate_errors(c, t->branches[b], fp, ep, is_update);
            group_cases(c, 0, fp, ep, t);
            for (int i = fp; i < kp; i++) {
                c->weight[i] /= factor;
            }
        }
    }
    c->is_all_known = was_all_known;
    if (!is_update || c->is_oom) {
        return tree_errors;
    }

    float branch_errors =
        estimate_errors(c, t->branches[max_br], fp, lp, false);
    if (leaf_errors + extra <= branch_errors + 0.1 &&
        leaf_errors + extra <= tree_errors + 0.1) {
        node_free_branches(t);
        t->type = C45_LEAF;
        t->attr = -1;
        t->errors = leaf_errors + extra;
        c->is_changed = true;
    } else if (branch_errors <= tree_errors + 0.1) {
        estimate_errors(c, t->branches[max_br], fp, lp, true);
        raise_branch(t, max_br);
        c->is_changed = true;
    } else {
        t->errors = tree_errors;
    }
    return t->errors;
}

/* With value groups, a test below a group on the same attribute keeps only
 * the values that can still reach it; a branch left with none is hidden. */
static int check_possible_values(struct c45_ctx *c, struct c45_node *t,
                                 bool **possible)
{
    if (t->type == C45_LEAF) {
        return 0;
    }
    int a = t->attr;
    if (t->type == C45_TEST_CUT) {
        for (int b = 0; b < t->n_branches; b++) {
            if (check_possible_values(c, t->branches[b], possible)) {
                return -1;
            }
        }
        return 0;
    }
    int nv = c->d->attrs[a].n_values;
    bool *saved = malloc(sizeof(bool) * (size_t)(nv + 1));
    if (!saved) {
        return -1;
    }
    memcpy(saved, possible[a], sizeof(bool) * (size_t)(nv + 1));
    bool is_restricted = false;
    for (int b = 0; b < t->n_branches; b++) {
        for (int v = 1; v <= nv; v++) {
            bool is_in =
                t->type == C45_TEST_DISCRETE ? v == b + 1 : t->subsets[b][v];
            if (is_in && !saved[v]) {
                is_restricted = true;
            }
        }
    }
    if (is_restricted && t->type == C45_TEST_DISCRETE) {
        t->subsets = calloc((size_t)t->n_branches, sizeof *t->subsets);
        if (!t->subsets) {
            free(saved);
            return -1;
        }
        for (int b = 0; b < t->n_branches; b++) {
            t->subsets[b] = calloc((size_t)nv + 1, sizeof(bool));
            if (!t->subsets[b]) {
                free(saved);
                return -1;
            }
            t->subsets[b][b + 1] = true;
        }
        t->type = C45_TEST_SUBSET;
        t->n_values = nv;
    }
    if (is_restricted) {
        /* Branches no value can reach are dropped (Size stops counting
         * them). */
        int kept = 0;
        for (int b = 0; b < t->n_branches; b++) {
            bool is_reachable = false;
            for (int v = 1; v <= nv; v++) {
                t->subsets[b][v] = t->subsets[b][v] && saved[v];
                is_reachable = is_reachable || t->subsets[b][v];
            }
            if (is_reachable) {
                t->branches[kept] = t->branches[b];
                t->subsets[kept] = t->subsets[b];
                kept++;
            } else {
                node_destroy(t->branches[b]);
                free(t->subsets[b]);
            }
        }
        t->n_branches = kept;
    }
    int status = 0;
    for (int b = 0; b < t->n_branches && !status; b++) {
        for (int v = 1; v <= nv; v++) {
            possible[a][v] = t->type == C45_TEST_DISCRETE
                                 ? v == b + 1 && saved[v]
                                 : t->subsets[b][v];
        }
        status = check_possible_values(c, t->branches[b], possible);
    }
    memcpy(possible[a], saved, sizeof(bool) * (size_t)(nv + 1));
    free(saved);
    return status;
}

static int check_possible_tree(struct c45_ctx *c, struct c45_node *root)
{
    int status = -1;
    bool **possible = calloc((size_t)c->n_attrs, sizeof *possible);
    if (!possible) {
        return -1;
    }
    for (int a = 0; a < c->n_attrs; a++) {
        int nv =
            c->d->attrs[a].kind == C45_DISCRETE ? c->d->attrs[a].n_values : 0;
        possible[a] = malloc(sizeof(bool) * (size_t)(nv + 1));
        if (!possible[a]) {
            goto done;
        }
        for (int v = 0; v <= nv; v++) {
            possible[a][v] = true;
        }
    }
    status = check_possible_values(c, root, possible);
done:
    for (int a = 0; a < c->n_attrs; a++) {
        free(possible[a]);
    }
    free(possible);
    return status;
}

int c45_prune(struct c45_tree *t, const struct c45_data *d,
              const struct c45_options *opt, bool *is_changed)
{
    struct c45_ctx c;
    int status = -1;
    *is_changed = false;
    if (check_inputs(d, opt) || ctx_init(&c, d, opt)) {
        return -1;
    }
    if (t->item_order && t->n_item_order == d->n_items) {
        memcpy(c.item, t->item_order, sizeof(int) * (size_t)d->n_items);
        for (int i = 0; d->weights && i < d->n_items; i++) {
            c.weight[i] = d->weights[c.item[i]];
        }
    }
    estimate_errors(&c, t->root, 0, d->n_items - 1, true);
    if (c.is_oom) {
        goto done;
    }
    if (opt->subsetting && check_possible_tree(&c, t->root)) {
        goto done;
    }
    *is_changed = c.is_changed;
    status = 0;
done:
    if (status) {
        fprintf(stderr, "c45: out of memory\n");
    }
    ctx_free(&c);
    return status;
}

static void classify_into(const struct c45_node *t, const float *vals, float w,
                          float *class_sum, int n_classes)
{
    if (t->type == C45_LEAF) {
        if (t->items > 0) {
            for (int k = 0; k < n_classes; k++) {
                class_sum[k] += w * t->class_dist[k] / t->items;
            }
        } else {
            class_sum[t->leaf_class] += w;
        }
        return;
    }
    int v = outcome(t, vals);
    if (v >= 1 && v <= t->n_branches) {
        classify_into(t->branches[v - 1], vals, w, class_sum, n_classes);
        return;
    }
    for (int b = 0; b < t->n_branches; b++) {
        classify_into(t->branches[b], vals,
                      w * t->branches[b]->items / t->items, class_sum,
                      n_classes);
    }
}

int c45_classify(const struct c45_tree *t, const float *values, int *class_out)
{
    float *sum = calloc((size_t)t->n_classes, sizeof(float));
    if (!sum) {
        fprintf(stderr, "c45: out of memory\n");
        return -1;
    }
    classify_into(t->root, values, 1.0f, sum, t->n_classes);
    int best = 0;
    for (int k = 1; k < t->n_classes; k++) {
        if (sum[k] > sum[best]) {
            best = k;
        }
    }
    free(sum);
    *class_out = best;
    return 0;
}

void c45_node_make_leaf(struct c45_node *n, int leaf_class)
{
    node_free_branches(n);
    n->type = C45_LEAF;
    n->leaf_class = leaf_class;
    n->errors = n->items - n->class_dist[leaf_class];
}

static int node_size(const struct c45_node *t)
{
    int n = 1;
    for (int b = 0; b < t->n_branches; b++) {
        n += node_size(t->branches[b]);
    }
    return n;
}

int c45_tree_size(const struct c45_tree *t)
{
    return node_size(t->root);
}

static struct c45_node *node_copy(const struct c45_node *t, int n_classes)
{
    struct c45_node *n = calloc(1, sizeof *n);
    if (!n) {
        return NULL;
    }
    *n = *t;
    n->class_dist = NULL;
    n->branches = NULL;
    n->subsets = NULL;
    n->n_branches = 0;
    n->class_dist = malloc(sizeof(float) * (size_t)n_classes);
    if (!n->class_dist) {
        goto fail;
    }
    memcpy(n->class_dist, t->class_dist, sizeof(float) * (size_t)n_classes);
    if (t->n_branches) {
        n->branches = calloc((size_t)t->n_branches, sizeof(struct c45_node *));
        if (!n->branches) {
            goto fail;
        }
        n->n_branches = t->n_branches;
        if (t->subsets) {
            n->subsets = calloc((size_t)t->n_branches, sizeof *n->subsets);
            if (!n->subsets) {
                goto fail;
            }
            for (int b = 0; b < t->n_branches; b++) {
                n->subsets[b] =
                    malloc(sizeof(bool) * (size_t)(t->n_values + 1));
                if (!n->subsets[b]) {
                    goto fail;
                }
                memcpy(n->subsets[b], t->subsets[b],
                       sizeof(bool) * (size_t)(t->n_values + 1));
            }
        }
        for (int b = 0; b < t->n_branches; b++) {
            n->branches[b] = node_copy(t->branches[b], n_classes);
            if (!n->branches[b]) {
                goto fail;
            }
        }
    }
    return n;
fail:
    node_destroy(n);
    return NULL;
}

int c45_tree_copy(const struct c45_tree *t, struct c45_tree **out)
{
    struct c45_tree *n = calloc(1, sizeof *n);
    *out = NULL;
    if (!n) {
        goto fail;
    }
    n->n_classes = t->n_classes;
    n->root = node_copy(t->root, t->n_classes);
    if (!n->root) {
        goto fail;
    }
    if (t->item_order) {
        n->item_order = malloc(sizeof(int) * (size_t)t->n_item_order);
        if (!n->item_order) {
            goto fail;
        }
        memcpy(n->item_order, t->item_order,
               sizeof(int) * (size_t)t->n_item_order);
        n->n_item_order = t->n_item_order;
    }
    *out = n;
    return 0;
fail:
    c45_tree_destroy(n);
    fprintf(stderr, "c45: out of memory\n");
    return -1;
}

void c45_tree_destroy(struct c45_tree *t)
{
    if (t) {
        node_destroy(t->root);
        free(t->item_order);
        free(t);
    }
}
