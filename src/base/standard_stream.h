#ifndef NQ_SRC_STANDARD_STREAM_H
#define NQ_SRC_STANDARD_STREAM_H

/* Whether a file the run reads or writes is where its own output goes
 * (standard_stream.c).  A journal or --json record there would be damaged
 * by the lines printed into it, or replaced under the stream that prints
 * them: `nqueens-mpi --checkpoint j >> j`, `--json out > out`. */

/* The standard stream (1, output, or 2, error) whose file `path` names,
 * this process's or its parent's (mpirun, which writes what the ranks
 * print, gives them a terminal of its own), or 0.  Links are followed, so
 * /dev/stdout names standard output. */
int nq__standard_stream_at(const char *path);

/* "standard output" or "standard error", for a nonzero answer above. */
const char *nq__standard_stream_name(int stream);

#endif
