#include <sqlite3.h>
#include "CSQLiteShims.h"

int pushseal_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

void (*pushseal_sqlite3_transient(void))(void *) {
    return SQLITE_TRANSIENT;
}
