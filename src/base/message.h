#ifndef NQ_SRC_MESSAGE_H
#define NQ_SRC_MESSAGE_H

/* Room for the one line a module writes to explain a failure to its
 * caller (a path included; cut short past this).  Every function that
 * explains its failures takes `char message[static NQ__MESSAGE_SIZE]`, so
 * that no caller can pass a buffer too small for what it receives. */
#define NQ__MESSAGE_SIZE 1024

/* Writes the line into `message`, cut short (and still ended) where it
 * does not fit: a path of PATH_MAX bytes may not. */
__attribute__((format(printf, 2, 3))) void nq__message(char message[static NQ__MESSAGE_SIZE],
                                                       const char *format, ...);

#endif
