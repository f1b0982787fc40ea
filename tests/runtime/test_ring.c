/* runtime/sampling/ring.c under a real concurrent producer and consumer (two threads): every
 * record arrives whole and in order, and offered == delivered + dropped exactly.
 *
 * x86 keeps stores in order, so on this machine a missing barrier in ring.c would not
 * show as a torn record. The same test is therefore also built with ThreadSanitizer
 * (unit_ring_tsan): TSan checks the C11 happens-before the ring's __atomic orderings
 * establish, not what the CPU happens to do, and reports the producer's record writes
 * racing with the consumer's reads when ring_commit's release, ring_peek's acquire,
 * ring_reserve's acquire or ring_consume's release is weakened to relaxed (`make mutants`
 * weakens each one and expects this test to fail).
 *
 * The free-running tests leave it to the scheduler whether the consumer reads a record
 * while the producer still runs: a producer that fills a tiny ring and then only drops
 * finishes first, and the consumer, having acquired producer_done, reads everything
 * properly ordered, so TSan saw a weakened ring_commit in about four runs of five. The
 * lockstep test removes the chance: the producer waits for each record to be consumed
 * before it writes the next, and the two threads synchronize through the ring alone, so
 * every record read is ordered after its writes only by ring_commit's release and
 * ring_peek's acquire, and every reuse of a slot after its read only by ring_consume's
 * release and ring_reserve's acquire, in every run. */
#include "ring.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_check.h"

#define RECORD_SIZE 48
#ifndef RECORDS
#define RECORDS 2000000u /* the TSan build uses fewer: it runs far slower */
#endif

struct record {
    uint32_t seq;
    uint32_t words[(RECORD_SIZE - 8) / 4];
    uint32_t check;
};

_Static_assert(sizeof(struct record) == RECORD_SIZE, "test record matches a SampleRecordPC");

static struct ring ring;
static volatile int producer_done;

static uint32_t checksum(const struct record *r)
{
    uint32_t c = r->seq * 2654435761u;
    for (size_t i = 0; i < sizeof(r->words) / 4; i++)
        c = (c ^ r->words[i]) * 16777619u;
    return c;
}

static void fill(struct record *r, uint32_t seq)
{
    r->seq = seq;
    for (size_t i = 0; i < sizeof(r->words) / 4; i++)
        r->words[i] = seq ^ (uint32_t)(i * 0x9e3779b9u);
    r->check = checksum(r);
}

static void *producer(void *arg)
{
    (void)arg;
    for (uint32_t seq = 0; seq < RECORDS; seq++) {
        struct record *r = ring_reserve(&ring);
        if (!r)
            continue;
        /* Word by word, to widen any window for tearing. */
        fill(r, seq);
        ring_commit(&ring);
    }
    __atomic_store_n(&producer_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* `never_full` 1: the ring holds every record and must drop none; 0: it is so small that
 * it must drop some (else the test did not exercise a full ring); -1: either. */
static void test_concurrent(uint32_t bytes, int never_full)
{
    void *mem = malloc(bytes);
    CHECK_MSG(ring_init(&ring, mem, bytes, RECORD_SIZE) == 0, "ring_init");
    producer_done = 0;
    pthread_t t;
    pthread_create(&t, NULL, producer, NULL);
    uint32_t delivered = 0, last = 0;
    int first = 1;
    for (;;) {
        int done = __atomic_load_n(&producer_done, __ATOMIC_ACQUIRE);
        const void *data;
        uint32_t n = ring_peek(&ring, &data);
        for (uint32_t i = 0; i < n; i++) {
            struct record rec;
            memcpy(&rec, (const uint8_t *)data + (size_t)i * RECORD_SIZE, RECORD_SIZE);
            CHECK_MSG(rec.check == checksum(&rec), "torn record seq %u", rec.seq);
            CHECK_MSG(first || rec.seq > last, "order: %u after %u", rec.seq, last);
            first = 0;
            last = rec.seq;
        }
        ring_consume(&ring, n);
        delivered += n;
        if (done && n == 0 && ring_used(&ring) == 0)
            break;
    }
    pthread_join(t, NULL);
    CHECK_MSG(ring.sampled == RECORDS, "sampled %u", ring.sampled);
    CHECK_MSG(delivered + ring.dropped == RECORDS, "delivered %u + dropped %u != %u", delivered,
              ring.dropped, RECORDS);
    if (never_full > 0)
        CHECK_MSG(ring.dropped == 0, "a ring of %u records dropped %u of %u", ring.capacity,
                  ring.dropped, RECORDS);
    else if (never_full == 0)
        CHECK_MSG(ring.dropped > 0, "a ring of %u records never filled: the test proves nothing",
                  ring.capacity);
    printf("ring %7u bytes (%5u records): delivered %u, dropped %u\n", bytes, ring.capacity,
           delivered, ring.dropped);
    free(mem);
}

#define LOCKSTEP_RECORDS 1000u

/* The producer tells the consumer nothing but through head until it exits, and learns
 * nothing from it but through ring_reserve. Either side gives up when the other stopped (a
 * broken ring), so the test fails, never hangs. */
static int lockstep_abort, lockstep_exited;

static void *lockstep_producer(void *arg)
{
    uintptr_t refused = 0;
    (void)arg;
    for (uint32_t seq = 0; seq < LOCKSTEP_RECORDS; seq++) {
        struct record *r = ring_reserve(&ring);
        if (!r) {
            refused++;
            continue;
        }
        fill(r, seq);
        ring_commit(&ring);
        /* Until the consumer took it. Relaxed loads, so that ring_reserve's acquire of tail
         * is the only edge from the consumer's read of a slot to this thread's next write
         * into it (a ring of four reuses every slot every four records). */
        while (__atomic_load_n(&ring.tail, __ATOMIC_RELAXED) !=
                   __atomic_load_n(&ring.head, __ATOMIC_RELAXED) &&
               !__atomic_load_n(&lockstep_abort, __ATOMIC_ACQUIRE))
            sched_yield();
    }
    __atomic_store_n(&lockstep_exited, 1, __ATOMIC_RELEASE);
    return (void *)refused;
}

static void test_lockstep(void)
{
    static uint8_t mem[RECORD_SIZE * 4];
    CHECK_MSG(ring_init(&ring, mem, sizeof(mem), RECORD_SIZE) == 0, "init");
    pthread_t t;
    pthread_create(&t, NULL, lockstep_producer, NULL);
    uint32_t seq;
    for (seq = 0; seq < LOCKSTEP_RECORDS; seq++) {
        const void *data;
        uint32_t n;
        while ((n = ring_peek(&ring, &data)) == 0 &&
               !__atomic_load_n(&lockstep_exited, __ATOMIC_ACQUIRE))
            sched_yield();
        struct record rec;
        if (n == 0)
            break;
        memcpy(&rec, data, RECORD_SIZE);
        if (n != 1 || rec.seq != seq || rec.check != checksum(&rec))
            break;
        ring_consume(&ring, 1);
    }
    __atomic_store_n(&lockstep_abort, 1, __ATOMIC_RELEASE);
    void *refused;
    pthread_join(t, &refused);
    CHECK_MSG(seq == LOCKSTEP_RECORDS,
              "lockstep: record %u missing, torn, out of order or not alone", seq);
    CHECK_MSG(refused == NULL, "lockstep: an empty ring refused %lu records",
              (unsigned long)(uintptr_t)refused);
}

static void test_full_ring_drops_new(void)
{
    uint8_t mem[RECORD_SIZE * 3 + 7];
    CHECK_MSG(ring_init(&ring, mem, sizeof(mem), RECORD_SIZE) == 0, "init");
    CHECK_MSG(ring.capacity == 3, "capacity %u", ring.capacity);
    for (uint32_t i = 0; i < 5; i++) {
        struct record *r = ring_reserve(&ring);
        if (r) {
            r->seq = i;
            ring_commit(&ring);
        }
    }
    CHECK_MSG(ring.sampled == 5 && ring.dropped == 2, "sampled %u dropped %u", ring.sampled,
              ring.dropped);
    const void *data;
    uint32_t n = ring_peek(&ring, &data);
    CHECK_MSG(n == 3, "peek %u", n);
    CHECK_MSG(((const struct record *)data)[0].seq == 0 &&
                  ((const struct record *)data)[2].seq == 2,
              "oldest records kept, newest dropped");
    ring_consume(&ring, 2);
    CHECK_MSG(ring_used(&ring) == 1, "used after consume");
    /* Wrap around several times with a non-power-of-two capacity. */
    for (uint32_t i = 0; i < 100; i++) {
        struct record *r = ring_reserve(&ring);
        CHECK_MSG(r != NULL, "room after consume at %u", i);
        if (!r)
            break;
        r->seq = 100 + i;
        ring_commit(&ring);
        n = ring_peek(&ring, &data);
        CHECK_MSG(n >= 1, "peek after wrap");
        /* Only the contiguous run: never past the end of the ring's memory. */
        CHECK_MSG((const uint8_t *)data + (size_t)n * RECORD_SIZE <= mem + 3 * RECORD_SIZE,
                  "peek at %u: %u records from slot %ld run past the end", i, n,
                  (long)(((const uint8_t *)data - mem) / RECORD_SIZE));
        ring_consume(&ring, 1);
    }
    CHECK_MSG(ring_init(&ring, mem, RECORD_SIZE - 1, RECORD_SIZE) != 0, "too small must fail");
    CHECK_MSG(ring_init(&ring, NULL, 4096, RECORD_SIZE) != 0, "NULL must fail");
}

int main(void)
{
    test_lockstep(); /* first: its thread's slot in TSan's clocks is one no join has seen */
    test_full_ring_drops_new();
    test_concurrent(RECORD_SIZE * 64 + 5, 0);  /* tiny: many drops */
    test_concurrent(RECORD_SIZE * 1000, -1);   /* medium: either */
    test_concurrent(RECORD_SIZE * RECORDS, 1); /* big enough never to drop */
    if (check_failures) {
        fprintf(stderr, "%d failures\n", check_failures);
        return 1;
    }
    printf("ring: all checks passed\n");
    return 0;
}
