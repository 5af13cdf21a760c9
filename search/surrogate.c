/* The pipeline surrogate ([Vadhiyar 2004], section 3.2, fig. 4): a tree's best
 * segment size is found on a pipeline of the ranks along its longest
 * root-to-leaf path (depth + 1 ranks, cheap to time), then confirmed on the
 * tree at that size and its neighbours. Algorithms that are not trees, or
 * whose pipeline would be as large as the tree, descend as in mgd; where
 * neighbouring points were searched, their best segment sizes are the
 * better guess and are used as in smgd (search/plan.h). */
#include <math.h>
#include <stddef.h>

#include "search/plan.h"
#include "search/strategies.h"

/* The pipeline of n_ranks ranks seen as an oracle over a walk's methods:
 * method i stands for its segment size on the pipeline. */
struct pipe {
    const struct search_oracle *o;
    int n_ranks;
};

static int pipe_time(void *ctx, const struct search_point *p, int i,
                     double *time_us)
{
    const struct pipe *pp = ctx;
    return pp->o->time_pipeline(pp->o->ctx, p, pp->n_ranks,
                                p->methods[i].seg_bytes, time_us);
}

/* Trees: the segment size from the pipeline along the longest path (from
 * the neighbour's size when there is one, else mgd's descent from the
 * largest), then the tree at that size and its neighbours, going on only
 * while time falls. A neighbour's size is used on the tree directly (as
 * smgd) unless the chain over all the ranks was no slower than the tree at
 * the neighbours, so that the shorter one is surely the cheaper to time.
 * Others, and trees whose pipeline has no answer, as smgd. */
static int surrogate_walk(struct descent *d, int start, double cut_us,
                          const struct search_point *p,
                          const struct search_oracle *o)
{
    const struct walk *w = d->walk;
    int depth = search_depth(p, w->alg);
    if (depth < 1 || depth + 1 >= p->procs || p->pipeline_alg < 0 || w->n < 2 ||
        !o->time_pipeline) {
        return plan_walk(d, start, cut_us, p, o);
    }
    double pipe_gap = plan_gap(p, p->pipeline_alg);
    if (start >= 0 && !(pipe_gap > 0 && pipe_gap <= plan_gap(p, w->alg))) {
        return plan_walk(d, start, cut_us, p, o);
    }
    struct pipe pp = {o, depth + 1};
    struct search_oracle on_pipe = {pipe_time, NULL, &pp};
    struct descent pd;
    descent_init(&pd, w);
    int rc = start < 0 ? plan_descend(&pd, p, &on_pipe)
                       : descent_from(&pd, start, 0, p, &on_pipe);
    if (rc != 0 || pd.best < 0) {
        return rc != 0 ? rc : plan_walk(d, start, cut_us, p, o);
    }
    struct search_params confirm = *p->params;
    struct search_point at_tree = *p;
    confirm.lookahead = 0;
    at_tree.params = &confirm;
    int rc_tree =
        descent_from(d, walk_find_seg(p, w, p->methods[pd.best].seg_bytes),
                     cut_us, &at_tree, o);
    /* No segmentation is another regime, not a point of the pipeline's
     * curve: where the pipeline found it as good (within sqrt(r)), the
     * tree is timed unsegmented too (reduce binary, 7 ranks, 16 KiB, on a
     * generated cluster: the pipeline's 2 KiB beat none by 0.5 %, the
     * tree's none beat 2 KiB by 46 %). */
    if (rc_tree == 0 && walk_find_seg(p, w, 0) == 0 && pd.is_first_timed &&
        !d->is_first_timed && pd.first_us >= 0 &&
        pd.first_us <= sqrt(p->params->drop_ratio) * pd.best_us) {
        rc_tree = descent_probe(d, 0, p, o);
    }
    return rc_tree;
}

int search_surrogate(const struct search_point *p,
                     const struct search_oracle *o, int *best)
{
    return plan_search(p, o, surrogate_walk, 1, NULL, best);
}
