#ifndef AUTHLOG_CMAXMINDDB_SHIM_H
#define AUTHLOG_CMAXMINDDB_SHIM_H
#include <maxminddb.h>

/* glibc declares memfd_create only under _GNU_SOURCE, which would give this module's system headers other
   definitions than Glibc's Swift module has; the prototype is glibc's (2.27 and later). */
int memfd_create(const char *name, unsigned int flags);

/* An anonymous file in memory, closed on exec (MFD_CLOEXEC is 1): a private copy of a MaxMind DB file, so
   that the operator's later writes to the original cannot change the bytes under libmaxminddb's mapping. */
static inline int authlog_private_memory_file(const char *name) {
    return memfd_create(name, 1U);
}
#endif
