#ifndef NQ_SRC_PROVENANCE_H
#define NQ_SRC_PROVENANCE_H

/* --json FILE: the provenance record of a count or a merge (what was
 * computed, when, where, by which build, from which journal), written
 * durably.  docs/design.md, "The provenance record", lists every field. */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "message.h"

#define NQ_SHA256_HEX 65 /* 64 hex digits and the NUL */

typedef struct nq__provenance {
  int64_t started_ms, ended_ms; /* wall clock, ms since the Unix epoch */
  double cpu_seconds;           /* user + system of every rank's process */
  char *hosts; /* rank 0: distinct host names, sorted, MPI_MAX_PROCESSOR_NAME apart */
  int host_count;
  char mpi_library[MPI_MAX_LIBRARY_VERSION_STRING];
} nq__provenance_t;

/* Notes the start (every rank may call it; rank 0's is the one kept). */
void nq__provenance_start(nq__provenance_t *p);

/* Collective: the end time, every process's CPU time and host, the MPI
 * library.  NQ_EMPI or NQ_ENOMEM on failure. */
int nq__provenance_gather(nq__provenance_t *p, MPI_Comm comm);

void nq__provenance_clear(nq__provenance_t *p);

/* UTC ISO-8601 with milliseconds: 2026-11-30T22:40:08.123Z. */
void nq__provenance_iso_time(char out[32], int64_t ms);

/* The SHA-256 of a file's bytes as lowercase hex.  NQ_EIO with `message`. */
int nq__provenance_sha256(char out[NQ_SHA256_HEX], const char *path,
                          char message[static NQ__MESSAGE_SIZE]);

/* Bad input, before any work: where --json FILE may go.  FILE must be a
 * regular file (replaced) or a name to create in a directory that exists
 * and can be written; a symbolic link is followed to its target, which
 * must exist and be a regular file; a FIFO, a device, a directory or a
 * dangling link is refused.  FILE must not be any of the `keep` files (the
 * checkpoint journal, the journals merged), under any name: by path and,
 * where both exist, by device and inode.  `target` (PATH_MAX bytes)
 * receives the path to write: FILE, or its link's target.  NQ_EINVAL
 * with `message`. */
int nq__provenance_check_destination(char *target, const char *path, const char *const *keep,
                                     int keep_count, char message[static NQ__MESSAGE_SIZE]);

/* A temporary file beside `path` to write the record into, and its name
 * (`temp`, PATH_MAX bytes), with the mode the record will have: that of
 * the file it replaces, or what the umask leaves of 0666 for a new one.
 * NULL with `message` on failure. */
FILE *nq__provenance_open_temp(const char *path, char *temp, char message[static NQ__MESSAGE_SIZE]);

/* Syncs and closes `file`, renames `temp` over `path`, syncs the
 * directory: the record is whole on the disk or absent.  NQ_EIO with
 * `message` (the temporary file is removed). */
int nq__provenance_commit(FILE *file, const char *temp, const char *path,
                          char message[static NQ__MESSAGE_SIZE]);

#endif
