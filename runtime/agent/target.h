/* What aca_start() set up: the port's configuration, the limits derived from it and what
 * the CPU can do. Written once by aca_start(), read by the agent and the commands; net
 * context only. */
#ifndef ACART_TARGET_H
#define ACART_TARGET_H

#include "acart.h"
#include "acart_opts.h"
#include "acart_platform.h"
#include "io.h"

#include <stdint.h>

struct target {
    int started;
    struct aca_config cfg;
    uint32_t num_cpus;
    uint8_t *ring_memory;
    uint32_t ring_bytes_per_cpu;
    int pmu_usable;
    const char *sampling_note; /* why sampling is time-based, or NULL */
    int pt_usable;             /* Intel PT present, with memory (pt_session.h) */
    uint32_t keepalive_idle_ms, keepalive_interval_ms, keepalive_count;
    uint32_t handshake_timeout_ms, drain_stall_ms, drain_min_bytes;
    uint32_t pmi_max_rate_hz, pmi_cpu_percent; /* the PMI budget, defaults resolved */
};

extern struct target target;

/* Milliseconds of the TSC: the clock of keepalives, timeouts and drain windows. */
static inline uint64_t target_now_ms(void)
{
    return rdtsc() / (aca_plat_tsc_hz() / 1000);
}

#endif
