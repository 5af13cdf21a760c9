/* A strategy's memory along the grid walk: the oracle's answers at the
 * points of the current and the previous procs of one collective at one
 * ranks per node (other layouts time other methods best). Only what
 * the strategy itself asked is remembered, so a replay knows exactly what
 * the live sweep knew. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

struct series_point {
    long msg_bytes;
    int n, cap;
    struct search_result *results; /* owned */
};

struct series_row {
    char collective[64];
    int procs, ppn;
    int n, cap;
    struct series_point *points;
};

struct search_series {
    struct series_row cur, prev;
    struct search_prior near[2]; /* along the procs, along the messages */
    struct search_result *merged[2];
    int merged_cap[2];
    double costliest_us; /* the largest point best of the collective */
};

static void row_clear(struct series_row *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->points[i].results);
    }
    free(r->points);
    memset(r, 0, sizeof *r);
}

struct search_series *search_series_create(void)
{
    return calloc(1, sizeof(struct search_series));
}

void search_series_destroy(struct search_series *s)
{
    if (s) {
        row_clear(&s->cur);
        row_clear(&s->prev);
        free(s->merged[0]);
        free(s->merged[1]);
        free(s);
    }
}

static int grow(void **buf, int *cap, int need, size_t size)
{
    if (need <= *cap) {
        return 0;
    }
    int cap_new = *cap ? *cap : 16;
    while (cap_new < need) {
        cap_new *= 2;
    }
    void *grown = realloc(*buf, (size_t)cap_new * size);
    if (!grown) {
        return -1;
    }
    *buf = grown;
    *cap = cap_new;
    return 0;
}

/* The wrapped oracle: answers pass through and are remembered. */
struct recorder {
    struct series_point *point;
    const struct search_oracle *inner;
};

static int record_time(void *ctx, const struct search_point *p, int i,
                       double *time_us)
{
    struct recorder *r = ctx;
    struct series_point *sp = r->point;
    int rc = r->inner->time(r->inner->ctx, p, i, time_us);
    if (rc != 0) {
        return rc;
    }
    if (grow((void **)&sp->results, &sp->cap, sp->n + 1, sizeof *sp->results) !=
        0) {
        return -1;
    }
    sp->results[sp->n++] =
        (struct search_result){p->methods[i], *time_us, -1, p->msg_bytes,
                               p->predicted_us ? p->predicted_us[i] : -1};
    return 0;
}

static int pass_pipeline(void *ctx, const struct search_point *p, int n_ranks,
                         int seg_bytes, double *time_us)
{
    const struct recorder *r = ctx;
    if (!r->inner->time_pipeline) {
        *time_us = -1;
        return 0;
    }
    return r->inner->time_pipeline(r->inner->ctx, p, n_ranks, seg_bytes,
                                   time_us);
}

/* Moves to p's row, starting a new one for a new procs, ranks per node
 * or collective; the previous row is kept only for a new procs. */
static void series_enter(struct search_series *s, const struct search_point *p)
{
    if (strcmp(s->cur.collective, p->collective) != 0) {
        row_clear(&s->cur);
        row_clear(&s->prev);
        s->costliest_us = 0;
    } else if (s->cur.ppn != p->ppn) {
        row_clear(&s->cur);
        row_clear(&s->prev);
    } else if (s->cur.procs != p->procs) {
        row_clear(&s->prev);
        s->prev = s->cur;
        memset(&s->cur, 0, sizeof s->cur);
    } else {
        return;
    }
    snprintf(s->cur.collective, sizeof s->cur.collective, "%s", p->collective);
    s->cur.procs = p->procs;
    s->cur.ppn = p->ppn;
}

/* What row knows at message sizes up to max_msg: every answer, latest
 * point first. */
static int series_merge(struct search_series *s, int k,
                        const struct series_row *row, long max_msg)
{
    struct search_prior *pr = &s->near[k];
    pr->procs = row->procs;
    pr->n = 0;
    for (int i = row->n - 1; i >= 0; i--) {
        const struct series_point *sp = &row->points[i];
        if (sp->msg_bytes > max_msg) {
            continue;
        }
        if (grow((void **)&s->merged[k], &s->merged_cap[k], pr->n + sp->n,
                 sizeof *s->merged[k]) != 0) {
            return -1;
        }
        memcpy(s->merged[k] + pr->n, sp->results,
               (size_t)sp->n * sizeof *sp->results);
        pr->n += sp->n;
    }
    pr->results = s->merged[k];
    return 0;
}

int search_series_run(struct search_series *s, const struct search_strategy *st,
                      struct search_point *p, const struct search_oracle *o,
                      int *best)
{
    series_enter(s, p);
    struct series_row *cur = &s->cur;
    p->prev_msg = NULL;
    p->prev_procs = NULL;
    p->costliest_us = s->costliest_us;
    if (cur->n > 0) {
        if (series_merge(s, 0, cur, p->msg_bytes - 1) != 0) {
            return -1;
        }
        p->prev_msg = s->near[0].n > 0 ? &s->near[0] : NULL;
    }
    if (s->prev.n > 0) {
        if (series_merge(s, 1, &s->prev, p->msg_bytes) != 0) {
            return -1;
        }
        p->prev_procs = s->near[1].n > 0 ? &s->near[1] : NULL;
    }
    if (grow((void **)&cur->points, &cur->cap, cur->n + 1,
             sizeof *cur->points) != 0) {
        return -1;
    }
    struct series_point *sp = &cur->points[cur->n++];
    *sp = (struct series_point){.msg_bytes = p->msg_bytes};
    struct recorder rec = {sp, o};
    struct search_oracle wrapped = {record_time, pass_pipeline, &rec};
    int rc = st->find_best(p, &wrapped, best);
    double best_us = -1;
    for (int j = 0; j < sp->n; j++) {
        double t = sp->results[j].time_us;
        if (t >= 0 && (best_us < 0 || t < best_us)) {
            best_us = t;
        }
    }
    for (int j = 0; j < sp->n; j++) {
        sp->results[j].point_best_us = best_us;
    }
    if (best_us > s->costliest_us) {
        s->costliest_us = best_us;
    }
    return rc;
}
