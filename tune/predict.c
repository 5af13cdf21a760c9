/* Prediction (`autotune predict`): the model's time of every method at every
 * point of a run (RUN/predicted.csv), its accuracy where the run measured them,
 * and predicted tables for points never measured (--procs, --sizes). No MPI. */
#include "tune/predict.h"
#include "collectives/collectives.h"
#include "collectives/method.h"
#include "model/model.h"
#include "store/journal.h"
#include "store/rundir.h"
#include "store/tables.h"
#include "tune/config.h"
#include "tune/progress.h"
#include "util/grow.h"
#include "util/tuning.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One prediction: a method at a point, with its measured time if any. */
struct prediction {
    struct measurement row; /* collective, procs, ppn, msg, method; mean_us */
    double predicted_us;
    int is_measured;
};

struct predictions {
    struct prediction *items;
    size_t n, cap;
};

static int add(struct predictions *ps, const struct prediction *p)
{
    struct prediction *more =
        grow(ps->items, &ps->cap, ps->n + 1, sizeof *more, 256);
    if (!more) {
        fprintf(stderr, "autotune predict: out of memory\n");
        return -1;
    }
    ps->items = more;
    ps->items[ps->n++] = *p;
    return 0;
}

static int same_point(const struct measurement *a, const struct measurement *b)
{
    return strcmp(a->collective, b->collective) == 0 && a->procs == b->procs &&
           a->ppn == b->ppn && a->msg_bytes == b->msg_bytes;
}

/* A comma-separated list of positive integers; fails with one line. */
static int parse_list(const char *opt, const char *text, long **out, int *n)
{
    *n = 0;
    *out = malloc((strlen(text) / 2 + 2) * sizeof **out);
    if (!*out) {
        fprintf(stderr, "autotune predict: out of memory\n");
        return -1;
    }
    for (const char *p = text; *p;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || (*end && *end != ',')) {
            fprintf(stderr,
                    "autotune predict: %s: '%s' is not a list of "
                    "sizes (at '%s')\n",
                    opt, text, p);
            return -1;
        }
        (*out)[(*n)++] = v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int predict_one(const struct model_params *params, int chain_fanout,
                       struct prediction *p)
{
    int rc = model_predict(
        params, p->row.collective, p->row.algorithm, p->row.procs, p->row.ppn,
        p->row.msg_bytes, p->row.segment_bytes, chain_fanout, &p->predicted_us);
    return rc;
}

/* The run's own points: every measured method but the library default. */
static int predict_measured(const struct measurement *rows, size_t n,
                            const struct model_params *params, int chain_fanout,
                            struct predictions *ps)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].algorithm, STORE_DEFAULT_ALGORITHM) == 0 ||
            !rows[i].is_applicable) {
            continue;
        }
        struct prediction p = {.row = rows[i], .is_measured = 1};
        int rc = predict_one(params, chain_fanout, &p);
        if (rc < 0) {
            return -1;
        }
        if (rc == 0 && add(ps, &p) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Where predict_new is, on stderr at most once per progress interval (a
 * prediction on 100,000 ranks takes seconds: a minute without a word
 * otherwise). */
struct predict_progress {
    double start_s, last_s, interval_s;
    long done, total; /* points */
};

static void predict_progress(struct predict_progress *pp, const char *coll,
                             long procs, int ppn, long msg_bytes, int alg,
                             int n_algs)
{
    double now = progress_now();
    if (now - pp->last_s < pp->interval_s) {
        return;
    }
    char elapsed[32], per_node[32] = "";
    progress_format_duration(elapsed, sizeof elapsed, now - pp->start_s);
    if (ppn > 1) {
        snprintf(per_node, sizeof per_node, " ppn=%d", ppn);
    }
    fprintf(stderr,
            "autotune predict: %ld/%ld points, %s P=%ld%s %ld B: algorithm "
            "%d of %d  elapsed %s\n",
            pp->done, pp->total, coll, procs, per_node, msg_bytes, alg + 1,
            n_algs, elapsed);
    pp->last_s = now;
}

/* The prediction of method (at seg) at a new point into ps, where it
 * applies. 0 or -1. */
static int predict_at(const char *collective, const struct config_layout *lay,
                      long msg_bytes, const char *method, long seg,
                      const struct model_params *params, int chain_fanout,
                      struct predictions *ps)
{
    struct prediction p = {0};
    snprintf(p.row.collective, sizeof p.row.collective, "%s", collective);
    snprintf(p.row.algorithm, sizeof p.row.algorithm, "%s", method);
    p.row.procs = lay->procs;
    p.row.ppn = lay->ppn;
    p.row.msg_bytes = msg_bytes;
    p.row.segment_bytes = (int)seg;
    p.row.is_applicable = 1;
    int rc = predict_one(params, chain_fanout, &p);
    if (rc != 0) {
        return rc < 0 ? -1 : 0;
    }
    p.row.mean_us = p.row.median_us = p.row.min_us = p.row.max_us =
        p.predicted_us;
    return add(ps, &p);
}

/* Points never measured: every algorithm, unsegmented and at each segment
 * size below the message (larger ones behave as unsegmented), then the
 * node-aware methods the run measured of the collective (rows, n_rows), at
 * each layout (procs x ppn, ppn-major as the grid's). */
static int predict_new(const char *const *colls, int n_colls,
                       const struct config_layout *layouts, int n_layouts,
                       const long *sizes, int n_sizes, const long *segs,
                       int n_segs, const struct measurement *rows,
                       size_t n_rows, const struct model_params *params,
                       int chain_fanout, struct predictions *ps)
{
    struct predict_progress pp = {
        .start_s = progress_now(),
        .interval_s = progress_print_interval(isatty(STDERR_FILENO))};
    pp.last_s = pp.start_s;
    for (int c = 0; c < n_colls; c++) {
        const struct coll_def *def = coll_find(colls[c]);
        int is_barrier = def && def->send_blocks == BLOCKS_NONE &&
                         def->recv_blocks == BLOCKS_NONE;
        pp.total += (long)n_layouts * (is_barrier ? 1 : n_sizes);
    }
    for (int c = 0; c < n_colls; c++) {
        const struct coll_def *def = coll_find(colls[c]);
        if (!def) {
            fprintf(stderr, "autotune predict: unknown collective '%s'\n",
                    colls[c]);
            return -1;
        }
        int is_barrier =
            def->send_blocks == BLOCKS_NONE && def->recv_blocks == BLOCKS_NONE;
        /* the rows of the run's node-aware methods of def, one a name */
        size_t node[CONFIG_MAX_NODE_METHODS];
        int n_node = 0;
        for (size_t i = 0; i < n_rows && n_node < CONFIG_MAX_NODE_METHODS;
             i++) {
            int seen = strcmp(rows[i].collective, def->name) != 0 ||
                       !node_is_method_name(rows[i].algorithm);
            for (int k = 0; k < n_node && !seen; k++) {
                seen = strcmp(rows[node[k]].algorithm, rows[i].algorithm) == 0;
            }
            if (!seen) {
                node[n_node++] = i;
            }
        }
        for (int li = 0; li < n_layouts; li++) {
            const struct config_layout *lay = &layouts[li];
            for (int si = 0; si < (is_barrier ? 1 : n_sizes); si++) {
                long m = is_barrier ? 0 : sizes[si];
                for (int a = 0; a < def->n_algs; a++) {
                    const struct coll_alg *alg = &def->algs[a];
                    predict_progress(&pp, def->name, lay->procs, lay->ppn, m, a,
                                     def->n_algs);
                    for (int g = -1; g < n_segs; g++) {
                        long seg = g < 0 ? 0 : segs[g];
                        if (g >= 0 &&
                            (!alg->is_segmented || seg == 0 || seg >= m)) {
                            continue;
                        }
                        if (predict_at(def->name, lay, m, alg->name, seg,
                                       params, chain_fanout, ps) != 0) {
                            return -1;
                        }
                    }
                }
                for (int k = 0; k < n_node; k++) {
                    if (predict_at(def->name, lay, m, rows[node[k]].algorithm,
                                   0, params, chain_fanout, ps) != 0) {
                        return -1;
                    }
                }
                pp.done++;
            }
        }
    }
    return 0;
}

static int write_predicted(FILE *f, const void *arg)
{
    const struct predictions *ps = arg;
    fprintf(f, "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,"
               "predicted_us\n");
    for (size_t i = 0; i < ps->n; i++) {
        const struct prediction *p = &ps->items[i];
        table_print_point(f, &p->row);
        fprintf(f, ",%.3f\n", p->predicted_us);
    }
    return ferror(f) ? -1 : 0;
}

/* Seed 003's ratio per point: the measured time of the model's choice over
 * the measured optimum, its penalty; and how many pairs of methods
 * (measured more than 1 % apart) the model orders as measured. Over the
 * points of coll (NULL: any) at ppn ranks per node (0: any). */
static void print_accuracy(const struct predictions *ps, const char *coll,
                           int ppn)
{
    struct model_accuracy acc = {0};
    double *t = malloc((ps->n + 1) * sizeof *t);
    double *q = malloc((ps->n + 1) * sizeof *q);
    int is_ok = t && q;
    for (size_t i = 0; is_ok && i < ps->n;) {
        size_t j = i;
        while (j < ps->n && same_point(&ps->items[j].row, &ps->items[i].row)) {
            j++;
        }
        const struct prediction *pt = &ps->items[i];
        if (pt->is_measured &&
            (!coll || strcmp(coll, pt->row.collective) == 0) &&
            (ppn == 0 || ppn == pt->row.ppn)) {
            double best_us = INFINITY;
            for (size_t k = i; k < j; k++) {
                t[k - i] = ps->items[k].row.mean_us;
                q[k - i] = ps->items[k].predicted_us;
                best_us = fmin(best_us, t[k - i]);
            }
            is_ok = model_accuracy_add(&acc, t, q, (int)(j - i), best_us) == 0;
        }
        i = j;
    }
    if (!is_ok) {
        fprintf(stderr, "autotune predict: out of memory\n");
    } else if (acc.n_points > 0) {
        char label[32];
        if (ppn) {
            snprintf(label, sizeof label, "all ppn=%d", ppn);
        } else {
            snprintf(label, sizeof label, "%s", coll ? coll : "all");
        }
        printf("%-10s %6ld %8.3f %8.3f %8.3f %9.1f %9.1f %9.2f %9.2f\n", label,
               acc.n_points, model_accuracy_quantile(&acc, 0.5),
               model_accuracy_quantile(&acc, 0.9),
               model_accuracy_quantile(&acc, 1.0),
               100.0 * (double)acc.n_optimal / (double)acc.n_points,
               acc.n_pairs
                   ? 100.0 * (double)acc.n_pairs_right / (double)acc.n_pairs
                   : 100.0,
               100.0 * acc.penalty_sum / (double)acc.n_points,
               100.0 * acc.max_penalty);
    }
    model_accuracy_clear(&acc);
    free(t);
    free(q);
}

/* Points never measured into DIR/predicted.csv, under its own name:
 * tree, quadtree, export and report read DIR as the model's predictions
 * and say so (store/run_tables.c), never as measurements. */
static int write_predicted_run(const char *dir, const struct predictions *ps)
{
    char path[4096];
    size_t n_points = 0;
    for (size_t i = 0; i < ps->n; i++) {
        n_points +=
            i == 0 || !same_point(&ps->items[i - 1].row, &ps->items[i].row);
    }
    if (store_make_dir(dir) != 0 ||
        rundir_path(path, sizeof path, dir, RUNDIR_PREDICTED) != 0 ||
        store_write_file(path, write_predicted, ps) != 0) {
        return -1;
    }
    printf("predicted times (nothing measured) in %s: %zu points\n", path,
           n_points);
    return 0;
}

/* The layouts of --procs x --ppn, ppn-major, where the ppn divides the
 * procs (one line for each that does not); fails with one line when none
 * is left (*n 0) or out of memory (*n -1). */
static int layouts_of(const long *procs, int n_procs, const long *ppns,
                      int n_ppns, struct config_layout **out, int *n)
{
    *n = 0;
    *out = malloc(((size_t)n_procs * (size_t)n_ppns + 1) * sizeof **out);
    if (!*out) {
        fprintf(stderr, "autotune predict: out of memory\n");
        *n = -1;
        return -1;
    }
    for (int k = 0; k < n_ppns; k++) {
        for (int i = 0; i < n_procs; i++) {
            if (procs[i] % ppns[k] != 0) {
                fprintf(stderr,
                        "autotune predict: --ppn %ld does not divide --procs "
                        "%ld: not predicted\n",
                        ppns[k], procs[i]);
                continue;
            }
            (*out)[(*n)++] =
                (struct config_layout){(int)procs[i], (int)ppns[k]};
        }
    }
    if (*n == 0) {
        fprintf(stderr, "autotune predict: --ppn: no value divides any "
                        "of --procs: nothing to predict\n");
        return -1;
    }
    return 0;
}

int predict_run(const struct predict_request *req)
{
    const char *run = req->run, *model_path = req->model_path,
               *procs_text = req->procs_text, *sizes_text = req->sizes_text,
               *segs_text = req->segs_text, *colls_text = req->colls_text,
               *ppn_text = req->ppn_text, *out_dir = req->out_dir;
    char path[4096], model_default[4096];
    /* Checked before anything is written: -o DIR never names a run's own
     * files (`-o RUN` would replace RUN/predicted.csv). */
    if (out_dir &&
        (rundir_path(path, sizeof path, out_dir, RUNDIR_PREDICTED) != 0 ||
         rundir_check_output("predict", run, path) != 0)) {
        return 2;
    }
    struct model_params *params = NULL;
    struct measurement *rows = NULL;
    struct journal *j = NULL;
    struct predictions ps = {0};
    long *procs = NULL, *sizes = NULL, *segs = NULL, *ppns = NULL;
    struct config_layout *layouts = NULL;
    int n_procs = 0, n_sizes = 0, n_segs = 0, n_ppns = 0, n_layouts = 0;
    int status = 1;
    int chain_fanout = TUNING_CHAIN_FANOUT;
    size_t n_rows = 0;
    double model_cost_s = 0;
    const char *colls[16];
    int n_colls = 0;

    if (!model_path) {
        if (rundir_path(model_default, sizeof model_default, run,
                        RUNDIR_MODEL) != 0) {
            return 1;
        }
        model_path = model_default;
    }
    if (model_load(model_path, &params, &model_cost_s) != 0) {
        goto done;
    }
    /* The run's chain_fanout, from its journal's settings. */
    FILE *probe = NULL;
    if (rundir_path(path, sizeof path, run, RUNDIR_JOURNAL) == 0 &&
        (probe = fopen(path, "r")) != NULL) {
        fclose(probe);
        if (journal_load(path, &j) == 0) {
            const char *v =
                journal_setting(journal_get_settings(j), "chain_fanout");
            chain_fanout = v && atoi(v) > 0 ? atoi(v) : chain_fanout;
        }
    }
    if (rundir_path(path, sizeof path, run, RUNDIR_MEASUREMENTS) != 0) {
        goto done;
    }
    probe = fopen(path, "r");
    if (probe) {
        fclose(probe);
        if (table_read_measurements(path, &rows, &n_rows) != 0 ||
            table_check_rows(j, path, rows, n_rows) != 0 ||
            predict_measured(rows, n_rows, params, chain_fanout, &ps) != 0) {
            goto done;
        }
    } else if (!procs_text) {
        fprintf(stderr,
                "autotune predict: %s: %s (give --procs and --sizes "
                "to predict points never measured)\n",
                path, strerror(errno));
        goto done;
    }
    if (procs_text) {
        /* The collectives and segment sizes: the options', else the run's. */
        char colls_buf[512] = "";
        if (colls_text) {
            snprintf(colls_buf, sizeof colls_buf, "%s", colls_text);
            for (char *t = strtok(colls_buf, ","); t && n_colls < 16;
                 t = strtok(NULL, ",")) {
                colls[n_colls++] = t;
            }
        }
        if (parse_list("--procs", procs_text, &procs, &n_procs) != 0 ||
            parse_list("--sizes", sizes_text, &sizes, &n_sizes) != 0 ||
            (segs_text &&
             parse_list("--segments", segs_text, &segs, &n_segs) != 0) ||
            parse_list("--ppn", ppn_text ? ppn_text : "1", &ppns, &n_ppns) !=
                0) {
            status = 2;
            goto done;
        }
        for (int i = 0; i < n_procs; i++) {
            if (procs[i] < 2 || procs[i] > INT_MAX) {
                fprintf(stderr,
                        "autotune predict: --procs: %ld is not a "
                        "communicator size >= 2 (one has nothing to "
                        "tune)\n",
                        procs[i]);
                status = 2;
                goto done;
            }
        }
        for (int i = 0; i < n_ppns; i++) {
            if (ppns[i] < 1 || ppns[i] > INT_MAX) {
                fprintf(stderr,
                        "autotune predict: --ppn: %ld is not a number of "
                        "ranks per node >= 1\n",
                        ppns[i]);
                status = 2;
                goto done;
            }
        }
        if (layouts_of(procs, n_procs, ppns, n_ppns, &layouts, &n_layouts) !=
            0) {
            status = n_layouts < 0 ? 1 : 2;
            goto done;
        }
        if (!segs_text) {
            segs = malloc((n_rows + 1) * sizeof *segs);
            for (size_t i = 0; segs && i < n_rows; i++) {
                int seen = 0;
                for (int k = 0; k < n_segs; k++) {
                    seen |= segs[k] == rows[i].segment_bytes;
                }
                if (!seen) {
                    segs[n_segs++] = rows[i].segment_bytes;
                }
            }
        }
        for (size_t i = 0; !colls_text && i < n_rows && n_colls < 16; i++) {
            int seen = 0;
            for (int k = 0; k < n_colls; k++) {
                seen |= strcmp(colls[k], rows[i].collective) == 0;
            }
            if (!seen) {
                colls[n_colls++] = rows[i].collective;
            }
        }
        if (n_colls == 0) {
            fprintf(stderr, "autotune predict: no collective: give "
                            "--collectives\n");
            status = 2;
            goto done;
        }
        /* Predicted points go after the measured ones. */
        size_t first_new = ps.n;
        if (predict_new(colls, n_colls, layouts, n_layouts, sizes, n_sizes,
                        segs, n_segs, rows, n_rows, params, chain_fanout,
                        &ps) != 0) {
            goto done;
        }
        struct predictions fresh = {.items = ps.items + first_new,
                                    .n = ps.n - first_new};
        char dir[4096];
        if (!out_dir) {
            if (rundir_path(dir, sizeof dir, run, "predicted") != 0) {
                goto done;
            }
            out_dir = dir;
        }
        if (write_predicted_run(out_dir, &fresh) != 0) {
            goto done;
        }
    }
    if (rundir_path(path, sizeof path, run, RUNDIR_PREDICTED) != 0 ||
        store_write_file(path, write_predicted, &ps) != 0) {
        goto done;
    }
    printf("wrote %s: %zu predictions (model: %s, calibration cost %.3f s, "
           "eager up to %ld bytes)\n",
           path, ps.n, model_path, model_cost_s,
           model_params_eager_max(params));
    if (n_rows > 0) {
        printf("accuracy where measured: measured time of the model's choice "
               "over the measured optimum\n");
        printf("%-10s %6s %8s %8s %8s %9s %9s %9s %9s\n", "collective",
               "points", "median", "p90", "max", "optimal%", "ranking%",
               "penalty%", "max_pen%");
        int is_one_ppn = 1, first_ppn = 0;
        for (size_t i = 0; i < ps.n; i++) {
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++) {
                seen = strcmp(ps.items[k].row.collective,
                              ps.items[i].row.collective) == 0;
            }
            if (!seen && ps.items[i].is_measured) {
                print_accuracy(&ps, ps.items[i].row.collective, 0);
            }
            if (ps.items[i].is_measured) {
                first_ppn = first_ppn ? first_ppn : ps.items[i].row.ppn;
                is_one_ppn &= ps.items[i].row.ppn == first_ppn;
            }
        }
        /* Per ranks per node where the run has several. */
        for (size_t i = 0; !is_one_ppn && i < ps.n; i++) {
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++) {
                seen = ps.items[k].row.ppn == ps.items[i].row.ppn;
            }
            if (!seen && ps.items[i].is_measured) {
                print_accuracy(&ps, NULL, ps.items[i].row.ppn);
            }
        }
        print_accuracy(&ps, NULL, 0);
        /* What a search guided by these predictions costs and loses is the
         * replay engine's to say (the model strategy, corrected by the
         * neighbours): one replay for every strategy. */
        printf("a model-guided search on this run: autotune compare -r %s "
               "--model %s\n",
               run, model_path);
    }
    status = 0;
done:
    model_params_destroy(params);
    free(rows);
    if (j) {
        journal_close(j);
    }
    free(ps.items);
    free(procs);
    free(ppns);
    free(layouts);
    free(sizes);
    free(segs);
    return status;
}
