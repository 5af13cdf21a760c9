/* The sweep's grid: (collective, procs, message size) points walked in a
 * fixed order, and the candidate methods at each. No MPI. */
#ifndef TUNE_GRID_H
#define TUNE_GRID_H

#include "search/refine.h"
#include "search/search.h"
#include "tune/config.h"

/* The most candidate methods a point can have (grid_point_methods). */
#define GRID_MAX_METHODS                                                       \
    (CONFIG_MAX_ALGS * (CONFIG_MAX_SEGS + 1) + CONFIG_MAX_NODE_METHODS)

/* The message sizes of collective ci (c->colls[ci]): the configured ones, or
 * 0 alone for a collective that moves no data (barrier). *sizes is
 * borrowed. Returns how many. */
int grid_msg_sizes(const struct config *c, int ci, const long **sizes);
/* Points of the whole grid. */
long grid_points(const struct config *c);
/* The grid's points in the order the sweep walks them: a profile's,
 * costliest first; else collectives as configured, then layouts (ranks
 * per node, procs) and message sizes ascending. *out (grid_points of them) is
 * caller-frees; 0 or -1 (out of memory). */
int grid_list_points(const struct config *c, struct config_point **out);
/* The candidate methods of collective ci at msg_bytes into out (room for
 * GRID_MAX_METHODS); returns how many. */
int grid_point_methods(const struct config *c, int ci, long msg_bytes,
                       struct search_method *out);

/* The method between a and b at fraction f (0: a, 1: b) when both are one
 * algorithm, both segmented or both not: the segment size of segs
 * (ascending, n_segs) between theirs nearest the geometric interpolation
 * (theirs only when segs is empty). Returns 0, or -1 when they are not one
 * algorithm so. */
int grid_method_between(const struct search_method *a,
                        const struct search_method *b, double f,
                        const int *segs, int n_segs, struct search_method *out);

/* The order of the methods at a point: algorithm table order, segments
 * ascending (negative, 0 or positive, as for qsort). */
int grid_method_cmp(const struct search_method *a,
                    const struct search_method *b);
/* The search point of coll at (procs, msg_bytes) over methods (n_methods,
 * in grid_method_cmp order; borrowed): the depth of each tree algorithm at
 * procs ranks into depths (room for CONFIG_MAX_ALGS), the pipeline's index
 * and params. The sweep and `autotune compare` both build their points
 * here, so that a replay asks the questions the sweep asked. */
void grid_search_point(struct search_point *p, const struct coll_def *coll,
                       int procs, long msg_bytes, int chain_fanout,
                       const struct search_method *methods, int n_methods,
                       int *depths, const struct search_params *params);
/* search = "model": the model's time of each method of coll at (procs,
 * ppn ranks per node, msg_bytes) into predicted_us, < 0 where the model
 * says it does not apply. The sweep and `autotune compare` both predict
 * here. 0 or -1. */
struct model_params;
int grid_predict_methods(const struct model_params *model,
                         const struct coll_def *coll, int procs, int ppn,
                         long msg_bytes, int chain_fanout,
                         const struct search_method *methods, int n_methods,
                         double *predicted_us);

/* The adaptive walk's corrected predictor (model_corrected_choice) over
 * one collective's grid of rows (ppn, procs) x msgs, rows of one ppn
 * together with procs ascending (refine_layers): the model's time of each
 * label at each point (pred_us, <= 0 none) and the times the searches
 * measured (seen_us, 0 none), both [(row * n_msgs + mi) * n_labels + k].
 * The sweep and `autotune
 * compare` both predict here. */
struct grid_predictor {
    const int *row_ppn, *row_procs;
    int n_rows;
    const long *msgs;
    int n_msgs, n_labels;
    double *pred_us, *seen_us;
    int *group; /* per label: its algorithm's number (labels of one
                   algorithm at other segment sizes share it) */
};
/* Allocates the tables (pred_us all -1, each label its own group); 0 or -1 out
 * of memory. */
int grid_predictor_init(struct grid_predictor *gp);
void grid_predictor_free(struct grid_predictor *gp);
/* Label k timed at (row, mi): measured_us. */
void grid_predictor_seen(struct grid_predictor *gp, int row, int mi, int k,
                         double measured_us);
/* refine_predictor's predict (ctx a grid_predictor): the corrected choice
 * at (row, mi) from what its ppn's rows measured. */
int grid_predictor_predict(void *ctx, int row, int mi,
                           struct refine_prediction *out);

#endif
