/* The model's accuracy (model/accuracy.c), the one definition `autotune
 * predict` and the HTML report share, on points computed by hand. */
#include <math.h>

#include "../check.h"
#include "model/model.h"

int main(void)
{
    struct model_accuracy a = {0};
    /* Point 1: the model picks method 1 (predicted 8), measured 12 against
     * the optimum 10 (method 0): ratio 1.2, penalty 0.2. Errors: |9-10|/10,
     * |8-12|/12, |30-20|/20 = 0.1, 1/3, 0.5. Pairs, all more than 1 %
     * apart: (10,12) ordered 9>8: wrong; (10,20) 9<30 right; (12,20) 8<30
     * right. */
    double t1[] = {10, 12, 20}, q1[] = {9, 8, 30};
    CHECK_INT(0, model_accuracy_add(&a, t1, q1, 3, 10));
    /* Point 2: method 2 has no prediction, method 0 was not measured; the
     * pick is method 1, the optimum (5): ratio 1, error |6-5|/5 = 0.2. No
     * pair: only method 1 has both times. */
    double t2[] = {0, 5, 4}, q2[] = {1, 6, -1};
    CHECK_INT(0, model_accuracy_add(&a, t2, q2, 3, 5));
    /* Point 3: an optimum unknown: errors count, no pick is scored. */
    double t3[] = {7}, q3[] = {7};
    CHECK_INT(0, model_accuracy_add(&a, t3, q3, 1, -1));

    CHECK_INT(2, a.n_points);
    CHECK_INT(1, a.n_optimal);
    CHECK_INT(5, a.n_compared);
    CHECK(fabs(a.err_sum - (0.1 + 1.0 / 3 + 0.5 + 0.2 + 0)) < 1e-12);
    CHECK(fabs(a.max_err - 0.5) < 1e-12);
    CHECK(fabs(a.penalty_sum - 0.2) < 1e-12);
    CHECK(fabs(a.max_penalty - 0.2) < 1e-12);
    CHECK_INT(3, a.n_pairs);
    CHECK_INT(2, a.n_pairs_right);
    CHECK(fabs(model_accuracy_quantile(&a, 0.5) - 1.0) < 1e-12);
    CHECK(fabs(model_accuracy_quantile(&a, 1.0) - 1.2) < 1e-12);

    /* A pair the model orders wrong. */
    double t4[] = {10, 20}, q4[] = {30, 8};
    CHECK_INT(0, model_accuracy_add(&a, t4, q4, 2, 10));
    CHECK_INT(4, a.n_pairs);
    CHECK_INT(2, a.n_pairs_right);
    CHECK(fabs(model_accuracy_quantile(&a, 1.0) - 2.0) < 1e-12);

    model_accuracy_clear(&a);
    CHECK_INT(0, a.n_points);
    CHECK(isnan(model_accuracy_quantile(&a, 0.5)));
    return check_exit();
}
