#define _GNU_SOURCE
#include "CBenchAffinity.h"

#if defined(__linux__)
#include <sched.h>
#include <string.h>

int pushseal_bench_allowed_processors(int *processors, int capacity) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    int count = 0;
    for (int processor = 0; processor < CPU_SETSIZE && count < capacity; processor++) {
        if (CPU_ISSET(processor, &set)) processors[count++] = processor;
    }
    return count;
}

int pushseal_bench_pin(int processor, void *saved) {
    if (processor < 0 || processor >= CPU_SETSIZE) return -1;
    if (sched_getaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)saved) != 0) return -1;
    cpu_set_t only;
    CPU_ZERO(&only);
    CPU_SET(processor, &only);
    return sched_setaffinity(0, sizeof only, &only) == 0 ? 0 : -1;
}

void pushseal_bench_restore(const void *saved) {
    (void)sched_setaffinity(0, sizeof(cpu_set_t), (const cpu_set_t *)saved);
}

size_t pushseal_bench_affinity_size(void) { return sizeof(cpu_set_t); }

#else

int pushseal_bench_allowed_processors(int *processors, int capacity) {
    (void)processors;
    (void)capacity;
    return -1;
}

int pushseal_bench_pin(int processor, void *saved) {
    (void)processor;
    (void)saved;
    return -1;
}

void pushseal_bench_restore(const void *saved) { (void)saved; }

size_t pushseal_bench_affinity_size(void) { return 1; }

#endif
