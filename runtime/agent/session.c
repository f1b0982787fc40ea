/* Ending a session, the one way it ends: whatever ends it (TERMINATE, a closed or reset
 * connection, a protocol error, a dead peer, a handshake or drain that cannot finish)
 * calls session_end. Sampling stops, the rings are reset, every connection of the session
 * is closed and the agent listens again. */
#include "session.h"
#include "collection.h"
#include "log.h"
#include "pmu_owner.h"
#include "pt_session.h"
#include "sampler.h"
#include "task_switches.h"
#include "uncore.h"

#include <string.h>

struct session session;
struct collection collection;

void session_end(const char *why)
{
    /* Tracing stops before the sampler lets go of the PMI, which the trace unit shares. */
    pt_session_reset();
    sampler_reset();
    task_switches_stop();
    uncore_reset();
    pmu_owner_release(PMU_OWNER_HOST);
    /* Graceful: a reply still queued (TERMINATE's, an error's) goes out before the FIN. */
    if (session.control) {
        struct channel *c = session.control;
        session.control = 0;
        channel_close(c);
    }
    /* A data connection that finished its drain was closed by transfer.c; one still open
     * has records it will never send, and a reset tells the host its stream is cut, where
     * a FIN would pass it off as whole. */
    uint32_t cut = 0;
    for (uint32_t i = 0; i < sizeof(session.links) / sizeof(session.links[0]); i++) {
        if (session.links[i].ch) {
            struct channel *c = session.links[i].ch;
            session.links[i].ch = 0;
            channel_abort(c);
            cut++;
        }
    }
    /* Everything of the session goes; the configuration of aca_start() stays. */
    memset(&session, 0, sizeof(session));
    memset(&collection, 0, sizeof(collection));
    session.report_ready = 1;
    if (cut)
        agent_log("acart: session ended (%s); %u data connections reset; listening again", why,
                  (unsigned)cut);
    else
        agent_log("acart: session ended (%s); listening again", why);
}
