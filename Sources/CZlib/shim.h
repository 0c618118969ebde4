#ifndef AUTHLOG_CZLIB_SHIM_H
#define AUTHLOG_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 is a macro, which Swift does not import: a gzip (RFC 1952) stream, window 2^15, memory level 8. */
static inline int authlog_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
