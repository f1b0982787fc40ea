/* The uncore commands (uncore.h): INIT_NUM_DEV, INIT_UNC, EM_GROUPS_UNC, EM_CONFIG_NEXT_UNC.
 * Built without the uncore (ACA_WITH_UNCORE 0) they answer as on a CPU without one: the
 * device count is taken, every device and ECB refused. */
#include "collection.h"
#include "commands.h"
#include "log.h"
#include "uncore.h"

#include <string.h>

#if !ACA_WITH_UNCORE
static int32_t refuse(struct cmd_request *req, const char *what)
{
    (void)req;
    agent_log("acart: %s refused: %s", what, UNCORE_NOT_BUILT);
    return SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE;
}

int32_t cmd_init_num_dev(struct cmd_request *req)
{
    (void)req;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_init_unc(struct cmd_request *req)
{
    return refuse(req, "INIT_UNC");
}

int32_t cmd_em_groups_unc(struct cmd_request *req)
{
    return refuse(req, "EM_GROUPS_UNC");
}

int32_t cmd_em_config_next_unc(struct cmd_request *req)
{
    return refuse(req, "EM_CONFIG_NEXT_UNC");
}
#else
int32_t cmd_init_num_dev(struct cmd_request *req)
{
    uint32_t n;
    memcpy(&n, req->in, sizeof(n));
    return uncore_set_num_devices(n);
}

int32_t cmd_init_unc(struct cmd_request *req)
{
    static struct sep_dev_unc_config cfg; /* 4 KiB: not on the net context's stack */
    memcpy(&cfg, req->in, sizeof(cfg));
    return uncore_init_device(&cfg);
}

int32_t cmd_em_groups_unc(struct cmd_request *req)
{
    struct sep_event_config ec;
    memcpy(&ec, req->in, sizeof(ec));
    return uncore_set_groups(&ec);
}

int32_t cmd_em_config_next_unc(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    static struct ecb ecb;
    int err = ecb_decode(req->in, req->in_len, &ecb);
    if (err) {
        agent_log("acart: EM_CONFIG_NEXT_UNC refused: %s", ecb_strerror(err));
        return SEP_STATUS_INVALID_PROG_INFO;
    }
    uint32_t desc_size = ecb.descriptor_id < coll->num_descriptors
                             ? coll->descriptors[ecb.descriptor_id].sample_size
                             : 0;
    int32_t st = uncore_configure(&ecb, desc_size);
    if (st == SEP_STATUS_SUCCESS && req->out_cap >= sizeof(struct sep_ioctl_status))
        req->out_len = sizeof(struct sep_ioctl_status); /* zeros: accepted */
    return st;
}
#endif
