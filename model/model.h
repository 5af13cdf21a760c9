/* The model (seed 003 §3.3): point-to-point parameters measured per message
 * size, each algorithm's communication schedule recorded from its own code,
 * and a replay of that schedule that predicts the collective's time.
 * Never calls MPI. */
#ifndef MODEL_MODEL_H
#define MODEL_MODEL_H

#include <stddef.h>

#include "collectives/record/record.h"

/* One step of a rank's program, in program order: an op as the recording
 * MPI reports it. */
struct model_op {
    enum record_op kind;
    int peer; /* ISEND, IRECV */
    int tag;  /* ISEND, IRECV: messages match per (source, dest, tag) */
    long bytes;
    int req; /* ISEND, IRECV: the request it creates; WAIT: the one awaited */
};

struct model_rank_ops {
    struct model_op *ops;
    int n_ops;
    size_t cap_ops;
    int n_reqs; /* requests are numbered 0..n_reqs-1 per rank */
};

/* A collective's communication schedule: every rank's program. */
struct model_schedule {
    int n_ranks;
    struct model_rank_ops *ranks;
};

struct model_schedule *model_schedule_create(int n_ranks);
void model_schedule_destroy(struct model_schedule *s);
/* Appends an op to rank's program; ISEND and IRECV get the next request
 * number (returned), the others return 0; -1 when out of memory. */
int model_schedule_add(struct model_schedule *s, int rank, enum record_op kind,
                       int peer, int tag, long bytes, int req);

/* Appends rank from_rank's program in from to rank's in s, its peers
 * mapped to s's ranks (ranks[from's rank]) and its requests numbered
 * after rank's: the ops of a phase that runs after rank's program so far
 * (on one rank, a later op waits for the earlier ones; between ranks,
 * message matching orders them). 0, or -1 when out of memory. */
int model_schedule_append(struct model_schedule *s, int rank,
                          const struct model_schedule *from, int from_rank,
                          const int *ranks);

/* Records the schedule of one method by running the algorithm's own code
 * (collectives/) rank by rank over a recording point-to-point layer, root
 * 0, msg_bytes in the sweep's meaning (one rank's buffer or block).
 * Returns 0 and *out (caller-frees), 1 when the algorithm does not apply
 * at procs (nothing recorded), -1 with one line on stderr on error. */
int model_record(const char *collective, const char *algorithm, int procs,
                 long msg_bytes, int seg_bytes, int chain_fanout,
                 struct model_schedule **out);

/* model_record for any method of the collective at procs ranks of ppn
 * per node: a flat algorithm's name (seg_bytes its segment size), or a
 * node-aware method's ("node:ALG/SEG+...", collectives/method.h), composed
 * from its phases' flat schedules in the order they run (each recorded on
 * its communicator's size at the count collectives/node.c gives it, block
 * placement, each node's lowest rank its leader). 1 where the method does
 * not apply (a node-aware one on one node, at one rank per node, on
 * uneven nodes where its composition needs even ones, or where a phase's
 * algorithm does not apply). */
int model_record_method(const char *collective, const char *method, int procs,
                        int ppn, long msg_bytes, int seg_bytes,
                        int chain_fanout, struct model_schedule **out);

/* Point-to-point parameters, as measured by `autotune model`. The raw
 * quantities, each the least of the repetitions in microseconds, at a
 * message size (and, for isend, a number of sends already pending): */
enum model_quantity {
    MODEL_Q_ISEND,     /* MPI_Isend's duration, receive posted (os) */
    MODEL_Q_SEND,      /* MPI_Send's duration, receive posted */
    MODEL_Q_ONEWAY,    /* half a ping-pong of blocking calls */
    MODEL_Q_RECV_LATE, /* MPI_Recv posted long after the send (or) */
    MODEL_Q_STREAM1,   /* receiver's time for the blocking send's message */
    MODEL_Q_STREAMK,   /* ... for K messages back to back (K: `pending`) */
    MODEL_Q_REDUCE,    /* MPI_Reduce_local over msg_bytes unsigned chars */
    MODEL_Q_PAIRS,     /* `pending` disjoint pairs each sending one message
                          at once: the slowest pair's time (the network's
                          shared capacity; from 4 ranks) */
    MODEL_Q_HOP,       /* a 1-byte message's one-way time between world
                          ranks `msg_bytes` and `pending` (the placement:
                          which ranks share a switch; from 3 ranks) */
    MODEL_Q_UPLINK,    /* `pending` ranks of the switch of world rank
                          `msg_bytes` each sending one message to a rank
                          of another switch at once: the slowest one's
                          time (the switch's uplink capacity; from 2
                          switches) */
    MODEL_Q_LANE,      /* two messages at once out of one switch, to world
                          ranks `msg_bytes` and `pending` (`pending` ==
                          `msg_bytes`: the one to it alone): the slowest
                          one's time (which destinations' flows take the
                          same uplink; from 2 switches) */
    MODEL_Q_HOP_RDV,   /* a message of `msg_bytes` (the smallest rendezvous
                          size) from world rank 0 to `pending`, alone: how
                          a rendezvous scales a longer route (from 2
                          switches) */
    MODEL_Q_MIX,       /* the flow from the second rank of the first switch
                          with two to world rank `msg_bytes` on another
                          switch, alone (`pending` 0) or while the first
                          sends to that second rank (`pending` 1): the
                          slowest one's time (what a node's flow within its
                          switch does to its flows out of it; from 2
                          switches) */
    MODEL_Q_FLOW,      /* a message size the calibration used (`msg_bytes`;
                          value 0, nothing timed): `pending` MODEL_FLOW_LANES
                          the uplink and lane flows' (none:
                          MODEL_STREAM_BYTES, as calibrations measured
                          before it), MODEL_FLOW_STREAM the most a stream
                          carries (none: MODEL_STREAM_BYTES) */
    MODEL_Q_MODE,      /* a blocking send to a posted receive at a size
                          between the largest eager size measured and the
                          smallest rendezvous one, where the send mode
                          changes: its duration (`pending` 0; a bisection,
                          from 2 such sizes). Calibrations before it timed
                          a ping-pong and journaled its half too (1) */
    MODEL_N_QUANTITIES
};
/* Whether a message was sent by rendezvous: its blocking send waited for
 * most of its one-way time (both less the Isend's). The rule's one home:
 * the fit's, and the mode probes' (model_mode_is_rendezvous). */
int model_is_rendezvous(double isend_us, double send_us, double oneway_us);
/* The same for a mode probe: the blocking send of msg_bytes, between the
 * largest eager size measured (lo) and the smallest rendezvous one (hi),
 * against the one-way time interpolated between theirs (linear in size):
 * the probe times the send alone, half a ping-pong's cost. For the
 * calibration's bisection and the fit alike. */
int model_mode_is_rendezvous(double isend_us, double send_us, long msg_bytes,
                             long lo, double oneway_lo_us, long hi,
                             double oneway_hi_us);
/* The bisection stops where the sizes between the largest eager size
 * known and the smallest rendezvous one are at most this fraction of the
 * measured sizes' interval: 6 sends, a 64th of it left (priced by its
 * midpoint). */
#define MODEL_MODE_PRECISION (1.0 / 64)
/* isend is measured at these numbers of pending sends (those below the
 * stream's K: the stream's own Isends are timed one by one). */
enum { MODEL_N_LEVELS = 5, MODEL_STREAM_MAX = 16 };
extern const int model_pending_levels[MODEL_N_LEVELS];
/* The stream's K at this size: 16 messages, fewer (a power of two, at
 * least 2) where 16 would carry more than stream_bytes: a large
 * message's gap shows in two, and the stream is most of the cost. The
 * pairs and the mixed flows send MODEL_STREAM_BYTES, and so did the
 * streams of calibrations before the stream row (MODEL_FLOW_STREAM). */
enum { MODEL_STREAM_BYTES = 256 * 1024 };
/* The most a stream carries (journaled as a flow row, MODEL_FLOW_STREAM):
 * the gap is the stream's growth per message, (streamK - stream1) / (K -
 * 1), a bandwidth's share that 2 messages show above a 32nd of it (the
 * streams at 128 and 256 KiB were already of 2), at a quarter of the
 * cost of the 16 KiB to 64 KiB streams. */
enum { MODEL_STREAMK_BYTES = 64 * 1024 };
/* The flow rows' kinds (their `pending`). */
enum { MODEL_FLOW_LANES = 0, MODEL_FLOW_STREAM = 1 };
/* The uplink and lane flows' message size (journaled as a flow row):
 * what they measure is how much longer flows take together than alone, a
 * bandwidth's share, which a quarter of MODEL_STREAM_BYTES shows as well
 * at a quarter of the cost (a message still large enough that latency is
 * a small part of it). The mix flows stay at MODEL_STREAM_BYTES. */
enum { MODEL_FLOW_BYTES = 64 * 1024 };
int model_stream_count(long msg_bytes, long stream_bytes);
extern const char *const model_quantity_names[MODEL_N_QUANTITIES];
/* The quantity named so, or -1. */
int model_quantity_find(const char *name);

/* One raw observation (a row of model.csv's input side). */
struct model_obs {
    enum model_quantity q;
    long msg_bytes;
    int pending; /* isend: sends already pending; streamK: K; pairs: the
                    number of pairs; else 0 */
    double value_us;
    int is_intra; /* between two ranks of one node (model.csv's ppn 2),
                     else of two nodes (ppn 1) */
};

/* The fitted parameters at each measured size: opaque. */
struct model_params;

/* Fits the parameters from raw observations, the inter-node set and the
 * intra-node set (is_intra) each on its own: per size, the send mode
 * (eager when MPI_Send returns well before the data is across, rendezvous
 * otherwise), the gap g(m) = (streamK - stream1) / (K - 1), isend at the
 * pending levels not measured (K too small) as at the highest measured,
 * the transfer
 * time oneway - send, and the reduction cost per byte (least squares
 * slope); from the hops, the ranks' switches (ranks whose hop is near)
 * and each pair of switches' hop (the pairs and hops are inter-node). A set
 * without observations is priced as the other one (a calibration on one
 * node has no inter-node set; one without two ranks on a node, no
 * intra-node set). Fails with one line naming what is missing.
 * *out caller-frees. */
int model_params_fit(const struct model_obs *obs, size_t n,
                     struct model_params **out);
void model_params_destroy(struct model_params *p);

/* The fitted value at any size, interpolated linearly between the measured
 * sizes of the same send mode (extrapolated past the ends). */
struct model_p2p {
    int is_rendezvous;
    int waits_for_recv;  /* data moves only once the receive is posted (a
                            late receive takes most of a transfer) */
    double isend_us;     /* CPU time of posting the send */
    double send_us;      /* CPU time of a blocking send */
    double transfer_us;  /* from the send's return to the data's arrival */
    double recv_late_us; /* from posting a late receive to its completion */
    double gap_us;       /* the sender's (and receiver's) time per message */
    /* A flow's time on a link at the full rate: the gap less the Isend
     * (what the sender's overhead does not hide), but for an eager message
     * at least its one-way time's growth over the smallest eager size's
     * (the bandwidth term: back-to-back messages that each take longer on
     * the link than their Isend go at the link's pace, as the stream
     * measured them, yet many senders' tiny messages share nothing) */
    double work_us;
};
void model_params_at(const struct model_params *p, long msg_bytes, int pending,
                     int is_intra, struct model_p2p *out);
/* Whether the intra-node set was measured (else intra-node messages are
 * priced as inter-node ones), and the inter-node set. */
int model_params_has_intra(const struct model_params *p);
int model_params_has_inter(const struct model_params *p);
/* The local reduction of bytes (fitted a + b * bytes). */
double model_params_reduce_us(const struct model_params *p, long bytes);
/* How many flows at a link's full rate the network carries at once
 * (n T(1 pair) / T(n pairs) where n pairs took longer than one), 0 when
 * not limited or not measured. */
double model_params_backbone_flows(const struct model_params *p);
/* 0 where the pairs observations count for nothing: a switch's uplink is
 * limited (the replay shares the uplinks link by link, no backbone
 * besides); `autotune model` measures the pairs only where this is 1. */
int model_params_uses_pairs(const struct model_params *p);
/* How many flows at a node link's full rate the uplink of node a's switch
 * (and its downlink: links are taken as symmetric) carries at once. From
 * that switch's uplink observations: k flows out of it at once took T(k),
 * one alone T(1), each of work w (a flow's work_us,
 * as the replay prices it); shared by the replay's rule they
 * take T(1) - w + k w / C, so C = k w / (T(k) - T(1) + w). 0 (not limited)
 * where T(k) is within 5 % of T(1) or C >= k, and where nothing was
 * measured (no placement, one switch, a calibration from before uplinks
 * were measured: such a model.csv shares no uplink). */
double model_params_uplink_flows(const struct model_params *p, int a);
/* The switch of node a (numbered in order of their least node), -1 when
 * the placement was not measured or a is beyond it. */
int model_params_switch_of(const struct model_params *p, int a);
int model_params_n_switches(const struct model_params *p);
/* The uplink a flow to node a takes out of any other switch (its lane:
 * where a switch has several uplinks, a fat tree's routing picks one by the
 * destination), numbered in order of their least node; 0 where the lanes
 * were not measured or a is beyond them. Two destinations share a lane
 * where two flows out of one switch to them at once took longer than one
 * alone by more than half a flow's work (MODEL_LANE_SHARED). */
int model_params_lane_of(const struct model_params *p, int a);
int model_params_n_lanes(const struct model_params *p);
#define MODEL_LANE_SHARED 0.5
/* More lanes than this: the lanes are not measured further nor used (a
 * switch's uplinks are shared as one link: finding many lanes would cost
 * a flow per lane per rank, and flows spread over many are rarely slowed
 * by one). */
enum { MODEL_MAX_LANES = 4 };
int model_lane_is_shared(double pair_us, double alone_us, double work_us);
/* A flow's work at the uplinks' and lanes' message size (the flow row's,
 * else MODEL_STREAM_BYTES): the inter-node work_us at that size (as the
 * replay prices it). */
double model_params_flow_work_us(const struct model_params *p);
/* That message size. */
long model_params_flow_bytes(const struct model_params *p);
/* Ranks whose hop is within this fraction of the least hop measured share
 * a switch (a fat tree's leaf): on the fat trees simulated, a leaf's hop
 * is a third to a half shorter than the spine's, and real hops vary by a
 * few per cent. */
#define MODEL_HOP_NEAR 0.10
/* The most ranks a hop names (model.csv's rows are checked against it). */
enum { MODEL_MAX_RANK = 1 << 20 };
int model_hop_is_near(double hop_us, double least_hop_us);
/* What a message between nodes a and b (numbered in order of their first
 * world rank; at one rank per node, world ranks) takes longer than one
 * between nodes 0 and 1, where the inter-node p2p parameters were measured:
 * the hop of a's and b's switches less that of 0's and 1's (from the hop
 * observations; 0 when there are none for a or b). */
double model_params_hop_extra_us(const struct model_params *p, int a, int b);
/* What a rendezvous makes of that extra: its hop_rdv observations' time to
 * a rank on another switch than rank 1 less that to rank 1, over the
 * 1-byte hop's extra between them (a handshake crosses the route too; on
 * SimGrid, its latency factor); 1 where not measured. */
double model_params_rdv_hop_factor(const struct model_params *p);
/* How many flows at a node link's full rate the flows between a node and
 * other switches carry together while the node also has a flow within its
 * switch (SimGrid's fat trees of 2 uplinks per leaf slow them by a third:
 * a pipeline forwarding across leaves), from the mix observations as
 * model_params_uplink_flows from its: C = w / (T(mixed) - T(alone) + w);
 * 0 (not limited) where T(mixed) is within 5 % of T(alone) or C >= 1, and
 * where not measured. */
double model_params_mix_flows(const struct model_params *p);
/* The largest size known eager (0 if none): measured, or found so by the
 * mode rows between the measured sizes. */
long model_params_eager_max(const struct model_params *p);

/* model.csv: `quantity,ppn,msg_bytes,pending,value_us,reps,cost_s`, one row
 * per observation; ppn 1 between two nodes, 2 between two ranks of one
 * node. Files written before the ppn column read as ppn 1. Reads it
 * (file:line errors) into *obs (caller-frees) and sums the cost column into
 * *cost_s. */
#define MODEL_CSV_HEADER "quantity,ppn,msg_bytes,pending,value_us,reps,cost_s"
#define MODEL_CSV_LEGACY_HEADER                                                \
    "quantity,msg_bytes,pending,value_us,reps,cost_s"
int model_csv_read(const char *path, struct model_obs **obs, size_t *n,
                   double *cost_s);
/* model_csv_read, then model_params_fit: the calibration at path as
 * parameters (*out caller-frees) and its cost. */
int model_load(const char *path, struct model_params **out, double *cost_s);

/* Ranks per node: rank r of a communicator of ppn ranks per node is on
 * node r / ppn (block placement, what `--map-by core` and `host:N` lines
 * give). */
int model_node_of(int rank, int ppn);
/* The messages of the schedule (to oneself excepted) between two ranks of
 * one node and between two nodes, at ppn ranks per node. */
void model_schedule_split(const struct model_schedule *s, int ppn,
                          long *n_intra, long *n_inter);

/* Replays the schedule with the parameters at ppn ranks per node, in time
 * order (LogGP-like: each rank's clock advances by its overheads; a message
 * costs the intra- or inter-node parameters by whether its two ranks share
 * a node; a message's latency comes first (as in SimGrid: concurrent
 * flows' latencies overlap each other's transfers), then its flow, and it
 * arrives as the flow ends; an inter-node message is a flow of its work_us on
 * its sender's node's and receiver's node's links, shared equally among the
 * inter-node flows on each, between two switches also on their uplink and
 * downlink of its destination's lane (within model_params_uplink_flows), all of
 * them within the backbone's capacity, and where its node also has a flow
 * within its switch, a flow to or from another switch within
 * model_params_mix_flows with the node's others; an intra-node message shares
 * nothing (SimGrid's loopback is a FATPIPE); a receive waits for its message;
 * rendezvous data leaves once its receive is posted, and its send completes as
 * the data arrives, a longer route's extra later too). *time_us is the last
 * rank's end. Fails with one line if the schedule deadlocks. */
int model_replay(const struct model_schedule *s, const struct model_params *p,
                 int ppn, double *time_us);

/* Record (model_record_method: a flat or a node-aware method) and replay
 * in one, at procs ranks of ppn per node: 1 when the method does not
 * apply. */
int model_predict(const struct model_params *p, const char *collective,
                  const char *algorithm, int procs, int ppn, long msg_bytes,
                  int seg_bytes, int chain_fanout, double *time_us);

/* The model's accuracy where a run measured, one definition for `autotune
 * predict` and the HTML report. At each point the model picks the method
 * of least predicted time among those measured too; its accuracy is that
 * pick's measured time against the point's optimum, the relative error of
 * every prediction, and how many pairs of methods (measured more than 1 %
 * apart) it orders as measured. */
struct model_accuracy {
    long n_points;           /* points with a pick and an optimum */
    long n_optimal;          /* where the pick is the optimum */
    long n_compared;         /* methods with a measured and a predicted time */
    double err_sum, max_err; /* |predicted - measured| / measured */
    double penalty_sum, max_penalty; /* the pick's penalty (util/tuning.h) */
    long n_pairs, n_pairs_right;
    double *ratios; /* per point: the pick's time over the optimum */
    size_t n_ratios, ratios_cap;
};
/* Adds one point: n methods' measured times t (<= 0: not measured) and
 * predicted times q (< 0: none), and the point's optimum best_us (<= 0:
 * none). Returns -1 when out of memory. */
int model_accuracy_add(struct model_accuracy *a, const double *t,
                       const double *q, int n, double best_us);
/* The qth quantile (0 < q <= 1) of the points' ratios (sorts them); NAN
 * when there is no point. */
double model_accuracy_quantile(struct model_accuracy *a, double q);
/* Frees the ratios; a is zeroed, ready for reuse. */
void model_accuracy_clear(struct model_accuracy *a);

/* ---- The corrected predictor (model/corrected.c) ---- */

/* The model's time of method k at (procs, msg_bytes) on one grid (one
 * collective at one ranks per node; what k names is the caller's): 0 and
 * *time_us (> 0), 1 when there is none (the method does not apply there,
 * the model cannot price it), -1 on an error already said. */
typedef int (*model_source_fn)(void *arg, int k, int procs, long msg_bytes,
                               double *time_us);

/* What was measured on that grid: cell (p, m) is procs[p] x msgs[m],
 * row-major; time_us[cell * n_methods + k] > 0 where method k was timed
 * and may be used (<= 0: not timed, cannot run, or held out). Borrowed. */
struct model_measured {
    int n_procs, n_msgs, n_methods;
    const int *procs; /* ascending */
    const long *msgs; /* ascending */
    const double *time_us;
};

/* A corrected prediction: the model's time times exp(residual), where
 * the residual log(measured / predicted) of the method is interpolated
 * linearly in log message size between the nearest measured sizes below
 * and above at each of the nearest measured communicator sizes below and
 * above, then linearly in log communicator size between those two (one
 * side only: its residual; at a measured point: its own). */
struct model_estimate {
    double time_us;
    double residual;
    /* how much the neighbours' residuals disagree, in log time: half the
     * range of those used (several; past the measured sizes, with the
     * residual the log-slope from the next measured size would give
     * there, so it grows with the distance), the residual's own size (one:
     * how far the model is off, with nothing to say the correction
     * carries), INFINITY (none: the model's time uncorrected) */
    double uncertainty;
    int n_neighbours; /* measured points the residual comes from, <= 4 */
};

/* Method k's corrected prediction at (procs, msg_bytes), any point, from
 * the points measured in m and the model's times from src: 0, 1 when the
 * model has no time for k at that point, -1 when src failed. */
int model_corrected_at(const struct model_measured *m, model_source_fn src,
                       void *arg, int k, int procs, long msg_bytes,
                       struct model_estimate *out);

/* The method a point takes by the corrected predictions: of the methods
 * timed at the measured cells around it (the nearest measured sizes at or
 * below and above in the nearest measured communicator sizes at or below
 * and above: the smallest measured rectangle around it), the one with
 * the least corrected time. Its predicted penalty is what it may lose to
 * any other method the model prices there (model/corrected.c,
 * choice_loss): bounded by how the two methods' ratio moves over the
 * cells around that timed both (their residuals move together, so the
 * ratio is known far better than either time); INFINITY (unknown: to be
 * measured) for a method whose algorithm no cell around timed and that the
 * model, with the choice's correction, ranks ahead of it; 0 when none can
 * beat it. group[k]: method k's algorithm (methods of one algorithm at
 * other segment sizes share it; NULL: each method its own). model_k is
 * the model's own choice there (the least model time of every method it
 * prices), what a point whose penalty is unbounded may take instead. */
struct model_choice {
    int k; /* -1: none */
    double time_us, uncertainty, penalty;
    int model_k; /* -1: the model prices none */
    double model_us;
};

/* The corrected choice at (procs, msg_bytes): 0, 1 when no method has a
 * corrected prediction there, -1 when src failed. */
int model_corrected_choice(const struct model_measured *m, model_source_fn src,
                           void *arg, const int *group, int procs,
                           long msg_bytes, struct model_choice *out);

#endif
