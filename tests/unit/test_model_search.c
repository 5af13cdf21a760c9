/* The model strategy on a synthetic landscape with a synthetic predictor
 * whose errors are known: one algorithm underestimated (measured slower
 * than predicted, it sends the search to the true winner, and the next
 * point learns its ratio and leaves it alone), a
 * segment curve whose predicted minimum is one step off (the short descent
 * must find the true one), and no predictions (it is smgd then). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "search/search.h"

#define N_ALGS 3
#define N_SEGS 6 /* 0 (unsegmented), 1 KiB .. 16 KiB */

static const int seg_bytes[N_SEGS] = {0, 1024, 2048, 4096, 8192, 16384};

/* A pipelined tree of depth h: (segments + h - 1) segment times. */
static double pipeline_us(long msg, int seg, int h, double alpha_us,
                          double beta_us)
{
    double s = seg == 0 || seg >= msg ? (double)msg : seg;
    return (ceil((double)msg / s) + h - 1) * (alpha_us + s * beta_us);
}

/* The truth: algorithm 0 a deep pipeline, 1 a shallow tree (the winner),
 * 2 a flat tree far behind. */
static double true_us(int alg, int seg, long msg)
{
    static const int depth[N_ALGS] = {8, 3, 1};
    static const double alpha[N_ALGS] = {20, 30, 200};
    static const double scale[N_ALGS] = {1.3, 1, 3};
    return pipeline_us(msg, seg, depth[alg], alpha[alg], 0.01) * scale[alg];
}

/* The model: algorithm 0 predicted at half its time, and every segmented
 * curve's minimum one step toward larger segments. */
static double model_us(int alg, int seg, long msg)
{
    double t = true_us(alg, seg > 1024 ? seg / 2 : seg, msg);
    return alg == 0 ? 0.5 * t : t;
}

struct landscape {
    long msg_bytes;
    struct search_method methods[N_ALGS * N_SEGS];
    double predicted_us[N_ALGS * N_SEGS];
    int n_methods;
    int experiments, twice;
    int timed[N_ALGS * N_SEGS];
};

static int oracle(void *ctx, const struct search_point *p, int i,
                  double *time_us)
{
    struct landscape *l = ctx;
    l->twice += l->timed[i];
    l->timed[i] = 1;
    l->experiments++;
    *time_us =
        true_us(p->methods[i].alg, p->methods[i].seg_bytes, l->msg_bytes);
    return 0;
}

/* Runs strategy name at one point of bcast on 16 ranks along series s;
 * returns the chosen method. */
static int run_point(struct search_series *s, const char *name, long msg_bytes,
                     const struct search_method *methods, int n_methods,
                     const int *depths, const double *predicted_us,
                     const struct search_oracle *o)
{
    struct search_params params = SEARCH_PARAMS_DEFAULT;
    struct search_point p = {
        .collective = "bcast",
        .procs = 16,
        .msg_bytes = msg_bytes,
        .methods = methods,
        .n_methods = n_methods,
        .depths = depths,
        .n_depths = N_ALGS,
        .pipeline_alg = -1,
        .predicted_us = predicted_us,
        .params = &params,
    };
    int best = -1;
    CHECK_INT(0, search_series_run(s, search_find(name), &p, o, &best));
    return best;
}

/* Runs strategy name at msg_bytes along series s (with predictions when
 * is_predicted); returns the chosen method, *optimum the true best. */
static int run_at(struct search_series *s, const char *name, long msg_bytes,
                  int is_predicted, struct landscape *l, int *optimum)
{
    static const int depths[N_ALGS] = {8, 3, 1};
    *l = (struct landscape){.msg_bytes = msg_bytes};
    double best_us = -1;
    for (int a = 0; a < N_ALGS; a++) {
        for (int k = 0; k < N_SEGS; k++) {
            if (k > 0 && seg_bytes[k] >= msg_bytes) {
                continue;
            }
            int i = l->n_methods++;
            l->methods[i] = (struct search_method){a, seg_bytes[k]};
            l->predicted_us[i] = model_us(a, seg_bytes[k], msg_bytes);
            double t = true_us(a, seg_bytes[k], msg_bytes);
            if (best_us < 0 || t < best_us) {
                best_us = t;
                *optimum = i;
            }
        }
    }
    struct search_oracle o = {oracle, NULL, l};
    return run_point(s, name, msg_bytes, l->methods, l->n_methods, depths,
                     is_predicted ? l->predicted_us : NULL, &o);
}

/* Algorithm 0 is predicted far ahead: the first point times it, finds it
 * twice as slow as predicted, so times algorithm 1, predicted below that,
 * which wins; the next point has learned the ratio and leaves 0 alone. */
static int alg_timed(const struct landscape *l, int alg)
{
    int n = 0;
    for (int i = 0; i < l->n_methods; i++) {
        n += l->timed[i] && l->methods[i].alg == alg;
    }
    return n;
}

static void test_learns_ratio(void)
{
    struct search_series *s = search_series_create();
    struct landscape l;
    int optimum;
    int best = run_at(s, "model", 1L << 17, 1, &l, &optimum);
    CHECK_INT(optimum, best);
    CHECK_INT(1, l.methods[best].alg);
    CHECK(alg_timed(&l, 0) >= 1);
    CHECK_INT(0, alg_timed(&l, 2)); /* far behind, never predicted below */
    CHECK_INT(0, l.twice);
    CHECK(l.experiments < l.n_methods / 2);
    best = run_at(s, "model", 1L << 18, 1, &l, &optimum);
    CHECK_INT(optimum, best);
    CHECK_INT(0, alg_timed(&l, 0));
    CHECK_INT(0, l.twice);
    CHECK(l.experiments < l.n_methods / 3);
    search_series_destroy(s);
}

/* The predicted best segment is one step too large: the descent toward
 * smaller segments finds the true one. */
static void test_descends_to_segment(void)
{
    struct search_series *s = search_series_create();
    struct landscape l;
    int optimum;
    run_at(s, "model", 1L << 17, 1, &l, &optimum);
    run_at(s, "model", 1L << 18, 1, &l, &optimum);
    int best = run_at(s, "model", 1L << 19, 1, &l, &optimum);
    CHECK_INT(optimum, best);
    CHECK(l.methods[best].seg_bytes > 0);
    search_series_destroy(s);
}

/* Without predictions the model strategy is smgd. */
static void test_no_model(void)
{
    struct search_series *a = search_series_create();
    struct search_series *b = search_series_create();
    for (long m = 1L << 15; m <= 1L << 19; m *= 4) {
        struct landscape la, lb;
        int optimum;
        int best_model = run_at(a, "model", m, 0, &la, &optimum);
        int best_smgd = run_at(b, "smgd", m, 0, &lb, &optimum);
        CHECK_INT(best_smgd, best_model);
        CHECK_INT(lb.experiments, la.experiments);
    }
    search_series_destroy(a);
    search_series_destroy(b);
}

/* A flat landscape of unsegmented algorithms, each with its own truth and
 * prediction, at one point of a series (costliest_us comes from the series:
 * the points before). */
struct flat {
    int n;
    double true_us[N_ALGS * N_SEGS];
    struct search_method methods[N_ALGS * N_SEGS];
    double predicted_us[N_ALGS * N_SEGS];
    int timed[N_ALGS * N_SEGS];
    int experiments;
};

static int flat_oracle(void *ctx, const struct search_point *p, int i,
                       double *time_us)
{
    struct flat *f = ctx;
    (void)p;
    f->timed[i] = 1;
    f->experiments++;
    *time_us = f->true_us[i];
    return 0;
}

static int run_flat(struct search_series *s, long msg_bytes, struct flat *f)
{
    static const int depths[N_ALGS] = {1, 1, 1};
    struct search_oracle o = {flat_oracle, NULL, f};
    memset(f->timed, 0, sizeof f->timed);
    f->experiments = 0;
    return run_point(s, "model", msg_bytes, f->methods, f->n, depths,
                     f->predicted_us, &o);
}

/* Three unsegmented algorithms: 0 and 1 with one schedule (the same
 * prediction: timed once), 2 predicted 20 % behind but 10 % ahead in
 * truth. At a costly point 2 is not timed once the model has proved right
 * for it at a neighbour; at a point 1/16 of the costliest, it is. */
static void flat_init(struct flat *f, double scale)
{
    *f = (struct flat){.n = N_ALGS};
    for (int a = 0; a < N_ALGS; a++) {
        f->methods[a] = (struct search_method){a, 0};
        f->true_us[a] = scale * (a == 2 ? 90 : 100);
        f->predicted_us[a] = scale * (a == 2 ? 120 : 100);
    }
}

static void test_twins_and_cheap_points(void)
{
    struct search_series *s = search_series_create();
    struct flat f;
    /* Costly: the first point of the series. 2 is unknown and within 25 %
     * of the best: timed; 1 repeats 0: not. */
    flat_init(&f, 1000);
    f.true_us[2] = 1000 * 120; /* as predicted here: the model learns 1.0 */
    CHECK_INT(0, run_flat(s, 1L << 20, &f));
    CHECK(f.timed[0] && !f.timed[1] && f.timed[2]);
    /* A point as costly: 2 is known, 20 % behind: not timed (its truth,
     * faster, is missed: the model's margin). */
    flat_init(&f, 1000);
    f.true_us[2] = 1000 * 120;
    CHECK_INT(0, run_flat(s, 1L << 21, &f));
    CHECK_INT(1, f.experiments);
    /* A point 1/1000 of the costliest: every algorithm within 25 % of the
     * best is timed, and the truth found. */
    flat_init(&f, 1);
    CHECK_INT(2, run_flat(s, 1L << 22, &f));
    CHECK(f.timed[2] && !f.timed[1]);
    search_series_destroy(s);
}

/* A segment size predicted more than 3 % slower than the start is not
 * timed; one predicted within 3 %, not yet measured, is, unless the start
 * took what the model said to 0.5 %: then only steps within 1 % are. */
static int walk_margin_point(double start_true_us, int *timed)
{
    struct search_series *s = search_series_create();
    struct flat f = {.n = 3};
    for (int k = 0; k < 3; k++) {
        f.methods[k] = (struct search_method){0, 1024 << k};
        f.true_us[k] = 100;
    }
    f.predicted_us[0] = 110; /* 1 KiB: 10 % slower */
    f.predicted_us[1] = 100; /* 2 KiB: the start */
    f.predicted_us[2] = 102; /* 4 KiB: 2 % slower */
    f.true_us[1] = start_true_us;
    f.true_us[2] = 99;
    int best = run_flat(s, 1L << 20, &f);
    memcpy(timed, f.timed, 3 * sizeof *timed);
    search_series_destroy(s);
    return best;
}

static void test_walk_margin(void)
{
    int timed[3];
    CHECK_INT(2, walk_margin_point(101, timed)); /* 1 % off: 3 % margin */
    CHECK(!timed[0] && timed[1] && timed[2]);
    CHECK_INT(1, walk_margin_point(100.2, timed)); /* 0.2 % off: 1 % */
    CHECK(!timed[0] && timed[1] && !timed[2]);
}

/* One algorithm, unsegmented and at three segment sizes; the model right
 * at the first point. At the second the start (2 KiB) takes 20 % longer
 * than predicted: the neighbour's correction does not hold here, so the
 * unsegmented version, predicted 15 % behind the start (beyond the walk,
 * past a 4 KiB step predicted 10 % behind), is timed too, and wins. Where
 * the start is as predicted, it is not. */
static double surprise_point(int is_surprised, int *experiments)
{
    struct search_series *s = search_series_create();
    static const int segs[4] = {0, 1024, 2048, 4096};
    static const double predicted[4] = {115, 110, 100, 110};
    struct flat f = {.n = 4};
    for (int k = 0; k < 4; k++) {
        f.methods[k] = (struct search_method){0, segs[k]};
        f.predicted_us[k] = predicted[k];
        f.true_us[k] = predicted[k];
    }
    CHECK_INT(2, run_flat(s, 1L << 20, &f));
    CHECK_INT(1, f.experiments);
    f.true_us[0] = 105;
    f.true_us[1] = f.true_us[3] = 130;
    f.true_us[2] = is_surprised ? 120 : 100;
    int best = run_flat(s, 1L << 21, &f);
    *experiments = f.experiments;
    search_series_destroy(s);
    return f.methods[best].seg_bytes;
}

/* Two unsegmented algorithms, the model right at the first point for the
 * first; the second predicted 27 % behind, never timed. At the second
 * point the first takes 20 % longer than predicted: the second, within
 * 25 % of that measured time, is timed, and wins. */
static void test_surprise_margin(void)
{
    struct search_series *s = search_series_create();
    struct flat f = {.n = 2};
    for (int a = 0; a < 2; a++) {
        f.methods[a] = (struct search_method){a, 0};
        f.predicted_us[a] = a == 0 ? 100 : 127;
        f.true_us[a] = f.predicted_us[a];
    }
    CHECK_INT(0, run_flat(s, 1L << 20, &f));
    CHECK(!f.timed[1]);
    f.true_us[0] = 120;
    f.true_us[1] = 110;
    CHECK_INT(1, run_flat(s, 1L << 21, &f));
    search_series_destroy(s);
}

static void test_surprise(void)
{
    int n;
    CHECK_INT(0, surprise_point(1, &n));
    CHECK_INT(2, n);
    CHECK_INT(2048, surprise_point(0, &n));
    CHECK_INT(1, n);
}

int main(void)
{
    test_learns_ratio();
    test_descends_to_segment();
    test_no_model();
    test_twins_and_cheap_points();
    test_walk_margin();
    test_surprise();
    test_surprise_margin();
    return check_exit();
}
