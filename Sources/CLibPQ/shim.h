#ifndef PUSHSEAL_CLIBPQ_SHIM_H
#define PUSHSEAL_CLIBPQ_SHIM_H
/* libpq, PostgreSQL's client library, from the system (Debian: libpq-dev). */
#include <libpq-fe.h>
#endif
