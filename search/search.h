/* Search strategies: decide which methods (algorithm, segment) to time at a
 * grid point. A strategy is a pure function of the oracle's answers (at this
 * point and, through the series, at the neighbouring points it searched), so
 * replaying a journal reproduces a sweep exactly. */
#ifndef SEARCH_H
#define SEARCH_H

/* One candidate method at a point. Methods come grouped by algorithm, each
 * algorithm's segment sizes ascending. */
struct search_method {
    int alg;       /* index in the collective's algorithm table */
    int seg_bytes; /* 0 = unsegmented */
};

/* Knobs of the pruned strategies (config key search_options). */
struct search_params {
    int lookahead;       /* steps tried past a minimum before giving up */
    double drop_ratio;   /* r: drop an algorithm whose best is r times the
                            best found (and, for smgd, not predicted to
                            improve); at a point with neighbours, search an
                            algorithm within r of the best at one of them,
                            time once one within r^2, skip the others */
    double steep_rise;   /* smgd and the surrogate: a step past a descent's
                            best that is more than this fraction slower ends
                            that direction at once (the gradient has turned;
                            lookahead is for rises within the noise); 0:
                            never. Off by default: it assumes a convex curve
                            over the segment sizes, which an eager limit
                            among them breaks (a step across it doubles the
                            time, the next halves it: up to 61 % lost on a
                            generated cluster) */
    double model_margin; /* the model strategy: time every algorithm whose
                            corrected prediction is within this fraction of
                            the best corrected prediction */
};
/* lookahead 3: segment sizes just above an eager limit pay a rendezvous
 * each, so up to three steps can rise before the curve falls to its
 * optimum below the limit (lost with lookahead 1: 8 % on one generated
 * cluster; with 2: 14 % on another, bcast split_binary at 53 ranks,
 * 128 KiB; with 3, none on the 12). */
#define SEARCH_PARAMS_DEFAULT                                                  \
    {                                                                          \
        3, 1.3, 0, 0.05                                                        \
    }

/* What the strategy learned at a grid point: one of the oracle's answers
 * there (time < 0: not applicable), with the best time it found there. */
struct search_result {
    struct search_method method;
    double time_us;
    double point_best_us; /* < 0: nothing could run there */
    long msg_bytes;
    double predicted_us; /* the model's time of the method there, < 0: none */
};

/* What is known along one neighbouring line of the grid: every answer
 * there, latest point first. */
struct search_prior {
    int procs;
    int n;
    const struct search_result *results;
};

struct search_point {
    const char *collective;
    int procs;
    int ppn; /* ranks per node: the series keeps each value's rows apart */
    long msg_bytes;
    const struct search_method *methods;
    int n_methods;
    /* Per algorithm (index as in methods[].alg, below n_depths): hops on
     * the longest root-to-leaf path of its tree at procs ranks, or -1 when
     * it is not tree-shaped; NULL when nothing is known. Methods numbered
     * n_depths and above (node-aware ones) have none: search_depth. */
    const int *depths;
    int n_depths;
    int pipeline_alg; /* the one-chain pipeline's algorithm index, or -1 */
    /* Per method: the model's predicted time (< 0: the model says it does
     * not apply), or NULL without a model (borrowed). */
    const double *predicted_us;
    /* Neighbours searched before (filled by search_series_run): the same
     * procs at smaller message sizes, and the previous procs at message
     * sizes up to this one. NULL when there is none. */
    const struct search_prior *prev_msg;
    const struct search_prior *prev_procs;
    /* The slowest best the strategy found at a point of this collective
     * so far (0: none): what an expensive point costs, for a strategy
     * that spends more where experiments are cheap. */
    double costliest_us;
    const struct search_params *params;
};

/* The depth of method alg's tree at p (depths), -1 when none is known. */
static inline int search_depth(const struct search_point *p, int alg)
{
    return p->depths && alg >= 0 && alg < p->n_depths ? p->depths[alg] : -1;
}

/* Answers a strategy's questions: the journal, a measurement or a replay. */
struct search_oracle {
    /* Times method i of the point: *time_us >= 0, or < 0 when the method
     * cannot run there. Returns non-zero on a failure that must stop the
     * sweep. */
    int (*time)(void *ctx, const struct search_point *p, int i,
                double *time_us);
    /* Times the pipeline algorithm (p->pipeline_alg) at p's message size on
     * the first n_ranks ranks with seg_bytes: the surrogate of a tree whose
     * longest path has n_ranks - 1 hops. *time_us < 0 when there is no
     * answer. */
    int (*time_pipeline)(void *ctx, const struct search_point *p, int n_ranks,
                         int seg_bytes, double *time_us);
    void *ctx;
};

struct search_strategy {
    const char *name;
    /* Sets *best to the index of the chosen method (-1 if none can run). */
    int (*find_best)(const struct search_point *p,
                     const struct search_oracle *oracle, int *best);
    const char *summary;
};

/* Index in p->methods of (alg, seg_bytes), or -1. */
int search_method_index(const struct search_point *p, int alg, int seg_bytes);

extern const struct search_strategy search_strategies[];
extern const int search_strategies_size;
/* The named strategy or NULL (borrowed). */
const struct search_strategy *search_find(const char *name);

/* A strategy's memory along the grid walk (collective, then ranks per
 * node, then procs ascending, then message sizes ascending): what the
 * oracle answered it at each point of the current and the previous procs
 * of the same ranks per node. Caller-frees with search_series_destroy. */
struct search_series;
struct search_series *search_series_create(void);
void search_series_destroy(struct search_series *s);
/* Runs st at p: fills p's neighbours from the memory, asks oracle, and
 * remembers the answers for the next points. Points must come in walk
 * order; a new collective forgets everything, a new ranks per node the
 * rows (a row is (collective, ranks per node, procs)). */
int search_series_run(struct search_series *s, const struct search_strategy *st,
                      struct search_point *p, const struct search_oracle *o,
                      int *best);

#endif
