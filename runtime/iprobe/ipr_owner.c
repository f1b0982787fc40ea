/* IPROBE ownership (IprAllocate, IprDeallocate), CPU masks and contexts, the pool, the
 * status texts and the bit functions. */
#include "ipr_owner.h"
#include "ipr_state.h"
#include "ipr_count.h"
#include "ipr_hist.h"
#include "ipr_sample.h"

#include "acart.h"
#include "acart_platform.h"
#include "log.h"
#include "pmi_lvt.h"
#include "pmu_owner.h"

struct ipr_layout ipr_layout;
struct ipr_cpu ipr_cpus[ACA_MAX_CPUS];

/* Sample buffers and histograms: one pool, cut in order; given back whole once nothing
 * cut from it is left (IprDeleteBuffers of every CPU). */
static uint8_t pool[ACA_IPR_POOL_BYTES] __attribute__((section(".bss.acart_ipr"), aligned(64)));
static uint32_t pool_used;

static uint32_t owner_tid;
static int owner_named; /* the port named a task when IprAllocate was called */
static int allocated;

static uint32_t caller_id(int *named)
{
    uint32_t pid, tid;
    *named = aca_port_current_task(aca_plat_cpu_index(), &pid, &tid) == 0;
    return *named ? tid : 0;
}

int ipr_allocated(void)
{
    return allocated;
}

int ipr_is_owner(void)
{
    int named;
    uint32_t id = caller_id(&named);
    return allocated && pmu_owner_current() == PMU_OWNER_IPROBE && named == owner_named &&
           id == owner_tid;
}

IPR_STATUS ipr_check_owner(void)
{
    return ipr_is_owner() ? IPR__SUCCESS : IPR__NOTOWNER;
}

static void probe_layout(void)
{
    struct ipr_layout *l = &ipr_layout;
    uint32_t n = 1;
    l->hw_id[0] = IPR_NO_HW;
    l->pmu = pmu_probe(&l->caps) == PMU_OK;
    if (l->pmu) {
        for (unsigned j = 0; j < PMU_MAX_FIXED; j++)
            if (l->caps.fixed_mask & (1u << j))
                l->hw_id[n++] = (uint8_t)PMU_FIXED_ID(j);
        for (unsigned i = 0; i < l->caps.num_gp; i++)
            l->hw_id[n++] = (uint8_t)i;
    }
    l->num_counters = n;
    l->num_cpus = aca_plat_num_cpus();
    if (l->num_cpus > ACA_MAX_CPUS)
        l->num_cpus = ACA_MAX_CPUS;
}

void ipr_layout_ensure(void)
{
    if (!ipr_layout.num_counters)
        probe_layout();
}

IPR_STATUS IprAllocate(void)
{
    int named;
    uint32_t id = caller_id(&named);
    if (pmu_owner_claim(PMU_OWNER_IPROBE) != ACA_OK)
        return pmu_owner_current() == PMU_OWNER_HOST ? IPR__HOSTSESSION : IPR__INUSE;
    if (allocated) {
        /* Held by IPROBE already: the caller itself, or another task. */
        return named == owner_named && id == owner_tid ? IPR__ALREADYOWNER : IPR__INUSE;
    }
    owner_tid = id;
    owner_named = named;
    allocated = 1;
    probe_layout();
    ipr_count_reset();
    pmu_owner_set_tick(ipr_tick);
    if (ipr_layout.pmu && aca_plat_nmi_install(ipr_pmi) != ACA_OK)
        ipr_layout.pmu = 0; /* the platform cannot share its NMI: counting the TSC only */
    return IPR__SUCCESS;
}

static void quiet_cpu(uint32_t cpu, void *arg)
{
    (void)arg;
    struct ipr_cpu *c = &ipr_cpus[cpu];
    c->running = c->active = 0;
    if (c->timer_armed)
        aca_plat_timer_disarm();
    c->timer_armed = 0;
    if (ipr_layout.pmu) {
        pmu_stop_cpu(&c->pmu);
        pmi_lvt_mask(cpu);
    }
}

IPR_STATUS IprDeallocate(void)
{
    if (!ipr_is_owner())
        return IPR__NOTOWNER;
    ipr_on_cpus(ipr_cpus_of(IPR_ALL_CPUS), quiet_cpu, 0);
    ipr_sample_reset();
    ipr_hist_delete(IPR_ALL_CPUS);
    pool_used = 0;
    if (ipr_layout.pmu)
        aca_plat_nmi_remove(ipr_pmi);
    pmu_owner_set_tick(0);
    owner_tid = 0;
    owner_named = 0;
    allocated = 0;
    pmu_owner_release(PMU_OWNER_IPROBE);
    return IPR__SUCCESS;
}

/* ---- CPU masks and contexts ---- */

IPR_CPUMASK ipr_cpus_of(IPR_CPUMASK cpus)
{
    uint32_t n = ipr_layout.num_cpus;
    IPR_CPUMASK online = n >= 64 ? ~0ull : (1ull << n) - 1;
    if (cpus == IPR_CURRENT_CPU)
        return 1ull << aca_plat_cpu_index();
    return cpus & online;
}

int ipr_next_cpu(IPR_CPUMASK mask, int *ctx)
{
    for (int cpu = *ctx < 0 ? 0 : *ctx + 1; cpu < IPR_MAX_CPUS; cpu++) {
        if (mask & (1ull << cpu)) {
            *ctx = cpu;
            return cpu;
        }
    }
    *ctx = IPR_MAX_CPUS;
    return -1;
}

struct on_cpus {
    IPR_CPUMASK mask;
    ipr_cpu_fn fn;
    void *arg;
};

static void on_this_cpu(void *arg)
{
    const struct on_cpus *o = arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu < ACA_MAX_CPUS && (o->mask & (1ull << cpu)))
        o->fn(cpu, o->arg);
}

void ipr_on_cpus(IPR_CPUMASK mask, ipr_cpu_fn fn, void *arg)
{
    struct on_cpus o = {mask, fn, arg};
    uint32_t self = aca_plat_cpu_index();
    if (mask == (1ull << self)) {
        fn(self, arg); /* a task's own CPU: no other CPU need stop for it */
        return;
    }
    pmu_owner_call_all(on_this_cpu, &o);
}

/* ---- The pool ---- */

void *ipr_pool_alloc(uint32_t bytes)
{
    uint32_t need = (bytes + 7u) & ~7u;
    if (need < bytes || need > sizeof(pool) - pool_used)
        return 0;
    void *p = pool + pool_used;
    pool_used += need;
    return p;
}

uint32_t ipr_pool_free(void)
{
    return (uint32_t)sizeof(pool) - pool_used;
}

void ipr_pool_reset_if_unused(void)
{
    for (uint32_t i = 0; i < ACA_MAX_CPUS; i++)
        if (ipr_cpus[i].num_buffers)
            return;
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++)
        if (ipr_hists[i].used)
            return;
    pool_used = 0;
}

/* ---- Messages ---- */

static const struct {
    IPR_STATUS status;
    const char *text;
} messages[] = {
    {IPR__SUCCESS, "IPR__SUCCESS: success"},
    {IPR__PARTBUFF, "IPR__PARTBUFF: a partially filled sample buffer"},
    {IPR__FURTHER_EVENTS, "IPR__FURTHER_EVENTS: further events may be added"},
    {IPR__NO_FURTHER_EVENTS, "IPR__NO_FURTHER_EVENTS: no further event fits the counters"},
    {IPR__NOMORECPU, "IPR__NOMORECPU: no more CPUs in the mask"},
    {IPR__NOMOREBUFF, "IPR__NOMOREBUFF: no more sample buffers to return"},
    {IPR__NOTOWNER, "IPR__NOTOWNER: the caller does not own the counters (IprAllocate)"},
    {IPR__ALREADYOWNER, "IPR__ALREADYOWNER: the caller owns the counters already"},
    {IPR__INUSE, "IPR__INUSE: another task on the target owns the counters"},
    {IPR__HOSTSESSION, "IPR__HOSTSESSION: a host's SEP collection (VTune or acart collect) holds "
                       "the counters until its session ends"},
    {IPR__BADCPUMASK, "IPR__BADCPUMASK: the CPU mask names no online CPU (or not exactly one)"},
    {IPR__BADCTRMASK, "IPR__BADCTRMASK: the counter mask names a counter this CPU lacks"},
    {IPR__BADARG, "IPR__BADARG: an argument is missing or out of range"},
    {IPR__BUFTOOSMALL, "IPR__BUFTOOSMALL: an array or buffer is too small"},
    {IPR__NOMEMORY, "IPR__NOMEMORY: the IPROBE pool or sample-file store is full"},
    {IPR__INVEVENT, "IPR__INVEVENT: not an event of this CPU (a CPU without a usable PMU, as "
                    "under QEMU, counts only IPR_EVENT_TSC)"},
    {IPR__INVEVENTNAME, "IPR__INVEVENTNAME: no event of that name"},
    {IPR__AMBIGUOUS, "IPR__AMBIGUOUS: the name matches several events"},
    {IPR__NOCOUNTER, "IPR__NOCOUNTER: the events do not fit the counters"},
    {IPR__BADFREQ, "IPR__BADFREQ: not 0, a power of two the counter allows, LOWEST or HIGHEST"},
    {IPR__MODENOTSUPP, "IPR__MODENOTSUPP: x86 counters filter only kernel (ring 0) and user "
                       "(rings 1-3)"},
    {IPR__NOTIMPL, "IPR__NOTIMPL: not implemented on x86 (see docs/iprobe.md)"},
    {IPR__NOSELECTION, "IPR__NOSELECTION: no events selected"},
    {IPR__BADMUX, "IPR__BADMUX: not an encoded value IPROBE returned"},
    {IPR__BUFFERSEXIST, "IPR__BUFFERSEXIST: sample buffers exist already on a CPU of the mask"},
    {IPR__NOBUFFERS, "IPR__NOBUFFERS: no such buffers"},
    {IPR__RUNNING, "IPR__RUNNING: not while counters are running"},
    {IPR__FILENOTOPEN, "IPR__FILENOTOPEN: no sample file is open"},
    {IPR__FILEOPEN, "IPR__FILEOPEN: a sample file is open already"},
    {IPR__BADHIST, "IPR__BADHIST: no histogram matches"},
};

const char *aca_ipr_strerror(IPR_STATUS status)
{
    for (uint32_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
        if (messages[i].status == status)
            return messages[i].text;
    return 0;
}

static void log_line(char *line)
{
    aca_port_log(line);
}

IPR_STATUS IprPrintMessage(const char *tag, IPR_STATUS errcode, void (*callback)(char *))
{
    char line[200];
    const char *text = aca_ipr_strerror(errcode);
    if (text)
        log_format(line, sizeof(line), "%%IPR-%s%s%s", text, tag ? ", " : "", tag ? tag : "");
    else
        log_format(line, sizeof(line), "%%IPR-status %d%s%s", errcode, tag ? ", " : "",
                   tag ? tag : "");
    (callback ? callback : log_line)(line);
    return IPR__SUCCESS;
}

/* ---- Bit functions ---- */

uint64_t BIprB2M(unsigned b)
{
    return b < 64 ? 1ull << b : 0;
}

unsigned BIprCnt(uint64_t m)
{
    unsigned n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

int BIprWhich(uint64_t m)
{
    for (int b = 0; b < 64; b++)
        if (m & (1ull << b))
            return b;
    return -1;
}

int BIprRelPos(uint64_t m, unsigned b)
{
    if (b >= 64 || !(m & (1ull << b)))
        return -1;
    return (int)BIprCnt(m & ((1ull << b) - 1));
}
