#ifndef NQ_SRC_RECORD_TOTAL_H
#define NQ_SRC_RECORD_TOTAL_H

/* Reading back a --json record: whether the file at --json's path holds a
 * total, which a merge without one, or a slice's count, must not replace. */

#define NQ__RECORD_TOTAL_SIZE 64 /* a total's decimal digits and the NUL */

/* 1 when `path` is a record (`count` of no slice, or `merge` with `complete` true)
 * whose `solutions` is a decimal string: its board in `n` and that string
 * in `solutions`; 0 for anything else (no file, not JSON, a merge with no
 * total, another program's file). */
int nq__record_total_read(const char *path, int *n, char solutions[NQ__RECORD_TOTAL_SIZE]);

#endif
