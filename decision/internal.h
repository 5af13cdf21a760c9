/* Private to decision/: what the node array, its flattened form, its file
 * and its generated C share about nodes and cuts. */
#ifndef DECISION_INTERNAL_H
#define DECISION_INTERNAL_H

#include <stdint.h>

#include "decision/decision.h"

enum node_kind { NODE_LEAF, NODE_MSG, NODE_PROCS, NODE_QUAD };

enum node_kind decision_node_kind(const struct decision *d, int i);
/* The children of node i (none for a leaf); their count. */
int decision_children(const struct decision *d, int i, int out[4]);
/* Renumbers the nodes from the roots, each child block after its parent
 * (as a .dec file must list them), dropping the unreachable; 0 or -1. */
int decision_renumber(struct decision *d);
/* count consecutive new nodes; the first's index, or -1. */
int decision_add_nodes(struct decision *d, int count);
/* The flattened form of table; f->cells stays NULL when it has too many
 * cells (or methods for 16 bits) or the table has no root. Free with
 * decision_flat_free. */
int decision_flat_build(const struct decision *d, int table,
                        struct decision_flat *f);
void decision_flat_free(struct decision_flat *f);
/* Frees the flattened form (builders call it: it no longer matches). */
void decision_drop_flat(struct decision *d);

/* The sorted distinct cuts of one attribute under a node. */
struct decision_cuts {
    int64_t *v;
    int n;
    size_t cap;
};
/* The sorted distinct cuts of each attribute under root; a message cut at
 * INT64_MAX cuts nothing (no message lies above it) and is left out. The
 * caller frees procs->v and msgs->v. */
int decision_root_cuts(const struct decision *d, int root,
                       struct decision_cuts *procs, struct decision_cuts *msgs);

/* Frees a run's model (between_model.c; n_grids: the run's). */
struct run_model;
void run_model_destroy(struct run_model *m, int n_grids);

#endif
