/* The model's node-aware methods: the schedule composed from the phases'
 * flat algorithms at 2 nodes x 4 ranks has each phase's messages, bytes
 * and reductions (counted by hand from the algorithms' ideas), runs a
 * rank's phases in order, and is not applicable where the sweep says so. */
#include "../check.h"
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* What a schedule does: sends (to another rank) and their bytes, those
 * between two nodes at ppn ranks per node, and local reductions. */
struct tally {
    long n_sends, send_bytes, n_inter, inter_bytes, n_recvs, recv_bytes;
    long n_reduces;
};

static struct tally count_ops(const struct model_schedule *s, int ppn)
{
    struct tally t = {0};
    for (int r = 0; r < s->n_ranks; r++) {
        for (int i = 0; i < s->ranks[r].n_ops; i++) {
            const struct model_op *op = &s->ranks[r].ops[i];
            if (op->kind == RECORD_ISEND && op->peer != r) {
                t.n_sends++;
                t.send_bytes += op->bytes;
                if (op->peer / ppn != r / ppn) {
                    t.n_inter++;
                    t.inter_bytes += op->bytes;
                }
            } else if (op->kind == RECORD_IRECV && op->peer != r) {
                t.n_recvs++;
                t.recv_bytes += op->bytes;
            } else if (op->kind == RECORD_REDUCE) {
                t.n_reduces++;
            }
        }
    }
    return t;
}

static void check_tally(const char *coll, const char *method,
                        struct tally expected)
{
    struct model_schedule *s = NULL;
    CHECK_INT(0, model_record_method(coll, method, 8, 4, 1000, 0, 1, &s));
    if (!s) {
        return;
    }
    struct tally t = count_ops(s, 4);
    if (t.n_sends != expected.n_sends || t.send_bytes != expected.send_bytes ||
        t.n_inter != expected.n_inter ||
        t.inter_bytes != expected.inter_bytes ||
        t.n_recvs != expected.n_sends || t.recv_bytes != expected.send_bytes ||
        t.n_reduces != expected.n_reduces) {
        fprintf(stderr,
                "%s %s: sends %ld (%ld B), inter %ld (%ld B), receives %ld "
                "(%ld B), reductions %ld; expected %ld (%ld B), %ld (%ld B), "
                "%ld (%ld B), %ld\n",
                coll, method, t.n_sends, t.send_bytes, t.n_inter, t.inter_bytes,
                t.n_recvs, t.recv_bytes, t.n_reduces, expected.n_sends,
                expected.send_bytes, expected.n_inter, expected.inter_bytes,
                expected.n_sends, expected.send_bytes, expected.n_reduces);
        check_failures++;
    }
    long n_intra, n_inter;
    model_schedule_split(s, 4, &n_intra, &n_inter);
    CHECK_INT(expected.n_inter, n_inter);
    CHECK_INT(expected.n_sends - expected.n_inter, n_intra);
    model_schedule_destroy(s);
}

/* Ranks 0..3 on node 0 (leader 0), 4..7 on node 1 (leader 4), 1000 B. */
static void test_tallies(void)
{
    /* bcast: the leaders' binomial on 2 is one message 0 -> 4; each node's
     * binomial on 4 is 3 messages (0 -> 2, 0 -> 1, 2 -> 3): 1 + 2 x 3. */
    check_tally("bcast", "node:binomial+binomial",
                (struct tally){.n_sends = 7,
                               .send_bytes = 7000,
                               .n_inter = 1,
                               .inter_bytes = 1000,
                               .n_reduces = 0});
    /* The leaders' linear bcast is the same one message; each node's
     * linear is 3 from the leader. */
    check_tally("bcast", "node:linear+linear",
                (struct tally){.n_sends = 7,
                               .send_bytes = 7000,
                               .n_inter = 1,
                               .inter_bytes = 1000});
    /* reduce: each node's binomial on 4 is 3 messages, each reduced once
     * where it lands; the leaders' is 4 -> 0, reduced at 0: 2 x 3 + 1. */
    check_tally("reduce", "node:binomial+binomial",
                (struct tally){.n_sends = 7,
                               .send_bytes = 7000,
                               .n_inter = 1,
                               .inter_bytes = 1000,
                               .n_reduces = 7});
    /* allreduce: the node reduce (6 messages, 6 reductions), the leaders'
     * recursive doubling on 2 (0 <-> 4: 2 messages, each reduced), the
     * node bcast (6 messages). */
    check_tally("allreduce", "node:binomial+recursive_doubling+binomial",
                (struct tally){.n_sends = 14,
                               .send_bytes = 14000,
                               .n_inter = 2,
                               .inter_bytes = 2000,
                               .n_reduces = 8});
    /* allgather: each node's linear gather is 3 blocks of 1000 B; the
     * leaders' ring on 2 swaps node blocks of 4 x 1000 B; each node's
     * binomial bcast moves all 8 blocks 3 times: 6 + 2 + 6 messages,
     * 6000 + 8000 + 48000 B. */
    /* two leaders: each node's ranks 0 and 1 lead a slice of 500 B; per
     * slice, each node's binomial reduce on 4 rooted at the slice's rank
     * (3 messages, each reduced), the two leaders' recursive doubling (2
     * messages, each reduced), each node's binomial bcast from that rank
     * (3): twice the one-leader messages at half the bytes, over 4 + 4
     * (ranks 0 <-> 4 and 1 <-> 5) inter-node messages of 500 B. */
    check_tally("allreduce", "node2:binomial+recursive_doubling+binomial",
                (struct tally){.n_sends = 28,
                               .send_bytes = 14000,
                               .n_inter = 4,
                               .inter_bytes = 2000,
                               .n_reduces = 16});
    check_tally("allgather", "node:linear+ring+binomial",
                (struct tally){.n_sends = 14,
                               .send_bytes = 62000,
                               .n_inter = 2,
                               .inter_bytes = 8000});
}

/* Each rank runs its phases in order: leader 4's bcast receives from 0
 * (the leaders' phase) before it sends on its node; a reduce's node phase
 * comes before the leaders' (4 receives from 5 and 6 before sending to
 * 0). */
static void test_order(void)
{
    struct model_schedule *s = NULL;
    CHECK_INT(0, model_record_method("bcast", "node:binomial+binomial", 8, 4,
                                     1000, 0, 1, &s));
    if (s) {
        const struct model_rank_ops *r4 = &s->ranks[4];
        CHECK(r4->n_ops > 0 && r4->ops[0].kind == RECORD_IRECV &&
              r4->ops[0].peer == 0);
        int n_sends = 0, is_node_peer = 1;
        for (int i = 0; i < r4->n_ops; i++) {
            if (r4->ops[i].kind == RECORD_ISEND) {
                n_sends++;
                is_node_peer &= r4->ops[i].peer >= 5 && r4->ops[i].peer <= 7;
            }
        }
        CHECK_INT(2, n_sends);
        CHECK(is_node_peer);
        /* rank 7 hears from 6 only: a node's rank 3 */
        CHECK(s->ranks[7].n_ops > 0 && s->ranks[7].ops[0].peer == 6);
        model_schedule_destroy(s);
    }
    s = NULL;
    CHECK_INT(0, model_record_method("reduce", "node:binomial+binomial", 8, 4,
                                     1000, 0, 1, &s));
    if (s) {
        const struct model_rank_ops *r4 = &s->ranks[4];
        int last_recv = -1, first_send = -1;
        for (int i = 0; i < r4->n_ops; i++) {
            if (r4->ops[i].kind == RECORD_IRECV) {
                last_recv = i;
                CHECK(r4->ops[i].peer == 5 || r4->ops[i].peer == 6);
            }
            if (r4->ops[i].kind == RECORD_ISEND && first_send < 0) {
                first_send = i;
                CHECK_INT(0, r4->ops[i].peer);
            }
        }
        CHECK(last_recv >= 0 && first_send > last_recv);
        model_schedule_destroy(s);
    }
}

/* Two leaders: slice 1's leaders are each node's rank 1 (ranks 1 and 5
 * exchange, never 0 and 5), slice 0's its rank 0. */
static void test_two_leaders(void)
{
    struct model_schedule *s = NULL;
    CHECK_INT(0, model_record_method("allreduce",
                                     "node2:binomial+recursive_doubling+"
                                     "binomial",
                                     8, 4, 1000, 0, 1, &s));
    if (s) {
        int to_1 = 0, to_0 = 0;
        for (int i = 0; i < s->ranks[5].n_ops; i++) {
            const struct model_op *op = &s->ranks[5].ops[i];
            to_1 += op->kind == RECORD_ISEND && op->peer == 1;
            to_0 += op->kind == RECORD_ISEND && op->peer == 0;
        }
        CHECK_INT(1, to_1);
        CHECK_INT(0, to_0);
        model_schedule_destroy(s);
    }
}

/* Where the sweep does not time a node-aware method, the model says it
 * does not apply: one rank per node, one node, uneven nodes for a
 * composition of blocks, more leaders than a node's ranks. A flat name records
 * as before; an unknown phase is an error. */
static void test_not_applicable(void)
{
    struct model_schedule *s = NULL;
    const char *bcast = "node:binomial+binomial";
    CHECK_INT(1, model_record_method("bcast", bcast, 8, 1, 1000, 0, 1, &s));
    CHECK_INT(1, model_record_method("bcast", bcast, 8, 8, 1000, 0, 1, &s));
    CHECK_INT(1, model_record_method("allgather", "node:linear+ring+binomial",
                                     7, 4, 1000, 0, 1, &s));
    /* K leaders need K ranks on every node (the last, 3, too) */
    CHECK_INT(1, model_record_method("allreduce",
                                     "node4:binomial+recursive_doubling+"
                                     "binomial",
                                     7, 4, 1000, 0, 1, &s));
    CHECK_INT(1, model_record_method("allreduce",
                                     "node4:binomial+recursive_doubling+"
                                     "binomial",
                                     8, 2, 1000, 0, 1, &s));
    CHECK(s == NULL);
    /* uneven nodes (4 and 3 ranks) for a bcast: 1 + 3 + 2 messages */
    CHECK_INT(0, model_record_method("bcast", bcast, 7, 4, 1000, 0, 1, &s));
    if (s) {
        CHECK_INT(6, count_ops(s, 4).n_sends);
        model_schedule_destroy(s);
        s = NULL;
    }
    CHECK_INT(0,
              model_record_method("bcast", "binomial", 8, 4, 1000, 0, 1, &s));
    if (s) {
        CHECK_INT(7, count_ops(s, 4).n_sends);
        model_schedule_destroy(s);
        s = NULL;
    }
    fprintf(stderr, "(an error line is expected next)\n");
    CHECK_INT(-1, model_record_method("bcast", "node:binomial+nosuch", 8, 4,
                                      1000, 0, 1, &s));
}

int main(void)
{
    test_tallies();
    test_order();
    test_two_leaders();
    test_not_applicable();
    return check_exit();
}
