/* --json FILE: the provenance records of a count and of a merge. */
#include "output_record.h"

#include <gmp.h>
#include <inttypes.h>
#include <stdlib.h>

#include "build_info.h"
#include "method.h"
#include "output_count.h"
#include "output_merge.h"

#ifndef NQ_VERSION
#define NQ_VERSION "unknown"
#endif

/* "key":"text", the text escaped. */
static void append_json_field(nq__output_t *output, const char *key, const char *text) {
  nq__output_format(output, ",\"%s\":", key);
  nq__output_json_string(output, text);
}

/* What every record says of when, where and by what it was made. */
static void append_origin(nq__output_t *output, const nq__provenance_t *p) {
  char started[32], ended[32];
  nq__provenance_iso_time(started, p->started_ms);
  nq__provenance_iso_time(ended, p->ended_ms);
  append_json_field(output, "started", started);
  append_json_field(output, "ended", ended);
  nq__output_format(output, ",\"wall_seconds\":%.3f,\"cpu_seconds\":%.3f",
                (double)(p->ended_ms - p->started_ms) / 1000.0, p->cpu_seconds);
  nq__output_text(output, ",\"hosts\":[");
  for (int i = 0; i < p->host_count; i++) {
    nq__output_text(output, i ? "," : "");
    nq__output_json_string(output, p->hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME);
  }
  nq__output_char(output, ']');
  append_json_field(output, "version", NQ_VERSION);
  append_json_field(output, "git_commit", NQ_GIT_COMMIT);
  append_json_field(output, "compiler", NQ_BUILD_COMPILER);
  append_json_field(output, "compiler_flags", NQ_BUILD_FLAGS);
  append_json_field(output, "build_type", NQ_BUILD_TYPE);
  append_json_field(output, "mpi_library", p->mpi_library);
  append_json_field(output, "gmp_version", gmp_version);
  static const char *const slurm[][2] = {{"slurm_job_id", "SLURM_JOB_ID"},
                                         {"slurm_array_job_id", "SLURM_ARRAY_JOB_ID"},
                                         {"slurm_array_task_id", "SLURM_ARRAY_TASK_ID"}};
  for (size_t i = 0; i < sizeof slurm / sizeof slurm[0]; i++) {
    const char *value = getenv(slurm[i][1]);
    if (value != NULL && value[0] != '\0')
      append_json_field(output, slurm[i][0], value);
  }
}

int nq__output_count_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq_count_result_t *r, const nq__provenance_t *p,
                            const char *journal_sha256) {
  nq__output_format(output, "{\"record\":\"count\",\"n\":%d,\"solutions\":\"%Zd\"", cli->n,
                r->solutions);
  if (cli->unique)
    nq__output_format(output, r->slice_count > 1 ? ",\"unique_times_8\":\"%Zd\"" : ",\"unique\":\"%Zd\"",
                  r->unique);
  nq__output_format(output, ",\"nodes\":\"%Zd\"", r->nodes);
  nq__output_residues(output, r->solutions_mod);
  nq__output_json_slice(output, r->slice_index, r->slice_count);
  append_origin(output, p);
  const nq__method_t *method = nq__method_of(r->method);
  nq__output_format(output, ",\"ranks\":%d,\"threads\":%d,\"gpu_ranks\":%d,\"method\":\"%s\"",
                r->ranks, r->threads, r->gpu_ranks, method->name);
  if (r->method == NQ_COUNT_BACKTRACK)
    nq__output_format(output, ",\"walk\":\"%s\"", nq_walk_name(r->walk));
  else
    nq__output_format(output, ",\"memory_per_rank\":%zu", r->memory);
  nq__output_format(output,
                ",\"unit_scheme\":%d,\"depth\":%d,\"units\":%llu,\"resumed_units\":%llu,"
                "\"restarts\":%llu",
                method->scheme(cli->n, r->depth), r->depth,
                (unsigned long long)(r->units - r->resumed_units),
                (unsigned long long)r->resumed_units, (unsigned long long)r->restarts);
  if (cli->verify > 0)
    nq__output_format(output,
                  ",\"verified\":{\"fraction\":%g,\"seed\":%llu,\"batches\":%llu,\"units\":%llu,"
                  "\"by_other_ranks\":%llu,\"method\":\"journaled batches solved again, each on "
                  "another rank than its record names where the run has more than one, compared "
                  "exactly; verdicts in the journal\"}",
                  cli->verify, (unsigned long long)cli->seed,
                  (unsigned long long)r->verified_batches, (unsigned long long)r->verified_units,
                  (unsigned long long)r->verified_by_other_ranks);
  if (r->copies_sent > 0)
    nq__output_format(output, ",\"backup_copies\":%llu,\"backup_copies_confirmed\":%llu",
                  (unsigned long long)r->copies_sent, (unsigned long long)r->copies_confirmed);
  if (cli->checkpoint != NULL) {
    append_json_field(output, "journal", cli->checkpoint);
    append_json_field(output, "journal_sha256", journal_sha256);
  }
  nq__output_text(output, "}\n");
  return output->status;
}

int nq__output_merge_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq__merge_result_t *r, const nq__provenance_t *p,
                            char (*sha256s)[NQ_SHA256_HEX]) {
  nq__output_format(output, "{\"record\":\"merge\",\"n\":%d", r->header.n);
  nq__output_merge_totals(output, r);
  append_origin(output, p);
  nq__output_format(output,
                ",\"unit_scheme\":%d,\"depth\":%d,\"units\":%" PRIu64 ",\"units_present\":%" PRIu64
                ",\"units_confirmed\":%" PRIu64 ",\"units_uncompared\":%" PRIu64
                ",\"checks\":%" PRIu64 ",\"checks_confirmed\":%" PRIu64
                ",\"lines_copied\":%" PRIu64 ",\"missing_units\":%" PRIu64
                ",\"conflicts\":%zu,\"journals\":[",
                r->header.scheme, r->header.depth, r->header.total_units, r->units_present,
                r->units_confirmed, r->units_uncompared, r->checks, r->checks_confirmed,
                r->lines_copied, r->units_missing, r->conflict_count);
  for (int i = 0; i < cli->merge_count; i++) {
    nq__output_text(output, i ? ",{\"path\":" : "{\"path\":");
    nq__output_json_string(output, cli->merge_files[i]);
    nq__output_format(output, ",\"sha256\":\"%s\"}", sha256s[i]);
  }
  nq__output_text(output, "]}\n");
  return output->status;
}
