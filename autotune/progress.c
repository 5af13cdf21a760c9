/* Progress lines on stderr, throttled; the estimate of time left counts only
 * points that were measured, since points replayed from the journal cost
 * nothing. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "autotune/progress.h"

/* SMPI redefines clock_gettime to return simulated time; progress is for a
 * person waiting, so it wants the real clock. */
#ifdef clock_gettime
#undef clock_gettime
#endif

#define PRINT_INTERVAL_TTY_S 0.25
#define PRINT_INTERVAL_LOG_S 10.0

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void format_duration(char *buf, size_t size, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) {
        snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    } else {
        snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
    }
}

void progress_start(struct progress *p, long total)
{
    p->start_s = progress_now();
    p->last_print_s = 0;
    p->total = total;
    p->done = 0;
    p->measured = 0;
    p->measured_s = 0;
    p->is_tty = isatty(STDERR_FILENO);
}

void progress_point_done(struct progress *p, int was_measured,
                         double point_wall_s, const char *what)
{
    double now = progress_now();
    p->done++;
    if (was_measured) {
        p->measured++;
        p->measured_s += point_wall_s;
    }
    double interval = p->is_tty ? PRINT_INTERVAL_TTY_S : PRINT_INTERVAL_LOG_S;
    if (p->done < p->total && now - p->last_print_s < interval) {
        return;
    }
    p->last_print_s = now;
    char elapsed[32], left[32] = "?";
    format_duration(elapsed, sizeof elapsed, now - p->start_s);
    if (p->measured > 0) {
        double per_point = p->measured_s / (double)p->measured;
        format_duration(left, sizeof left,
                        per_point * (double)(p->total - p->done));
    }
    fprintf(stderr,
            "%s[autotune] %ld/%ld points (%.0f%%)  %s  elapsed %s  "
            "left ~%s%s",
            p->is_tty ? "\r\033[K" : "", p->done, p->total,
            100.0 * (double)p->done / (double)(p->total ? p->total : 1), what,
            elapsed, left, p->is_tty ? "" : "\n");
    fflush(stderr);
}

void progress_finish(struct progress *p)
{
    if (p->is_tty && p->done > 0) {
        fputc('\n', stderr);
    }
}
