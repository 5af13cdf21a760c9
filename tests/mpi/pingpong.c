/* pingpong: point-to-point figures of the network an MPI job runs on.
 *
 *   pingpong [iters]
 *
 * 1. Ping-pong between ranks 0 and 1 for 1 B .. 1 MiB (powers of two):
 *      pingpong bytes=N oneway_us=T MBps=B
 *    oneway_us is half the round trip, MBps = N / oneway (10^6 bytes/s).
 * 2. Fan-out (needs P > 2): rank 0 sends N bytes to each of ranks 1..P-1
 *    with blocking MPI_Send, for N = 1 KiB and 64 KiB; rank P-1, served
 *    last, answers with an empty message:
 *      fanout bytes=N peers=P-1 total_us=T single_us=S ratio=R
 *    total_us is the time from the first send until rank P-1 holds its
 *    data (the empty answer's one-way time is subtracted), single_us the
 *    one-way time of one N-byte message, ratio = total_us / single_us.
 *    On a network where the root's link is the bottleneck, ratio ~ P-1.
 * 3. Stream: rank 0 posts 16 MPI_Isend of 8 KiB to rank 1 at once, then
 *    waits for them; rank 1 receives them with two receives posted ahead,
 *    as a pipelined collective does:
 *      stream bytes=8192 count=16 first_us=F total_us=T single_us=S
 *    first_us is when the first message has arrived, total_us the last
 *    (both from rank 1's exit from a barrier, so first_us carries the
 *    barrier's skew; total_us - first_us does not). A network sends one
 *    peer's messages in order, so total - first ~ 15 x single; a model
 *    that shares the link among all messages in flight delivers them all
 *    at the end (total - first ~ 0).
 *
 * 4. Placement: the 1-byte ping-pong of 1. between rank 0 and each other
 *    rank in turn:
 *      peer rank=R oneway_us=T
 *
 * Every figure is the mean over iters repetitions (default 10) after one
 * warm-up. Under SimGrid SMPI the times are simulated and deterministic,
 * which tests/sh/test_platforms.sh relies on; on real hardware they are
 * just measurements. Output goes to rank 0's stdout; exit status is 0
 * unless MPI fails or the arguments are wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BYTES = 1 << 20, TAG_PING = 1, TAG_FAN = 2, TAG_ACK = 3 };
enum { STREAM_BYTES = 8192, STREAM_COUNT = 16 };

/* Mean one-way time of an n-byte message between ranks 0 and peer. Other
 * ranks do nothing and return 0. */
static double pingpong(int rank, char *buf, int n, int peer, int iters)
{
    double t0 = 0.0;
    for (int i = -1; i < iters; i++) { /* i == -1: warm-up */
        if (i == 0)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, n, MPI_CHAR, peer, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_CHAR, peer, TAG_PING, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == peer) {
            MPI_Recv(buf, n, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD);
        }
    }
    if (rank != 0 && rank != peer)
        return 0.0;
    return (MPI_Wtime() - t0) / (2.0 * iters);
}

/* Mean time for rank 0 to deliver n bytes to every other rank, measured
 * on rank 0 up to the empty answer of the last rank (whose one-way time
 * is not subtracted here). */
static double fanout(int rank, int size, char *buf, int n, int iters)
{
    double total = 0.0;
    for (int i = -1; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double t0 = MPI_Wtime();
            for (int r = 1; r < size; r++)
                MPI_Send(buf, n, MPI_CHAR, r, TAG_FAN, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_CHAR, size - 1, TAG_ACK, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (i >= 0)
                total += MPI_Wtime() - t0;
        } else {
            MPI_Recv(buf, n, MPI_CHAR, 0, TAG_FAN, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (rank == size - 1)
                MPI_Send(NULL, 0, MPI_CHAR, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return total / iters;
}

/* Mean arrival times at rank 1 of the first and the last of STREAM_COUNT
 * messages that rank 0 posts at once (see 3. above). */
static void stream(int rank, char *buf, int iters, double *first, double *last)
{
    MPI_Request reqs[STREAM_COUNT];
    *first = *last = 0.0;
    for (int i = -1; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            for (int k = 0; k < STREAM_COUNT; k++) {
                MPI_Isend(buf + (size_t)k * STREAM_BYTES, STREAM_BYTES,
                          MPI_CHAR, 1, TAG_FAN, MPI_COMM_WORLD, &reqs[k]);
            }
            MPI_Waitall(STREAM_COUNT, reqs, MPI_STATUSES_IGNORE);
        } else if (rank == 1) {
            double t_first = 0.0;
            for (int k = 0; k < 2; k++) {
                MPI_Irecv(buf + (size_t)k * STREAM_BYTES, STREAM_BYTES,
                          MPI_CHAR, 0, TAG_FAN, MPI_COMM_WORLD, &reqs[k]);
            }
            for (int k = 0; k < STREAM_COUNT; k++) {
                MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
                if (k == 0) {
                    t_first = MPI_Wtime() - t0;
                }
                if (k + 2 < STREAM_COUNT) {
                    MPI_Irecv(buf + (size_t)(k + 2) * STREAM_BYTES,
                              STREAM_BYTES, MPI_CHAR, 0, TAG_FAN,
                              MPI_COMM_WORLD, &reqs[k + 2]);
                }
            }
            if (i >= 0) {
                *first += t_first;
                *last += MPI_Wtime() - t0;
            }
        }
    }
    *first /= iters;
    *last /= iters;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int iters = 10;
    if (argc > 1) {
        char *end = NULL;
        long v = strtol(argv[1], &end, 10);
        if (*argv[1] == '\0' || *end != '\0' || v < 1 || v > 1000000) {
            if (rank == 0)
                fprintf(stderr, "usage: pingpong [iters >= 1]\n");
            MPI_Finalize();
            return 2;
        }
        iters = (int)v;
    }
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }

    /* Only ranks 0 and 1 need the 1 MiB buffer. */
    size_t cap = rank <= 1 ? (size_t)MAX_BYTES : (size_t)64 * 1024;
    char *buf = malloc(cap);
    if (buf == NULL) {
        fprintf(stderr, "pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    memset(buf, rank & 0x7f, cap);

    if (rank == 0)
        printf("# pingpong: ranks=%d iters=%d\n", size, iters);

    double t_small = 0.0, t_1k = 0.0, t_8k = 0.0, t_64k = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int n = 1; n <= MAX_BYTES; n *= 2) {
        double t = pingpong(rank, buf, n, 1, iters);
        if (rank == 0) {
            printf("pingpong bytes=%d oneway_us=%.3f MBps=%.3f\n", n, t * 1e6,
                   n / t / 1e6);
            if (n == 1)
                t_small = t;
            else if (n == 1024)
                t_1k = t;
            else if (n == STREAM_BYTES)
                t_8k = t;
            else if (n == 64 * 1024)
                t_64k = t;
        }
    }
    fflush(stdout);

    if (size > 2) {
        const int sizes[] = {1024, 64 * 1024};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            int n = sizes[k];
            double t = fanout(rank, size, buf, n, iters);
            if (rank == 0) {
                double single = n == 1024 ? t_1k : t_64k;
                double total = t - t_small; /* minus the empty answer */
                printf("fanout bytes=%d peers=%d total_us=%.3f single_us=%.3f "
                       "ratio=%.2f\n",
                       n, size - 1, total * 1e6, single * 1e6, total / single);
            }
        }
    }

    /* Rank 1 reports the stream's arrival times to rank 0, which prints. */
    double times[2];
    stream(rank, buf, iters, &times[0], &times[1]);
    if (rank == 1)
        MPI_Send(times, 2, MPI_DOUBLE, 0, TAG_ACK, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Recv(times, 2, MPI_DOUBLE, 1, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        printf("stream bytes=%d count=%d first_us=%.3f total_us=%.3f "
               "single_us=%.3f\n",
               STREAM_BYTES, STREAM_COUNT, times[0] * 1e6, times[1] * 1e6,
               t_8k * 1e6);
    }

    /* Placement: rank 0's 1-byte one-way time to every other rank, one
     * pair at a time (on a fat tree, the ranks of rank 0's leaf answer
     * sooner than the others). */
    for (int peer = 1; peer < size; peer++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = pingpong(rank, buf, 1, peer, iters);
        if (rank == 0)
            printf("peer rank=%d oneway_us=%.3f\n", peer, t * 1e6);
    }

    free(buf);
    MPI_Finalize();
    return 0;
}
