/* Tree shapes in virtual-rank space; each shape is one function that lists
 * a node's parent and children, and topo_tree_create maps them to ranks. */
#include "collectives/topo.h"

#include <stdlib.h>

/* Sets *parent (-1 at the root) and children[] of virtual rank v; returns
 * the number of children. children has room for size entries. */
typedef int (*topo_shape_fn)(int v, int size, int fanout, int *parent,
                             int *children);

static int shape_linear(int v, int size, int fanout, int *parent, int *children)
{
    (void)fanout;
    if (v != 0) {
        *parent = 0;
        return 0;
    }
    *parent = -1;
    for (int c = 1; c < size; c++) {
        children[c - 1] = c;
    }
    return size - 1;
}

/* The size - 1 non-root nodes split into fanout contiguous runs, as equal as
 * possible; each run is a chain whose head is a child of the root. */
static int shape_chain(int v, int size, int fanout, int *parent, int *children)
{
    int n = size - 1;
    int n_chains = fanout < 1 ? 1 : fanout;
    int n_children = 0;
    int start = 1;

    if (n_chains > n) {
        n_chains = n;
    }
    *parent = -1;
    for (int j = 0; j < n_chains; j++) {
        int len = n / n_chains + (j < n % n_chains);
        int end = start + len;
        if (v == 0) {
            children[n_children++] = start;
        } else if (v >= start && v < end) {
            *parent = v == start ? 0 : v - 1;
            if (v + 1 < end) {
                children[n_children++] = v + 1;
            }
            return n_children;
        }
        start = end;
    }
    return n_children;
}

/* Pre-order balanced binary tree: a node with n nodes in its subtree has
 * its left child at v + 1 with ceil((n - 1) / 2) nodes, the right one after. */
static int shape_binary(int v, int size, int fanout, int *parent, int *children)
{
    int node = 0, n = size, up = -1;

    (void)fanout;
    while (node != v) {
        int n_left = n / 2;
        up = node;
        if (v < node + 1 + n_left) {
            node = node + 1;
            n = n_left;
        } else {
            node = node + 1 + n_left;
            n = n - 1 - n_left;
        }
    }
    *parent = up;
    int n_left = n / 2, n_children = 0;
    if (n_left > 0) {
        children[n_children++] = v + 1;
    }
    if (n - 1 - n_left > 0) {
        children[n_children++] = v + 1 + n_left;
    }
    return n_children;
}

/* Binomial: v's subtree is [v, v + lowbit(v)); its children are v + 2^i for
 * 2^i below lowbit(v). */
static int shape_binomial(int v, int size, int fanout, int *parent,
                          int *children)
{
    int n_children = 0;
    long mask = 1;

    (void)fanout;
    *parent = -1;
    for (; mask < size; mask <<= 1) {
        if (v & mask) {
            *parent = v - (int)mask;
            break;
        }
        if (v + mask < size) {
            children[n_children++] = v + (int)mask;
        }
    }
    return n_children;
}

/* k-nomial: v's children are v + j * k^i (j = 1 .. k - 1) for every digit
 * position i below v's lowest non-zero base-k digit. */
static int shape_knomial(int v, int size, int radix, int *parent, int *children)
{
    int n_children = 0;
    long weight = 1;

    *parent = -1;
    for (; weight < size; weight *= radix) {
        long digit = (v / weight) % radix;
        if (digit != 0) {
            *parent = v - (int)(digit * weight);
            break;
        }
        for (long j = 1; j < radix && v + j * weight < size; j++) {
            children[n_children++] = v + (int)(j * weight);
        }
    }
    return n_children;
}

static const topo_shape_fn topo_shapes[] = {
    [TOPO_LINEAR] = shape_linear,   [TOPO_CHAIN] = shape_chain,
    [TOPO_BINARY] = shape_binary,   [TOPO_BINOMIAL] = shape_binomial,
    [TOPO_KNOMIAL] = shape_knomial,
};

/* Ranks in the subtree of virtual rank v: in pre-order it ends where the
 * next sibling of v, or of its nearest ancestor that has one, begins.
 * scratch has room for size entries. */
static int shape_subtree_size(topo_shape_fn shape, int v, int size, int fanout,
                              int *scratch)
{
    for (int node = v; node != 0;) {
        int parent, grandparent;
        shape(node, size, fanout, &parent, scratch);
        int n = shape(parent, size, fanout, &grandparent, scratch);
        for (int i = 0; i < n; i++) {
            if (scratch[i] > node) {
                return scratch[i] - v;
            }
        }
        node = parent;
    }
    return size - v;
}

/* (x + shift) mod size for x in [0, size) and shift in [0, size], without
 * a division (a tree is made at every call). */
static int rotate(int x, int shift, int size)
{
    int sum = x + shift;
    return sum >= size ? sum - size : sum;
}

int topo_tree_create(struct topo_tree *tree, enum topo_shape shape, int fanout,
                     int rank, int size, int root, int is_in_order)
{
    int v, parent;

    tree->children = NULL;
    if (size < 1 || rank < 0 || rank >= size || root < 0 || root >= size ||
        (unsigned)shape >= sizeof topo_shapes / sizeof topo_shapes[0] ||
        (shape == TOPO_KNOMIAL && fanout < 2)) {
        return -1;
    }
    tree->children = size <= TOPO_SMALL_SIZE
                         ? tree->small
                         : malloc((size_t)size * sizeof *tree->children);
    if (!tree->children) {
        return -1;
    }
    if (shape == TOPO_LINEAR) {
        /* Children from rank size - 1 down: taking them in this order keeps
         * the root's operand in its place for any root. */
        tree->root = root;
        tree->parent = rank == root ? -1 : root;
        tree->n_children = 0;
        tree->self_pos = 0;
        for (int r = size - 1; rank == root && r >= 0; r--) {
            if (r != root) {
                tree->children[tree->n_children++] = r;
            }
        }
        if (rank == root) {
            tree->self_pos = size - 1 - root;
        }
        tree->n_subtree = rank == root ? size : 1;
        return 0;
    }
    if (is_in_order) {
        root = size - 1;
        v = size - 1 - rank;
    } else {
        v = rotate(rank, size - root, size);
    }
    tree->root = root;
    tree->self_pos = 0;
    tree->n_subtree =
        shape_subtree_size(topo_shapes[shape], v, size, fanout, tree->children);
    tree->n_children =
        topo_shapes[shape](v, size, fanout, &parent, tree->children);
    for (int i = 0; i < tree->n_children; i++) {
        int c = tree->children[i];
        tree->children[i] = is_in_order ? size - 1 - c : rotate(c, root, size);
    }
    if (parent < 0) {
        tree->parent = -1;
    } else {
        tree->parent =
            is_in_order ? size - 1 - parent : rotate(parent, root, size);
    }
    return 0;
}

void topo_tree_destroy(struct topo_tree *tree)
{
    if (tree) {
        if (tree->children != tree->small) {
            free(tree->children);
        }
        tree->children = NULL;
    }
}

int topo_depth(enum topo_shape shape, int fanout, int size)
{
    /* Parents of every rank of the tree rooted at 0; a parent always has a
     * smaller virtual rank (pre-order), so one pass fills the depths. */
    int *depth = calloc((size_t)size, sizeof *depth);
    int deepest = 0;
    if (!depth) {
        return -1;
    }
    for (int r = 1; r < size; r++) {
        struct topo_tree tree;
        if (topo_tree_create(&tree, shape, fanout, r, size, 0, 0) != 0) {
            free(depth);
            return -1;
        }
        depth[r] = depth[tree.parent] + 1;
        deepest = depth[r] > deepest ? depth[r] : deepest;
        topo_tree_destroy(&tree);
    }
    free(depth);
    return deepest;
}
