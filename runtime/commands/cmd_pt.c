/* acart's Intel PT commands (docs/sep-protocol.md 4.4). Like the file commands they answer
 * as an unknown command would until the session has sent ACART_OP_EXTENSIONS, so a SEP
 * host that never does (VTune) meets nothing new. The work is pt_session.c's. */
#include "collection.h"
#include "session.h"
#include "commands.h"
#include "pt_session.h"

#include <string.h>

int32_t cmd_pt_info(struct cmd_request *req)
{
    struct session *sess = req->session;
    struct acart_pt_info info;

    if (!sess->extensions_negotiated)
        return SEP_STATUS_DRIVER_COMM_FAILED;
    pt_session_info(&info);
    return cmd_reply(req, &info, sizeof(info));
}

int32_t cmd_pt_config(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    struct session *sess = req->session;
    struct acart_pt_config cfg;
    struct acart_pt_config_reply rep;

    if (!sess->extensions_negotiated)
        return SEP_STATUS_DRIVER_COMM_FAILED;
    /* Before INIT_PMU: the sampler then takes the PMI for the trace unit too. */
    if (coll->state != COLLECTION_IDLE)
        return SEP_STATUS_INVALID_STATE_TRANS;
    memcpy(&cfg, req->in, sizeof(cfg));
    int32_t status = pt_session_configure(&cfg, &rep);
    if (status != SEP_STATUS_SUCCESS)
        return status;
    if (!sess->pt_link_expected) {
        sess->pt_link_expected = 1;
        sess->data_expected++; /* the PT channel, which START waits for */
    }
    return cmd_reply(req, &rep, sizeof(rep));
}

int32_t cmd_pt_freeze(struct cmd_request *req)
{
    struct session *sess = req->session;
    (void)req;
    if (!sess->extensions_negotiated)
        return SEP_STATUS_DRIVER_COMM_FAILED;
    return pt_session_freeze_now();
}

int32_t cmd_pt_status(struct cmd_request *req)
{
    struct session *sess = req->session;
    static struct acart_pt_status status;

    if (!sess->extensions_negotiated)
        return SEP_STATUS_DRIVER_COMM_FAILED;
    if (!pt_session_configured())
        return SEP_STATUS_NOT_CONFIGURED;
    return cmd_reply(req, &status, pt_session_status(&status));
}
