#include "method.h"

#include <string.h>

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

