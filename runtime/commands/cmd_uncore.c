/* The uncore commands (uncore.h): INIT_NUM_DEV, INIT_UNC, EM_GROUPS_UNC, EM_CONFIG_NEXT_UNC. */
#include "collection.h"
#include "commands.h"
#include "log.h"
#include "uncore.h"

#include <string.h>

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
