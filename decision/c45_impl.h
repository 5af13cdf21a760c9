/* Private to decision/: the numeric pieces of the C4.5 builder, exposed so
 * that unit tests can pin them down. Types follow release 8 (float counts). */
#ifndef DECISION_C45_IMPL_H
#define DECISION_C45_IMPL_H

#include "decision/c45.h"

/* C4.5's tolerance for gains and errors; a double, as in release 8, so that
 * comparisons mix a float with a double exactly as it does. */
#define C45_EPSILON 1E-3

/* log2(x), 0 for x <= 0. */
double c45_log2(double x);
/* T log2 T - sum n log2 n over v[lo..hi], T = sum n. */
float c45_total_info(const float *v, int lo, int hi);
/* z^2 for a confidence cf (0..1), interpolated in C4.5's table. */
float c45_coeff(float cf);
/* The extra errors the pessimistic estimate adds to e errors among n. */
float c45_add_errs(float n, float e, float cf, float coeff);
/* The attribute to test given each attribute's gain and split info, or -1:
 * gain ratio among attributes whose gain reaches the average gain of those
 * with in_average set (less C45_EPSILON); ties go to the earlier one. */
int c45_choose_attr(int n_attrs, const float *gain, const float *info,
                    const bool *in_average, bool use_gain);
/* The largest known value of attribute a at most bar over all items of d
 * (the cut written into the tree). */
float c45_greatest_value_below(const struct c45_data *d, int a, float bar);
/* Gain of a discrete partition: freq is (max_val + 1) rows of n_classes
 * weights, row 0 the unknowns; val_freq the row totals. */
float c45_compute_gain(const float *freq, const float *val_freq, int n_classes,
                       int max_val, float base_info, float unknown_rate,
                       float known, int min_objs);

#endif
