/* IPROBE events: the time-stamp counter and the architectural events of CPUID leaf 0xA
 * (Intel SDM vol. 3B, 20.2.1.2), by number and by perfmon's names; event sets; which
 * counter can count what. Other hardware events are accepted by number (the event bits of
 * IA32_PERFEVTSELx, IPR_EVENT_EVTSEL_BITS) on the general-purpose counters, and by name
 * once aca_ipr_use_perfmon has given a name source (perfmon's table of the CPU). */
#include "ipr_events.h"
#include "ipr_state.h"
#include "ipr_name_source.h"
#include "ipr_owner.h"

#include "cpuid.h"

#include <string.h>

struct ipr_event_info {
    IPR_EVENT number;
    const char *name;
    int8_t arch_bit; /* CPUID.0AH:EBX bit that says "not available"; -1: always there */
    int8_t fixed;    /* fixed counter that counts it, or -1 */
    uint8_t gp;      /* a general-purpose counter can count it */
};

static const struct ipr_event_info events[] = {
    {IPR_EVENT_TSC, "TSC", -1, -1, 0},
    {0x003c, "CPU_CLK_UNHALTED.THREAD", 0, 1, 1},
    {0x00c0, "INST_RETIRED.ANY", 1, 0, 1},
    {0x013c, "CPU_CLK_UNHALTED.REF_TSC", 2, 2, 1},
    {0x4f2e, "LONGEST_LAT_CACHE.REFERENCE", 3, -1, 1},
    {0x412e, "LONGEST_LAT_CACHE.MISS", 4, -1, 1},
    {0x00c4, "BR_INST_RETIRED.ALL_BRANCHES", 5, -1, 1},
    {0x00c5, "BR_MISP_RETIRED.ALL_BRANCHES", 6, -1, 1},
    {0x01a4, "TOPDOWN.SLOTS", 7, 3, 0},
};
#define NUM_EVENTS (sizeof(events) / sizeof(events[0]))

static const struct ipr_name_source *names;

void ipr_set_name_source(const struct ipr_name_source *src)
{
    names = src;
}

static uint32_t num_named(void)
{
    return names ? names->count() : 0;
}

/* The name source's index of an IPR_EVENT_TABLE number, or -1. */
static int32_t table_index(IPR_EVENT evt)
{
    uint32_t i = evt & 0xffffu;
    if ((evt & ~0xffffu) != IPR_EVENT_TABLE || i == 0 || i > num_named())
        return -1;
    return (int32_t)(i - 1);
}

void ipr_event_encoding(IPR_EVENT evt, uint32_t *evtsel, struct pmu_extra_msr *extra,
                        uint32_t *alt_evtsel)
{
    int32_t i = table_index(evt);
    uint32_t msr = 0;
    uint64_t value = 0;
    *alt_evtsel = 0;
    *evtsel = evt & IPR_EVENT_EVTSEL_BITS;
    if (i >= 0)
        names->encoding((uint32_t)i, evtsel, &msr, &value, alt_evtsel);
    extra->msr = msr;
    extra->value = value;
}

/* The name source's entry for a number: 1 and its name and general-counter mask, or 0. */
static int find_named(IPR_EVENT evt, const char **name, uint8_t *mask)
{
    IPR_EVENT n;
    for (uint32_t i = 0, count = num_named(); i < count; i++)
        if (names->at(i, name, &n, mask) == 1 && n == evt)
            return 1;
    return 0;
}

/* The general counters the name source allows for a number (0xff when it names none). */
static uint8_t source_gp_mask(IPR_EVENT evt)
{
    const char *name;
    uint8_t mask;
    return find_named(evt, &name, &mask) ? mask : 0xff;
}

static const struct ipr_event_info *info_of(IPR_EVENT evt)
{
    for (uint32_t i = 0; i < NUM_EVENTS; i++)
        if (events[i].number == evt)
            return &events[i];
    return 0;
}

/* Whether this CPU's leaf 0xA lists an architectural event as available. */
static int arch_available(int bit)
{
    if (bit < 0)
        return 1;
    if (!ipr_layout.pmu)
        return 0;
    struct cpuid_regs a = cpuid(0xa, 0);
    unsigned length = a.eax >> 24;
    return (unsigned)bit < length && !(a.ebx & (1u << bit));
}

/* A raw number: an event code or umask, and no bit of IA32_PERFEVTSELx that is IPROBE's. */
static int raw_number(IPR_EVENT evt)
{
    return (evt & 0xffffu) != 0 && (evt & ~IPR_EVENT_EVTSEL_BITS) == 0;
}

int ipr_event_fixed(IPR_EVENT evt)
{
    const struct ipr_event_info *e = info_of(evt);
    if (!e || e->fixed < 0 || !ipr_layout.pmu || !(ipr_layout.caps.fixed_mask & (1u << e->fixed)))
        return -1;
    return e->fixed;
}

int ipr_event_gp(IPR_EVENT evt)
{
    const struct ipr_event_info *e = info_of(evt);
    if (!ipr_layout.pmu || !ipr_layout.caps.num_gp)
        return 0;
    if (e)
        return e->gp && arch_available(e->arch_bit);
    return raw_number(evt) || table_index(evt) >= 0;
}

IPR_STATUS ipr_event_check(IPR_EVENT evt)
{
    ipr_layout_ensure();
    const struct ipr_event_info *e = info_of(evt);
    if (evt == IPR_EVENT_TSC)
        return IPR__SUCCESS;
    /* Without a usable PMU no counter counts a hardware event: that CPU lacks the event
     * as much as one whose leaf 0xA marks it unavailable, so both are IPR__INVEVENT. */
    if (!e && !raw_number(evt) && table_index(evt) < 0)
        return IPR__INVEVENT;
    if (ipr_event_fixed(evt) < 0 && !ipr_event_gp(evt))
        return IPR__INVEVENT;
    return IPR__SUCCESS;
}

int ipr_event_known(IPR_EVENT evt)
{
    return ipr_event_check(evt) == IPR__SUCCESS;
}

IPR_CTRMASK ipr_counters_for(IPR_EVENT evt)
{
    ipr_layout_ensure();
    IPR_CTRMASK m = 0;
    int fixed = ipr_event_fixed(evt), gp = ipr_event_gp(evt);
    if (evt == IPR_EVENT_TSC)
        return 1;
    uint8_t gp_mask = gp ? source_gp_mask(evt) : 0;
    for (uint32_t n = 1; n < ipr_layout.num_counters; n++) {
        unsigned id = ipr_layout.hw_id[n];
        if (id >= 32 ? fixed == (int)(id - 32) : (gp_mask & (1u << id)) != 0)
            m |= 1u << n;
    }
    return m;
}

/* ---- Names ---- */

const char *IprEventNumberToName(IPR_EVENT evt)
{
    const struct ipr_event_info *e = info_of(evt);
    if (e)
        return e->name;
    const char *name;
    uint8_t mask;
    return find_named(evt, &name, &mask) ? name : "";
}

IPR_COUNT IprNumberOfEvents(void)
{
    return NUM_EVENTS + num_named();
}

static int same_letters(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 'a' + 'A');
        if (y >= 'a' && y <= 'z')
            y = (char)(y - 'a' + 'A');
        if (x != y || !x)
            return 0;
    }
    return 1;
}

/* The list of an ambiguous name's matches, space-separated (as many as fit). */
static char match_list[NUM_EVENTS * 32];

/* The name of event i of the architectural table, then of the name source. */
static const char *name_at(uint32_t i)
{
    if (i < NUM_EVENTS)
        return events[i].name;
    const char *name = 0;
    IPR_EVENT n;
    uint8_t mask;
    names->at(i - NUM_EVENTS, &name, &n, &mask);
    return name;
}

/* Event i's number: IPR__SUCCESS, or IPR__INVEVENT for a name IPROBE cannot program. */
static IPR_STATUS number_at(uint32_t i, IPR_EVENT *evt)
{
    if (i < NUM_EVENTS) {
        *evt = events[i].number;
        return IPR__SUCCESS;
    }
    const char *name;
    uint8_t mask;
    return names->at(i - NUM_EVENTS, &name, evt, &mask) == 1 ? IPR__SUCCESS : IPR__INVEVENT;
}

IPR_STATUS IprEventNameToNumber(const char *ename, IPR_EVENT *evtnum, const char **matches)
{
    if (!ename || !evtnum || !*ename)
        return IPR__BADARG;
    size_t len = strlen(ename);
    uint32_t found = 0, first = 0, total = NUM_EVENTS + num_named();
    /* An exact name wins over the names it is a prefix of (case is ignored); the
     * architectural table's over the name source's. */
    for (uint32_t i = 0; i < NUM_EVENTS; i++) {
        if (strlen(events[i].name) == len && same_letters(events[i].name, ename, len)) {
            *evtnum = events[i].number;
            if (matches)
                *matches = events[i].name;
            return IPR__SUCCESS;
        }
    }
    int32_t exact = names ? names->find(ename) : -1;
    if (exact >= 0) {
        if (matches)
            *matches = name_at(NUM_EVENTS + (uint32_t)exact);
        return number_at(NUM_EVENTS + (uint32_t)exact, evtnum);
    }
    match_list[0] = 0;
    size_t used = 0;
    for (uint32_t i = 0; i < total; i++) {
        const char *name = name_at(i);
        size_t n = strlen(name);
        if (n < len || !same_letters(name, ename, len))
            continue;
        if (!found++)
            first = i;
        if (used + n + 2 <= sizeof(match_list)) {
            if (used)
                match_list[used++] = ' ';
            memcpy(match_list + used, name, n + 1);
            used += n;
        }
    }
    if (!found)
        return IPR__INVEVENTNAME;
    if (matches)
        *matches = found == 1 ? name_at(first) : match_list;
    if (found > 1)
        return IPR__AMBIGUOUS;
    return number_at(first, evtnum);
}

/* ---- What the counters can do ---- */

/* Whether the events of `set` can all be counted at once: each on a counter of its own,
 * fixed-only events on their fixed counter, the rest on the GP counters. */
static int fits(const IPR_EVENTSET *set)
{
    uint32_t gp_needed = 0, fixed_used = 0, tsc = 0;
    for (uint32_t i = 0; i < set->count; i++) {
        IPR_EVENT e = set->events[i];
        int fixed = ipr_event_fixed(e);
        if (!ipr_event_known(e))
            return 0;
        if (e == IPR_EVENT_TSC)
            tsc++;
        else if (fixed >= 0 && !(fixed_used & (1u << fixed)))
            fixed_used |= 1u << fixed;
        else if (ipr_event_gp(e))
            gp_needed++;
        else
            return 0;
    }
    return tsc <= 1 && gp_needed <= (ipr_layout.pmu ? ipr_layout.caps.num_gp : 0);
}

IPR_STATUS IprAvailableEvents(const IPR_EVENTSET *reqevents, IPR_EVENTSET *additional_events)
{
    if (!reqevents || !additional_events || reqevents->count > IPR_MAX_EVENTS_IN_SET)
        return IPR__BADARG;
    if (!fits(reqevents))
        return IPR__NOCOUNTER;
    IPR_EVENTSET trial = *reqevents;
    IprClearEventSet(additional_events);
    for (uint32_t i = 0; i < NUM_EVENTS; i++) {
        IPR_EVENT e = events[i].number;
        if (IprVerifyEventInSet(reqevents, e) || trial.count >= IPR_MAX_EVENTS_IN_SET)
            continue;
        trial = *reqevents;
        IprInsertEvent(&trial, e);
        if (fits(&trial))
            IprInsertEvent(additional_events, e);
    }
    return additional_events->count ? IPR__FURTHER_EVENTS : IPR__NO_FURTHER_EVENTS;
}

/* Sample periods a counter allows: powers of two from 2^10 (acart's interrupt-storm limit,
 * SAMPLER_MIN_SAMPLE_AFTER) up to what its preload can hold. The TSC's come from the
 * platform timer: up to 2^40 TSC ticks. */
IPR_STATUS IprAvailableFreqs(const IPR_EVENT evt, IPR_FREQ *freq)
{
    if (!freq)
        return IPR__BADARG;
    IPR_STATUS st = ipr_event_check(evt);
    if (!IPR_SUCCESS(st))
        return st;
    uint64_t max = 1ull << 40;
    if (evt != IPR_EVENT_TSC)
        max = ipr_event_fixed(evt) >= 0 ? ipr_layout.caps.max_period_fixed
                                        : ipr_layout.caps.max_period_gp;
    *freq = 0;
    for (unsigned k = 10; k < 64 && (1ull << k) <= max; k++)
        *freq |= 1ull << k;
    return IPR__SUCCESS;
}

IPR_STATUS IprAvailableModes(IPR_MMASK *modes)
{
    if (!modes)
        return IPR__BADARG;
    *modes = (1u << IPR_MODE_KERNEL) | (1u << IPR_MODE_USER);
    return IPR__SUCCESS;
}

IPR_STATUS IprAvailableFuncs(IPR_FMASK *funcs)
{
    if (!funcs)
        return IPR__BADARG;
    ipr_layout_ensure();
    *funcs = IPR_FUNC_COUNT | IPR_FUNC_SAMPLE | IPR_FUNC_HISTOGRAM | IPR_FUNC_SAMPLEFILE |
             IPR_FUNC_TIMER | (ipr_layout.pmu ? IPR_FUNC_PMU : 0);
    return IPR__SUCCESS;
}

IPR_STATUS IprCounterEvents(IPR_CTRNUMBER ctr, IPR_EVENTSET *eset)
{
    if (!eset)
        return IPR__BADARG;
    ipr_layout_ensure();
    if (ctr >= ipr_layout.num_counters)
        return IPR__BADCTRMASK;
    IprClearEventSet(eset);
    for (uint32_t i = 0; i < NUM_EVENTS; i++)
        if (ipr_event_known(events[i].number) && (ipr_counters_for(events[i].number) & (1u << ctr)))
            IprInsertEvent(eset, events[i].number);
    return IPR__SUCCESS;
}

IPR_STATUS IprAvailableCounters(IPR_EVENT evt, IPR_CTRMASK *ctrs)
{
    if (!ctrs)
        return IPR__BADARG;
    IPR_STATUS st = ipr_event_check(evt);
    if (!IPR_SUCCESS(st))
        return st;
    *ctrs = ipr_counters_for(evt);
    return IPR__SUCCESS;
}

/* ---- Event sets: a sorted array, so every operation is a merge. ---- */

IPR_SIZE IprEventSetSize(void)
{
    return sizeof(IPR_EVENTSET);
}

IPR_EVENT IprEventToNumber(const IPR_EVENTSET *eset)
{
    return eset && eset->count ? eset->events[0] : 0;
}

IPR_COUNT IprNumberEventsInSet(const IPR_EVENTSET *eset)
{
    return eset ? eset->count : 0;
}

IPR_BOOLEAN IprVerifyEventInSet(const IPR_EVENTSET *eset, const IPR_EVENT evt)
{
    if (!eset)
        return 0;
    for (uint32_t i = 0; i < eset->count && i < IPR_MAX_EVENTS_IN_SET; i++)
        if (eset->events[i] == evt)
            return 1;
    return 0;
}

IPR_STATUS IprClearEventSet(IPR_EVENTSET *eset)
{
    if (!eset)
        return IPR__BADARG;
    eset->count = 0;
    return IPR__SUCCESS;
}

IPR_STATUS IprInsertEvent(IPR_EVENTSET *eset, const IPR_EVENT evt)
{
    if (!eset || eset->count > IPR_MAX_EVENTS_IN_SET)
        return IPR__BADARG;
    if (IprVerifyEventInSet(eset, evt))
        return IPR__SUCCESS;
    if (eset->count == IPR_MAX_EVENTS_IN_SET)
        return IPR__BUFTOOSMALL;
    uint32_t i = eset->count;
    for (; i > 0 && eset->events[i - 1] > evt; i--)
        eset->events[i] = eset->events[i - 1];
    eset->events[i] = evt;
    eset->count++;
    return IPR__SUCCESS;
}

IPR_STATUS IprDeleteEvent(IPR_EVENTSET *eset, const IPR_EVENT evt)
{
    if (!eset || eset->count > IPR_MAX_EVENTS_IN_SET)
        return IPR__BADARG;
    uint32_t out = 0;
    for (uint32_t i = 0; i < eset->count; i++)
        if (eset->events[i] != evt)
            eset->events[out++] = eset->events[i];
    eset->count = out;
    return IPR__SUCCESS;
}

/* Keeps the events of dst that are (keep = 1) or are not (keep = 0) in src. */
static IPR_STATUS filter(IPR_EVENTSET *dst, const IPR_EVENTSET *src, int keep)
{
    if (!dst || !src || dst->count > IPR_MAX_EVENTS_IN_SET || src->count > IPR_MAX_EVENTS_IN_SET)
        return IPR__BADARG;
    uint32_t out = 0;
    for (uint32_t i = 0; i < dst->count; i++)
        if (IprVerifyEventInSet(src, dst->events[i]) == keep)
            dst->events[out++] = dst->events[i];
    dst->count = out;
    return IPR__SUCCESS;
}

IPR_STATUS IprMaskEventSet(IPR_EVENTSET *dst, const IPR_EVENTSET *src)
{
    return filter(dst, src, 1);
}

IPR_STATUS IprRemoveEventSet(IPR_EVENTSET *dst, const IPR_EVENTSET *src)
{
    return filter(dst, src, 0);
}

IPR_STATUS IprExpandEventSet(const IPR_EVENTSET *eset, IPR_EVENT *retdata, IPR_SIZE retsize)
{
    if (!eset || !retdata || eset->count > IPR_MAX_EVENTS_IN_SET)
        return IPR__BADARG;
    if (retsize < eset->count)
        return IPR__BUFTOOSMALL;
    for (uint32_t i = 0; i < eset->count; i++)
        retdata[i] = eset->events[i];
    return IPR__SUCCESS;
}

IPR_STATUS IprMergeEventSet(IPR_EVENTSET *dst, const IPR_EVENTSET *src)
{
    if (!dst || !src || src->count > IPR_MAX_EVENTS_IN_SET)
        return IPR__BADARG;
    for (uint32_t i = 0; i < src->count; i++) {
        IPR_STATUS st = IprInsertEvent(dst, src->events[i]);
        if (!IPR_SUCCESS(st))
            return st;
    }
    return IPR__SUCCESS;
}
