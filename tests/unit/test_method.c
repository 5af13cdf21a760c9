/* Methods by name (collectives/method.h): the node-aware grammar parsed
 * and printed back, its errors, and the numbers the registry gives. */
#include "../check.h"
#include "collectives/method.h"

#include <string.h>

/* name parses as a method of collective and prints back as canonical. */
static void check_canonical(const char *collective, const char *name,
                            const char *canonical, int line)
{
    const struct coll_def *c = coll_find(collective);
    struct node_plan plan;
    char err[160], back[COLL_METHOD_MAX];
    if (node_plan_parse(c, name, &plan, err, sizeof err) != 0) {
        fprintf(stderr, "%s:%d: %s '%s' refused: %s\n", __FILE__, line,
                collective, name, err);
        check_failures++;
        return;
    }
    CHECK_INT(0, node_plan_format(c, &plan, back, sizeof back));
    if (strcmp(back, canonical) != 0) {
        fprintf(stderr, "%s:%d: '%s' printed as '%s', expected '%s'\n",
                __FILE__, line, name, back, canonical);
        check_failures++;
    }
}

/* name is refused as a method of collective with an error naming what. */
static void check_refused(const char *collective, const char *name,
                          const char *what, int line)
{
    const struct coll_def *c = coll_find(collective);
    struct node_plan plan;
    char err[160] = "";
    if (node_plan_parse(c, name, &plan, err, sizeof err) == 0 ||
        !strstr(err, what)) {
        fprintf(stderr,
                "%s:%d: %s '%s': expected an error naming '%s', got "
                "'%s'\n",
                __FILE__, line, collective, name, what, err);
        check_failures++;
    }
    CHECK_INT(-1, coll_find_method(c, name, NULL, 0));
}

int main(void)
{
    /* bcast: inter, down; binomial is segmented, linear is not */
    check_canonical("bcast", "node:binomial/8192+binomial/0",
                    "node:binomial/8192+binomial/0", __LINE__);
    check_canonical("bcast", "node:binomial+scatter_allgather/0",
                    "node:binomial/0+scatter_allgather", __LINE__);
    check_canonical("reduce", "node:linear+rabenseifner",
                    "node:linear/0+rabenseifner", __LINE__);
    check_canonical("allreduce", "node:binomial/1024+ring+pipeline/65536",
                    "node:binomial/1024+ring+pipeline/65536", __LINE__);
    check_canonical("allreduce", "node4:binomial+rabenseifner+binomial",
                    "node4:binomial/0+rabenseifner+binomial/0", __LINE__);
    check_canonical("barrier", "node:tree+bruck+tree", "node:tree+bruck+tree",
                    __LINE__);

    check_refused("bcast", "node:binomial",
                  "too few phases for a bcast node-aware method (inter bcast + "
                  "down bcast)",
                  __LINE__);
    check_refused("bcast", "node:binomial+binomial+binomial", "too many phases",
                  __LINE__);
    check_refused("bcast", "node:nosuch+binomial",
                  "no bcast algorithm 'nosuch'", __LINE__);
    check_refused("bcast", "node:scatter_allgather/64+binomial",
                  "takes no segment size", __LINE__);
    check_refused("bcast", "node:binomial/x+binomial", "not a size", __LINE__);
    check_refused("bcast", "node2:binomial+binomial", "only for allreduce",
                  __LINE__);
    /* alltoall: up gather, inter alltoall, down scatter */
    check_canonical("alltoall", "node:linear+pairwise+binomial/1024",
                    "node:linear+pairwise+binomial/1024", __LINE__);
    check_canonical("alltoall", "node:chain/512+bruck+linear_nb",
                    "node:chain/512+bruck+linear_nb", __LINE__);
    check_refused("alltoall", "node:linear+pairwise",
                  "(up gather + inter alltoall + down scatter)", __LINE__);
    check_refused("alltoall", "node:linear+pairwise/64+linear",
                  "alltoall pairwise takes no segment size", __LINE__);
    check_refused("alltoall", "node:linear+ring+linear",
                  "no alltoall algorithm 'ring'", __LINE__);
    check_refused("alltoall", "node2:linear+pairwise+linear",
                  "only for allreduce", __LINE__);
    /* K leaders: any K from 2 to 64, printed back as given */
    check_canonical("allreduce", "node2:linear+ring+linear",
                    "node2:linear/0+ring+linear/0", __LINE__);
    check_canonical("allreduce", "node64:binomial/0+ring+binomial/0",
                    "node64:binomial/0+ring+binomial/0", __LINE__);
    check_refused("allreduce", "node65:binomial+ring+binomial", "2 to 64",
                  __LINE__);
    check_refused("allreduce", "node3:binomial+ring", "too few phases",
                  __LINE__);
    check_refused("allreduce", "node1:binomial+ring+binomial", "2 to 64",
                  __LINE__);

    /* numbers: the table's first, then node-aware methods as first named,
     * one number per canonical name */
    const struct coll_def *bcast = coll_find("bcast");
    CHECK_INT(coll_find_alg(bcast, "linear"),
              coll_find_method(bcast, "linear", NULL, 0));
    int a = coll_find_method(bcast, "node:binomial+scatter_allgather", NULL, 0);
    int b =
        coll_find_method(bcast, "node:binomial/0+scatter_allgather", NULL, 0);
    int c = coll_find_method(bcast, "node:linear+linear", NULL, 0);
    CHECK(a >= bcast->n_algs);
    CHECK_INT(a, b);
    CHECK(c != a && c >= bcast->n_algs);
    CHECK(strcmp(coll_method_name(bcast, a),
                 "node:binomial/0+scatter_allgather") == 0);
    CHECK(coll_method_plan(bcast, a) != NULL);
    CHECK(coll_method_alg(bcast, a) == NULL);
    CHECK(coll_method_plan(bcast, 0) == NULL);
    CHECK_INT(0, coll_method_is_segmented(bcast, a));
    CHECK_INT(1,
              coll_method_is_segmented(bcast, coll_find_alg(bcast, "linear")));
    /* another collective numbers its own */
    const struct coll_def *reduce = coll_find("reduce");
    CHECK_INT(reduce->n_algs,
              coll_find_method(reduce, "node:linear+linear", NULL, 0));
    CHECK(node_is_method_name("node:x"));
    CHECK(node_is_method_name("node12:x"));
    CHECK(!node_is_method_name("nodes"));
    CHECK(!node_is_method_name("binomial"));
    return check_exit();
}
