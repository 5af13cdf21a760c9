/* The profile's text form: what profile_write writes, profile_load reads
 * back (arrival and offsets lines too, and a profile without them as
 * before); points sort costliest first; each damaged line is refused with
 * path:line; the arrival shapes' rules on hand-made offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "store/profile.h"

static char path[] = "/tmp/test_profile_XXXXXX";

static const struct profile_arrival spread = {21, 30.0, 30.5, PROFILE_UNIFORM},
                                    none = {0, 0, 0, PROFILE_TOGETHER};

static struct profile_point point(const char *collective, int procs,
                                  int per_node, long msg_bytes, long calls,
                                  double seconds, struct profile_arrival a)
{
    struct profile_point pt = {.procs = procs,
                               .per_node = per_node,
                               .msg_bytes = msg_bytes,
                               .calls = calls,
                               .seconds = seconds,
                               .arrival = a};
    snprintf(pt.collective, sizeof pt.collective, "%s", collective);
    return pt;
}

static void write_text(const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Loads text; expects failure with this message on stderr's first line
 * (after "path:"), or success when want is NULL. */
static void expect_load(const char *text, const char *want)
{
    char err_path[] = "/tmp/test_profile_err_XXXXXX", line[512] = "";
    int fd = mkstemp(err_path);
    CHECK(fd >= 0);
    write_text(text);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    struct profile *p = NULL;
    int rc = profile_load(path, &p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(err_path, "r");
    if (f && !fgets(line, sizeof line, f)) {
        line[0] = '\0';
    }
    if (f) {
        fclose(f);
    }
    close(fd);
    unlink(err_path);
    line[strcspn(line, "\n")] = '\0';
    if (!want) {
        CHECK_INT(0, rc);
    } else {
        char expected[1024];
        snprintf(expected, sizeof expected, "%s:%s", path, want);
        CHECK_INT(-1, rc);
        CHECK_STR(expected, line);
    }
    profile_destroy(p);
}

/* p written to path and read back (caller frees; NULL on failure). */
static struct profile *write_and_load(const struct profile *p)
{
    struct profile *back = NULL;
    FILE *f = fopen(path, "w");
    CHECK(f && profile_write(f, p) == 0);
    if (f) {
        fclose(f);
    }
    CHECK_INT(0, profile_load(path, &back));
    return back;
}

/* Arrival and offsets lines: written after their point and read back (the
 * offsets value for value, 3 decimals); a profile without them (as before
 * they existed) reads as before; each damaged one is path:line; the shapes
 * of hand-made arrivals. */
static void check_arrivals(void)
{
    double vectors[] = {0, 10.5, 20, 30.25, 30.25, 0, 10.5, 20};
    struct profile_point points[] = {
        point("bcast", 4, 1, 8, 21, 0.5, spread),
        point("allreduce", 4, 1, 8, 20, 0.25, none),
    };
    points[0].n_vectors = 2;
    points[0].vectors_us = vectors;
    snprintf(points[0].next_collective, sizeof points[0].next_collective,
             "allgather");
    points[0].next_msg_bytes = 65536;
    points[0].next_gap_us = 12.5;
    struct profile p = {.n_ranks = 4, .n_points = 2, .points = points};
    struct profile *back = write_and_load(&p);
    if (back && back->n_points == 2) {
        const struct profile_arrival *a = &back->points[0].arrival;
        CHECK_INT(21, a->sampled);
        CHECK(a->spread_median_us == 30.0 && a->spread_p90_us == 30.5);
        CHECK_STR("uniform", profile_shape_name(a->shape));
        CHECK_INT(2, back->points[0].n_vectors);
        for (int i = 0; back->points[0].vectors_us && i < 8; i++) {
            CHECK(back->points[0].vectors_us[i] == vectors[i]);
        }
        CHECK_STR("allgather", back->points[0].next_collective);
        CHECK_INT(65536, back->points[0].next_msg_bytes);
        CHECK(back->points[0].next_gap_us == 12.5);
        CHECK_INT(0, back->points[1].arrival.sampled); /* none written */
        CHECK_INT(0, back->points[1].n_vectors);
        CHECK_STR("", back->points[1].next_collective);
        CHECK_INT(9, back->points[1].line); /* after offsets and next */
    }
    profile_destroy(back);

    /* A profile of before: the same points, no arrivals. */
    write_text("autotune-profile 1\nranks 4\n"
               "# collective procs per_node msg_bytes calls seconds\n"
               "allgather 16 1 65536 40 3.90731427\n"
               "reduce 16 1 65536 8 0.0813724\n");
    CHECK_INT(0, profile_load(path, &back));
    if (back && back->n_points == 2) {
        CHECK_STR("allgather", back->points[0].collective);
        CHECK_INT(65536, back->points[0].msg_bytes);
        CHECK_INT(40, back->points[0].calls);
        CHECK(back->points[0].seconds == 3.90731427);
        CHECK_STR("reduce", back->points[1].collective);
        CHECK_INT(8, back->points[1].calls);
        CHECK_INT(0, back->points[0].arrival.sampled);
        CHECK_INT(0, back->points[1].arrival.sampled);
    }
    profile_destroy(back);

    const char *head = "autotune-profile 1\nranks 4\nbcast 4 1 8 1 0\n";
    char text[512];
    struct {
        const char *line, *want;
    } bad[] = {
        {"arrival 1 2 3", "4: expected 'arrival calls_sampled "
                          "spread_median_us spread_p90_us shape'"},
        {"arrival 1 2 3 uniform x", "4: expected 'arrival calls_sampled "
                                    "spread_median_us spread_p90_us shape'"},
        {"arrival 0 2 3 uniform", "4: calls_sampled is not a count >= 1"},
        {"arrival 1 -2 3 uniform", "4: spread_median_us is not a time >= 0"},
        {"arrival 1 nan 3 uniform", "4: spread_median_us is not a time >= 0"},
        {"arrival 1 2 1.5 uniform",
         "4: spread_p90_us is not a time >= spread_median_us"},
        {"arrival 1 2 3 late", "4: the shape is not together, root_last, "
                               "root_first, one_late, uniform or mixed"},
        {"arrival 1 2 3 uniform\narrival 1 2 3 uniform",
         "5: an arrival line follows its point's line"},
        {"# comment\narrival 1 2 3 uniform",
         "5: an arrival line follows its point's line"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", head, bad[i].line);
        expect_load(text, bad[i].want);
    }
    expect_load("autotune-profile 1\nranks 4\narrival 1 2 3 uniform\n",
                "3: an arrival line follows its point's line");

    /* Damaged offsets and next lines. */
    const char *arrived = "autotune-profile 1\nranks 4\nbcast 4 1 8 1 0\n"
                          "arrival 1 2 3 uniform\n";
    struct {
        const char *line, *want;
    } bad_offsets[] = {
        {"offsets 0 1 2", "5: expected 'offsets' and one time >= 0 (us) per "
                          "rank"},
        {"offsets 0 1 -2 3", "5: expected 'offsets' and one time >= 0 (us) "
                             "per rank"},
        {"offsets 0 1 2 x", "5: expected 'offsets' and one time >= 0 (us) "
                            "per rank"},
        {"offsets 0 1 2 3 4", "5: more offsets than the point's procs"},
        {"# comment\noffsets 0 1 2 3",
         "6: an offsets line follows its point's arrival line"},
        {"next allgather 64", "5: expected 'next collective msg_bytes "
                              "gap_us'"},
        {"next allgather 64 1 x", "5: expected 'next collective msg_bytes "
                                  "gap_us'"},
        {"next Allgather 64 1", "5: expected 'next collective msg_bytes "
                                "gap_us'"},
        {"next allgather 64 1\noffsets 0 1 2 3",
         "6: an offsets line follows its point's arrival line"},
        {"next allgather 64 1\nnext allgather 64 1",
         "6: a next line follows its point's arrival or offsets lines"},
    };
    for (size_t i = 0; i < sizeof bad_offsets / sizeof bad_offsets[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", arrived, bad_offsets[i].line);
        expect_load(text, bad_offsets[i].want);
    }
    expect_load("autotune-profile 1\nranks 4\nbcast 4 1 8 1 0\n"
                "offsets 0 1 2 3\n",
                "4: an offsets line follows its point's arrival line");
    char many[2048];
    int at = snprintf(many, sizeof many, "%s", arrived);
    for (int i = 0; i < 17; i++) {
        at +=
            snprintf(many + at, sizeof many - (size_t)at, "offsets 0 1 2 3\n");
    }
    expect_load(many, "21: more offsets lines than a point keeps (16)");

    /* Offsets in us, by rank; root -1: none. */
    struct {
        double offsets[5];
        int n, root;
        enum profile_shape want;
    } shapes[] = {
        {{0, 10, 20, 30}, 4, 0, PROFILE_UNIFORM},
        {{0, 0, 50, 0}, 4, 2, PROFILE_ROOT_LAST},
        {{25, 0, 25, 25}, 4, 1, PROFILE_ROOT_FIRST},
        {{0, 40, 0, 0}, 4, -1, PROFILE_ONE_LATE},
        {{0, 40, 0, 0}, 4, 0, PROFILE_ONE_LATE}, /* not the root late */
        {{0, 40, 0, 0}, 4, 1, PROFILE_ROOT_LAST},
        {{0, 0.9, 0.5, 0}, 4, -1, PROFILE_TOGETHER},
        {{0, 30, 30, 0}, 4, -1, PROFILE_MIXED}, /* two late: a gap of S */
        {{0, 7}, 2, -1, PROFILE_ONE_LATE},
        {{0, 7}, 2, 0, PROFILE_ROOT_FIRST},
        {{0, 20, 10}, 3, -1, PROFILE_UNIFORM},  /* gap S/2: uniform */
        {{0, 21, 20, 0}, 4, -1, PROFILE_MIXED}, /* 20 > S/2 */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        enum profile_shape got =
            profile_shape_of(shapes[i].offsets, shapes[i].n, shapes[i].root);
        CHECK_STR(profile_shape_name(shapes[i].want), profile_shape_name(got));
    }
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);

    struct profile_point points[] = {
        point("bcast", 4, 1, 1024, 10, 0.25, none),
        point("allreduce", 4, 2, 8, 100, 1.5, none),
        point("barrier", 4, 1, 0, 3, 0.25, none),
    };
    struct profile p = {.n_ranks = 4, .n_points = 3, .points = points};
    profile_sort_by_cost(&p);
    CHECK_STR("allreduce", points[0].collective);
    CHECK_STR("bcast", points[1].collective); /* ties: more calls first */
    CHECK_STR("barrier", points[2].collective);
    CHECK(profile_total_seconds(&p) == 2.0);

    struct profile *back = write_and_load(&p);
    if (back) {
        CHECK_INT(4, back->n_ranks);
        CHECK_INT(3, back->n_points);
        for (int i = 0; i < back->n_points && i < 3; i++) {
            CHECK_STR(points[i].collective, back->points[i].collective);
            CHECK_INT(points[i].procs, back->points[i].procs);
            CHECK_INT(points[i].per_node, back->points[i].per_node);
            CHECK_INT(points[i].msg_bytes, back->points[i].msg_bytes);
            CHECK_INT(points[i].calls, back->points[i].calls);
            CHECK(points[i].seconds == back->points[i].seconds);
            /* header, ranks, the comment line, then one point a line */
            CHECK_INT(4 + i, back->points[i].line);
        }
    }
    profile_destroy(back);

    const char *head = "autotune-profile 1\nranks 4\n";
    char text[512];
    expect_load("autotune-profile 1\nranks 2\n# comment\n\nbcast 2 1 8 1 0\n",
                NULL);
    expect_load("", "1: empty; expected 'autotune-profile 1'");
    expect_load("autotune-profile 2\n",
                "1: not a profile (the first line is not 'autotune-profile "
                "1')");
    expect_load("autotune-profile 1\nbcast 2 1 8 1 0\n",
                "2: expected 'ranks N' (N >= 1) after the header");
    expect_load("autotune-profile 1\n",
                "2: expected 'ranks N' after the header");
    struct {
        const char *line, *want;
    } bad[] = {
        {"bcast 4 1 8 1", "3: expected 'collective procs per_node msg_bytes "
                          "calls seconds'"},
        {"bcast 4 1 8 1 0 extra", "3: expected 'collective procs per_node "
                                  "msg_bytes calls seconds'"},
        {"Bcast 4 1 8 1 0", "3: the collective is not a name (a-z, _)"},
        {"bcast 0 1 8 1 0", "3: procs is not a number of processes >= 1"},
        {"bcast 4 5 8 1 0", "3: per_node is not in 1..procs"},
        {"bcast 4 1 -1 1 0", "3: msg_bytes is not a size in bytes"},
        {"bcast 4 1 8 -1 0", "3: calls is not a count >= 0"},
        {"bcast 4 1 8 1 -0.5", "3: seconds is not a time >= 0"},
        {"bcast 4 1 8 1 nan", "3: seconds is not a time >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", head, bad[i].line);
        expect_load(text, bad[i].want);
    }
    snprintf(text, sizeof text, "%sbcast 4 1 8 1 0\nbcast 4 1 8 2 0\n", head);
    expect_load(text, "4: this point is already listed");
    /* A repeat is said before a bad line after it, as line by line. */
    snprintf(text, sizeof text,
             "%sbcast 4 1 8 1 0\nbcast 4 1 8 2 0\nbcast 0 1 8 1 0\n", head);
    expect_load(text, "4: this point is already listed");
    snprintf(text, sizeof text,
             "%sbcast 4 1 8 1 0\nreduce 4 1 8 1 0\nbcast 0 1 8 1 0\n"
             "reduce 4 1 8 1 0\n",
             head);
    expect_load(text, "5: procs is not a number of processes >= 1");
    /* Hundreds of thousands of points (an application's long run): all
     * distinct load, a repeat of the first is found at the last line
     * (2 header lines, then one per point), and of two repeats the
     * earlier line is said. */
    enum { N_BIG = 200000 };
    size_t size = 64 + (size_t)N_BIG * 48, len = 0;
    char *big = malloc(size);
    CHECK(big != NULL);
    if (big) {
        len += (size_t)snprintf(big, size, "%s", head);
        for (int i = 0; i < N_BIG; i++) {
            len += (size_t)snprintf(big + len, size - len, "%s %d 1 %d 1 0\n",
                                    i % 2 ? "bcast" : "reduce", 2 + i % 500,
                                    i / 500);
        }
        expect_load(big, NULL);
        size_t all = len;
        len += (size_t)snprintf(big + len, size - len, "reduce 2 1 0 1 0\n");
        char want[64];
        snprintf(want, sizeof want, "%d: this point is already listed",
                 N_BIG + 3);
        expect_load(big, want);
        len = all;
        len += (size_t)snprintf(big + len, size - len,
                                "bcast 3 1 399 5 0\nreduce 2 1 0 1 0\n");
        expect_load(big, want);
        free(big);
    }
    check_arrivals();
    unlink(path);
    return check_exit();
}
