#ifndef NQ_SRC_GROW_H
#define NQ_SRC_GROW_H

/* Arrays that grow as they fill: room doubled from 1024 items until it
 * holds what is asked, the items kept. */

#include <stdlib.h>

#include "nqueens/error.h"

/* Room for `needed` items of `item_size` bytes in *array, which has room
 * for *capacity.  NQ_ENOMEM leaves both as they were. */
static inline int nq__grow(void **array, size_t *capacity, size_t needed, size_t item_size) {
  if (needed <= *capacity)
    return NQ_OK;
  size_t capacity_next = *capacity ? *capacity : 1024;
  while (capacity_next < needed)
    capacity_next *= 2;
  void *grown = realloc(*array, capacity_next * item_size);
  if (grown == NULL)
    return NQ_ENOMEM;
  *array = grown;
  *capacity = capacity_next;
  return NQ_OK;
}

#endif
