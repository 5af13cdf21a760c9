/* Adaptive refinement of a (procs, message size) grid (seed 003 §3.1), and
 * of one per ranks per node along that axis too: which points to measure
 * and what the others inherit. No MPI: the caller's oracle measures a point
 * (runs a search there) or replays one. */
#ifndef SEARCH_REFINE_H
#define SEARCH_REFINE_H

/* The finest grid: every point the walk may measure. Borrowed. */
struct refine_grid {
    const int *procs; /* ascending */
    int n_procs;
    const long *msg_bytes; /* ascending */
    int n_msgs;
};

struct refine_params {
    /* The coarse grid takes every this many message sizes (4: by 16 when
     * they grow by 2), and procs at powers of two and 2^k +- 1 (where tree
     * shapes change), plus both ends. */
    int coarse_msg_step;
    /* A measured time that the log-log interpolation of its rectangle's
     * corners misses by more than this fraction refines the rectangle. */
    double time_tolerance;
    /* Two points whose optimal methods differ still agree when each one's
     * method is within this fraction of the other point's optimum (both
     * measured there): a boundary between near-equal methods costs nothing
     * to miss. */
    double agree_penalty;
    /* Two points whose methods are one algorithm at two segment sizes
     * agree, and the points between inherit the segment size between,
     * when that size is known to lose at most this fraction at one of
     * them (an eager limit among the segment sizes can make the size
     * between far worse than both: robust-10's bcast at 64 ranks, 128 KiB,
     * 8 KiB between 2 and 32 KiB lost 62 % with the model strategy). */
    double drift_penalty;
    /* A rectangle kept with at least this many points unmeasured besides
     * its corners, none measured, gets its centre measured (0: never). */
    int probe_points;
    /* Non-zero (and more than one message size): every procs the walk
     * measured nowhere gets one point measured, at the coarse grid's
     * second message size (cheap, and on the edge of two coarse
     * rectangles): a communicator size whose method differs from its
     * neighbours' over a band of message sizes shows there. */
    int probe_rows;
    /* With an oracle that predicts (refine_walk_predicted) and this > 0:
     * a rectangle is refined while the predicted penalty of the choice at
     * one of its unmeasured points exceeds this fraction (or there is no
     * prediction there: then as without one), and is kept otherwise,
     * whatever its corners' methods; its points take the predicted choice;
     * no probes (an unmeasured point's uncertainty says where to look). */
    double max_penalty;
    /* > 0, with a predictor and max_penalty > 0: the walk starts from the
     * model instead of the coarse grid (refine_walk_seeded) and measures
     * at most this fraction of the grid's points (its seed at least). */
    double budget;
};

#define REFINE_PARAMS_DEFAULT                                                  \
    {                                                                          \
        4, 0.25, 0.05, 0.25, 8, 1, 0.05, 0                                     \
    }

/* One point of the grid, out[pi * n_msgs + mi]. */
struct refine_point {
    int label;      /* the caller's method label, -1 where nothing can run */
    double time_us; /* measured, or interpolated where inferred (-1: none) */
    int is_measured;
    /* inferred from a prediction: its uncertainty in log time (how far
     * time_us may be off, a factor exp(+-uncertainty)); -1 otherwise */
    double uncertainty;
    /* inferred from a prediction: what its method may lose there
     * (refine_prediction's penalty, INFINITY unbounded); -1 otherwise */
    double penalty;
};

/* A prediction at an unmeasured point from what the walk measured so far
 * (model/model.h, model_corrected_choice). */
struct refine_prediction {
    int label; /* the predicted best method */
    double time_us, uncertainty;
    double penalty; /* what the label may lose there (fraction) */
    /* the model's own choice there and its model time (-1: none) */
    int model_label;
    double model_us;
};

struct refine_oracle {
    /* Measures point (pi, mi): its optimal method's label (-1: none) and
     * its time. Non-zero stops the walk. */
    int (*measure)(void *ctx, int pi, int mi, int *label, double *time_us);
    /* At the measured point (pi, mi): the penalty (fraction) of method
     * label against the point's optimum, or < 0 when it is not known (not
     * measured there). NULL: methods agree only when equal. */
    double (*penalty)(void *ctx, int pi, int mi, int label);
    /* The method between labels a and b at fraction f (0: a's point, 1:
     * b's) of the way from one point to the other, for point (pi, mi),
     * when both are one algorithm at two segment sizes: that algorithm at
     * the segment size between theirs, if it is a candidate at (pi, mi);
     * -1 otherwise. Points with such methods agree (a best segment size
     * drifts with the message size and the communicator size), and the
     * points between them inherit the segment size between, as long as it
     * is known to hold (drift_penalty). NULL: only equal labels agree. */
    int (*between)(void *ctx, int a, int b, double f, int pi, int mi);
    void *ctx;
};

/* Where a calibration exists: the prediction at the unmeasured point
 * (pi, mi) from the points measured so far (pi as the oracle's): 0, 1
 * when there is none, < 0 an error that stops the walk. */
struct refine_predictor {
    int (*predict)(void *ctx, int pi, int mi, struct refine_prediction *out);
    void *ctx;
};

/* Walks the grid: measures the coarse grid, then, rectangle by rectangle,
 * the midpoints between measured corners that disagree (or whose measured
 * points do not fit), until neighbours agree or are adjacent; then the
 * centre of each large rectangle kept unprobed, then one point of each
 * procs measured nowhere, refining again after each. Every other point
 * takes a method within agree_penalty at all its rectangle's corners, else
 * one algorithm's at the segment size between the corners of its nearer
 * procs side (or of all four) where that holds, else its nearest corner's
 * (in log procs, log bytes), and is marked inferred. out has room for
 * n_procs * n_msgs points. Returns 0, or the oracle's error, or -1 out of
 * memory; points measured before an error keep is_measured. */
int refine_walk(const struct refine_grid *g, const struct refine_params *p,
                const struct refine_oracle *o, struct refine_point *out);

/* The coarse grid every walk measures first: is_coarse[pi * n_msgs + mi]
 * set to 1 on it, 0 elsewhere. */
void refine_coarse_grid(const struct refine_grid *g,
                        const struct refine_params *p, char *is_coarse);

/* refine_walk with predictions (pr; NULL or max_penalty 0: refine_walk;
 * budget > 0: refine_walk_seeded):
 * the coarse grid, then each rectangle halved while the choice at one of
 * its unmeasured points may lose more than max_penalty by the prediction
 * (measured in rounds, predictions anew after each); the points left take
 * the predicted choice, time and uncertainty. Same returns. */
int refine_walk_predicted(const struct refine_grid *g,
                          const struct refine_params *p,
                          const struct refine_oracle *o,
                          const struct refine_predictor *pr,
                          struct refine_point *out);

/* The walk that starts from the model (refine_walk_predicted with
 * budget > 0): no coarse grid; a seed of 3 procs (both ends, the middle)
 * by 4 message sizes (both ends, evenly between), then rounds: every
 * unmeasured point's prediction (pr), and the points whose choice may
 * lose more than max_penalty (or that have none) measured, most at risk
 * first (then farthest from what was measured), at most 1 % of the grid a
 * round and none next to another of the round; a point in a procs row
 * with nothing measured brings that row's two message-size ends along
 * (the predictor holds a row's residual constant past its measured
 * sizes). Until no point is at risk or budget's points (floor(budget x
 * points), the seed counted) are measured. Every unmeasured point takes
 * the predicted choice, time and uncertainty; where its penalty is
 * unbounded, the model's own choice and model time (model_label,
 * uncertainty -1); where there is no prediction, the method and time of
 * the nearest measured point of its message size (of any, if none;
 * uncertainty -1). Same returns as refine_walk. */
int refine_walk_seeded(const struct refine_grid *g,
                       const struct refine_params *p,
                       const struct refine_oracle *o,
                       const struct refine_predictor *pr,
                       struct refine_point *out);

/* The plain subsampling that refine_walk is measured against: an evenly
 * spaced sub-grid of about n_points points (both ends of each axis
 * included), the rest inferred as refine_walk infers. Same returns. */
int refine_uniform(const struct refine_grid *g, int n_points,
                   const struct refine_oracle *o, struct refine_point *out);

/* The grid of several ranks per node (ppn): rows (ppn, procs), ppn
 * ascending and each ppn's procs ascending. A ppn has only the procs it
 * divides, so its rows may be missing at its neighbours. Borrowed. */
struct refine_layers {
    const int *ppn;   /* per row */
    const int *procs; /* per row */
    int n_rows;
    const long *msg_bytes; /* ascending, every row's */
    int n_msgs;
};

/* Walks the ppn x procs x messages grid: the smallest and the largest ppn
 * as refine_walk walks a procs x messages grid; then each ppn between two
 * walked ones (halving the ppn axis) the same way, measuring its own
 * coarse grid (a ppn between two others may differ from both everywhere:
 * on NDR, 8 per node from 1 and 32 at every size), except that a point
 * off the coarse grid (one its walk refines or probes) that both
 * neighbouring ppn measured at the same (procs, message size), with
 * methods that agree (one method, or each one's within agree_penalty of
 * the optimum at the other), is not measured: it takes that method (the
 * smaller ppn's first) and a time interpolated in log ppn, is marked
 * inferred, and counts as measured for its own walk. Where a neighbour
 * lacks the row (ppn must divide procs), or measured nothing there, or
 * the methods differ, it is measured. The oracle's pi is the row;
 * out[row * n_msgs + mi]. One ppn: refine_walk. Same returns. */
int refine_walk_layers(const struct refine_layers *g,
                       const struct refine_params *p,
                       const struct refine_oracle *o, struct refine_point *out);

/* refine_walk_layers, each layer walked by refine_walk_predicted (pr's pi
 * the row). */
int refine_walk_layers_predicted(const struct refine_layers *g,
                                 const struct refine_params *p,
                                 const struct refine_oracle *o,
                                 const struct refine_predictor *pr,
                                 struct refine_point *out);

/* refine_uniform at each ppn, layer k (the k-th ppn of the grid's rows)
 * with n_points[k] points. Same returns. */
int refine_uniform_layers(const struct refine_layers *g, const int *n_points,
                          const struct refine_oracle *o,
                          struct refine_point *out);

#endif
