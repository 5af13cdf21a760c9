/* Quadtrees over a (procs x message size) decision map
 * ([Pjesivac-Grbovic 2007b], section 3): the map is reshaped to 2^k x 2^k by
 * replicating rows and columns, and a block is split in four until one method
 * covers enough of it. A node's cuts are the last measured size of its lower
 * half, so everything below the smallest measured size or above the largest
 * falls in a boundary cell. */
#include <stdlib.h>

#include "decision/decision.h"

struct quad_build {
    struct decision *d;
    const struct quadtree_input *in;
    int *row_of, *col_of; /* reshaped row/column -> measured procs/msg index */
    int *counts;          /* n_methods */
    int max_depth;
    double accuracy_pct;
};

/* The most common method of the block (lowest index on ties) and whether it
 * covers accuracy_pct of the block. */
static int block_majority(const struct quad_build *b, int r0, int c0, int size,
                          bool *is_accurate)
{
    int n_methods = b->d->n_methods;
    for (int i = 0; i < n_methods; i++) {
        b->counts[i] = 0;
    }
    for (int r = r0; r < r0 + size; r++) {
        const int *row = b->in->cells + (size_t)b->row_of[r] * b->in->n_msgs;
        for (int c = c0; c < c0 + size; c++) {
            b->counts[row[b->col_of[c]]]++;
        }
    }
    int best = 0;
    for (int i = 1; i < n_methods; i++) {
        best = b->counts[i] > b->counts[best] ? i : best;
    }
    *is_accurate = 100.0 * b->counts[best] >=
                   b->accuracy_pct * (double)size * size * (1 - 1e-12);
    return best;
}

/* The method of the least total penalty over the block (lowest index on
 * ties), the reshaped cells counted as the majority counts them. */
static int block_least_penalty(const struct quad_build *b, int r0, int c0,
                               int size)
{
    int n_methods = b->d->n_methods;
    int best = 0;
    double best_sum = 0;
    for (int k = 0; k < n_methods; k++) {
        double sum = 0;
        for (int r = r0; r < r0 + size; r++) {
            long row = (long)b->row_of[r] * b->in->n_msgs;
            for (int c = c0; c < c0 + size; c++) {
                sum += b->in->penalty[(row + b->col_of[c]) * n_methods + k];
            }
        }
        if (k == 0 || sum < best_sum) {
            best = k;
            best_sum = sum;
        }
    }
    return best;
}

static int build_block(struct quad_build *b, int node, int r0, int c0, int size,
                       int depth)
{
    bool is_accurate;
    int method = block_majority(b, r0, c0, size, &is_accurate);
    if (depth == b->max_depth && !is_accurate && size > 1 && b->in->penalty) {
        method = block_least_penalty(b, r0, c0, size);
    }
    if (size == 1 || is_accurate || depth == b->max_depth) {
        decision_set_leaf(b->d, node, method);
        return 0;
    }
    int h = size / 2, child;
    if (decision_add_quad(b->d, node, b->in->procs[b->row_of[r0 + h - 1]],
                          b->in->msgs[b->col_of[c0 + h - 1]], &child)) {
        return -1;
    }
    return build_block(b, child, r0, c0, h, depth + 1) ||
           build_block(b, child + 1, r0, c0 + h, h, depth + 1) ||
           build_block(b, child + 2, r0 + h, c0, h, depth + 1) ||
           build_block(b, child + 3, r0 + h, c0 + h, h, depth + 1);
}

int quadtree_build(struct decision *d, int coll,
                   const struct quadtree_input *in, int max_depth,
                   double accuracy_pct)
{
    int side = 1, rc = -1;
    while (side < in->n_procs || side < in->n_msgs) {
        side *= 2;
    }
    struct quad_build b = {d,
                           in,
                           malloc((size_t)side * sizeof(int)),
                           malloc((size_t)side * sizeof(int)),
                           calloc((size_t)d->n_methods, sizeof(int)),
                           max_depth,
                           accuracy_pct};
    if (!b.row_of || !b.col_of || !b.counts) {
        fprintf(stderr, "quadtree: out of memory\n");
        goto done;
    }
    for (int i = 0; i < in->n_procs * in->n_msgs; i++) {
        if (in->cells[i] < 0 || in->cells[i] >= d->n_methods) {
            fprintf(stderr, "quadtree: cell %d has no method\n", i);
            goto done;
        }
    }
    for (int i = 0; i < side; i++) {
        b.row_of[i] = (int)((long)i * in->n_procs / side);
        b.col_of[i] = (int)((long)i * in->n_msgs / side);
    }
    int root = decision_add_node(d);
    if (root < 0 || build_block(&b, root, 0, 0, side, 0)) {
        goto done;
    }
    decision_set_root(d, coll, root);
    rc = 0;
done:
    free(b.row_of);
    free(b.col_of);
    free(b.counts);
    return rc;
}
