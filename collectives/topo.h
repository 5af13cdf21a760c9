/* Trees for the collectives, built in virtual-rank space (virtual rank 0 is
 * the tree root) and returned in comm ranks. Every shape numbers its nodes in
 * pre-order: the subtree of virtual rank v is the range [v, v + n_v), and a
 * node's children come in increasing virtual rank. */
#ifndef COLLECTIVES_TOPO_H
#define COLLECTIVES_TOPO_H

enum topo_shape {
    TOPO_LINEAR,   /* the root is everyone's parent */
    TOPO_CHAIN,    /* fanout chains hanging from the root */
    TOPO_BINARY,   /* balanced binary tree */
    TOPO_BINOMIAL, /* binomial tree, children v + 1, v + 2, v + 4, ... */
    TOPO_KNOMIAL   /* k-nomial tree of radix fanout */
};

/* The tree as seen from one rank. For reductions the operands combine as
 * acc = operand op acc, taking first the children[0 .. self_pos - 1], then
 * the rank's own operand, then the remaining children; in-order trees are
 * built so that this order is the reverse of the rank order. */
/* Communicators up to this size keep a tree's children inside it. */
enum { TOPO_SMALL_SIZE = 32 };

/* children may point into the struct itself: a tree is never copied. */
struct topo_tree {
    int root;   /* comm rank of the tree root */
    int parent; /* comm rank, -1 at the root */
    int n_children;
    int *children; /* comm ranks; caller frees with topo_tree_destroy */
    int small[TOPO_SMALL_SIZE]; /* children's room on small communicators */
    int self_pos;
    int n_subtree; /* ranks in this rank's subtree, itself included: virtual
                      ranks [v, v + n_subtree), so a child's subtree runs
                      from it to the next child (or the end of this one) */
};

/* Builds the tree of shape seen by rank in a communicator of size ranks.
 * Rotated about root (virtual rank = rank - root mod size), or, when
 * is_in_order, rooted at rank size - 1 with virtual rank = size - 1 - rank:
 * then every subtree is a contiguous range of ranks ending at its root, which
 * non-commutative reductions need. TOPO_LINEAR is always rooted at root with
 * its children in decreasing rank and self_pos placing the root's operand in
 * rank order. fanout: chains of TOPO_CHAIN, radix of TOPO_KNOMIAL (>= 2);
 * ignored otherwise. Returns 0, or -1 on bad arguments or no memory. */
int topo_tree_create(struct topo_tree *tree, enum topo_shape shape, int fanout,
                     int rank, int size, int root, int is_in_order);
void topo_tree_destroy(struct topo_tree *tree);
/* Hops on the longest root-to-leaf path of shape over size ranks; -1 on no
 * memory. */
int topo_depth(enum topo_shape shape, int fanout, int size);

#endif
