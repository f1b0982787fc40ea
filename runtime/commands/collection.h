/* The collection a session drives: what the host configured (INIT_DRIVER, descriptors,
 * ECBs, LBRs), the sampler's plan, and the module records to send. The commands get it
 * in their request (commands.h); zeroed when the session ends (session.c). */
#ifndef ACART_COLLECTION_H
#define ACART_COLLECTION_H

#include "acart_opts.h"
#include "acart_wire.h"
#include "ecb.h"
#include "sampler.h"

#include <stdint.h>

#define COLLECTION_MAX_DESCRIPTORS 8
#define COLLECTION_MODULE_BUFFER   ACA_MODULE_BUFFER_BYTES

enum collection_state {
    COLLECTION_IDLE,       /* nothing configured */
    COLLECTION_CONFIGURED, /* INIT_PMU done: rings set up */
    COLLECTION_RUNNING,
    COLLECTION_PAUSED,
    COLLECTION_STOPPED, /* STOP received; data channels drain, then close */
};

struct module_stream {
    uint8_t bytes[COLLECTION_MODULE_BUFFER];
    uint32_t len, sent;
    uint32_t overflow; /* records that did not fit */
};

struct collection {
    enum collection_state state;
    struct sep_drv_config drv_config;
    int have_drv_config;
    int want_callstacks;   /* INIT asked for SEP_DEV_CFG_COLLECT_OS_CALLSTACKS */
    int want_lbrs;         /* INIT asked for SEP_DEV_CFG_COLLECT_LBRS ... */
    int store_lbrs;        /* ... and SEP_DEV_CFG_STORE_LBRS: records carry them */
    uint32_t lbr_num_regs; /* LBR_INFO's list, checked against this CPU's LBRs */
    struct sampler_lbr_reg lbr_regs[SAMPLER_MAX_LBR_REGS];
    struct sep_event_config event_config;
    int have_event_config;
    uint32_t num_descriptors_expected, num_descriptors;
    struct sep_event_desc descriptors[COLLECTION_MAX_DESCRIPTORS];
    struct ecb ecb;                            /* the last EM_CONFIG_NEXT, decoded */
    struct ecb_plan plans[SAMPLER_MAX_GROUPS]; /* by group id */
    uint32_t groups_received;                  /* bit g: group g's ECB accepted */
    int have_ecb;                              /* every group EM_GROUPS announced */
    struct sampler_config sampler;
    uint64_t start_tsc, stop_tsc;
    struct module_stream modules;
};

/* The session's collection (defined in session.c, which zeroes it when a session ends). */
extern struct collection collection;

#endif
