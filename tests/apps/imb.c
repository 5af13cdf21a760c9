/* A collective benchmark timed the way the Intel MPI Benchmarks and OSU
 * (-sync 1) time one, for `make bench-truth`: before each call every rank
 * enters MPI_Barrier, reads its clock as it leaves, calls, and reads it
 * again; a rank's time is the mean of those over the timed iterations,
 * and the figure is the largest rank's (IMB's t_max). The barrier is
 * entered right after the previous call, as IMB does, so a call meets the
 * barrier's exit skew. Message sizes are the tuner's: bytes of a bcast,
 * reduce or allreduce buffer (unsigned char, MPI_SUM for the reductions,
 * as the harness calls them), bytes each rank contributes to an
 * allgather; root 0.
 *   imb [-c COLL[,COLL...]] [-m MIN] [-M MAX] [-f FACTOR] [-i ITERATIONS]
 *       [-w WARMUP]
 * (collectives bcast, reduce, allreduce, allgather; sizes MIN, MIN x
 * FACTOR, ... up to MAX; defaults all four, 1 B to 1 MiB by 4, 20
 * iterations after 2). After the timed calls one more call on known data
 * is checked against the sums written out (every rank's result). Prints
 * one line per (collective, size):
 *   imb: COLL PROCS MSG_BYTES time_us=T check=ok|WRONG
 * and exits 1 if any check failed. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const collectives[] = {"bcast", "reduce", "allreduce",
                                          "allgather"};
enum { N_COLLECTIVES = sizeof collectives / sizeof collectives[0] };

static void call(int coll, unsigned char *send, unsigned char *recv, int bytes)
{
    switch (coll) {
    case 0:
        MPI_Bcast(send, bytes, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
        break;
    case 1:
        MPI_Reduce(send, recv, bytes, MPI_UNSIGNED_CHAR, MPI_SUM, 0,
                   MPI_COMM_WORLD);
        break;
    case 2:
        MPI_Allreduce(send, recv, bytes, MPI_UNSIGNED_CHAR, MPI_SUM,
                      MPI_COMM_WORLD);
        break;
    default:
        MPI_Allgather(send, bytes, MPI_UNSIGNED_CHAR, recv, bytes,
                      MPI_UNSIGNED_CHAR, MPI_COMM_WORLD);
    }
}

/* One call on known data: true when this rank's result is the one
 * written out (byte i of rank r's input is r + 3 i, mod 256; a bcast's
 * root sends 7 + 3 i). */
static bool check(int coll, unsigned char *send, unsigned char *recv, int bytes,
                  int rank, int size)
{
    long n_recv = coll == 3 ? (long)bytes * size : bytes;
    for (int i = 0; i < bytes; i++) {
        send[i] = (unsigned char)(coll == 0 ? (rank == 0 ? 7 + 3 * i : 0)
                                            : rank + 3 * i);
    }
    memset(recv, 0, (size_t)n_recv);
    call(coll, send, recv, bytes);
    for (long i = 0; i < n_recv; i++) {
        long want;
        unsigned char got = recv[i];
        if (coll == 0) {
            want = 7 + 3 * i;
            got = send[i];
        } else if (coll == 3) {
            want = i / bytes + 3 * (i % bytes);
        } else if (coll == 1 && rank != 0) {
            return true;
        } else {
            want = (long)size * (size - 1) / 2 + (long)size * 3 * i;
        }
        if (got != (unsigned char)want) {
            return false;
        }
    }
    return true;
}

static int usage(void)
{
    fprintf(stderr, "usage: imb [-c COLL[,COLL...]] [-m MIN] [-M MAX] "
                    "[-f FACTOR] [-i ITERATIONS] [-w WARMUP]\n");
    return 2;
}

int main(int argc, char **argv)
{
    long min = 1, max = 1 << 20, factor = 4, iterations = 20, warmup = 2;
    bool is_chosen[N_COLLECTIVES] = {true, true, true, true};
    for (int a = 1; a < argc; a += 2) {
        const char *opt = argv[a], *arg = a + 1 < argc ? argv[a + 1] : NULL;
        char *end;
        long v = arg ? strtol(arg, &end, 10) : 0;
        if (!arg || opt[0] != '-' || !opt[1] || opt[2] ||
            !strchr("cmMfiw", opt[1])) {
            return usage();
        }
        if (opt[1] == 'c') {
            memset(is_chosen, 0, sizeof is_chosen);
            for (const char *p = arg; *p;) {
                size_t len = strcspn(p, ",");
                int c = 0;
                while (c < N_COLLECTIVES &&
                       (strlen(collectives[c]) != len ||
                        strncmp(p, collectives[c], len) != 0)) {
                    c++;
                }
                if (c == N_COLLECTIVES) {
                    fprintf(stderr,
                            "imb: -c: '%.*s' is not one of bcast, reduce, "
                            "allreduce, allgather\n",
                            (int)len, p);
                    return 2;
                }
                is_chosen[c] = true;
                p += len + (p[len] == ',');
            }
            continue;
        }
        if (*end || v < (opt[1] == 'w' ? 0 : 1) || (opt[1] == 'f' && v < 2) ||
            v > (1L << 26)) {
            fprintf(stderr, "imb: %s: '%s' is out of range\n", opt, arg);
            return 2;
        }
        *(opt[1] == 'm'   ? &min
          : opt[1] == 'M' ? &max
          : opt[1] == 'f' ? &factor
          : opt[1] == 'i' ? &iterations
                          : &warmup) = v;
    }
    int rank, size, n_wrong = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *send = malloc((size_t)max),
                  *recv = malloc((size_t)max * size);
    if (!send || !recv) {
        fprintf(stderr, "imb: out of memory for %ld-byte messages\n", max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(send, 1, (size_t)max);
    for (int c = 0; c < N_COLLECTIVES; c++) {
        for (long bytes = min; is_chosen[c] && bytes <= max; bytes *= factor) {
            double mine = 0, slowest = 0;
            for (long k = 0; k < warmup + iterations; k++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double start = MPI_Wtime();
                call(c, send, recv, (int)bytes);
                if (k >= warmup) {
                    mine += MPI_Wtime() - start;
                }
            }
            mine /= (double)iterations;
            MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0,
                       MPI_COMM_WORLD);
            int is_ok = check(c, send, recv, (int)bytes, rank, size), all_ok;
            MPI_Allreduce(&is_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            memset(send, 1, (size_t)bytes);
            n_wrong += !all_ok;
            if (rank == 0) {
                printf("imb: %s %d %ld time_us=%.3f check=%s\n", collectives[c],
                       size, bytes, slowest * 1e6, all_ok ? "ok" : "WRONG");
            }
        }
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return n_wrong > 0;
}
