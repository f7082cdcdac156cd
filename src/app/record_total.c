/* A record is read with jansson, not by matching its text: the file at
 * --json's path may be any JSON, written by anyone, in any key order. */
#include "record_total.h"

#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "nqueens/frame.h"

/* Records are a few kB (a merge of thousands of journals, hundreds of kB);
 * a file far larger is no record, and is not read into memory. */
#define RECORD_MOST_BYTES (64L << 20)

static int is_decimal(const char *text) {
  if (*text == '\0')
    return 0;
  for (; *text != '\0'; text++)
    if (*text < '0' || *text > '9')
      return 0;
  return 1;
}

static int holds_total(const json_t *record) {
  const char *kind = json_string_value(json_object_get(record, "record"));
  if (kind == NULL)
    return 0;
  if (strcmp(kind, "merge") == 0)
    return json_is_true(json_object_get(record, "complete"));
  /* A slice's count is one part of Q(n): its solutions are not the total. */
  return strcmp(kind, "count") == 0 && json_object_get(record, "slice") == NULL;
}

int nq__record_total_read(const char *path, int *n, char solutions[NQ__RECORD_TOTAL_SIZE]) {
  struct stat info;
  if (stat(path, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size > RECORD_MOST_BYTES)
    return 0;
  json_t *record = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
  const json_t *board = json_object_get(record, "n");
  const char *total = json_string_value(json_object_get(record, "solutions"));
  int found = json_is_object(record) && holds_total(record) && json_is_integer(board) &&
              json_integer_value(board) >= 0 && json_integer_value(board) <= NQ_MAX_N &&
              total != NULL && is_decimal(total) && strlen(total) < NQ__RECORD_TOTAL_SIZE;
  if (found) {
    *n = (int)json_integer_value(board);
    strcpy(solutions, total);
  }
  json_decref(record);
  return found;
}
