#ifndef NQ_SRC_STOP_SIGNALS_H
#define NQ_SRC_STOP_SIGNALS_H

/* The signals that stop a run cleanly: SIGINT, SIGTERM, SIGUSR1 and
 * SIGUSR2 (the one Slurm's --signal is usually given, and mpirun passes on
 * to every rank).
 *
 * main blocks them before anything that takes time (MPI_Init), so that a
 * signal in the first moments waits instead of killing the process.  Once
 * the command line says what the process does, it either catches them
 * (the modes that stop cleanly: counting, the join, --estimate), each
 * signal then only raising one flag that the run polls, or gives them
 * their default actions back (--list, --first, --status, --merge, which
 * end by the signal as any filter does).  Either way the signals are then
 * unblocked, and one that came while blocked takes effect at once.  The
 * flag is never lowered and the handlers never removed: a signal after
 * the result is out changes nothing. */

#include <signal.h>

/* Blocks the stop signals in the calling thread (main, before any other
 * thread exists: threads started later inherit the mask). */
void nq__stop_signals_block(void);

/* Catches the stop signals not ignored from the start (a background job of
 * a script ignores SIGINT, meant for the script, and so does this) and
 * unblocks them.  With `watch_parent` (a launcher, mpirun or srun, started
 * this process), a thread also watches the parent process: once the
 * launcher is gone, so is the job, and the flag is raised, so that rank 0
 * stops writing the journal and lets it go within a fraction of a second
 * instead of holding it until Open MPI notices.  Returns the flag. */
volatile sig_atomic_t *nq__stop_signals_catch(int watch_parent);

/* The default actions, unblocked. */
void nq__stop_signals_default(void);

/* Whether the launcher that started this process is gone. */
int nq__stop_signals_orphaned(void);

#endif
