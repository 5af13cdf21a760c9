/* The replay engine of `autotune compare`: replays every search strategy on an
 * exhaustive run's journal, without MPI. Each strategy is charged the recorded
 * cost_s of the experiments it asks for (once each: the journal is the cache),
 * and its choices are scored against the exhaustive optimum ([Pjesivac-Grbovic
 * 2006], eq. 6). */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/collectives.h"
#include "collectives/method.h"
#include "model/model.h"
#include "search/bound.h"
#include "search/refine.h"
#include "search/search.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "tune/grid.h"
#include "tune/replay.h"
#include "util/tuning.h"

#define MAX_METHODS 4096

/* Records ordered by point (collective, ranks per node, procs, message
 * size), so that each point's records are one contiguous range, found by
 * binary search. */
struct record_index {
    const struct measurement **records;
    size_t n;
};

/* A point of the run: its records in method order. */
struct replay_point {
    const struct coll_def *coll;
    int procs, ppn;
    long msg_bytes;
    int n;
    struct search_method methods[MAX_METHODS];
    size_t records[MAX_METHODS]; /* positions in the record index */
    int best;                    /* the exhaustive optimum's index, or -1 */
    double best_us;              /* and its time */
    int chain_fanout;            /* the run's, for the tree depths */
};

/* One strategy's replay: what it has been charged for, over the whole run
 * (an experiment asked at two points is charged once, as the journal would
 * have answered the second time). */
struct replay {
    const struct record_index *ix;
    const struct replay_point *point;
    char *charged; /* per record position */
    long experiments, missing;
    double seconds;
    const char *trace; /* --trace: the strategy's name, else NULL */
};

struct strategy_score {
    long points, experiments, optimal;
    double seconds, penalty_sum, penalty_max;
};

/* " ppn=N" for a point of N ranks per node, "" for one (the messages of a
 * one-rank-per-node run read as before); a static buffer, one per line. */
static const char *ppn_text(int ppn)
{
    static char text[32];
    text[0] = '\0';
    if (ppn != 1) {
        snprintf(text, sizeof text, " ppn=%d", ppn);
    }
    return text;
}

static void replay_charge(struct replay *r, size_t pos)
{
    const struct measurement *m = r->ix->records[pos];
    if (!r->charged[pos] && m->is_applicable) {
        r->experiments++;
        r->seconds += m->cost_s;
    }
    r->charged[pos] = 1;
}

static int replay_oracle(void *ctx, const struct search_point *p, int i,
                         double *time_us)
{
    struct replay *r = ctx;
    size_t pos = r->point->records[i];
    const struct measurement *m = r->ix->records[pos];
    replay_charge(r, pos);
    *time_us = m->is_applicable ? m->mean_us : -1;
    if (r->trace) {
        fprintf(
            stderr, "trace %s %s P=%d%s %ld B: %s/%d %.1f us (cost %.6f s)\n",
            r->trace, p->collective, p->procs, ppn_text(m->ppn), p->msg_bytes,
            m->algorithm, m->segment_bytes, *time_us, m->cost_s);
    }
    return 0;
}

static size_t find_point(const struct record_index *ix, const char *coll,
                         int ppn, int procs, long msg_bytes);
static int cmp_point(const char *coll_a, int ppn_a, int procs_a, long msg_a,
                     const struct measurement *b);

/* The pipeline at n_ranks: answered from its record at (collective, the
 * point's ranks per node, n_ranks, message size) when the run swept that
 * many processes; otherwise there is no answer (counted in missing) and
 * the surrogate falls back. */
static int replay_pipeline(void *ctx, const struct search_point *p, int n_ranks,
                           int seg_bytes, double *time_us)
{
    struct replay *r = ctx;
    const struct record_index *ix = r->ix;
    int ppn = r->point->ppn;
    *time_us = -1;
    for (size_t pos = find_point(ix, p->collective, ppn, n_ranks, p->msg_bytes);
         pos < ix->n && cmp_point(p->collective, ppn, n_ranks, p->msg_bytes,
                                  ix->records[pos]) == 0;
         pos++) {
        const struct measurement *m = ix->records[pos];
        if (m->segment_bytes == seg_bytes &&
            strcmp(m->algorithm, "pipeline") == 0) {
            replay_charge(r, pos);
            *time_us = m->is_applicable ? m->mean_us : -1;
            if (r->trace) {
                fprintf(stderr,
                        "trace %s %s P=%d%s %ld B: pipeline on %d ranks/%d "
                        "%.1f us\n",
                        r->trace, p->collective, p->procs, ppn_text(ppn),
                        p->msg_bytes, n_ranks, seg_bytes, *time_us);
            }
            return 0;
        }
    }
    r->missing++;
    return 0;
}

static int cmp_point(const char *coll_a, int ppn_a, int procs_a, long msg_a,
                     const struct measurement *b)
{
    int c = strcmp(coll_a, b->collective);
    if (c != 0) {
        return c;
    }
    if (ppn_a != b->ppn) {
        return ppn_a < b->ppn ? -1 : 1;
    }
    if (procs_a != b->procs) {
        return procs_a < b->procs ? -1 : 1;
    }
    return (msg_a > b->msg_bytes) - (msg_a < b->msg_bytes);
}

static int cmp_record_point(const void *a, const void *b)
{
    const struct measurement *x = *(const struct measurement *const *)a;
    return cmp_point(x->collective, x->ppn, x->procs, x->msg_bytes,
                     *(const struct measurement *const *)b);
}

static int index_records(const struct journal *j, struct record_index *ix)
{
    ix->n = journal_count(j);
    ix->records = malloc((ix->n ? ix->n : 1) * sizeof *ix->records);
    if (!ix->records) {
        return -1;
    }
    for (size_t i = 0; i < ix->n; i++) {
        ix->records[i] = journal_record(j, i);
    }
    qsort(ix->records, ix->n, sizeof *ix->records, cmp_record_point);
    return 0;
}

/* A method with its record, sorted together into the sweep's order. */
struct method_record {
    struct search_method method;
    size_t pos; /* in the record index */
};

static int cmp_method_record(const void *a, const void *b)
{
    return grid_method_cmp(&((const struct method_record *)a)->method,
                           &((const struct method_record *)b)->method);
}

/* The first record position not before the point. */
static size_t find_point(const struct record_index *ix, const char *coll,
                         int ppn, int procs, long msg_bytes)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_point(coll, ppn, procs, msg_bytes, ix->records[mid]) > 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

bool seg_filter_keeps(const struct seg_filter *f, int seg_bytes)
{
    for (int i = 0; i < f->n; i++) {
        if (f->sizes[i] == seg_bytes) {
            return true;
        }
    }
    return f->n == 0;
}

/* Whether the filter keeps method alg of coll: its segment size, and a
 * node-aware method's phases' (a sweep of the filter's sizes would have
 * expanded a phase pattern to those only). */
static bool seg_filter_keeps_method(const struct seg_filter *f,
                                    const struct coll_def *coll, int alg,
                                    int seg_bytes)
{
    const struct node_plan *plan = coll_method_plan(coll, alg);
    for (int ph = 0; plan && ph < NODE_N_PHASES; ph++) {
        const struct node_phase *phase =
            node_plan_phase(plan, (enum node_phase_id)ph);
        if (phase->alg && !seg_filter_keeps(f, phase->seg_bytes)) {
            return false;
        }
    }
    return seg_filter_keeps(f, seg_bytes);
}

/* Collects the records of one point in the order the sweep lists methods
 * (algorithm table order, segments ascending), those of the filter only. */
static int gather_point(const struct record_index *ix,
                        const struct point_result *pr, int chain_fanout,
                        const struct seg_filter *segs, struct replay_point *rp)
{
    static struct method_record found[MAX_METHODS];
    rp->coll = coll_find(pr->collective);
    if (!rp->coll) {
        fprintf(stderr, "compare: unknown collective '%s' in the journal\n",
                pr->collective);
        return -1;
    }
    rp->procs = pr->procs;
    rp->ppn = pr->ppn;
    rp->msg_bytes = pr->msg_bytes;
    int n = 0;
    for (size_t i =
             find_point(ix, pr->collective, pr->ppn, pr->procs, pr->msg_bytes);
         i < ix->n && n < MAX_METHODS &&
         cmp_point(pr->collective, pr->ppn, pr->procs, pr->msg_bytes,
                   ix->records[i]) == 0;
         i++) {
        int alg =
            coll_find_method(rp->coll, ix->records[i]->algorithm, NULL, 0);
        if (alg >= 0 &&
            seg_filter_keeps_method(segs, rp->coll, alg,
                                    ix->records[i]->segment_bytes)) {
            found[n++] = (struct method_record){{alg, 0}, i};
            found[n - 1].method.seg_bytes = ix->records[i]->segment_bytes;
        }
    }
    qsort(found, (size_t)n, sizeof found[0], cmp_method_record);
    rp->n = n;
    rp->best = -1;
    rp->best_us = -1;
    for (int k = 0; k < n; k++) {
        const struct measurement *m = ix->records[found[k].pos];
        rp->methods[k] = found[k].method;
        rp->records[k] = found[k].pos;
        if (m->is_applicable && (rp->best_us < 0 || m->mean_us < rp->best_us)) {
            rp->best = k;
            rp->best_us = m->mean_us;
        }
    }
    rp->chain_fanout = chain_fanout;
    return 0;
}

static void write_row(FILE *f, const char *name, const struct strategy_score *s,
                      double exhaustive_s)
{
    double n = s->points ? (double)s->points : 1;
    fprintf(f, "%s,%ld,%ld,%.6f,%.2f,%.3f,%.3f,%.1f\n", name, s->points,
            s->experiments, s->seconds,
            s->seconds > 0 ? exhaustive_s / s->seconds : 0,
            100 * s->penalty_sum / n, 100 * s->penalty_max,
            100 * (double)s->optimal / n);
}

/* The run's ranks per node values, ascending, and each one's index. */
struct ppn_set {
    int n;
    int *values; /* owned */
};

static int ppn_set_index(const struct ppn_set *set, int ppn)
{
    int k = 0;
    while (k < set->n && set->values[k] != ppn) {
        k++;
    }
    return k;
}

/* The distinct ppn of the points (caller frees set->values). */
static int ppn_set_of(const struct point_result **points, size_t n_points,
                      struct ppn_set *set)
{
    set->n = 0;
    set->values = malloc((n_points ? n_points : 1) * sizeof *set->values);
    if (!set->values) {
        return -1;
    }
    for (size_t i = 0; i < n_points; i++) {
        int k = ppn_set_index(set, points[i]->ppn);
        if (k == set->n) {
            while (k > 0 && set->values[k - 1] > points[i]->ppn) {
                set->values[k] = set->values[k - 1];
                k--;
            }
            set->values[k] = points[i]->ppn;
            set->n++;
        }
    }
    return 0;
}

static void score_add(struct strategy_score *to,
                      const struct strategy_score *part)
{
    to->points += part->points;
    to->experiments += part->experiments;
    to->optimal += part->optimal;
    to->seconds += part->seconds;
    to->penalty_sum += part->penalty_sum;
    to->penalty_max = part->penalty_max > to->penalty_max ? part->penalty_max
                                                          : to->penalty_max;
}

/* One table of compare.csv: the run's whole, or one ranks per node's
 * points (ppn > 0), whose rows are named STRATEGY@ppnN. */
struct compare_part {
    int ppn;                       /* 0: the whole run */
    struct strategy_score *scores; /* per strategy */
    struct strategy_score oracle;
    double exhaustive_s;
};

struct compare_table {
    const struct compare_part *parts; /* the whole run, then each ppn's */
    int n_parts;                      /* 1 for a run of one ranks per node */
    bool has_model;                   /* else the model strategy has no row */
};

/* The strategy that needs the model's predictions. */
static bool is_model_strategy(int s)
{
    return strcmp(search_strategies[s].name, "model") == 0;
}

static int write_compare_csv(FILE *f, const void *arg)
{
    const struct compare_table *t = arg;
    fprintf(f, "strategy,points,experiments,experiment_seconds,speedup,"
               "mean_penalty_pct,max_penalty_pct,optimal_pct\n");
    for (int k = 0; k < t->n_parts; k++) {
        const struct compare_part *part = &t->parts[k];
        char name[64];
        for (int i = 0; i <= search_strategies_size; i++) {
            bool is_oracle = i == search_strategies_size;
            if (!is_oracle && is_model_strategy(i) && !t->has_model) {
                continue;
            }
            const char *base = is_oracle ? "oracle" : search_strategies[i].name;
            if (part->ppn > 0) {
                snprintf(name, sizeof name, "%s@ppn%d", base, part->ppn);
            } else {
                snprintf(name, sizeof name, "%s", base);
            }
            write_row(f, name, is_oracle ? &part->oracle : &part->scores[i],
                      part->exhaustive_s);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* The walk order of a sweep: collective (as first met in the journal),
 * ranks per node, procs, message size; strategies remember neighbours
 * along it, so the replay walks it too. */
#define WALK_MAX_COLLS 64
static const char *walk_colls[WALK_MAX_COLLS];
static int n_walk_colls;

static int coll_rank(const char *coll)
{
    for (int i = 0; i < n_walk_colls; i++) {
        if (strcmp(walk_colls[i], coll) == 0) {
            return i;
        }
    }
    return n_walk_colls;
}

static int cmp_walk(const void *a, const void *b)
{
    const struct point_result *x = *(const struct point_result *const *)a;
    const struct point_result *y = *(const struct point_result *const *)b;
    int cx = coll_rank(x->collective), cy = coll_rank(y->collective);
    if (cx != cy) {
        return cx - cy;
    }
    if (x->ppn != y->ppn) {
        return x->ppn - y->ppn;
    }
    if (x->procs != y->procs) {
        return x->procs - y->procs;
    }
    return (x->msg_bytes > y->msg_bytes) - (x->msg_bytes < y->msg_bytes);
}

/* The run's points in walk order, each once. Every point must have been
 * completed by exhaustive search, at some time: then its records are the
 * exhaustive set, whatever searched it later. Fails naming a point that
 * was not. *points is caller-frees. */
static int exhaustive_points(const char *run, const struct journal *j,
                             const struct point_result ***points,
                             size_t *n_points)
{
    size_t n = journal_point_count(j);
    const struct point_result **all = malloc((n ? n : 1) * sizeof *all);
    *n_points = 0;
    *points = all;
    if (!all) {
        return -1;
    }
    n_walk_colls = 0;
    for (size_t i = 0; i < n; i++) {
        all[i] = journal_point(j, i);
        if (coll_rank(all[i]->collective) == n_walk_colls &&
            n_walk_colls < WALK_MAX_COLLS) {
            walk_colls[n_walk_colls++] = all[i]->collective;
        }
    }
    qsort(all, n, sizeof *all, cmp_walk);
    for (size_t i = 0, end; i < n; i = end) {
        const struct point_result *exhaustive = NULL;
        for (end = i; end < n && cmp_walk(&all[i], &all[end]) == 0; end++) {
            if (strcmp(all[end]->strategy, "exhaustive") == 0) {
                exhaustive = all[end];
            }
        }
        if (!exhaustive) {
            fprintf(stderr,
                    "compare: %s is not an exhaustive run (%s P=%d%s %ld B "
                    "was searched with %s); compare needs every point "
                    "searched once with search = \"exhaustive\"\n",
                    run, all[i]->collective, all[i]->procs,
                    ppn_text(all[i]->ppn), all[i]->msg_bytes, all[i]->strategy);
            return -1;
        }
        all[(*n_points)++] = exhaustive;
    }
    if (*n_points == 0) {
        fprintf(stderr, "compare: %s has no completed points\n", run);
        return -1;
    }
    return 0;
}

static int chain_fanout_of(const struct journal *j)
{
    const char *value =
        journal_setting(journal_get_settings(j), "chain_fanout");
    return value ? atoi(value) : TUNING_CHAIN_FANOUT;
}

/* --misses: one line on stderr per point where a strategy's choice (chose,
 * "alg/seg", its time chose_us) is not the optimum, with the penalty; how:
 * "" or what the choice was ("measured, ", "inferred, ": a walk's). */
static void print_miss(const char *strategy, const struct replay_point *rp,
                       const char *how, const char *chose, double chose_us,
                       double penalty, const char *after)
{
    const struct search_method *opt = &rp->methods[rp->best];
    fprintf(stderr,
            "miss %s %s P=%d%s %ld B: %schose %s (%.1f us), optimum %s/%d "
            "(%.1f us), penalty %.2f %%%s\n",
            strategy, rp->coll->name, rp->procs, ppn_text(rp->ppn),
            rp->msg_bytes, how, chose, chose_us,
            coll_method_name(rp->coll, opt->alg), opt->seg_bytes, rp->best_us,
            100 * penalty, after);
}

/* "alg/seg" of method m at rp into text (room for 64). */
static const char *method_text(const struct replay_point *rp,
                               const struct search_method *m, char *text)
{
    snprintf(text, 64, "%s/%d", coll_method_name(rp->coll, m->alg),
             m->seg_bytes);
    return text;
}

/* The model's time of every method at rp into *out (a static array,
 * valid until the next call), or *out NULL without a model. */
static int point_predictions(const struct model_params *model,
                             const struct replay_point *rp, const double **out)
{
    static double predicted_us[MAX_METHODS];
    *out = NULL;
    if (!model) {
        return 0;
    }
    if (grid_predict_methods(model, rp->coll, rp->procs, rp->ppn, rp->msg_bytes,
                             rp->chain_fanout, rp->methods, rp->n,
                             predicted_us) != 0) {
        return -1;
    }
    *out = predicted_us;
    return 0;
}

/* Replays every strategy at one point and scores its choice; the model
 * strategy only with a model. */
static int replay_point_all(const struct replay_point *rp,
                            const struct search_params *params,
                            const struct model_params *model, bool misses,
                            struct search_series **series,
                            struct replay *replays,
                            struct strategy_score *scores)
{
    const double *predicted_us;
    if (point_predictions(model, rp, &predicted_us) != 0) {
        return -1;
    }
    for (int s = 0; s < search_strategies_size; s++) {
        struct replay *r = &replays[s];
        struct search_point sp;
        int depths[CONFIG_MAX_ALGS];
        if (is_model_strategy(s) && !model) {
            continue;
        }
        grid_search_point(&sp, rp->coll, rp->procs, rp->msg_bytes,
                          rp->chain_fanout, rp->methods, rp->n, depths, params);
        sp.ppn = rp->ppn;
        sp.predicted_us = predicted_us;
        struct search_oracle o = {replay_oracle, replay_pipeline, r};
        long experiments = r->experiments;
        double seconds = r->seconds;
        int best = -1;
        r->point = rp;
        if (search_series_run(series[s], &search_strategies[s], &sp, &o,
                              &best) != 0 ||
            best < 0) {
            fprintf(stderr, "compare: %s found nothing at %s P=%d%s %ld B\n",
                    search_strategies[s].name, rp->coll->name, rp->procs,
                    ppn_text(rp->ppn), rp->msg_bytes);
            return -1;
        }
        double penalty = tuning_penalty(
            r->ix->records[rp->records[best]]->mean_us, rp->best_us);
        struct strategy_score *sc = &scores[s];
        sc->points++;
        sc->experiments += r->experiments - experiments;
        sc->seconds += r->seconds - seconds;
        sc->penalty_sum += penalty;
        sc->penalty_max = penalty > sc->penalty_max ? penalty : sc->penalty_max;
        sc->optimal += penalty == 0;
        if (misses && penalty > 0) {
            char chose[64];
            print_miss(search_strategies[s].name, rp, "",
                       method_text(rp, &rp->methods[best], chose),
                       r->ix->records[rp->records[best]]->mean_us, penalty, "");
        }
    }
    return 0;
}

/* Every size of the filter must be one the run swept. */
static int check_segments(const char *run, const struct record_index *ix,
                          const struct seg_filter *f)
{
    for (int i = 0; i < f->n; i++) {
        size_t k = 0;
        while (k < ix->n && ix->records[k]->segment_bytes != f->sizes[i]) {
            k++;
        }
        if (k == ix->n) {
            fprintf(stderr,
                    "compare: --segments: %s has no record with %d-byte "
                    "segments\n",
                    run, f->sizes[i]);
            return -1;
        }
    }
    return 0;
}

static int compare_grid(const char *run, const struct record_index *ix,
                        const struct point_result **points, size_t n_points,
                        int fanout, const struct seg_filter *segs,
                        const struct search_params *params,
                        const struct model_params *model, double model_cost_s,
                        double max_penalty, double budget, bool misses);
static int compare_bound(const char *run, const struct record_index *ix,
                         const struct point_result **points, size_t n_points,
                         int fanout, const struct seg_filter *segs,
                         const struct search_params *params,
                         const struct model_params *model, double model_cost_s,
                         double tolerance);

int replay_run(const struct replay_request *req)
{
    const char *run = req->run, *model_path = req->model_path,
               *trace = req->trace;
    bool misses = req->is_misses, is_grid = req->is_grid;
    struct search_params params = req->params;
    struct seg_filter segs = req->segs;
    char path[4096];
    struct journal *j = NULL;
    struct replay_point *rp = malloc(sizeof *rp);
    struct record_index ix = {NULL, 0};
    int n_strategies = search_strategies_size;
    struct ppn_set ppns = {0, NULL};
    struct compare_part *parts = NULL;
    struct replay *replays = calloc((size_t)n_strategies, sizeof *replays);
    struct search_series **series =
        calloc((size_t)n_strategies, sizeof *series);
    const struct point_result **points = NULL;
    size_t n_points;
    int status = 1;
    struct model_params *model = NULL;
    double model_cost_s = 0;
    char model_default[4096];
    if (!model_path &&
        rundir_path(model_default, sizeof model_default, run, RUNDIR_MODEL) ==
            0 &&
        access(model_default, R_OK) == 0) {
        model_path = model_default; /* the run's own calibration */
    }
    if (model_path && model_load(model_path, &model, &model_cost_s) != 0) {
        goto done;
    }
    if (model) {
        fprintf(stderr,
                "compare: model: %s (calibration %.3f s, charged to the "
                "model strategy)\n",
                model_path, model_cost_s);
    }
    snprintf(path, sizeof path, "%s/" RUNDIR_JOURNAL, run);
    if (!rp || !replays || !series || journal_load(path, &j) != 0 ||
        index_records(j, &ix) != 0 || check_segments(run, &ix, &segs) != 0 ||
        exhaustive_points(run, j, &points, &n_points) != 0 ||
        ppn_set_of(points, n_points, &ppns) != 0) {
        goto done;
    }
    /* parts[0] the whole run, parts[1 + k] the k-th ranks per node's */
    parts = calloc((size_t)ppns.n + 1, sizeof *parts);
    for (int k = 0; parts && k <= ppns.n; k++) {
        parts[k].ppn = k > 0 ? ppns.values[k - 1] : 0;
        parts[k].scores = calloc((size_t)n_strategies, sizeof *parts->scores);
        if (!parts[k].scores) {
            goto done;
        }
    }
    if (!parts) {
        goto done;
    }
    for (int s = 0; s < n_strategies; s++) {
        replays[s].ix = &ix;
        replays[s].trace =
            trace && strcmp(trace, search_strategies[s].name) == 0 ? trace
                                                                   : NULL;
        replays[s].charged = calloc(ix.n ? ix.n : 1, 1);
        series[s] = search_series_create();
        if (!replays[s].charged || !series[s]) {
            goto done;
        }
    }
    int fanout = chain_fanout_of(j);
    if (is_grid && req->bound_tolerance > 0) {
        if (!model) {
            fprintf(stderr,
                    "compare: --bound: %s has no calibration (give "
                    "--model FILE)\n",
                    run);
            goto done;
        }
        status =
            compare_bound(run, &ix, points, n_points, fanout, &segs, &params,
                          model, model_cost_s, req->bound_tolerance) == 0
                ? 0
                : 1;
        goto done;
    }
    if (is_grid) {
        status = compare_grid(run, &ix, points, n_points, fanout, &segs,
                              &params, model, model_cost_s, req->max_penalty,
                              req->budget, misses) == 0
                     ? 0
                     : 1;
        goto done;
    }
    if (!journal_has_settings(j)) {
        fprintf(stderr,
                "compare: %s: replaying the chain algorithms with "
                "chain_fanout %d, as the journal's settings are unknown\n",
                run, fanout);
    }
    /* The oracle times each point's optimum alone: the least any search
     * could spend. */
    for (size_t i = 0; i < n_points; i++) {
        struct compare_part *part =
            &parts[1 + ppn_set_index(&ppns, points[i]->ppn)];
        if (gather_point(&ix, points[i], fanout, &segs, rp) != 0) {
            goto done;
        }
        if (rp->best >= 0) {
            part->oracle.points++;
            part->oracle.experiments++;
            part->oracle.optimal++;
            part->oracle.seconds += ix.records[rp->records[rp->best]]->cost_s;
        }
        if (rp->best_us >= 0 &&
            replay_point_all(rp, &params, model, misses, series, replays,
                             part->scores) != 0) {
            goto done;
        }
    }
    for (int k = 1; k <= ppns.n; k++) {
        score_add(&parts[0].oracle, &parts[k].oracle);
        for (int s = 0; s < n_strategies; s++) {
            score_add(&parts[0].scores[s], &parts[k].scores[s]);
        }
    }
    for (int s = 0; s < n_strategies; s++) {
        for (int k = 0; k <= ppns.n; k++) {
            if (strcmp(search_strategies[s].name, "exhaustive") == 0) {
                parts[k].exhaustive_s = parts[k].scores[s].seconds;
            }
            if (is_model_strategy(s)) {
                /* the calibration, which any ranks per node needs */
                parts[k].scores[s].seconds += model_cost_s;
            }
        }
        if (replays[s].missing > 0) {
            fprintf(stderr,
                    "compare: %s: %ld pipeline experiments on fewer "
                    "processes were not in the run (sweep those procs "
                    "too); it was charged and answered only from records "
                    "that exist, and searched the full algorithm instead\n",
                    search_strategies[s].name, replays[s].missing);
        }
    }
    /* a run of one ranks per node: its table as before */
    struct compare_table table = {parts, ppns.n > 1 ? ppns.n + 1 : 1,
                                  model != NULL};
    write_compare_csv(stdout, &table);
    snprintf(path, sizeof path, "%s/" RUNDIR_COMPARE, run);
    if (store_write_file(path, write_compare_csv, &table) == 0) {
        status = 0;
    }
done:
    model_params_destroy(model);
    journal_close(j);
    free(ix.records);
    free(rp);
    for (int k = 0; parts && k <= ppns.n; k++) {
        free(parts[k].scores);
    }
    free(parts);
    free(ppns.values);
    for (int s = 0; replays && series && s < n_strategies; s++) {
        free(replays[s].charged);
        search_series_destroy(series[s]);
    }
    free(replays);
    free(series);
    free(points);
    return status;
}

/* --grid adaptive: the adaptive walk (search/refine.h) replayed on a dense
 * run, once per strategy, the strategy searching each point the walk
 * measures; then the same strategy on a uniform sub-grid of as many
 * points. Each choice, measured or inferred, is scored at every point of
 * the run against the exhaustive optimum. */

#define GRID_MAX_LABELS 1024

struct grid_replay {
    const struct record_index *ix;
    const struct point_result **points; /* one collective's, by row */
    int n_procs, n_msgs;                /* rows (ppn, procs), messages */
    const struct ppn_set *ppns;         /* the run's */
    int fanout;
    const struct seg_filter *segs;
    const struct search_params *params;
    const struct model_params *model; /* NULL: no predictions */
    const struct search_strategy *strategy;
    struct search_series *series;
    struct replay *r;
    struct replay_point *rp;
    const struct coll_def *coll;
    struct search_method labels[GRID_MAX_LABELS]; /* a label's method */
    const int *segs_run; /* the run's segment sizes (or --segments) */
    int n_segs_run;
    int n_labels;
    double *chosen_us; /* per point: the strategy's choice where measured */
    /* With the model (not uniform): the corrected predictor over every
     * label of the collective, all labelled before the walk; while
     * gp.pred_us is set it holds every label's model time at every point
     * (grid_predictions), which the model strategy reads instead of
     * predicting again */
    struct grid_predictor gp;
    bool is_predicting;
    double max_penalty; /* 0: the walk without predictions */
    double budget;      /* > 0: the walk that starts from the model */
    bool is_uniform;    /* the uniform sub-grid of as many points */
    bool misses;        /* --misses: print every point it loses at */
};

static int grid_label(struct grid_replay *g, const struct search_method *m)
{
    for (int i = 0; i < g->n_labels; i++) {
        if (grid_method_cmp(&g->labels[i], m) == 0) {
            return i;
        }
    }
    if (g->n_labels == GRID_MAX_LABELS) {
        return -1;
    }
    g->labels[g->n_labels] = *m;
    return g->n_labels++;
}

static int grid_measure(void *ctx, int pi, int mi, int *label, double *time_us)
{
    struct grid_replay *g = ctx;
    const struct point_result *pr = g->points[pi * g->n_msgs + mi];
    struct replay_point *rp = g->rp;
    *label = -1;
    *time_us = -1;
    if (gather_point(g->ix, pr, g->fanout, g->segs, rp) != 0) {
        return -1;
    }
    if (rp->best < 0) {
        return 0;
    }
    struct search_point sp;
    int depths[CONFIG_MAX_ALGS];
    const double *predicted_us;
    if (g->gp.pred_us) {
        static double table_us[MAX_METHODS];
        size_t at = (size_t)(pi * g->n_msgs + mi) * (size_t)g->gp.n_labels;
        for (int k = 0; k < rp->n; k++) {
            int lk = grid_label(g, &rp->methods[k]);
            table_us[k] = lk >= 0 && lk < g->gp.n_labels
                              ? g->gp.pred_us[at + (size_t)lk]
                              : -1;
        }
        predicted_us = table_us;
    } else if (point_predictions(g->model, rp, &predicted_us) != 0) {
        return -1;
    }
    grid_search_point(&sp, rp->coll, rp->procs, rp->msg_bytes, rp->chain_fanout,
                      rp->methods, rp->n, depths, g->params);
    sp.ppn = rp->ppn;
    sp.predicted_us = predicted_us;
    struct search_oracle o = {replay_oracle, replay_pipeline, g->r};
    int best = -1;
    g->r->point = rp;
    if (search_series_run(g->series, g->strategy, &sp, &o, &best) != 0 ||
        best < 0) {
        fprintf(stderr, "compare: %s found nothing at %s P=%d%s %ld B\n",
                g->strategy->name, rp->coll->name, rp->procs, ppn_text(rp->ppn),
                rp->msg_bytes);
        return -1;
    }
    *label = grid_label(g, &rp->methods[best]);
    *time_us = g->ix->records[rp->records[best]]->mean_us;
    g->chosen_us[pi * g->n_msgs + mi] = *time_us;
    for (int k = 0; g->is_predicting && k < rp->n; k++) {
        const struct measurement *rec = g->ix->records[rp->records[k]];
        int lk = grid_label(g, &rp->methods[k]);
        if (lk >= 0 && lk < g->gp.n_labels && g->r->charged[rp->records[k]] &&
            rec->is_applicable) {
            grid_predictor_seen(&g->gp, pi, mi, lk, rec->mean_us);
        }
    }
    return *label < 0 ? -1 : 0;
}

/* With the model: every method of the collective's points labelled, and
 * the model's time of each at each point, in g->gp (rows ppn, procs and
 * msgs borrowed). */
static int grid_predictions(struct grid_replay *g, const int *ppn,
                            const int *procs, const long *msgs)
{
    struct replay_point *rp = g->rp;
    for (int i = 0; i < g->n_procs * g->n_msgs; i++) {
        if (gather_point(g->ix, g->points[i], g->fanout, g->segs, rp) != 0) {
            return -1;
        }
        for (int k = 0; k < rp->n; k++) {
            grid_label(g, &rp->methods[k]);
        }
    }
    g->gp = (struct grid_predictor){
        ppn, procs, g->n_procs, msgs, g->n_msgs, g->n_labels, NULL, NULL, NULL};
    if (grid_predictor_init(&g->gp) != 0) {
        return -1;
    }
    for (int k = 0; k < g->n_labels; k++) {
        g->gp.group[k] = g->labels[k].alg;
    }
    for (int i = 0; i < g->n_procs * g->n_msgs; i++) {
        const double *predicted_us;
        if (gather_point(g->ix, g->points[i], g->fanout, g->segs, rp) != 0 ||
            point_predictions(g->model, rp, &predicted_us) != 0) {
            return -1;
        }
        for (int k = 0; k < rp->n; k++) {
            int lk = grid_label(g, &rp->methods[k]);
            if (lk >= 0 && lk < g->gp.n_labels) {
                g->gp.pred_us[(size_t)i * (size_t)g->n_labels + (size_t)lk] =
                    predicted_us[k];
            }
        }
    }
    return 0;
}

/* The record of method m at the run's point pr, or NULL. */
static const struct measurement *grid_record(const struct grid_replay *g,
                                             const struct point_result *pr,
                                             const struct search_method *m,
                                             size_t *pos)
{
    const char *alg = coll_method_name(g->coll, m->alg);
    for (size_t i = find_point(g->ix, pr->collective, pr->ppn, pr->procs,
                               pr->msg_bytes);
         i < g->ix->n && cmp_point(pr->collective, pr->ppn, pr->procs,
                                   pr->msg_bytes, g->ix->records[i]) == 0;
         i++) {
        const struct measurement *rec = g->ix->records[i];
        if (rec->segment_bytes == m->seg_bytes &&
            strcmp(rec->algorithm, alg) == 0) {
            *pos = i;
            return rec;
        }
    }
    return NULL;
}

/* A label's penalty at a measured point, known only where the strategy
 * timed that method there. */
static double grid_penalty(void *ctx, int pi, int mi, int label)
{
    struct grid_replay *g = ctx;
    size_t pos;
    double chosen_us = g->chosen_us[pi * g->n_msgs + mi];
    const struct measurement *rec =
        grid_record(g, g->points[pi * g->n_msgs + mi], &g->labels[label], &pos);
    if (!rec || !g->r->charged[pos] || !rec->is_applicable || chosen_us <= 0) {
        return -1;
    }
    return tuning_penalty(rec->mean_us, chosen_us);
}

/* The segment size between two labels', of those the run timed, where
 * the run has that method at point (pi, mi). */
static int grid_between(void *ctx, int a, int b, double f, int pi, int mi)
{
    struct grid_replay *g = ctx;
    struct search_method m;
    size_t pos;
    if (grid_method_between(&g->labels[a], &g->labels[b], f, g->segs_run,
                            g->n_segs_run, &m) != 0) {
        return -1;
    }
    const struct measurement *rec =
        grid_record(g, g->points[pi * g->n_msgs + mi], &m, &pos);
    return rec && rec->is_applicable ? grid_label(g, &m) : -1;
}

/* The segment sizes the run timed (those of --segments if given),
 * ascending, into out (room for CONFIG_MAX_SEGS); returns how many. */
static int run_segments(const struct record_index *ix,
                        const struct seg_filter *segs, int *out)
{
    int n = 0;
    for (size_t i = 0; i < ix->n; i++) {
        int seg = ix->records[i]->segment_bytes;
        int k = 0;
        while (k < n && out[k] < seg) {
            k++;
        }
        bool is_new = k == n || out[k] != seg;
        if (seg > 0 && is_new && n < CONFIG_MAX_SEGS &&
            seg_filter_keeps(segs, seg)) {
            memmove(&out[k + 1], &out[k], (size_t)(n - k) * sizeof *out);
            out[k] = seg;
            n++;
        }
    }
    return n;
}

struct grid_score {
    long points, measured;
    double seconds, penalty_sum, penalty_max;
};

static void grid_score_add(struct grid_score *to, const struct grid_score *part)
{
    to->points += part->points;
    to->measured += part->measured;
    to->penalty_sum += part->penalty_sum;
    to->penalty_max = part->penalty_max > to->penalty_max ? part->penalty_max
                                                          : to->penalty_max;
}

/* --misses with --grid: one line on stderr per point the walk loses at,
 * measured there (the strategy's loss) or inferred (the walk's; with the
 * penalty the walk predicted there, as inferred.csv has it). */
static void grid_print_miss(const struct grid_replay *g,
                            const struct refine_point *pt, double chosen_us,
                            double penalty)
{
    char name[64], chose[64] = "nothing that runs", after[64] = "";
    snprintf(name, sizeof name, "%s%s", g->strategy->name,
             g->is_uniform ? "@uniform" : "");
    if (pt->label >= 0) {
        method_text(g->rp, &g->labels[pt->label], chose);
    }
    if (!pt->is_measured && isinf(pt->penalty)) {
        snprintf(after, sizeof after, ", predicted unbounded");
    } else if (!pt->is_measured && pt->penalty >= 0) {
        snprintf(after, sizeof after, ", predicted %.2f %%", 100 * pt->penalty);
    }
    print_miss(name, g->rp, pt->is_measured ? "measured, " : "inferred, ",
               chose, chosen_us, penalty, after);
}

/* Scores the labels of one collective's walk at every point: the time of
 * the chosen method at that point (unsegmented where its segment is not
 * below the message), or the point's slowest method where the choice
 * cannot run there (counted in *cannot_run). Each point counts in its
 * ranks per node's score, sc[1 + k]. */
static int grid_score_points(struct grid_replay *g,
                             const struct refine_point *out,
                             struct grid_score *sc, long *cannot_run)
{
    for (int i = 0; i < g->n_procs * g->n_msgs; i++) {
        struct replay_point *rp = g->rp;
        if (gather_point(g->ix, g->points[i], g->fanout, g->segs, rp) != 0) {
            return -1;
        }
        if (rp->best < 0) {
            continue;
        }
        double worst_us = rp->best_us, chosen_us = -1;
        for (int k = 0; k < rp->n; k++) {
            const struct measurement *m = g->ix->records[rp->records[k]];
            if (m->is_applicable && m->mean_us > worst_us) {
                worst_us = m->mean_us;
            }
        }
        if (out[i].label >= 0) {
            struct search_method m = g->labels[out[i].label];
            size_t pos;
            const struct measurement *rec =
                grid_record(g, g->points[i], &m, &pos);
            if (!rec && m.seg_bytes > 0) {
                m.seg_bytes = 0;
                rec = grid_record(g, g->points[i], &m, &pos);
            }
            chosen_us = rec && rec->is_applicable ? rec->mean_us : -1;
        }
        if (chosen_us < 0) {
            chosen_us = worst_us;
            (*cannot_run)++;
        }
        double penalty = tuning_penalty(chosen_us, rp->best_us);
        if (g->misses && penalty > 0) {
            grid_print_miss(g, &out[i], chosen_us, penalty);
        }
        struct grid_score *part =
            &sc[1 + ppn_set_index(g->ppns, g->points[i]->ppn)];
        part->points++;
        part->measured += out[i].is_measured;
        part->penalty_sum += penalty;
        part->penalty_max =
            penalty > part->penalty_max ? penalty : part->penalty_max;
    }
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The run's points of one collective, from points[at] on (walk order), as
 * a dense grid of rows (ppn, procs) x messages into dense (row-major),
 * ppn, procs and msgs: the rows that have every message size of the
 * collective; the others are left out, said once on stderr. Returns the
 * index past the collective's points. */
static size_t grid_dense(const char *run, const struct point_result **points,
                         size_t n_points, size_t at,
                         const struct point_result **dense, int *ppn,
                         int *procs, long *msgs, int *n_rows, int *n_msgs,
                         bool is_quiet)
{
    const char *coll = points[at]->collective;
    size_t end = at, n_dense = 0;
    long left_out = 0;
    while (end < n_points && strcmp(points[end]->collective, coll) == 0) {
        msgs[end - at] = points[end]->msg_bytes;
        end++;
    }
    qsort(msgs, end - at, sizeof *msgs, cmp_long);
    *n_msgs = 0;
    for (size_t i = 0; i < end - at; i++) {
        if (*n_msgs == 0 || msgs[*n_msgs - 1] != msgs[i]) {
            msgs[(*n_msgs)++] = msgs[i];
        }
    }
    *n_rows = 0;
    for (size_t i = at, row; i < end; i = row) {
        for (row = i; row < end && points[row]->procs == points[i]->procs &&
                      points[row]->ppn == points[i]->ppn;
             row++) {
        }
        if (row - i == (size_t)*n_msgs) {
            ppn[*n_rows] = points[i]->ppn;
            procs[(*n_rows)++] = points[i]->procs;
            for (size_t k = i; k < row; k++) {
                dense[n_dense++] = points[k];
            }
        } else {
            left_out += (long)(row - i);
        }
    }
    if (left_out > 0 && !is_quiet) {
        fprintf(stderr,
                "compare: --grid: %s: %s: %ld points left out (procs "
                "without all %d message sizes)\n",
                run, coll, left_out, *n_msgs);
    }
    return end;
}

struct grid_row {
    char name[64];
    struct grid_score score;
};

/* grid.csv: the run's rows, then (a run of several ranks per node) each
 * ppn's, named NAME@ppnN; each part led by the reference, exhaustive
 * search at every point ("full"). */
struct grid_table {
    const struct grid_row *rows; /* part k's: rows[k * stride ...] */
    int stride, n_rows;          /* rows per part */
    int n_parts;
    const int *ppn;             /* per part: 0 the run, else its ppn */
    const double *exhaustive_s; /* per part */
};

static int write_grid_csv(FILE *f, const void *arg)
{
    const struct grid_table *t = arg;
    fprintf(f, "strategy,points_total,points_measured,measured_pct,"
               "experiment_seconds,speedup,mean_penalty_pct,max_penalty_pct\n");
    for (int k = 0; k < t->n_parts; k++) {
        const struct grid_row *rows = &t->rows[k * t->stride];
        double exhaustive_s = t->exhaustive_s[k];
        char name[32] = "full";
        if (t->ppn[k] > 0) {
            snprintf(name, sizeof name, "full@ppn%d", t->ppn[k]);
        }
        fprintf(f, "%s,%ld,%ld,100.0,%.6f,1.0,0.000,0.000\n", name,
                rows[0].score.points, rows[0].score.points, exhaustive_s);
        for (int i = 0; i < t->n_rows; i++) {
            const struct grid_score *s = &rows[i].score;
            double n = s->points ? (double)s->points : 1;
            fprintf(f, "%s,%ld,%ld,%.1f,%.6f,%.1f,%.3f,%.3f\n", rows[i].name,
                    s->points, s->measured, 100 * (double)s->measured / n,
                    s->seconds, s->seconds > 0 ? exhaustive_s / s->seconds : 0,
                    100 * s->penalty_sum / n, 100 * s->penalty_max);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* One strategy over every collective of the run, on the adaptive walk
 * (is_uniform 0) or on uniform sub-grids of the walk's sizes (measured[],
 * per collective and ranks per node in walk order, from the adaptive
 * pass); the walk refines along the ranks per node too (search/refine.h).
 * sc[0] the run's score, sc[1 + k] the k-th ranks per node's. */
static int grid_replay_strategy(const char *run, struct grid_replay *g,
                                const struct point_result **points,
                                size_t n_points, int is_uniform, int *measured,
                                struct grid_score *sc)
{
    int *procs = malloc(n_points * sizeof *procs);
    int *ppn = malloc(n_points * sizeof *ppn);
    long *msgs = malloc(n_points * sizeof *msgs);
    struct refine_point *out = malloc(n_points * sizeof *out);
    double *chosen_us = malloc(n_points * sizeof *chosen_us);
    const struct point_result **dense = malloc(n_points * sizeof *dense);
    struct refine_params params = REFINE_PARAMS_DEFAULT;
    params.max_penalty = g->max_penalty;
    params.budget = g->budget;
    long cannot_run = 0;
    int rc = procs && ppn && msgs && out && chosen_us && dense ? 0 : -1;
    g->chosen_us = chosen_us;
    if (!is_uniform && measured) {
        memset(measured, 0, n_points * sizeof *measured);
    }
    memset(g->r->charged, 0, g->ix->n ? g->ix->n : 1);
    g->r->seconds = 0;
    g->r->experiments = 0;
    for (size_t at = 0, next, c = 0; at < n_points && rc == 0; at = next) {
        next = grid_dense(run, points, n_points, at, dense, ppn, procs, msgs,
                          &g->n_procs, &g->n_msgs,
                          is_uniform || g->strategy != search_strategies);
        if (g->n_procs == 0) {
            continue;
        }
        struct refine_layers grid = {ppn, procs, g->n_procs, msgs, g->n_msgs};
        struct refine_oracle o = {grid_measure, grid_penalty, grid_between, g};
        struct refine_predictor pr = {grid_predictor_predict, &g->gp};
        g->points = dense;
        g->coll = coll_find(points[at]->collective);
        g->n_labels = 0;
        for (int i = 0; i < g->n_procs * g->n_msgs; i++) {
            chosen_us[i] = -1;
        }
        bool is_predicting = g->model && !is_uniform && g->max_penalty > 0;
        grid_predictor_free(&g->gp);
        g->is_predicting = is_predicting;
        rc = is_predicting ? grid_predictions(g, ppn, procs, msgs) : 0;
        rc = rc != 0 ? rc
             : is_uniform
                 ? refine_uniform_layers(&grid, measured + c, &o, out)
                 : refine_walk_layers_predicted(
                       &grid, &params, &o, is_predicting ? &pr : NULL, out);
        rc = rc == 0 ? grid_score_points(g, out, sc, &cannot_run) : rc;
        /* the points the walk measured at each ppn (layer), in order */
        for (int row = 0; row < g->n_procs && rc == 0; row++) {
            if (row > 0 && ppn[row] != ppn[row - 1]) {
                c++;
            }
            for (int mi = 0; mi < g->n_msgs && !is_uniform; mi++) {
                measured[c] += out[row * g->n_msgs + mi].is_measured;
            }
        }
        c++;
    }
    /* what the experiments charged cost, in all and per ranks per node */
    sc[0].seconds = g->r->seconds;
    for (size_t pos = 0; pos < g->ix->n; pos++) {
        const struct measurement *m = g->ix->records[pos];
        int k = ppn_set_index(g->ppns, m->ppn);
        if (g->r->charged[pos] && m->is_applicable && k < g->ppns->n) {
            sc[1 + k].seconds += m->cost_s;
        }
    }
    for (int k = 1; k <= g->ppns->n; k++) {
        grid_score_add(&sc[0], &sc[k]);
    }
    if (cannot_run > 0) {
        fprintf(stderr,
                "compare: --grid: %s%s: at %ld points the inferred method "
                "cannot run; scored as the point's slowest\n",
                g->strategy->name, is_uniform ? " (uniform)" : "", cannot_run);
    }
    free(procs);
    free(ppn);
    free(msgs);
    free(out);
    free(chosen_us);
    free(dense);
    grid_predictor_free(&g->gp);
    return rc;
}

static int compare_grid(const char *run, const struct record_index *ix,
                        const struct point_result **points, size_t n_points,
                        int fanout, const struct seg_filter *segs,
                        const struct search_params *params,
                        const struct model_params *model, double model_cost_s,
                        double max_penalty, double budget, bool misses)
{
    struct ppn_set ppns = {0, NULL};
    int rc = ppn_set_of(points, n_points, &ppns);
    int n_parts = ppns.n > 1 ? ppns.n + 1 : 1, n_rows = 0;
    int max_rows = 2 * search_strategies_size;
    struct grid_row *rows = calloc((size_t)(n_parts * max_rows), sizeof *rows);
    struct grid_score *sc = calloc((size_t)ppns.n + 1, sizeof *sc);
    int *part_ppn = calloc((size_t)ppns.n + 1, sizeof *part_ppn);
    double *exhaustive_s = calloc((size_t)ppns.n + 1, sizeof *exhaustive_s);
    struct replay r = {ix, NULL, calloc(ix->n ? ix->n : 1, 1), 0, 0, 0, NULL};
    struct grid_replay *g = calloc(1, sizeof *g);
    struct replay_point *rp = malloc(sizeof *rp);
    int *measured = calloc(n_points, sizeof *measured);
    int segs_run[CONFIG_MAX_SEGS];
    int n_segs_run = run_segments(ix, segs, segs_run);
    rc = rc == 0 && rows && sc && part_ppn && exhaustive_s && r.charged && g &&
                 rp && measured
             ? 0
             : -1;
    for (int k = 1; rc == 0 && k <= ppns.n; k++) {
        part_ppn[k] = ppns.values[k - 1];
    }
    for (size_t i = 0; i < n_points && rc == 0; i++) {
        rc = gather_point(ix, points[i], fanout, segs, rp);
        int k = 1 + ppn_set_index(&ppns, points[i]->ppn);
        for (int m = 0; rc == 0 && m < rp->n; m++) {
            const struct measurement *rec = ix->records[rp->records[m]];
            double cost_s = rec->is_applicable ? rec->cost_s : 0;
            exhaustive_s[0] += cost_s;
            exhaustive_s[k] += cost_s;
        }
    }
    for (int s = 0; s < search_strategies_size && rc == 0; s++) {
        /* the walk that starts from the model walks only with it */
        if ((is_model_strategy(s) && !model) ||
            (budget > 0 && !is_model_strategy(s))) {
            continue;
        }
        for (int is_uniform = 0; is_uniform < 2 && rc == 0; is_uniform++) {
            memset(sc, 0, ((size_t)ppns.n + 1) * sizeof *sc);
            struct grid_replay setup = {.ix = ix,
                                        .ppns = &ppns,
                                        .fanout = fanout,
                                        .segs = segs,
                                        .params = params,
                                        .model =
                                            is_model_strategy(s) ? model : NULL,
                                        .strategy = &search_strategies[s],
                                        .series = search_series_create(),
                                        .r = &r,
                                        .rp = rp,
                                        .segs_run = segs_run,
                                        .n_segs_run = n_segs_run,
                                        .max_penalty = max_penalty,
                                        .budget = budget,
                                        .is_uniform = is_uniform,
                                        .misses = misses};
            *g = setup;
            rc = g->series ? grid_replay_strategy(run, g, points, n_points,
                                                  is_uniform, measured, sc)
                           : -1;
            for (int k = 0; k < n_parts; k++) {
                struct grid_row *row = &rows[k * max_rows + n_rows];
                row->score = sc[k];
                if (is_model_strategy(s)) {
                    row->score.seconds += model_cost_s; /* the calibration */
                }
                snprintf(row->name, sizeof row->name, "%s%s",
                         search_strategies[s].name,
                         is_uniform ? "@uniform" : "");
                if (k > 0) {
                    size_t len = strlen(row->name);
                    snprintf(row->name + len, sizeof row->name - len, "@ppn%d",
                             ppns.values[k - 1]);
                }
            }
            n_rows++;
            search_series_destroy(g->series);
        }
    }
    if (rc == 0) {
        char path[4096];
        struct grid_table table = {rows,    max_rows, n_rows,
                                   n_parts, part_ppn, exhaustive_s};
        write_grid_csv(stdout, &table);
        snprintf(path, sizeof path, "%s/" RUNDIR_GRID, run);
        rc = store_write_file(path, write_grid_csv, &table);
    }
    free(ppns.values);
    free(rows);
    free(sc);
    free(part_ppn);
    free(exhaustive_s);
    free(r.charged);
    free(g);
    free(rp);
    free(measured);
    return rc;
}

/* --bound: what any walk must measure (search/bound.h) on each
 * collective's dense grid, from the run's truth and the model. */

struct bound_sums {
    struct bound_result plain, coarse; /* without / with the coarse grid */
    long coarse_points;
    double exhaustive_s, model_pen_sum, model_pen_max;
};

static void bound_sums_add(struct bound_sums *to, const struct bound_sums *x)
{
    const struct bound_result *from[2] = {&x->plain, &x->coarse};
    struct bound_result *into[2] = {&to->plain, &to->coarse};
    for (int i = 0; i < 2; i++) {
        into[i]->points += from[i]->points;
        into[i]->must += from[i]->must;
        into[i]->lower += from[i]->lower;
        into[i]->lower_s += from[i]->lower_s;
        into[i]->upper += from[i]->upper;
        into[i]->upper_s += from[i]->upper_s;
        into[i]->upper_penalty_sum += from[i]->upper_penalty_sum;
        into[i]->upper_penalty_max =
            fmax(into[i]->upper_penalty_max, from[i]->upper_penalty_max);
        into[i]->must_free_max =
            fmax(into[i]->must_free_max, from[i]->must_free_max);
    }
    to->coarse_points += x->coarse_points;
    to->exhaustive_s += x->exhaustive_s;
    to->model_pen_sum += x->model_pen_sum;
    to->model_pen_max = fmax(to->model_pen_max, x->model_pen_max);
}

static void bound_print_row(const char *name, const struct bound_sums *s,
                            double calibration_s)
{
    const struct bound_result *p = &s->plain, *c = &s->coarse;
    double n = p->points ? (double)p->points : 1;
    fprintf(stdout,
            "%s,%ld,%.1f,%ld,%.1f,%ld,%.1f,%ld,%.1f,%.3f,%.3f,%.1f,%.1f,"
            "%.3f,%.3f,%.3f,%.6f,%.6f,%.1f,%.1f,%.1f,%.1f,%.1f,%.6f,%.6f,"
            "%.6f,%.6f\n",
            name, p->points, 100 * (double)s->coarse_points / n, p->must,
            100 * (double)p->must / n, p->lower, 100 * (double)p->lower / n,
            p->upper, 100 * (double)p->upper / n,
            100 * p->upper_penalty_sum / n, 100 * p->upper_penalty_max,
            100 * (double)c->lower / n, 100 * (double)c->upper / n,
            100 * p->must_free_max, 100 * s->model_pen_sum / n,
            100 * s->model_pen_max, s->exhaustive_s, calibration_s,
            s->exhaustive_s / calibration_s,
            s->exhaustive_s / (calibration_s + p->lower_s),
            s->exhaustive_s / (calibration_s + p->upper_s),
            s->exhaustive_s / (calibration_s + c->lower_s),
            s->exhaustive_s / (calibration_s + c->upper_s), p->lower_s,
            p->upper_s, c->lower_s, c->upper_s);
}

/* The bound's inputs for the collective of g (its dense grid in g->points,
 * rows ppn and procs, every label named by grid_predictions). */
struct bound_inputs {
    double *time_us;
    char *has; /* per point and label: a record */
    int *free_label, *hoped_label, *alg, *seg;
    char *coarse;
    double *cost_s;
};

static int bound_truth(struct grid_replay *g, struct bound_inputs *in,
                       struct bound_sums *s)
{
    int n = g->n_procs * g->n_msgs, nl = g->n_labels;
    struct replay_point *rp = g->rp;
    for (int i = 0; i < n; i++) {
        if (gather_point(g->ix, g->points[i], g->fanout, g->segs, rp) != 0) {
            return -1;
        }
        for (int k = 0; k < rp->n; k++) {
            const struct measurement *rec = g->ix->records[rp->records[k]];
            int lk = grid_label(g, &rp->methods[k]);
            if (lk < 0 || lk >= nl) {
                continue;
            }
            size_t at = (size_t)i * (size_t)nl + (size_t)lk;
            in->has[at] = 1;
            in->time_us[at] = rec->is_applicable ? rec->mean_us : -1;
            s->exhaustive_s += rec->is_applicable ? rec->cost_s : 0;
            if (rec->is_applicable) {
                grid_predictor_seen(&g->gp, i / g->n_msgs, i % g->n_msgs, lk,
                                    rec->mean_us);
            }
        }
    }
    /* a label without a record at a point runs there unsegmented, as the
     * walk's choices are scored (grid_score_points) */
    for (int k = 0; k < nl; k++) {
        in->alg[k] = g->labels[k].alg;
        in->seg[k] = g->labels[k].seg_bytes;
        struct search_method m = {g->labels[k].alg, 0};
        int k0 = in->seg[k] > 0 ? grid_label(g, &m) : -1;
        for (int i = 0; k0 >= 0 && k0 < nl && i < n; i++) {
            size_t at = (size_t)i * (size_t)nl;
            if (!in->has[at + (size_t)k]) {
                in->time_us[at + (size_t)k] = in->time_us[at + (size_t)k0];
            }
        }
    }
    return g->n_labels == nl ? 0 : -1;
}

/* The pure model's choice at each point, and the corrected model's with
 * every other point of the grid measured (its own records withheld). */
static int bound_choices(struct grid_replay *g, struct bound_inputs *in,
                         struct bound_sums *s)
{
    int n = g->n_procs * g->n_msgs, nl = g->n_labels;
    double *saved = malloc((size_t)(nl ? nl : 1) * sizeof *saved);
    if (!saved) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const double *pred = g->gp.pred_us + (size_t)i * (size_t)nl;
        const double *t = in->time_us + (size_t)i * (size_t)nl;
        double *seen = g->gp.seen_us + (size_t)i * (size_t)nl;
        double opt_us = -1;
        in->free_label[i] = -1;
        for (int k = 0; k < nl; k++) {
            if (pred[k] > 0 &&
                (in->free_label[i] < 0 || pred[k] < pred[in->free_label[i]])) {
                in->free_label[i] = k;
            }
            opt_us = t[k] > 0 && (opt_us < 0 || t[k] < opt_us) ? t[k] : opt_us;
        }
        if (opt_us > 0) {
            int f = in->free_label[i];
            double pen =
                f >= 0 && t[f] > 0 ? tuning_penalty(t[f], opt_us) : INFINITY;
            s->model_pen_sum += pen;
            s->model_pen_max = fmax(s->model_pen_max, pen);
        }
        memcpy(saved, seen, (size_t)nl * sizeof *saved);
        memset(seen, 0, (size_t)nl * sizeof *seen);
        struct refine_prediction p;
        int rc =
            grid_predictor_predict(&g->gp, i / g->n_msgs, i % g->n_msgs, &p);
        memcpy(seen, saved, (size_t)nl * sizeof *saved);
        if (rc < 0) {
            free(saved);
            return -1;
        }
        in->hoped_label[i] = rc == 0 ? p.label : -1;
    }
    free(saved);
    return 0;
}

/* Each point's cost: the model strategy searching it (what the walk
 * charges for measuring it); the coarse grid of each ppn's rows. */
static int bound_costs(struct grid_replay *g, const int *ppn, const int *procs,
                       const long *msgs, struct bound_inputs *in)
{
    int n = g->n_procs * g->n_msgs;
    struct refine_params params = REFINE_PARAMS_DEFAULT;
    g->is_predicting = false;
    for (int i = 0; i < n; i++) {
        int label;
        double time_us, before = g->r->seconds;
        if (grid_measure(g, i / g->n_msgs, i % g->n_msgs, &label, &time_us) !=
            0) {
            return -1;
        }
        in->cost_s[i] = g->r->seconds - before;
    }
    for (int row = 0, end; row < g->n_procs; row = end) {
        for (end = row; end < g->n_procs && ppn[end] == ppn[row]; end++) {
        }
        struct refine_grid grid = {procs + row, end - row, msgs, g->n_msgs};
        refine_coarse_grid(&grid, &params,
                           in->coarse + (size_t)row * (size_t)g->n_msgs);
    }
    return 0;
}

static int bound_collective(struct grid_replay *g, const int *ppn,
                            const int *procs, const long *msgs,
                            double tolerance, struct bound_sums *s)
{
    if (grid_predictions(g, ppn, procs, msgs) != 0) {
        return -1;
    }
    size_t n = (size_t)g->n_procs * (size_t)g->n_msgs, nl = (size_t)g->n_labels;
    size_t n_cells = n * nl > 0 ? n * nl : 1;
    struct bound_inputs in = {malloc(n_cells * sizeof *in.time_us),
                              calloc(n_cells, 1),
                              malloc((n ? n : 1) * sizeof *in.free_label),
                              malloc((n ? n : 1) * sizeof *in.hoped_label),
                              malloc((nl ? nl : 1) * sizeof *in.alg),
                              malloc((nl ? nl : 1) * sizeof *in.seg),
                              calloc(n ? n : 1, 1),
                              malloc((n ? n : 1) * sizeof *in.cost_s)};
    double *chosen_us = malloc((n ? n : 1) * sizeof *chosen_us);
    int rc = in.time_us && in.has && in.free_label && in.hoped_label &&
                     in.alg && in.seg && in.coarse && in.cost_s && chosen_us
                 ? 0
                 : -1;
    g->chosen_us = chosen_us;
    for (size_t i = 0; rc == 0 && i < n * nl; i++) {
        in.time_us[i] = -1;
    }
    rc = rc == 0 ? bound_truth(g, &in, s) : rc;
    rc = rc == 0 ? bound_choices(g, &in, s) : rc;
    rc = rc == 0 ? bound_costs(g, ppn, procs, msgs, &in) : rc;
    struct bound_map m = {
        g->n_procs,    g->n_msgs, g->n_labels,    ppn,      in.time_us,
        in.free_label, 1,         in.hoped_label, 1,        in.alg,
        in.seg,        NULL,      in.cost_s,      tolerance};
    rc = rc == 0 ? bound_grid(&m, &s->plain, NULL, NULL) : rc;
    m.premeasured = in.coarse;
    rc = rc == 0 ? bound_grid(&m, &s->coarse, NULL, NULL) : rc;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        s->coarse_points += in.coarse[i];
    }
    free(in.time_us);
    free(in.has);
    free(in.free_label);
    free(in.hoped_label);
    free(in.alg);
    free(in.seg);
    free(in.coarse);
    free(in.cost_s);
    free(chosen_us);
    grid_predictor_free(&g->gp);
    return rc;
}

static int compare_bound(const char *run, const struct record_index *ix,
                         const struct point_result **points, size_t n_points,
                         int fanout, const struct seg_filter *segs,
                         const struct search_params *params,
                         const struct model_params *model, double model_cost_s,
                         double tolerance)
{
    struct ppn_set ppns = {0, NULL};
    struct replay r = {ix, NULL, calloc(ix->n ? ix->n : 1, 1), 0, 0, 0, NULL};
    struct grid_replay *g = calloc(1, sizeof *g);
    struct replay_point *rp = malloc(sizeof *rp);
    int *procs = malloc(n_points * sizeof *procs);
    int *ppn = malloc(n_points * sizeof *ppn);
    long *msgs = malloc(n_points * sizeof *msgs);
    const struct point_result **dense = malloc(n_points * sizeof *dense);
    struct bound_sums total = {0};
    int segs_run[CONFIG_MAX_SEGS];
    int n_segs_run = run_segments(ix, segs, segs_run);
    int rc = ppn_set_of(points, n_points, &ppns);
    rc = rc == 0 && r.charged && g && rp && procs && ppn && msgs && dense ? 0
                                                                          : -1;
    int s = 0;
    while (s < search_strategies_size && !is_model_strategy(s)) {
        s++;
    }
    if (rc == 0) {
        struct grid_replay setup = {.ix = ix,
                                    .ppns = &ppns,
                                    .fanout = fanout,
                                    .segs = segs,
                                    .params = params,
                                    .model = model,
                                    .strategy = &search_strategies[s],
                                    .series = search_series_create(),
                                    .r = &r,
                                    .rp = rp,
                                    .segs_run = segs_run,
                                    .n_segs_run = n_segs_run};
        *g = setup;
        rc = g->series ? 0 : -1;
        printf("collective,points,coarse_pct,must,must_pct,lower,lower_pct,"
               "upper,upper_pct,upper_mean_pct,upper_max_pct,"
               "lower_coarse_pct,upper_coarse_pct,must_model_max_pct,"
               "model_mean_pct,model_max_pct,exhaustive_s,calibration_s,"
               "factor_ceiling,factor_lower,factor_upper,"
               "factor_lower_coarse,factor_upper_coarse,lower_s,upper_s,"
               "lower_coarse_s,upper_coarse_s\n");
    }
    for (size_t at = 0, next; at < n_points && rc == 0; at = next) {
        next = grid_dense(run, points, n_points, at, dense, ppn, procs, msgs,
                          &g->n_procs, &g->n_msgs, false);
        if (g->n_procs == 0) {
            continue;
        }
        struct bound_sums sums = {0};
        g->points = dense;
        g->coll = coll_find(points[at]->collective);
        g->n_labels = 0;
        rc = bound_collective(g, ppn, procs, msgs, tolerance, &sums);
        if (rc == 0) {
            bound_print_row(points[at]->collective, &sums, model_cost_s);
            bound_sums_add(&total, &sums);
        }
    }
    if (rc == 0) {
        bound_print_row("total", &total, model_cost_s);
    }
    search_series_destroy(g ? g->series : NULL);
    free(ppns.values);
    free(r.charged);
    free(g);
    free(rp);
    free(procs);
    free(ppn);
    free(msgs);
    free(dense);
    return rc;
}
