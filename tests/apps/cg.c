/* A conjugate-gradient mini-app for libautotune's profile workflow: CG on
 * the 1-D Laplacian, rows split in blocks over the ranks, whose
 * collectives mix sizes as a real solver's do: each iteration gathers the
 * search direction (allgather) and reduces two dot products (allreduce,
 * 8 bytes); every few iterations a two-grid correction gathers a coarse
 * vector (allgather, 1/8 the size), rank 0 broadcasts new parameters
 * (bcast) and collects a monitoring vector (reduce), and all ranks sum
 * block norms (allreduce of P doubles).
 *   cg [-n ROWS_PER_RANK] [-i ITERATIONS] [-k EVERY]
 * Prints the residual, the time (the slowest rank's, between barriers) and
 * each (collective, message bytes as the tuner defines them) it called
 * with its number of calls, for the tests to compare with a profile. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PARAMS = 2048, MONITOR = 8192, MAX_POINTS = 16 };

/* What the app called: collective, bytes, calls. */
struct call_count {
    const char *coll;
    long bytes, calls;
};
static struct call_count called[MAX_POINTS];
static int n_called;

static void count(const char *coll, long bytes)
{
    int i = 0;
    while (i < n_called &&
           (strcmp(called[i].coll, coll) != 0 || called[i].bytes != bytes)) {
        i++;
    }
    if (i == n_called) {
        if (n_called == MAX_POINTS) {
            return;
        }
        called[n_called++] = (struct call_count){coll, bytes, 0};
    }
    called[i].calls++;
}

static double dot(const double *x, const double *y, int n, MPI_Comm comm)
{
    double local = 0, global = 0;
    for (int i = 0; i < n; i++) {
        local += x[i] * y[i];
    }
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
    count("allreduce", sizeof(double));
    return global;
}

/* y = A x for this rank's rows of the Laplacian (2 on the diagonal, -1
 * beside it), from the whole gathered x. */
static void laplacian(const double *x_all, double *y, int first, int n,
                      int n_all)
{
    for (int i = 0; i < n; i++) {
        int g = first + i;
        double v = 2 * x_all[g];
        v -= g > 0 ? x_all[g - 1] : 0;
        v -= g + 1 < n_all ? x_all[g + 1] : 0;
        y[i] = v;
    }
}

int main(int argc, char **argv)
{
    int n = 8192, iterations = 40, every = 5, rank, size;
    for (int a = 1; a + 1 < argc; a += 2) {
        int v = atoi(argv[a + 1]);
        if (v < 1 || argv[a][0] != '-' || !strchr("nik", argv[a][1]) ||
            argv[a][2]) {
            fprintf(stderr, "usage: cg [-n ROWS_PER_RANK] [-i ITERATIONS] "
                            "[-k EVERY] (each >= 1)\n");
            return 2;
        }
        *(argv[a][1] == 'n'   ? &n
          : argv[a][1] == 'i' ? &iterations
                              : &every) = v;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n_all = n * size, n_coarse = n / 8 > 0 ? n / 8 : 1;
    double *x = calloc((size_t)n, sizeof *x), *r = malloc(n * sizeof *r),
           *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q),
           *p_all = malloc((size_t)n_all * sizeof *p_all),
           *coarse = malloc(n_coarse * sizeof *coarse),
           *coarse_all = malloc((size_t)n_coarse * size * sizeof *coarse_all),
           *params = calloc(PARAMS, sizeof *params),
           *monitor = malloc(MONITOR * sizeof *monitor),
           *monitor_sum = malloc(MONITOR * sizeof *monitor_sum),
           *norms = calloc((size_t)size, sizeof *norms),
           *norms_sum = malloc((size_t)size * sizeof *norms_sum);
    if (!x || !r || !p || !q || !p_all || !coarse || !coarse_all || !params ||
        !monitor || !monitor_sum || !norms || !norms_sum) {
        fprintf(stderr, "cg: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < n; i++) { /* b = 1, x = 0: r = p = b */
        r[i] = p[i] = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    count("barrier", 0);
    double start = MPI_Wtime();
    double rr = dot(r, r, n, MPI_COMM_WORLD), rr0 = rr;
    for (int it = 0; it < iterations; it++) {
        MPI_Allgather(p, n, MPI_DOUBLE, p_all, n, MPI_DOUBLE, MPI_COMM_WORLD);
        count("allgather", (long)n * sizeof(double));
        laplacian(p_all, q, rank * n, n, n_all);
        double alpha = rr / dot(p, q, n, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        double rr_new = dot(r, r, n, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            p[i] = r[i] + rr_new / rr * p[i];
        }
        rr = rr_new;
        if ((it + 1) % every != 0) {
            continue;
        }
        /* The coarse grid: every eighth residual, gathered. */
        for (int i = 0; i < n_coarse; i++) {
            coarse[i] = r[i * 8 < n ? i * 8 : n - 1];
        }
        MPI_Allgather(coarse, n_coarse, MPI_DOUBLE, coarse_all, n_coarse,
                      MPI_DOUBLE, MPI_COMM_WORLD);
        count("allgather", (long)n_coarse * sizeof(double));
        norms[rank] = rr_new;
        MPI_Allreduce(norms, norms_sum, size, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        count("allreduce", (long)size * sizeof(double));
        if (rank == 0) {
            params[it % PARAMS] = rr_new / rr0;
        }
        MPI_Bcast(params, PARAMS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        count("bcast", PARAMS * sizeof(double));
        for (int i = 0; i < MONITOR; i++) {
            monitor[i] = x[i % n];
        }
        MPI_Reduce(monitor, monitor_sum, MONITOR, MPI_DOUBLE, MPI_SUM, 0,
                   MPI_COMM_WORLD);
        count("reduce", MONITOR * sizeof(double));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    count("barrier", 0);
    double elapsed = MPI_Wtime() - start, slowest = 0;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    count("reduce", sizeof(double));
    if (rank == 0) {
        printf("cg: P=%d rows=%d iterations=%d residual=%.6e time_s=%.9f\n",
               size, n_all, iterations, rr / rr0, slowest);
        for (int i = 0; i < n_called; i++) {
            printf("cg: called %s %ld %ld\n", called[i].coll, called[i].bytes,
                   called[i].calls);
        }
    }
    double *buffers[] = {x,       r,           p,          q,
                         p_all,   coarse,      coarse_all, params,
                         monitor, monitor_sum, norms,      norms_sum};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) {
        free(buffers[i]);
    }
    MPI_Finalize();
    return 0;
}
