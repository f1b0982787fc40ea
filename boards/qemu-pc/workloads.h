/* What the board's CPUs run, chosen on the kernel command line (workload=NAME). */
#ifndef QEMU_PC_WORKLOADS_H
#define QEMU_PC_WORKLOADS_H

#include <stdint.h>

typedef void (*workload_fn)(uint32_t cpu);

struct workload {
    const char *name;
    const char *help;
    workload_fn run; /* never returns */
};

const struct workload *workload_find(const char *name);
void workload_print_info(const struct workload *w);

/* Passes the hotspot loop of `cpu` has made over its buffer. */
uint32_t workload_hotspot_passes(uint32_t cpu);

#endif
