#ifndef NQUEENS_ERROR_H
#define NQUEENS_ERROR_H

/* Library functions return 0 on success or one of these negative codes.
 * One table gives each code its value and the message nq_strerror returns,
 * so that no code can be added without its message. */
#define NQ_ERROR_TABLE(X)                                                                          \
  X(NQ_OK, 0, "success")                                                                           \
  X(NQ_EINVAL, -1, "invalid argument")                                                             \
  X(NQ_ENOMEM, -2, "out of memory")                                                                \
  X(NQ_EOVERFLOW, -3, "a 64-bit count would have overflowed")                                      \
  X(NQ_EMPI, -4, "an MPI call failed (its details went to stderr)")                                \
  X(NQ_EIO, -5, "write to output failed")                                                         \
  X(NQ_EUNIT, -6, "a work unit does not describe a valid placement")                               \
  X(NQ_EPROTO, -7, "a message broke the master/worker protocol")                                   \
  X(NQ_ENOTSUP, -8, "not supported by this CPU (or a rank's)")                                     \
  X(NQ_ECHECK, -9, "the counts failed a consistency check (a bug, never a result)")                \
  X(NQ_EGPU, -10, "a GPU call failed (its details went to stderr)")                                \
  X(NQ_ENOGPU, -11, "GPUs were asked for and no rank has a usable CUDA GPU")                       \
  X(NQ_EJOURNAL, -12, "the checkpoint journal cannot be used (it was left untouched)")             \
  X(NQ_ESTOPPED, -13, "stopped before the work was finished")                                      \
  X(NQ_EBUSY, -14, "the checkpoint journal is held by another live run (it was left untouched)")

#define NQ__ERROR_VALUE(name, value, message) name = (value),
enum { NQ_ERROR_TABLE(NQ__ERROR_VALUE) };
#undef NQ__ERROR_VALUE

/* The table's message for an NQ_E* code (static), or "unknown error". */
const char *nq_strerror(int code);

#endif
