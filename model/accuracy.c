/* The model's accuracy where a run measured (model.h): one definition of
 * the pick, its penalty and ratio, the prediction error and the ordering
 * of pairs, for `autotune predict` and the HTML report alike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/grow.h"
#include "util/tuning.h"

int model_accuracy_add(struct model_accuracy *a, const double *t,
                       const double *q, int n, double best_us)
{
    int pick = -1;
    for (int k = 0; k < n; k++) {
        if (q[k] < 0 || t[k] <= 0) {
            continue;
        }
        double err = fabs(q[k] - t[k]) / t[k];
        a->err_sum += err;
        a->max_err = fmax(a->max_err, err);
        a->n_compared++;
        pick = pick < 0 || q[k] < q[pick] ? k : pick;
        for (int l = k + 1; l < n; l++) {
            if (q[l] < 0 || t[l] <= 0) {
                continue;
            }
            if (fabs(t[k] - t[l]) > 0.01 * fmin(t[k], t[l])) {
                a->n_pairs++;
                a->n_pairs_right += (t[k] < t[l]) == (q[k] < q[l]);
            }
        }
    }
    if (pick < 0 || best_us <= 0) {
        return 0;
    }
    double *ratios =
        grow(a->ratios, &a->ratios_cap, a->n_ratios + 1, sizeof *ratios, 64);
    if (!ratios) {
        return -1;
    }
    a->ratios = ratios;
    double ratio = t[pick] / best_us,
           penalty = tuning_penalty(t[pick], best_us);
    a->ratios[a->n_ratios++] = ratio;
    a->n_points++;
    a->n_optimal += ratio <= 1.0;
    a->penalty_sum += penalty;
    a->max_penalty = fmax(a->max_penalty, penalty);
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u > v) - (u < v);
}

double model_accuracy_quantile(struct model_accuracy *a, double q)
{
    if (a->n_ratios == 0) {
        return NAN;
    }
    qsort(a->ratios, a->n_ratios, sizeof *a->ratios, cmp_double);
    size_t i = (size_t)ceil(q * (double)a->n_ratios);
    return a->ratios[i == 0 ? 0 : i - 1];
}

void model_accuracy_clear(struct model_accuracy *a)
{
    free(a->ratios);
    memset(a, 0, sizeof *a);
}
