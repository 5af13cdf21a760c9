/* The growable array step every module's lists take. Header only, so the
 * tool, libautotune and the model's recorder all carry it without a link
 * dependency. No MPI. */
#ifndef UTIL_GROW_H
#define UTIL_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Room for need items of item_size bytes in items, which has room for
 * *cap: items itself when it has room, else items reallocated to twice its
 * capacity or more (first_cap when it has none) and *cap updated. NULL
 * when out of memory or the size overflows, items and *cap unchanged
 * (items is still the caller's to free). */
static inline void *grow(void *items, size_t *cap, size_t need,
                         size_t item_size, size_t first_cap)
{
    if (need <= *cap) {
        return items;
    }
    size_t n = *cap ? *cap : first_cap ? first_cap : 1;
    while (n < need) {
        if (n > SIZE_MAX / 2) {
            return NULL;
        }
        n *= 2;
    }
    if (n > SIZE_MAX / item_size) {
        return NULL;
    }
    void *grown = realloc(items, n * item_size);
    if (grown) {
        *cap = n;
    }
    return grown;
}

#endif
