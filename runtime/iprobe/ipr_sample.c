/* IPROBE sample buffers: the interrupt's record (ipr_take_sample), PC ranges, what happens
 * when a buffer fills (IPR_FULL_*), and the task side that hands buffers back.
 *
 * Each CPU has its own list of buffers, cut from the pool, and fills them in turn: a full
 * buffer is skipped until the program marks it empty, and a sample that finds the current
 * buffer full is counted as dropped. Only the CPU's own interrupt writes into its buffers;
 * tasks read a buffer once it is full (or, with the counters stopped, partly filled). The
 * full actions that need task context (IPR_FULL_AST's routine, IPR_FULL_WRITE's copy into
 * the sample file) run from aca_ipr_poll, never from the interrupt. */
#include "ipr_sample.h"
#include "ipr_state.h"
#include "ipr_count.h"
#include "ipr_file.h"
#include "ipr_hist.h"
#include "ipr_owner.h"

#include "acart.h"
#include "acart_platform.h"
#include "io.h"
#include "irq_attribution.h"

static uint32_t item_bytes(IPR_DMASK datcol, IPR_DMASK qdatcol)
{
    uint32_t bytes = 0;
    for (IPR_DMASK bit = 1; bit <= IPR_DATA_ALL; bit <<= 1)
        if (datcol & bit)
            bytes += (qdatcol & bit) ? 8 : 4;
    return bytes;
}

static unsigned mode_of(uint32_t cpu, const struct aca_frame *f)
{
    uint32_t pid, tid;
    if (irq_attribution_vector(cpu) >= 0)
        return IPR_MODE_INTERRUPT;
    if (f->cs & 3)
        return IPR_MODE_USER;
    if (aca_port_current_task(cpu, &pid, &tid) != 0)
        return IPR_MODE_IDLE;
    return IPR_MODE_KERNEL;
}

static uint8_t *put(uint8_t *p, uint64_t v, int quad)
{
    uint32_t *w = (uint32_t *)p;
    w[0] = (uint32_t)v;
    if (!quad)
        return p + 4;
    w[1] = (uint32_t)(v >> 32);
    return p + 8;
}

static int in_ranges(const struct ipr_cpu *c, uint64_t pc)
{
    if (!c->num_ranges)
        return 1;
    for (uint32_t r = 0; r < c->num_ranges; r++)
        if (pc >= c->ranges[2 * r] && pc <= c->ranges[2 * r + 1])
            return 1;
    return 0;
}

void ipr_take_sample(struct ipr_cpu *c, uint32_t cpu, unsigned ctr, const struct aca_frame *f)
{
    ipr_hist_add(cpu, ctr, f->ip, mode_of(cpu, f));
    uint32_t n = __atomic_load_n(&c->num_buffers, __ATOMIC_ACQUIRE);
    if (!n || !in_ranges(c, f->ip))
        return;
    IPR_SBUFFER *b = c->buf[c->current];
    if (b->full) {
        c->dropped++;
        return;
    }
    uint32_t pid = 0, tid = 0;
    if (c->datcol & (IPR_DATA_TASK | IPR_DATA_THREAD))
        aca_port_current_task(cpu, &pid, &tid);
    uint8_t *p = b->data + b->used;
    IPR_DMASK d = c->datcol, q = c->qdatcol;
    if (d & IPR_DATA_PC)
        p = put(p, f->ip, q & IPR_DATA_PC);
    if (d & IPR_DATA_TSC)
        p = put(p, rdtsc(), q & IPR_DATA_TSC);
    if (d & IPR_DATA_CPU)
        p = put(p, cpu, q & IPR_DATA_CPU);
    if (d & IPR_DATA_TASK)
        p = put(p, pid, q & IPR_DATA_TASK);
    if (d & IPR_DATA_THREAD)
        p = put(p, tid, q & IPR_DATA_THREAD);
    if (d & IPR_DATA_CTR)
        p = put(p, ctr, q & IPR_DATA_CTR);
    /* A hardware counter samples from its overflow, which has added what it counted to
     * `base` while the counter still holds the wrapped value pmi.c reloads next: reading
     * it now (ipr_count_of) would count the period twice. */
    if (d & IPR_DATA_COUNT)
        put(p, ctr == 0 ? ipr_count_of(c, 0) : c->ctr[ctr].base, q & IPR_DATA_COUNT);
    uint32_t used = b->used + b->record_bytes;
    __atomic_store_n(&b->used, used, __ATOMIC_RELEASE);
    if (used + b->record_bytes > b->size) {
        __atomic_store_n(&b->full, 1, __ATOMIC_RELEASE);
        __atomic_add_fetch(&c->ast_pending, 1, __ATOMIC_ACQ_REL);
        c->current = c->current + 1 < n ? c->current + 1 : 0;
    }
}

void ipr_sample_reset(void)
{
    for (uint32_t i = 0; i < ACA_MAX_CPUS; i++) {
        struct ipr_cpu *c = &ipr_cpus[i];
        c->num_buffers = c->current = c->dropped = c->ast_pending = 0;
        c->num_ranges = 0;
        c->fullaction = IPR_FULL_NONE;
        c->routine = 0;
    }
}

IPR_STATUS IprCreateSampleBuffers(IPR_CPUMASK cpus, IPR_COUNT bufcnt, IPR_SIZE bufsiz,
                                  IPR_DMASK datcol, IPR_DMASK qdatcol, int sampleaction,
                                  int fullaction, int (*pRoutine)(void), IPR_COUNT rangecnt,
                                  const uint64 *ranges)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (sampleaction != 0 || fullaction == IPR_FULL_WAKE)
        return IPR__NOTIMPL; /* docs/iprobe.md says why */
    if (fullaction != IPR_FULL_NONE && fullaction != IPR_FULL_AST && fullaction != IPR_FULL_WRITE)
        return IPR__BADARG;
    if ((fullaction == IPR_FULL_AST && !pRoutine) || !datcol || (datcol & ~IPR_DATA_ALL) ||
        (qdatcol & ~datcol) || bufcnt == 0 || bufcnt > IPR_MAX_BUFFERS ||
        rangecnt > IPR_MAX_RANGES || (rangecnt && !ranges))
        return IPR__BADARG;
    for (uint32_t r = 0; r < rangecnt; r++)
        if (ranges[2 * r] > ranges[2 * r + 1])
            return IPR__BADARG;
    uint32_t record = item_bytes(datcol, qdatcol);
    if (bufsiz < record)
        return IPR__BUFTOOSMALL;
    uint64_t need = 0, each = ((uint64_t)sizeof(IPR_SBUFFER) + bufsiz + 7) & ~7ull;
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++) {
        if (!(mask & (1ull << i)))
            continue;
        if (ipr_cpus[i].num_buffers)
            return IPR__BUFFERSEXIST;
        need += each * bufcnt;
    }
    if (need > ipr_pool_free())
        return IPR__NOMEMORY;
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++) {
        if (!(mask & (1ull << i)))
            continue;
        struct ipr_cpu *c = &ipr_cpus[i];
        for (uint32_t k = 0; k < bufcnt; k++) {
            IPR_SBUFFER *b = ipr_pool_alloc((uint32_t)each); /* fits: checked above */
            b->magic = IPR_SBUFFER_MAGIC;
            b->cpu = (uint16_t)i;
            b->index = (uint16_t)k;
            b->size = bufsiz;
            b->used = b->full = 0;
            b->record_bytes = record;
            b->datcol = datcol;
            b->qdatcol = qdatcol;
            c->buf[k] = b;
        }
        c->datcol = datcol;
        c->qdatcol = qdatcol;
        c->fullaction = fullaction;
        c->routine = pRoutine;
        c->num_ranges = (uint32_t)rangecnt;
        for (uint32_t r = 0; r < 2 * rangecnt; r++)
            c->ranges[r] = ranges[r];
        c->current = c->dropped = c->ast_pending = 0;
        __atomic_store_n(&c->num_buffers, (uint32_t)bufcnt, __ATOMIC_RELEASE);
    }
    return IPR__SUCCESS;
}

/* On the CPU itself, so no interrupt of its is half-way through a record meanwhile. */
static void delete_cpu(uint32_t cpu, void *arg)
{
    (void)arg;
    __atomic_store_n(&ipr_cpus[cpu].num_buffers, 0, __ATOMIC_RELEASE);
    ipr_hist_delete(1ull << cpu);
}

IPR_STATUS IprDeleteBuffers(IPR_CPUMASK cpus)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    ipr_on_cpus(mask, delete_cpu, 0);
    ipr_pool_reset_if_unused();
    return IPR__SUCCESS;
}

static int valid_buffer(const IPR_SBUFFER *b)
{
    return b && b->magic == IPR_SBUFFER_MAGIC && b->cpu < ACA_MAX_CPUS &&
           b->index < ipr_cpus[b->cpu].num_buffers && ipr_cpus[b->cpu].buf[b->index] == b;
}

/* On the buffer's own CPU, so that no sample of its interrupt is half written into a buffer
 * being emptied (a partly filled buffer is still being filled). Emptied before it is
 * unmarked full: an interrupt in between finds it full and leaves it alone. */
static void mark_empty_cpu(uint32_t cpu, void *arg)
{
    IPR_SBUFFER *b = arg;
    (void)cpu;
    __atomic_store_n(&b->used, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&b->full, 0, __ATOMIC_RELEASE);
}

IPR_STATUS IprMarkEmptySampleBuffer(IPR_SBUFFER *Sptr)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    if (!valid_buffer(Sptr))
        return IPR__BADARG;
    ipr_on_cpus(1ull << Sptr->cpu, mark_empty_cpu, Sptr);
    return IPR__SUCCESS;
}

IPR_STATUS IprNextFullSampleBuffer(IPR_CPUMASK cpus, IPR_SBUFFER **bctx, IPR_SIZE *bsize,
                                   IPR_BOOLEAN part_flag)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (!bctx || !bsize || (*bctx && !valid_buffer(*bctx)))
        return IPR__BADARG;
    uint32_t cpu = *bctx ? (*bctx)->cpu : 0, k = *bctx ? (*bctx)->index + 1u : 0;
    for (; cpu < ipr_layout.num_cpus; cpu++, k = 0) {
        if (!(mask & (1ull << cpu)))
            continue;
        const struct ipr_cpu *c = &ipr_cpus[cpu];
        for (; k < c->num_buffers; k++) {
            IPR_SBUFFER *b = c->buf[k];
            int full = __atomic_load_n(&b->full, __ATOMIC_ACQUIRE);
            if (full || (part_flag && b->used)) {
                *bctx = b;
                *bsize = b->used;
                return full ? IPR__SUCCESS : IPR__PARTBUFF;
            }
        }
    }
    *bctx = 0;
    return IPR__NOMOREBUFF;
}

static IPR_STATUS write_buffer_locked(IPR_SBUFFER *b, IPR_SIZE bytes, int partial)
{
    struct acart_ipr_sbuffer h = {b->cpu,     (uint32_t)partial, b->datcol,
                                  b->qdatcol, b->record_bytes,   bytes};
    return ipr_file_append(ACART_IPR_REC_SBUFFER, &h, sizeof(h), b->data, bytes);
}

IPR_STATUS IprWriteOneSampleBuffer(const IPR_SBUFFER *bptr, IPR_SIZE bsize)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    if (!valid_buffer(bptr) || bsize > bptr->size || bsize % bptr->record_bytes)
        return IPR__BADARG;
    ipr_file_lock();
    st = write_buffer_locked((IPR_SBUFFER *)(uintptr_t)bptr, bsize, !bptr->full);
    ipr_file_unlock();
    return st;
}

/* Writes and empties the full buffers of cpu (and the partly filled ones with `partial`);
 * the file lock is held. */
static IPR_STATUS flush_cpu(uint32_t cpu, int partial, int *writes, int *partwrites)
{
    struct ipr_cpu *c = &ipr_cpus[cpu];
    for (uint32_t k = 0; k < c->num_buffers; k++) {
        IPR_SBUFFER *b = c->buf[k];
        int full = __atomic_load_n(&b->full, __ATOMIC_ACQUIRE);
        if (!full && !(partial && b->used))
            continue;
        IPR_STATUS st = write_buffer_locked(b, b->used, !full);
        if (!IPR_SUCCESS(st))
            return st;
        (*writes)++;
        if (!full)
            (*partwrites)++;
        __atomic_store_n(&b->used, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&b->full, 0, __ATOMIC_RELEASE);
    }
    return IPR__SUCCESS;
}

IPR_STATUS IprWriteSampleBuffers(IPR_CPUMASK cpus, int write_flag, int *rbufwrites,
                                 int *rpartwrites)
{
    int writes = 0, partwrites = 0;
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    ipr_file_lock();
    if (!ipr_file_is_open())
        st = IPR__FILENOTOPEN;
    for (uint32_t i = 0; i < ipr_layout.num_cpus && IPR_SUCCESS(st); i++)
        if (mask & (1ull << i))
            st = flush_cpu(i, write_flag != 0, &writes, &partwrites);
    ipr_file_unlock();
    if (rbufwrites)
        *rbufwrites = writes;
    if (rpartwrites)
        *rpartwrites = partwrites;
    return st;
}

IPR_STATUS IprTerminateSampling(int *rbufwrites, int *rpartwrites)
{
    int writes = 0, partwrites = 0;
    IPR_STATUS st = IprStop(IPR_ALL_CPUS, 0);
    if (!IPR_SUCCESS(st))
        return st;
    ipr_file_lock();
    if (ipr_file_is_open())
        for (uint32_t i = 0; i < ipr_layout.num_cpus && IPR_SUCCESS(st); i++)
            st = flush_cpu(i, 1, &writes, &partwrites);
    ipr_file_unlock();
    if (rbufwrites)
        *rbufwrites = writes;
    if (rpartwrites)
        *rpartwrites = partwrites;
    IPR_STATUS del = IprDeleteBuffers(IPR_ALL_CPUS);
    return IPR_SUCCESS(st) ? del : st;
}

void aca_ipr_poll(void)
{
    if (!ipr_allocated())
        return;
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++) {
        struct ipr_cpu *c = &ipr_cpus[i];
        if (!__atomic_load_n(&c->ast_pending, __ATOMIC_ACQUIRE))
            continue;
        if (c->fullaction == IPR_FULL_WRITE) {
            /* The owner may hold the file (on this very CPU): then try again next time. */
            if (!ipr_file_trylock())
                continue;
            int writes = 0, partwrites = 0;
            __atomic_store_n(&c->ast_pending, 0, __ATOMIC_RELEASE);
            if (ipr_file_is_open())
                flush_cpu(i, 0, &writes, &partwrites);
            for (int w = 0; w < writes; w++)
                ipr_file_count_write(0);
            ipr_file_unlock();
            continue;
        }
        uint32_t n = __atomic_exchange_n(&c->ast_pending, 0, __ATOMIC_ACQ_REL);
        if (c->fullaction == IPR_FULL_AST && c->routine)
            for (; n; n--)
                c->routine();
    }
}
