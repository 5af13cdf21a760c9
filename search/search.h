/* Search strategies: decide which methods (algorithm, segment) to time at a
 * grid point. A strategy is a pure function of the oracle's answers, so
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
    int lookahead;     /* steps tried past a minimum before giving up */
    double drop_ratio; /* smgd: drop an algorithm whose best is this many
                          times the best found and not predicted to improve */
};
#define SEARCH_PARAMS_DEFAULT                                                  \
    {                                                                          \
        2, 1.5                                                                 \
    }

struct search_point {
    const char *collective;
    int procs;
    long msg_bytes;
    const struct search_method *methods;
    int n_methods;
    /* The method chosen at the previous message size of the same collective
     * and procs, as an index in methods, or -1: a good first guess. */
    int hint;
    const struct search_params *params;
};

/* Times method i of the point: *time_us >= 0, or < 0 when the method cannot
 * run there. Returns non-zero on a failure that must stop the sweep. */
typedef int (*search_oracle_fn)(void *ctx, const struct search_point *p, int i,
                                double *time_us);

struct search_strategy {
    const char *name;
    /* Sets *best to the index of the chosen method (-1 if none can run). */
    int (*find_best)(const struct search_point *p, search_oracle_fn oracle,
                     void *ctx, int *best);
    const char *summary;
};

/* Index in p->methods of (alg, seg_bytes), or -1. */
int search_method_index(const struct search_point *p, int alg, int seg_bytes);

extern const struct search_strategy search_strategies[];
extern const int search_strategies_size;
/* The named strategy or NULL (borrowed). */
const struct search_strategy *search_find(const char *name);

#endif
