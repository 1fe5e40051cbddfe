#ifndef PUSHSEAL_CSQLITE_SHIMS_H
#define PUSHSEAL_CSQLITE_SHIMS_H
/*
 * Two wrappers for what Swift cannot call or import from <sqlite3.h>. The header names the types
 * itself instead of including <sqlite3.h>, so that it belongs to no SQLite module: SQLite comes
 * from the SDK's SQLite3 module on Apple platforms and from the CSQLite system library elsewhere.
 */
typedef struct sqlite3 sqlite3;

/* sqlite3_db_config is variadic: the fixed-arity form for (int, int *) options. */
int pushseal_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result);

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
void (*pushseal_sqlite3_transient(void))(void *);
#endif
