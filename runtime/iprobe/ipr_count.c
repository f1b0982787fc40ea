/* IPROBE counting: event selection and counter assignment, programming through the PMU
 * layer (arch/x86/pmu/pmu.c), start/stop/pause/resume, 64-bit counts, and the two interrupts
 * (the PMI for hardware counters, the platform's sampling timer for the TSC counter).
 *
 * A hardware counter's 64-bit count is base + ((hardware - load) mod 2^width): load is
 * what the counter was loaded with, base the count at that moment. Every counter
 * interrupts when it wraps (a counting-only one after its longest period), and the PMI
 * adds what the counter made since its load to base before pmi.c reloads it, so no
 * overflow is lost; a read from a task retries when a PMI ran in the middle (seq). */
#include "ipr_count.h"
#include "ipr_state.h"
#include "ipr_events.h"
#include "ipr_owner.h"
#include "ipr_sample.h"

#include "io.h"
#include "msr.h"
#include "pmi.h"
#include "pmi_lvt.h"

/* ipr.h makes the seed's three names macros that pick by the array's type; here they
 * name the functions themselves. */
#undef IprRead
#undef IprReadAll
#undef IprWrite

#define IPR_MAX_SELECTIONS 8
#define MUX_TAG            0x49505200ull /* "IPR" */
#define MIN_PERIOD         1024ull       /* 2^10: acart's interrupt-storm floor */
#define MAX_TSC_PERIOD     (1ull << 40)

struct selection {
    int used;
    IPR_EVENT event[IPR_MAX_COUNTERS]; /* per counter; IPR_EVENT_NONE: unused */
    IPR_FREQ freq[IPR_MAX_COUNTERS];
    uint32_t evtsel[IPR_MAX_COUNTERS]; /* general counters: the event select bits */
    uint32_t num_extra;                /* the MSRs the events need besides their selects */
    struct pmu_extra_msr extra[PMU_MAX_EXTRA];
};

static struct selection selections[IPR_MAX_SELECTIONS];
static int pending = -1; /* the selection IprSetEvents uses without a MUXvalue */
static int program_error[ACA_MAX_CPUS];

static uint64_t width_mask(unsigned id)
{
    unsigned bits = id >= 32 ? ipr_layout.caps.fixed_width : ipr_layout.caps.gp_width;
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static uint64_t max_period(unsigned id)
{
    return id >= 32 ? ipr_layout.caps.max_period_fixed : ipr_layout.caps.max_period_gp;
}

void ipr_count_reset(void)
{
    for (uint32_t i = 0; i < ACA_MAX_CPUS; i++) {
        struct ipr_cpu *c = &ipr_cpus[i];
        pmu_zero(&c->pmu, sizeof(c->pmu));
        for (uint32_t n = 0; n < IPR_MAX_COUNTERS; n++) {
            c->ctr[n].event = n == 0 ? IPR_EVENT_TSC : IPR_EVENT_NONE;
            c->ctr[n].freq = c->ctr[n].base = c->ctr[n].load = 0;
            c->ctr[n].skip = c->ctr[n].skip_left = 0;
        }
        c->selected = 1; /* the TSC counts without any selection */
        c->active = 1;
        c->running = 0;
        c->modes = (1u << IPR_MODE_KERNEL) | (1u << IPR_MODE_USER);
        c->timer_armed = 0;
    }
    for (uint32_t i = 0; i < IPR_MAX_SELECTIONS; i++)
        selections[i].used = 0;
    pending = -1;
}

uint64_t ipr_count_of(struct ipr_cpu *c, unsigned ctr)
{
    const struct ipr_counter *k = &c->ctr[ctr];
    if (ctr == 0)
        return k->base + ((c->running & 1) ? rdtsc() - c->tsc_since : 0);
    if (!(c->selected & (1u << ctr)))
        return 0;
    unsigned id = ipr_layout.hw_id[ctr];
    uint32_t seq;
    uint64_t value;
    do {
        seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
        uint64_t hw = pmu_read_counter(&c->pmu, id);
        value = k->base + ((hw - k->load) & width_mask(id));
    } while (seq != __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE));
    return value;
}

/* ---- The interrupts ---- */

static void interrupt(struct ipr_cpu *c, uint32_t cpu, unsigned ctr, const struct aca_frame *f)
{
    struct ipr_counter *k = &c->ctr[ctr];
    if (!(c->active & (1u << ctr)))
        return;
    if (k->skip_left) {
        k->skip_left--;
        return;
    }
    k->skip_left = k->skip;
    ipr_take_sample(c, cpu, ctr, f);
}

static void on_overflow(void *ctx, const struct pmu_overflow *ov)
{
    uint32_t cpu = aca_plat_cpu_index();
    struct ipr_cpu *c = &ipr_cpus[cpu];
    unsigned ctr = ov->tag;
    if (ctr == 0 || ctr >= ipr_layout.num_counters)
        return;
    struct ipr_counter *k = &c->ctr[ctr];
    uint64_t hw = pmu_read_counter(&c->pmu, ov->counter);
    k->base += (hw - k->load) & width_mask(ov->counter); /* pmi.c reloads `load` next */
    if (k->freq && (c->running & (1u << ctr)))
        interrupt(c, cpu, ctr, ctx);
}

/* The LVT unmask of models that acknowledge mid-handler (pmi.h). */
static void ipr_mid_ack(void *ctx)
{
    (void)ctx;
    pmi_lvt_unmask(aca_plat_cpu_index());
}

int ipr_pmi(const struct aca_frame *frame)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= ipr_layout.num_cpus)
        return 0;
    struct ipr_cpu *c = &ipr_cpus[cpu];
    if (!ipr_layout.caps.pmi_ack_late && !ipr_layout.caps.pmi_ack_mid)
        pmi_lvt_unmask(cpu);
    __atomic_add_fetch(&c->seq, 1, __ATOMIC_ACQ_REL);
    unsigned handled = pmu_handle_overflow_ack(&c->pmu, on_overflow, ipr_mid_ack, (void *)frame);
    __atomic_add_fetch(&c->seq, 1, __ATOMIC_ACQ_REL);
    if (ipr_layout.caps.pmi_ack_late)
        pmi_lvt_unmask(cpu);
    return handled != 0;
}

void ipr_tick(const struct aca_frame *frame)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= ipr_layout.num_cpus)
        return;
    struct ipr_cpu *c = &ipr_cpus[cpu];
    if ((c->running & 1) && c->ctr[0].freq)
        interrupt(c, cpu, 0, frame);
}

/* ---- Selection ---- */

static IPR_STATUS resolve_freq(IPR_FREQ asked, uint64_t max, IPR_FREQ *out)
{
    uint64_t top = 0;
    for (unsigned k = 10; k < 64 && (1ull << k) <= max; k++)
        top = 1ull << k;
    if (asked == 0) {
        *out = 0;
    } else if (asked == IPR_FREQUENCY_LOWEST) {
        *out = top;
    } else if (asked == IPR_FREQUENCY_HIGHEST) {
        *out = MIN_PERIOD;
    } else if ((asked & (asked - 1)) || asked < MIN_PERIOD || asked > top) {
        return IPR__BADFREQ;
    } else {
        *out = asked;
    }
    return top ? IPR__SUCCESS : IPR__BADFREQ;
}

/* Gives general counter n's event the extra MSR it needs: an offcore event
 * MSR_OFFCORE_RSP_0, or _1 with its other select when the first is taken; a load-latency
 * or frontend event its MSR, shared only with events that want the same value. */
static IPR_STATUS place_extra(struct selection *s, uint32_t n, struct pmu_extra_msr x,
                              uint32_t alt_evtsel)
{
    int offcore = x.msr == MSR_OFFCORE_RSP_0;
    for (uint32_t i = 0; i < s->num_extra; i++) {
        if (s->extra[i].msr != x.msr)
            continue;
        if (!offcore)
            return s->extra[i].value == x.value ? IPR__SUCCESS : IPR__NOCOUNTER;
        if (!alt_evtsel)
            return IPR__NOCOUNTER;
        for (uint32_t j = 0; j < s->num_extra; j++)
            if (s->extra[j].msr == MSR_OFFCORE_RSP_1)
                return IPR__NOCOUNTER;
        x.msr = MSR_OFFCORE_RSP_1;
        s->evtsel[n] = alt_evtsel;
        break;
    }
    if (s->num_extra == PMU_MAX_EXTRA)
        return IPR__NOCOUNTER;
    s->extra[s->num_extra++] = x;
    return IPR__SUCCESS;
}

/* Counter assignment: the TSC on counter 0, fixed-counter events on their fixed counter
 * while it is free, everything else on the next free GP counter. */
static IPR_STATUS assign(const IPR_EVENT *events, const IPR_FREQ *freqs, IPR_SIZE n,
                         struct selection *s)
{
    for (uint32_t i = 0; i < IPR_MAX_COUNTERS; i++) {
        s->event[i] = IPR_EVENT_NONE;
        s->freq[i] = 0;
        s->evtsel[i] = 0;
    }
    s->num_extra = 0;
    for (uint32_t i = 0; i < n; i++) {
        IPR_STATUS st = ipr_event_check(events[i]);
        if (!IPR_SUCCESS(st))
            return st;
        IPR_CTRMASK can = ipr_counters_for(events[i]);
        int chosen = -1;
        /* Fixed counters first (and the TSC's counter 0), then general-purpose ones. */
        for (int pass = 0; pass < 2 && chosen < 0; pass++) {
            for (uint32_t c = 0; c < ipr_layout.num_counters && chosen < 0; c++) {
                unsigned id = ipr_layout.hw_id[c];
                int gp = id != IPR_NO_HW && id < 32;
                if ((can & (1u << c)) && s->event[c] == IPR_EVENT_NONE && gp == pass)
                    chosen = (int)c;
            }
        }
        if (chosen < 0)
            return IPR__NOCOUNTER;
        unsigned id = ipr_layout.hw_id[chosen];
        st = resolve_freq(freqs[i], id == IPR_NO_HW ? MAX_TSC_PERIOD : max_period(id),
                          &s->freq[chosen]);
        if (!IPR_SUCCESS(st))
            return st;
        s->event[chosen] = events[i];
        if (id != IPR_NO_HW && id < 32) {
            struct pmu_extra_msr x;
            uint32_t alt;
            ipr_event_encoding(events[i], &s->evtsel[chosen], &x, &alt);
            if (x.msr && !IPR_SUCCESS(st = place_extra(s, (uint32_t)chosen, x, alt)))
                return st;
        }
    }
    return IPR__SUCCESS;
}

IPR_STATUS IprSelectEventsFromArray(IPR_CPUMASK cpus, const IPR_EVENT *events,
                                    const IPR_FREQ *freqs, IPR_SIZE asize, uint64 *MUXvalue)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    if (!ipr_cpus_of(cpus))
        return IPR__BADCPUMASK;
    if (!events || !freqs || asize == 0)
        return IPR__BADARG;
    if (asize > ipr_layout.num_counters)
        return IPR__NOCOUNTER;
    int slot = -1;
    for (int i = 0; i < IPR_MAX_SELECTIONS && slot < 0; i++)
        if (!selections[i].used)
            slot = i;
    if (slot < 0)
        slot = pending >= 0 ? pending : 0; /* the oldest encoded values stop working */
    struct selection s;
    st = assign(events, freqs, asize, &s);
    if (!IPR_SUCCESS(st))
        return st;
    s.used = 1;
    selections[slot] = s;
    pending = slot;
    if (MUXvalue)
        *MUXvalue = MUX_TAG << 32 | (uint64_t)slot;
    return IPR__SUCCESS;
}

IPR_STATUS IprSelectEvents(IPR_CPUMASK cpus, const IPR_EVENTSET *events, IPR_FREQ freq,
                           uint64 *MUXvalue)
{
    IPR_FREQ freqs[IPR_MAX_EVENTS_IN_SET];
    if (!events || events->count > IPR_MAX_EVENTS_IN_SET)
        return IPR__BADARG;
    for (uint32_t i = 0; i < events->count; i++)
        freqs[i] = freq;
    return IprSelectEventsFromArray(cpus, events->events, freqs, events->count, MUXvalue);
}

/* ---- Programming, on each CPU ---- */

static void apply_running(struct ipr_cpu *c)
{
    uint64_t hw = 0;
    if (!ipr_layout.pmu)
        return;
    for (uint32_t n = 1; n < ipr_layout.num_counters; n++)
        if (c->running & (1u << n))
            hw |= 1ull << ipr_layout.hw_id[n];
    c->pmu.global_ctrl = hw;
    if (hw)
        pmu_start_cpu(&c->pmu);
    else
        pmu_pause_cpu(&c->pmu);
}

static void program_cpu(uint32_t cpu, void *arg)
{
    const struct selection *s = arg;
    struct ipr_cpu *c = &ipr_cpus[cpu];
    struct pmu_plan plan;
    uint64_t evtsel_modes = 0, fixed_modes = 0;

    c->running = 0;
    if (c->timer_armed)
        aca_plat_timer_disarm();
    c->timer_armed = 0;
    if (c->modes & (1u << IPR_MODE_KERNEL)) {
        evtsel_modes |= EVTSEL_OS;
        fixed_modes |= FIXED_CTRL_OS;
    }
    if (c->modes & (1u << IPR_MODE_USER)) {
        evtsel_modes |= EVTSEL_USR;
        fixed_modes |= FIXED_CTRL_USR;
    }
    pmu_zero(&plan, sizeof(plan)); /* on every CPU's call IPI: no libc */
    c->selected = 0;
    for (uint32_t n = 0; n < ipr_layout.num_counters; n++) {
        struct ipr_counter *k = &c->ctr[n];
        unsigned id = ipr_layout.hw_id[n];
        k->event = s->event[n];
        k->freq = s->freq[n];
        k->base = k->load = 0;
        k->skip_left = k->skip;
        if (n == 0 && k->event == IPR_EVENT_NONE)
            k->event = IPR_EVENT_TSC; /* counter 0 always counts the TSC */
        if (k->event == IPR_EVENT_NONE)
            continue;
        c->selected |= 1u << n;
        if (id == IPR_NO_HW)
            continue;
        struct pmu_counter_plan *p = &plan.counters[plan.num_counters++];
        uint64_t period = k->freq ? k->freq : max_period(id);
        p->kind = id >= 32 ? PMU_COUNTER_FIXED : PMU_COUNTER_GP;
        p->index = (uint8_t)(id >= 32 ? id - 32 : id);
        p->tag = n;
        p->control = id >= 32 ? fixed_modes : s->evtsel[n] | evtsel_modes;
        p->sample_after = period;
        k->load = (0 - period) & width_mask(id);
    }
    plan.num_extra = s->num_extra;
    for (uint32_t i = 0; i < s->num_extra && i < PMU_MAX_EXTRA; i++) {
        plan.extra[i].msr = s->extra[i].msr;
        plan.extra[i].value = s->extra[i].value;
    }
    c->active = c->selected;
    program_error[cpu] = 0;
    if (ipr_layout.pmu) {
        pmu_cpu_init(&c->pmu, &ipr_layout.caps);
        program_error[cpu] = pmu_program_cpu(&c->pmu, &plan);
        if (program_error[cpu])
            c->selected &= 1;
        pmi_lvt_route(cpu, 1, 0);
        apply_running(c);
    }
}

static const struct selection *selection_of(const uint64 *MUXvalue, IPR_STATUS *st)
{
    if (!MUXvalue) {
        *st = pending >= 0 ? IPR__SUCCESS : IPR__NOSELECTION;
        return pending >= 0 ? &selections[pending] : 0;
    }
    uint64_t slot = *MUXvalue & 0xffffffffu;
    if ((*MUXvalue >> 32) != MUX_TAG || slot >= IPR_MAX_SELECTIONS || !selections[slot].used) {
        *st = IPR__BADMUX;
        return 0;
    }
    *st = IPR__SUCCESS;
    return &selections[slot];
}

static IPR_STATUS owner_and_cpus(IPR_CPUMASK cpus, IPR_CPUMASK *mask)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    *mask = ipr_cpus_of(cpus);
    return *mask ? IPR__SUCCESS : IPR__BADCPUMASK;
}

static int any_running(IPR_CPUMASK mask)
{
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++)
        if ((mask & (1ull << i)) && ipr_cpus[i].running)
            return 1;
    return 0;
}

IPR_STATUS IprSetEvents(IPR_CPUMASK cpus, const uint64 *MUXvalue)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = owner_and_cpus(cpus, &mask);
    if (!IPR_SUCCESS(st))
        return st;
    const struct selection *s = selection_of(MUXvalue, &st);
    if (!s)
        return st;
    if (any_running(mask))
        return IPR__RUNNING;
    struct selection copy = *s;
    ipr_on_cpus(mask, program_cpu, &copy);
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++)
        if ((mask & (1ull << i)) && program_error[i])
            return program_error[i] == PMU_ERR_PERIOD ? IPR__BADFREQ : IPR__NOCOUNTER;
    return IPR__SUCCESS;
}

IPR_STATUS IprSetModes(IPR_CPUMASK cpus, IPR_MMASK modes)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = owner_and_cpus(cpus, &mask);
    if (!IPR_SUCCESS(st))
        return st;
    if (!modes || (modes >> IPR_MODE_COUNT))
        return IPR__BADARG;
    /* Counters filter on CPL only: 0 (OS) and 1-3 (USR). Interrupt and idle code run at
     * CPL 0 too, and VMS's exec and supervisor modes do not exist. */
    if (modes & ~((1u << IPR_MODE_KERNEL) | (1u << IPR_MODE_USER)))
        return IPR__MODENOTSUPP;
    if (any_running(mask))
        return IPR__RUNNING;
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++)
        if (mask & (1ull << i))
            ipr_cpus[i].modes = modes; /* used by the next IprSetEvents */
    return IPR__SUCCESS;
}

IPR_STATUS IprSpecifyOperations(IPR_CPUMASK cpus, const IPR_EVENT *selected_event,
                                const IPR_FREQ *selected_frequency, IPR_COUNT ecount,
                                IPR_MMASK selected_modes, uint64 *MUXvalue, IPR_CTRMASK *ctrmask)
{
    uint64 mux;
    if (ecount > IPR_MAX_COUNTERS)
        return IPR__NOCOUNTER;
    IPR_STATUS st = IprSetModes(cpus, selected_modes);
    if (IPR_SUCCESS(st))
        st = IprSelectEventsFromArray(cpus, selected_event, selected_frequency, (IPR_SIZE)ecount,
                                      &mux);
    if (IPR_SUCCESS(st))
        st = IprSetEvents(cpus, &mux);
    if (!IPR_SUCCESS(st))
        return st;
    if (MUXvalue)
        *MUXvalue = mux;
    if (ctrmask)
        *ctrmask = ipr_cpus[BIprWhich(ipr_cpus_of(cpus))].selected;
    return IPR__SUCCESS;
}

/* A mask of one CPU (IPR_CURRENT_CPU included): its index, or -1. */
static int single_cpu(IPR_CPUMASK cpus)
{
    IPR_CPUMASK m = ipr_cpus_of(cpus);
    if (!m || (m & (m - 1)) || (cpus != IPR_CURRENT_CPU && cpus != m))
        return -1;
    return BIprWhich(m);
}

IPR_STATUS IprEventCounterMap(IPR_CPUMASK cpus, IPR_EVENT *event_arr, IPR_SIZE asize)
{
    if (!ipr_allocated())
        return IPR__NOTOWNER;
    int cpu = single_cpu(cpus);
    if (cpu < 0)
        return IPR__BADCPUMASK;
    if (!event_arr)
        return IPR__BADARG;
    if (asize < ipr_layout.num_counters)
        return IPR__BUFTOOSMALL;
    for (uint32_t n = 0; n < asize; n++)
        event_arr[n] = n < ipr_layout.num_counters && (ipr_cpus[cpu].selected & (1u << n))
                           ? ipr_cpus[cpu].ctr[n].event
                           : IPR_EVENT_NONE;
    return IPR__SUCCESS;
}

IPR_STATUS IprFreqCounterMap(IPR_CPUMASK cpus, IPR_FREQ *freq_arr, IPR_SIZE asize)
{
    if (!ipr_allocated())
        return IPR__NOTOWNER;
    int cpu = single_cpu(cpus);
    if (cpu < 0)
        return IPR__BADCPUMASK;
    if (!freq_arr)
        return IPR__BADARG;
    if (asize < ipr_layout.num_counters)
        return IPR__BUFTOOSMALL;
    for (uint32_t n = 0; n < asize; n++)
        freq_arr[n] = n < ipr_layout.num_counters ? ipr_cpus[cpu].ctr[n].freq : 0;
    return IPR__SUCCESS;
}

IPR_STATUS IprCounterNumber(IPR_CPUMASK cpus, IPR_EVENT event, IPR_CTRNUMBER *cnum)
{
    if (!ipr_allocated())
        return IPR__NOTOWNER;
    int cpu = single_cpu(cpus);
    if (cpu < 0)
        return IPR__BADCPUMASK;
    if (!cnum)
        return IPR__BADARG;
    for (uint32_t n = 0; n < ipr_layout.num_counters; n++) {
        if ((ipr_cpus[cpu].selected & (1u << n)) && ipr_cpus[cpu].ctr[n].event == event) {
            *cnum = n;
            return IPR__SUCCESS;
        }
    }
    return IPR__NOCOUNTER;
}

IPR_COUNT IprNumCounters(void)
{
    ipr_layout_ensure();
    return ipr_layout.num_counters;
}

/* ---- Start, stop, pause, resume ---- */

struct run_op {
    IPR_CTRMASK ctrs;
    int on, from_zero;
};

static void run_cpu(uint32_t cpu, void *arg)
{
    const struct run_op *op = arg;
    struct ipr_cpu *c = &ipr_cpus[cpu];
    IPR_CTRMASK m = (op->ctrs ? op->ctrs : c->selected) & c->selected;
    if (op->on) {
        if (op->from_zero) {
            for (uint32_t n = 0; n < ipr_layout.num_counters; n++) {
                if (!(m & (1u << n)))
                    continue;
                c->ctr[n].base = 0;
                c->ctr[n].skip_left = c->ctr[n].skip;
                if (n && ipr_layout.pmu)
                    msr_write(pmu_counter_msr(&ipr_layout.caps, ipr_layout.hw_id[n]),
                              c->ctr[n].load);
            }
        }
        if ((m & 1) && (op->from_zero || !(c->running & 1)))
            c->tsc_since = rdtsc();
        if ((m & 1) && c->ctr[0].freq && !c->timer_armed)
            c->timer_armed = aca_plat_timer_arm(c->ctr[0].freq) == 0;
        c->running |= m;
    } else {
        m &= c->running;
        if (m & 1) {
            c->ctr[0].base += rdtsc() - c->tsc_since;
            if (c->timer_armed)
                aca_plat_timer_disarm();
            c->timer_armed = 0;
        }
        c->running &= ~m;
    }
    apply_running(c);
}

static IPR_STATUS run(IPR_CPUMASK cpus, IPR_CTRMASK ctrs, int on, int from_zero, int owner_only)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = ipr_allocated() ? IPR__SUCCESS : IPR__NOTOWNER;
    if (owner_only)
        st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (ctrs >> ipr_layout.num_counters)
        return IPR__BADCTRMASK;
    struct run_op op = {ctrs, on, from_zero};
    ipr_on_cpus(mask, run_cpu, &op);
    return IPR__SUCCESS;
}

IPR_STATUS IprStart(IPR_CPUMASK cpus, IPR_CTRMASK ctrs)
{
    return run(cpus, ctrs, 1, 1, 1);
}

IPR_STATUS IprStop(IPR_CPUMASK cpus, IPR_CTRMASK ctrs)
{
    return run(cpus, ctrs, 0, 0, 1);
}

IPR_STATUS IprPause(IPR_CPUMASK cpus, IPR_CTRMASK ctrs)
{
    return run(cpus, ctrs, 0, 0, 0);
}

IPR_STATUS IprResume(IPR_CPUMASK cpus, IPR_CTRMASK ctrs)
{
    return run(cpus, ctrs, 1, 0, 0);
}

IPR_STATUS IprSetActiveCounters(IPR_CPUMASK cpus, IPR_CTRMASK validmask, IPR_CTRMASK *retmask)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = owner_and_cpus(cpus, &mask);
    if (!IPR_SUCCESS(st))
        return st;
    if (validmask >> ipr_layout.num_counters)
        return IPR__BADCTRMASK;
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++)
        if (mask & (1ull << i))
            ipr_cpus[i].active = validmask;
    /* x86 starts and stops each counter on its own (IA32_PERF_GLOBAL_CTRL bits). */
    if (retmask)
        *retmask = validmask;
    return IPR__SUCCESS;
}

IPR_STATUS IprSetSampleSkip(IPR_CPUMASK cpus, const IPR_COUNT *skip_values, IPR_SIZE arrsize)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = owner_and_cpus(cpus, &mask);
    if (!IPR_SUCCESS(st))
        return st;
    if (!skip_values)
        return IPR__BADARG;
    if (arrsize > ipr_layout.num_counters)
        return IPR__BADCTRMASK;
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++) {
        if (!(mask & (1ull << i)))
            continue;
        for (uint32_t n = 0; n < arrsize; n++)
            ipr_cpus[i].ctr[n].skip = ipr_cpus[i].ctr[n].skip_left = skip_values[n];
    }
    return IPR__SUCCESS;
}

/* ---- Reading and writing counts ---- */

static uint64_t snapshot[ACA_MAX_CPUS][IPR_MAX_COUNTERS];

static void snapshot_cpu(uint32_t cpu, void *arg)
{
    (void)arg;
    for (uint32_t n = 0; n < ipr_layout.num_counters; n++)
        snapshot[cpu][n] = ipr_count_of(&ipr_cpus[cpu], n);
}

IPR_STATUS aca_ipr_read(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask, IPR_COUNT *retdata,
                        IPR_SIZE rsize, int action_flags)
{
    if (!ipr_allocated())
        return IPR__NOTOWNER;
    IPR_CPUMASK mask = ipr_cpus_of(cpus);
    if (!mask)
        return IPR__BADCPUMASK;
    if (!retdata || action_flags < IPR_ACTION_COPY || action_flags > IPR_ACTION_ADD)
        return IPR__BADARG;
    if (cmask >> ipr_layout.num_counters)
        return IPR__BADCTRMASK;
    if (rsize < 32 && (cmask >> rsize))
        return IPR__BUFTOOSMALL;
    if (cpuctxptr && action_flags != IPR_ACTION_SUM) {
        int cpu = ipr_next_cpu(mask, cpuctxptr);
        if (cpu < 0)
            return IPR__NOMORECPU;
        mask = 1ull << cpu;
    } else if (cpuctxptr) {
        *cpuctxptr = IPR_MAX_CPUS; /* one answer for all CPUs */
    }
    ipr_on_cpus(mask, snapshot_cpu, 0);
    for (uint32_t n = 0; n < ipr_layout.num_counters; n++) {
        if (!(cmask & (1u << n)))
            continue;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < ipr_layout.num_cpus; i++)
            if (mask & (1ull << i))
                sum += snapshot[i][n];
        retdata[n] = action_flags == IPR_ACTION_ADD ? retdata[n] + sum : sum;
    }
    return IPR__SUCCESS;
}

IPR_STATUS aca_ipr_read_all(IPR_CPUMASK cpus, int *cpuctxptr, IPR_COUNT *retdata, IPR_SIZE rsize,
                            int action_flags)
{
    IPR_CTRMASK all = (IPR_CTRMASK)((1u << IprNumCounters()) - 1);
    return aca_ipr_read(cpus, cpuctxptr, all, retdata, rsize, action_flags);
}

/* The seed's int arrays: a count's low 32 bits, as the seed's 32-bit counters would read
 * (GCC converts to int modulo 2^32), so differences of two reads stay right across a
 * wrap. ACTION_ADD adds modulo 2^32 too. */
IPR_STATUS IprRead(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask, int *retdata,
                   IPR_SIZE rsize, int action_flags)
{
    IPR_COUNT wide[IPR_MAX_COUNTERS] = {0};
    if (!retdata)
        return aca_ipr_read(cpus, cpuctxptr, cmask, 0, rsize, action_flags);
    if (action_flags == IPR_ACTION_ADD)
        for (IPR_SIZE i = 0; i < IPR_MAX_COUNTERS && i < rsize; i++)
            wide[i] = (uint32_t)retdata[i];
    IPR_STATUS st = aca_ipr_read(cpus, cpuctxptr, cmask, wide, rsize, action_flags);
    if (!IPR_SUCCESS(st))
        return st;
    for (IPR_SIZE i = 0; i < IPR_MAX_COUNTERS && i < rsize; i++)
        if (cmask & (1u << i))
            retdata[i] = (int)(uint32_t)wide[i];
    return st;
}

IPR_STATUS IprReadAll(IPR_CPUMASK cpus, int *cpuctxptr, int *retdata, IPR_SIZE rsize,
                      int action_flags)
{
    IPR_CTRMASK all = (IPR_CTRMASK)((1u << IprNumCounters()) - 1);
    return IprRead(cpus, cpuctxptr, all, retdata, rsize, action_flags);
}

struct write_op {
    IPR_CTRMASK cmask;
    const IPR_COUNT *values;
};

static void write_cpu(uint32_t cpu, void *arg)
{
    const struct write_op *op = arg;
    struct ipr_cpu *c = &ipr_cpus[cpu];
    for (uint32_t n = 0; n < ipr_layout.num_counters; n++) {
        if (!(op->cmask & (1u << n)))
            continue;
        if (n == 0) {
            c->tsc_since = rdtsc();
        } else if (ipr_layout.pmu && (c->selected & (1u << n))) {
            __atomic_add_fetch(&c->seq, 1, __ATOMIC_ACQ_REL);
            msr_write(pmu_counter_msr(&ipr_layout.caps, ipr_layout.hw_id[n]), c->ctr[n].load);
            __atomic_add_fetch(&c->seq, 1, __ATOMIC_ACQ_REL);
        }
        c->ctr[n].base = op->values[n];
    }
}

IPR_STATUS aca_ipr_write(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask,
                         const IPR_COUNT *srcdata, IPR_SIZE srcsize)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = owner_and_cpus(cpus, &mask);
    if (!IPR_SUCCESS(st))
        return st;
    if (!srcdata)
        return IPR__BADARG;
    if (cmask >> ipr_layout.num_counters)
        return IPR__BADCTRMASK;
    if (srcsize < 32 && (cmask >> srcsize))
        return IPR__BUFTOOSMALL;
    if (cpuctxptr) {
        int cpu = ipr_next_cpu(mask, cpuctxptr);
        if (cpu < 0)
            return IPR__NOMORECPU;
        mask = 1ull << cpu;
    }
    struct write_op op = {cmask, srcdata};
    ipr_on_cpus(mask, write_cpu, &op);
    return IPR__SUCCESS;
}

/* The seed's int values: each becomes the count it reads back as through IprRead (the
 * value modulo 2^32, not sign-extended). */
IPR_STATUS IprWrite(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask, const int *srcdata,
                    IPR_SIZE srcsize)
{
    IPR_COUNT wide[IPR_MAX_COUNTERS] = {0};
    if (!srcdata)
        return aca_ipr_write(cpus, cpuctxptr, cmask, 0, srcsize);
    for (IPR_SIZE i = 0; i < IPR_MAX_COUNTERS && i < srcsize; i++)
        wide[i] = (uint32_t)srcdata[i];
    return aca_ipr_write(cpus, cpuctxptr, cmask, wide, srcsize);
}

IPR_STATUS IprClear(IPR_CPUMASK cpus, IPR_CTRMASK ctrs)
{
    static const IPR_COUNT zeros[IPR_MAX_COUNTERS];
    if (ctrs == 0 && ipr_allocated())
        ctrs = (IPR_CTRMASK)((1u << ipr_layout.num_counters) - 1);
    return aca_ipr_write(cpus, 0, ctrs, zeros, IPR_MAX_COUNTERS);
}

IPR_STATUS IprClearContext(IPR_CPUMASK cpus)
{
    IPR_CPUMASK mask;
    IPR_STATUS st = owner_and_cpus(cpus, &mask);
    if (!IPR_SUCCESS(st))
        return st;
    struct selection none = {0};
    for (uint32_t n = 0; n < IPR_MAX_COUNTERS; n++) {
        none.event[n] = IPR_EVENT_NONE;
        none.freq[n] = 0;
    }
    for (uint32_t i = 0; i < ipr_layout.num_cpus; i++) {
        if (!(mask & (1ull << i)))
            continue;
        for (uint32_t n = 0; n < IPR_MAX_COUNTERS; n++)
            ipr_cpus[i].ctr[n].skip = 0;
    }
    ipr_on_cpus(mask, program_cpu, &none);
    return IPR__SUCCESS;
}
