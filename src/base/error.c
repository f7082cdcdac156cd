#include "nqueens/error.h"

const char *nq_strerror(int code) {
  switch (code) {
  case NQ_OK: return "success";
  case NQ_EINVAL: return "invalid argument";
  case NQ_ENOMEM: return "out of memory";
  case NQ_EOVERFLOW: return "a 64-bit count overflowed";
  case NQ_EMPI: return "MPI call failed";
  case NQ_EIO: return "write to output failed";
  case NQ_EUNIT: return "work unit is not a valid placement";
  case NQ_EPROTO: return "master/worker protocol violated";
  case NQ_ENOTSUP: return "not supported by this CPU";
  case NQ_EGPU: return "GPU call failed";
  case NQ_ENOGPU: return "no rank has a usable CUDA GPU";
  case NQ_ESTOPPED: return "stopped before the work was finished";
  case NQ_EJOURNAL: return "the checkpoint journal cannot be used";
  case NQ_ECHECK: return "the counts failed a consistency check";
  case NQ_EBUSY: return "the checkpoint journal is in use by another run";
  default: return "unknown error";
  }
}
