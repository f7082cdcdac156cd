/* The buffered output stream and the pieces every formatter appends
 * (output_count.c, output_merge.c, output_record.c, output_estimate.c,
 * output_boards.c write the modes' results with them). */
#include "output.h"

#include <errno.h>
#include <gmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/error.h"

int nq__output_open(nq__output_t *output, FILE *stream, size_t capacity) {
  *output = (nq__output_t){.stream = stream, .status = NQ_OK};
  if (capacity < NQ_OUTPUT_MIN_CAPACITY)
    return NQ_EINVAL;
  output->buffer = malloc(capacity);
  if (output->buffer == NULL)
    return NQ_ENOMEM;
  output->capacity = capacity;
  return NQ_OK;
}

/* Only the first failure counts: what follows it is a consequence. */
static void fail(nq__output_t *output, int code, int write_errno) {
  if (output->status != NQ_OK)
    return;
  output->status = code;
  output->write_errno = write_errno;
}

/* errno is cleared first so that a failure which sets none reports none,
 * not a stale reason.  ferror as well as the count: glibc's fwrite to an
 * unbuffered stream can report every byte written when the write failed. */
static void write_buffer(nq__output_t *output) {
  if (output->status == NQ_OK && output->used > 0) {
    errno = 0;
    size_t written = fwrite(output->buffer, 1, output->used, output->stream);
    if (written != output->used || ferror(output->stream))
      fail(output, NQ_EIO, errno);
  }
  output->used = 0;
}

int nq__output_flush(nq__output_t *output) {
  write_buffer(output);
  if (output->status == NQ_OK) {
    errno = 0;
    if (fflush(output->stream) != 0 || ferror(output->stream))
      fail(output, NQ_EIO, errno);
  }
  return output->status;
}

void nq__output_close(nq__output_t *output) {
  free(output->buffer);
  output->buffer = NULL;
  output->used = output->capacity = 0;
}

/* Where the next `size` bytes go, after writing the buffer out if they do
 * not fit behind what it holds; NULL once the output has failed.  The
 * caller adds what it wrote to `used`. */
char *nq__output_room(nq__output_t *output, size_t size) {
  if (output->status != NQ_OK)
    return NULL;
  if (output->capacity - output->used < size) {
    write_buffer(output);
    if (output->status != NQ_OK)
      return NULL;
    if (size > output->capacity) {
      fail(output, NQ_EINVAL, 0);
      return NULL;
    }
  }
  return output->buffer + output->used;
}

void nq__output_append(nq__output_t *output, const char *bytes, size_t size) {
  char *room = nq__output_room(output, size);
  if (room == NULL)
    return;
  memcpy(room, bytes, size);
  output->used += size;
}

void nq__output_text(nq__output_t *output, const char *text) {
  nq__output_append(output, text, strlen(text));
}

void nq__output_char(nq__output_t *output, char c) { nq__output_append(output, &c, 1); }

/* printf's conversions plus GMP's %Zd for the big counts.  Measured
 * first, then formatted straight into the buffer. */
void nq__output_format(nq__output_t *output, const char *format, ...) {
  va_list measure, print;
  va_start(measure, format);
  va_copy(print, measure);
  int length = gmp_vsnprintf(NULL, 0, format, measure);
  if (length < 0) {
    fail(output, NQ_EINVAL, 0);
  } else {
    char *room = nq__output_room(output, (size_t)length + 1); /* and the final NUL */
    if (room != NULL) {
      gmp_vsnprintf(room, (size_t)length + 1, format, print);
      output->used += (size_t)length;
    }
  }
  va_end(print);
  va_end(measure);
}


/* The bytes of the UTF-8 character at `s` (RFC 3629: the shortest form,
 * no surrogates, nothing past U+10FFFF), or 0 where none starts there. */
static int utf8_length(const unsigned char *s) {
  if (s[0] < 0x80)
    return 1;
  int length = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  if (length == 0 || s[0] > 0xF4)
    return 0;
  for (int i = 1; i < length; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  const int overlong = (s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xF0 && s[1] < 0x90);
  const int surrogate = s[0] == 0xED && s[1] >= 0xA0;
  const int past_unicode = s[0] == 0xF4 && s[1] >= 0x90;
  return overlong || surrogate || past_unicode ? 0 : length;
}

/* A JSON string: quotes, backslashes and control characters escaped; a
 * byte that starts no UTF-8 character (a file name in another encoding)
 * as U+FFFD, the replacement character, since JSON text is UTF-8. */
void nq__output_json_string(nq__output_t *output, const char *text) {
  nq__output_char(output, '"');
  for (const unsigned char *c = (const unsigned char *)text; *c;) {
    int length = utf8_length(c);
    if (length == 0)
      nq__output_text(output, "\\ufffd");
    else if (*c == '"' || *c == '\\')
      nq__output_format(output, "\\%c", *c);
    else if (*c < 0x20)
      nq__output_format(output, "\\u%04x", *c);
    else
      for (int i = 0; i < length; i++)
        nq__output_char(output, (char)c[i]);
    c += length > 0 ? length : 1;
  }
  nq__output_char(output, '"');
}

void nq__output_json_slice(nq__output_t *output, int index, int count) {
  if (count > 1)
    nq__output_format(output, ",\"slice\":\"%d/%d\"", index + 1, count);
}

void nq__output_bytes(nq__output_t *output, size_t bytes) {
  const int in_gib = (bytes >> 30) != 0;
  nq__output_format(output, "%.4g %s", (double)bytes / (double)((size_t)1 << (in_gib ? 30 : 20)),
                    in_gib ? "GiB" : "MiB");
}
