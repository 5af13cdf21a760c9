/* Feeds files to a harness without libFuzzer: each argument is a file or a
 * directory of files (the corpora, the crash reproducers). Fails on the
 * first input a harness or a sanitizer rejects; prints how many ran. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *data = malloc(cap);
    for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *grown = realloc(data, cap * 2);
            if (!grown) {
                free(data);
                data = NULL;
                break;
            }
            data = grown;
            cap *= 2;
        }
    }
    int is_error = ferror(f);
    fclose(f);
    if (!data || is_error) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(data);
        return -1;
    }
    /* Named first, so the log says which input a sanitizer stopped on. */
    printf("%s\n", path);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's regular files in name order, so a failure repeats. */
static int replay_dir(const char *dir, long *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char **grown = realloc(names, (n + 1) * sizeof *names);
        if (!grown ||
            !(grown[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) {
            names = grown ? grown : names;
            rc = -1;
            break;
        }
        names = grown;
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n) {
        qsort(names, n, sizeof *names, compare_names);
    }
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc = replay_file(names[i]);
            *count += rc == 0;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    long count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        int rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count)
                                     : replay_file(argv[i]);
        if (rc != 0) {
            return 1;
        }
        count += !S_ISDIR(st.st_mode);
    }
    printf("%s: %ld inputs replayed\n", argv[0], count);
    return 0;
}
