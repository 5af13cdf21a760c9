/* The model's predicted times at a run's points and at points never
 * measured (seed 003 §3.3). No MPI. */
#ifndef TUNE_PREDICT_H
#define TUNE_PREDICT_H

/* What to predict: the run (and its calibration, default RUN/model.csv);
 * with procs_text and sizes_text ("2,4,8"), points never measured too,
 * of the given segment sizes, collectives (default: the run's) and ranks
 * per node (ppn_text, default 1), into out_dir (default RUN/predicted/). */
struct predict_request {
    const char *run, *model_path, *procs_text, *sizes_text, *segs_text,
        *colls_text, *out_dir, *ppn_text;
};

/* Writes RUN/predicted.csv and prints the model's accuracy where the run
 * measured. Returns the exit status: 0, 1 (data), 2 (a bad list). */
int predict_run(const struct predict_request *req);

#endif
