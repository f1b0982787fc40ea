/* A per-CPU sample ring: one producer (that CPU's sampling interrupt, possibly an NMI)
 * and one consumer (the net context draining it), no locks.
 *
 * Records have one fixed size per ring. Positions run over [0, 2 * capacity) so that a
 * full ring (head - tail == capacity) and an empty one (head == tail) differ for any
 * capacity, not only powers of two. A full ring drops the new record and counts it: a
 * record is never overwritten, and the consumer never sees one half written, because
 * the producer publishes head only after the whole record is in place. */
#ifndef ACART_RING_H
#define ACART_RING_H

#include <stdint.h>

struct ring {
    uint8_t *base;
    uint32_t record_size;
    uint32_t capacity;         /* records */
    volatile uint32_t head;    /* producer position, in [0, 2 * capacity) */
    volatile uint32_t tail;    /* consumer position, in [0, 2 * capacity) */
    volatile uint32_t sampled; /* records offered by the producer */
    volatile uint32_t dropped; /* of those, dropped because the ring was full */
};

/* Lays a ring over `bytes` of memory; returns 0 or ACA_ERR_INVALID. */
int ring_init(struct ring *r, void *memory, uint32_t bytes, uint32_t record_size);

/* Producer: a slot for one record, or NULL when full (the drop is counted). */
void *ring_reserve(struct ring *r);
/* Producer: publishes the record ring_reserve() returned. */
void ring_commit(struct ring *r);

/* Consumer: the longest contiguous run of whole records from the tail; returns the
 * number of records and points *data at the first. */
uint32_t ring_peek(const struct ring *r, const void **data);
/* ring_peek past the first `skip` records (records the consumer has and not yet released). */
uint32_t ring_peek_after(const struct ring *r, uint32_t skip, const void **data);
/* Consumer: releases `records` records from the tail. */
void ring_consume(struct ring *r, uint32_t records);

uint32_t ring_used(const struct ring *r);

#endif
