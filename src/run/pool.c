#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_cond_timedwait */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nqueens/error.h"
#include "run.h"

typedef struct pool_batch {
  struct pool_batch *next;
  uint64_t tag;
  int status;
  size_t count;
  size_t taken;    /* units handed out (or skipped, once status failed) */
  size_t finished; /* units whose thread is done with them */
  nq__work_t *units;
  nq_unit_result_t *results;
} pool_batch_t;

typedef struct helper {
  nq__pool_t *pool;
  nq__run_solver_t *search;
  pthread_t thread;
  int started;
} helper_t;

struct nq__pool {
  const nq__run_t *run;
  pthread_mutex_t lock;
  pthread_cond_t work;    /* a unit to take, or quitting */
  pthread_cond_t settled; /* a unit finished */
  pool_batch_t *head, *tail; /* in submission order */
  pool_batch_t *released;    /* collected, freed by nq__pool_release */
  size_t batches, untaken;
  atomic_int cancelled; /* read by the helpers' cancel hooks */
  int quitting;
  int helper_count;
  helper_t *helpers;
};

/* ---- the queue (callers hold the lock) ---- */

/* The oldest batch with a unit nobody took; NULL when there is none. */
static pool_batch_t *open_batch(nq__pool_t *pool) {
  for (pool_batch_t *batch = pool->head; batch != NULL; batch = batch->next)
    if (batch->taken < batch->count)
      return batch;
  return NULL;
}

/* A failed batch hands out nothing more: its untaken units count as done. */
static void skip_rest(nq__pool_t *pool, pool_batch_t *batch) {
  size_t rest = batch->count - batch->taken;
  batch->taken += rest;
  batch->finished += rest;
  pool->untaken -= rest;
}

static void settle(nq__pool_t *pool, pool_batch_t *batch, int rc) {
  batch->finished++;
  if (rc != NQ_OK && batch->status == NQ_OK) {
    batch->status = rc;
    skip_rest(pool, batch);
  }
  pthread_cond_broadcast(&pool->settled);
}

/* ---- solving ---- */

/* Takes the next unit (lock held while choosing), solves it unlocked. */
static int take_and_solve(nq__pool_t *pool, nq__run_solver_t *search) {
  pool_batch_t *batch = open_batch(pool);
  if (batch == NULL)
    return 0;
  size_t index = batch->taken++;
  pool->untaken--;
  pthread_mutex_unlock(&pool->lock);
  int rc = nq__run_solve(&batch->results[index], search, pool->run, &batch->units[index]);
  pthread_mutex_lock(&pool->lock);
  settle(pool, batch, rc);
  return 1;
}

int nq__pool_solve_one(nq__pool_t *pool, nq__run_solver_t *search) {
  pthread_mutex_lock(&pool->lock);
  int solved = take_and_solve(pool, search);
  pthread_mutex_unlock(&pool->lock);
  return solved;
}

/* A helper's searcher gives up its unit once the pool is cancelled, or
 * once its rank was asked to stop (the rank's thread then cancels too). */
static int helper_cancelled(void *context) {
  helper_t *helper = context;
  return atomic_load_explicit(&helper->pool->cancelled, memory_order_relaxed) ||
         nq__run_stop_asked(helper->pool->run);
}

static void *helper_main(void *context) {
  helper_t *helper = context;
  nq__pool_t *pool = helper->pool;
  pthread_mutex_lock(&pool->lock);
  while (!pool->quitting)
    if (!take_and_solve(pool, helper->search))
      pthread_cond_wait(&pool->work, &pool->lock);
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

/* ---- the rank's side ---- */

int nq__pool_submit(nq__pool_t *pool, uint64_t tag, const nq__work_t *units, size_t count,
                    int status) {
  pool_batch_t *batch = calloc(1, sizeof *batch);
  if (batch == NULL)
    return NQ_ENOMEM;
  batch->units = malloc((count ? count : 1) * sizeof *batch->units);
  batch->results = malloc((count ? count : 1) * sizeof *batch->results);
  if (batch->units == NULL || batch->results == NULL) {
    free(batch->units);
    free(batch->results);
    free(batch);
    return NQ_ENOMEM;
  }
  memcpy(batch->units, units, count * sizeof *units);
  batch->tag = tag;
  batch->count = count;
  pthread_mutex_lock(&pool->lock);
  batch->status = atomic_load(&pool->cancelled) && status == NQ_OK ? NQ_ESTOPPED : status;
  pool->untaken += count;
  if (batch->status != NQ_OK)
    skip_rest(pool, batch);
  if (pool->tail != NULL)
    pool->tail->next = batch;
  else
    pool->head = batch;
  pool->tail = batch;
  pool->batches++;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
  return NQ_OK;
}

int nq__pool_collect(nq__pool_t *pool, nq__pool_batch_t *out) {
  pthread_mutex_lock(&pool->lock);
  pool_batch_t *batch = pool->head;
  int ready = batch != NULL && batch->finished == batch->count;
  if (ready) {
    pool->head = batch->next;
    if (pool->head == NULL)
      pool->tail = NULL;
    batch->next = pool->released;
    pool->released = batch;
    *out = (nq__pool_batch_t){batch->tag, batch->status, batch->count, batch->results};
  }
  pthread_mutex_unlock(&pool->lock);
  return ready;
}

static void free_batch(pool_batch_t *batch) {
  free(batch->units);
  free(batch->results);
  free(batch);
}

void nq__pool_release(nq__pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  pool_batch_t *batch = pool->released;
  if (batch != NULL) {
    pool->released = batch->next;
    pool->batches--;
  }
  pthread_mutex_unlock(&pool->lock);
  if (batch != NULL)
    free_batch(batch);
}

void nq__pool_cancel(nq__pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  atomic_store(&pool->cancelled, 1);
  for (pool_batch_t *batch = pool->head; batch != NULL; batch = batch->next)
    if (batch->status == NQ_OK && batch->taken < batch->count) {
      batch->status = NQ_ESTOPPED;
      skip_rest(pool, batch);
    }
  pthread_cond_broadcast(&pool->settled);
  pthread_mutex_unlock(&pool->lock);
}

size_t nq__pool_batches(nq__pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  size_t batches = pool->batches;
  pthread_mutex_unlock(&pool->lock);
  return batches;
}

size_t nq__pool_untaken(nq__pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  size_t untaken = pool->untaken;
  pthread_mutex_unlock(&pool->lock);
  return untaken;
}

void nq__pool_wait(nq__pool_t *pool, double seconds) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  long nanoseconds = until.tv_nsec + (long)(seconds * 1e9);
  until.tv_sec += nanoseconds / 1000000000L;
  until.tv_nsec = nanoseconds % 1000000000L;
  pthread_mutex_lock(&pool->lock);
  pool_batch_t *head = pool->head;
  if (pool->untaken == 0 && (head == NULL || head->finished < head->count))
    pthread_cond_timedwait(&pool->settled, &pool->lock, &until);
  pthread_mutex_unlock(&pool->lock);
}

/* ---- life ---- */

static void stop_helpers(nq__pool_t *pool) {
  pthread_mutex_lock(&pool->lock);
  pool->quitting = 1;
  atomic_store(&pool->cancelled, 1);
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->lock);
  for (int i = 0; i < pool->helper_count; i++) {
    if (pool->helpers[i].started)
      pthread_join(pool->helpers[i].thread, NULL);
    nq__run_solver_close(pool->run, pool->helpers[i].search);
  }
}

static int start_helpers(nq__pool_t *pool) {
  for (int i = 0; i < pool->helper_count; i++) {
    helper_t *helper = &pool->helpers[i];
    helper->pool = pool;
    int rc = nq__run_solver_open(&helper->search, pool->run);
    if (rc != NQ_OK)
      return rc;
    nq__run_solver_set_cancel(pool->run, helper->search, helper_cancelled, helper);
    if (pthread_create(&helper->thread, NULL, helper_main, helper) != 0)
      return NQ_ENOMEM;
    helper->started = 1;
  }
  return NQ_OK;
}

int nq__pool_create(nq__pool_t **out, const nq__run_t *run, int helpers) {
  *out = NULL;
  nq__pool_t *pool = calloc(1, sizeof *pool);
  if (pool == NULL)
    return NQ_ENOMEM;
  pool->run = run;
  pool->helper_count = helpers > 0 ? helpers : 0;
  pool->helpers = calloc((size_t)pool->helper_count + 1, sizeof *pool->helpers);
  atomic_init(&pool->cancelled, 0);
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->settled, NULL);
  int rc = pool->helpers != NULL ? start_helpers(pool) : NQ_ENOMEM;
  if (rc != NQ_OK) {
    nq__pool_destroy(pool);
    return rc;
  }
  *out = pool;
  return NQ_OK;
}

void nq__pool_destroy(nq__pool_t *pool) {
  if (pool == NULL)
    return;
  if (pool->helpers != NULL)
    stop_helpers(pool);
  while (pool->head != NULL) {
    pool_batch_t *next = pool->head->next;
    free_batch(pool->head);
    pool->head = next;
  }
  while (pool->released != NULL) {
    pool_batch_t *next = pool->released->next;
    free_batch(pool->released);
    pool->released = next;
  }
  pthread_cond_destroy(&pool->work);
  pthread_cond_destroy(&pool->settled);
  pthread_mutex_destroy(&pool->lock);
  free(pool->helpers);
  free(pool);
}
