/* `autotune compare`: replays every search strategy on an exhaustive run's
 * journal, without MPI. Each strategy is charged the recorded cost_s of the
 * experiments it asks for (once each: the journal is the cache), and its
 * choices are scored against the exhaustive optimum (seed 000, eq. 6). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/compare.h"
#include "collectives/collectives.h"
#include "search/search.h"
#include "store/store.h"

#define MAX_METHODS 4096

/* A point of the run: its records in method order. */
struct replay_point {
    const struct coll_def *coll;
    int procs;
    long msg_bytes;
    int n;
    struct search_method methods[MAX_METHODS];
    const struct measurement *records[MAX_METHODS];
    double best_us; /* the exhaustive optimum */
};

struct replay {
    const struct replay_point *point;
    char charged[MAX_METHODS];
    long experiments;
    double seconds;
};

struct strategy_score {
    long points, experiments, optimal;
    double seconds, penalty_sum, penalty_max;
};

static int replay_oracle(void *ctx, const struct search_point *p, int i,
                         double *time_us)
{
    struct replay *r = ctx;
    const struct measurement *m = r->point->records[i];
    (void)p;
    if (!r->charged[i] && m->is_applicable) {
        r->experiments++;
        r->seconds += m->cost_s;
    }
    r->charged[i] = 1;
    *time_us = m->is_applicable ? m->mean_us : -1;
    return 0;
}

/* Records ordered by point (collective, procs, message size), so that each
 * point's records are one contiguous range, found by binary search. */
struct record_index {
    const struct measurement **records;
    size_t n;
};

static int cmp_point(const char *coll_a, int procs_a, long msg_a,
                     const struct measurement *b)
{
    int c = strcmp(coll_a, b->collective);
    if (c != 0) {
        return c;
    }
    if (procs_a != b->procs) {
        return procs_a < b->procs ? -1 : 1;
    }
    return (msg_a > b->msg_bytes) - (msg_a < b->msg_bytes);
}

static int cmp_record_point(const void *a, const void *b)
{
    const struct measurement *x = *(const struct measurement *const *)a;
    return cmp_point(x->collective, x->procs, x->msg_bytes,
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
    const struct measurement *record;
};

static int cmp_method_record(const void *a, const void *b)
{
    const struct search_method *x = &((const struct method_record *)a)->method;
    const struct search_method *y = &((const struct method_record *)b)->method;
    if (x->alg != y->alg) {
        return x->alg - y->alg;
    }
    return (x->seg_bytes > y->seg_bytes) - (x->seg_bytes < y->seg_bytes);
}

/* Collects the records of one point in the order the sweep lists methods
 * (algorithm table order, segments ascending). */
static int gather_point(const struct record_index *ix,
                        const struct point_result *pr, struct replay_point *rp)
{
    static struct method_record found[MAX_METHODS];
    rp->coll = coll_find(pr->collective);
    if (!rp->coll) {
        fprintf(stderr, "compare: unknown collective '%s' in the journal\n",
                pr->collective);
        return -1;
    }
    rp->procs = pr->procs;
    rp->msg_bytes = pr->msg_bytes;
    size_t lo = 0, hi = ix->n;
    while (lo < hi) { /* the first record not before the point */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_point(pr->collective, pr->procs, pr->msg_bytes,
                      ix->records[mid]) > 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int n = 0;
    for (size_t i = lo; i < ix->n && n < MAX_METHODS &&
                        cmp_point(pr->collective, pr->procs, pr->msg_bytes,
                                  ix->records[i]) == 0;
         i++) {
        const struct measurement *m = ix->records[i];
        int alg = coll_find_alg(rp->coll, m->algorithm);
        if (alg >= 0) {
            found[n++] = (struct method_record){{alg, m->segment_bytes}, m};
        }
    }
    qsort(found, (size_t)n, sizeof found[0], cmp_method_record);
    rp->n = n;
    rp->best_us = -1;
    for (int k = 0; k < n; k++) {
        const struct measurement *m = found[k].record;
        rp->methods[k] = found[k].method;
        rp->records[k] = m;
        if (m->is_applicable && (rp->best_us < 0 || m->mean_us < rp->best_us)) {
            rp->best_us = m->mean_us;
        }
    }
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

struct compare_table {
    const struct strategy_score *scores;
    double exhaustive_s;
};

static int write_compare_csv(FILE *f, const void *arg)
{
    const struct compare_table *t = arg;
    fprintf(f, "strategy,points,experiments,experiment_seconds,speedup,"
               "mean_penalty_pct,max_penalty_pct,optimal_pct\n");
    for (int i = 0; i < search_strategies_size; i++) {
        write_row(f, search_strategies[i].name, &t->scores[i], t->exhaustive_s);
    }
    return ferror(f) ? -1 : 0;
}

/* The run's points, all completed by exhaustive search; fails otherwise. */
static int exhaustive_points(const char *run, const struct journal *j,
                             size_t *n_points)
{
    *n_points = 0;
    for (size_t i = 0; i < journal_point_count(j); i++) {
        const struct point_result *p = journal_point(j, i);
        if (strcmp(p->strategy, "exhaustive") != 0) {
            fprintf(stderr,
                    "compare: %s is not an exhaustive run (%s P=%d %ld B "
                    "was searched with %s); compare needs a run swept with "
                    "search = \"exhaustive\"\n",
                    run, p->collective, p->procs, p->msg_bytes, p->strategy);
            return -1;
        }
        (*n_points)++;
    }
    if (*n_points == 0) {
        fprintf(stderr, "compare: %s has no completed points\n", run);
        return -1;
    }
    return 0;
}

int compare_main(int argc, char **argv)
{
    static const char usage_line[] =
        "usage: autotune compare -r RUN [--lookahead N] [--drop-ratio R]\n";
    const char *run = NULL;
    struct search_params params = SEARCH_PARAMS_DEFAULT;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
            run = argv[++i];
        } else if (strcmp(argv[i], "--lookahead") == 0 && i + 1 < argc) {
            params.lookahead = (int)strtol(argv[++i], &end, 10);
        } else if (strcmp(argv[i], "--drop-ratio") == 0 && i + 1 < argc) {
            params.drop_ratio = strtod(argv[++i], &end);
        } else {
            fprintf(stderr, "%s", usage_line);
            return 2;
        }
        if (end && (*end || params.lookahead < 0 || params.drop_ratio < 1)) {
            fprintf(stderr, "compare: %s: '%s' is not valid\n", argv[i - 1],
                    argv[i]);
            return 2;
        }
    }
    if (!run) {
        fprintf(stderr, "%s", usage_line);
        return 2;
    }
    char path[4096];
    struct journal *j = NULL;
    struct replay_point *rp = malloc(sizeof *rp);
    struct record_index ix = {NULL, 0};
    struct strategy_score *scores =
        calloc((size_t)search_strategies_size, sizeof *scores);
    int *prev = calloc((size_t)search_strategies_size * 2, sizeof *prev);
    size_t n_points;
    int status = 1;
    snprintf(path, sizeof path, "%s/journal", run);
    if (!rp || !scores || !prev || journal_load(path, &j) != 0 ||
        index_records(j, &ix) != 0 ||
        exhaustive_points(run, j, &n_points) != 0) {
        goto done;
    }
    double exhaustive_s = 0;
    const struct point_result *before = NULL;
    for (size_t i = 0; i < journal_point_count(j); i++) {
        const struct point_result *pr = journal_point(j, i);
        if (gather_point(&ix, pr, rp) != 0) {
            goto done;
        }
        if (rp->best_us < 0) {
            continue;
        }
        /* A new (collective, procs) series: no previous choice to hint. */
        int same_series = before && before->procs == pr->procs &&
                          strcmp(before->collective, pr->collective) == 0;
        before = pr;
        for (int s = 0; s < search_strategies_size; s++) {
            struct replay r = {.point = rp};
            struct search_point sp = {
                .collective = pr->collective,
                .procs = pr->procs,
                .msg_bytes = pr->msg_bytes,
                .methods = rp->methods,
                .n_methods = rp->n,
                .params = &params,
            };
            sp.hint = same_series ? search_method_index(&sp, prev[2 * s],
                                                        prev[2 * s + 1])
                                  : -1;
            int best = -1;
            if (search_strategies[s].find_best(&sp, replay_oracle, &r, &best) !=
                    0 ||
                best < 0) {
                fprintf(stderr, "compare: %s found nothing at %s P=%d %ld B\n",
                        search_strategies[s].name, pr->collective, pr->procs,
                        pr->msg_bytes);
                goto done;
            }
            double penalty =
                (rp->records[best]->mean_us - rp->best_us) / rp->best_us;
            struct strategy_score *sc = &scores[s];
            sc->points++;
            sc->experiments += r.experiments;
            sc->seconds += r.seconds;
            sc->penalty_sum += penalty;
            sc->penalty_max =
                penalty > sc->penalty_max ? penalty : sc->penalty_max;
            sc->optimal += penalty == 0;
            prev[2 * s] = rp->methods[best].alg;
            prev[2 * s + 1] = rp->methods[best].seg_bytes;
            if (strcmp(search_strategies[s].name, "exhaustive") == 0) {
                exhaustive_s += r.seconds;
            }
        }
    }
    struct compare_table table = {scores, exhaustive_s};
    write_compare_csv(stdout, &table);
    snprintf(path, sizeof path, "%s/compare.csv", run);
    if (store_write_file(path, write_compare_csv, &table) == 0) {
        status = 0;
    }
done:
    journal_close(j);
    free(ix.records);
    free(rp);
    free(scores);
    free(prev);
    return status;
}
