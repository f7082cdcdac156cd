#define _POSIX_C_SOURCE 200809L /* sigaction */

#include "stop_signals.h"

#include <stddef.h>

static const int stop_signals[NQ_STOP_SIGNAL_COUNT] = {SIGINT, SIGTERM, SIGUSR1, SIGUSR2};

/* A handler may only touch a volatile sig_atomic_t: the count polls it. */
static volatile sig_atomic_t stop_asked;

static void raise_stop(int signal_number) {
  (void)signal_number;
  stop_asked = 1;
}

volatile sig_atomic_t *nq__stop_signals_install(nq__stop_signals_t *signals) {
  struct sigaction action;
  action.sa_handler = raise_stop;
  sigemptyset(&action.sa_mask);
  /* Interrupted system calls (a write to stderr, a wait inside MPI) carry
   * on: the count notices the flag at its next look. */
  action.sa_flags = SA_RESTART;
  stop_asked = 0;
  /* A signal ignored from the start stays ignored, as whoever started us
   * asked (a script's background job ignores SIGINT, meant for the
   * script). */
  for (int i = 0; i < NQ_STOP_SIGNAL_COUNT; i++)
    if (sigaction(stop_signals[i], NULL, &signals->saved[i]) == 0 &&
        signals->saved[i].sa_handler != SIG_IGN)
      sigaction(stop_signals[i], &action, NULL);
  return &stop_asked;
}

void nq__stop_signals_restore(const nq__stop_signals_t *signals) {
  for (int i = 0; i < NQ_STOP_SIGNAL_COUNT; i++)
    sigaction(stop_signals[i], &signals->saved[i], NULL);
}
