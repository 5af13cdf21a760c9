/* CHECK for test programs: prints file:line with expected and actual, keeps
 * going; check_exit() makes the program fail at the end if any check failed. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

#define CHECK_INT(expected, actual)                                            \
    do {                                                                       \
        long long e_ = (long long)(expected), a_ = (long long)(actual);        \
        if (e_ != a_) {                                                        \
            fprintf(stderr, "%s:%d: %s: expected %lld, got %lld\n", __FILE__,  \
                    __LINE__, #actual, e_, a_);                                \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

#define CHECK_STR(expected, actual)                                            \
    do {                                                                       \
        const char *e_ = (expected), *a_ = (actual);                           \
        if (!a_ || strcmp(e_, a_) != 0) {                                      \
            fprintf(stderr, "%s:%d: %s: expected \"%s\", got \"%s\"\n",        \
                    __FILE__, __LINE__, #actual, e_, a_ ? a_ : "(null)");      \
            check_failures++;                                                  \
        }                                                                      \
    } while (0)

static inline int check_exit(void)
{
    if (check_failures) {
        fprintf(stderr, "%d check(s) failed\n", check_failures);
        return 1;
    }
    return 0;
}

#endif
