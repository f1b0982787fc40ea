/* The agent's state: one host session (control channel, data channels) and the
 * collection it drives. Net context only; the sampling interrupt sees none of this. */
#ifndef ACART_AGENT_H
#define ACART_AGENT_H

#include "acart.h"
#include "acart_opts.h"
#include "acart_wire.h"
#include "channel.h"
#include "ecb.h"
#include "sampler.h"

#include <stdint.h>

/* The largest request or response payload a control message may carry. DRV_PLATFORM_INFO
 * (15440) and the system configuration are the largest replies acart produces. */
#define AGENT_MAX_PAYLOAD     (64 * 1024)
#define AGENT_MAX_DESCRIPTORS 8
#define AGENT_MODULE_BUFFER   (32 * 1024)

enum collection_state {
    COLLECTION_IDLE,       /* nothing configured */
    COLLECTION_CONFIGURED, /* INIT_PMU done: rings set up */
    COLLECTION_RUNNING,
    COLLECTION_PAUSED,
    COLLECTION_STOPPED, /* STOP received; data channels drain, then close */
};

struct data_link {
    struct channel *ch;
    uint16_t type;            /* SEP_DATA_* */
    uint16_t id;              /* CPU number for CPU channels */
    int first_read;           /* the host's first message is in; its answer may wait for memory */
    int handshaken;           /* ... and the answer is queued */
    uint64_t window_start_ms; /* the drain-stall window: since when */
    uint32_t window_bytes;    /* ... and bytes queued in it */
    uint32_t records_held;    /* CPU channels: ring records lwIP sends from, unacknowledged */
};

struct module_stream {
    uint8_t bytes[AGENT_MODULE_BUFFER];
    uint32_t len, sent;
    uint32_t overflow; /* records that did not fit */
};

struct agent {
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

    /* Session: everything from here on is zeroed when a session ends. */
    struct channel *control;
    int control_handshaken;    /* the first message on the control connection answered */
    int handshake_done;        /* ... and every data connection opened and greeted */
    uint64_t session_start_ms; /* when the control connection was accepted */
    uint32_t remote_ip;        /* the holder, network byte order */
    uint16_t remote_port;
    uint32_t data_expected, data_accepted;
    /* CPU channels, uncore, module, then the PT channel (ACART_DATA_PT) of a session that
     * configured PT. */
    struct data_link links[ACA_MAX_CPUS + SEP_NONCORE_DATA_CONNECTIONS + 1];
    int terminate_after_send; /* TERMINATE answered: end the session once it is queued */
    int report_ready;         /* log lwIP's counts once the session's connections are gone */

    /* Control framing. */
    struct sep_ctrl_header request;
    int have_request;

    /* Response being sent (header + payload), possibly over several sent callbacks. */
    uint32_t response_len, response_sent;

    /* Collection. */
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
    struct sep_event_desc descriptors[AGENT_MAX_DESCRIPTORS];
    struct ecb ecb;                            /* the last EM_CONFIG_NEXT, decoded */
    struct ecb_plan plans[SAMPLER_MAX_GROUPS]; /* by group id */
    uint32_t groups_received;                  /* bit g: group g's ECB accepted */
    int have_ecb;                              /* every group EM_GROUPS announced */
    struct sampler_config sampler;
    uint64_t start_tsc, stop_tsc;
    struct module_stream modules;
    int extensions_negotiated; /* ACART_OP_EXTENSIONS sent: acart's file commands answer */
    int pt_link_expected;      /* PT_CONFIG done: one more data connection, the PT channel */
};

extern struct agent agent;

/* INIT_PMU: the LBR registers of LBR_INFO into the sampler's configuration, when INIT
 * asked to collect and store LBRs and the first event's descriptor has an LBR area
 * (cmd_lbr.c). */
void cmd_lbr_apply(struct sampler_config *sc);

/* Session lifecycle (agent.c): the one way a session ends. */
void agent_end_session(const char *why);
uint64_t agent_now_ms(void);

/* Data transfer (transfer.c). */
void transfer_pump(void);
void transfer_queue_modules(void);
/* At STOP: load and unload records for what the port loaded or unloaded since then. */
void transfer_queue_module_changes(uint64_t since_tsc);
uint64_t transfer_records_committed(void);
/* A data connection whose host stopped reading (see ACA_DRAIN_STALL_MS), or NULL. */
const struct data_link *transfer_stalled(uint64_t now_ms);

/* Control requests (control.c, commands in cmd_*.c). */
void control_on_data(void);
void control_on_sent(void);
int control_response_waiting(void);

#endif
