#include "method.h"

#include <string.h>

#include "nqueens/join.h"

static const nq__method_t *const methods[] = {&nq__method_backtrack, &nq__method_join};

const nq__method_t *nq__method_of(nq_count_method_t id) {
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (methods[i]->id == id)
      return methods[i];
  return NULL;
}

const nq__method_t *nq__method_named(const char *name) {
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (strcmp(methods[i]->name, name) == 0)
      return methods[i];
  return NULL;
}

size_t nq__method_rank_bytes(size_t memory) {
  return memory != 0 ? memory : NQ_COUNT_DEFAULT_MEMORY;
}

size_t nq__method_solver_bytes(size_t memory, int n, int threads) {
  return nq_join_thread_bytes(n, threads, nq__method_rank_bytes(memory));
}
