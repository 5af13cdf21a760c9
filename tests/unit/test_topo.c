/* The depth column of the algorithm tables: hops on the longest
 * root-to-leaf path, which sizes the surrogate pipeline (seed 003). */
#include "../check.h"
#include "collectives/collectives.h"

static int depth(const char *coll, const char *alg, int n_ranks, int fanout)
{
    const struct coll_def *c = coll_find(coll);
    int a = c ? coll_find_alg(c, alg) : -1;
    CHECK(a >= 0);
    if (a < 0 || !c->algs[a].depth) {
        return -2;
    }
    return c->algs[a].depth(n_ranks, fanout);
}

int main(void)
{
    CHECK_INT(0, depth("bcast", "binomial", 1, 4));
    CHECK_INT(1, depth("bcast", "linear", 64, 4));
    CHECK_INT(63, depth("bcast", "pipeline", 64, 4));
    CHECK_INT(16, depth("bcast", "chain", 64, 4)); /* ceil(63 / 4) */
    CHECK_INT(21, depth("reduce", "chain", 64, 3));
    CHECK_INT(2, depth("bcast", "binary", 7, 4)); /* full tree of 7 */
    CHECK_INT(3, depth("bcast", "binary", 8, 4));
    CHECK_INT(3, depth("bcast", "split_binary", 8, 4));
    /* binomial: the most set bits among virtual ranks 1..P-1 */
    CHECK_INT(3, depth("bcast", "binomial", 8, 4));
    CHECK_INT(3, depth("bcast", "binomial", 9, 4));
    CHECK_INT(4, depth("bcast", "binomial", 16, 4));
    CHECK_INT(6, depth("reduce", "binomial", 64, 4));
    /* 4-nomial: the most non-zero base-4 digits among 1..P-1 */
    CHECK_INT(2, depth("bcast", "knomial", 16, 4));
    CHECK_INT(2, depth("bcast", "knomial", 17, 4));
    CHECK_INT(3, depth("bcast", "knomial", 64, 4));
    CHECK_INT(5, depth("reduce", "in_order_binary", 63, 4));
    /* Not tree-shaped: no depth, the surrogate does not apply. */
    CHECK_INT(-2, depth("bcast", "scatter_allgather", 8, 4));
    CHECK_INT(-2, depth("reduce", "rabenseifner", 8, 4));
    return check_exit();
}
