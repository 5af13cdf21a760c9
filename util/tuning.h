/* Two quantities every module means the same way, one definition each: a
 * choice's penalty against the optimum, and the chain algorithms' number
 * of chains when nothing says otherwise. Header-only. */
#ifndef UTIL_TUNING_H
#define UTIL_TUNING_H

/* How much slower time_us is than the optimum best_us, as a fraction
 * (0.25: 25 % slower; 0 at the optimum). */
static inline double tuning_penalty(double time_us, double best_us)
{
    return (time_us - best_us) / best_us;
}

/* chain_fanout (the chain algorithms' number of chains) where a config, a
 * journal's settings or libautotune's environment does not give one. */
enum { TUNING_CHAIN_FANOUT = 4 };

#endif
