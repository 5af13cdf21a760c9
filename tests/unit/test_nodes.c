/* The sweep's block placement (collectives/nodes.h): each layout's ranks,
 * worked out by hand for launches in blocks, round robin and uneven
 * nodes, and what AUTOTUNE_NODE_OF_RANK accepts. */
#include "../check.h"
#include "collectives/nodes.h"

static void check_order(const int *node_of_rank, int size, int ppn,
                        const int *want, int n_want, int line)
{
    int order[16];
    int n = nodes_block_order(node_of_rank, size, ppn, order);
    if (n != n_want) {
        fprintf(stderr, "%s:%d: ppn %d: expected %d ranks, got %d\n", __FILE__,
                line, ppn, n_want, n);
        check_failures++;
        return;
    }
    CHECK_INT(n, nodes_block_order(node_of_rank, size, ppn, NULL));
    for (int i = 0; i < n; i++) {
        if (order[i] != want[i]) {
            fprintf(stderr,
                    "%s:%d: ppn %d: rank %d is world rank %d, "
                    "expected %d\n",
                    __FILE__, line, ppn, i, order[i], want[i]);
            check_failures++;
        }
    }
}

int main(void)
{
    /* mpirun --map-by core, 2 nodes of 4 */
    int block[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    check_order(block, 8, 0, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8, __LINE__);
    check_order(block, 8, 1, (int[]){0, 4}, 2, __LINE__);
    check_order(block, 8, 2, (int[]){0, 1, 4, 5}, 4, __LINE__);
    check_order(block, 8, 4, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, 8, __LINE__);
    check_order(block, 8, 5, NULL, 0, __LINE__);
    /* --map-by node: round robin over 2 nodes; a node's ranks are put
     * together */
    int cyclic[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    check_order(cyclic, 8, 2, (int[]){0, 2, 1, 3}, 4, __LINE__);
    check_order(cyclic, 8, 4, (int[]){0, 2, 4, 6, 1, 3, 5, 7}, 8, __LINE__);
    /* nodes of 3, 1 and 4 ranks: the small one is passed over */
    int uneven[8] = {0, 0, 0, 1, 2, 2, 2, 2};
    check_order(uneven, 8, 1, (int[]){0, 3, 4}, 3, __LINE__);
    check_order(uneven, 8, 2, (int[]){0, 1, 4, 5}, 4, __LINE__);
    check_order(uneven, 8, 3, (int[]){0, 1, 2, 4, 5, 6}, 6, __LINE__);
    check_order(uneven, 8, 4, (int[]){4, 5, 6, 7}, 4, __LINE__);

    int k = -1;
    CHECK_INT(0, nodes_parse_emulation(NULL, &k));
    CHECK_INT(0, k);
    CHECK_INT(0, nodes_parse_emulation("block:4", &k));
    CHECK_INT(4, k);
    const char *bad[] = {"block:",   "block:0", "block:-2", "block:4x",
                         "cyclic:4", "4",       "block: 4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (nodes_parse_emulation(bad[i], &k) == 0) {
            fprintf(stderr, "%s: accepted \"%s\"\n", __FILE__, bad[i]);
            check_failures++;
        }
    }
    return check_exit();
}
