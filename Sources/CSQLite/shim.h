#ifndef LITERECORD_CSQLITE_SHIM_H
#define LITERECORD_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// SQLITE_TRANSIENT is a macro over a function-pointer cast that Swift cannot
// import; expose it as a typed constant so the SQLite layer can ask SQLite to
// copy bound text and blobs.
static inline sqlite3_destructor_type literecord_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic; Swift cannot call variadic C functions.
static inline int literecord_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

// A collation whose comparisons of two plain-ASCII strings never leave C.
//
// Swift orders and equates ASCII text byte by byte, so for the Swift-string
// collations text whose first difference lies in ASCII is decided here;
// anything else goes to `fallback` (Swift code) with `context`. An ORDER BY over a few thousand
// names makes tens of thousands of comparisons, and a call into Swift for
// each cost more than the rest of the query.
typedef int (*literecord_compare_function)(void *context, int, const void *, int, const void *);
typedef void (*literecord_destroy_function)(void *context);

struct literecord_collation {
    literecord_compare_function fallback;
    literecord_destroy_function destroy;
    void *context;
};

static int literecord_ascii_first_compare(void *argument, int leftCount, const void *left, int rightCount,
                                          const void *right) {
    const unsigned char *a = left, *b = right;
    int common = leftCount < rightCount ? leftCount : rightCount;
    int index = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    // Eight bytes at a time: the first byte that differs or is not ASCII in
    // either text is the lowest byte with a bit set in `stop` (little endian:
    // the lowest byte is the first). Text that shares a prefix (names with a
    // common first name) would otherwise cost a loop turn per byte.
    while (index + 8 <= common) {
        uint64_t x, y;
        memcpy(&x, a + index, 8);
        memcpy(&y, b + index, 8);
        uint64_t stop = (x ^ y) | ((x | y) & 0x8080808080808080ULL);
        if (stop != 0) {
            index += __builtin_ctzll(stop) >> 3;
            goto found;
        }
        index += 8;
    }
#endif
    while (index < common && a[index] == b[index] && a[index] < 0x80) index++;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
found:
#endif
    // Up to `index` both are the same ASCII bytes. The byte at `index` decides
    // when the two bytes there are ASCII and so is the byte after each (or the
    // text ends): NFC composes only a non-ASCII mark with the character before
    // it, so nothing later changes the characters up to `index`.
    int leftNext = index + 1 >= leftCount || a[index + 1] < 0x80;
    int rightNext = index + 1 >= rightCount || b[index + 1] < 0x80;
    if (index < common) {
        if (a[index] != b[index] && a[index] < 0x80 && b[index] < 0x80 && leftNext && rightNext) {
            return a[index] < b[index] ? -1 : 1;
        }
    } else if (leftCount == rightCount) {
        return 0;
    } else if (leftCount > rightCount ? a[index] < 0x80 : b[index] < 0x80) {
        // One is an ASCII prefix of the other, which goes on with an ASCII byte.
        return leftCount < rightCount ? -1 : 1;
    }
    struct literecord_collation *collation = argument;
    return collation->fallback(collation->context, leftCount, left, rightCount, right);
}

static void literecord_collation_destroy(void *argument) {
    struct literecord_collation *collation = argument;
    collation->destroy(collation->context);
    sqlite3_free(collation);
}

// Registers `name` with the ASCII fast path in front of `fallback`. SQLite
// calls `destroy(context)` when the collation is replaced or the connection
// closes; when registering fails it does not, and the caller keeps `context`.
static inline int literecord_create_ascii_first_collation(sqlite3 *db, const char *name,
                                                          literecord_compare_function fallback,
                                                          literecord_destroy_function destroy, void *context) {
    struct literecord_collation *collation = sqlite3_malloc(sizeof *collation);
    if (collation == NULL) return SQLITE_NOMEM;
    collation->fallback = fallback;
    collation->destroy = destroy;
    collation->context = context;
    int result = sqlite3_create_collation_v2(db, name, SQLITE_UTF8, collation, literecord_ascii_first_compare,
                                             literecord_collation_destroy);
    if (result != SQLITE_OK) sqlite3_free(collation);
    return result;
}

#endif
