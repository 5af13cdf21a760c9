/* Progress of a sweep on stderr: points done / total, the current point,
 * elapsed and estimated time left; at most a few lines a second. */
#ifndef AUTOTUNE_PROGRESS_H
#define AUTOTUNE_PROGRESS_H

struct progress {
    double start_s, last_print_s;
    long total, done;
    long measured;     /* points that needed new measurements ... */
    double measured_s; /* ... and the wall time they took */
    int is_tty;
};

void progress_start(struct progress *p, long total);
/* One more point is done; was_measured: it ran experiments (not all of its
 * results came from the journal). */
void progress_point_done(struct progress *p, int was_measured,
                         double point_wall_s, const char *what);
void progress_finish(struct progress *p);
/* Wall-clock seconds (real time, also under SMPI). */
double progress_now(void);

#endif
