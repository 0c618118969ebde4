#ifndef AUTHLOG_CLIBPQ_SHIM_H
#define AUTHLOG_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
