/* Intel PT in a host session (docs/sep-protocol.md 4.4, docs/pt.md): the trace unit probed
 * at aca_start, the host's configuration, tracing started, paused and stopped with the
 * collection, freezes from any context, and the PT channel's chunks.
 *
 * Net context, but for pt_session_pmi() (the PMI, through the sampler's handler) and the
 * freezes of acart.h (any context), which touch only the calling CPU's trace state. */
#ifndef ACART_PT_SESSION_H
#define ACART_PT_SESSION_H

#include "acart_opts.h"
#include "acart_wire.h"
#include "channel.h"
#include "pt_cpu.h"

#include <stdint.h>

#if ACA_WITH_PT

/* At aca_start: probes the trace unit and the memory (the port's or the pool); 0 when PT
 * can be used, else the PT_ERR_* and pt_session_why() says why. */
int pt_session_probe(const void *port_memory, uint32_t port_bytes, uint32_t num_cpus);
const char *pt_session_why(void);
const struct pt_caps *pt_session_caps(void); /* NULL without usable PT */

void pt_session_info(struct acart_pt_info *out);

/* PT_CONFIG: validates, resolves module names, lays out the buffers, checks every MSR it
 * will write against the allowlist. Returns a SEP status (ACART_STATUS_NO_PT without PT),
 * having logged why it refused. */
int32_t pt_session_configure(const struct acart_pt_config *req, struct acart_pt_config_reply *rep);
int pt_session_configured(void);

/* With the collection: program and start every CPU, pause, resume, stop (snapshot mode:
 * a freeze by the host if nothing froze the rings before). */
void pt_session_start(void);
void pt_session_pause(void);
void pt_session_resume(void);
void pt_session_stop(void);

/* PT_FREEZE: snapshot mode, while tracing. Returns a SEP status. */
int32_t pt_session_freeze_now(void);

/* aca_poll: a freeze on one CPU reaches the others. */
void pt_session_poll(void);

/* The PMI handler's share: this CPU's ToPA interrupt. Interrupt context. */
int pt_session_pmi(void);

/* Queues what the PT channel can take; *queued adds the bytes queued. Returns 1 once
 * every CPU's trace has been sent to its end (after the stop), so the channel may close. */
int pt_session_drain(struct channel *ch, uint32_t *queued);
/* Trace waiting that the channel could not take a chunk of. */
int pt_session_blocked(const struct channel *ch);

/* PT_STATUS: fills out; returns the reply's length (header and num_cpus entries). */
uint32_t pt_session_status(struct acart_pt_status *out);

/* The session ended: tracing stopped on every CPU, the configuration forgotten. */
void pt_session_reset(void);

#else
/* Built without Intel PT (ACA_WITH_PT 0): what the agent asks of PT gets the answers of a
 * target whose CPU has none. PT_CONFIG never succeeds (the PT commands are not in the
 * command table, and EXTENSIONS does not offer them), so there is never a trace to start,
 * drain or stop. */
static inline int pt_session_probe(const void *port_memory, uint32_t port_bytes, uint32_t num_cpus)
{
    (void)port_memory;
    (void)port_bytes;
    (void)num_cpus;
    return PT_ERR_NO_PT;
}
static inline const char *pt_session_why(void)
{
    return "not built in: libacart.a has ACA_WITH_PT 0";
}
static inline const struct pt_caps *pt_session_caps(void)
{
    return 0;
}
static inline void pt_session_start(void) {}
static inline void pt_session_pause(void) {}
static inline void pt_session_resume(void) {}
static inline void pt_session_stop(void) {}
static inline void pt_session_poll(void) {}
static inline int pt_session_drain(struct channel *ch, uint32_t *queued)
{
    (void)ch;
    (void)queued;
    return 1;
}
static inline int pt_session_blocked(const struct channel *ch)
{
    (void)ch;
    return 0;
}
static inline void pt_session_reset(void) {}
#endif

#endif
