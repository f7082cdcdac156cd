/* Built and run in the sanitizer build (NQ_SANITIZE=ON) only, which
 * promises assertions on: breaks the precondition of lowest_bit in
 * src/base/bits.h on purpose.  ctest passes it only when the assertion's own
 * message appears (PASS_REGULAR_EXPRESSION), so a build where NDEBUG crept
 * back in, and the search's preconditions went unchecked, fails.  The
 * library is compiled with the same flags as this file.  ctest counts a
 * process killed by a signal as failed whatever it printed, so the abort
 * the assertion raises ends the process with status 0 instead. */

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "bits.h"

static void exit_quietly(int signal_number) {
  (void)signal_number;
  _Exit(0);
}

int main(void) {
#ifdef NDEBUG
  fprintf(stderr, "bits_assertions: NDEBUG is defined: the asserts of src/base/bits.h are off\n");
  return 1;
#else
  signal(SIGABRT, exit_quietly);
  volatile uint64_t empty = 0;
  uint64_t bit = lowest_bit(empty);
  fprintf(stderr, "bits_assertions: lowest_bit(0) returned %" PRIu64 " without an assertion\n",
          bit);
  return 1;
#endif
}
