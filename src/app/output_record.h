#ifndef NQ_SRC_OUTPUT_RECORD_H
#define NQ_SRC_OUTPUT_RECORD_H

#include "cli.h"
#include "merge.h"
#include "nqueens/count.h"
#include "output.h"
#include "provenance.h"

/* --json FILE: the provenance record of a count (`journal_sha256` "" when
 * it ran without a journal), or of a merge (`sha256s`: each journal's). */
int nq__output_count_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq_count_result_t *result, const nq__provenance_t *p,
                            const char *journal_sha256);
int nq__output_merge_record(nq__output_t *output, const nq__cli_t *cli,
                            const nq__merge_result_t *result, const nq__provenance_t *p,
                            char (*sha256s)[NQ_SHA256_HEX]);

#endif
