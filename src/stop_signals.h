#ifndef NQ_SRC_STOP_SIGNALS_H
#define NQ_SRC_STOP_SIGNALS_H

/* The signals that stop a count cleanly: SIGINT, SIGTERM, SIGUSR1 and
 * SIGUSR2 (the one Slurm's --signal is usually given, and mpirun passes on
 * to every rank).  While installed, each only raises one flag, which the
 * count reads through nq_count_options_t.stop. */

#include <signal.h>

#define NQ_STOP_SIGNAL_COUNT 4

typedef struct nq__stop_signals {
  struct sigaction saved[NQ_STOP_SIGNAL_COUNT];
} nq__stop_signals_t;

/* Lowers the flag, installs the handlers (for the signals not ignored
 * already) and saves the actions they replace in `signals`.  Returns the
 * flag. */
volatile sig_atomic_t *nq__stop_signals_install(nq__stop_signals_t *signals);

/* Puts back the actions that nq__stop_signals_install replaced. */
void nq__stop_signals_restore(const nq__stop_signals_t *signals);

#endif
