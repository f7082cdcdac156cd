/* The worker role (src/worker.c) against a master played by the test on
 * rank 0: it answers every message but a stop, a batch with its results,
 * and anything it cannot take (a message of no known kind, a malformed
 * batch) with a failure it then keeps, so a master never waits for ever.
 * Runs on 2 ranks. */

#include <check.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "messages.h"
#include "nqueens/error.h"
#include "nqueens/units.h"
#include "run.h"
#include "support.h"

enum { WORKER = 1, UNKNOWN_TAG = 99 };

typedef struct reply {
  int64_t status;
  uint64_t count;
  nq_unit_result_t results[4];
} reply_t;

static reply_t receive_reply(MPI_Comm comm) {
  uint64_t words[NQ_RESULT_MAX_WORDS];
  MPI_Status status;
  int count = 0;
  ck_assert_int_eq(MPI_Recv(words, NQ_RESULT_MAX_WORDS, MPI_UINT64_T, WORKER, NQ_TAG_RESULT, comm,
                            &status),
                   MPI_SUCCESS);
  MPI_Get_count(&status, MPI_UINT64_T, &count);
  ck_assert_int_ge(count, 2);
  reply_t reply = {.status = (int64_t)words[0], .count = words[1]};
  ck_assert_int_eq(count, 2 + (int)reply.count * NQ_RESULT_WORDS);
  for (uint64_t i = 0; i < reply.count && i < 4; i++)
    nq__result_unpack(&reply.results[i], words + 2 + i * NQ_RESULT_WORDS);
  return reply;
}

/* The first `count` units of n = 8 as one batch. */
static int pack_batch(uint64_t *batch, int count) {
  nq_unit_gen_t *gen = NULL;
  ck_assert_int_eq(nq_unit_gen_create(&gen, 8, 1), NQ_OK);
  batch[0] = (uint64_t)count;
  for (int i = 0; i < count; i++) {
    nq_unit_t unit;
    ck_assert_int_eq(nq_unit_gen_next(gen, &unit), 1);
    nq__unit_pack(batch + 1 + i * NQ_UNIT_WORDS, &unit);
  }
  nq_unit_gen_destroy(gen);
  return 1 + count * NQ_UNIT_WORDS;
}

static void send_words(const uint64_t *words, int count, int tag, MPI_Comm comm) {
  ck_assert_int_eq(MPI_Send(words, count, MPI_UINT64_T, WORKER, tag, comm), MPI_SUCCESS);
}

/* Rank 0's side: `bad` is sent after a good batch; every batch after it
 * must come back failed, and the stop must still end the worker. */
static void play_master(MPI_Comm comm, int bad_tag, int bad_words) {
  uint64_t batch[NQ_WORK_MAX_WORDS];
  int words = pack_batch(batch, 2);
  send_words(batch, words, NQ_TAG_WORK, comm);
  reply_t reply = receive_reply(comm);
  ck_assert_int_eq(reply.status, NQ_OK);
  ck_assert_uint_eq(reply.count, 2);
  ck_assert_uint_eq(reply.results[0].id, 0);
  ck_assert_uint_eq(reply.results[1].id, 1);
  send_words(batch, bad_words, bad_tag, comm);
  reply = receive_reply(comm);
  ck_assert_int_eq(reply.status, NQ_EPROTO);
  ck_assert_uint_eq(reply.count, 0);
  send_words(batch, words, NQ_TAG_WORK, comm);
  reply = receive_reply(comm);
  ck_assert_int_eq(reply.status, NQ_EPROTO);
  send_words(NULL, 0, NQ_TAG_STOP, comm);
}

static void run_case(int bad_tag, int bad_words) {
  int rank = support_rank(), size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_assert_msg(size == 2, "check_worker runs on 2 ranks, not %d", size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  nq_count_options_t options = {.n = 8, .walk = NQ_WALK_AUTO};
  int batch_units[2] = {16, 16};
  nq__run_t run = {.options = &options, .faults = NQ_NO_FAULTS, .batch_units = batch_units};
  if (rank == 0)
    play_master(comm, bad_tag, bad_words);
  else if (rank == WORKER)
    ck_assert_int_eq(nq__worker_run(&run, comm), NQ_EPROTO);
  MPI_Comm_free(&comm);
}

START_TEST(test_worker_answers_unknown_tag_with_failure) { run_case(UNKNOWN_TAG, 4); }
END_TEST

START_TEST(test_worker_answers_malformed_batch_with_failure) {
  run_case(NQ_TAG_WORK, 2); /* says 2 units, carries under one */
}
END_TEST

static Suite *worker_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("worker");
  TCase *protocol = tcase_create("protocol");
  tcase_add_test(protocol, test_worker_answers_unknown_tag_with_failure);
  tcase_add_test(protocol, test_worker_answers_malformed_batch_with_failure);
  suite_add_tcase(suite, protocol);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, worker_suite); }
