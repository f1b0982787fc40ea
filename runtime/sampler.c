/* Sampling interrupt and per-CPU start/stop. See sampler.h. */
#include "sampler.h"
#include "acart.h"
#include "acart_opts.h"
#include "acart_wire.h"

#include "io.h"
#include "lapic.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "tsc.h"

#include <string.h>

struct sampler_cpu {
    struct ring ring;
    volatile uint32_t active; /* 0 while paused or stopped: interrupts record nothing */
};

static struct sampler_cpu cpus[ACA_MAX_CPUS];
static struct sampler_config config;
static uint32_t num_cpus;
static volatile int running;
static uint32_t timer_period;

uint32_t sampler_timer_period(uint64_t sample_after, uint64_t tsc_hz, uint64_t lapic_hz)
{
    /* sample_after reference cycles at the TSC rate, expressed in LAPIC timer ticks. */
    if (tsc_hz == 0)
        return 0;
    uint64_t ticks = sample_after * lapic_hz / tsc_hz;
    if (ticks == 0)
        ticks = 1;
    return ticks > 0xffffffffu ? 0xffffffffu : (uint32_t)ticks;
}

/* The one place a sample record is written: on this CPU, into this CPU's ring. */
static void record_sample(const struct trap_frame *frame, const struct sampler_event *ev)
{
    uint32_t cpu = this_cpu_index();
    struct sampler_cpu *c = &cpus[cpu];
    if (!c->active)
        return;
    struct sep_sample_pc *s = ring_reserve(&c->ring);
    if (!s)
        return;
    uint32_t pid = 0, tid = 0;
    if (aca_port_current_task(cpu, &pid, &tid) != 0)
        pid = tid = 0;
    s->descriptor_id = ev->descriptor_id;
    s->osid = 0;
    s->iip = frame->eip;
    s->ipsr = frame->eflags; /* CPL 0: bits 63:32 stay 0 */
    s->cs = (uint16_t)frame->cs;
    s->cpu_and_os = (uint16_t)((cpu & SEP_SAMPLE_CPU_NUM_MASK) |
                               (SEP_MODE_32BIT << SEP_SAMPLE_CODE_MODE_SHIFT));
    s->tid = tid;
    s->pid_rec_index = pid;
    s->bit_fields2 = ((ev->event_index << SEP_SAMPLE_EVENT_INDEX_SHIFT) &
                      SEP_SAMPLE_EVENT_INDEX_MASK) |
                     SEP_SAMPLE_TID_IS_RAW | SEP_SAMPLE_IA64PC | SEP_SAMPLE_PID_RAW;
    s->tsc = rdtsc();
    if (config.record_size > sizeof(*s))
        __builtin_memset((uint8_t *)s + sizeof(*s), 0, config.record_size - sizeof(*s));
    ring_commit(&c->ring);
}

static void on_timer(struct trap_frame *frame)
{
    record_sample(frame, &config.events[0]);
    lapic_eoi();
}

static void start_on_this_cpu(void *arg)
{
    (void)arg;
    uint32_t cpu = this_cpu_index();
    if (cpu >= num_cpus)
        return;
    cpus[cpu].active = 1;
    if (config.source == SAMPLER_SOURCE_TIMER)
        lapic_timer_start_periodic(TRAP_VECTOR_TIMER, timer_period);
}

static void stop_on_this_cpu(void *arg)
{
    (void)arg;
    uint32_t cpu = this_cpu_index();
    if (cpu >= num_cpus)
        return;
    if (config.source == SAMPLER_SOURCE_TIMER)
        lapic_timer_stop();
    cpus[cpu].active = 0;
}

static void set_active_on_this_cpu(void *arg)
{
    uint32_t cpu = this_cpu_index();
    if (cpu < num_cpus)
        cpus[cpu].active = (uint32_t)(uintptr_t)arg;
}

int sampler_setup(uint32_t ncpus, uint8_t *ring_memory, uint32_t bytes_per_cpu,
                  const struct sampler_config *cfg)
{
    if (running)
        return ACA_ERR_BUSY;
    if (ncpus == 0 || ncpus > ACA_MAX_CPUS || cfg->num_events == 0 ||
        cfg->num_events > SAMPLER_MAX_EVENTS || cfg->record_size < sizeof(struct sep_sample_pc))
        return ACA_ERR_INVALID;
    if (cfg->source != SAMPLER_SOURCE_TIMER)
        return ACA_ERR_UNSUPPORTED;
    for (uint32_t i = 0; i < cfg->num_events; i++)
        if (cfg->events[i].sample_after == 0)
            return ACA_ERR_INVALID;
    for (uint32_t i = 0; i < ncpus; i++) {
        int err = ring_init(&cpus[i].ring, ring_memory + (uint64_t)i * bytes_per_cpu,
                            bytes_per_cpu, cfg->record_size);
        if (err)
            return err;
        cpus[i].active = 0;
    }
    config = *cfg;
    num_cpus = ncpus;
    timer_period = sampler_timer_period(cfg->events[0].sample_after, tsc_hz(), lapic_timer_hz());
    trap_set_handler(TRAP_VECTOR_TIMER, on_timer);
    return ACA_OK;
}

int sampler_start(void)
{
    if (num_cpus == 0)
        return ACA_ERR_STATE;
    if (running)
        return ACA_ERR_BUSY;
    running = 1;
    smp_call_all(start_on_this_cpu, 0);
    return ACA_OK;
}

void sampler_pause(void)
{
    if (running)
        smp_call_all(set_active_on_this_cpu, (void *)0);
}

void sampler_resume(void)
{
    if (running)
        smp_call_all(set_active_on_this_cpu, (void *)1);
}

void sampler_stop(void)
{
    if (!running)
        return;
    smp_call_all(stop_on_this_cpu, 0);
    running = 0;
}

void sampler_reset(void)
{
    sampler_stop();
    for (uint32_t i = 0; i < num_cpus; i++)
        memset(&cpus[i], 0, sizeof(cpus[i]));
    num_cpus = 0;
}

int sampler_is_running(void)
{
    return running;
}

uint32_t sampler_num_cpus(void)
{
    return num_cpus;
}

struct ring *sampler_ring(uint32_t cpu)
{
    return cpu < num_cpus ? &cpus[cpu].ring : 0;
}

void sampler_counts(uint32_t cpu, struct sampler_cpu_counts *out)
{
    memset(out, 0, sizeof(*out));
    if (cpu >= num_cpus)
        return;
    out->sampled = cpus[cpu].ring.sampled;
    out->dropped = cpus[cpu].ring.dropped;
    out->pending = ring_used(&cpus[cpu].ring);
}
