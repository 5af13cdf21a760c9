/* A tree's or quadtree's cuts moved between measured sizes
 * (decision_place_cuts): each cut goes where the methods on either side
 * cross; then each message cut's groups of procs choose (between_groups.c)
 * and each leaf can take a third method between two training sizes
 * (between_third.c). The choice at every training point stays. */
#include <stdlib.h>

#include "decision/between.h"
#include "util/grow.h"

/* The cut of node i on axis (0: procs, 1: message size), whose points lie
 * in (lo[axis], hi[axis]] on each, moved between its neighbouring training
 * values on that axis; the other axis's training values it covers are the
 * points that share it. */
static int place_cut(const struct between_placer *pl, int i, int axis,
                     const int64_t lo[2], const int64_t hi[2])
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    int other = 1 - axis, n_other = between_axis_size(grid, other);
    struct decision_node *node = &pl->d->nodes[i];
    int64_t cut = axis == 0 ? node->procs_cut : node->msg_cut;
    int a, b; /* the indexes of the values around the cut */
    if (!between_cut_neighbours(pl, axis, cut, lo, hi, &a, &b) ||
        (axis == 0 && !between_procs_cut_moves(grid->procs[a]))) {
        return 0;
    }
    struct between_diff *diff = malloc((size_t)n_other * sizeof *diff);
    int n = 0;
    if (!diff) {
        return -1;
    }
    for (int j = 0; j < n_other; j++) {
        int64_t w = between_axis_value(grid, other, j);
        long ca = between_cell_at(grid, axis, a, j),
             cb = between_cell_at(grid, axis, b, j);
        if (w <= lo[other] || w > hi[other] ||
            !train_is_training(pl->opt, pl->r, pl->g, ca, pl->skip) ||
            !train_is_training(pl->opt, pl->r, pl->g, cb, pl->skip)) {
            continue;
        }
        int k_lo = pl->to_run[decision_walk(pl->d, pl->dc,
                                            grid->procs[ca / grid->n_msgs],
                                            grid->msgs[ca % grid->n_msgs])];
        int k_hi = pl->to_run[decision_walk(pl->d, pl->dc,
                                            grid->procs[cb / grid->n_msgs],
                                            grid->msgs[cb % grid->n_msgs])];
        n += k_lo >= 0 && k_hi >= 0 && k_lo != k_hi &&
             between_add(pl->r, grid, ca, cb, k_lo, k_hi, &diff[n]);
    }
    if (n > 0) {
        int64_t moved = between_cut(between_axis_value(grid, axis, a),
                                    between_axis_value(grid, axis, b), n, diff);
        if (axis == 0) {
            node->procs_cut = (int32_t)moved;
        } else {
            node->msg_cut = moved;
        }
    }
    free(diff);
    return 0;
}

/* The ranges (procs, messages; (lo, hi]) of side `side` of node n of
 * kind (bit 1: procs above the cut, bit 0: messages above), from the
 * node's own; false when the node has no such side. */
static bool side_ranges(const struct decision_node *n, enum node_kind kind,
                        int side, const int64_t lo[2], const int64_t hi[2],
                        int64_t sub_lo[2], int64_t sub_hi[2])
{
    bool is_procs_hi = side & 2, is_msg_hi = side & 1;
    if ((kind == NODE_MSG && is_procs_hi) ||
        (kind == NODE_PROCS && is_msg_hi)) {
        return false;
    }
    sub_lo[0] = lo[0], sub_lo[1] = lo[1], sub_hi[0] = hi[0], sub_hi[1] = hi[1];
    if (kind != NODE_MSG) {
        *(is_procs_hi ? &sub_lo[0] : &sub_hi[0]) = n->procs_cut;
    }
    if (kind != NODE_PROCS) {
        *(is_msg_hi ? &sub_lo[1] : &sub_hi[1]) = n->msg_cut;
    }
    return true;
}

/* Node i and what is under it; the ranges come from the cuts as built. */
static int place_cuts(const struct between_placer *pl, int i, int64_t p_lo,
                      int64_t p_hi, int64_t m_lo, int64_t m_hi)
{
    const struct decision_node n = pl->d->nodes[i];
    enum node_kind kind = decision_node_kind(pl->d, i);
    if (kind == NODE_LEAF) {
        return 0;
    }
    const int64_t lo[2] = {p_lo, m_lo}, hi[2] = {p_hi, m_hi};
    if ((kind != NODE_MSG && place_cut(pl, i, 0, lo, hi)) ||
        (kind != NODE_PROCS && place_cut(pl, i, 1, lo, hi))) {
        return -1;
    }
    for (int side = 0; side < 4; side++) {
        int64_t sub_lo[2], sub_hi[2];
        if (side_ranges(&n, kind, side, lo, hi, sub_lo, sub_hi) &&
            place_cuts(pl, n.child + side, sub_lo[0], sub_hi[0], sub_lo[1],
                       sub_hi[1])) {
            return -1;
        }
    }
    return 0;
}

struct region_list {
    struct between_region *v;
    size_t n, cap;
};

/* The leaves and message-cut nodes under node i, children first (a
 * change to a node then never moves one still to be looked at). */
static int collect_regions(const struct decision *d, int i, int64_t p_lo,
                           int64_t p_hi, int64_t m_lo, int64_t m_hi,
                           struct region_list *out)
{
    const struct decision_node n = d->nodes[i];
    enum node_kind kind = decision_node_kind(d, i);
    const int64_t lo[2] = {p_lo, m_lo}, hi[2] = {p_hi, m_hi};
    for (int side = 0; side < 4 && kind != NODE_LEAF; side++) {
        int64_t sub_lo[2], sub_hi[2];
        if (side_ranges(&n, kind, side, lo, hi, sub_lo, sub_hi) &&
            collect_regions(d, n.child + side, sub_lo[0], sub_hi[0], sub_lo[1],
                            sub_hi[1], out)) {
            return -1;
        }
    }
    if (kind == NODE_PROCS) {
        return 0;
    }
    struct between_region *grown =
        grow(out->v, &out->cap, out->n + 1, sizeof *grown, 64);
    if (!grown) {
        return -1;
    }
    out->v = grown;
    out->v[out->n++] = (struct between_region){i, {p_lo, m_lo}, {p_hi, m_hi}};
    return 0;
}

/* Third methods in leaf region g, between every two neighbouring training
 * sizes it covers (the leaf splits in three, the next pair above). How
 * many, or -1 out of memory. */
static int leaf_third(const struct between_placer *pl, struct between_region g,
                      const struct between_site_room *room)
{
    struct decision *d = pl->d;
    const struct run_grid *grid = &pl->r->grids[pl->g];
    long c0, c1;
    int method = d->leaf_method[g.node], prev = -1, n_third = 0;
    for (int m = 0; m < grid->n_msgs; m++) {
        if (!between_has_training(pl, 1, m, g.lo, g.hi)) {
            continue; /* no training size here: the pair goes on */
        }
        struct between_site t = {0};
        if (prev >= 0) {
            t = between_site_at(pl, g.lo[0], g.hi[0], prev, m, room);
        }
        int third = prev >= 0 ? between_site_third(pl, &t, &c0, &c1) : -1;
        prev = m;
        if (third == -2) {
            return -1;
        }
        if (third < 0) {
            continue;
        }
        int below, rest, x, above;
        if (decision_add_split(d, g.node, false, c0, &below, &rest) ||
            decision_add_split(d, rest, false, c1, &x, &above)) {
            return -1;
        }
        decision_set_leaf(d, below, method);
        decision_set_leaf(d, x, third);
        decision_set_leaf(d, above, method);
        g.node = above;
        n_third++;
    }
    return n_third;
}

int decision_place_cuts(const struct train_options *opt,
                        const struct run_data *r, int g, int skip,
                        struct decision *d, int dc)
{
    int *to_run = malloc((size_t)d->n_methods * sizeof *to_run);
    if (!to_run) {
        fprintf(stderr, "autotune: out of memory\n");
        return -1;
    }
    for (int k = 0; k < d->n_methods; k++) {
        to_run[k] = run_data_find_method(r, d->methods[k]);
    }
    struct between_placer pl = {opt, r, g, skip, d, dc, to_run};
    struct region_list regions = {NULL, 0, 0};
    int n_procs = r->grids[g].n_procs;
    struct between_site_room room = {
        malloc((size_t)n_procs * sizeof *room.ps),
        malloc((size_t)n_procs * sizeof *room.k_lo),
        malloc((size_t)n_procs * sizeof *room.k_hi)};
    decision_drop_flat(d);
    int rc = room.ps && room.k_lo && room.k_hi
                 ? place_cuts(&pl, d->roots[dc], INT64_MIN, INT64_MAX,
                              INT64_MIN, INT64_MAX)
                 : -1;
    if (rc == 0) {
        rc = collect_regions(d, d->roots[dc], INT64_MIN, INT64_MAX, INT64_MIN,
                             INT64_MAX, &regions);
        int n_nodes = d->n_nodes;
        for (size_t i = 0; i < regions.n && rc >= 0; i++) {
            bool is_leaf =
                decision_node_kind(d, regions.v[i].node) == NODE_LEAF;
            int added = !is_leaf ? between_region_cut(&pl, regions.v[i], &room)
                        : opt->is_pair_only
                            ? 0
                            : leaf_third(&pl, regions.v[i], &room);
            rc = added < 0 ? -1 : rc + added;
        }
        /* a strip or third method above a subtree put its nodes after
         * that subtree */
        rc = rc >= 0 && d->n_nodes > n_nodes && decision_renumber(d) ? -1 : rc;
    }
    if (rc < 0) {
        fprintf(stderr, "autotune: out of memory\n");
    }
    free(regions.v);
    free(room.ps);
    free(room.k_lo);
    free(room.k_hi);
    free(to_run);
    return rc;
}
