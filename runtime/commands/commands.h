/* Control commands: one handler per DRV_OPERATION, all with one signature, in one table
 * (commands.c); any other command is answered 159 like the reference. A handler reads the request
 * payload from `in`, writes its reply into `out` (at most out_cap bytes: what the host asked for),
 * sets out_len, and returns a SEP status. The reply the host receives is exactly the size it asked
 * for: shorter replies are zero-padded, and a reply that does not fit is a
 * SEP_STATUS_BUFFER_TOO_SMALL. */
#ifndef ACART_COMMANDS_H
#define ACART_COMMANDS_H

#include "acart_wire.h"
#include "ecb.h"

#include <stdint.h>

/* The largest request payload a command accepts: an ECB of ECB_MAX_ENTRIES entries
 * (EM_CONFIG_NEXT); commands.c checks the table against it. */
#define CMD_MAX_REQUEST                                                                            \
    (sizeof(struct sep_ecb_header) + ECB_MAX_ENTRIES * sizeof(struct sep_event_reg))

struct collection;
struct session;

struct cmd_request {
    uint32_t command_id;
    struct session *session; /* the session the request came on */
    struct collection *coll; /* the collection it works on */
    const uint8_t *in;
    uint32_t in_len;
    uint8_t *out;
    uint32_t out_cap; /* what may be written at out: the host's ask, or the reply buffer's size */
    uint32_t out_len;
    uint32_t asked; /* what the host asked for: the reply it reads, zero-padded */
};

typedef int32_t (*cmd_fn)(struct cmd_request *req);

struct cmd_entry {
    uint32_t command_id;
    const char *name;
    cmd_fn fn;
    uint16_t in_min, in_max; /* accepted request payload sizes, at most CMD_MAX_REQUEST */
};
_Static_assert(CMD_MAX_REQUEST <= UINT16_MAX, "a command's payload sizes fit its table row");

/* The handler for a command id, or NULL for one acart does not implement. */
const struct cmd_entry *cmd_lookup(uint32_t command_id);

/* Writes `len` bytes of `value` as the reply (BUFFER_TOO_SMALL when it does not fit). */
int32_t cmd_reply(struct cmd_request *req, const void *value, uint32_t len);
/* The reply's first `len` bytes, zeroed and 8-byte aligned, for a handler to fill in place
 * (a reply sized for 64 CPUs need not be staged in .bss); NULL when they do not fit, which
 * the handler answers with SEP_STATUS_BUFFER_TOO_SMALL. */
void *cmd_reply_space(struct cmd_request *req, uint32_t len);

/* Handlers, grouped by file. */
int32_t cmd_version(struct cmd_request *req); /* cmd_info.c */
int32_t cmd_get_drv_setup_info(struct cmd_request *req);
int32_t cmd_num_cores(struct cmd_request *req);
int32_t cmd_get_normalized_tsc(struct cmd_request *req);
int32_t cmd_get_platform_info(struct cmd_request *req);
int32_t cmd_collect_sys_config(struct cmd_request *req);
int32_t cmd_get_sys_config(struct cmd_request *req);
int32_t cmd_get_thread_count(struct cmd_request *req);
int32_t cmd_get_thread_info(struct cmd_request *req);
int32_t cmd_tsc_skew_info(struct cmd_request *req);
int32_t cmd_accept_and_ignore(struct cmd_request *req);
int32_t cmd_get_driver_state(struct cmd_request *req);
int32_t cmd_kernel_cs(struct cmd_request *req);
int32_t cmd_get_num_core_ctrs(struct cmd_request *req);
int32_t cmd_get_perf_capab(struct cmd_request *req);
int32_t cmd_set_cpu_mask(struct cmd_request *req);
int32_t cmd_read_msr(struct cmd_request *req); /* cmd_msr.c */
int32_t cmd_write_msr(struct cmd_request *req);
int32_t cmd_reserve(struct cmd_request *req); /* cmd_collect.c */
int32_t cmd_init_driver(struct cmd_request *req);
int32_t cmd_set_cpu_topology(struct cmd_request *req);
int32_t cmd_num_descriptor(struct cmd_request *req);
int32_t cmd_desc_next(struct cmd_request *req);
int32_t cmd_init(struct cmd_request *req);
int32_t cmd_em_groups(struct cmd_request *req);
int32_t cmd_em_config_next(struct cmd_request *req);
int32_t cmd_init_pmu(struct cmd_request *req);
int32_t cmd_lbr_info(struct cmd_request *req); /* cmd_lbr.c */
int32_t cmd_start(struct cmd_request *req);
int32_t cmd_stop(struct cmd_request *req);
int32_t cmd_pause(struct cmd_request *req);
int32_t cmd_resume(struct cmd_request *req);
int32_t cmd_get_num_samples(struct cmd_request *req);
int32_t cmd_get_sample_drop_info(struct cmd_request *req);
int32_t cmd_get_drop_reasons(struct cmd_request *req);
int32_t cmd_terminate(struct cmd_request *req);
int32_t cmd_switch_group(struct cmd_request *req);
int32_t cmd_get_group_times(struct cmd_request *req);
int32_t cmd_get_pmi_budget(struct cmd_request *req);
int32_t cmd_get_task_switches(struct cmd_request *req);
int32_t cmd_get_channel_totals(struct cmd_request *req);
int32_t cmd_read_and_reset(struct cmd_request *req);
int32_t cmd_read_switch_group(struct cmd_request *req);
int32_t cmd_get_interval_counts(struct cmd_request *req);
int32_t cmd_extensions(struct cmd_request *req); /* cmd_files.c */
int32_t cmd_list_files(struct cmd_request *req);
int32_t cmd_read_file(struct cmd_request *req);
int32_t cmd_init_num_dev(struct cmd_request *req); /* cmd_uncore.c */
int32_t cmd_init_unc(struct cmd_request *req);
int32_t cmd_em_groups_unc(struct cmd_request *req);
int32_t cmd_em_config_next_unc(struct cmd_request *req);
int32_t cmd_pt_info(struct cmd_request *req); /* cmd_pt.c */
int32_t cmd_pt_config(struct cmd_request *req);
int32_t cmd_pt_freeze(struct cmd_request *req);
int32_t cmd_pt_status(struct cmd_request *req);

#endif
