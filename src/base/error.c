#include "nqueens/error.h"

#include <stddef.h>

typedef struct error_message {
  int code;
  const char *message;
} error_message_t;

#define ERROR_ENTRY(name, value, message) {name, message},
static const error_message_t messages[] = {NQ_ERROR_TABLE(ERROR_ENTRY)};
#undef ERROR_ENTRY

const char *nq_strerror(int code) {
  for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++)
    if (messages[i].code == code)
      return messages[i].message;
  return "unknown error";
}
