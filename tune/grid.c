/* The grid's points and candidate methods, shared by the sweep, its
 * progress estimate and `autotune plan`, so they walk the same grid. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/method.h"
#include "model/model.h"
#include "tune/grid.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The most bytes phase ph of a node-aware method of coll sends in one
 * message at msg_bytes, on any layout of c: its own buffer bound on its
 * communicator (a node's ranks, or one rank per node), of the count the
 * phase moves (collectives of P blocks send up to P blocks at once: the
 * alltoall's up gather sends a node's P-block blocks to its leader). */
static long phase_bound(const struct config *c, const struct coll_def *coll,
                        enum node_phase_id ph, long msg_bytes, int max_procs)
{
    int max_ppn = 1, max_nodes = 1;
    for (int i = 0; i < c->n_layouts; i++) {
        const struct config_layout *l = &c->layouts[i];
        int ppn = l->ppn > 0 ? l->ppn : 1;
        max_ppn = ppn > max_ppn ? ppn : max_ppn;
        max_nodes = l->procs / ppn > max_nodes ? l->procs / ppn : max_nodes;
    }
    if (c->n_layouts == 0) {
        max_ppn = max_nodes = max_procs;
    }
    const struct coll_def *pc = node_phase_coll(coll, ph);
    enum coll_blocks most =
        pc->send_blocks > pc->recv_blocks ? pc->send_blocks : pc->recv_blocks;
    return coll_buffer_bytes(
        most, ph == NODE_INTER ? max_nodes : max_ppn,
        node_phase_count(coll, ph, msg_bytes, max_ppn, max_procs));
}

/* Whether node-aware method m of collective ci has a phase whose segment is
 * as large as the longest message that phase sends at msg_bytes, and its
 * twin with segment 0 there is listed too: the same method. */
static int has_listed_twin(const struct config *c, int ci, int m,
                           long msg_bytes, int max_procs)
{
    const struct coll_def *coll = c->colls[ci];
    struct node_plan twin = *coll_method_plan(coll, m);
    int is_long = 0;
    for (int ph = 0; ph < NODE_N_PHASES; ph++) {
        struct node_phase f = *node_plan_phase(&twin, (enum node_phase_id)ph);
        if (f.alg && f.seg_bytes > 0 &&
            f.seg_bytes >= phase_bound(c, coll, (enum node_phase_id)ph,
                                       msg_bytes, max_procs)) {
            f.seg_bytes = 0;
            node_plan_set(&twin, (enum node_phase_id)ph, f);
            is_long = 1;
        }
    }
    int t = is_long ? coll_plan_method(coll, &twin) : -1;
    /* node_methods is ascending (config.c sorts it) */
    return t >= 0 &&
           bsearch(&t, c->node_methods[ci], (size_t)c->n_node_methods[ci],
                   sizeof c->node_methods[ci][0], cmp_int) != NULL;
}

/* The candidate methods at a point, grouped by algorithm in table order,
 * segments ascending, then the node-aware methods (each its own segments).
 * Segments as large as the longest message behave like no segmentation: only
 * one of them is kept, and none when 0 is listed. Collectives of P blocks
 * (scatter, gather trees) send up to P blocks in one message, so there the
 * bound is P blocks, with P the largest of procs. A node-aware method with
 * such a segment in a phase (bounded by what that phase sends: the
 * alltoall's up gather sends P-block blocks) is left out where its twin
 * with segment 0 there is listed. */
int grid_point_methods(const struct config *c, int ci, long msg_bytes,
                       struct search_method *out)
{
    const struct coll_def *coll = c->colls[ci];
    int n = 0;
    int has_zero = c->seg_sizes[0] == 0;
    int max_procs = 1;
    for (int i = 0; i < c->n_procs; i++) {
        max_procs = c->procs[i] > max_procs ? c->procs[i] : max_procs;
    }
    enum coll_blocks most = coll->send_blocks > coll->recv_blocks
                                ? coll->send_blocks
                                : coll->recv_blocks;
    long bound = coll_buffer_bytes(most, max_procs, msg_bytes);
    for (int k = 0; k < c->n_algs[ci]; k++) {
        int a = c->algs[ci][k];
        int is_segmented =
            c->backend == BACKEND_NATIVE
                ? native_uses_segments(coll->name, coll->algs[a].name)
                : coll->algs[a].is_segmented;
        if (!is_segmented) {
            out[n++] = (struct search_method){a, 0};
            continue;
        }
        for (int j = 0; j < c->n_segs; j++) {
            int seg = c->seg_sizes[j];
            if (seg == 0 || seg < bound) {
                out[n++] = (struct search_method){a, seg};
            } else if (!has_zero) {
                out[n++] = (struct search_method){a, seg};
                break;
            } else {
                break;
            }
        }
    }
    for (int k = 0; k < c->n_node_methods[ci]; k++) {
        int m = c->node_methods[ci][k];
        if (!has_listed_twin(c, ci, m, msg_bytes, max_procs)) {
            out[n++] = (struct search_method){m, 0};
        }
    }
    return n;
}

/* The message sizes of collective ci: the configured ones, or 0 alone for
 * a collective that moves no data (barrier). */
int grid_msg_sizes(const struct config *c, int ci, const long **sizes)
{
    static const long no_message = 0;
    const struct coll_def *coll = c->colls[ci];
    if (coll->send_blocks == BLOCKS_NONE && coll->recv_blocks == BLOCKS_NONE) {
        *sizes = &no_message;
        return 1;
    }
    *sizes = c->msg_sizes;
    return c->n_msgs;
}

long grid_points(const struct config *c)
{
    long n = 0;
    if (c->profile) {
        return c->n_points;
    }
    for (int ci = 0; ci < c->n_colls; ci++) {
        const long *sizes;
        n += (long)c->n_layouts * grid_msg_sizes(c, ci, &sizes);
    }
    return n;
}

int grid_list_points(const struct config *c, struct config_point **out)
{
    long n = 0, total = grid_points(c);
    *out = malloc((size_t)(total ? total : 1) * sizeof **out);
    if (!*out) {
        return -1;
    }
    if (c->profile) {
        memcpy(*out, c->points, (size_t)total * sizeof **out);
        return 0;
    }
    for (int ci = 0; ci < c->n_colls; ci++) {
        const long *sizes;
        int n_sizes = grid_msg_sizes(c, ci, &sizes);
        for (int li = 0; li < c->n_layouts; li++) {
            const struct config_layout *l = &c->layouts[li];
            for (int mi = 0; mi < n_sizes; mi++) {
                (*out)[n++] = (struct config_point){.ci = ci,
                                                    .procs = l->procs,
                                                    .ppn = l->ppn,
                                                    .msg_bytes = sizes[mi]};
            }
        }
    }
    return 0;
}

int grid_method_between(const struct search_method *a,
                        const struct search_method *b, double f,
                        const int *segs, int n_segs, struct search_method *out)
{
    if (a->alg != b->alg || (a->seg_bytes > 0) != (b->seg_bytes > 0)) {
        return -1;
    }
    *out = *a;
    if (a->seg_bytes == b->seg_bytes) {
        return 0;
    }
    double la = log2(a->seg_bytes), lb = log2(b->seg_bytes);
    double want = (1 - f) * la + f * lb, lo = fmin(la, lb), hi = fmax(la, lb);
    out->seg_bytes =
        fabs(want - la) <= fabs(want - lb) ? a->seg_bytes : b->seg_bytes;
    double off = fabs(want - log2(out->seg_bytes));
    for (int i = 0; i < n_segs; i++) {
        double l = segs[i] > 0 ? log2(segs[i]) : -1;
        if (l > lo && l < hi && fabs(want - l) < off) {
            out->seg_bytes = segs[i];
            off = fabs(want - l);
        }
    }
    return 0;
}

int grid_method_cmp(const struct search_method *a,
                    const struct search_method *b)
{
    if (a->alg != b->alg) {
        return a->alg < b->alg ? -1 : 1;
    }
    return (a->seg_bytes > b->seg_bytes) - (a->seg_bytes < b->seg_bytes);
}

void grid_search_point(struct search_point *p, const struct coll_def *coll,
                       int procs, long msg_bytes, int chain_fanout,
                       const struct search_method *methods, int n_methods,
                       int *depths, const struct search_params *params)
{
    for (int k = 1; k < n_methods; k++) {
        assert(grid_method_cmp(&methods[k - 1], &methods[k]) < 0);
    }
    for (int a = 0; a < coll->n_algs && a < CONFIG_MAX_ALGS; a++) {
        const struct coll_alg *alg = &coll->algs[a];
        depths[a] = alg->depth ? alg->depth(procs, chain_fanout) : -1;
    }
    *p = (struct search_point){
        .collective = coll->name,
        .procs = procs,
        .msg_bytes = msg_bytes,
        .methods = methods,
        .n_methods = n_methods,
        .depths = depths,
        .n_depths =
            coll->n_algs < CONFIG_MAX_ALGS ? coll->n_algs : CONFIG_MAX_ALGS,
        .pipeline_alg = coll_find_alg(coll, "pipeline"),
        .params = params,
    };
}

int grid_predict_methods(const struct model_params *model,
                         const struct coll_def *coll, int procs, int ppn,
                         long msg_bytes, int chain_fanout,
                         const struct search_method *methods, int n_methods,
                         double *predicted_us)
{
    for (int i = 0; i < n_methods; i++) {
        const struct search_method *m = &methods[i];
        int rc = model_predict(
            model, coll->name, coll_method_name(coll, m->alg), procs, ppn,
            msg_bytes, m->seg_bytes, chain_fanout, &predicted_us[i]);
        if (rc < 0) {
            return -1;
        }
        predicted_us[i] = rc > 0 ? -1 : predicted_us[i];
    }
    return 0;
}

int grid_predictor_init(struct grid_predictor *gp)
{
    size_t n = (size_t)gp->n_rows * (size_t)gp->n_msgs * (size_t)gp->n_labels;
    gp->pred_us = malloc((n ? n : 1) * sizeof *gp->pred_us);
    gp->seen_us = calloc(n ? n : 1, sizeof *gp->seen_us);
    gp->group = malloc(((size_t)gp->n_labels + 1) * sizeof *gp->group);
    for (size_t i = 0; gp->pred_us && i < n; i++) {
        gp->pred_us[i] = -1;
    }
    for (int k = 0; gp->group && k < gp->n_labels; k++) {
        gp->group[k] = k;
    }
    return gp->pred_us && gp->seen_us && gp->group ? 0 : -1;
}

void grid_predictor_free(struct grid_predictor *gp)
{
    free(gp->pred_us);
    free(gp->seen_us);
    free(gp->group);
    gp->pred_us = gp->seen_us = NULL;
    gp->group = NULL;
}

void grid_predictor_seen(struct grid_predictor *gp, int row, int mi, int k,
                         double measured_us)
{
    gp->seen_us[((size_t)row * (size_t)gp->n_msgs + (size_t)mi) *
                    (size_t)gp->n_labels +
                (size_t)k] = measured_us;
}

/* The predictor's view of one ppn: rows [start, end). */
struct predictor_layer {
    const struct grid_predictor *gp;
    int start, end;
};

/* The first index of a[0..n) (ascending) not below x. */
static int lower_bound_int(const int *a, int n, int x)
{
    int lo = 0;
    while (lo < n && a[lo] < x) {
        lo++;
    }
    return lo;
}

/* The model's time of label k at a point of the layer (model_source_fn). */
static int predictor_model_time(void *arg, int k, int procs, long msg_bytes,
                                double *time_us)
{
    const struct predictor_layer *l = arg;
    const struct grid_predictor *gp = l->gp;
    int row = l->start + lower_bound_int(gp->row_procs + l->start,
                                         l->end - l->start, procs);
    int lo = 0, hi = gp->n_msgs - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (gp->msgs[mid] < msg_bytes) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (row >= l->end || gp->row_procs[row] != procs ||
        gp->msgs[lo] != msg_bytes) {
        return 1;
    }
    *time_us = gp->pred_us[((size_t)row * (size_t)gp->n_msgs + (size_t)lo) *
                               (size_t)gp->n_labels +
                           (size_t)k];
    return *time_us > 0 ? 0 : 1;
}

int grid_predictor_predict(void *ctx, int row, int mi,
                           struct refine_prediction *out)
{
    const struct grid_predictor *gp = ctx;
    struct predictor_layer l = {gp, row, row + 1};
    while (l.start > 0 && gp->row_ppn[l.start - 1] == gp->row_ppn[row]) {
        l.start--;
    }
    while (l.end < gp->n_rows && gp->row_ppn[l.end] == gp->row_ppn[row]) {
        l.end++;
    }
    struct model_measured m = {l.end - l.start,
                               gp->n_msgs,
                               gp->n_labels,
                               gp->row_procs + l.start,
                               gp->msgs,
                               gp->seen_us + (size_t)l.start *
                                                 (size_t)gp->n_msgs *
                                                 (size_t)gp->n_labels};
    struct model_choice c;
    int rc = model_corrected_choice(&m, predictor_model_time, &l, gp->group,
                                    gp->row_procs[row], gp->msgs[mi], &c);
    if (rc == 0) {
        *out = (struct refine_prediction){c.k,       c.time_us, c.uncertainty,
                                          c.penalty, c.model_k, c.model_us};
    }
    return rc;
}
