/* At a message cut: one choice per communicator size. A message cut's node
 * covers many communicator sizes, and between the two training sizes around it
 * the methods cross, and third methods win, at different sizes for different
 * procs. Each training procs chooses alone (a group), as the exact table's
 * rows do; where the groups' choices differ, the sizes between the two training
 * sizes become a strip of their own, split by procs, neighbours that choose
 * alike sharing one piece. */
#include <stdlib.h>

#include "decision/between.h"

/* Node c becomes a message split at cut: below it what *below builds
 * (its index), above it what c was. */
static int split_above(struct decision *d, int c, int64_t cut, int *below)
{
    struct decision_node was = d->nodes[c];
    int32_t was_leaf = d->leaf_method[c];
    int above;
    if (decision_add_split(d, c, false, cut, below, &above)) {
        return -1;
    }
    d->nodes[above] = was;
    d->leaf_method[above] = was_leaf;
    return 0;
}

/* One group's choice over the sizes between training sizes a < b: its
 * lower side's method (lo, the decision's index) on (a, c0], third (-1:
 * none) on (c0, c1], its upper side's (hi) on (c1, b - 1]; the group
 * covers the procs up to p_hi of its side (0: the node's lower procs,
 * 1: the upper, of a quad). A free group had no procs to choose on: it
 * keeps the node's cut as placed, or takes whatever the others choose. */
struct group {
    int side, lo, hi, third;
    long c0, c1;
    int64_t p_hi;
    bool is_free;
};

/* Whether groups x and y give every size between a and b the same
 * role (the lower side's method, the same third, the upper side's); a
 * group whose two sides have one method and no third fits any without
 * a third. */
static bool same_roles(const struct group *x, const struct group *y)
{
    bool x_any = x->lo == x->hi && x->third < 0,
         y_any = y->lo == y->hi && y->third < 0;
    if (x->is_free || y->is_free) {
        return true;
    }
    if (x_any || y_any) {
        return x->third < 0 && y->third < 0;
    }
    return x->third == y->third && x->c0 == y->c0 &&
           (x->third < 0 || x->c1 == y->c1);
}

/* The choice of the n procs of site t from first: a third method (unless
 * only pairs are asked for), else the cut between its two methods; 0, or
 * -1 out of memory. */
static int group_choice(const struct between_placer *pl,
                        const struct between_site *t, int first, int n,
                        struct group *out)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    struct between_site sub = {t->ma,         t->mb,           n,
                               t->ps + first, t->k_lo + first, t->k_hi + first};
    long a = grid->msgs[t->ma], b = grid->msgs[t->mb];
    out->third = -1;
    out->c0 = out->c1 = a;
    if (!pl->opt->is_pair_only) {
        long c0, c1;
        int third = between_site_third(pl, &sub, &c0, &c1);
        if (third == -2) {
            return -1;
        }
        if (third >= 0) {
            out->third = third;
            out->c0 = c0;
            out->c1 = c1;
            return 0;
        }
    }
    if (sub.k_lo[0] == sub.k_hi[0]) {
        return 0;
    }
    struct between_diff *diff = malloc((size_t)n * sizeof *diff);
    int n_diff = 0;
    if (!diff) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long ca = (long)sub.ps[i] * grid->n_msgs + t->ma;
        n_diff += between_add(pl->r, grid, ca, ca + (t->mb - t->ma),
                              sub.k_lo[i], sub.k_hi[i], &diff[n_diff]);
    }
    out->c0 = out->c1 = n_diff > 0 ? between_cut(a, b, n_diff, diff) : a;
    free(diff);
    return 0;
}

/* Whether the decision's method at msg_bytes changes between procs v and
 * v + 1. */
static bool changes_after(const struct between_placer *pl, int64_t v,
                          long msg_bytes)
{
    return decision_walk(pl->d, pl->dc, (int)v, msg_bytes) !=
           decision_walk(pl->d, pl->dc, (int)v + 1, msg_bytes);
}

static int compare_int64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Appends to out the groups of side `side`, the procs (p_lo, p_hi],
 * between message indexes ma < mb: the intervals of procs that end at each
 * training procs (between_site_at's: timed at both) and where the
 * decision's methods at either size change (just past a node's procs cut),
 * each choosing on its training procs, or free when it has none, keeping
 * the cut `placed`. One choice over several procs (the procs that share
 * both sizes' methods, until session 27) took a third method that wins at
 * some of them where it loses at the others (robust-04's bcast at 7 ranks,
 * 8 KiB: chain/0, 22.6 % behind binary/4096, for 6 to 9 ranks); the
 * procs cut by neighbouring methods' crossings already holds each procs
 * alone there. room->ps: scratch of the grid's procs. How many (at most
 * d->n_nodes + 1 + the grid's procs), or -1. */
static int side_groups(const struct between_placer *pl, int side, int64_t p_lo,
                       int64_t p_hi, int ma, int mb, long placed,
                       const struct between_site_room *room, struct group *out)
{
    const struct run_grid *grid = &pl->r->grids[pl->g];
    const struct decision *d = pl->d;
    long a = grid->msgs[ma], b = grid->msgs[mb];
    struct between_site t = between_site_at(pl, p_lo, p_hi, ma, mb, room);
    int64_t *ends = malloc(((size_t)d->n_nodes + 1 + t.n) * sizeof *ends);
    if (!ends) {
        return -1;
    }
    int n_ends = 0;
    for (int i = 0; i < t.n; i++) {
        ends[n_ends++] = grid->procs[t.ps[i]];
    }
    for (int i = 0; i < d->n_nodes; i++) {
        enum node_kind kind = decision_node_kind(d, i);
        int64_t c = d->nodes[i].procs_cut;
        if ((kind == NODE_PROCS || kind == NODE_QUAD) && c > p_lo && c < p_hi &&
            (changes_after(pl, c, a) || changes_after(pl, c, b))) {
            ends[n_ends++] = c;
        }
    }
    qsort(ends, (size_t)n_ends, sizeof *ends, compare_int64);
    ends[n_ends++] = p_hi;
    int n = 0, first = 0;
    for (int e = 0; e < n_ends; e++) {
        if (e > 0 && ends[e] == ends[e - 1]) {
            continue;
        }
        /* a procs value inside: its end, or just above its start */
        int64_t from = e > 0 ? ends[e - 1] : p_lo;
        int at = (int)(ends[e] != INT64_MAX ? ends[e]
                       : from != INT64_MIN  ? from + 1
                                            : 1);
        int last = first;
        while (last < t.n && grid->procs[t.ps[last]] <= ends[e]) {
            last++;
        }
        struct group *g = &out[n++];
        *g = (struct group){side,
                            decision_walk(d, pl->dc, at, a),
                            decision_walk(d, pl->dc, at, b),
                            -1,
                            placed,
                            placed,
                            ends[e],
                            last == first};
        if (last > first && group_choice(pl, &t, first, last - first, g)) {
            free(ends);
            return -1;
        }
        first = last;
    }
    free(ends);
    return n;
}

/* Group g's pieces over the sizes (a, b - 1]: method[i] up to to[i],
 * none empty, no two neighbours the same method. How many. */
static int group_pieces(const struct group *g, long a, long b, int method[3],
                        long to[3])
{
    const int m[3] = {g->lo, g->third, g->hi};
    const long end[3] = {g->c0, g->c1, b - 1};
    long from = a;
    int n = 0;
    for (int i = 0; i < 3; i++) {
        if (m[i] < 0 || end[i] <= from) {
            continue; /* no third, or an empty piece */
        }
        n -= n > 0 && method[n - 1] == m[i];
        method[n] = m[i];
        to[n++] = end[i];
        from = end[i];
    }
    return n;
}

static bool same_pieces(const struct group *x, const struct group *y, long a,
                        long b)
{
    int mx[3], my[3];
    long tx[3], ty[3];
    int n = group_pieces(x, a, b, mx, tx);
    if (n != group_pieces(y, a, b, my, ty)) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (mx[i] != my[i] || tx[i] != ty[i]) {
            return false;
        }
    }
    return true;
}

/* Node x gives the sizes (a, b - 1] group g's pieces. */
static int build_pieces(struct decision *d, int x, const struct group *g,
                        long a, long b)
{
    int method[3];
    long to[3];
    int n = group_pieces(g, a, b, method, to);
    for (int i = 0; i + 1 < n; i++) {
        int below, above;
        if (decision_add_split(d, x, false, to[i], &below, &above)) {
            return -1;
        }
        decision_set_leaf(d, below, method[i]);
        x = above;
    }
    decision_set_leaf(d, x, method[n - 1]);
    return 0;
}

/* Node i's message cut between training sizes a < b, given its groups:
 * when they all give the sizes between the same roles, its cut moves and
 * a third method wraps each upper side; else the strip (a, b - 1] of
 * each upper side splits by group. How many third methods, or -1. */
static int place_groups(struct decision *d, int i, struct group *groups,
                        int n_groups, long a, long b)
{
    struct decision_node n = d->nodes[i];
    int n_sides = decision_node_kind(d, i) == NODE_QUAD ? 2 : 1;
    const struct group *ref = NULL;
    bool is_one = true;
    for (int k = 0; k < n_groups && !ref; k++) {
        const struct group *g = &groups[k];
        ref = g->is_free || (g->lo == g->hi && g->third < 0) ? NULL : g;
    }
    for (int k = 0; k < n_groups && ref; k++) {
        is_one &= same_roles(&groups[k], ref);
    }
    if (is_one) {
        if (!ref) {
            return 0; /* nothing to move: as placed */
        }
        d->nodes[i].msg_cut = ref->c0;
        for (int s = 0; s < n_sides && ref->third >= 0; s++) {
            int below;
            if (split_above(d, n.child + 1 + 2 * s, ref->c1, &below)) {
                return -1;
            }
            decision_set_leaf(d, below, ref->third);
        }
        return ref->third >= 0;
    }
    /* neighbours that give the same pieces become one */
    int n_kept = 0, n_third = 0;
    for (int k = 0; k < n_groups; k++) {
        struct group *last = n_kept > 0 ? &groups[n_kept - 1] : NULL;
        if (last && last->side == groups[k].side &&
            same_pieces(last, &groups[k], a, b)) {
            last->p_hi = groups[k].p_hi;
            continue;
        }
        n_third += groups[k].third >= 0;
        groups[n_kept++] = groups[k];
    }
    d->nodes[i].msg_cut = a;
    for (int k = 0, x = -1, side = -1; k < n_kept; k++) {
        const struct group *g = &groups[k];
        if (g->side != side &&
            split_above(d, n.child + 1 + 2 * g->side, b - 1, &x)) {
            return -1;
        }
        side = g->side;
        bool is_last = k + 1 == n_kept || groups[k + 1].side != side;
        int below = x, above;
        if (!is_last &&
            decision_add_split(d, x, true, g->p_hi, &below, &above)) {
            return -1;
        }
        if (build_pieces(d, below, g, a, b)) {
            return -1;
        }
        x = is_last ? -1 : above;
    }
    return n_third;
}

/* The message cut of region reg, between the training sizes a < b around
 * it: the groups of procs of its upper side (both, a quad's) choose;
 * when they all choose the same, the cut moves to the lower method's end
 * and a third method goes above it, else the strip (a, b - 1] of each
 * upper side splits by group. How many third methods (one per group that
 * has one), or -1. */
int between_region_cut(const struct between_placer *pl,
                       struct between_region reg,
                       const struct between_site_room *room)
{
    struct decision *d = pl->d;
    enum node_kind kind = decision_node_kind(d, reg.node);
    struct decision_node n = d->nodes[reg.node];
    int ma, mb, n_groups = 0, n_sides = kind == NODE_QUAD ? 2 : 1;
    if (!between_cut_neighbours(pl, 1, n.msg_cut, reg.lo, reg.hi, &ma, &mb)) {
        return 0;
    }
    const struct run_grid *grid = &pl->r->grids[pl->g];
    long a = grid->msgs[ma], b = grid->msgs[mb];
    if (b - a < 2) {
        return 0; /* no size between them */
    }
    /* each side's intervals end at a procs cut or at its end */
    struct group *groups = malloc(
        2 * ((size_t)d->n_nodes + 1 + (size_t)grid->n_procs) * sizeof *groups);
    if (!groups) {
        return -1;
    }
    for (int s = 0; s < n_sides; s++) {
        int64_t p_lo = s == 0 ? reg.lo[0] : n.procs_cut;
        int64_t p_hi = s == 1 || kind != NODE_QUAD ? reg.hi[0] : n.procs_cut;
        int added = side_groups(pl, s, p_lo, p_hi, ma, mb, n.msg_cut, room,
                                groups + n_groups);
        if (added < 0) {
            free(groups);
            return -1;
        }
        n_groups += added;
    }
    int rc = place_groups(d, reg.node, groups, n_groups, a, b);
    free(groups);
    return rc;
}
