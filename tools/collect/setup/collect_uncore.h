/* acart collect --uncore EVENT[:cbo=N][,EVENT...] [--uncore-interval MS]: uncore counts
 * read by the target every MS milliseconds (docs/sep-protocol.md 5.6, 6.2).
 *
 * The events are the uncore's that the target's CPU model has, by their perfmon names:
 * on Skylake-class client parts (06_4E, 5E, 8E, 9E) UNC_CLOCK.SOCKET (the UCLK fixed
 * counter), UNC_ARB_TRK_REQUESTS.ALL and UNC_ARB_COH_TRK_REQUESTS.ALL (two ARB counters),
 * UNC_CBO_CACHE_LOOKUP.ANY_MESI and UNC_CBO_XSNP_RESPONSE.MISS_XCORE (two counters per
 * CBo; :cbo=N picks the CBo, default 0), UNC_IMC_DRAM_DATA_READS and
 * UNC_IMC_DRAM_DATA_WRITES (the IMC's free-running counters, through MMIO); on Goldmont and
 * Goldmont Plus (06_5C, 5F, 7A) UNC_IMC_DRAM_RW_SLICE0 and UNC_IMC_DRAM_RW_SLICE1 (as the
 * ECB VTune sends for them, tests/fixtures/aca). The encodings are the SDM's and Intel's
 * perfmon uncore tables'; they live here because the perfmon files acart carries are the
 * core ones. One uncore device, one group; records as the target sizes them from the ECB. */
#ifndef ACART_TOOLS_COLLECT_UNCORE_H
#define ACART_TOOLS_COLLECT_UNCORE_H

#include <stddef.h>
#include <stdint.h>

#include "collect_link.h"
#include "diag.h"

#define COLLECT_UNCORE_MAX_EVENTS   8
#define COLLECT_UNCORE_INTERVAL_MS  100 /* the default of --uncore-interval */
#define COLLECT_UNCORE_DEVICE_INDEX 1   /* device 0 is the core PMU */

struct collect_uncore_event {
    char name[64]; /* as given, :cbo=N included */
    uint8_t kind;  /* enum collect_uncore_kind (collect_uncore.c) */
    uint8_t cbo;
    uint16_t select;  /* ARB/CBo: umask << 8 | event code */
    uint32_t counter; /* MSR, or offset from MCHBAR */
    uint32_t control; /* event select or fixed control MSR; 0 for the IMC */
    uint64_t control_value;
    uint64_t mask;
};

struct collect_uncore {
    size_t num_events;
    struct collect_uncore_event events[COLLECT_UNCORE_MAX_EVENTS];
    uint32_t interval_ms;
};

/* --uncore's list (names as given; resolved later). 0 or DIAG_USAGE. */
int collect_uncore_parse(const char *list, struct collect_uncore *u, struct diag *d);

/* Finds each event's registers on the target's CPU (family, model). 0 or DIAG_USAGE:
 * an unknown event for that model, or more events than its counters. */
int collect_uncore_resolve(struct collect_uncore *u, uint32_t family, uint32_t model,
                           struct diag *d);

/* The uncore ECB (EM_CONFIG_NEXT_UNC's payload) into buf: its length, or -1 when cap is
 * too small. */
int collect_uncore_ecb(const struct collect_uncore *u, uint8_t *buf, size_t cap);

/* INIT_NUM_DEV, INIT_UNC, EM_GROUPS_UNC, EM_CONFIG_NEXT_UNC, SET_DEVICE_NUM_UNITS. Without
 * collect_uncore_resolve (the target's status says it has no uncore) it goes as far as
 * INIT_UNC, which such a target refuses: COLLECT_DIAG_TARGET with its status. */
int collect_uncore_configure(const struct collect_uncore *u, struct collect_link *l,
                             struct diag *d);

/* uncore.json in dir: the events and the records' layout, for uncore_data.h. */
int collect_uncore_write(const struct collect_uncore *u, const char *dir, uint64_t tsc_hz,
                         struct diag *d);

#endif
