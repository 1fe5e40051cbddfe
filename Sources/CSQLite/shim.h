#ifndef PUSHSEAL_CSQLITE_SHIM_H
#define PUSHSEAL_CSQLITE_SHIM_H
/* SQLite from the system (Linux: libsqlite3-dev); Apple platforms use the SDK's SQLite3 module. */
#include <sqlite3.h>
#endif
