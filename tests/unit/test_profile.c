/* The profile's text form: what profile_write writes, profile_load reads
 * back; points sort costliest first; each damaged line is refused with
 * path:line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "store/profile.h"

static char path[] = "/tmp/test_profile_XXXXXX";

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

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);

    struct profile_point points[] = {
        {"bcast", 4, 1, 1024, 10, 0.25, 0},
        {"allreduce", 4, 2, 8, 100, 1.5, 0},
        {"barrier", 4, 1, 0, 3, 0.25, 0},
    };
    struct profile p = {.n_ranks = 4, .n_points = 3, .points = points};
    profile_sort_by_cost(&p);
    CHECK_STR("allreduce", points[0].collective);
    CHECK_STR("bcast", points[1].collective); /* ties: more calls first */
    CHECK_STR("barrier", points[2].collective);
    CHECK(profile_total_seconds(&p) == 2.0);

    FILE *f = fopen(path, "w");
    CHECK(f && profile_write(f, &p) == 0);
    if (f) {
        fclose(f);
    }
    struct profile *back = NULL;
    CHECK_INT(0, profile_load(path, &back));
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
    unlink(path);
    return check_exit();
}
