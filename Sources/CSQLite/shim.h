#ifndef PUSHSEAL_CSQLITE_SHIM_H
#define PUSHSEAL_CSQLITE_SHIM_H
#include <sqlite3.h>

/* Swift cannot call C variadic functions: fixed-arity wrappers for the few we use. */
static inline int pushseal_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
static inline sqlite3_destructor_type pushseal_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}
#endif
