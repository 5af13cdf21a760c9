/* The bound on what an adaptive walk must measure (search/bound.h), on
 * small maps whose answers are counted by hand in the comments. */
#include <math.h>
#include <stdlib.h>

#include "search/bound.h"
#include "tests/check.h"

enum { A, B, C, D };

/* One row of 8 message sizes, four methods, the pure model choosing A:
 *   p0 p1: A wins (the model serves them)
 *   p2: B; its neighbours' optima A and D lose 100 % there: must
 *   p3: D wins alone: must;  p4: B, neighbours' D and C lose: must
 *   p5: C 102, B 105 (2.9 %): p4's B or p6's C serve it
 *   p6: C 100: p5's C serves it;  p7: D 100, C 106 (6 %): p6's C serves it
 * must {2,3,4}; the sets left: p5 {5,4,6} (hit by 4), p6 {6,5}, p7 {7,6}:
 * packed smallest first p6's, then p7's meets it: lower 3 + 1 = 4.
 * The cover: {2,3,4}; p6 and p7 unserved; p6 serves itself and p7 (gain
 * 2, p5 and p7 1): {2,3,4,6}, upper 4; penalties p5 0 (C from p6), p7
 * 6 %. Costs 1 but p5's 0.5: lower 3 + 0.5, upper 4. */
static void test_row(void)
{
    static const double t[8][4] = {{100, 200, 200, 300}, {100, 200, 200, 300},
                                   {200, 100, 200, 300}, {200, 200, 200, 100},
                                   {200, 100, 200, 300}, {200, 105, 102, 300},
                                   {200, 200, 100, 300}, {200, 200, 106, 100}};
    int free_label[8] = {A, A, A, A, A, A, A, A};
    double cost[8] = {1, 1, 1, 1, 1, 0.5, 1, 1};
    char is_must[8], is_upper[8];
    struct bound_map m = {1,    8, 4,    NULL, &t[0][0], free_label, 1,
                          NULL, 0, NULL, NULL, NULL,     cost,       0.10};
    struct bound_result r;
    CHECK_INT(0, bound_grid(&m, &r, is_must, is_upper));
    CHECK_INT(8, r.points);
    CHECK_INT(3, r.must);
    CHECK(is_must[2] && is_must[3] && is_must[4] && !is_must[5]);
    CHECK_INT(4, r.lower);
    CHECK(fabs(r.lower_s - 3.5) < 1e-12);
    CHECK_INT(4, r.upper);
    CHECK(is_upper[6] && !is_upper[5] && !is_upper[7]);
    CHECK(fabs(r.upper_s - 4) < 1e-12);
    CHECK(fabs(r.upper_penalty_max - 0.06) < 1e-12);
    CHECK(fabs(r.upper_penalty_sum - 0.06) < 1e-12);
    /* A loses 100 % at each must point */
    CHECK(fabs(r.must_free_max - 1.0) < 1e-12);

    /* the corrected model choosing D at p3 serves it (lower bound only):
     * must {2,4}; sets p3 {3} hoped, p5 hit by 4, p6 {6,5} packed, p7
     * meets it: lower 3. The cover still measures p3 (hoped is not
     * trusted there): upper 4. */
    int hoped[8] = {-1, -1, -1, D, -1, -1, -1, -1};
    m.hoped_label = hoped;
    m.n_hoped = 1;
    CHECK_INT(0, bound_grid(&m, &r, NULL, NULL));
    CHECK_INT(2, r.must);
    CHECK_INT(3, r.lower);
    CHECK_INT(4, r.upper);
}

/* One algorithm at three segment sizes (labels 8, 16, 32 bytes) over
 * three message sizes: the middle point's best is 16, between its
 * neighbours' 8 and 32, each of which loses 50 % there. With the labels'
 * algorithms the middle is not must (either neighbour may offer 16);
 * without, it is. The ends: each one's neighbour's 16 loses 20 %: must. */
static void test_between(void)
{
    static const double t[3][3] = {
        {100, 120, 150}, {150, 100, 150}, {150, 120, 100}};
    int alg[3] = {0, 0, 0}, seg[3] = {8, 16, 32};
    struct bound_map m = {1,    3, 3,   NULL, &t[0][0], NULL, 0,
                          NULL, 0, alg, seg,  NULL,     NULL, 0.10};
    struct bound_result r;
    CHECK_INT(0, bound_grid(&m, &r, NULL, NULL));
    CHECK_INT(2, r.must);
    CHECK_INT(2, r.lower);
    CHECK_INT(3, r.upper); /* the cover takes single neighbours only */
    m.alg = m.seg_bytes = NULL;
    CHECK_INT(0, bound_grid(&m, &r, NULL, NULL));
    CHECK_INT(3, r.must);
    CHECK_INT(3, r.lower);
}

/* One method everywhere on 3 rows x 4 sizes: nothing must be measured;
 * with the model choosing it, nothing at all, or only what every walk
 * measures (here 5 coarse points); without a model a walk still measures
 * something: the sets {p and its neighbours} packed smallest first: the
 * corners' p0 {0,1,4}, p3 {3,2,7} (p8 {8,9,4} and p11 {11,10,7} meet
 * them), then of the edges' p9 {9,8,10,5}: lower 3. Rows of two ppn
 * (rows 0, 1 at 1 and row 2 at 2) do not neighbour each other. */
static void test_one_method(void)
{
    double t[12];
    int free_label[12];
    char coarse[12] = {1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1};
    coarse[5] = 1;
    for (int i = 0; i < 12; i++) {
        t[i] = 10 + i;
        free_label[i] = 0;
    }
    struct bound_map m = {3,    4, 1,    NULL, t,    free_label, 1,
                          NULL, 0, NULL, NULL, NULL, NULL,       0.10};
    struct bound_result r;
    CHECK_INT(0, bound_grid(&m, &r, NULL, NULL));
    CHECK_INT(12, r.points);
    CHECK_INT(0, r.must);
    CHECK_INT(0, r.lower);
    CHECK_INT(0, r.upper);
    CHECK(r.upper_penalty_max == 0);
    m.premeasured = coarse;
    CHECK_INT(0, bound_grid(&m, &r, NULL, NULL));
    CHECK_INT(5, r.lower);
    CHECK_INT(5, r.upper);
    m.premeasured = NULL;
    m.n_free = 0;
    CHECK_INT(0, bound_grid(&m, &r, NULL, NULL));
    CHECK_INT(0, r.must);
    CHECK_INT(3, r.lower);
    /* row 2 apart: p8's set is {8,9} and p11's {11,10}; packed p8 {8,9},
     * p11 {11,10}, then p0 {0,1,4}, p3 {3,2,7}: still 4 */
    int ppn[3] = {1, 1, 2};
    m.row_ppn = ppn;
    CHECK_INT(0, bound_grid(&m, &r, NULL, NULL));
    CHECK_INT(4, r.lower);
}

int main(void)
{
    test_row();
    test_between();
    test_one_method();
    return check_exit();
}
