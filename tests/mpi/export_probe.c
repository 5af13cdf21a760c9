/* Calls each collective autotune exports on MPI_COMM_WORLD at a few block
 * sizes with MPI_ERRORS_RETURN and prints, for every rank, one line
 * "RANK COLLECTIVE BLOCK_BYTES ERROR_CLASS": the export tests load a rules
 * file into the library and read which calls it made fail. Plain MPI: it
 * builds with Open MPI's mpicc and MPICH's mpicc.mpich alike. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROBE_MAX_BYTES = 65536 };

static const int probe_bytes[] = {1, 1024, 4096, PROBE_MAX_BYTES};

struct probe {
    const char *name;
    int (*call)(unsigned char *send, unsigned char *recv, int count, int size);
};

static int probe_bcast(unsigned char *send, unsigned char *recv, int count,
                       int size)
{
    (void)recv;
    (void)size;
    return MPI_Bcast(send, count, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
}

static int probe_reduce(unsigned char *send, unsigned char *recv, int count,
                        int size)
{
    (void)size;
    return MPI_Reduce(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM, 0,
                      MPI_COMM_WORLD);
}

static int probe_allreduce(unsigned char *send, unsigned char *recv, int count,
                           int size)
{
    (void)size;
    return MPI_Allreduce(send, recv, count, MPI_UNSIGNED_CHAR, MPI_SUM,
                         MPI_COMM_WORLD);
}

static int probe_gather(unsigned char *send, unsigned char *recv, int count,
                        int size)
{
    (void)size;
    return MPI_Gather(send, count, MPI_UNSIGNED_CHAR, recv, count,
                      MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
}

static int probe_scatter(unsigned char *send, unsigned char *recv, int count,
                         int size)
{
    (void)size;
    return MPI_Scatter(send, count, MPI_UNSIGNED_CHAR, recv, count,
                       MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
}

static int probe_allgather(unsigned char *send, unsigned char *recv, int count,
                           int size)
{
    (void)size;
    return MPI_Allgather(send, count, MPI_UNSIGNED_CHAR, recv, count,
                         MPI_UNSIGNED_CHAR, MPI_COMM_WORLD);
}

static int probe_alltoall(unsigned char *send, unsigned char *recv, int count,
                          int size)
{
    (void)size;
    return MPI_Alltoall(send, count, MPI_UNSIGNED_CHAR, recv, count,
                        MPI_UNSIGNED_CHAR, MPI_COMM_WORLD);
}

static int probe_barrier(unsigned char *send, unsigned char *recv, int count,
                         int size)
{
    (void)send;
    (void)recv;
    (void)count;
    (void)size;
    return MPI_Barrier(MPI_COMM_WORLD);
}

static const struct probe probes[] = {
    {"allgather", probe_allgather}, {"allreduce", probe_allreduce},
    {"alltoall", probe_alltoall},   {"barrier", probe_barrier},
    {"bcast", probe_bcast},         {"gather", probe_gather},
    {"reduce", probe_reduce},       {"scatter", probe_scatter},
};

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    size_t bytes = (size_t)PROBE_MAX_BYTES * (size_t)size;
    unsigned char *send = calloc(bytes, 1), *recv = calloc(bytes, 1);
    if (!send || !recv) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
        int is_barrier = strcmp(probes[p].name, "barrier") == 0;
        for (size_t b = 0; b < sizeof probe_bytes / sizeof probe_bytes[0];
             b++) {
            int count = is_barrier ? 0 : probe_bytes[b];
            int rc = probes[p].call(send, recv, count, size), cls = rc;
            if (rc != MPI_SUCCESS) {
                MPI_Error_class(rc, &cls);
            }
            printf("%d %s %d %d\n", rank, probes[p].name, count, cls);
            fflush(stdout); /* the tests read the calls before an abort */
            if (is_barrier) {
                break;
            }
        }
    }
    fflush(stdout);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
