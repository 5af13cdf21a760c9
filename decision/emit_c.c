/* A decision as self-contained C: nested if-statements as the tree is (tree
 * form), or the flattened form's tables (table form). The code compiles
 * cleanly with -Wall -Wextra -Werror and returns what decision_lookup does. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "decision/decision.h"
#include "decision/internal.h"

/* The method of every leaf under node, or -1 if they differ. */
static int uniform_method(const struct decision *d, int node)
{
    int children[4];
    int n = decision_children(d, node, children);
    if (n == 0) {
        return d->leaf_method[node];
    }
    int method = uniform_method(d, children[0]);
    for (int c = 1; c < n && method >= 0; c++) {
        method = uniform_method(d, children[c]) == method ? method : -1;
    }
    return method;
}

/* The values a branch can still see: lo < procs <= hi, likewise msg_bytes
 * ([0] procs, [1] msg_bytes). */
struct region {
    int64_t lo[2], hi[2];
};

/* One side of a test: a node, or the message-size half of a quadtree node
 * (children lo and hi split at msg_cut). */
struct side {
    int node;
    int lo, hi;
    int64_t msg_cut;
};

static void emit_node(const struct decision *d, FILE *f, int node,
                      struct region r, int indent);
static void emit_test(const struct decision *d, FILE *f, int attr, int64_t cut,
                      struct side a, struct side b, struct region r,
                      int indent);

static int side_method(const struct decision *d, struct side s)
{
    if (s.node >= 0) {
        return uniform_method(d, s.node);
    }
    int method = uniform_method(d, s.lo);
    return method == uniform_method(d, s.hi) ? method : -1;
}

static void emit_side(const struct decision *d, FILE *f, struct side s,
                      struct region r, int indent)
{
    if (s.node >= 0) {
        emit_node(d, f, s.node, r, indent);
    } else {
        emit_test(d, f, 1, s.msg_cut, (struct side){s.lo, 0, 0, 0},
                  (struct side){s.hi, 0, 0, 0}, r, indent);
    }
}

/* if (x <= cut) { a } b, where x is procs (attr 0) or msg_bytes (1). A test
 * the region already decides is left out (replicated rows and columns of a
 * reshaped quadtree repeat cuts), and two sides whose leaves all agree are
 * one return ([Pjesivac-Grbovic 2007b]: conditions of one color merged). */
static void emit_test(const struct decision *d, FILE *f, int attr, int64_t cut,
                      struct side a, struct side b, struct region r, int indent)
{
    static const char *const vars[] = {"procs", "msg_bytes"};
    if (cut >= r.hi[attr]) {
        emit_side(d, f, a, r, indent);
        return;
    }
    if (cut <= r.lo[attr]) {
        emit_side(d, f, b, r, indent);
        return;
    }
    int method = side_method(d, a);
    if (method >= 0 && method == side_method(d, b)) {
        fprintf(f, "%*sreturn %d; /* %s */\n", indent, "", method,
                d->methods[method]);
        return;
    }
    struct region below = r, above = r;
    below.hi[attr] = cut;
    above.lo[attr] = cut;
    fprintf(f, "%*sif (%s <= %" PRId64 "%s) {\n", indent, "", vars[attr], cut,
            attr ? "L" : "");
    emit_side(d, f, a, below, indent + 4);
    fprintf(f, "%*s}\n", indent, "");
    emit_side(d, f, b, above, indent);
}

static void emit_node(const struct decision *d, FILE *f, int node,
                      struct region r, int indent)
{
    const struct decision_node *n = &d->nodes[node];
    int c = n->child;
    switch (decision_node_kind(d, node)) {
    case NODE_LEAF:
        fprintf(f, "%*sreturn %d; /* %s */\n", indent, "", d->leaf_method[node],
                d->methods[d->leaf_method[node]]);
        break;
    case NODE_MSG:
        emit_test(d, f, 1, n->msg_cut, (struct side){c, 0, 0, 0},
                  (struct side){c + 1, 0, 0, 0}, r, indent);
        break;
    case NODE_PROCS:
        emit_test(d, f, 0, n->procs_cut, (struct side){c, 0, 0, 0},
                  (struct side){c + 2, 0, 0, 0}, r, indent);
        break;
    case NODE_QUAD:
        /* Four children: procs first, then the message size. */
        emit_test(d, f, 0, n->procs_cut,
                  (struct side){-1, c, c + 1, n->msg_cut},
                  (struct side){-1, c + 2, c + 3, n->msg_cut}, r, indent);
        break;
    }
}

static void emit_names(FILE *f, const char *prefix, const char *what,
                       const char *var, int n, const char *names, size_t stride)
{
    fprintf(f, "const char *%s_%s_name(int %s)\n{\n", prefix, what, var);
    fprintf(f, "    static const char *const names[] = {\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "        \"%s\",\n", names + (size_t)i * stride);
    }
    fprintf(f, "    };\n    return %s >= 0 && %s < %d ? names[%s] : 0;\n}\n",
            var, var, n, var);
}

/* ---- generated C, table form ---- */

/* The smallest unsigned C type holding 0..max. */
static const char *c_type(long max)
{
    return max <= 255     ? "unsigned char"
           : max <= 65535 ? "unsigned short"
                          : "int";
}

/* The interval of x (procs or msg_bytes) on axis a as statements setting
 * VAR; the arrays are named after VAR. */
static void emit_axis(FILE *f, const char *prefix,
                      const struct decision_axis *a, const char *x,
                      const char *var, int indent)
{
    if (a->n_buckets == 1) {
        fprintf(f, "%*sconst int %s = 0; /* no cuts */\n", indent, "", var);
        return;
    }
    int max = 0;
    for (int b = 0; b < a->n_buckets; b++) {
        max = a->first[b] > max ? a->first[b] : max;
    }
    fprintf(f, "%*sstatic const %s %s_first[%d] = {\n", indent, "", c_type(max),
            var, a->n_buckets);
    for (int b = 0; b < a->n_buckets; b++) {
        bool is_line_end = b % 16 == 15 || b == a->n_buckets - 1;
        fprintf(f, "%*s%" PRId32 ",%s", b % 16 ? 0 : indent + 4, "",
                a->first[b], is_line_end ? "\n" : " ");
    }
    fprintf(f, "%*s};\n", indent, "");
    if (a->n_inner) {
        fprintf(f,
                "%*s/* Cuts inside a bucket (padded with the largest "
                "value). */\n",
                indent, "");
        fprintf(f, "%*sstatic const long long %s_inner[%d][%d] = {\n", indent,
                "", var, a->n_buckets, a->n_inner);
        for (int b = 0; b < a->n_buckets; b++) {
            fprintf(f, "%*s{", indent + 4, "");
            for (int i = 0; i < a->n_inner; i++) {
                int64_t cut = a->inner[b * a->n_inner + i];
                /* -9223372036854775808LL is minus an unsigned constant. */
                if (cut == INT64_MIN) {
                    fprintf(f, "%s(-9223372036854775807LL - 1)", i ? ", " : "");
                } else {
                    fprintf(f, "%s%" PRId64 "LL", i ? ", " : "", cut);
                }
            }
            fprintf(f, "},\n");
        }
        fprintf(f, "%*s};\n", indent, "");
    }
    if (a->is_direct) {
        fprintf(f, "%*sunsigned long long %s_bucket = %s_clamp(%s, %d);\n",
                indent, "", var, prefix, x, a->n_buckets - 1);
    } else {
        fprintf(f, "%*sunsigned long long %s_bucket = %s_bucket(%s, %d, %d);\n",
                indent, "", var, prefix, x, a->bits, a->n_buckets - 1);
    }
    fprintf(f, "%*sint %s = %s_first[%s_bucket];\n", indent, "", var, var, var);
    if (a->n_inner) {
        fprintf(f,
                "%*sfor (int i = 0; i < %d; i++) {\n"
                "%*s%s += %s > %s_inner[%s_bucket][i];\n%*s}\n",
                indent, "", a->n_inner, indent + 4, "", var, x, var, var,
                indent, "");
    }
}

/* The decision of table coll as its flattened form: the interval of
 * procs and of msg_bytes on the tree's cuts, and the method of that
 * rectangle; the tree form when it has too many rectangles. */
static int emit_table(const struct decision *d, FILE *f, const char *prefix,
                      const struct decision_flat *flat, int coll, int indent)
{
    struct decision_cuts pc = {0}, mc = {0};
    if (!flat->cells) {
        const struct region everything = {{INT64_MIN, INT64_MIN},
                                          {INT64_MAX, INT64_MAX}};
        fprintf(f, "%*s/* Too many rectangles or close cuts for a table. */\n",
                indent, "");
        emit_node(d, f, d->roots[coll], everything, indent);
        return 0;
    }
    int rc = decision_root_cuts(d, d->roots[coll], &pc, &mc);
    if (rc == 0 && pc.n == 0 && mc.n == 0) {
        fprintf(f, "%*sreturn %d; /* %s */\n", indent, "", flat->cells[0],
                d->methods[flat->cells[0]]);
    } else if (rc == 0) {
        emit_axis(f, prefix, &flat->procs, "procs", "p", indent);
        emit_axis(f, prefix, &flat->msg, "msg_bytes", "m", indent);
        /* The columns' cuts, wrapped at 80 columns. */
        int col = fprintf(f, "%*s/* Columns: msg_bytes", indent, "");
        for (int m = 0; m < mc.n; m++) {
            char cut[32];
            int len = snprintf(cut, sizeof cut, " <= %" PRId64 ",", mc.v[m]);
            if (col + len > 78) {
                col = fprintf(f, "\n%*s *", indent, "") - 1;
            }
            col += fprintf(f, "%s", cut);
        }
        if (col > 70) {
            fprintf(f, "\n%*s *", indent, "");
        }
        fprintf(f, " above. */\n");
        fprintf(f, "%*sstatic const %s cells[%d][%d] = {\n", indent, "",
                c_type(d->n_methods - 1), pc.n + 1, mc.n + 1);
        for (int p = 0; p <= pc.n; p++) {
            fprintf(f, "%*s{", indent + 4, "");
            for (int m = 0; m <= mc.n; m++) {
                fprintf(f, "%s%d", m ? ", " : "",
                        flat->cells[p * flat->n_msg + m]);
            }
            if (p < pc.n) {
                fprintf(f, "}, /* procs <= %" PRId64 " */\n", pc.v[p]);
            } else {
                fprintf(f, "}, /* above */\n");
            }
        }
        fprintf(f, "%*s};\n", indent, "");
        fprintf(f, "%*sreturn cells[p][m];\n", indent, "");
    }
    free(pc.v);
    free(mc.v);
    return rc;
}

/* The helpers the table form's axes use, each emitted only if used (an
 * unused static function is a warning). */
static void emit_helpers(FILE *f, const char *prefix,
                         const struct decision_flat *flats, int n)
{
    bool is_direct = false, is_log = false;
    for (int c = 0; c < n; c++) {
        const struct decision_axis *axes[] = {&flats[c].procs, &flats[c].msg};
        for (int i = 0; flats[c].cells && i < 2; i++) {
            if (axes[i]->n_buckets == 1) {
                continue; /* no cuts: no bucket */
            }
            is_direct = is_direct || axes[i]->is_direct;
            is_log = is_log || !axes[i]->is_direct;
        }
    }
    if (is_direct) {
        fprintf(f,
                "/* min(x - 1, last), 0 for x <= 0: a bucket per value. */\n"
                "static unsigned long long %s_clamp(long long x, "
                "unsigned long long last)\n{\n"
                "    unsigned long long v = x > 0 ? (unsigned long long)x - 1 "
                ": 0;\n"
                "    return v < last ? v : last;\n}\n\n",
                prefix);
    }
    if (is_log) {
        fprintf(
            f,
            "/* Bucket of v = x - 1 (0 for x <= 0): v itself below 2^(bits + "
            "1),\n * then 2^bits buckets per doubling (v's top bits + 1 "
            "bits), last for all\n * above; cuts at powers of two fall "
            "between buckets. */\n"
            "static unsigned long long %s_bucket(long long x, int bits,\n"
            "    unsigned long long last)\n{\n"
            "    unsigned long long v = x > 0 ? (unsigned long long)x - 1 : "
            "0;\n"
            "#if defined(__GNUC__) || defined(__clang__)\n"
            "    int length = 64 - __builtin_clzll(v | 1);\n"
            "#else\n"
            "    int length = 1;\n"
            "    for (unsigned long long w = v >> 1; w; w >>= 1) {\n"
            "        length++;\n    }\n"
            "#endif\n"
            "    int shift = length - bits - 1;\n"
            "    shift = shift > 0 ? shift : 0;\n"
            "    unsigned long long b = ((unsigned long long)shift << bits) + "
            "(v >> shift);\n"
            "    return b < last ? b : last;\n}\n\n",
            prefix);
    }
}

/* PREFIX_table(collective, ppn): the table of the collective at exactly
 * that ppn, -1 when it has none there. */
static void emit_table_of(const struct decision *d, FILE *f, const char *prefix)
{
    fprintf(f,
            "int %s_table(int collective, int ppn)\n{\n"
            "    static const int ppn_values[%d] = {",
            prefix, d->n_ppn);
    for (int k = 0; k < d->n_ppn; k++) {
        fprintf(f, "%s%" PRId32, k ? ", " : "", d->ppn[k]);
    }
    fprintf(f,
            "};\n"
            "    if (collective < 0 || collective >= %d) {\n"
            "        return -1;\n    }\n"
            "    for (int k = 0; k < %d; k++) {\n"
            "        if (ppn_values[k] == ppn) {\n"
            "            return collective * %d + k;\n        }\n    }\n"
            "    return -1;\n}\n\n",
            d->n_colls, d->n_ppn, d->n_ppn);
}

/* The decision of table coll, in either form. */
static int emit_root(const struct decision *d, FILE *f, const char *prefix,
                     const struct decision_flat *flats, int coll, int indent)
{
    if (flats) {
        return emit_table(d, f, prefix, &flats[coll], coll, indent);
    }
    const struct region everything = {{INT64_MIN, INT64_MIN},
                                      {INT64_MAX, INT64_MAX}};
    emit_node(d, f, d->roots[coll], everything, indent);
    return 0;
}

int decision_emit_c(const struct decision *d, FILE *f, const char *prefix,
                    const char *comment, enum decision_c_form form)
{
    struct decision_flat *flats = NULL;
    int rc = 0, n_tables = d->n_colls * d->n_ppn;
    /* With one ppn value the table is the collective. */
    const char *var = d->n_ppn == 1 ? "collective" : "table";
    if (form == DECISION_C_TABLE) {
        flats = calloc((size_t)n_tables, sizeof *flats);
        if (!flats) {
            fprintf(stderr, "decision: out of memory\n");
            return -1;
        }
        for (int c = 0; c < n_tables && rc == 0; c++) {
            rc = decision_flat_build(d, c,
                                     &flats[c]); /* reports its own failure */
        }
        if (rc) {
            goto done;
        }
    }
    /* The table form where each table has one (see decision_flat_build). */
    bool is_table = flats != NULL;
    for (int c = 0; flats && c < n_tables; c++) {
        is_table = is_table && (flats[c].cells || d->roots[c] < 0);
    }
    fprintf(f,
            "/* %s\n * Generated by autotune (%s form); methods and "
            "collectives are numbered\n * as in %s_method_name and "
            "%s_collective_name. */\n",
            comment,
            is_table ? "table"
            : flats  ? "table and tree"
                     : "tree",
            prefix, prefix);
    if (d->n_ppn > 1) {
        fprintf(f, "int %s_table(int collective, int ppn);\n", prefix);
    }
    fprintf(f, "int %s_decide(int %s, int procs, long msg_bytes);\n", prefix,
            var);
    fprintf(f, "const char *%s_method_name(int method);\n", prefix);
    fprintf(f, "const char *%s_collective_name(int collective);\n\n", prefix);
    if (flats) {
        emit_helpers(f, prefix, flats, n_tables);
    }
    if (d->n_ppn > 1) {
        emit_table_of(d, f, prefix);
    }
    fprintf(f, "int %s_decide(int %s, int procs, long msg_bytes)\n{\n", prefix,
            var);
    fprintf(f, "    (void)%s;\n    (void)procs;\n    (void)msg_bytes;\n", var);
    bool is_shared = true;
    for (int c = 0; c < n_tables; c++) {
        is_shared = is_shared && d->roots[c] >= 0 && d->roots[c] == d->roots[0];
    }
    if (is_shared) {
        fprintf(f,
                "    if (%s < 0 || %s >= %d) {\n"
                "        return -1;\n    }\n",
                var, var, n_tables);
        rc = emit_root(d, f, prefix, flats, 0, 4);
    } else {
        for (int c = 0; c < n_tables && rc == 0; c++) {
            if (d->roots[c] < 0) {
                continue;
            }
            if (d->n_ppn == 1) {
                fprintf(f, "    if (collective == %d) { /* %s */\n", c,
                        d->colls[c]);
            } else {
                fprintf(f,
                        "    if (table == %d) { /* %s, %" PRId32
                        " ranks per node */\n",
                        c, d->colls[c / d->n_ppn], d->ppn[c % d->n_ppn]);
            }
            rc = emit_root(d, f, prefix, flats, c, 8);
            fprintf(f, "    }\n");
        }
        fprintf(f, "    return -1;\n");
    }
    fprintf(f, "}\n\n");
    emit_names(f, prefix, "method", "method", d->n_methods, d->methods[0],
               sizeof d->methods[0]);
    fprintf(f, "\n");
    emit_names(f, prefix, "collective", "collective", d->n_colls, d->colls[0],
               sizeof d->colls[0]);
done:
    for (int c = 0; flats && c < n_tables; c++) {
        decision_flat_free(&flats[c]);
    }
    free(flats);
    return rc || ferror(f) ? -1 : 0;
}
