#define _POSIX_C_SOURCE 200809L /* clock_nanosleep */

#include "simulated.h"

#include <errno.h>
#include <time.h>

#include "nqueens/error.h"

static struct timespec seconds_later(struct timespec from, double seconds) {
  long whole = (long)seconds;
  from.tv_sec += whole;
  from.tv_nsec += (long)((seconds - (double)whole) * 1e9);
  if (from.tv_nsec >= 1000000000L) {
    from.tv_sec++;
    from.tv_nsec -= 1000000000L;
  }
  return from;
}

static int earlier(struct timespec a, struct timespec b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Sleeping, not spinning: hundreds of oversubscribed ranks on a few cores
 * then cost the CPU nothing but their wake-ups.  Deadlines are absolute,
 * so late wake-ups do not add up over the slices. */
static int sleep_asking(double seconds, double slice, nq__simulated_cancel_fn cancelled,
                        void *context) {
  struct timespec now, end;
  clock_gettime(CLOCK_MONOTONIC, &now);
  end = seconds_later(now, seconds);
  for (;;) {
    struct timespec wake = seconds_later(now, slice);
    if (!earlier(wake, end))
      wake = end;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) == EINTR)
      ;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!earlier(now, end))
      return NQ_OK;
    if (cancelled != NULL && cancelled(context))
      return NQ_ESTOPPED;
  }
}

int nq__simulated_solve(nq_unit_result_t *result, uint64_t id, double seconds, double slice,
                        nq__simulated_cancel_fn cancelled, void *context) {
  if (seconds > 0) {
    int rc = sleep_asking(seconds, slice, cancelled, context);
    if (rc != NQ_OK)
      return rc;
  }
  *result = (nq_unit_result_t){
      .id = id, .solutions = 1, .stabilizer_sum = 8, .nodes = id + 1, .weight = 1};
  return NQ_OK;
}
