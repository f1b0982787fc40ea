/* IPROBE histograms: per CPU, per counter, of the interrupted PC over an address range at a
 * granularity (IPR_HIST_ADDRESS, several per CPU told apart by index) or of the mode of
 * the interrupted code (IPR_HIST_MODE, one per CPU). Cells are bucket-major with one cell
 * per counter per bucket, the layout IprHbIndex describes; only the CPU's own interrupt
 * increments its cells. */
#include "ipr_hist.h"
#include "ipr_state.h"
#include "ipr_file.h"
#include "ipr_owner.h"

#include <string.h>

struct ipr_hist ipr_hists[IPR_MAX_HISTOGRAMS];

void ipr_hist_add(uint32_t cpu, unsigned ctr, uint64_t pc, unsigned mode)
{
    uint32_t numctrs = ipr_layout.num_counters;
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++) {
        struct ipr_hist *h = &ipr_hists[i];
        if (!__atomic_load_n(&h->used, __ATOMIC_ACQUIRE) || h->cpu != cpu)
            continue;
        if (h->type == IPR_HIST_MODE)
            h->cells[mode * numctrs + ctr]++;
        else if (pc >= h->begin && pc <= h->end)
            h->cells[(uint32_t)((pc - h->begin) >> h->gran) * numctrs + ctr]++;
    }
}

void ipr_hist_delete(IPR_CPUMASK mask)
{
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++)
        if (ipr_hists[i].used && (mask & (1ull << ipr_hists[i].cpu)))
            __atomic_store_n(&ipr_hists[i].used, 0, __ATOMIC_RELEASE);
}

static int exists(uint32_t cpu, IPR_HMASK type, unsigned index, int any_index)
{
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++) {
        const struct ipr_hist *h = &ipr_hists[i];
        if (h->used && h->cpu == cpu && (h->type & type) && (any_index || h->index == index))
            return 1;
    }
    return 0;
}

static IPR_STATUS create(IPR_CPUMASK mask, IPR_HMASK types, uint64_t begin, uint64_t end,
                         unsigned gran, unsigned index)
{
    uint32_t numctrs = ipr_layout.num_counters;
    /* Everything is checked before anything is created. */
    uint32_t slots = 0, needed = 0;
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++)
        slots += !ipr_hists[i].used;
    for (uint32_t cpu = 0; cpu < ipr_layout.num_cpus; cpu++) {
        if (!(mask & (1ull << cpu)))
            continue;
        if (((types & IPR_HIST_MODE) && exists(cpu, IPR_HIST_MODE, 0, 1)) ||
            ((types & IPR_HIST_ADDRESS) && exists(cpu, IPR_HIST_ADDRESS, index, 0)))
            return IPR__BUFFERSEXIST;
        needed += (types & IPR_HIST_MODE ? 1 : 0) + (types & IPR_HIST_ADDRESS ? 1 : 0);
    }
    if (needed > slots)
        return IPR__NOMEMORY;
    uint64_t address_buckets = ((end - begin) >> gran) + 1;
    if (address_buckets * numctrs > ACA_IPR_POOL_BYTES / sizeof(IPR_HISTELEM))
        return IPR__NOMEMORY;
    for (uint32_t cpu = 0; cpu < ipr_layout.num_cpus; cpu++) {
        if (!(mask & (1ull << cpu)))
            continue;
        for (IPR_HMASK type = IPR_HIST_ADDRESS; type <= IPR_HIST_MODE; type <<= 1) {
            if (!(types & type))
                continue;
            uint32_t slot = 0;
            while (ipr_hists[slot].used)
                slot++;
            struct ipr_hist *h = &ipr_hists[slot];
            h->num_buckets = type == IPR_HIST_MODE ? IPR_MODE_COUNT : (uint32_t)address_buckets;
            h->cells = ipr_pool_alloc(h->num_buckets * numctrs * (uint32_t)sizeof(IPR_HISTELEM));
            if (!h->cells)
                return IPR__NOMEMORY;
            memset(h->cells, 0, h->num_buckets * numctrs * sizeof(IPR_HISTELEM));
            h->cpu = cpu;
            h->type = type;
            h->index = index;
            h->gran = type == IPR_HIST_MODE ? 0 : gran;
            h->begin = type == IPR_HIST_MODE ? 0 : begin;
            h->end = type == IPR_HIST_MODE ? IPR_MODE_COUNT - 1 : end;
            __atomic_store_n(&h->used, 1, __ATOMIC_RELEASE);
        }
    }
    return IPR__SUCCESS;
}

IPR_STATUS IprCreateHistogramBuffers(IPR_CPUMASK cpus, IPR_HMASK histos, IPR_HISTVALUE BeginAddr,
                                     IPR_HISTVALUE EndAddr, unsigned int gran, unsigned int index)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (!histos || (histos & ~IPR_HIST_ALL) || gran > 32 ||
        ((histos & IPR_HIST_ADDRESS) && BeginAddr > EndAddr))
        return IPR__BADARG;
    return create(mask, histos, BeginAddr, EndAddr, gran, index);
}

IPR_STATUS IprAddAddressHistogramBuffers(IPR_CPUMASK cpus, IPR_HISTVALUE BeginAddr,
                                         IPR_HISTVALUE EndAddr, unsigned int gran,
                                         unsigned int index)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (gran > 32 || BeginAddr > EndAddr)
        return IPR__BADARG;
    for (uint32_t cpu = 0; cpu < ipr_layout.num_cpus; cpu++)
        if ((mask & (1ull << cpu)) && !exists(cpu, IPR_HIST_ALL, 0, 1))
            return IPR__NOBUFFERS; /* IprCreateHistogramBuffers first */
    return create(mask, IPR_HIST_ADDRESS, BeginAddr, EndAddr, gran, index);
}

/* Adds the matching histograms of the CPUs in mask into retdata; returns how many matched.
 * The seed's third condition of a match: some bucket of the histogram lies in the array
 * (from retmin, retsize cells), so a histogram of the right type and index outside the
 * range read does not count. */
static uint32_t gather(IPR_CPUMASK mask, IPR_HISTELEM *retdata, IPR_SIZE retsize,
                       IPR_HISTVALUE retmin, IPR_HMASK htype, unsigned index)
{
    uint32_t numctrs = ipr_layout.num_counters, matched = 0;
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++) {
        const struct ipr_hist *h = &ipr_hists[i];
        if (!h->used || !(mask & (1ull << h->cpu)) || h->type != htype || h->index != index)
            continue;
        uint32_t overlaps = 0;
        for (uint32_t b = 0; b < h->num_buckets; b++) {
            uint64_t value = h->begin + ((uint64_t)b << h->gran);
            if (value < retmin)
                continue;
            uint64_t at = ((value - retmin) >> h->gran) * numctrs;
            if (at + numctrs > retsize)
                break;
            overlaps = 1;
            for (uint32_t c = 0; c < numctrs; c++)
                retdata[at + c] += h->cells[b * numctrs + c];
        }
        matched += overlaps;
    }
    return matched;
}

/* The CPUs a read covers, after the CPU-context rules of the seed. */
static IPR_STATUS read_mask(IPR_CPUMASK cpus, int *cpuctxptr, int action, IPR_CPUMASK *mask)
{
    if (!ipr_allocated())
        return IPR__NOTOWNER;
    *mask = ipr_cpus_of(cpus);
    if (!*mask)
        return IPR__BADCPUMASK;
    if (action < IPR_HACTION_COPY || action > IPR_HACTION_ADD)
        return IPR__BADARG;
    if (cpuctxptr && action != IPR_HACTION_SUM) {
        int cpu = ipr_next_cpu(*mask, cpuctxptr);
        if (cpu < 0)
            return IPR__NOMORECPU;
        *mask = 1ull << cpu;
    } else if (cpuctxptr) {
        *cpuctxptr = IPR_MAX_CPUS;
    }
    return IPR__SUCCESS;
}

static IPR_STATUS read_into(IPR_CPUMASK mask, IPR_HISTELEM *retdata, IPR_SIZE retsize,
                            IPR_HISTVALUE retmin, IPR_HMASK htype, unsigned index, int action)
{
    if (!retdata || (htype != IPR_HIST_ADDRESS && htype != IPR_HIST_MODE))
        return IPR__BADARG;
    if (retsize < ipr_layout.num_counters)
        return IPR__BUFTOOSMALL;
    if (action != IPR_HACTION_ADD)
        memset(retdata, 0, retsize * sizeof(*retdata));
    return gather(mask, retdata, retsize, retmin, htype, index) ? IPR__SUCCESS : IPR__BADHIST;
}

IPR_STATUS IprReadHistogram(IPR_CPUMASK cpus, int *cpuctxptr, IPR_HISTELEM *retdata,
                            IPR_SIZE retsize, IPR_HISTVALUE retmin, IPR_HMASK htype,
                            unsigned int index, int action_flags)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = read_mask(cpus, cpuctxptr, action_flags, &mask);
    if (!IPR_SUCCESS(st) || st == IPR__NOMORECPU)
        return st;
    return read_into(mask, retdata, retsize, retmin, htype, index, action_flags);
}

IPR_STATUS IprReadMultipleHistograms(IPR_CPUMASK cpus, int *cpuctxptr, IPR_HISTELEM **retdata,
                                     const IPR_SIZE *retsize, const IPR_HISTVALUE *retmin,
                                     const IPR_HMASK *htype, const unsigned int *index,
                                     int action_flags, IPR_COUNT itemcnt)
{
    IPR_CPUMASK mask;
    if (!retdata || !retsize || !retmin || !htype || !index || !itemcnt)
        return IPR__BADARG;
    IPR_STATUS st = read_mask(cpus, cpuctxptr, action_flags, &mask);
    if (!IPR_SUCCESS(st) || st == IPR__NOMORECPU)
        return st;
    for (IPR_COUNT i = 0; i < itemcnt && IPR_SUCCESS(st); i++)
        st = read_into(mask, retdata[i], retsize[i], retmin[i], htype[i], index[i], action_flags);
    return st;
}

struct hist_clear {
    IPR_HMASK hmask;
    unsigned index;
    IPR_CPUMASK cpus;
};

/* On the histogram's own CPU: its interrupt increments cells with a plain read-modify-write,
 * which a clear from another CPU could overwrite with the value it read before the clear. */
static void clear_cpu(uint32_t cpu, void *arg)
{
    const struct hist_clear *op = arg;
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++) {
        struct ipr_hist *h = &ipr_hists[i];
        if (h->used && h->cpu == cpu && (h->type & op->hmask) && h->index == op->index)
            memset(h->cells, 0, h->num_buckets * ipr_layout.num_counters * sizeof(IPR_HISTELEM));
    }
}

IPR_STATUS IprClearHistograms(IPR_CPUMASK cpus, IPR_HMASK hmask, unsigned int index)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (!hmask || (hmask & ~IPR_HIST_ALL))
        return IPR__BADARG;
    struct hist_clear op = {hmask, index, 0};
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS; i++) {
        const struct ipr_hist *h = &ipr_hists[i];
        if (h->used && (mask & (1ull << h->cpu)) && (h->type & hmask) && h->index == index)
            op.cpus |= 1ull << h->cpu;
    }
    if (!op.cpus)
        return IPR__BADHIST;
    ipr_on_cpus(op.cpus, clear_cpu, &op);
    return IPR__SUCCESS;
}

IPR_STATUS aca_ipr_write_histograms(IPR_CPUMASK cpus, IPR_HMASK hmask, unsigned int index)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (!hmask || (hmask & ~IPR_HIST_ALL))
        return IPR__BADARG;
    uint32_t matched = 0;
    ipr_file_lock();
    if (!ipr_file_is_open())
        st = IPR__FILENOTOPEN;
    for (uint32_t i = 0; i < IPR_MAX_HISTOGRAMS && IPR_SUCCESS(st); i++) {
        const struct ipr_hist *h = &ipr_hists[i];
        if (!h->used || !(mask & (1ull << h->cpu)) || !(h->type & hmask) || h->index != index)
            continue;
        matched++;
        struct acart_ipr_hist hdr = {h->cpu,   h->type, h->index,       h->gran,
                                     h->begin, h->end,  h->num_buckets, ipr_layout.num_counters};
        st = ipr_file_append(ACART_IPR_REC_HIST, &hdr, sizeof(hdr), h->cells,
                             h->num_buckets * ipr_layout.num_counters *
                                 (uint32_t)sizeof(IPR_HISTELEM));
    }
    ipr_file_unlock();
    if (IPR_SUCCESS(st) && !matched)
        st = IPR__BADHIST;
    return st;
}

IPR_STATUS IprHbIndex(IPR_HISTVALUE value, IPR_CTRNUMBER ctr, IPR_COUNT numctrs,
                      IPR_HISTVALUE minval, int gran, int *index)
{
    if (!index || value < minval || ctr >= numctrs || gran < 0 || gran > 63)
        return IPR__BADARG;
    uint64_t i = ((value - minval) >> gran) * numctrs + ctr;
    if (i > 0x7fffffff)
        return IPR__BADARG;
    *index = (int)i;
    return IPR__SUCCESS;
}

IPR_STATUS IprHbValue(int index, IPR_COUNT numctrs, IPR_HISTVALUE minval, int gran,
                      IPR_HISTVALUE *value)
{
    if (!value || index < 0 || numctrs == 0 || gran < 0 || gran > 63)
        return IPR__BADARG;
    *value = minval + (((uint64_t)index / numctrs) << gran);
    return IPR__SUCCESS;
}

IPR_STATUS IprHbElements(IPR_COUNT numctrs, IPR_COUNT numval, int gran, IPR_COUNT *numelem)
{
    if (!numelem || numctrs == 0 || gran < 0 || gran > 63)
        return IPR__BADARG;
    *numelem = ((numval + (1ull << gran) - 1) >> gran) * numctrs;
    return IPR__SUCCESS;
}
