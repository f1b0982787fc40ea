/* The record of tb5 data stream 0 as acart writes it: the legacy TBRW_SampleRecordPC
 * followed by its TSC (the two data descriptor entries of the TBRW guide, 6.9). */
#ifndef ACART_TOOLS_TB5_RECORD_H
#define ACART_TOOLS_TB5_RECORD_H

#include <stddef.h>

#include "profile.h"
#include "tbrw.h"

struct tb5_sample_record {
    TBRW_SampleRecordPC pc;
    TBRW_SampleRecordTSC tsc;
};
_Static_assert(sizeof(struct tb5_sample_record) == 40, "tb5 stream 0 record size");
_Static_assert(offsetof(struct tb5_sample_record, tsc) == 32, "tb5 stream 0 TSC offset");

void tb5_record_from_sample(const struct sample *s, TBRW_SampleRecordPC *r);

/* tsc is 0 when the stream's records carry no TSC field. */
void tb5_record_to_sample(const TBRW_SampleRecordPC *r, uint64_t tsc, struct sample *s);

#endif
