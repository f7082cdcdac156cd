/* The worker role (src/run/worker.c) against a master played by the test on
 * rank 0: it answers every message but a stop or a cancel, a batch with
 * its results, and anything it cannot take (a message of no known kind, a
 * malformed batch) with a failure it then keeps, so a master never waits
 * for ever; once cancelled, or once its own stop flag is up, it answers
 * batches with NQ_ESTOPPED; after the stop it gives its last word
 * (NQ_TAG_ENDED).  Runs on 2 ranks. */

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "messages.h"
#include "method_backtrack.h"
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
    nq__work_t work;
    nq__backtrack_work_of(&work, &unit);
    nq__work_pack(batch + 1 + i * NQ_UNIT_WORDS, &work);
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

/* What rank 0 sends and expects back in one case. */
typedef struct script {
  void (*play_master)(MPI_Comm comm, const struct script *script);
  int bad_tag, bad_words; /* for play_master above */
  sig_atomic_t worker_stop; /* the worker's stop flag, as a signal left it */
  int worker_returns;
} script_t;

static void play_bad_message(MPI_Comm comm, const script_t *script) {
  play_master(comm, script->bad_tag, script->bad_words);
}

static void run_case(const script_t *script) {
  int rank = support_rank(), size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ck_assert_msg(size == 2, "check_worker runs on 2 ranks, not %d", size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  volatile sig_atomic_t stop = script->worker_stop;
  nq_count_options_t options = {.n = 8, .walk = NQ_WALK_AUTO, .stop = &stop};
  int batch_units[2] = {16, 16};
  nq__run_t run = {.options = &options, .faults = NQ_NO_FAULTS, .batch_units = batch_units};
  ck_assert_int_eq(nq__run_choose_method(&run), NQ_OK);
  if (rank == 0) {
    script->play_master(comm, script);
    /* every case ends with a stop, which the worker's last word follows */
    ck_assert_int_eq(
        MPI_Recv(NULL, 0, MPI_UINT64_T, WORKER, NQ_TAG_ENDED, comm, MPI_STATUS_IGNORE),
        MPI_SUCCESS);
  } else if (rank == WORKER)
    ck_assert_int_eq(nq__worker_run(&run, comm), script->worker_returns);
  MPI_Comm_free(&comm);
}

START_TEST(test_worker_answers_unknown_tag_with_failure) {
  script_t script = {play_bad_message, UNKNOWN_TAG, 4, 0, NQ_EPROTO};
  run_case(&script);
}
END_TEST

START_TEST(test_worker_answers_malformed_batch_with_failure) {
  /* says 2 units, carries under one */
  script_t script = {play_bad_message, NQ_TAG_WORK, 2, 0, NQ_EPROTO};
  run_case(&script);
}
END_TEST

static void expect_stopped_reply(MPI_Comm comm) {
  reply_t reply = receive_reply(comm);
  ck_assert_int_eq(reply.status, NQ_ESTOPPED);
  ck_assert_uint_eq(reply.count, 0);
}

/* A cancel, then batches: none is solved, each is answered with the stop,
 * and the stop ends the worker, which returns NQ_ESTOPPED.  The cancel
 * itself gets no answer. */
static void play_cancel_first(MPI_Comm comm, const script_t *script) {
  (void)script;
  uint64_t batch[NQ_WORK_MAX_WORDS];
  int words = pack_batch(batch, 2);
  send_words(NULL, 0, NQ_TAG_CANCEL, comm);
  for (int i = 0; i < 2; i++) {
    send_words(batch, words, NQ_TAG_WORK, comm);
    expect_stopped_reply(comm);
  }
  send_words(NULL, 0, NQ_TAG_STOP, comm);
}

START_TEST(test_worker_answers_every_batch_after_cancel_with_stop) {
  script_t script = {play_cancel_first, 0, 0, 0, NQ_ESTOPPED};
  run_case(&script);
}
END_TEST

/* A cancel and the stop, no batch (a worker with none in hand when the run
 * stopped): the worker still returns NQ_ESTOPPED, as every rank must. */
static void play_cancel_alone(MPI_Comm comm, const script_t *script) {
  (void)script;
  send_words(NULL, 0, NQ_TAG_CANCEL, comm);
  send_words(NULL, 0, NQ_TAG_STOP, comm);
}

START_TEST(test_worker_returns_stop_after_cancel_alone) {
  script_t script = {play_cancel_alone, 0, 0, 0, NQ_ESTOPPED};
  run_case(&script);
}
END_TEST

/* A batch, then a cancel, then a batch: the first is answered whole or
 * abandoned, whichever the worker reached first; the next is abandoned. */
static void play_cancel_between_batches(MPI_Comm comm, const script_t *script) {
  (void)script;
  uint64_t batch[NQ_WORK_MAX_WORDS];
  int words = pack_batch(batch, 2);
  send_words(batch, words, NQ_TAG_WORK, comm);
  send_words(NULL, 0, NQ_TAG_CANCEL, comm);
  send_words(batch, words, NQ_TAG_WORK, comm);
  reply_t first = receive_reply(comm);
  ck_assert_msg((first.status == NQ_OK && first.count == 2) ||
                    (first.status == NQ_ESTOPPED && first.count == 0),
                "batch before the cancel: status %lld, %llu results", (long long)first.status,
                (unsigned long long)first.count);
  expect_stopped_reply(comm);
  send_words(NULL, 0, NQ_TAG_STOP, comm);
}

START_TEST(test_worker_abandons_batches_once_cancelled) {
  script_t script = {play_cancel_between_batches, 0, 0, 0, NQ_ESTOPPED};
  run_case(&script);
}
END_TEST

/* The worker's own flag up (a signal to that rank alone): it solves
 * nothing, answers with the stop, and returns it. */
static void play_batches(MPI_Comm comm, const script_t *script) {
  (void)script;
  uint64_t batch[NQ_WORK_MAX_WORDS];
  int words = pack_batch(batch, 2);
  send_words(batch, words, NQ_TAG_WORK, comm);
  expect_stopped_reply(comm);
  send_words(NULL, 0, NQ_TAG_STOP, comm);
}

START_TEST(test_worker_stops_on_its_own_flag) {
  script_t script = {play_batches, 0, 0, 1, NQ_ESTOPPED};
  run_case(&script);
}
END_TEST

static Suite *worker_suite(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Suite *suite = suite_create("worker");
  TCase *protocol = support_tcase("protocol");
  tcase_add_test(protocol, test_worker_answers_unknown_tag_with_failure);
  tcase_add_test(protocol, test_worker_answers_malformed_batch_with_failure);
  tcase_add_test(protocol, test_worker_answers_every_batch_after_cancel_with_stop);
  tcase_add_test(protocol, test_worker_returns_stop_after_cancel_alone);
  tcase_add_test(protocol, test_worker_abandons_batches_once_cancelled);
  tcase_add_test(protocol, test_worker_stops_on_its_own_flag);
  suite_add_tcase(suite, protocol);
  return suite;
}

int main(int argc, char **argv) { return support_main(argc, argv, worker_suite); }
