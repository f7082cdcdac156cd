/* Benchmark of the work distribution (not a test; docs/scaling.md): a whole
 * count over every rank of the job, with simulated units
 * (nq__faults_t.simulated_seconds) that sleep a cost drawn per unit id
 * instead of being searched, so hundreds of oversubscribed ranks measure
 * the master and the end of the run, not the kernel.
 *
 *   mpirun --oversubscribe -np RANKS bench_master [options]
 *     --n N --depth D   the board and unit depth: the unit count (default
 *                       n 20, depth 0 = the program's default)
 *     --method M        backtrack or join: whose units (the join's: its
 *                       canonical column sets, depth = its top rows)
 *     --batch UNITS     units per batch (0 = the program's default)
 *     --cost MODEL      zero, const, lognormal, pareto or trace (default lognormal)
 *     --scale SECONDS   the mean cost of a unit (default 0.001)
 *     --sigma S         lognormal: sigma of the log (default 0.7)
 *     --alpha A         pareto: the tail index, above 1 (default 3.3)
 *     --trace FILE      trace: unit_times --write output; unit id k costs the
 *                       node count of line k mod lines (real work without
 *                       the timer's noise), rescaled to mean SCALE
 *     --seed S          the draws (default 1)
 *     --ranks R         only the first R ranks count; the others sleep (default all)
 *     --poll-ms MS      a simulated unit on a rank but 0 asks the searcher's
 *                       cancel hook every MS ms (default 20)
 *     --master-poll-ms MS  ... on rank 0 (default 1, as the real walks: the
 *                       master's hook answers workers inside its own units)
 *     --polite-wait-ms MS  blocking MPI waits sleep between tests, up to MS ms
 *                       (default 0: Open MPI's own, spinning; see below)
 *     --repeat K        runs of the same settings (default 1)
 *     --label TEXT      first column of the figures (e.g. the scheduler)
 *     --data FILE       rank 0 also appends the figures to FILE
 *     --ranks-file FILE rank 0 writes each rank's units, work and times (last run)
 *     --then OPTIONS    another group of runs, from the settings before it
 *
 * Starting hundreds of ranks on a few cores takes minutes (docs/scaling.md),
 * so one job can measure several rank counts and settings: `--ranks 32
 * --then --ranks 64 ...`.  Rank 0 prints one line of figures per run
 * (columns named in the line above the first) and exits 1 when the
 * accounting of any run is off: each must total Q = units, nodes = units
 * (units + 1) / 2 and exactly the simulated work of every unit id once. */

#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "nqueens/count.h"
#include "nqueens/error.h"
#include "nqueens/units.h"
#include "messages.h"
#include "method.h"
#include "count_faults.h"
#include "run.h"

#define PI 3.14159265358979323846

/* ---- messages at the master, through MPI's profiling interface ----
 * The library is linked statically into this program, so its MPI calls
 * come here first, whatever scheduler it runs: point-to-point sends, and
 * receives posted, while the count runs.  (Persistent requests and
 * collectives are not counted.)
 *
 * The same interface can make blocking calls wait politely: Open MPI
 * spins in MPI_Wait (yielding, with mpi_yield_when_idle), and hundreds of
 * idle ranks spinning on 2 cores slow the ranks still working, which a
 * cluster, one core per rank, never sees.  With --polite-wait-ms MS a
 * blocking wait tests, then sleeps 10 us, 12.5 us, ... (x1.25) up to MS
 * ms between tests: a wait that lasts t ends at most t/4 or MS ms late. */

static int counting;
static uint64_t sends_counted, receives_counted;
static double polite_cap_seconds; /* 0: Open MPI's own waits */

static int count_send(int rc) {
  sends_counted += (uint64_t)counting;
  return rc;
}

static int count_receive(int rc) {
  receives_counted += (uint64_t)counting;
  return rc;
}

static void pause_politely(double *pause) {
  long nanoseconds = (long)(*pause * 1e9);
  nanosleep(&(struct timespec){.tv_sec = nanoseconds / 1000000000L,
                               .tv_nsec = nanoseconds % 1000000000L},
            NULL);
  *pause = fmin(*pause * 1.25, polite_cap_seconds);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (polite_cap_seconds <= 0)
    return PMPI_Wait(request, status);
  for (double pause = 1e-5;; pause_politely(&pause)) {
    int done = 0, rc = PMPI_Test(request, &done, status);
    if (rc != MPI_SUCCESS || done)
      return rc;
  }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (polite_cap_seconds <= 0)
    return PMPI_Waitall(count, requests, statuses);
  for (double pause = 1e-5;; pause_politely(&pause)) {
    int done = 0, rc = PMPI_Testall(count, requests, &done, statuses);
    if (rc != MPI_SUCCESS || done)
      return rc;
  }
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  if (polite_cap_seconds <= 0)
    return PMPI_Waitany(count, requests, index, status);
  for (double pause = 1e-5;; pause_politely(&pause)) {
    int done = 0, rc = PMPI_Testany(count, requests, index, &done, status);
    if (rc != MPI_SUCCESS || done)
      return rc;
  }
}

int MPI_Waitsome(int count, MPI_Request requests[], int *done_count, int indices[],
                 MPI_Status statuses[]) {
  if (polite_cap_seconds <= 0)
    return PMPI_Waitsome(count, requests, done_count, indices, statuses);
  for (double pause = 1e-5;; pause_politely(&pause)) {
    int rc = PMPI_Testsome(count, requests, done_count, indices, statuses);
    if (rc != MPI_SUCCESS || *done_count != 0)
      return rc;
  }
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
  if (polite_cap_seconds <= 0)
    return PMPI_Probe(source, tag, comm, status);
  for (double pause = 1e-5;; pause_politely(&pause)) {
    int found = 0, rc = PMPI_Iprobe(source, tag, comm, &found, status);
    if (rc != MPI_SUCCESS || found)
      return rc;
  }
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
  if (polite_cap_seconds <= 0)
    return PMPI_Mprobe(source, tag, comm, message, status);
  for (double pause = 1e-5;; pause_politely(&pause)) {
    int found = 0, rc = PMPI_Improbe(source, tag, comm, &found, message, status);
    if (rc != MPI_SUCCESS || found)
      return rc;
  }
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (polite_cap_seconds <= 0)
    return count_send(PMPI_Send(buf, count, type, dest, tag, comm));
  MPI_Request request;
  int rc = count_send(PMPI_Isend(buf, count, type, dest, tag, comm, &request));
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&request, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return count_send(PMPI_Ssend(buf, count, type, dest, tag, comm));
}
int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return count_send(PMPI_Rsend(buf, count, type, dest, tag, comm));
}
int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return count_send(PMPI_Bsend(buf, count, type, dest, tag, comm));
}
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
  return count_send(PMPI_Isend(buf, count, type, dest, tag, comm, request));
}
int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return count_send(PMPI_Issend(buf, count, type, dest, tag, comm, request));
}
int MPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return count_send(PMPI_Irsend(buf, count, type, dest, tag, comm, request));
}
int MPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
  return count_send(PMPI_Ibsend(buf, count, type, dest, tag, comm, request));
}
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
  if (polite_cap_seconds <= 0)
    return count_receive(PMPI_Recv(buf, count, type, source, tag, comm, status));
  MPI_Request request;
  int rc = count_receive(PMPI_Irecv(buf, count, type, source, tag, comm, &request));
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&request, status);
}
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
  return count_receive(PMPI_Irecv(buf, count, type, source, tag, comm, request));
}
int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status) {
  return count_receive(PMPI_Mrecv(buf, count, type, message, status));
}
int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
               MPI_Request *request) {
  return count_receive(PMPI_Imrecv(buf, count, type, message, request));
}
int MPI_Sendrecv(const void *send_buf, int send_count, MPI_Datatype send_type, int dest,
                 int send_tag, void *receive_buf, int receive_count, MPI_Datatype receive_type,
                 int source, int receive_tag, MPI_Comm comm, MPI_Status *status) {
  count_send(MPI_SUCCESS);
  return count_receive(PMPI_Sendrecv(send_buf, send_count, send_type, dest, send_tag,
                                     receive_buf, receive_count, receive_type, source,
                                     receive_tag, comm, status));
}

/* ---- the cost of a unit: a pure function of its id ----
 * Whichever rank solves a unit, it costs the same, so the work is known
 * before the run and a unit lost or solved twice changes its sum. */

typedef enum cost_model { COST_ZERO, COST_CONST, COST_LOGNORMAL, COST_PARETO, COST_TRACE } cost_model_t;

static const char *const cost_names[] = {"zero", "const", "lognormal", "pareto", "trace"};

typedef struct cost {
  cost_model_t model;
  double scale; /* mean seconds a unit */
  double sigma, alpha;
  uint64_t seed;
  double *trace; /* COST_TRACE: seconds by id modulo trace_length, mean 1 */
  uint64_t trace_length;
} cost_t;

/* splitmix64 of (seed, id, stream): independent uniforms in (0, 1). */
static double uniform(const cost_t *cost, uint64_t id, uint64_t stream) {
  uint64_t z = cost->seed * 0x9e3779b97f4a7c15u + id * 0xd1b54a32d192ed03u + stream;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

/* Nanoseconds, so that sums are exact. */
static uint64_t cost_ns(const cost_t *cost, uint64_t id) {
  double mean_one = 0.0; /* a draw of mean 1 */
  switch (cost->model) {
  case COST_ZERO:
    return 0;
  case COST_CONST:
    mean_one = 1.0;
    break;
  case COST_LOGNORMAL: {
    double normal = sqrt(-2.0 * log(uniform(cost, id, 0))) * cos(2.0 * PI * uniform(cost, id, 1));
    mean_one = exp(cost->sigma * normal - 0.5 * cost->sigma * cost->sigma);
    break;
  }
  case COST_PARETO: /* x_min (alpha - 1) / alpha, so that the mean is 1 */
    mean_one = (cost->alpha - 1.0) / cost->alpha * pow(uniform(cost, id, 0), -1.0 / cost->alpha);
    break;
  case COST_TRACE:
    mean_one = cost->trace[id % cost->trace_length];
    break;
  }
  return (uint64_t)llround(mean_one * cost->scale * 1e9);
}

/* One line per unit, "id seconds nodes ...": the node counts (or the
 * seconds, on lines without them), rescaled to mean 1. */
static int read_trace(cost_t *cost, const char *path) {
  FILE *file = fopen(path, "r");
  if (file == NULL)
    return -1;
  size_t capacity = 0;
  double seconds, nodes, sum = 0.0;
  uint64_t id;
  char line[256];
  while (fgets(line, sizeof line, file) != NULL) {
    int fields = sscanf(line, "%" SCNu64 " %lf %lf", &id, &seconds, &nodes);
    if (fields < 2)
      continue;
    if (fields == 3)
      seconds = nodes;
    if (cost->trace_length == capacity) {
      capacity = capacity ? 2 * capacity : 4096;
      double *grown = realloc(cost->trace, capacity * sizeof *grown);
      if (grown == NULL)
        break;
      cost->trace = grown;
    }
    cost->trace[cost->trace_length++] = seconds;
    sum += seconds;
  }
  fclose(file);
  if (cost->trace_length == 0 || !(sum > 0.0))
    return -1;
  for (uint64_t i = 0; i < cost->trace_length; i++)
    cost->trace[i] *= (double)cost->trace_length / sum;
  return 0;
}

/* ---- what each rank did: kept by the hook, gathered after the run ---- */

typedef struct rank_log {
  const cost_t *cost;
  double started;     /* this rank's clock when the run began */
  uint64_t units;     /* units it was asked to cost (started) */
  uint64_t work_ns;   /* their simulated cost */
  double first_start; /* seconds from `started` to its first unit */
  double last_end;    /* ... to the end of its last unit */
} rank_log_t;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The time every rank measures from, taken right after a barrier.  On one
 * node CLOCK_MONOTONIC is one clock, so all take rank 0's and the ranks'
 * times compare exactly; across nodes each takes its own, a barrier's
 * skew apart. */
static double common_start(MPI_Comm comm) {
  MPI_Comm node;
  int size = 1, node_size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  MPI_Barrier(comm);
  double started = now();
  if (node_size == size)
    MPI_Bcast(&started, 1, MPI_DOUBLE, 0, comm);
  return started;
}

/* The hook: called as each unit starts, on the rank that solves it.  The
 * unit's end is taken as its start plus its cost (the sleep may overrun
 * by a scheduler tick). */
static double simulated_seconds(uint64_t unit_id, void *context) {
  rank_log_t *log = context;
  uint64_t ns = cost_ns(log->cost, unit_id);
  double start = now() - log->started, seconds = (double)ns * 1e-9;
  if (log->units++ == 0)
    log->first_start = start;
  log->work_ns += ns;
  if (start + seconds > log->last_end)
    log->last_end = start + seconds;
  return seconds;
}

/* ---- options ---- */

typedef struct settings {
  int n, depth, batch;
  nq_count_method_t method;
  int ranks;  /* the first this many ranks of the job count (0: all) */
  double poll_ms, master_poll_ms; /* simulated units' cancel-hook slices */
  double polite_wait_ms;
  int repeat; /* runs of this group */
  cost_t cost;
  const char *trace_path, *label, *data_path, *ranks_path;
} settings_t;

/* The options of one group, argv[first..end), over what the group
 * before it set. */
static int parse(settings_t *s, char **argv, int first, int end) {
  for (int i = first; i < end; i++) {
    const char *option = argv[i], *value = i + 1 < end ? argv[i + 1] : NULL;
    if (value == NULL)
      return -1;
    i++;
    if (strcmp(option, "--n") == 0)
      s->n = atoi(value);
    else if (strcmp(option, "--depth") == 0)
      s->depth = atoi(value);
    else if (strcmp(option, "--method") == 0) {
      const nq__method_t *method = nq__method_named(value);
      if (method == NULL)
        return -1;
      s->method = method->id;
    }    else if (strcmp(option, "--batch") == 0)
      s->batch = atoi(value);
    else if (strcmp(option, "--scale") == 0)
      s->cost.scale = atof(value);
    else if (strcmp(option, "--sigma") == 0)
      s->cost.sigma = atof(value);
    else if (strcmp(option, "--alpha") == 0)
      s->cost.alpha = atof(value);
    else if (strcmp(option, "--seed") == 0)
      s->cost.seed = strtoull(value, NULL, 10);
    else if (strcmp(option, "--trace") == 0)
      s->trace_path = value;
    else if (strcmp(option, "--label") == 0)
      s->label = value;
    else if (strcmp(option, "--data") == 0)
      s->data_path = value;
    else if (strcmp(option, "--ranks-file") == 0)
      s->ranks_path = value;
    else if (strcmp(option, "--ranks") == 0)
      s->ranks = atoi(value);
    else if (strcmp(option, "--repeat") == 0)
      s->repeat = atoi(value);
    else if (strcmp(option, "--poll-ms") == 0)
      s->poll_ms = atof(value);
    else if (strcmp(option, "--master-poll-ms") == 0)
      s->master_poll_ms = atof(value);
    else if (strcmp(option, "--polite-wait-ms") == 0)
      s->polite_wait_ms = atof(value);
    else if (strcmp(option, "--cost") == 0) {
      int known = 0;
      for (int m = 0; m <= COST_TRACE; m++)
        if (strcmp(value, cost_names[m]) == 0) {
          s->cost.model = (cost_model_t)m;
          known = 1;
        }
      if (!known)
        return -1;
    } else
      return -1;
  }
  if (s->batch == 0)
    s->batch = NQ_BATCH_DEFAULT; /* what the run takes for 0 */
  if (s->cost.scale < 0 || s->cost.sigma < 0 || s->cost.alpha <= 1.0 || s->batch < 0 ||
      s->batch > NQ_BATCH_MAX || s->ranks < 0 || s->repeat < 1 || !(s->poll_ms > 0) ||
      !(s->master_poll_ms > 0) || !(s->polite_wait_ms >= 0) ||
      strchr(s->label, ' ') != NULL || (s->cost.model == COST_TRACE && s->trace_path == NULL))
    return -1;
  return 0;
}

/* ---- the figures ---- */

typedef struct figures {
  uint64_t units, master_units, sends, receives, calls, work_ns;
  double wall, work, efficiency, idle_end, tail, ramp, after;
  int accounting_ok;
} figures_t;

static const char *const columns =
    "label ranks units batch cost scale wall_s units/s master_sends master_receives "
    "messages/s work_s efficiency idle_end tail_s ramp_s after_s master_units check";

static void print_figures(FILE *out, const settings_t *s, int ranks, const figures_t *f) {
  fprintf(out,
          "%s %d %" PRIu64 " %d %s %.6g %.3f %.4g %" PRIu64 " %" PRIu64 " %.4g %.4g %.4f %.4f %.3f"
          " %.3f %.3f %" PRIu64 " %s\n",
          s->label, ranks, f->units, s->batch, cost_names[s->cost.model], s->cost.scale, f->wall,
          (double)f->units / f->wall, f->sends, f->receives,
          (double)(f->sends + f->receives) / f->wall, f->work, f->efficiency, f->idle_end,
          f->tail, f->ramp, f->after, f->master_units, f->accounting_ok ? "ok" : "FAILED");
}

static void print_cpu(void) {
  FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (cpuinfo != NULL && fgets(line, sizeof line, cpuinfo) != NULL)
    if (strncmp(line, "model name", 10) == 0) {
      printf("# cpu:%s", strchr(line, ':') + 1);
      break;
    }
  if (cpuinfo != NULL)
    fclose(cpuinfo);
}

/* Rank 0: the expected totals, computed from the ids alone.  Backup
 * copies solve some units twice: their calls and cost come on top, and
 * *unique_ns is the work without them. */
static int check_accounting(const nq_count_result_t *result, const cost_t *cost, uint64_t units,
                            uint64_t work_ns, uint64_t calls, uint64_t *unique_ns) {
  uint64_t expected_ns = 0;
  for (uint64_t id = 0; id < units; id++)
    expected_ns += cost_ns(cost, id);
  *unique_ns = expected_ns;
  int copies = result->copies_sent > 0;
  mpz_t nodes;
  mpz_init_set_ui(nodes, (unsigned long)units);
  mpz_mul_ui(nodes, nodes, (unsigned long)units + 1);
  mpz_divexact_ui(nodes, nodes, 2);
  int ok = result->units == units && mpz_cmp_ui(result->solutions, (unsigned long)units) == 0 &&
           mpz_cmp(result->nodes, nodes) == 0 &&
           (copies ? work_ns >= expected_ns && calls >= units
                   : work_ns == expected_ns && calls == units);
  mpz_clear(nodes);
  if (!ok)
    fprintf(stderr,
            "bench_master: accounting off: %" PRIu64 " units expected, %" PRIu64
            " counted, %" PRIu64 " costed; work %" PRIu64 " ns of %" PRIu64 "\n",
            units, result->units, calls, work_ns, expected_ns);
  return ok;
}

/* Every rank's log, gathered; the tail is measured from the units' ends:
 * after the first rank finished its last unit, ranks idle while the last
 * ones finish theirs. */
static int gather(figures_t *f, const rank_log_t *log, MPI_Comm comm, const char *ranks_path) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double mine[4] = {(double)log->units, (double)log->work_ns * 1e-9, log->first_start,
                    log->last_end};
  double *all = rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
  if (rank == 0 && all == NULL)
    return -1;
  uint64_t counts[2] = {log->units, log->work_ns}, sums[2] = {0, 0};
  MPI_Reduce(counts, sums, 2, MPI_UINT64_T, MPI_SUM, 0, comm);
  MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, comm);
  if (rank != 0)
    return 0;
  f->calls = sums[0];
  f->work_ns = sums[1];
  f->work = (double)sums[1] * 1e-9;
  double first_done = INFINITY, last_done = 0.0, idle = 0.0;
  f->ramp = 0.0;
  for (int r = 0; r < size; r++) {
    first_done = fmin(first_done, all[4 * r + 3]);
    last_done = fmax(last_done, all[4 * r + 3]);
    f->ramp = fmax(f->ramp, all[4 * r + 2]);
  }
  for (int r = 0; r < size; r++)
    idle += last_done - all[4 * r + 3];
  f->idle_end = idle / ((double)size * f->wall);
  f->tail = last_done - first_done;
  f->after = f->wall - last_done;
  f->master_units = (uint64_t)all[0];
  FILE *out = ranks_path != NULL ? fopen(ranks_path, "w") : NULL;
  if (out != NULL) {
    fprintf(out, "# rank units work_s first_start_s last_end_s\n");
    for (int r = 0; r < size; r++)
      fprintf(out, "%d %.0f %.6f %.6f %.6f\n", r, all[4 * r], all[4 * r + 1], all[4 * r + 2],
              all[4 * r + 3]);
    fclose(out);
  }
  free(all);
  return 0;
}

/* A rank that sits a run out waits for the others without spinning: an
 * idle rank polling MPI would take the CPU from the ranks being measured
 * on an oversubscribed machine. */
static void sleeping_barrier(MPI_Comm comm) {
  MPI_Request barrier;
  int done = 0;
  MPI_Ibarrier(comm, &barrier);
  for (;;) {
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    if (done)
      return;
    nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
  }
}

/* One count on `comm` and its figures; 1 when the accounting is off. */
static int run_once(const settings_t *s, uint64_t units, MPI_Comm comm, int header) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  nq_count_options_t options = {
      .n = s->n, .method = s->method, .depth = s->depth, .batch_units = s->batch};
  rank_log_t log = {.cost = &s->cost};
  nq__faults_t faults = NQ_NO_FAULTS;
  faults.simulated_seconds = simulated_seconds;
  faults.simulated_context = &log;
  faults.simulated_poll_seconds = 1e-3 * (rank == 0 ? s->master_poll_ms : s->poll_ms);
  nq_count_result_t result;
  nq_count_result_init(&result);
  log.started = common_start(comm);
  sends_counted = receives_counted = 0;
  counting = 1;
  polite_cap_seconds = 1e-3 * s->polite_wait_ms;
  int rc = nq__count_run_with_faults(&result, &options, faults, comm);
  polite_cap_seconds = 0;
  counting = 0;
  figures_t f = {.units = units, .wall = now() - log.started, .sends = sends_counted,
                 .receives = receives_counted};
  if (rc != NQ_OK) {
    fprintf(stderr, "bench_master: rank %d: %s\n", rank, nq_strerror(rc));
    MPI_Abort(comm, 1);
  }
  if (gather(&f, &log, comm, s->ranks_path) != 0)
    MPI_Abort(comm, 1);
  int status = 0;
  if (rank == 0) {
    uint64_t unique_ns = 0;
    f.accounting_ok = check_accounting(&result, &s->cost, units, f.work_ns, f.calls, &unique_ns);
    f.work = (double)unique_ns * 1e-9; /* a copy's second solve is not useful work */
    f.efficiency = f.work / ((double)size * f.wall);
    if (header) {
      printf("# n %d, %s, depth %d, %s costs", s->n, nq__method_of(s->method)->name, result.depth,
             cost_names[s->cost.model]);
      if (s->cost.model == COST_LOGNORMAL)
        printf(", sigma %g", s->cost.sigma);
      else if (s->cost.model == COST_PARETO)
        printf(", alpha %g", s->cost.alpha);
      else if (s->cost.model == COST_TRACE)
        printf(" from %s (%" PRIu64 " units)", s->trace_path, s->cost.trace_length);
      printf(", seed %" PRIu64 "\n# %s\n", s->cost.seed, columns);
    }
    print_figures(stdout, s, size, &f);
    fflush(stdout);
    FILE *data = s->data_path != NULL ? fopen(s->data_path, "a") : NULL;
    if (data != NULL) {
      fseek(data, 0, SEEK_END);
      if (ftell(data) == 0)
        fprintf(data, "# %s\n", columns);
      print_figures(data, s, size, &f);
      fclose(data);
    }
    status = f.accounting_ok ? 0 : 1;
  }
  nq_count_result_clear(&result);
  return status;
}

/* The units of the group's method, n and depth. */
static int units_of(uint64_t *units, const settings_t *s) {
  const nq__method_t *method = nq__method_of(s->method);
  nq__method_params_t params = {.n = s->n, .unit_param = s->depth};
  if (params.unit_param == 0)
    params.unit_param = method->default_unit_param(s->n);
  if (method->check(&params) != NQ_OK)
    return -1;
  return method->units_total(units, &params, NULL) == NQ_OK ? 0 : -1;
}

static void usage(void) {
  fprintf(stderr,
          "usage: mpirun -np RANKS bench_master [--n N] [--depth D] [--method M] [--batch UNITS]\n"
          "  [--cost zero|const|lognormal|pareto|trace] [--scale SECONDS] [--sigma S]\n"
          "  [--alpha A] [--trace FILE] [--seed S] [--ranks R] [--repeat K] [--poll-ms MS]\n"
          "  [--master-poll-ms MS] [--polite-wait-ms MS] [--label TEXT] [--data FILE]\n"
          "  [--ranks-file FILE] [--then OPTIONS...]...  (see tests/bench_master.c)\n");
}

int main(int argc, char **argv) {
#ifdef __linux__
  /* Sleeps end within a microsecond of their deadline, not Linux's
   * default 50: simulated units then cost what they say. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Every group is checked before the first run: all ranks read the same
   * argv, so all agree. */
  settings_t *groups = calloc((size_t)argc, sizeof *groups);
  int group_count = 0, bad = groups == NULL;
  settings_t s = {.n = 20, .label = "today", .repeat = 1, .poll_ms = 20, .master_poll_ms = 1,
                  .cost = {.model = COST_LOGNORMAL, .scale = 0.001, .sigma = 0.7, .alpha = 3.3,
                           .seed = 1}};
  for (int first = 1; !bad && first <= argc;) {
    int end = first;
    while (end < argc && strcmp(argv[end], "--then") != 0)
      end++;
    const char *trace_before = s.trace_path;
    uint64_t units = 0;
    bad = parse(&s, argv, first, end) != 0 || units_of(&units, &s) != 0 || s.ranks > size;
    if (!bad && s.trace_path != trace_before) {
      s.cost.trace = NULL; /* the group before keeps its own */
      s.cost.trace_length = 0;
      bad = read_trace(&s.cost, s.trace_path) != 0;
    }
    if (!bad)
      groups[group_count++] = s;
    first = end + 1;
  }
  if (bad) {
    if (rank == 0)
      usage();
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    print_cpu();
  int status = 0;
  for (int g = 0; g < group_count; g++) {
    const settings_t *group = &groups[g];
    uint64_t units = 0;
    units_of(&units, group);
    int ranks = group->ranks > 0 ? group->ranks : size;
    for (int run = 0; run < group->repeat; run++) {
      MPI_Comm comm;
      MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &comm);
      if (comm != MPI_COMM_NULL) {
        status |= run_once(group, units, comm, run == 0);
        MPI_Comm_free(&comm);
      }
      sleeping_barrier(MPI_COMM_WORLD);
    }
  }
  for (int g = 0; g < group_count; g++)
    if (g == 0 || groups[g].cost.trace != groups[g - 1].cost.trace)
      free(groups[g].cost.trace);
  free(groups);
  MPI_Finalize();
  return status;
}
