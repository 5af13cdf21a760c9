/* Datatype layouts, temporary buffers sized by the true extent, and copies
 * that leave the holes of a derived type alone. */
#include "collectives/internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int layout_ask(MPI_Datatype dtype, struct coll_layout *layout)
{
    MPI_Aint lb;
    int rc = MPI_Type_get_extent(dtype, &lb, &layout->extent);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Type_get_true_extent(dtype, &layout->true_lb,
                                      &layout->true_extent);
    }
    if (rc == MPI_SUCCESS) {
        rc = MPI_Type_size(dtype, &layout->size);
    }
    return rc;
}

/* The predefined datatypes an application most often passes (MPI_BYTE
 * is answered before, by coll_layout_get); their layouts, asked at the
 * first call. */
enum { N_KNOWN_TYPES = 9 };
static struct {
    int n; /* 0: not asked yet; -1: asking failed, nothing kept */
    MPI_Datatype dtype[N_KNOWN_TYPES];
    struct coll_layout layout[N_KNOWN_TYPES];
} known;

static void known_types_ask(void)
{
    const MPI_Datatype types[N_KNOWN_TYPES] = {
        MPI_DOUBLE,   MPI_INT,           MPI_FLOAT,
        MPI_CHAR,     MPI_LONG,          MPI_UNSIGNED_CHAR,
        MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_LONG_LONG};
    for (int i = 0; i < N_KNOWN_TYPES; i++) {
        known.dtype[i] = types[i];
        if (layout_ask(types[i], &known.layout[i]) != MPI_SUCCESS) {
            known.n = -1;
            return;
        }
    }
    known.n = N_KNOWN_TYPES;
}

int coll_layout_lookup(MPI_Datatype dtype, struct coll_layout *layout)
{
    if (known.n == 0) {
        known_types_ask();
    }
    for (int i = 0; i < known.n; i++) {
        if (known.dtype[i] == dtype) {
            *layout = known.layout[i];
            return MPI_SUCCESS;
        }
    }
    return layout_ask(dtype, layout);
}

int coll_begin(const struct coll_args *args, int *rank, int *size,
               struct coll_layout *layout)
{
    int rc = MPI_Comm_rank(args->comm, rank);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_size(args->comm, size);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_layout_get(args->dtype, layout);
    }
    return rc;
}

/* Bytes from the first data byte of element 0 to the last of element n-1. */
static MPI_Aint layout_span(const struct coll_layout *layout, int n)
{
    if (n <= 0) {
        return 0;
    }
    return layout->true_extent + (MPI_Aint)(n - 1) * layout->extent;
}

#ifdef SMPI_H /* defined by SimGrid's mpi.h */
/* Temporaries at least this large are shared while coll_temp_share is on;
 * smaller ones stay private, so a shared page is never mostly waste. */
enum { TEMP_SHARED_MIN_BYTES = 65536 };
static int is_temp_shared;
#endif

void coll_temp_share(int is_shared)
{
#ifdef SMPI_H
    is_temp_shared = is_shared;
#else
    (void)is_shared;
#endif
}

void *coll_temp_create(const struct coll_layout *layout, int n)
{
    MPI_Aint span = layout_span(layout, n);
    if (n > 1 && (layout->extent <= 0 ||
                  (MPI_Aint)(n - 1) >
                      (PTRDIFF_MAX - layout->true_extent) / layout->extent)) {
        return NULL;
    }
    size_t bytes = span > 0 ? (size_t)span : 1;
    char *raw;
#ifdef SMPI_H
    if (is_temp_shared && bytes >= TEMP_SHARED_MIN_BYTES) {
        raw = SMPI_SHARED_MALLOC(bytes);
    } else {
        raw = malloc(bytes);
    }
#else
    raw = malloc(bytes);
#endif
    /* Callers index the buffer like a user buffer, whose data starts at
     * true_lb. */
    return raw ? raw - layout->true_lb : NULL;
}

void coll_temp_destroy(void *buf, const struct coll_layout *layout)
{
    if (!buf) {
        return;
    }
#ifdef SMPI_H
    /* Frees a shared block, or hands any other pointer to free(). */
    SMPI_SHARED_FREE((char *)buf + layout->true_lb);
#else
    free((char *)buf + layout->true_lb);
#endif
}

int coll_copy(const void *src, void *dst, int n, MPI_Datatype dtype,
              MPI_Comm comm, int tag)
{
    struct coll_layout layout;
    int rank, rc;

    if (n == 0 || src == dst) {
        return MPI_SUCCESS;
    }
    rc = coll_layout_get(dtype, &layout);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Contiguous data: a memcpy, which costs no simulated time under SMPI
     * where a message to oneself would. */
    if (layout.size == layout.extent && layout.true_extent == layout.extent) {
        memcpy((char *)dst + layout.true_lb, (const char *)src + layout.true_lb,
               (size_t)n * (size_t)layout.size);
        return MPI_SUCCESS;
    }
    rc = MPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Sendrecv(src, n, dtype, rank, tag, dst, n, dtype, rank, tag,
                          comm, MPI_STATUS_IGNORE);
    }
    return rc;
}
