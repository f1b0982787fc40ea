/* For the host tools, the tests and the runtime (not installed): SEP collection results: drop
 * counts and the task list. Part of acart_wire.h (the whole format, see there). */
#ifndef ACART_WIRE_SEP_RESULTS_H
#define ACART_WIRE_SEP_RESULTS_H

#include "sep_base.h"

/* ---------------------------------------------------------------------------------------- */
/* Collection results                                                                       */
/* ---------------------------------------------------------------------------------------- */

#define SEP_MAX_SAMPLE_DROP_NODES 20

struct sep_sample_drop {
    uint32_t os_id;
    uint32_t cpu_id;
    uint32_t sampled; /* samples delivered */
    uint32_t dropped; /* samples lost (ring full) */
};
SEP_WIRE_ASSERT_SIZE(struct sep_sample_drop, 16);

/* GET_SAMPLE_DROP_INFO reply. */
struct sep_sample_drop_info {
    uint32_t size; /* valid entries in drop_info */
    struct sep_sample_drop drop_info[SEP_MAX_SAMPLE_DROP_NODES];
};
SEP_WIRE_ASSERT_SIZE(struct sep_sample_drop_info, 324);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_drop_info, drop_info, 4);

/* GET_THREAD_INFO reply: an array of these, GET_THREAD_COUNT (a uint32_t) of them. */
struct sep_task_info {
    sep_u64_t id;               /* thread id */
    char name[32];              /* NUL-terminated */
    sep_u64_t address_space_id; /* process id */
};
SEP_WIRE_ASSERT_SIZE(struct sep_task_info, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_task_info, name, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_task_info, address_space_id, 40);

#endif
