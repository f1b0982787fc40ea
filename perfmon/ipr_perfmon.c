/* IPROBE's event names from perfmon's tables (aca_ipr_use_perfmon, ipr.h): the table of
 * the running CPU's model becomes a name source of ipr_events.c. In libacart_perfmon.a,
 * so that a program pays for the tables only when it calls aca_ipr_use_perfmon. */
#include "ipr_name_source.h"

#include "cpuid.h"
#include "perfmon.h"
#include "pmu.h"

/* The table of the CPU this runs on, looked up each time: not on an interrupt path, and
 * the simulated CPUs of tests/pmu change models under it. */
static const struct perfmon_model *cpu_model(void)
{
    static const char intel[] = "GenuineIntel";
    struct cpu_signature sig;
    cpu_read_signature(&sig);
    for (unsigned i = 0; i < sizeof(intel); i++)
        if (sig.vendor[i] != intel[i])
            return 0;
    return perfmon_model_for(sig.family, sig.model);
}

static uint32_t count(void)
{
    const struct perfmon_model *m = cpu_model();
    return m ? m->num_events : 0;
}

/* perfmon's fixed-only events (code 0x00) are numbered as the architectural event the
 * fixed counter counts, which a general counter counts too. */
static const IPR_EVENT fixed_numbers[] = {0x00c0, 0x003c, 0x013c, 0x01a4};

static int at(uint32_t i, const char **name, IPR_EVENT *evt, uint8_t *gp_mask)
{
    const struct perfmon_model *m = cpu_model();
    if (!m || i >= m->num_events)
        return -1;
    const struct perfmon_event *e = &m->events[i];
    *name = perfmon_name(m, e);
    /* An event that needs an extra MSR (offcore response, load latency, frontend) has more
     * to it than an IPR_EVENT holds: it is numbered by its place in the table. */
    if (e->extra) {
        *evt = IPR_EVENT_TABLE | (i + 1);
        *gp_mask = e->counters;
        return 1;
    }
    if (e->fixed != PERFMON_NO_FIXED) {
        if (e->fixed >= sizeof(fixed_numbers) / sizeof(fixed_numbers[0]))
            return 0;
        *evt = fixed_numbers[e->fixed] | ((e->flags & PERFMON_ANY) ? (IPR_EVENT)EVTSEL_ANY : 0);
        *gp_mask = 0xff;
        return 1;
    }
    *evt = perfmon_evtsel(e);
    *gp_mask = e->counters;
    return 1;
}

static void encoding(uint32_t i, uint32_t *evtsel, uint32_t *msr, uint64_t *value,
                     uint32_t *alt_evtsel)
{
    const struct perfmon_model *m = cpu_model();
    if (!m || i >= m->num_events)
        return;
    const struct perfmon_event *e = &m->events[i];
    const struct perfmon_extra *x = perfmon_extra(m, e);
    *evtsel = perfmon_evtsel(e);
    if (!x)
        return;
    *msr = x->msr;
    *value = x->value;
    if (x->alt_code || x->alt_umask)
        *alt_evtsel = (*evtsel & ~0xffffu) | x->alt_code | (uint32_t)x->alt_umask << 8;
}

static int32_t find(const char *name)
{
    const struct perfmon_model *m = cpu_model();
    const struct perfmon_event *e = perfmon_find(m, name);
    return e ? (int32_t)(e - m->events) : -1;
}

static const struct ipr_name_source perfmon_source = {count, at, find, encoding};

IPR_STATUS aca_ipr_use_perfmon(void)
{
    if (!cpu_model())
        return IPR__INVEVENTNAME;
    ipr_set_name_source(&perfmon_source);
    return IPR__SUCCESS;
}
