#include "message.h"

#include <stdarg.h>
#include <stdio.h>

void nq__message(char message[static NQ__MESSAGE_SIZE], const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(message, NQ__MESSAGE_SIZE, format, args);
  va_end(args);
}
