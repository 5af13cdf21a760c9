/* What any adaptive walk of a (procs, message size) grid must measure to
 * keep every inferred choice within a tolerance of the optimum, from the
 * truth at every point (a dense exhaustive run): a lower bound for every
 * walk whose unmeasured points take the model's choice or a measured grid
 * neighbour's optimum, and a cover that reaches it with perfect knowledge.
 * No MPI. */
#ifndef SEARCH_BOUND_H
#define SEARCH_BOUND_H

/* The grid's truth and candidates; point = row * n_msgs + mi. Borrowed. */
struct bound_map {
    int n_rows, n_msgs, n_labels;
    const int *row_ppn; /* per row, or NULL: rows of one ppn neighbour only
                           rows of the same ppn */
    /* [point * n_labels + label]: the label's time there (<= 0: cannot
     * run) */
    const double *time_us;
    /* [point * n_free + j]: choices an unmeasured point is given without
     * any measurement (the pure model's), -1 none */
    const int *free_label;
    int n_free;
    /* [point * n_hoped + j]: the best choices it could be given from
     * measurements around it (the corrected model's with every other
     * point measured), -1 none: trusted by the lower bound only */
    const int *hoped_label;
    int n_hoped;
    /* per label, or NULL: its algorithm and segment size; two neighbours
     * whose optima are one algorithm at two segment sizes offer it at
     * every size between (the lower bound takes either neighbour as
     * enough) */
    const int *alg, *seg_bytes;
    const char *premeasured; /* per point: measured by every walk, or NULL */
    const double *cost_s;    /* per point: measuring it, or NULL */
    double tolerance;        /* a choice is good within this fraction */
};

struct bound_result {
    long points; /* with an optimum */
    /* no candidate within tolerance: measured by every walk */
    long must;
    /* premeasured and must points, plus one per set of a disjoint packing
     * of the others' "this point or one of its good neighbours" sets */
    long lower;
    double lower_s; /* cost: each packed set at its cheapest point */
    /* a greedy cover: premeasured and must points, every point no single
     * neighbour's optimum serves, then the point that serves the most */
    long upper;
    double upper_s;
    /* every point at the cover: its best candidate's penalty (fractions) */
    double upper_penalty_sum, upper_penalty_max;
    /* the must points: the best free candidate's penalty (max; INFINITY
     * where there is none), 0 without must points */
    double must_free_max;
};

/* Fills out; per point (or NULL) is_must and is_upper (the cover's
 * points) set to 0/1. Returns 0, or -1 out of memory. */
int bound_grid(const struct bound_map *m, struct bound_result *out,
               char *is_must, char *is_upper);

#endif
