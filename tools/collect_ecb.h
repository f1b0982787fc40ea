/* The events `acart collect` can ask for, and the event control blocks (EM_CONFIG_NEXT
 * payloads) that program them.
 *
 * Each built-in event is one fixed-function counter. The ECB is laid out the way VTune's
 * SEP host lays out a core event group (the one in shared/fixtures/aca, for
 * CPU_CLK_UNHALTED.REF_TSC): 22 register slots for global control, event selects, fixed
 * and general counters, extras and the global status register, with the PMU operation
 * table pointing into them. Only the slots of the chosen counters are filled. */
#ifndef ACART_TOOLS_COLLECT_ECB_H
#define ACART_TOOLS_COLLECT_ECB_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of every ECB built here: the 1728-byte header and 22 entries of 136 bytes. */
#define COLLECT_ECB_SIZE 4720

/* Counters the layout has room for; every built-in event takes one fixed counter. */
#define COLLECT_ECB_GP_COUNTERS    4
#define COLLECT_ECB_FIXED_COUNTERS 3
#define COLLECT_ECB_MAX_EVENTS     COLLECT_ECB_FIXED_COUNTERS

/* Counters are 48 bits wide: a sample-after value is at least 1 and below 2^48. */
#define COLLECT_ECB_MAX_SAMPLE_AFTER 0xFFFFFFFFFFFFull

enum collect_ecb_error {
    COLLECT_ECB_OK = 0,
    COLLECT_ECB_ERR_COUNT = -1,        /* no events, or more than COLLECT_ECB_MAX_EVENTS */
    COLLECT_ECB_ERR_SAME_COUNTER = -2, /* two events need the same counter */
    COLLECT_ECB_ERR_SAMPLE_AFTER = -3, /* 0, or not below 2^48 */
    COLLECT_ECB_ERR_BUFFER = -4,       /* the output buffer is smaller than COLLECT_ECB_SIZE */
};

const char *collect_ecb_strerror(int err);

/* A built-in event: a fixed-function counter and VTune's usual sample-after value. */
struct collect_event_def {
    const char *name;              /* e.g. "CPU_CLK_UNHALTED.REF_TSC" */
    uint8_t fixed_counter;         /* n of IA32_FIXED_CTRn */
    uint64_t default_sample_after; /* events between samples unless the user says */
};

/* The built-in event called name (exact, case-sensitive), or NULL. */
const struct collect_event_def *collect_event_find(const char *name);

/* The i-th built-in event, or NULL past the last: for listing them. */
const struct collect_event_def *collect_event_at(size_t i);

/* The event every collection samples when the user names none. */
const struct collect_event_def *collect_event_default(void);

/* One event of a collection: the index its samples carry is its position in the array
 * handed to collect_ecb_build. */
struct collect_event {
    const struct collect_event_def *def;
    uint64_t sample_after;
};

/* Writes the ECB for one event group sampling events[0..n) into out (cap bytes). Returns
 * the ECB's size (COLLECT_ECB_SIZE) or a negative COLLECT_ECB_ERR_*. */
int collect_ecb_build(const struct collect_event *events, size_t n, uint8_t *out, size_t cap);

#endif
