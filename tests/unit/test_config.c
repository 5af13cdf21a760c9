/* Config integers beyond 32 bits are read whole (libconfig 1.5 keeps only
 * the low 32 bits of one without the L suffix), values beyond their key's
 * range are refused, and message sizes up to 2^50 bytes are accepted. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "tune/config.h"
#include "tune/grid.h"

static char path[] = "/tmp/test_config_XXXXXX";

/* Loads a config of the required keys with text appended (later keys
 * replace nothing: text holds the keys the case is about). */
static int load(const char *text, struct config *c)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        return -1;
    }
    fprintf(f, "output = \"/tmp/test_config_run\";\n%s\n", text);
    fclose(f);
    return config_load(path, c);
}

int main(void)
{
    struct config c;
    int nodes[4] = {0, 1, 2, 3}; /* one rank on each node */
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);

    /* 2^32 + 1024 as the largest size of a series: read whole */
    CHECK_INT(0, load("collectives = [\"bcast\"];\nprocs = [2];\n"
                      "message_sizes = { min = 1024; max = 4294968320; "
                      "factor = 2; };\nsegment_sizes = [0];",
                      &c));
    CHECK_INT(23, c.n_msgs);
    CHECK_INT(1024, c.msg_sizes[0]);
    CHECK_INT(4294967296L, c.msg_sizes[c.n_msgs - 1]);
    config_free(&c);

    /* a list mixing small and large sizes, hex, and the L suffix; numbers
     * in comments and strings are left alone */
    CHECK_INT(0, load("collectives = [\"bcast\"]; # 99999999999999999999\n"
                      "procs = [2, 3];\n"
                      "message_sizes = [1, 4294968320, 0x100000000, "
                      "8L, 1099511627776]; /* 1e999 */\n"
                      "segment_sizes = [0, 2147483647];",
                      &c));
    CHECK_INT(5, c.n_msgs);
    CHECK_INT(1, c.msg_sizes[0]);
    CHECK_INT(8, c.msg_sizes[1]);
    CHECK_INT(4294967296L, c.msg_sizes[2]);
    CHECK_INT(4294968320L, c.msg_sizes[3]);
    CHECK_INT(1099511627776L, c.msg_sizes[4]);
    CHECK_INT(2147483647, c.seg_sizes[1]);
    config_free(&c);

    /* values that do not fit are refused, not wrapped */
    static const char *const refused[] = {
        "collectives = [\"bcast\"];\nprocs = [4294967297];\n"
        "message_sizes = [1];\nsegment_sizes = [0];",
        "collectives = [\"bcast\"];\nprocs = [2];\n"
        "message_sizes = [99999999999999999999];\nsegment_sizes = [0];",
        "collectives = [\"bcast\"];\nprocs = [2];\n"
        "message_sizes = [1];\nsegment_sizes = [0, 2147483648];",
        "collectives = [\"bcast\"];\nprocs = [2];\n"
        "message_sizes = [1];\nsegment_sizes = [0];\n"
        "measure = { warmup = -4294967296; };",
        /* 2^51 */
        "collectives = [\"bcast\"];\nprocs = [2];\n"
        "message_sizes = { min = 1; max = 2251799813685248; factor = 2; };\n"
        "segment_sizes = [0];",
        /* a gather's root holds P blocks: 2^50 x 2^24 is past any buffer */
        "collectives = [\"gather\"];\nprocs = [16777216];\n"
        "message_sizes = [1125899906842624];\nsegment_sizes = [0];",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (load(refused[i], &c) == 0) {
            fprintf(stderr, "accepted:\n%s\n", refused[i]);
            check_failures++;
            config_free(&c);
        }
    }

    /* a live sweep counts bytes in int: up to 2^31 - 1, P blocks included */
    CHECK_INT(0, load("collectives = [\"bcast\", \"gather\"];\n"
                      "procs = [2, 4];\nmessage_sizes = [536870911];\n"
                      "segment_sizes = [0];",
                      &c));
    CHECK_INT(0, config_check_world(&c, 4, nodes));
    config_free(&c);
    CHECK_INT(0, load("collectives = [\"gather\"];\nprocs = [2, 4];\n"
                      "message_sizes = [536870912];\nsegment_sizes = [0];",
                      &c));
    CHECK(config_check_world(&c, 4, nodes) != 0);
    config_free(&c);

    /* alltoall at 8 B on 2 nodes of 4: the up gather's blocks are P x 8 =
     * 64 B, and binomial's leader receives two of them at once (128 B), so
     * a 64 B segment splits it: not the segment-0 method's twin, both are
     * candidates; at 256 B no message of that phase is longer (P blocks of
     * a node's 4 ranks: 4 x 64 B), so 256 is the twin of 0 */
    CHECK_INT(0, load("collectives = [\"alltoall\"];\nprocs = [8];\n"
                      "ranks_per_node = [4];\nmessage_sizes = [8];\n"
                      "segment_sizes = [0, 64, 256];\n"
                      "algorithms = { alltoall = [\"linear\", "
                      "\"node:binomial/*+linear+linear\"]; };",
                      &c));
    struct search_method methods[GRID_MAX_METHODS];
    CHECK_INT(3, c.n_node_methods[0]);
    CHECK_INT(3, grid_point_methods(&c, 0, 8, methods));
    config_free(&c);

    /* "*" at one segment size: the 7 segmented bcast algorithms at 1024,
     * scatter_allgather and scatter_allgather_ring (unsegmented) bare, as
     * "*" with a segment "*" gives them */
    CHECK_INT(0, load("collectives = [\"bcast\"];\nprocs = [8];\n"
                      "ranks_per_node = [4];\nmessage_sizes = [8];\n"
                      "segment_sizes = [0, 1024];\n"
                      "algorithms = { bcast = [\"node:*/1024+linear\"]; };",
                      &c));
    CHECK_INT(9, c.n_node_methods[0]);
    config_free(&c);

    unlink(path);
    return check_exit();
}
