/* Private to decision/between*.c: what the cuts between measured sizes
 * share: log-log interpolated curves, the envelope's pieces, the placer of
 * a tree's cuts, its regions and the sites of third methods. */
#ifndef DECISION_BETWEEN_H
#define DECISION_BETWEEN_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "decision/decision.h"
#include "decision/internal.h"

/* Samples between two measured values (at s = j / BETWEEN_N_SAMPLES). */
enum { BETWEEN_N_SAMPLES = 256, BETWEEN_MAX_PIECES = 8 };

/* ---- between.c ---- */
/* The piecewise linear function through n knots (xs[] ascending, f[]) at
 * x. */
double between_knots_at(int n, const double *xs, const double *f, double x);
/* The value at s in [0, 1] between lo and hi, linear in log value
 * (1023.99999 is 1024). Inline: between_model.c needs it and between.c
 * calls between_model.c, so it lives with neither. */
static inline long between_value_at(long lo, long hi, double s)
{
    double log_lo = log(lo > 1 ? (double)lo : 1);
    double x = exp(log_lo + s * (log((double)hi) - log_lo));
    long v = (long)floor(x * (1 + 1e-12));
    return v < lo ? lo : v > hi ? hi : v;
}
/* A method's log time between two cells as knots (s ascending from 0 to
 * 1, see struct between_diff). */
struct between_curve {
    int n;
    double s[BETWEEN_CURVE_KNOTS], y[BETWEEN_CURVE_KNOTS];
};
/* Method k's log time between cells a and b of g into *c; c->n, 0 when it
 * cannot run at either. */
int between_method_curve(const struct run_data *r, const struct run_grid *g,
                         long a, long b, int k, struct between_curve *c);
/* The value of c at s. */
double between_curve_at(const struct between_curve *c, double s);

/* ---- between_model.c ---- */
/* The unsegmented method of method k (algorithm/0) where k's segment lies
 * strictly between the message sizes of cells a and b of g (up to it k
 * runs unsegmented) and algorithm/0 was timed at both; -1 otherwise. */
int between_unsegmented_of(const struct run_data *r, const struct run_grid *g,
                           long a, long b, int k);
/* Method k's corrected model curve between cells a and b of g (message
 * sizes at one procs, both timed); 0 when r has no model or it cannot
 * price k there (then the measured times are interpolated). */
int between_model_curve(const struct run_data *r, const struct run_grid *g,
                        long a, long b, int k, struct between_curve *c);

/* Method k's corrected model curve past the largest training size of a
 * communicator size (cell a, timed), from its size (s = 0) to to_bytes
 * (s = 1, linear in log size): the model's times corrected by the
 * residual at a, moved by its log-slope from a_far (the training size
 * below a at the same procs, -1: none; where k was not timed there, held
 * constant); 0 when r has no model or it cannot price k there. */
int between_model_beyond(const struct run_data *r, const struct run_grid *g,
                         long a_far, long a, long to_bytes, int k,
                         struct between_curve *c);

/* ---- between_envelope.c ---- */
/* A piece of the envelope: method k for values in (from, to]. */
struct between_piece {
    int k;
    long from, to;
};
/* Whether method k can be a third method between cells a and b of g (a
 * smaller message size, b a larger, not too far apart): timed at both, and,
 * if segmented, segmented at a too. */
bool between_third_can_run(const struct run_data *r, const struct run_grid *g,
                           long a, long b, int k);
/* Whether method k is near the optimum at cell a or b. */
bool between_third_is_near(const struct run_data *r, const struct run_grid *g,
                           long a, long b, int k);
/* The pieces of the envelope between cells a and b (sizes m_lo < m_hi)
 * when a third method has one; 0 when only k_lo and k_hi do. The pieces
 * cover (m_lo, m_hi - 1], ascending, at most BETWEEN_MAX_PIECES. */
int between_envelope(const struct run_data *r, const struct run_grid *g, long a,
                     long b, int k_lo, int k_hi, struct between_piece *p);

/* ---- A tree's cuts: what between_tree.c and the files it calls share ---- */
/* What placing the cuts of one collective needs. */
struct between_placer {
    const struct train_options *opt;
    const struct run_data *r;
    int g, skip;
    struct decision *d;
    int dc;
    const int *to_run; /* d's method index -> r's, -1: none */
};

/* A node with a message cut, or a leaf, and the values it covers. */
struct between_region {
    int node;
    int64_t lo[2], hi[2]; /* (lo, hi], procs and messages */
};

/* ---- between.c: the training values around a cut ---- */
/* A cut above a communicator of 2 stays (two_proc). */
bool between_procs_cut_moves(int64_t procs_below);
/* Value k of the grid's procs (axis 0) or message sizes (axis 1); their
 * count. */
int64_t between_axis_value(const struct run_grid *grid, int axis, int k);
int between_axis_size(const struct run_grid *grid, int axis);
/* The cell of index k on axis (0: procs, 1: messages) and j on the other. */
long between_cell_at(const struct run_grid *grid, int axis, int k, int j);
/* Whether value k of axis lies in (lo, hi] and has a training point there
 * with a value of the other attribute in its range. */
bool between_has_training(const struct between_placer *pl, int axis, int k,
                          const int64_t lo[2], const int64_t hi[2]);
/* The indexes on axis of the training values around a cut in the ranges
 * (a: the largest at or below it, b: the smallest above); false when one
 * is missing. */
bool between_cut_neighbours(const struct between_placer *pl, int axis,
                            int64_t cut, const int64_t lo[2],
                            const int64_t hi[2], int *a, int *b);

/* ---- between_third.c ---- */
/* What choosing a third method between message indexes ma < mb needs: the
 * n procs indexes there and each one's methods at ma and mb. */
struct between_site {
    int ma, mb, n;
    const int *ps, *k_lo, *k_hi;
};

/* Room for one site's procs and methods. */
struct between_site_room {
    int *ps, *k_lo, *k_hi;
};

/* The procs of (p_lo, p_hi] with training points at message indexes ma
 * and mb whose methods there have times at both: into room. */
struct between_site between_site_at(const struct between_placer *pl,
                                    int64_t p_lo, int64_t p_hi, int ma, int mb,
                                    const struct between_site_room *room);
/* The third method of a site (the decision's index) and its sizes (c0, c1]
 * as message values; -1 when none, -2 out of memory. */
int between_site_third(const struct between_placer *pl,
                       const struct between_site *t, long *c0, long *c1);

/* ---- between_groups.c ---- */
/* The message cut of region reg: its groups of procs choose; how many
 * third methods, or -1. */
int between_region_cut(const struct between_placer *pl,
                       struct between_region reg,
                       const struct between_site_room *room);

#endif
