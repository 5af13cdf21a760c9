/* The corrected predictor (model/corrected.c) and the decisions between
 * measured sizes that follow it (decision/between_model.c), on synthetic
 * times: a model whose error drifts linearly in log size and log procs is
 * corrected exactly between measured points; a third method that wins only
 * between two measured sizes (a dip the measured sizes miss) is found with
 * the model and, as the measured times alone cannot show it, not without;
 * also between sizes 256x apart, where it is near the optimum at neither;
 * past the measured sizes, a model off by a factor that holds there is
 * corrected exactly, and a method that wins only past the largest measured
 * size is placed there, by the exact decision and by a C4.5 tree; a
 * segment between two measured sizes splits a method's correction there. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision/between.h"
#include "decision/decision.h"
#include "model/model.h"
#include "store/export.h"
#include "store/tables.h"
#include "tests/check.h"

#define CHECK_NEAR(want, got, tol)                                             \
    do {                                                                       \
        double w_ = (want), g_ = (got);                                        \
        if (!(fabs(w_ - g_) <= (tol)*fmax(1, fabs(w_)))) {                     \
            fprintf(stderr, "%s:%d: expected %.12g, got %.12g\n", __FILE__,    \
                    __LINE__, w_, g_);                                         \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

/* ---- the predictor alone ---- */

/* The model: method 0 a + b m, method 1 a power law; method 2 none. */
static double model_time(int k, int procs, long m)
{
    return k == 0 ? 5 + 0.01 * procs * (double)m
                  : 2 * procs * pow((double)(m > 1 ? m : 1), 0.7);
}

static int model_source(void *arg, int k, int procs, long m, double *t)
{
    (void)arg;
    if (k == 2) {
        return 1;
    }
    *t = model_time(k, procs, m);
    return 0;
}

/* The model's error, linear in log size and log procs (per method). */
static double drift(int k, int procs, long m)
{
    return (k == 0 ? 0.3 : -0.2) - 0.07 * log((double)m) +
           0.15 * log((double)procs);
}

static double truth(int k, int procs, long m)
{
    return model_time(k, procs, m) * exp(drift(k, procs, m));
}

enum { N_P = 3, N_M = 5, N_K = 3 };
static const int grid_procs[N_P] = {2, 8, 32};
static const long msgs[N_M] = {1, 16, 256, 4096, 65536};

static void check_predictor(void)
{
    double t[N_P * N_M * N_K];
    for (int p = 0; p < N_P; p++) {
        for (int m = 0; m < N_M; m++) {
            for (int k = 0; k < N_K; k++) {
                t[(p * N_M + m) * N_K + k] = truth(k, grid_procs[p], msgs[m]);
            }
        }
    }
    /* held out (or never timed): method 1 at 8 procs, 256 B */
    t[(1 * N_M + 2) * N_K + 1] = -1;
    struct model_measured seen = {N_P, N_M, N_K, grid_procs, msgs, t};
    struct model_estimate e;
    /* between measured sizes and procs, and at the held-out point (its
     * neighbours 16 and 4096 B): the truth, exactly */
    static const int at_p[] = {2, 4, 8, 11, 32};
    static const long at_m[] = {1, 3, 16, 100, 256, 1000, 30000, 65536};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < sizeof at_p / sizeof *at_p; i++) {
            for (size_t j = 0; j < sizeof at_m / sizeof *at_m; j++) {
                CHECK_INT(0, model_corrected_at(&seen, model_source, NULL, k,
                                                at_p[i], at_m[j], &e));
                CHECK_NEAR(truth(k, at_p[i], at_m[j]), e.time_us, 1e-12);
                CHECK_NEAR(drift(k, at_p[i], at_m[j]), e.residual, 1e-12);
            }
        }
    }
    /* at a measured point: its time, one neighbour, uncertainty the size
     * of its residual */
    CHECK_INT(0, model_corrected_at(&seen, model_source, NULL, 0, 8, 4096, &e));
    CHECK_NEAR(truth(0, 8, 4096), e.time_us, 1e-12);
    CHECK_INT(1, e.n_neighbours);
    CHECK_NEAR(fabs(drift(0, 8, 4096)), e.uncertainty, 1e-12);
    /* between two sizes at a measured procs: two neighbours, half their
     * residuals' range (0.07 ln 16 apart); between procs too: four */
    CHECK_INT(0, model_corrected_at(&seen, model_source, NULL, 0, 8, 64, &e));
    CHECK_INT(2, e.n_neighbours);
    CHECK_NEAR(0.07 * log(16.0) / 2, e.uncertainty, 1e-12);
    CHECK_INT(0, model_corrected_at(&seen, model_source, NULL, 0, 4, 64, &e));
    CHECK_INT(4, e.n_neighbours);
    CHECK_NEAR((0.07 * log(16.0) + 0.15 * log(4.0)) / 2, e.uncertainty, 1e-12);
    /* beyond the measured sizes: the nearest one's residual, held; the
     * uncertainty half the gap to what the slope from the size before
     * would give (4096 -> 65536 is one step: 2^20 is one more), so it
     * grows with the distance */
    CHECK_INT(0,
              model_corrected_at(&seen, model_source, NULL, 0, 8, 1 << 20, &e));
    CHECK_NEAR(drift(0, 8, 65536), e.residual, 1e-12);
    CHECK_INT(2, e.n_neighbours);
    CHECK_NEAR(0.07 * log(16.0) / 2, e.uncertainty, 1e-12);
    CHECK_INT(0,
              model_corrected_at(&seen, model_source, NULL, 0, 8, 1 << 24, &e));
    CHECK_NEAR(drift(0, 8, 65536), e.residual, 1e-12);
    CHECK_NEAR(2 * 0.07 * log(16.0) / 2, e.uncertainty, 1e-12);
    /* a drift that holds in size (it varies in procs): past the measured
     * sizes, above and below (1 B held out), corrected exactly */
    for (int p = 0; p < N_P; p++) {
        for (int m = 0; m < N_M; m++) {
            double v = model_time(0, grid_procs[p], msgs[m]) *
                       exp(0.3 + 0.15 * log((double)grid_procs[p]));
            t[(p * N_M + m) * N_K] = m == 0 ? -1 : v;
        }
    }
    static const int out_p[] = {2, 5, 32};
    static const long out_m[] = {0, 1, 100000, 1L << 30};
    for (size_t i = 0; i < sizeof out_p / sizeof *out_p; i++) {
        for (size_t j = 0; j < sizeof out_m / sizeof *out_m; j++) {
            CHECK_INT(0, model_corrected_at(&seen, model_source, NULL, 0,
                                            out_p[i], out_m[j], &e));
            CHECK_NEAR(model_time(0, out_p[i], out_m[j]) *
                           exp(0.3 + 0.15 * log((double)out_p[i])),
                       e.time_us, 1e-12);
        }
    }
    /* no model time: nothing to correct */
    CHECK_INT(1, model_corrected_at(&seen, model_source, NULL, 2, 8, 64, &e));
    /* a method never measured: the model's own time, uncertainty infinite */
    for (int i = 0; i < N_P * N_M; i++) {
        t[i * N_K + 1] = -1;
    }
    CHECK_INT(0, model_corrected_at(&seen, model_source, NULL, 1, 8, 64, &e));
    CHECK_NEAR(model_time(1, 8, 64), e.time_us, 1e-12);
    CHECK_INT(0, e.n_neighbours);
    CHECK(isinf(e.uncertainty));
}

/* ---- decisions between measured sizes ---- */

/* The true times: linear m^0.6 and binomial 2 m^0.5 cross at 1024 B;
 * knomial is `base` times their geometric mean at the measured sizes lo and
 * hi (1024 B midway in log size) but dips by `depth` of it at 1024 B (a
 * triangle in log size): the fastest around 1 KiB, which the measured
 * sizes cannot show. Near: 512 and 2048 B, knomial within 10 % of the
 * optimum at both, dipping to 0.8; far: 64 and 16384 B (256x apart, where
 * the measured times alone allow no third method), knomial 49 % and 32 %
 * off the optimum there, dipping to 0.7. */
struct scenario {
    long lo, hi;
    double base, depth;
};
static const struct scenario near = {512, 2048, 1.05, 0.25};
static const struct scenario far = {64, 16384, 1.3, 0.6};
static const struct scenario *now = &near;

static double true_time(const char *alg, long m)
{
    double lin = pow((double)m, 0.6), bin = 2 * pow((double)m, 0.5);
    double x = fabs(log2((double)m / 1024)) / log2(1024.0 / (double)now->lo);
    double dip = x < 1 ? 1 - x : 0;
    return strcmp(alg, "linear") == 0 ? lin
           : strcmp(alg, "binomial") == 0
               ? bin
               : sqrt(lin * bin) * (now->base - now->depth * dip);
}

/* The model: the truth off by a factor that drifts linearly in log size
 * (and differs per method). */
static double model_error(const char *alg, long m)
{
    return exp((strcmp(alg, "linear") == 0 ? 0.2 : -0.3) +
               0.04 * log((double)m));
}

static int run_model(void *arg, const struct run_data *r, int g, int k, int p,
                     long m, double *t)
{
    (void)arg;
    (void)g;
    (void)p;
    const char *alg = r->methods[k].algorithm;
    *t = true_time(alg, m) * model_error(alg, m);
    return 0;
}

static const char *const algs[] = {"linear", "binomial", "knomial"};

/* A run directory dir (a mkdtemp template) with its two tables open,
 * their headers written; false when it cannot be made. */
static bool open_run(char *dir, FILE **meas, FILE **opt)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        check_failures++;
        return false;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/measurements.csv", dir);
    *meas = fopen(path, "w");
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    *opt = fopen(path, "w");
    CHECK(*meas && *opt);
    if (!*meas || !*opt) {
        exit(1);
    }
    fprintf(*meas, "collective,procs,msg_bytes,algorithm,segment_bytes,reps,"
                   "mean_us,median_us,min_us,max_us,sd_us,cost_s\n");
    fprintf(*opt, "collective,procs,msg_bytes,algorithm,segment_bytes,"
                  "time_us\n");
    return true;
}

/* One measured bcast time of alg (unsegmented). */
static void write_time(FILE *meas, int p, long m, const char *alg, double t)
{
    fprintf(meas, "bcast,%d,%ld,%s,0,1,%.17g,%.17g,%.17g,%.17g,0,0.001\n", p, m,
            alg, t, t, t, t);
}

static bool write_run(char *dir)
{
    FILE *meas, *opt;
    if (!open_run(dir, &meas, &opt)) {
        return false;
    }
    for (int p = 8; p <= 16; p += 8) {
        for (int i = 0; i < 2; i++) {
            long m = i ? now->hi : now->lo;
            int best = 0;
            for (int a = 0; a < 3; a++) {
                double t = true_time(algs[a], m);
                write_time(meas, p, m, algs[a], t);
                best = t < true_time(algs[best], m) ? a : best;
            }
            fprintf(opt, "bcast,%d,%ld,%s,0,%.17g\n", p, m, algs[best],
                    true_time(algs[best], m));
        }
    }
    fclose(meas);
    fclose(opt);
    return true;
}

static void remove_run(const char *dir)
{
    static const char *const files[] = {"optimal.csv", "measurements.csv"};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static const char *choice(const struct decision *d, int procs, long m)
{
    int c = decision_find_collective(d, "bcast");
    return c < 0 ? "?" : d->methods[decision_lookup(d, c, procs, m)];
}

/* The decisions of r (tables in dir): exact, C4.5, and the exports' (the
 * optimal table with its cuts and inserts). */
static void build(const char *dir, const struct run_data *r,
                  struct decision *d[3])
{
    struct train_options o;
    train_options_init(&o);
    o.c45.min_objs = 1;
    const char *coll = "bcast";
    CHECK_INT(0, train_exact(&o, r, -1, &d[0]));
    CHECK_INT(0, train_create_decision(r, "c45", &coll, 1, &d[1]));
    CHECK_INT(0, d[1] ? train_trees(&o, r, -1, NULL, d[1]) : -1);
    struct measurement *rows = NULL;
    size_t n = 0, n_ins = 0;
    long *cuts = NULL, *procs_cuts = NULL;
    struct export_insert *ins = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/optimal.csv", dir);
    CHECK_INT(0, table_read_optimal(path, &rows, &n));
    CHECK_INT(0,
              between_table_cuts(r, rows, n, &cuts, &procs_cuts, &ins, &n_ins));
    CHECK_INT(
        0, decision_from_table(rows, n, cuts, procs_cuts, ins, n_ins, &d[2]));
    free(rows);
    free(cuts);
    free(procs_cuts);
    free(ins);
}

/* The run write makes in dir (a mkdtemp template), loaded; NULL (dir
 * removed) when it cannot be. */
static struct run_data *make_run(char *dir, bool (*write)(char *))
{
    struct run_data *r = NULL;
    if (!write(dir)) {
        return NULL;
    }
    CHECK_INT(0, run_data_load(dir, NULL, 0, &r));
    if (!r) {
        remove_run(dir);
    }
    return r;
}

static void check_decisions(void)
{
    char dir[] = "/tmp/autotune-corrected-XXXXXX";
    struct run_data *r = make_run(dir, write_run);
    if (!r) {
        return;
    }
    /* the model's log time ratio of linear to binomial between the two
     * sizes, corrected at both: the true ratio at every knot */
    const struct run_grid *g = &r->grids[0];
    int k_lin = run_data_find_method(r, "linear/0");
    int k_bin = run_data_find_method(r, "binomial/0");
    CHECK_INT(0, run_data_set_model(r, run_model, NULL));
    struct between_diff diff;
    CHECK(between_add(r, g, 0, 1, k_lin, k_bin, &diff));
    CHECK(diff.n > 2);
    for (int i = 0; i < diff.n; i++) {
        double m =
            (double)now->lo * pow((double)now->hi / (double)now->lo, diff.s[i]);
        long bytes = lround(m);
        CHECK_NEAR(
            log(true_time("linear", bytes) / true_time("binomial", bytes)),
            diff.f[i], 1e-9);
    }
    /* with the model, knomial takes the sizes where it is truly the
     * fastest by more than 2 %; without, the measured times say nothing
     * of its dip and the sizes between go to linear and binomial alone */
    for (int with_model = 1; with_model >= 0; with_model--) {
        if (!with_model) {
            run_data_destroy(r);
            r = NULL;
            CHECK_INT(0, run_data_load(dir, NULL, 0, &r));
        }
        struct decision *d[3] = {NULL};
        build(dir, r, d);
        for (int i = 0; i < 3; i++) {
            int n_knomial = 0, n_wrong = 0, n_true = 0;
            for (long m = now->lo + 1; d[i] && m < now->hi; m++) {
                int best = 0, second = -1;
                for (int a = 1; a < 3; a++) {
                    if (true_time(algs[a], m) < true_time(algs[best], m)) {
                        second = best;
                        best = a;
                    } else if (second < 0 || true_time(algs[a], m) <
                                                 true_time(algs[second], m)) {
                        second = a;
                    }
                }
                const char *got = choice(d[i], 16, m);
                n_knomial += strcmp(got, "knomial/0") == 0;
                bool is_clear = true_time(algs[second], m) >
                                1.02 * true_time(algs[best], m);
                char want[32];
                snprintf(want, sizeof want, "%s/0", algs[best]);
                n_wrong += with_model && is_clear && strcmp(want, got) != 0;
                n_true += is_clear && best == 2;
            }
            if (with_model) {
                CHECK_INT(0, n_wrong);
                CHECK(n_true > 100 && n_knomial >= n_true);
                CHECK_STR("knomial/0", choice(d[i], 8, 1024));
            } else {
                CHECK_INT(0, n_knomial);
            }
        }
        for (int i = 0; i < 3; i++) {
            decision_destroy(d[i]);
        }
    }
    run_data_destroy(r);
    remove_run(dir);
}

/* ---- past the largest measured size ---- */

/* linear (latency 10, 100 bytes per us) is the fastest at every measured
 * size, 1, 4 and 16 KiB; binomial (latency 200, 200 bytes per us) only
 * past 38000 B (10 + m / 100 = 200 + m / 200), beyond the largest. */
static double beyond_time(const char *alg, int procs, long m)
{
    double scale = procs / 8.0;
    return scale * (strcmp(alg, "linear") == 0 ? 10 + (double)m / 100
                                               : 200 + (double)m / 200);
}

/* The model: the truth off by a factor per method and procs, the same at
 * every size (so the residual held from the largest size is exact). */
static int beyond_model(void *arg, const struct run_data *r, int g, int k,
                        int p, long m, double *t)
{
    (void)arg;
    (void)g;
    const char *alg = r->methods[k].algorithm;
    *t = beyond_time(alg, p, m) *
         (strcmp(alg, "linear") == 0 ? 1.3 + p / 100.0 : 0.8);
    return 0;
}

static bool write_beyond_run(char *dir)
{
    FILE *meas, *opt;
    if (!open_run(dir, &meas, &opt)) {
        return false;
    }
    for (int p = 8; p <= 16; p += 8) {
        for (long m = 1024; m <= 16384; m *= 4) {
            for (int a = 0; a < 2; a++) {
                double t = beyond_time(algs[a], p, m);
                write_time(meas, p, m, algs[a], t);
            }
            fprintf(opt, "bcast,%d,%ld,linear,0,%.17g\n", p, m,
                    beyond_time("linear", p, m));
        }
    }
    fclose(meas);
    fclose(opt);
    return true;
}

/* The exact decision and the exports' table place binomial where it wins
 * past the largest measured size, the cut near the true crossing, with
 * the model; without it, linear holds there. */
static void check_beyond(void)
{
    char dir[] = "/tmp/autotune-beyond-XXXXXX";
    struct run_data *r = make_run(dir, write_beyond_run);
    if (!r) {
        return;
    }
    CHECK_INT(0, run_data_set_model(r, beyond_model, NULL));
    for (int with_model = 1; with_model >= 0; with_model--) {
        if (!with_model) {
            run_data_destroy(r);
            r = NULL;
            CHECK_INT(0, run_data_load(dir, NULL, 0, &r));
        }
        struct decision *d[3] = {NULL};
        build(dir, r, d);
        static const int at_p[] = {8, 16};
        for (int i = 0; i < 3; i += 2) {
            for (int j = 0; j < 2; j++) {
                int p = at_p[j];
                CHECK_STR("linear/0", choice(d[i], p, 16384));
                CHECK_STR("linear/0", choice(d[i], p, 36000));
                CHECK_STR(with_model ? "binomial/0" : "linear/0",
                          choice(d[i], p, 40000));
                CHECK_STR(with_model ? "binomial/0" : "linear/0",
                          choice(d[i], p, 65536));
                CHECK_STR(with_model ? "binomial/0" : "linear/0",
                          choice(d[i], p, 1L << 24));
            }
        }
        /* the C4.5 tree: trained past the largest size on the model's
         * fastest methods (eight sizes up to 64 KiB, binomial's from
         * 38967 B), its cut at the last size before them */
        for (int j = 0; j < 2; j++) {
            int p = at_p[j];
            CHECK_STR("linear/0", choice(d[1], p, 16384));
            CHECK_STR("linear/0", choice(d[1], p, 30000));
            CHECK_STR(with_model ? "binomial/0" : "linear/0",
                      choice(d[1], p, 40000));
            CHECK_STR(with_model ? "binomial/0" : "linear/0",
                      choice(d[1], p, 65536));
            CHECK_STR(with_model ? "binomial/0" : "linear/0",
                      choice(d[1], p, 1L << 24));
        }
        for (int i = 0; i < 3; i++) {
            decision_destroy(d[i]);
        }
    }
    run_data_destroy(r);
    remove_run(dir);
}

/* ---- a segment between two measured sizes ---- */

/* pipeline unsegmented takes 10 + m / 100 us, segmented by 4096 bytes 50 +
 * m / 150 (up to 4096 bytes pipeline/4096 runs unsegmented); the model
 * prices the unsegmented runs 1.5 times too slow and the segmented ones
 * 0.8 times too fast, at every size. */
static double segment_time(long seg, long m)
{
    return seg > 0 && m > seg ? 50 + (double)m / 150 : 10 + (double)m / 100;
}

static int segment_model(void *arg, const struct run_data *r, int g, int k,
                         int p, long m, double *t)
{
    (void)arg;
    (void)g;
    (void)p;
    long seg = r->methods[k].segment_bytes;
    *t = segment_time(seg, m) * (seg > 0 && m > seg ? 0.8 : 1.5);
    return 0;
}

static bool write_segment_run(char *dir)
{
    FILE *meas, *opt;
    if (!open_run(dir, &meas, &opt)) {
        return false;
    }
    for (long m = 1024; m <= 16384; m *= 16) {
        for (long seg = 0; seg <= 4096; seg += 4096) {
            double t = segment_time(seg, m);
            if (seg < m) { /* a segment of the message or more: not timed */
                fprintf(meas,
                        "bcast,8,%ld,pipeline,%ld,1,%.17g,%.17g,%.17g,%.17g,0,"
                        "0.001\n",
                        m, seg, t, t, t, t);
            }
        }
        long best = segment_time(4096, m) < segment_time(0, m) ? 4096 : 0;
        fprintf(opt, "bcast,8,%ld,pipeline,%ld,%.17g\n", m, best,
                segment_time(best, m));
    }
    fclose(meas);
    fclose(opt);
    return true;
}

/* Between 1 and 16 KiB, pipeline/4096's corrected curve is exact: up to
 * its segment the unsegmented pipeline's (its residual at both sizes),
 * beyond it the segmented one's (the residual at 16 KiB alone), not the
 * unsegmented residual at 1 KiB carried across the switch. */
static void check_segment_switch(void)
{
    char dir[] = "/tmp/autotune-segment-XXXXXX";
    struct run_data *r = make_run(dir, write_segment_run);
    if (!r) {
        return;
    }
    CHECK_INT(0, run_data_set_model(r, segment_model, NULL));
    const struct run_grid *g = &r->grids[0];
    int k = run_data_find_method(r, "pipeline/4096");
    struct between_curve c;
    CHECK(k >= 0 && between_method_curve(r, g, 0, 1, k, &c) > 2);
    for (int i = 0; k >= 0 && i < c.n; i++) {
        long m = lround(1024 * pow(16, c.s[i]));
        CHECK_NEAR(log(segment_time(4096, m)), c.y[i], 1e-3);
    }
    run_data_destroy(r);
    remove_run(dir);
}

int main(void)
{
    check_beyond();
    check_segment_switch();
    check_predictor();
    check_decisions();
    now = &far;
    check_decisions();
    return check_exit();
}
