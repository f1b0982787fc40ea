/* The uncore: package-scope counters the host programs through INIT_UNC, EM_GROUPS_UNC and
 * EM_CONFIG_NEXT_UNC (cmd_uncore.c), read in the net context every unc_timer_interval
 * milliseconds of INIT_DRIVER while the collection runs, and sent as uncore sample records
 * on the uncore data channel (docs/sep-protocol.md 6).
 *
 * What acart knows (uncore_probe): the client uncore MSRs of Skylake-class Core parts
 * (UCLK fixed counter, ARB and CBo counters, SDM vol. 4 and vol. 3B "uncore performance
 * monitoring") and the memory-mapped IMC counters of Skylake-class client and Goldmont
 * parts. Anything else, a CPU without a usable PMU or one under a hypervisor (whose uncore
 * MSRs are not virtualised) has no uncore, and the commands are refused with a reason.
 *
 * As the reference, an uncore device's registers are the ECB's operation ranges: WRITE
 * entries are written at START (counters of READ zeroed when they are MSRs), ENABLE
 * entries then (read-modify-write for SEP_REG_RW_READ_WRITE), DISABLE entries at STOP;
 * each read reports per counter the sum of its deltas since START (static counters as
 * read). Net context only. */
#ifndef ACART_RUNTIME_UNCORE_H
#define ACART_RUNTIME_UNCORE_H

#include <stdint.h>

#include "acart_opts.h"
#include "acart_wire.h"
#include "channel.h"
#include "ecb.h"
#include "msr_policy.h"

#define UNCORE_MAX_DEVICES 4  /* uncore devices with events in one collection */
#define UNCORE_MAX_REGS    16 /* registers of one device's ECB that acart keeps */
/* Reads apart when INIT_DRIVER's unc_timer_interval is 0 (the reference suite sends 10). */
#define UNCORE_DEFAULT_INTERVAL_MS 10

#if ACA_WITH_UNCORE
/* Detects the uncore at aca_start: fills the allowlist's uncore fields and returns NULL,
 * or the reason there is none (for the log and every refusal). pmu_usable: the core PMU
 * probed usable. */
const char *uncore_probe(int pmu_usable, struct msr_policy_limits *limits);
/* "Skylake client", ... when the probe found an uncore. */
const char *uncore_model_name(void);

/* The commands (cmd_uncore.c): each returns a SEP status. */
int32_t uncore_set_num_devices(uint32_t n);
int32_t uncore_init_device(const struct sep_dev_unc_config *cfg);
int32_t uncore_set_groups(const struct sep_event_config *ec);
/* desc_size: the sample_size of the ECB's descriptor, 0 when the host sent none. */
int32_t uncore_configure(const struct ecb *ecb, uint32_t desc_size);

/* Devices configured with events: whether START has uncore work. */
int uncore_configured(void);

/* START: programs every device, takes the counters' first values. 0, or -1 (logged). */
int uncore_start(uint64_t now_ms, uint32_t interval_ms);
/* Programmed and counting: whether the poll has uncore work (checked before the clock is
 * read, which costs a 64-bit division on every poll). */
int uncore_running(void);
/* Each poll while the collection runs: a record per device once the interval passed. */
void uncore_poll(uint64_t now_ms);
/* STOP: the last read, then the DISABLE entries. */
void uncore_stop(void);
/* The session ended: disables what is still programmed and forgets everything. */
void uncore_reset(void);

/* Queues what fits of the records not yet sent on ch. Returns 1 when everything
 * recorded is queued. */
int uncore_drain(struct channel *ch, uint32_t *queued);
/* Records wait and ch has no room for them. */
int uncore_blocked(struct channel *ch);
/* Records that did not fit the buffer. */
uint32_t uncore_dropped(void);

#else
/* Built without the uncore (ACA_WITH_UNCORE 0): the agent sees a target whose CPU has no
 * uncore acart supports. The uncore commands are refused as on such a CPU (cmd_uncore.c),
 * so nothing is ever configured, read or sent; the uncore data connection, which SEP opens
 * whatever the target, carries nothing. */
#define UNCORE_NOT_BUILT "not built in: libacart.a has ACA_WITH_UNCORE 0"
static inline const char *uncore_probe(int pmu_usable, struct msr_policy_limits *limits)
{
    (void)pmu_usable;
    (void)limits;
    return UNCORE_NOT_BUILT;
}
static inline const char *uncore_model_name(void)
{
    return 0;
}
static inline int uncore_configured(void)
{
    return 0;
}
static inline int uncore_start(uint64_t now_ms, uint32_t interval_ms)
{
    (void)now_ms;
    (void)interval_ms;
    return 0;
}
static inline int uncore_running(void)
{
    return 0;
}
static inline void uncore_poll(uint64_t now_ms)
{
    (void)now_ms;
}
static inline void uncore_stop(void) {}
static inline void uncore_reset(void) {}
static inline int uncore_drain(struct channel *ch, uint32_t *queued)
{
    (void)ch;
    (void)queued;
    return 1;
}
static inline int uncore_blocked(struct channel *ch)
{
    (void)ch;
    return 0;
}
#endif

#endif
