/* Progress lines on stderr, throttled; the estimate of time left comes from
 * what measured points cost at the same or the nearest (procs, ranks per
 * node, message size), since points replayed from the journal cost nothing
 * and late points (many processes, large messages) cost far more than early
 * ones. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tune/grid.h"
#include "tune/progress.h"
#include "util/grow.h"

/* SMPI redefines clock_gettime to return simulated time; progress is for a
 * person waiting, so it wants the real clock. */
#ifdef clock_gettime
#undef clock_gettime
#endif

#define PRINT_INTERVAL_TTY_S 0.25
#define PRINT_INTERVAL_LOG_S 10.0
/* Below about this many bytes a collective's time is latency, and what a
 * point costs hardly depends on the message size. */
#define LATENCY_BYTES 4096.0

struct cost {
    int procs, ppn;
    long msg_bytes;
    double sum_s;
    int n;
};

struct progress_costs {
    struct cost *v;
    size_t n, cap;
};

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct progress_costs *progress_costs_create(void)
{
    return calloc(1, sizeof(struct progress_costs));
}

void progress_costs_destroy(struct progress_costs *costs)
{
    if (costs) {
        free(costs->v);
        free(costs);
    }
}

int progress_costs_add(struct progress_costs *costs, int procs, int ppn,
                       long msg_bytes, double seconds)
{
    for (size_t i = 0; i < costs->n; i++) {
        if (costs->v[i].procs == procs && costs->v[i].ppn == ppn &&
            costs->v[i].msg_bytes == msg_bytes) {
            costs->v[i].sum_s += seconds;
            costs->v[i].n++;
            return 0;
        }
    }
    struct cost *grown =
        grow(costs->v, &costs->cap, costs->n + 1, sizeof *grown, 64);
    if (!grown) {
        return -1;
    }
    costs->v = grown;
    costs->v[costs->n++] = (struct cost){procs, ppn, msg_bytes, seconds, 1};
    return 0;
}

/* The model for a (procs, ppn, size) not observed: a point costs in
 * proportion to procs (an exhaustive point's cost is dominated by its
 * linear algorithms, and every rank takes part in every repetition) and to
 * LATENCY_BYTES + msg_bytes (latency below a few KiB, bandwidth above).
 * The observation needing the smallest such scaling (in log terms) is
 * scaled. Pessimistic for tree algorithms (log procs), which is the safer
 * side for a time left. Another ranks per node changes what a message
 * costs (shared memory against the network) by no rule the estimate
 * knows: it is not scaled, only the nearest ranks per node (log ratio,
 * as far as a factor of that size) preferred. */
double progress_costs_predict(const struct progress_costs *costs, int procs,
                              int ppn, long msg_bytes)
{
    double best_distance = INFINITY, best = -1;
    for (size_t i = 0; costs && i < costs->n; i++) {
        const struct cost *c = &costs->v[i];
        double mean = c->sum_s / c->n;
        if (c->procs == procs && c->ppn == ppn && c->msg_bytes == msg_bytes) {
            return mean;
        }
        double procs_ratio = (double)procs / c->procs;
        double size_ratio = (LATENCY_BYTES + (double)msg_bytes) /
                            (LATENCY_BYTES + (double)c->msg_bytes);
        double distance = fabs(log(procs_ratio)) + fabs(log(size_ratio)) +
                          fabs(log((double)ppn / c->ppn));
        if (distance < best_distance) {
            best_distance = distance;
            best = mean * procs_ratio * size_ratio;
        }
    }
    return best;
}

void progress_format_duration(char *buf, size_t size, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) {
        snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    } else {
        snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
    }
}

double progress_print_interval(int is_tty)
{
    const char *text = getenv("AUTOTUNE_PROGRESS_INTERVAL");
    double def = is_tty ? PRINT_INTERVAL_TTY_S : PRINT_INTERVAL_LOG_S;
    if (!text) {
        return def;
    }
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= 0)) {
        fprintf(stderr,
                "autotune: AUTOTUNE_PROGRESS_INTERVAL: '%s' is not a number "
                "of seconds; using %g\n",
                text, def);
        return def;
    }
    return v;
}

void progress_start(struct progress *p, const struct config *c)
{
    *p = (struct progress){0};
    p->start_s = progress_now();
    p->total = grid_points(c);
    p->is_adaptive = c->is_grid_adaptive;
    p->is_tty = isatty(STDERR_FILENO);
    p->interval_s = progress_print_interval(p->is_tty);
    if (p->is_adaptive) {
        return; /* the walk chooses its points: no estimate of the time left */
    }
    p->points = malloc((size_t)p->total * sizeof *p->points);
    p->costs = progress_costs_create();
    struct config_point *grid = NULL;
    if (p->points && grid_list_points(c, &grid) != 0) {
        free(p->points);
        p->points = NULL; /* no estimate of the time left */
    }
    for (long i = 0; p->points && i < p->total; i++) {
        p->points[i] =
            (struct progress_point){.collective = c->colls[grid[i].ci]->name,
                                    .procs = grid[i].procs,
                                    .ppn = grid[i].ppn,
                                    .msg_bytes = grid[i].msg_bytes};
    }
    free(grid);
}

/* Seconds left: the points after the current one, and what the current
 * one is still expected to take; -1 if nothing was measured yet. */
static double time_left(const struct progress *p, double now)
{
    if (!p->points || !p->costs || p->costs->n == 0) {
        return -1;
    }
    double left = 0;
    for (long i = p->done; i < p->total; i++) {
        const struct progress_point *pt = &p->points[i];
        double cost =
            progress_costs_predict(p->costs, pt->procs, pt->ppn, pt->msg_bytes);
        if (i == p->done && p->point_start_s > 0) {
            cost -= now - p->point_start_s;
        }
        left += cost > 0 ? cost : 0;
    }
    return left;
}

/* A line about the current point, with detail after its name. */
static void print_line(struct progress *p, double now, const char *detail)
{
    char elapsed[32], left[32] = "?", what[160] = "", done[64];
    double left_s = time_left(p, now);
    p->last_print_s = now;
    progress_format_duration(elapsed, sizeof elapsed, now - p->start_s);
    if (left_s >= 0) {
        progress_format_duration(left, sizeof left, left_s);
    }
    if (p->current.collective) {
        char ppn[32] = "";
        if (p->current.ppn > 1) {
            snprintf(ppn, sizeof ppn, " ppn=%d", p->current.ppn);
        }
        snprintf(what, sizeof what, "%s P=%d%s %ld B%s", p->current.collective,
                 p->current.procs, ppn, p->current.msg_bytes, detail);
    }
    if (p->is_adaptive) {
        snprintf(done, sizeof done, "%ld of at most %ld points (adaptive)",
                 p->done, p->total);
    } else {
        snprintf(done, sizeof done, "%ld/%ld points (%.0f%%)", p->done,
                 p->total,
                 100.0 * (double)p->done / (double)(p->total ? p->total : 1));
    }
    fprintf(stderr, "%s[autotune] %s  %s  elapsed %s%s%s%s",
            p->is_tty ? "\r\033[K" : "", done, what, elapsed,
            p->is_adaptive ? "" : "  left ~", p->is_adaptive ? "" : left,
            p->is_tty ? "" : "\n");
    fflush(stderr);
}

void progress_point_start(struct progress *p, struct progress_point at)
{
    p->current = at;
    p->point_start_s = progress_now();
    p->point_experiments = 0;
}

void progress_experiment(struct progress *p, const char *algorithm,
                         int seg_bytes)
{
    if (!p) {
        return;
    }
    double now = progress_now();
    p->point_experiments++;
    if (now - p->last_print_s < p->interval_s) {
        return;
    }
    char detail[96];
    snprintf(detail, sizeof detail, ": %d experiment%s done, timing %s/%d",
             p->point_experiments - 1, p->point_experiments == 2 ? "" : "s",
             algorithm, seg_bytes);
    print_line(p, now, detail);
}

void progress_point_done(struct progress *p, int was_measured)
{
    double now = progress_now();
    if (was_measured && p->costs) {
        progress_costs_add(p->costs, p->current.procs, p->current.ppn,
                           p->current.msg_bytes, now - p->point_start_s);
    }
    p->done++;
    p->point_start_s = 0;
    if (p->done < p->total && now - p->last_print_s < p->interval_s) {
        return;
    }
    print_line(p, now, "");
}

void progress_finish(struct progress *p)
{
    if (p->is_tty && p->done > 0) {
        fputc('\n', stderr);
    }
    free(p->points);
    progress_costs_destroy(p->costs);
    p->points = NULL;
    p->costs = NULL;
}
