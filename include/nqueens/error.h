#ifndef NQUEENS_ERROR_H
#define NQUEENS_ERROR_H

/* Library functions return 0 on success or one of these negative codes. */
enum {
  NQ_OK = 0,
  NQ_EINVAL = -1,    /* an argument is outside what the function accepts */
  NQ_ENOMEM = -2,    /* an allocation failed */
  NQ_EOVERFLOW = -3, /* a 64-bit count would have wrapped */
  NQ_EMPI = -4,      /* an MPI call failed (details went to stderr) */
  NQ_EIO = -5,       /* writing output failed */
  NQ_EUNIT = -6,     /* a work unit does not describe a valid placement */
  NQ_EPROTO = -7,    /* a message broke the master/worker protocol */
  NQ_ENOTSUP = -8,   /* this CPU (or a rank's) cannot run what was asked */
  NQ_ECHECK = -9,    /* the counts failed a consistency check: a bug, never a result */
  NQ_EGPU = -10,     /* a GPU call failed (details went to stderr) */
  NQ_ENOGPU = -11,   /* GPUs were asked for and no rank has one */
  NQ_EJOURNAL = -12, /* the checkpoint journal cannot be used (refused, left untouched) */
  NQ_ESTOPPED = -13, /* asked to stop (a signal): the work was left unfinished */
  NQ_EBUSY = -14     /* the checkpoint journal is held by another live run (left untouched) */
};

/* A static, human-readable message for an NQ_E* code. */
const char *nq_strerror(int code);

#endif
