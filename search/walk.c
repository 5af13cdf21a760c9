/* Descent paths: methods come grouped by algorithm, segments ascending with
 * 0 (unsegmented, i.e. one segment as large as the message) first. */
#include <math.h>

#include "search/walk.h"

int walk_split(const struct search_point *p, struct walk *walks, int max_walks)
{
    int n_walks = 0;
    for (int lo = 0; lo < p->n_methods && n_walks < max_walks;) {
        int hi = lo;
        while (hi < p->n_methods && p->methods[hi].alg == p->methods[lo].alg) {
            hi++;
        }
        struct walk *w = &walks[n_walks++];
        w->alg = p->methods[lo].alg;
        w->n = 0;
        int first = lo;
        if (p->methods[lo].seg_bytes == 0) {
            w->steps[w->n++] = lo;
            first = lo + 1;
        }
        for (int i = hi - 1; i >= first && w->n < WALK_MAX; i--) {
            w->steps[w->n++] = i;
        }
        lo = hi;
    }
    return n_walks;
}

int walk_find_seg(const struct search_point *p, const struct walk *w,
                  int seg_bytes)
{
    for (int k = 0; k < w->n; k++) {
        if (p->methods[w->steps[k]].seg_bytes == seg_bytes) {
            return k;
        }
    }
    return -1;
}

void descent_init(struct descent *d, const struct walk *w)
{
    *d = (struct descent){.walk = w, .best = -1, .is_done = w->n == 0};
}

/* Times step k of the walk and updates the descent; *is_na when the
 * algorithm cannot run here. */
static int descent_time(struct descent *d, int k, const struct search_point *p,
                        const struct search_oracle *o, int *is_na)
{
    int method = d->walk->steps[k];
    double t;
    int rc = o->time(o->ctx, p, method, &t);
    if (k == 0) {
        d->is_first_timed = 1;
        d->first_us = t;
    }
    *is_na = t < 0;
    if (rc != 0 || t < 0) {
        return rc;
    }
    int is_falling = d->n_timed > 0 && t < d->recent_us[2];
    d->recent_us[0] = d->recent_us[1];
    d->recent_us[1] = d->recent_us[2];
    d->recent_us[2] = t;
    d->n_timed++;
    d->n_segmented += p->methods[method].seg_bytes > 0;
    if (d->best < 0 || t < d->best_us) {
        d->best = method;
        d->best_us = t;
        d->misses = 0;
    } else if (!is_falling) {
        /* A step past the minimum. While time still falls the descent goes
         * on, even above the best: segmentation often starts worse than no
         * segmentation and then falls below it. */
        d->misses++;
    }
    return 0;
}

int descent_step(struct descent *d, const struct search_point *p,
                 const struct search_oracle *o)
{
    int is_na;
    int rc = descent_time(d, d->next++, p, o, &is_na);
    if (rc != 0) {
        return rc;
    }
    if (is_na || d->next >= d->walk->n || d->misses > p->params->lookahead) {
        d->is_done = 1; /* not applicable: no segment size will change that */
    }
    return 0;
}

int descent_probe(struct descent *d, int at, const struct search_point *p,
                  const struct search_oracle *o)
{
    int is_na;
    d->is_done = 1;
    return descent_time(d, at, p, o, &is_na);
}

/* Rises within this fraction are ties (equal shapes time alike). */
#define WALK_TIE 0.001

/* A pruning descent's step to position k (from k - dir), not a new best,
 * rose too far, past a bracketed best, or did not fall behind the rival:
 * see struct descent. A step from or to no segmentation changes regime
 * (segmenting often starts slower than none, then falls below it), so it
 * is never judged so; nor is any step with steep_rise 0 (always look
 * ahead: on a noisy machine every rise may be noise). */
static int is_pruned(const struct descent *d, int k, int dir,
                     const struct search_point *p)
{
    const double *t = d->recent_us;
    const struct walk *w = d->walk;
    int prev = k - dir;
    double steep = p->params->steep_rise;
    if (!d->is_pruning || steep <= 0 || d->misses == 0 || prev < 0 ||
        prev >= w->n || p->methods[w->steps[k]].seg_bytes == 0 ||
        p->methods[w->steps[prev]].seg_bytes == 0) {
        return 0;
    }
    if (t[2] > (1 + steep) * t[1] ||
        (d->is_bracketed && dir < 0 && t[2] > (1 + WALK_TIE) * t[1])) {
        return 1;
    }
    return d->rival_us > 0 && d->best_us > d->rival_us &&
           t[2] > (1 - WALK_TIE) * t[1];
}

/* Walks from `from` in direction dir while time falls, within lookahead,
 * up to but not onto step `end` (-1 or walk->n: the walk's end). */
static int descent_direction(struct descent *d, int from, int dir, int end,
                             const struct search_point *p,
                             const struct search_oracle *o)
{
    d->misses = 0;
    for (int k = from; k >= 0 && k < d->walk->n && k != end; k += dir) {
        int is_na;
        int rc = descent_time(d, k, p, o, &is_na);
        if (rc != 0 || is_na) {
            return rc;
        }
        if (d->misses > p->params->lookahead || is_pruned(d, k, dir, p)) {
            break;
        }
    }
    return 0;
}

/* alg's unsegmented time at the largest smaller message timed at these
 * procs, 0 if none: a lower bound of it here (sending more never takes
 * less time). */
static double unsegmented_bound(const struct search_point *p, int alg)
{
    double bound = 0;
    long at = -1;
    for (int i = 0; p->prev_msg && i < p->prev_msg->n; i++) {
        const struct search_result *r = &p->prev_msg->results[i];
        if (r->method.alg == alg && r->method.seg_bytes == 0 &&
            r->time_us >= 0 && r->msg_bytes > at) {
            at = r->msg_bytes;
            bound = r->time_us;
        }
    }
    return bound;
}

int descent_from(struct descent *d, int start, double cut_us,
                 const struct search_point *p, const struct search_oracle *o)
{
    int is_na, rc = 0;
    d->is_done = 1;
    if (d->n_timed == 0) {
        rc = descent_time(d, start, p, o, &is_na);
        if (rc != 0 || is_na) {
            return rc;
        }
    }
    int start_method = d->best;
    int down = start + 1;
    int jumped_from = -1; /* the slope's probe skipped steps after it */
    if (cut_us > 0 && d->best_us > cut_us) {
        /* Behind: go on toward smaller segments only if they can still
         * catch up: if pipelining can gain that much (a bound), and if
         * segmentation's slope, kept up to the end of the walk, would get
         * below the cut (segmenting can change everything); otherwise
         * stop. */
        int seg = p->methods[d->walk->steps[start]].seg_bytes;
        double start_us = d->best_us;
        if (seg != 0 && !d->is_first_timed &&
            p->methods[d->walk->steps[0]].seg_bytes == 0 &&
            unsegmented_bound(p, d->walk->alg) <= cut_us) {
            /* No segmentation is a regime of its own, off the segment
             * sizes' curve: it is timed before the algorithm is left
             * (reduce binomial, 13 ranks, 128 KiB, on a generated cluster:
             * 1.41x behind at the 32 KiB its neighbour preferred, the
             * optimum unsegmented). */
            rc = descent_time(d, 0, p, o, &is_na);
            if (rc != 0 || is_na || d->best_us <= cut_us) {
                return rc;
            }
        }
        if (down >= d->walk->n || (seg != 0 && 4 * (long)seg <= p->msg_bytes)) {
            /* A start of four segments or more is on segmentation's curve
             * and shows where it stands; fewer overlap too little to show
             * what segmenting does, and are judged as no segmentation is
             * (pipeline bcast, P=3, 16 KiB, on a Fast Ethernet cluster
             * with a 16 KiB eager limit: from P=2's 8 KiB, 1.39x behind,
             * cut; 2 KiB segments the optimum, 1.7 % ahead. Judging every
             * start so cost 3 to 8 % of the experiment time on the
             * benchmark journals and found no other optimum). */
            return 0;
        }
        int depth = search_depth(p, d->walk->alg);
        double n_segs = seg > 0 ? ceil((double)p->msg_bytes / seg) : 1;
        if (depth > 0 &&
            start_us > 2 * (n_segs + depth - 1) / n_segs * cut_us) {
            /* Pipelining h hops in k segments takes (k + h - 1) segment
             * times; more, smaller segments bring that toward k at best,
             * so they divide the time by (k + h - 1) / k at most (h
             * unsegmented: the root still sends the whole message to each
             * child), twice that where a reduction overlaps receiving
             * with reducing. */
            return 0;
        }
        int last = start; /* the smallest segment timed so far */
        if (seg == 0) {
            /* The largest segment first: below an eager limit, it can win
             * alone where no segmentation pays a rendezvous (reduce
             * binary, 6 ranks, 4 KiB, on a generated cluster: 2 KiB
             * segments 44 % faster than none). */
            rc = descent_time(d, down, p, o, &is_na);
            if (rc != 0 || is_na) {
                return rc;
            }
            last = down;
        }
        int probe = last;
        if (d->best_us > cut_us) {
            /* The slope is read at the first segment of at most a quarter
             * of the message: two segments overlap too little to show
             * what segmenting does (pipeline bcast, P=3, 16 KiB on Grig:
             * 8 KiB segments as slow as none, 4 KiB 21 % faster). */
            while (probe + 1 < d->walk->n &&
                   (probe == start ||
                    4 * (long)p->methods[d->walk->steps[probe]].seg_bytes >
                        p->msg_bytes)) {
                probe++;
            }
            if (probe != last) {
                jumped_from = last;
                rc = descent_time(d, probe, p, o, &is_na);
            }
            double slope_us =
                (start_us - d->recent_us[2]) / (double)(probe - start);
            double floor_us =
                d->recent_us[2] - slope_us * (double)(d->walk->n - probe - 1);
            if (rc != 0 || is_na || slope_us <= 0 || floor_us > cut_us) {
                return rc;
            }
        }
        down = probe + 1;
    }
    int n_before = d->n_timed;
    int probe_best = down - 1;
    rc = descent_direction(d, down, +1, d->walk->n, p, o);
    if (rc == 0 && jumped_from >= 0 && probe_best > jumped_from + 1 &&
        d->best == d->walk->steps[probe_best]) {
        /* The slope's probe jumped over larger segments that may be
         * better still (reduce pipeline, 3 ranks, 4 KiB, on a generated
         * cluster: 2 KiB segments 40 % faster than the 1 KiB probe). */
        d->recent_us[2] = d->best_us; /* falling is judged from the best */
        rc = descent_direction(d, probe_best - 1, -1, jumped_from, p, o);
    }
    if (rc == 0) {
        /* Then toward larger segments, even when the walk down found a
         * better one: an eager limit can put a second minimum on that side
         * (reduce binary, 41 ranks, 256 KiB, on a generated cluster: 8 KiB
         * 0.3 % better than the 16 KiB start, 32 KiB 13 % better still).
         * With steep_rise, a best at the start whose last step down rose
         * is bracketed: the convex model holds for trees pipelined over
         * two hops or more (over one, segmenting only adds overheads, and
         * no segmentation can beat every segment size: bcast, P=2, on
         * Frodo). */
        int depth = search_depth(p, d->walk->alg);
        d->is_bracketed = d->best == start_method && depth >= 2 &&
                          d->n_timed > n_before &&
                          d->recent_us[2] > (1 + WALK_TIE) * d->best_us;
        d->recent_us[2] = d->best_us; /* falling is judged from the best */
        /* No segmentation, when a start behind timed it, is not timed
         * again. */
        int top = d->is_first_timed ? 0 : -1;
        rc = descent_direction(d, start - 1, -1, top, p, o);
    }
    return rc;
}

void descent_pick(const struct descent *d, int n, int *best)
{
    double best_us = 0;
    *best = -1;
    for (int i = 0; i < n; i++) {
        if (d[i].best >= 0 &&
            (*best < 0 || d[i].best_us < best_us ||
             (d[i].best_us == best_us && d[i].best < *best))) {
            *best = d[i].best;
            best_us = d[i].best_us;
        }
    }
}

double descent_best_us(const struct descent *d, int n)
{
    double best_us = -1;
    for (int i = 0; i < n; i++) {
        if (d[i].best >= 0 && (best_us < 0 || d[i].best_us < best_us)) {
            best_us = d[i].best_us;
        }
    }
    return best_us;
}
