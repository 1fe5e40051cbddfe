// Thread processor affinity for `pushseal bench` (Linux). glibc declares sched_getaffinity and
// sched_setaffinity only under _GNU_SOURCE, which Swift's Glibc module does not define.
#ifndef PUSHSEAL_BENCH_AFFINITY_H
#define PUSHSEAL_BENCH_AFFINITY_H

#include <stddef.h>

/// Writes the calling thread's allowed processors (ascending) into `processors`; returns how
/// many there are (at most `capacity`), or -1 where affinity cannot be read.
int pushseal_bench_allowed_processors(int *processors, int capacity);

/// Pins the calling thread to `processor` and stores its previous affinity in `saved` (an opaque
/// buffer of pushseal_bench_affinity_size() bytes); returns 0, or -1 when it cannot.
int pushseal_bench_pin(int processor, void *saved);

/// Restores an affinity saved by pushseal_bench_pin.
void pushseal_bench_restore(const void *saved);

/// Bytes of a saved affinity.
size_t pushseal_bench_affinity_size(void);

#endif
