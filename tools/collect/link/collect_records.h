/* Counting and checking the records of one data channel as its bytes arrive, in pieces of
 * any size: sample records on a CPU channel, module records on the module channel. Data
 * channels have no framing, so one record that does not make sense (an unknown
 * descriptor, another CPU's number, a module record shorter than its path) makes every
 * later boundary unknowable: the scanner stops counting there and says where. */
#ifndef ACART_TOOLS_COLLECT_RECORDS_H
#define ACART_TOOLS_COLLECT_RECORDS_H

#include <stddef.h>
#include <stdint.h>

enum record_kind { RECORDS_SAMPLES, RECORDS_MODULES };

struct record_scanner {
    enum record_kind kind;
    uint32_t cpu;                 /* samples: the CPU whose channel this is */
    const uint32_t *sample_sizes; /* samples: record bytes by descriptor_id (borrowed) */
    uint32_t num_descriptors;
    uint32_t num_events; /* samples: event indexes below this */

    uint64_t records; /* whole records so far */
    uint64_t offset;  /* stream bytes those records take */
    int failed;       /* a record made no sense: error says which; counting stopped */
    char error[256];

    size_t head;    /* bytes of a record needed to know its size */
    uint8_t *carry; /* the start of a record split across pieces */
    size_t carry_len, carry_cap;
};

/* Scanner for CPU channel `cpu`: sizes[i] (at least 48) is the size of a record with
 * descriptor_id i. Returns 0, or -1 when out of memory. */
int records_init_samples(struct record_scanner *s, uint32_t cpu, const uint32_t *sizes,
                         uint32_t num_descriptors, uint32_t num_events);

/* Scanner for the module channel. Returns 0, or -1 when out of memory. */
int records_init_modules(struct record_scanner *s);

/* Takes the next len bytes of the stream. */
void records_feed(struct record_scanner *s, const void *buf, size_t len);

/* At the end of the stream: 0 if every byte belonged to a whole, sensible record, else -1
 * with s->error saying where it went wrong. */
int records_finish(struct record_scanner *s);

void records_free(struct record_scanner *s);

#endif
