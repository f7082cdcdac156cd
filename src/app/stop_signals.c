#define _POSIX_C_SOURCE 200809L /* sigaction, pthread_sigmask, nanosleep */

#include "stop_signals.h"

#include <pthread.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

enum { STOP_SIGNAL_COUNT = 4 };
static const int stop_signals[STOP_SIGNAL_COUNT] = {SIGINT, SIGTERM, SIGUSR1, SIGUSR2};

/* A handler may only touch a volatile sig_atomic_t: the run polls it. */
static volatile sig_atomic_t stop_asked;
static volatile sig_atomic_t parent_gone;

static void raise_stop(int signal_number) {
  (void)signal_number;
  stop_asked = 1;
}

static void stop_set(sigset_t *set) {
  sigemptyset(set);
  for (int i = 0; i < STOP_SIGNAL_COUNT; i++)
    sigaddset(set, stop_signals[i]);
}

void nq__stop_signals_block(void) {
  sigset_t set;
  stop_set(&set);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void unblock(void) {
  sigset_t set;
  stop_set(&set);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* How often the watcher looks at the parent: a rerun after the launcher
 * was killed finds the journal free after about this long. */
#define WATCH_NANOSECONDS 50000000L

static void *watch_parent(void *argument) {
  const pid_t parent = *(const pid_t *)argument;
  const struct timespec pause = {0, WATCH_NANOSECONDS};
  while (getppid() == parent)
    nanosleep(&pause, NULL);
  parent_gone = 1;
  stop_asked = 1;
  return NULL;
}

/* The watcher runs detached until the process ends; it takes no signal. */
static void start_watcher(void) {
  static pid_t parent;
  parent = getppid();
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &saved);
  pthread_attr_t attributes;
  pthread_t thread;
  if (pthread_attr_init(&attributes) == 0) {
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_create(&thread, &attributes, watch_parent, &parent);
    pthread_attr_destroy(&attributes);
  }
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

volatile sig_atomic_t *nq__stop_signals_catch(int watch_parent_process) {
  struct sigaction action, found;
  action.sa_handler = raise_stop;
  sigemptyset(&action.sa_mask);
  /* Interrupted system calls (a write to stderr, a wait inside MPI) carry
   * on: the run notices the flag at its next look. */
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < STOP_SIGNAL_COUNT; i++)
    if (sigaction(stop_signals[i], NULL, &found) == 0 && found.sa_handler != SIG_IGN)
      sigaction(stop_signals[i], &action, NULL);
  static int watching;
  if (watch_parent_process && !watching) {
    watching = 1;
    start_watcher();
  }
  unblock();
  return &stop_asked;
}

void nq__stop_signals_default(void) {
  struct sigaction action, found;
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  for (int i = 0; i < STOP_SIGNAL_COUNT; i++)
    if (sigaction(stop_signals[i], NULL, &found) == 0 && found.sa_handler != SIG_IGN)
      sigaction(stop_signals[i], &action, NULL);
  unblock();
}

int nq__stop_signals_orphaned(void) { return parent_gone != 0; }
