#ifndef NQ_SRC_CPU_TIME_H
#define NQ_SRC_CPU_TIME_H

/* The calling thread's CPU seconds: what the estimate's probes and the
 * join's sampled sets are timed by, free of other work on the machine.
 * The including file defines _POSIX_C_SOURCE (clock_gettime). */

#include <time.h>

static inline double nq__thread_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

#endif
