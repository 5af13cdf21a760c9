/* The depth column of the algorithm tables: hops on the longest
 * root-to-leaf path, which sizes the surrogate pipeline ([Vadhiyar 2004]); and
 * the subtree ranges of every tree shape, which scatter and gather rely on. */
#include "../check.h"
#include "collectives/collectives.h"
#include "collectives/topo.h"

#include <stdlib.h>

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

/* In every tree a rank's subtree is the virtual range [v, v + n_subtree),
 * its children's subtrees tiling [v + 1, v + n_subtree) in order. */
static void check_subtrees(enum topo_shape shape, int fanout, int size,
                           int root, int is_in_order)
{
    int *n_sub = malloc((size_t)size * sizeof *n_sub);
    struct topo_tree tree;
    CHECK(n_sub != NULL);
    for (int r = 0; n_sub && r < size; r++) {
        CHECK_INT(0, topo_tree_create(&tree, shape, fanout, r, size, root,
                                      is_in_order));
        n_sub[r] = tree.n_subtree;
        topo_tree_destroy(&tree);
    }
    for (int r = 0; n_sub && r < size; r++) {
        int v = is_in_order ? size - 1 - r : (r - root + size) % size;
        topo_tree_create(&tree, shape, fanout, r, size, root, is_in_order);
        int next = v + 1;
        for (int i = 0; i < tree.n_children; i++) {
            int c = tree.children[i];
            int cv = is_in_order ? size - 1 - c : (c - root + size) % size;
            CHECK_INT(next, cv);
            next = cv + n_sub[c];
        }
        CHECK_INT(v + tree.n_subtree, next);
        if (tree.parent < 0) {
            CHECK_INT(size, tree.n_subtree);
        }
        topo_tree_destroy(&tree);
    }
    free(n_sub);
}

/* The linear tree lists its children in decreasing rank: only the sizes. */
static void check_linear_subtrees(int size, int root)
{
    for (int r = 0; r < size; r++) {
        struct topo_tree tree;
        CHECK_INT(0, topo_tree_create(&tree, TOPO_LINEAR, 0, r, size, root, 0));
        CHECK_INT(r == root ? size : 1, tree.n_subtree);
        topo_tree_destroy(&tree);
    }
}

int main(void)
{
    const struct {
        enum topo_shape shape;
        int fanout;
    } shapes[] = {{TOPO_CHAIN, 1},
                  {TOPO_CHAIN, 3},
                  {TOPO_BINARY, 2},
                  {TOPO_BINOMIAL, 0},
                  {TOPO_KNOMIAL, 4}};
    for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++) {
        for (int size = 1; size <= 40; size++) {
            check_linear_subtrees(size, size / 2);
            check_subtrees(shapes[i].shape, shapes[i].fanout, size, 0, 0);
            check_subtrees(shapes[i].shape, shapes[i].fanout, size, size / 2,
                           0);
            check_subtrees(shapes[i].shape, shapes[i].fanout, size, 0, 1);
        }
    }

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
