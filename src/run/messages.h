#ifndef NQ_SRC_MESSAGES_H
#define NQ_SRC_MESSAGES_H

/* The master/worker messages and their layout on the wire.  All are
 * arrays of uint64 words (docs/design.md pins them byte by byte):
 *   NQ_TAG_WORK   master -> worker: [unit count, units (NQ_UNIT_WORDS each)]
 *   NQ_TAG_RESULT worker -> master: [status, result count, results
 *                                    (NQ_RESULT_WORDS each)]
 *   NQ_TAG_STOP   master -> worker: empty, no more work
 *   NQ_TAG_CANCEL master -> worker: empty, the run is stopping: abandon
 *                 the batch in hand, answer every batch with NQ_ESTOPPED.
 *   NQ_TAG_DISCARD master -> worker: empty, every batch has its answer:
 *                 drop the copies held, answering them with NQ_ESTOPPED;
 *                 only a stop follows.
 *   NQ_TAG_ENDED  worker -> master: empty, after the stop: the worker's
 *                 last word in the count (the master waits for it within
 *                 its patience before the steps every rank joins)
 * --verify (verify.c), after the count:
 *   NQ_TAG_VERIFY_ANSWER  rank -> 0: [sample index, its 3 sums, 2 words each
 *                         (low first)], one batch solved again
 *   NQ_TAG_VERIFY_DONE    rank -> 0: [status], the rank's last word
 *   NQ_TAG_VERIFY_CANCEL  0 -> rank: empty, stop checking
 *   NQ_TAG_VERIFY_VERDICT 0 -> rank: [the run's status], once every rank
 *                         gave its last word */

#include <stdint.h>

#include "method.h"
#include "nqueens/kernel.h"

enum {
  NQ_TAG_WORK = 1,
  NQ_TAG_RESULT = 2,
  NQ_TAG_STOP = 3,
  NQ_TAG_CANCEL = 4,
  NQ_TAG_DISCARD = 5,
  NQ_TAG_VERIFY_ANSWER = 6,
  NQ_TAG_VERIFY_DONE = 7,
  NQ_TAG_VERIFY_CANCEL = 8,
  NQ_TAG_VERIFY_VERDICT = 9,
  NQ_TAG_ENDED = 10
};

#define NQ_UNIT_WORDS 3
#define NQ_RESULT_WORDS 5
#define NQ_RESULT_NODES_WORD 3 /* of a unit's NQ_RESULT_WORDS (nq__result_pack) */
#define NQ_BATCH_DEFAULT 16
#define NQ_BATCH_MAX 256

/* The largest messages, in words: a buffer this size takes any batch. */
#define NQ_WORK_MAX_WORDS (1 + NQ_BATCH_MAX * NQ_UNIT_WORDS)
#define NQ_RESULT_MAX_WORDS (2 + NQ_BATCH_MAX * NQ_RESULT_WORDS)

/* A unit on the wire: its id, then the method's two words (method.h; the
 * backtracker's: method_backtrack.c). */
void nq__work_pack(uint64_t *words, const nq__work_t *unit);
void nq__work_unpack(nq__work_t *unit, const uint64_t *words);
void nq__result_pack(uint64_t *words, const nq_unit_result_t *result);
void nq__result_unpack(nq_unit_result_t *result, const uint64_t *words);

#endif
