/* Temporary files for the harnesses: one per slot and process, removed at
 * exit, so parallel runs never share one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

#define FUZZ_SLOTS 2

static char paths[FUZZ_SLOTS][256];

/* The sanitizers' runtime (ASan in both builds): libFuzzer's -close_fd_mask
 * closes stderr but keeps the sanitizers' report stream open. */
void __sanitizer_report_error_summary(const char *summary)
    __attribute__((weak));

static void remove_files(void)
{
    for (int i = 0; i < FUZZ_SLOTS; i++) {
        if (paths[i][0]) {
            unlink(paths[i]);
        }
    }
}

void fuzz_fail(const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (__sanitizer_report_error_summary) {
        char summary[sizeof message + 16];
        snprintf(summary, sizeof summary, "fuzz: %s", message);
        __sanitizer_report_error_summary(summary);
    } else {
        fprintf(stderr, "fuzz: %s\n", message);
    }
    abort();
}

const char *fuzz_write_file(int slot, const void *data, size_t size)
{
    if (slot < 0 || slot >= FUZZ_SLOTS) {
        fuzz_fail("slot %d out of range", slot);
    }
    if (!paths[slot][0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(paths[slot], sizeof paths[slot], "%s/autotune-fuzz-%ld-%d",
                 dir && *dir ? dir : "/tmp", (long)getpid(), slot);
        static int is_registered;
        if (!is_registered) {
            atexit(remove_files);
            is_registered = 1;
        }
    }
    FILE *f = fopen(paths[slot], "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        fuzz_fail("cannot write %s", paths[slot]);
    }
    return paths[slot];
}
