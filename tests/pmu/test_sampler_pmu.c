/* runtime/sampling/sampler.c's PMU path end to end, on simulated CPUs (sim_cpu.c, one instance per
 * CPU) inside a recording board (sampler_shim_*.c): the plan programmed on every CPU, each
 * PMI turned into a record in its own CPU's ring, the LVT entry unmasked, NMIs that are not
 * ours passed on, pause/resume/stop/reset, a full ring, PEBS, and a CPU without a PMU.
 *
 * Built with ACA_MAX_CPUS below SHIM_CPUS: the last simulated CPU is online but beyond what
 * the runtime can sample, as on a board with more CPUs than acart is built for.
 * Usage: test_sampler_pmu <fixtures-dir> (for the fixture ECB). Every simulator fault (a #GP
 * on hardware) fails the test it occurs in. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart.h"
#include "acart_opts.h"
#include "acart_wire.h"
#include "collect_events.h"
#include "ecb.h"
#include "io.h"
#include "lapic.h"
#include "acart_check.h"
#include "pmu.h"
#include "ring.h"
#include "sampler.h"
#include "sampler_plan.h"
#include "sampler_shim.h"

static const char *fixtures_dir;

#define MASK48               0xffffffffffffull
#define FIXTURE_SAMPLE_AFTER 2200000u
#define FIXED2               (1ull << 34) /* fixed counter 2 in GLOBAL_CTRL/STATUS */
#define EVSEL_INST_RETIRED   (0xc0 | EVTSEL_OS | EVTSEL_USR | EVTSEL_INT | EVTSEL_EN)
#define FIXED_CTRL_SAMPLE    (FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI)

/* The session covers CPUs [0, ACA_MAX_CPUS); CPU BEYOND is online but outside it. */
#define SESSION_CPUS ACA_MAX_CPUS
#define BEYOND       ACA_MAX_CPUS
_Static_assert(SHIM_CPUS == ACA_MAX_CPUS + 1, "one simulated CPU beyond the session");

#define RING_BYTES 4096
static uint8_t ring_memory[SESSION_CPUS * RING_BYTES] __attribute__((aligned(64)));

static struct sampler_config cfg;

/* ---- The board's own NMI handlers, there before the sampler. ---- */

static unsigned board_nmis;
static struct trap_frame board_nmi_frame;

// cppcheck-suppress constParameter ; the signature is trap_handler_fn's
static void board_nmi(struct trap_frame *frame)
{
    board_nmis++;
    board_nmi_frame = *frame;
}

static void watchdog_nmi(struct trap_frame *frame)
{
    (void)frame;
}

/* ---- Fixture helpers ---- */

static void power_on(const struct sim_model *model)
{
    shim_power_on(model);
    trap_set_handler(TRAP_VECTOR_NMI, board_nmi);
    board_nmis = 0;
    memset(&board_nmi_frame, 0, sizeof(board_nmi_frame));
    memset(ring_memory, 0xa5, sizeof(ring_memory));
}

static void retire(uint32_t cpu, uint64_t instructions, uint64_t cycles, uint64_t ref_cycles)
{
    struct sim_events ev = {
        .instructions = instructions, .cycles = cycles, .ref_cycles = ref_cycles};

    shim_sim(cpu)->retire(&ev);
}

static uint64_t msr(uint32_t cpu, uint32_t index)
{
    return shim_sim(cpu)->peek_msr(index);
}

static struct trap_frame frame_at(uint32_t eip)
{
    struct trap_frame f;

    memset(&f, 0, sizeof(f));
    f.ip = eip;
    f.cs = 0x08;
    f.flags = 0x246 | (eip & 0x1) << 11; /* varies with the IP, to be told apart */
    return f;
}

/* A PMI the CPU must have raised, delivered with the interrupted IP `eip`. */
static void deliver(uint32_t cpu, uint32_t eip)
{
    struct trap_frame f = frame_at(eip);

    CHECK_EQ(shim_raise_pmi(cpu, &f), SHIM_DELIVERED);
}

static void check_no_pmi(uint32_t cpu)
{
    struct trap_frame f = frame_at(0);

    CHECK_EQ(shim_raise_pmi(cpu, &f), SHIM_NO_PMI);
}

/* Copies the records in cpu's ring (oldest first) into out; returns how many there are. */
static uint32_t records(uint32_t cpu, struct sep_sample_pc *out, uint32_t max)
{
    const struct ring *r = sampler_ring(cpu);
    const void *data;
    uint32_t n;

    if (!r)
        return 0;
    n = ring_peek(r, &data);
    CHECK_EQ(n, ring_used(r)); /* nothing consumed: one contiguous run */
    for (uint32_t i = 0; i < n && i < max; i++)
        memcpy(&out[i], (const uint8_t *)data + (size_t)i * r->record_size, sizeof(out[i]));
    return n;
}

static uint32_t count_records(uint32_t cpu)
{
    struct sep_sample_pc unused[1];

    return records(cpu, unused, 0);
}

/* The one record format, SampleRecordPC, as the interrupt of `cpu` must have written it. */
static void check_record(const struct sep_sample_pc *s, uint32_t cpu, uint64_t ip,
                         const struct trap_frame *f, uint32_t event_index, uint32_t descriptor)
{
    int idle = cpu == SHIM_IDLE_CPU;

    CHECK_EQ(s->descriptor_id, descriptor);
    CHECK_EQ(s->osid, 0);
    CHECK_EQ(s->iip, ip);
    CHECK_EQ(s->ipsr, f->flags);
    CHECK_EQ(s->cs, f->cs);
    /* The code mode of this very program: the sampler is built for the same one. */
    const uint32_t mode = sizeof(void *) == 8 ? SEP_MODE_64BIT : SEP_MODE_32BIT;
    CHECK_EQ(s->cpu_and_os, cpu | mode << SEP_SAMPLE_CODE_MODE_SHIFT);
    CHECK_EQ(s->pid_rec_index, idle ? 0 : SHIM_PID_BASE + cpu);
    CHECK_EQ(s->tid, idle ? 0 : SHIM_TID_BASE + cpu);
    CHECK_EQ(s->bit_fields2, event_index << SEP_SAMPLE_EVENT_INDEX_SHIFT | SEP_SAMPLE_TID_IS_RAW |
                                 SEP_SAMPLE_IA64PC | SEP_SAMPLE_PID_RAW);
}

/* After pmu_stop_cpu: the CPU's PMU as at power-on (models here: 4 GP, 3 fixed). */
static void check_idle(uint32_t cpu)
{
    CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL), 0);
    CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
    CHECK_EQ(msr(cpu, MSR_IA32_FIXED_CTR_CTRL), 0);
    CHECK_EQ(msr(cpu, MSR_IA32_DEBUGCTL), 0);
    CHECK_EQ(msr(cpu, MSR_IA32_PEBS_ENABLE), 0);
    for (uint32_t i = 0; i < 4; i++) {
        CHECK_EQ(msr(cpu, MSR_IA32_PERFEVTSEL0 + i), 0);
        CHECK_EQ(msr(cpu, MSR_IA32_PMC0 + i), 0);
    }
    for (uint32_t j = 0; j < 3; j++)
        CHECK_EQ(msr(cpu, MSR_IA32_FIXED_CTR0 + j), 0);
}

static void check_counts(uint32_t cpu, uint32_t sampled, uint32_t dropped, uint32_t pending,
                         uint32_t unclaimed)
{
    struct sampler_cpu_counts c;

    sampler_counts(cpu, &c);
    CHECK_EQ(c.sampled, sampled);
    CHECK_EQ(c.dropped, dropped);
    CHECK_EQ(c.pending, pending);
    CHECK_EQ(c.unclaimed, unclaimed);
}

/* Every sample the CPU took is in the ring or counted dropped, with a reason. */
static void check_exact(uint32_t cpu)
{
    struct sampler_cpu_counts c;

    sampler_counts(cpu, &c);
    CHECK_EQ(c.sampled, shim_sim(cpu)->overflows());
    CHECK_EQ(c.sampled, count_records(cpu) + c.dropped);
    CHECK_EQ(c.dropped, c.ring_full + c.no_counter + c.malformed + c.collision + c.stuck);
}

/* A one-event configuration by hand, as cmd_init_pmu would build it from an ECB. */
static void config_one(int fixed, uint32_t counter, uint64_t control, uint64_t sample_after)
{
    memset(&cfg, 0, sizeof(cfg));
    cfg.source = SAMPLER_SOURCE_PMU;
    cfg.use_nmi = 1;
    cfg.num_events = 1;
    cfg.events[0].fixed = fixed;
    cfg.events[0].counter = counter;
    cfg.events[0].control = control;
    cfg.events[0].sample_after = sample_after;
    cfg.record_size = sizeof(struct sep_sample_pc);
}

/* The fixture ECB's configuration, built the way runtime/commands/cmd_collect.c's cmd_init_pmu
 * builds it: ecb_decode, ecb_plan_sampling, one sampler_event per planned counter. */
static int config_from_fixture(void)
{
    static uint8_t bytes[16384];
    static struct ecb ecb;
    struct ecb_plan plan;
    char path[1024];
    size_t len;
    FILE *f;

    snprintf(path, sizeof(path), "%s/aca/bin_ecb.config_6_0_CPU_CLK_UNHALTED.REF_TSC",
             fixtures_dir);
    f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return -1;
    len = fread(bytes, 1, sizeof(bytes), f);
    fclose(f);
    CHECK_EQ(ecb_decode(bytes, len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    memset(&cfg, 0, sizeof(cfg));
    cfg.source = SAMPLER_SOURCE_PMU;
    cfg.use_nmi = 1;
    sampler_events_from_plan(&plan, &cfg);
    cfg.record_size = sizeof(struct sep_sample_pc);
    return 0;
}

static void setup_and_start(uint32_t bytes_per_cpu)
{
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, bytes_per_cpu, &cfg), ACA_OK);
    CHECK_EQ(sampler_start(), ACA_OK);
    CHECK(sampler_is_running());
}

/* ---- The fixture ECB on every CPU ---- */

static void test_fixture_on_every_cpu(void)
{
    const uint64_t preload = (0 - (uint64_t)FIXTURE_SAMPLE_AFTER) & MASK48;
    const struct pmu_caps *caps;
    unsigned accesses[SHIM_CPUS];

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    caps = sampler_pmu_caps();
    CHECK(caps != NULL && strcmp(caps->uarch, "skylake") == 0);
    if (config_from_fixture())
        return;
    CHECK_EQ(cfg.num_events, 1);
    CHECK_EQ(cfg.events[0].fixed, 1);
    CHECK_EQ(cfg.events[0].counter, 2);
    CHECK_EQ(cfg.events[0].sample_after, FIXTURE_SAMPLE_AFTER);
    CHECK_EQ(cfg.events[0].event_index, 0);
    CHECK_EQ(cfg.events[0].descriptor_id, 0);
    CHECK_EQ(cfg.events[0].control, FIXED_CTRL_SAMPLE);
    CHECK_EQ(cfg.events[0].precise, 0);

    /* Setup claims the NMI and touches no CPU. */
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++)
        accesses[cpu] = shim_sim(cpu)->accesses();
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    CHECK(shim_acart_nmi() != NULL); /* acart shares the NMI; the board keeps its own */
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == board_nmi);
    CHECK_EQ(sampler_num_cpus(), SESSION_CPUS);
    CHECK(!sampler_is_running());
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++)
        CHECK_EQ(shim_sim(cpu)->accesses(), accesses[cpu]);

    /* Start programs every CPU of the session, through one call on all CPUs. */
    CHECK_EQ(sampler_start(), ACA_OK);
    CHECK(sampler_is_running());
    CHECK_EQ(shim_smp_calls(), 1);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        CHECK_EQ(msr(cpu, MSR_IA32_FIXED_CTR_CTRL), 0xb00);
        CHECK_EQ(msr(cpu, MSR_IA32_FIXED_CTR0 + 2), preload);
        CHECK_EQ(msr(cpu, MSR_IA32_DEBUGCTL), 0); /* no freeze of the counters (nor LBRs, unused) */
        CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL), FIXED2);
        CHECK_EQ(shim_lapic(cpu)->routes, 1);
        CHECK_EQ(shim_lapic(cpu)->lvt_pc, LAPIC_LVT_NMI);
    }
    /* The CPU beyond the session is left alone. */
    CHECK_EQ(shim_sim(BEYOND)->accesses(), accesses[BEYOND]);
    CHECK_EQ(shim_lapic(BEYOND)->routes, 0);

    for (uint32_t round = 0; round < 2; round++) {
        for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
            const uint32_t eip = 0x401000 + 0x100 * cpu + round;
            const struct trap_frame f = frame_at(eip);
            struct sep_sample_pc rec[4];

            retire(cpu, 1000, 1000, FIXTURE_SAMPLE_AFTER - 1);
            check_no_pmi(cpu);
            retire(cpu, 1, 1, 1); /* the 2,200,000th reference cycle */
            for (uint32_t other = 0; other < SHIM_CPUS; other++) {
                if (other != cpu)
                    CHECK_EQ(shim_sim(other)->pmi_count(),
                             other >= SESSION_CPUS ? 0 : round + (other < cpu));
            }
            uint64_t before = rdtsc();
            deliver(cpu, eip);
            uint64_t after = rdtsc();

            CHECK_EQ(shim_nmis_declined(), 0); /* acart's PMI ... */
            CHECK_EQ(board_nmi_frame.ip, eip); /* ... and the board's handler saw it too */
            CHECK_EQ(records(cpu, rec, 4), round + 1);
            check_record(&rec[round], cpu, eip, &f, 0, 0);
            CHECK(rec[round].tsc >= before && rec[round].tsc <= after);
            /* Re-armed for the next 2.2 M, counting again, LVT entry unmasked after the
             * handler core (Skylake acknowledges late). */
            CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_STATUS), 0);
            CHECK_EQ(msr(cpu, MSR_IA32_FIXED_CTR0 + 2), preload);
            CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL), FIXED2);
            CHECK_EQ(shim_lapic(cpu)->unmasks, round + 1);
            CHECK_EQ(shim_lapic(cpu)->lvt_pc, LAPIC_LVT_NMI);
            CHECK_EQ(shim_lapic(cpu)->global_ctrl_at_unmask, FIXED2);
            CHECK_EQ(shim_lapic(cpu)->status_at_unmask, 0);
            CHECK_EQ(shim_lapic(cpu)->eois, 0); /* NMIs take no EOI */
        }
    }
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        check_counts(cpu, 2, 0, 2, 0);
    check_counts(BEYOND, 0, 0, 0, 0);
    CHECK(sampler_ring(BEYOND) == NULL);
    CHECK_EQ(shim_task_calls_off_cpu(), 0);

    /* An NMI that is not a PMI goes to the handler that was there before. */
    retire(1, 10, 10, 10);
    struct trap_frame other = frame_at(0xc0ffee);
    CHECK_EQ(shim_raise_nmi(1, &other), SHIM_DELIVERED);
    CHECK_EQ(shim_nmis_declined(), 1);
    CHECK_EQ(board_nmi_frame.ip, 0xc0ffee);
    CHECK_EQ(count_records(1), 2);
    check_counts(1, 2, 0, 2, 1);
    CHECK_EQ(msr(1, MSR_IA32_PERF_GLOBAL_CTRL), FIXED2); /* still counting */
    /* Also on a CPU the runtime does not sample, which has no state in the sampler. */
    CHECK_EQ(shim_raise_nmi(BEYOND, &other), SHIM_DELIVERED);
    CHECK_EQ(shim_nmis_declined(), 2);
    CHECK_EQ(shim_sim(BEYOND)->accesses(), accesses[BEYOND]);

    /* Stop leaves every PMU idle and the LVT entries masked; the records stay. */
    sampler_stop();
    CHECK(!sampler_is_running());
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        check_idle(cpu);
        CHECK_EQ(shim_lapic(cpu)->masks, 1);
        CHECK(shim_lapic(cpu)->lvt_pc & LAPIC_LVT_MASKED);
        CHECK_EQ(count_records(cpu), 2);
        retire(cpu, 1ull << 40, 1ull << 40, 1ull << 40);
        check_no_pmi(cpu);
    }
    CHECK_EQ(shim_raise_nmi(0, &other), SHIM_DELIVERED);
    CHECK_EQ(shim_nmis_declined(), 3);
    CHECK(shim_lapic(0)->lvt_pc & LAPIC_LVT_MASKED); /* an NMI after the stop arms no PMI */
    CHECK_EQ(count_records(0), 2);

    sampler_reset();
    CHECK(shim_acart_nmi() == NULL);
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == board_nmi);
    CHECK_EQ(sampler_num_cpus(), 0);
    CHECK(sampler_ring(0) == NULL);
    CHECK_EQ(sampler_start(), ACA_ERR_STATE);
}

/* ---- Two counters overflowing in the same PMI ---- */

static void test_two_counters_one_pmi(void)
{
    const uint32_t record_size = 64; /* a descriptor asking for more than SampleRecordPC */
    const uint64_t fixed_preload = (0 - 1000ull) & MASK48, gp_preload = (0 - 2000ull) & MASK48;
    int saw_fixed = 0, saw_gp = 0;

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.events[0].event_index = 0x25;
    cfg.events[0].descriptor_id = 3;
    cfg.num_events = 2;
    cfg.events[1].event_index = 0x31;
    cfg.events[1].descriptor_id = 4;
    cfg.events[1].sample_after = 2000;
    cfg.events[1].counter = 0;
    cfg.events[1].control = EVSEL_INST_RETIRED;
    cfg.record_size = record_size;
    setup_and_start(RING_BYTES);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        CHECK_EQ(msr(cpu, MSR_IA32_PERFEVTSEL0), EVSEL_INST_RETIRED);
        CHECK_EQ(msr(cpu, MSR_IA32_PMC0), gp_preload);
        CHECK_EQ(msr(cpu, MSR_IA32_FIXED_CTR0 + 2), fixed_preload);
        CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL), FIXED2 | 1);
    }

    const struct trap_frame f = frame_at(0x402000);
    struct sep_sample_pc rec[4];
    retire(1, 2000, 2000, 1000); /* both overflow: one PMI */
    deliver(1, 0x402000);
    CHECK_EQ(records(1, rec, 4), 2);
    const void *data;
    ring_peek(sampler_ring(1), &data);
    for (uint32_t i = 0; i < 2; i++) {
        const int is_gp = rec[i].descriptor_id == 4;
        const uint8_t *raw = data;

        saw_gp += is_gp;
        saw_fixed += rec[i].descriptor_id == 3;
        check_record(&rec[i], 1, 0x402000, &f, is_gp ? 0x31 : 0x25, is_gp ? 4 : 3);
        /* Bytes past SampleRecordPC are zeroed, not left as the ring memory was. */
        for (uint32_t b = sizeof(struct sep_sample_pc); b < record_size; b++)
            CHECK_EQ(raw[i * record_size + b], 0);
    }
    CHECK_EQ(saw_gp, 1);
    CHECK_EQ(saw_fixed, 1);
    CHECK_EQ(msr(1, MSR_IA32_PMC0), gp_preload);
    CHECK_EQ(msr(1, MSR_IA32_FIXED_CTR0 + 2), fixed_preload);

    /* Each re-armed on its own period. */
    retire(1, 2000, 2000, 999);
    deliver(1, 0x402010);
    CHECK_EQ(records(1, rec, 4), 3);
    CHECK_EQ(rec[2].descriptor_id, 4);
    CHECK_EQ(rec[2].bit_fields2 >> SEP_SAMPLE_EVENT_INDEX_SHIFT & 0xff, 0x31);
    retire(1, 0, 0, 1);
    deliver(1, 0x402020);
    CHECK_EQ(records(1, rec, 4), 4);
    CHECK_EQ(rec[3].descriptor_id, 3);
    CHECK_EQ(rec[3].bit_fields2 >> SEP_SAMPLE_EVENT_INDEX_SHIFT & 0xff, 0x25);
    CHECK_EQ(rec[3].iip, 0x402020);
    check_counts(1, 4, 0, 4, 0);
    CHECK_EQ(count_records(0), 0);

    sampler_stop();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        check_idle(cpu);
    sampler_reset();
}

/* ---- LBRs in records (docs/sep-protocol.md 6.3) ---- */

/* The LBR registers a host lists, as VTune does: TOS (model-specific only), then FROM, TO
 * and INFO of each entry by MSR index; on the architectural model a last slot with reg_id
 * 0, which stays zero. Returns how many. */
static uint32_t lbr_list(int arch, unsigned depth, int info)
{
    uint32_t n = 0;
    if (!arch)
        cfg.lbr_regs[n++] = (struct sampler_lbr_reg){SEP_LBR_ENTRY_TOS, 0};
    for (unsigned k = 0; k < depth; k++) {
        cfg.lbr_regs[n++] = (struct sampler_lbr_reg){SEP_LBR_ENTRY_FROM, (uint8_t)k};
        cfg.lbr_regs[n++] = (struct sampler_lbr_reg){SEP_LBR_ENTRY_TO, (uint8_t)k};
        if (info)
            cfg.lbr_regs[n++] = (struct sampler_lbr_reg){SEP_LBR_ENTRY_INFO, (uint8_t)k};
    }
    if (arch)
        cfg.lbr_regs[n++] = (struct sampler_lbr_reg){SAMPLER_LBR_NONE, 0};
    return n;
}

static uint64_t lbr_word(const uint8_t *record, uint32_t i)
{
    uint64_t v;
    memcpy(&v, record + sizeof(struct sep_sample_pc) + 8 * i, sizeof(v));
    return v;
}

/* 40 branches on CPU 2, then a fixed-counter overflow (whose event carries LBRs) and a
 * general one (whose event does not). The first record holds the MSRs as the CPU froze
 * them at the overflow, in list order; a branch taken after the overflow is not in it;
 * the second record's LBR area is zero. */
static void check_lbr_records(const struct sim_model *m, int arch)
{
    uint64_t from[32] = {0}, to[32] = {0}, info[32] = {0};
    unsigned tos = 0;
    const uint32_t cpu = 2;

    power_on(m);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.events[0].lbr = 1;
    cfg.events[0].event_index = 1;
    cfg.num_events = 2;
    cfg.events[1].event_index = 2;
    cfg.events[1].sample_after = 5000;
    cfg.events[1].control = EVSEL_INST_RETIRED;
    cfg.lbr_num_regs = lbr_list(arch, 32, 1);
    cfg.lbr_offset = sizeof(struct sep_sample_pc);
    cfg.record_size = cfg.lbr_offset + 8 * cfg.lbr_num_regs;
    setup_and_start(RING_BYTES);
    for (uint32_t c = 0; c < SESSION_CPUS; c++)
        CHECK_EQ(msr(c, MSR_IA32_DEBUGCTL),
                 arch ? 0x800 : 0x801); /* LBRs freeze, counters do not */

    for (unsigned i = 0; i < 40; i++) {
        uint64_t f = 0x401000 + 16 * i, t = 0x402000 + 16 * i;
        shim_sim(cpu)->branch_kind(f, t, SIM_BR_JCC, i & 1, (uint16_t)(i + 3));
        if (arch) {
            memmove(&from[1], &from[0], 31 * sizeof(from[0]));
            memmove(&to[1], &to[0], 31 * sizeof(to[0]));
            memmove(&info[1], &info[0], 31 * sizeof(info[0]));
            from[0] = f, to[0] = t, info[0] = (i & 1 ? 1ull << 63 : 0) | 1ull << 60 | (i + 3);
        } else {
            tos = (tos + 1) % 32;
            from[tos] = f, to[tos] = t, info[tos] = (i & 1 ? 1ull << 63 : 0) | (i + 3);
        }
    }
    retire(cpu, 5000, 5000, 1000);
    shim_sim(cpu)->branch_kind(0x409000, 0x40a000, SIM_BR_JCC, 0, 1); /* frozen */
    deliver(cpu, 0x403000);

    struct sep_sample_pc rec[2];
    const void *data;
    int saw_lbr = 0;
    CHECK_EQ(records(cpu, rec, 2), 2);
    ring_peek(sampler_ring(cpu), &data);
    for (uint32_t r = 0; r < 2; r++) {
        const uint8_t *raw = (const uint8_t *)data + r * cfg.record_size;
        const int with_lbr = ((rec[r].bit_fields2 >> SEP_SAMPLE_EVENT_INDEX_SHIFT) & 0xff) == 1;
        saw_lbr += with_lbr;
        uint32_t w = 0;
        if (!with_lbr) {
            for (uint32_t i = 0; i < cfg.lbr_num_regs; i++)
                CHECK_EQ(lbr_word(raw, i), 0);
            continue;
        }
        if (!arch)
            CHECK_EQ(lbr_word(raw, w++), tos);
        for (unsigned k = 0; k < 32; k++) {
            CHECK_EQ(lbr_word(raw, w++), from[k]);
            CHECK_EQ(lbr_word(raw, w++), to[k]);
            CHECK_EQ(lbr_word(raw, w++), info[k]);
        }
        if (arch)
            CHECK_EQ(lbr_word(raw, w++), 0);
        CHECK_EQ(w, cfg.lbr_num_regs);
    }
    CHECK_EQ(saw_lbr, 1);
    sampler_stop();
    for (uint32_t c = 0; c < SESSION_CPUS; c++)
        check_idle(c);
    sampler_reset();
}

static void test_lbr_records(void)
{
    check_lbr_records(&sim_skylake, 0);
    check_lbr_records(&sim_sapphire_rapids, 1);

    /* Refused: an LBR area over the call stack, outside the record, or with a timer. */
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.lbr_num_regs = lbr_list(0, 4, 0);
    cfg.record_size = 48 + 8 * 16 + 8 * cfg.lbr_num_regs;
    cfg.callstack_offset = 48;
    cfg.callstack_depth = 16;
    cfg.lbr_offset = 48 + 8 * 15;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.lbr_offset = 48 + 8 * 17;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.lbr_offset = 48 + 8 * 16;
    cfg.source = SAMPLER_SOURCE_TIMER;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.source = SAMPLER_SOURCE_PMU;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    sampler_reset();
}

/* The stack a record's LBR words hold (TOS on model-specific LBRs, then FROM/TO/INFO of
 * entries 0-7: the stacks here are shallow, and 8 keep the records small), decoded newest
 * first as the host does. */
static unsigned record_stack(const uint8_t *raw, struct lbr_entry *out)
{
    struct lbr_snapshot snap;
    const unsigned arch = sampler_pmu_caps()->lbr.arch, first = arch ? 0 : 1;
    memset(&snap, 0, sizeof(snap));
    snap.tos = arch ? 0 : lbr_word(raw, 0);
    for (unsigned k = 0; k < 8; k++) {
        snap.from[k] = lbr_word(raw, first + 3 * k);
        snap.to[k] = lbr_word(raw, first + 1 + 3 * k);
        snap.info[k] = lbr_word(raw, first + 2 + 3 * k);
    }
    return lbr_decode(&sampler_pmu_caps()->lbr, &snap, out, 32);
}

/* LBR recording as call-stack mode has it between PMIs: DEBUGCTL.LBR with LBR_SELECT's
 * call-stack bit, or on architectural LBRs (Sapphire Rapids) IA32_LBR_CTL with LBREn,
 * CALL_STACK and the near call/return kinds (SDM vol. 3B, IA32_LBR_CTL: bit 0 LBREn, 1 OS,
 * 2 USR, 3 CALL_STACK, 19 NEAR_IND_CALL, 20 NEAR_REL_CALL, 21 NEAR_RET); no freeze of
 * either kind. */
static void check_call_stack_recording(uint32_t cpu, int arch)
{
    if (arch) {
        CHECK_EQ(msr(cpu, MSR_IA32_DEBUGCTL), 0);
        CHECK_EQ(msr(cpu, MSR_LBR_CTL), 0xfull | 7ull << 19);
    } else {
        CHECK_EQ(msr(cpu, MSR_IA32_DEBUGCTL), DEBUGCTL_LBR);
        CHECK_EQ(msr(cpu, MSR_LBR_SELECT), LBR_SEL_CALL_STACK_MODE);
    }
}

/* LBR call-stack mode (Skylake; Haswell, perfmon v3; Sapphire Rapids, architectural LBR):
 * PMIs that land right after a call or a return. With FREEZE_LBRS_ON_PMI the simulated
 * CPU moves the top of stack one too far there, as Linux says real parts do (sim_cpu.c,
 * freeze_tos_drift); acart leaves the freeze off in call-stack mode, stops recording first
 * thing in the handler (DEBUGCTL.LBR, or IA32_LBR_CTL on architectural LBR), and drops the
 * board's call into its handler (which the simulated board records in either kind of
 * call-stack mode, sampler_shim_board.c), so each record holds the interrupted code's
 * calls, newest first, and nothing else. */
static void check_call_stack_across_pmis(const struct sim_model *model)
{
    static const struct {
        enum sim_branch_kind kind;
        uint64_t from, to;
        unsigned depth;       /* calls on the stack after it */
        uint64_t top_from[3]; /* their call sites, newest first */
    } steps[] = {
        {SIM_BR_REL_CALL, 0x401000, 0x410000, 1, {0x401000}},
        {SIM_BR_REL_CALL, 0x410010, 0x420000, 2, {0x410010, 0x401000}},
        {SIM_BR_RET, 0x420020, 0x410015, 1, {0x401000}},
        {SIM_BR_IND_CALL, 0x410030, 0x430000, 2, {0x410030, 0x401000}},
        {SIM_BR_REL_CALL, 0x430008, 0x440000, 3, {0x430008, 0x410030, 0x401000}},
        {SIM_BR_RET, 0x440010, 0x43000d, 2, {0x410030, 0x401000}},
        {SIM_BR_RET, 0x430020, 0x410035, 1, {0x401000}},
    };
    const uint32_t cpu = 1;

    power_on(model);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    CHECK(sampler_pmu_caps()->lbr.callstack);
    const int arch = sampler_pmu_caps()->lbr.arch;
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.events[0].lbr = 1;
    cfg.lbr_num_regs = lbr_list(arch, 8, 1);
    cfg.lbr_offset = sizeof(struct sep_sample_pc);
    cfg.record_size = cfg.lbr_offset + 8 * cfg.lbr_num_regs;
    cfg.lbr_select = LBR_SEL_CALL_STACK_MODE;
    setup_and_start(RING_BYTES);
    check_call_stack_recording(cpu, arch);

    for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        struct lbr_entry e[32];
        const void *data;
        shim_sim(cpu)->branch_kind(steps[i].from, steps[i].to, steps[i].kind, 0, 1);
        retire(cpu, 0, 0, 1000); /* the PMI lands right after the branch */
        deliver(cpu, 0x406000 + (uint32_t)i);
        CHECK_EQ(count_records(cpu), i + 1);
        ring_peek(sampler_ring(cpu), &data);
        unsigned n = record_stack((const uint8_t *)data + (size_t)i * cfg.record_size, e);
        CHECK_EQ(n, steps[i].depth);
        for (unsigned k = 0; k < n && k < steps[i].depth; k++)
            CHECK_EQ(e[k].from, steps[i].top_from[k]);
        /* Recording is on again after the handler, and its return popped its call. */
        check_call_stack_recording(cpu, arch);
    }
    sampler_stop();
    check_idle(cpu);
    sampler_reset();
}

static void test_lbr_call_stack_across_pmis(void)
{
    check_call_stack_across_pmis(&sim_skylake);
    check_call_stack_across_pmis(&sim_haswell);
    check_call_stack_across_pmis(&sim_sapphire_rapids);
}

/* Stack copies (docs/sep-protocol.md 6.5): the area must end the record, stay clear of the
 * other areas and hold at most ACART_STACK_COPY_MAX bytes of stack; a sample fills it with
 * the frame's registers, marked known, and (the simulated CPUs name no stack, so nothing is
 * copied) zeros. */
static void test_stack_copy_records(void)
{
    const uint32_t cpu = 1, bytes = 256;

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.callstack_offset = 48;
    cfg.callstack_depth = 4;
    cfg.stack_copy_offset = 48 + 8 * 4;
    cfg.stack_copy_bytes = bytes;
    cfg.record_size = cfg.stack_copy_offset + ACART_STACK_COPY_HEAD + bytes;
    cfg.record_size += 8; /* not the end of the record */
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.record_size -= 8;
    cfg.stack_copy_offset -= 8; /* over the call stack */
    cfg.stack_copy_bytes += 8;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.stack_copy_offset += 8;
    cfg.stack_copy_bytes = bytes + ACART_STACK_COPY_MAX; /* too much */
    cfg.record_size += ACART_STACK_COPY_MAX;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.stack_copy_bytes = bytes;
    cfg.record_size -= ACART_STACK_COPY_MAX;
    setup_and_start(RING_BYTES);
    /* A stale record under the slot: every byte of the area must be written anew. */
    memset(ring_memory, 0xa5, RING_BYTES * SESSION_CPUS);
    retire(cpu, 5000, 5000, 1000);
    deliver(cpu, 0x403000);
    CHECK_EQ(count_records(cpu), 1);
    const void *data;
    ring_peek(sampler_ring(cpu), &data);
    struct acart_stack_copy head;
    memcpy(&head, (const uint8_t *)data + cfg.stack_copy_offset, sizeof(head));
    CHECK_EQ(head.known, (1u << ACART_REG_IP) | (1u << ACART_REG_SP) | (1u << ACART_REG_BP) |
                             (1u << ACART_REG_FLAGS) | (1u << ACART_REG_CS));
    CHECK_EQ(head.regs[ACART_REG_IP], 0x403000);
    CHECK_EQ(head.regs[ACART_REG_AX], 0);
    CHECK_EQ(head.copied, 0);
    const uint8_t *stack = (const uint8_t *)data + cfg.stack_copy_offset + ACART_STACK_COPY_HEAD;
    for (uint32_t i = 0; i < bytes; i++)
        CHECK_EQ(stack[i], 0);
    check_exact(cpu);
    sampler_stop();
    sampler_reset();
}

/* A precise event with LBRs on adaptive PEBS and architectural LBRs (Sapphire Rapids): the
 * sampler asks for the record's LBR group, as deep as the stack, and the record's LBR
 * words are the stack at the event, not the MSRs at the PMI. */
/* Sapphire Rapids sampling retired branches precisely with 32 LBRs in each record. */
static void start_precise_branches_with_lbrs(void)
{
    power_on(&sim_sapphire_rapids);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(0, 0, (EVSEL_INST_RETIRED & ~0xffull) | 0xc4, 1000); /* branches */
    cfg.events[0].precise = 1;
    cfg.events[0].lbr = 1;
    cfg.lbr_num_regs = lbr_list(1, 32, 1);
    cfg.lbr_offset = sizeof(struct sep_sample_pc);
    cfg.record_size = cfg.lbr_offset + 8 * cfg.lbr_num_regs;
    setup_and_start(RING_BYTES);
}

static void test_pebs_lbr_records(void)
{
    const uint32_t cpu = 1;

    start_precise_branches_with_lbrs();
    for (uint32_t c = 0; c < SESSION_CPUS; c++)
        CHECK_EQ(msr(c, MSR_PEBS_DATA_CFG), PEBS_DATA_CFG_LBRS | 31ull << PEBS_DATA_CFG_LBR_SHIFT);
    for (unsigned i = 0; i < 3; i++)
        shim_sim(cpu)->branch_kind(0x401000 + 16 * i, 0x402000 + 16 * i, SIM_BR_JCC, 0, 5);
    struct sim_events ev = {.branches = 1000};
    shim_sim(cpu)->retire(&ev);
    /* The MSRs change after the record (software may write them): the sample keeps the
     * record's stack. */
    shim_sim(cpu)->wrmsr(MSR_ARCH_LBR_FROM_0, 0xdead0);
    deliver(cpu, 0x403000);
    CHECK_EQ(count_records(cpu), 1);
    const void *data;
    ring_peek(sampler_ring(cpu), &data);
    for (unsigned k = 0; k < 3; k++) {
        CHECK_EQ(lbr_word(data, 3 * k), 0x401000 + 16 * (2 - k));
        CHECK_EQ(lbr_word(data, 3 * k + 1), 0x402000 + 16 * (2 - k));
    }
    CHECK_EQ(lbr_word(data, 9), 0); /* the stack held three branches */
    check_exact(cpu);
    sampler_stop();
    sampler_reset();

    /* Legacy PEBS (Skylake) has no LBR group: the PMI's snapshot, as before. */
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    cfg.lbr_num_regs = lbr_list(0, 32, 1);
    cfg.record_size = cfg.lbr_offset + 8 * cfg.lbr_num_regs;
    setup_and_start(RING_BYTES);
    CHECK_EQ(msr(0, MSR_IA32_PEBS_ENABLE), 1);
    sampler_stop();
    sampler_reset();
}

/* ---- Events by name, from perfmon's tables through the ECB to the registers ---- */

/* `acart collect --event` for a Skylake target (tools/collect/setup/collect_events.c): the ECB it
 * sends, planned by the agent (runtime/commands/ecb.c, sampler_plan.c) and programmed by the
 * sampler on every simulated Skylake. Each IA32_PERFEVTSELx holds perfmon's EventCode, UMask,
 * CounterMask, Invert, EdgeDetect and AnyThread (copied here from
 * perfmon/json/SKL/events/skylake_core.json) with USR, OS, INT and EN; the offcore
 * event's MSR_OFFCORE_RSP_0 holds its MSRValue, the load-latency event's MSR_PEBS_LD_LAT its
 * threshold; a general counter's overflow is a sample of its event; stop clears them all. */
static void test_perfmon_events(void)
{
    static const char *const names[] = {
        "UOPS_ISSUED.STALL_CYCLES",                     /* 0x0E/0x01 cmask 1 inv */
        "MACHINE_CLEARS.COUNT",                         /* 0xC3/0x01 cmask 1 edge */
        "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", /* 0xB7/0x01, RSP_0 0x10001 */
        "INT_MISC.RECOVERY_CYCLES_ANY",                 /* 0x0D/0x01 any */
    };
    const uint64_t evtsel_bits = EVTSEL_USR | EVTSEL_OS | EVTSEL_INT | EVTSEL_EN;
    const uint64_t want[] = {0x010E | 1ull << 24 | 1ull << 23, 0x01C3 | 1ull << 24 | 1ull << 18,
                             0x01B7, 0x010D | 1ull << 21};
    const struct collect_target_cpu skylake = {6, 0x5E, 1, 4};
    struct collect_event_spec specs[4];
    static struct collect_events ev;
    static uint8_t bytes[COLLECT_ECB_SIZE];
    static struct ecb ecb;
    struct ecb_plan plan;
    struct diag d = {0};

    for (size_t i = 0; i < 4; i++) {
        memset(&specs[i], 0, sizeof(specs[i]));
        snprintf(specs[i].name, sizeof(specs[i].name), "%s", names[i]);
        specs[i].sample_after = 1000 * (i + 1);
    }
    CHECK_EQ(collect_events_resolve(specs, 4, &skylake, &ev, &d), 0);
    CHECK_EQ(collect_ecb_build(ev.events, ev.num_events, bytes, sizeof(bytes)), COLLECT_ECB_SIZE);
    CHECK_EQ(ecb_decode(bytes, sizeof(bytes), &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    CHECK_EQ(plan.num_extra, 1);

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    memset(&cfg, 0, sizeof(cfg));
    cfg.source = SAMPLER_SOURCE_PMU;
    cfg.use_nmi = 1;
    sampler_events_from_plan(&plan, &cfg);
    cfg.record_size = sizeof(struct sep_sample_pc);
    setup_and_start(RING_BYTES);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        for (uint32_t k = 0; k < 4; k++) {
            CHECK_EQ(msr(cpu, MSR_IA32_PERFEVTSEL0 + k), want[k] | evtsel_bits);
            CHECK_EQ(msr(cpu, MSR_IA32_PMC0 + k), (0 - 1000ull * (k + 1)) & MASK48);
        }
        CHECK_EQ(msr(cpu, MSR_OFFCORE_RSP_0), 0x10001);
        CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL), 0xf);
    }
    sampler_stop();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        check_idle(cpu);
        CHECK_EQ(msr(cpu, MSR_OFFCORE_RSP_0), 0);
    }
    sampler_reset();

    /* Load latency with PEBS: the threshold in MSR_PEBS_LD_LAT, PEBS on the counter. */
    memset(&specs[0], 0, sizeof(specs[0]));
    snprintf(specs[0].name, sizeof(specs[0].name), "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4");
    specs[0].precise = 1;
    CHECK_EQ(collect_events_resolve(specs, 1, &skylake, &ev, &d), 0);
    CHECK_EQ(collect_ecb_build(ev.events, ev.num_events, bytes, sizeof(bytes)), COLLECT_ECB_SIZE);
    CHECK_EQ(ecb_decode(bytes, sizeof(bytes), &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    memset(&cfg, 0, sizeof(cfg));
    cfg.source = SAMPLER_SOURCE_PMU;
    cfg.use_nmi = 1;
    sampler_events_from_plan(&plan, &cfg);
    cfg.record_size = sizeof(struct sep_sample_pc);
    CHECK(cfg.events[0].precise);
    setup_and_start(RING_BYTES);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        CHECK_EQ(msr(cpu, MSR_IA32_PERFEVTSEL0) & 0xffffffffull & ~EVTSEL_INT,
                 (0x01CD | evtsel_bits) & ~EVTSEL_INT);
        CHECK_EQ(msr(cpu, MSR_PEBS_LD_LAT), 4);
        CHECK_EQ(msr(cpu, MSR_IA32_PEBS_ENABLE), 1 | 1ull << 32); /* PEBS and LL_EN */
    }
    sampler_stop();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        CHECK_EQ(msr(cpu, MSR_PEBS_LD_LAT), 0);
    sampler_reset();
}

/* ---- Memory information of load-latency samples ---- */

/* The latency area (struct sep_latency_info at cfg.latency_offset) of record i in cpu's
 * ring. */
static struct sep_latency_info latency_of(uint32_t cpu, uint32_t i)
{
    const struct ring *r = sampler_ring(cpu);
    const void *data;
    struct sep_latency_info info;

    memset(&info, 0xee, sizeof(info));
    if (r && i < ring_peek(r, &data))
        memcpy(&info, (const uint8_t *)data + (size_t)i * r->record_size + cfg.latency_offset,
               sizeof(info));
    return info;
}

/* `acart collect --event MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32:precise` as the target
 * decodes it, with a latency area after the 48-byte record. */
static void config_load_latency(const struct collect_target_cpu *target, const char *name,
                                int precise)
{
    struct collect_event_spec spec;
    static struct collect_events ev;
    static uint8_t bytes[COLLECT_ECB_SIZE];
    static struct ecb ecb;
    struct ecb_plan plan;
    struct diag d = {0};

    memset(&spec, 0, sizeof(spec));
    snprintf(spec.name, sizeof(spec.name), "%s", name);
    spec.precise = precise;
    spec.sample_after = 1000;
    CHECK_EQ(collect_events_resolve(&spec, 1, target, &ev, &d), 0);
    CHECK_EQ(collect_ecb_build(ev.events, ev.num_events, bytes, sizeof(bytes)), COLLECT_ECB_SIZE);
    CHECK_EQ(ecb_decode(bytes, sizeof(bytes), &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    memset(&cfg, 0, sizeof(cfg));
    cfg.source = SAMPLER_SOURCE_PMU;
    cfg.use_nmi = 1;
    sampler_events_from_plan(&plan, &cfg);
    cfg.latency_offset = sizeof(struct sep_sample_pc);
    cfg.record_size = cfg.latency_offset + sizeof(struct sep_latency_info);
}

static void test_load_latency(void)
{
    struct sim_events slow = {.loads = 1000}, fast = {.loads = 3000};
    static const struct sim_model *const models[] = {&sim_skylake, &sim_tigerlake};
    static const struct collect_target_cpu targets[] = {{6, 0x5E, 1, 4}, {6, 0x8C, 1, 8}};

    for (size_t m = 0; m < 2; m++) {
        /* Tiger Lake: adaptive PEBS, and load latency only on PMC1-7 (the host places it on
         * PMC1 by the same per-model table). */
        int adaptive = models[m] == &sim_tigerlake;
        uint64_t counter = adaptive ? 2 : 1;
        power_on(models[m]);
        CHECK_EQ(sampler_probe_pmu(), PMU_OK);
        config_load_latency(&targets[m], "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32", 1);
        CHECK(cfg.events[0].precise);
        CHECK(cfg.events[0].load_latency);
        setup_and_start(RING_BYTES);
        for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
            const struct sim_instance *sim = shim_sim(cpu);
            CHECK_EQ(msr(cpu, MSR_PEBS_LD_LAT), 32);
            /* Legacy PEBS: the counter's LL_EN bit; adaptive: the memory group. */
            CHECK_EQ(msr(cpu, MSR_IA32_PEBS_ENABLE), adaptive ? counter : counter | 1ull << 32);
            if (adaptive)
                CHECK_EQ(msr(cpu, MSR_PEBS_DATA_CFG), PEBS_DATA_CFG_MEMORY);
            sim->set_ip(0x402000 + cpu);
            sim->set_load(0x7000, 20, 0x1); /* L1 hits below the threshold: not counted */
            sim->retire(&fast);
            check_no_pmi(cpu);
            sim->set_load(0x9000 + 0x40 * cpu, (uint16_t)(100 + cpu), 0x4);
            sim->retire(&slow);
            deliver(cpu, 0x409999);
            sim->set_load(0xa000, 300, 0x1a); /* DRAM (0xa), STLB miss (bit 4) */
            sim->retire(&slow);
            deliver(cpu, 0x409999);
            CHECK_EQ(count_records(cpu), 2);
            struct sep_latency_info a = latency_of(cpu, 0), b = latency_of(cpu, 1);
            CHECK_EQ(a.linear_address, 0x9000 + 0x40 * cpu);
            CHECK_EQ(a.latency, 100 + cpu);
            CHECK_EQ(a.data_source, 0x4);
            CHECK_EQ(b.linear_address, 0xa000);
            CHECK_EQ(b.latency, 300);
            CHECK_EQ(b.data_source, 0x1a);
            CHECK_EQ(a.stack_pointer | a.phys_addr | b.stack_pointer | b.phys_addr, 0);
            check_exact(cpu);
        }
        sampler_stop();
        for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
            CHECK_EQ(msr(cpu, MSR_IA32_PEBS_ENABLE), 0);
            CHECK_EQ(msr(cpu, MSR_PEBS_LD_LAT), 0);
        }
        sampler_reset();
    }

    /* A precise event that is not a load-latency one (loads, sampled through PEBS): its
     * records keep the area zero. */
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_load_latency(&targets[0], "MEM_INST_RETIRED.ALL_LOADS", 1);
    CHECK(!cfg.events[0].load_latency);
    setup_and_start(RING_BYTES);
    CHECK_EQ(msr(0, MSR_IA32_PEBS_ENABLE), 1);
    shim_sim(0)->set_load(0x9000, 100, 0x4);
    shim_sim(0)->retire(&slow);
    deliver(0, 0x409999);
    CHECK_EQ(count_records(0), 1);
    struct sep_latency_info z = latency_of(0, 0);
    CHECK_EQ(z.linear_address | z.data_source | z.latency, 0);
    sampler_stop();
    sampler_reset();

    /* Areas that do not fit the record, overlap another or need PEBS are refused. */
    config_load_latency(&targets[0], "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32", 1);
    cfg.latency_offset = cfg.record_size - 16;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.latency_offset = 52;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.latency_offset = 48;
    cfg.callstack_offset = 64;
    cfg.callstack_depth = 1;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.callstack_depth = 0;
    cfg.source = SAMPLER_SOURCE_TIMER;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);

    /* A Sandy Bridge whose microcode leaves the PEBS erratum: precise events are refused
     * with the reason; the same event without :precise samples. */
    power_on(&sim_sandybridge_old);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    CHECK(sampler_pebs_refusal() && strstr(sampler_pebs_refusal(), "0x28"));
    config_one(0, 0, EVSEL_INST_RETIRED, 1000);
    cfg.events[0].precise = 1;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_UNSUPPORTED);
    cfg.events[0].precise = 0;
    setup_and_start(RING_BYTES);
    retire(0, 1000, 1000, 1000);
    deliver(0, 0x404040);
    CHECK_EQ(count_records(0), 1);
    sampler_stop();
    sampler_reset();
    power_on(&sim_sandybridge);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    CHECK(!sampler_pebs_refusal());
    cfg.events[0].precise = 1;
    setup_and_start(RING_BYTES);
    CHECK_EQ(msr(0, MSR_IA32_PEBS_ENABLE), 1);
    sampler_stop();
    sampler_reset();
}

/* ---- Pause and resume ---- */

static void test_pause_resume(void)
{
    const uint64_t preload = (0 - 1000ull) & MASK48;

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);

    /* A PMI in the instructions right after start enables counting is recorded. */
    struct sim_events first = {.ref_cycles = 1000};
    struct trap_frame early = frame_at(0x403000);
    shim_after_enable(2, &first, &early);
    CHECK_EQ(sampler_start(), ACA_OK);
    CHECK_EQ(shim_after_enable_result(2), SHIM_DELIVERED);
    CHECK_EQ(count_records(2), 1);

    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        retire(cpu, 0, 0, 600);
    sampler_pause();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL), 0);
        retire(cpu, 0, 0, 5000);
        check_no_pmi(cpu);
    }
    sampler_resume();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        CHECK_EQ(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL), FIXED2);
        retire(cpu, 0, 0, 399); /* the count went on from 600 */
        check_no_pmi(cpu);
        retire(cpu, 0, 0, 1);
        deliver(cpu, 0x403100 + cpu);
    }
    CHECK_EQ(count_records(0), 1);
    CHECK_EQ(count_records(1), 1);
    CHECK_EQ(count_records(2), 2);

    /* A PMI pending at pause is ours but records nothing, and leaves counting off. */
    retire(0, 0, 0, 1000);
    sampler_pause();
    deliver(0, 0x403200);
    CHECK_EQ(shim_nmis_declined(), 0);
    CHECK_EQ(count_records(0), 1);
    CHECK_EQ(msr(0, MSR_IA32_PERF_GLOBAL_CTRL), 0);
    CHECK_EQ(msr(0, MSR_IA32_FIXED_CTR0 + 2), preload);
    check_counts(0, 1, 0, 1, 0);

    /* A PMI in the instructions right after resume enables counting is recorded too. */
    struct sim_events last = {.ref_cycles = 1000};
    struct trap_frame resumed = frame_at(0x403300);
    shim_after_enable(1, &last, &resumed);
    sampler_resume();
    CHECK_EQ(shim_after_enable_result(1), SHIM_DELIVERED);
    CHECK_EQ(count_records(1), 2);
    check_counts(1, 2, 0, 2, 0);

    sampler_stop();
    sampler_reset();
}

/* ---- Multiplexing: three groups take turns on one counter ---- */

#define EVSEL_BRANCHES (0xc4 | EVTSEL_OS | EVTSEL_USR | EVTSEL_INT | EVTSEL_EN)
#define EVSEL_CYCLES   (0x3c | EVTSEL_OS | EVTSEL_USR | EVTSEL_INT | EVTSEL_EN)

/* Group g samples one event on IA32_PMC0 every 1000 + 1000 * g of it, with event index
 * 10 + g and descriptor g (the host's one descriptor per group). */
static void config_three_groups(uint64_t switch_tsc)
{
    static const uint64_t selects[3] = {EVSEL_INST_RETIRED, EVSEL_BRANCHES, EVSEL_CYCLES};

    memset(&cfg, 0, sizeof(cfg));
    cfg.source = SAMPLER_SOURCE_PMU;
    cfg.use_nmi = 1;
    cfg.num_events = 3;
    cfg.num_groups = 3;
    cfg.switch_tsc = switch_tsc;
    for (uint32_t g = 0; g < 3; g++) {
        cfg.events[g].event_index = 10 + g;
        cfg.events[g].descriptor_id = g;
        cfg.events[g].group = g;
        cfg.events[g].counter = 0;
        cfg.events[g].control = selects[g] & ~(EVTSEL_INT | EVTSEL_EN);
        cfg.events[g].sample_after = 1000 + 1000 * g;
    }
    cfg.record_size = sizeof(struct sep_sample_pc);
}

static uint64_t pmc0(uint32_t cpu)
{
    return msr(cpu, MSR_IA32_PMC0);
}

static void test_multiplexing(void)
{
    struct sep_sample_pc rec[8];
    struct sampler_group_times t;

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_three_groups(0);
    setup_and_start(RING_BYTES);
    CHECK_EQ(msr(0, MSR_IA32_PERFEVTSEL0), EVSEL_INST_RETIRED);
    CHECK_EQ(shim_timer_period(0), 0); /* turns only on SWITCH_GROUP */

    /* Group 0 counts 600 of its 1000, then its turn ends on every CPU. */
    retire(0, 600, 600, 600);
    sampler_switch_group();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        CHECK_EQ(msr(cpu, MSR_IA32_PERFEVTSEL0), EVSEL_BRANCHES);
        CHECK_EQ(pmc0(cpu), (0 - 2000ull) & MASK48);
        CHECK(msr(cpu, MSR_IA32_PERF_GLOBAL_CTRL) & 1);
    }
    /* Instructions do not count for group 1; its branches do. */
    struct sim_events branches = {.instructions = 5000, .branches = 700};
    shim_sim(0)->retire(&branches);
    check_no_pmi(0);
    CHECK_EQ(pmc0(0), (0 - 1300ull) & MASK48);
    sampler_switch_group();
    CHECK_EQ(msr(0, MSR_IA32_PERFEVTSEL0), EVSEL_CYCLES);
    CHECK_EQ(pmc0(0), (0 - 3000ull) & MASK48);
    sampler_switch_group();

    /* Group 0 again: its count went on from 600 of 1000. */
    CHECK_EQ(msr(0, MSR_IA32_PERFEVTSEL0), EVSEL_INST_RETIRED);
    CHECK_EQ(pmc0(0), (0 - 400ull) & MASK48);
    retire(0, 399, 0, 0);
    check_no_pmi(0);
    retire(0, 1, 0, 0);
    deliver(0, 0x406000);
    CHECK_EQ(records(0, rec, 8), 1);
    struct trap_frame f = frame_at(0x406000);
    check_record(&rec[0], 0, 0x406000, &f, 10, 0);

    /* An overflow pending when a turn ends is the outgoing group's sample; SWITCH_GROUP
     * interrupted no code, so its IP is 0. */
    sampler_switch_group();
    shim_sim(0)->retire(&branches);
    retire(0, 0, 0, 0);
    struct sim_events more = {.branches = 1300};
    shim_sim(0)->retire(&more);
    sampler_switch_group();
    /* The switch took it; its PMI, still on its way, is claimed and records nothing. */
    deliver(0, 0x406100);
    CHECK_EQ(shim_nmis_declined(), 0);
    CHECK_EQ(records(0, rec, 8), 2);
    CHECK_EQ(rec[1].iip, 0);
    CHECK_EQ(rec[1].descriptor_id, 1);
    CHECK_EQ(rec[1].bit_fields2 >> SEP_SAMPLE_EVENT_INDEX_SHIFT & 0xff, 11);
    CHECK_EQ(msr(0, MSR_IA32_PERFEVTSEL0), EVSEL_CYCLES);

    sampler_group_times(0, &t);
    CHECK_EQ(t.switches, 5);
    CHECK_EQ(t.enabled, t.running[0] + t.running[1] + t.running[2]);
    CHECK(t.running[0] > 0 && t.running[1] > 0 && t.running[2] > 0);
    check_exact(0);
    sampler_stop();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        check_idle(cpu);
    sampler_reset();

    /* Timer-based turns: each CPU's sampling timer at the switch interval ends a turn on
     * that CPU only, sampling what the outgoing group had pending with the tick's frame. */
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_three_groups(2000000);
    setup_and_start(RING_BYTES);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        CHECK_EQ(shim_timer_period(cpu), 2000000);
    CHECK_EQ(shim_timer_period(BEYOND), 0);
    retire(1, 1000, 0, 0);
    struct trap_frame tick = frame_at(0x407000);
    shim_timer_tick(1, &tick);
    deliver(1, 0x407100);
    CHECK_EQ(shim_nmis_declined(), 0);
    CHECK_EQ(records(1, rec, 8), 1);
    check_record(&rec[0], 1, 0x407000, &tick, 10, 0);
    CHECK_EQ(msr(1, MSR_IA32_PERFEVTSEL0), EVSEL_BRANCHES);
    CHECK_EQ(msr(0, MSR_IA32_PERFEVTSEL0), EVSEL_INST_RETIRED);
    sampler_group_times(1, &t);
    CHECK_EQ(t.switches, 1);
    sampler_group_times(0, &t);
    CHECK_EQ(t.switches, 0);
    sampler_stop();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        CHECK_EQ(shim_timer_period(cpu), 0);
        check_exact(cpu);
    }
    sampler_reset();

    /* Groups that do not fit: an empty group, one past num_groups, on a timer source. */
    config_three_groups(0);
    cfg.events[2].group = 1;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    config_three_groups(0);
    cfg.events[2].group = 3;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    config_three_groups(0);
    cfg.source = SAMPLER_SOURCE_TIMER;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
}

/* ---- Counting mode: read, reset, next group ---- */

static void test_counting(void)
{
    static uint64_t tsc[SESSION_CPUS], counts[SESSION_CPUS * 4];
    static const uint32_t offset[SESSION_CPUS] = {0, 4, 8};

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_three_groups(0);
    cfg.counting = 1;
    for (uint32_t g = 0; g < 3; g++) {
        cfg.events[g].sample_after = 0;
        cfg.events[g].slot = g;
    }
    /* A second event in group 0: instructions on fixed counter 0, slot 3. */
    cfg.events[3] = cfg.events[0];
    cfg.events[3].fixed = 1;
    cfg.events[3].control = FIXED_CTRL_OS | FIXED_CTRL_USR;
    cfg.events[3].slot = 3;
    cfg.num_events = 4;
    setup_and_start(RING_BYTES);
    CHECK_EQ(msr(0, MSR_IA32_PERFEVTSEL0), EVSEL_INST_RETIRED & ~EVTSEL_INT);
    CHECK_EQ(shim_timer_period(0), 0);

    retire(1, 5000, 7000, 0);
    struct sim_events b = {.branches = 300};
    shim_sim(1)->retire(&b);
    sampler_read_counts(tsc, counts, 12, offset, 0);
    CHECK_EQ(counts[4 + 0], 5000);
    CHECK_EQ(counts[4 + 3], 5000);
    CHECK_EQ(counts[4 + 1], 0); /* group 1 was not counting */
    CHECK_EQ(counts[0], 0);
    CHECK(tsc[1] > 0);
    CHECK_EQ(pmc0(1), 0); /* reset: the next interval counts from 0 */
    CHECK_EQ(msr(1, MSR_IA32_PERFEVTSEL0), EVSEL_INST_RETIRED & ~EVTSEL_INT);
    check_no_pmi(1);

    /* READ_SWITCH_GROUP: read group 0, then group 1 counts, from 0. */
    retire(1, 100, 0, 0);
    memset(counts, 0, sizeof(counts));
    sampler_read_counts(tsc, counts, 12, offset, 1);
    CHECK_EQ(counts[4 + 0], 100);
    CHECK_EQ(msr(1, MSR_IA32_PERFEVTSEL0), EVSEL_BRANCHES & ~EVTSEL_INT);
    CHECK_EQ(pmc0(1), 0);
    shim_sim(1)->retire(&b);
    memset(counts, 0, sizeof(counts));
    sampler_read_counts(tsc, counts, 12, offset, 1);
    CHECK_EQ(counts[4 + 1], 300);
    CHECK_EQ(counts[4 + 0], 0);
    CHECK_EQ(msr(1, MSR_IA32_PERFEVTSEL0), EVSEL_CYCLES & ~EVTSEL_INT);
    /* A slot past the caller's room is left out. */
    retire(2, 0, 50, 0);
    memset(counts, 0, sizeof(counts));
    sampler_read_counts(tsc, counts, 10, offset, 1);
    CHECK_EQ(counts[8 + 2], 0);
    CHECK_EQ(msr(2, MSR_IA32_PERFEVTSEL0), EVSEL_INST_RETIRED & ~EVTSEL_INT);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        check_counts(cpu, 0, 0, 0, 0);
    sampler_stop();
    sampler_reset();

    /* Counting never samples: a sample-after value is refused, and so is the timer. */
    config_three_groups(0);
    cfg.counting = 1;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
}

/* ---- A full ring drops and counts ---- */

static void test_ring_full(void)
{
    const uint32_t capacity = 4;
    struct sep_sample_pc rec[4];

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    setup_and_start(capacity * sizeof(struct sep_sample_pc));
    for (uint32_t i = 0; i < 6; i++) {
        retire(0, 0, 0, 1000);
        deliver(0, 0x404000 + i);
    }
    /* Every PMI was handled and re-armed; the last two found no room. */
    check_counts(0, 6, 2, capacity, 0);
    check_exact(0);
    CHECK_EQ(shim_lapic(0)->unmasks, 6);
    CHECK_EQ(records(0, rec, 4), capacity);
    CHECK_EQ(rec[3].iip, 0x404003);

    ring_consume(sampler_ring(0), 1);
    retire(0, 0, 0, 1000);
    deliver(0, 0x404010);
    check_counts(0, 7, 2, capacity, 0);
    /* The ring wrapped: the newest record sits where the consumed one was. */
    const void *data;
    CHECK_EQ(ring_peek(sampler_ring(0), &data), capacity - 1);
    CHECK_EQ(((const struct sep_sample_pc *)(const void *)ring_memory)[0].iip, 0x404010);
    check_counts(1, 0, 0, 0, 0);

    sampler_stop();
    sampler_reset();
}

/* ---- Exact accounting: sampled = delivered + dropped, with the reasons ---- */

static void test_exact_accounting(void)
{
    struct sampler_cpu_counts c;

    /* Format 1 PEBS on two counters at once: the second record is a collision. */
    power_on(&sim_nehalem);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(0, 0, EVSEL_INST_RETIRED, 1000);
    cfg.num_events = 2;
    cfg.events[1] = cfg.events[0];
    cfg.events[1].counter = 1;
    cfg.events[1].control = 0x3c | EVTSEL_OS | EVTSEL_USR | EVTSEL_INT | EVTSEL_EN;
    cfg.events[1].event_index = 1;
    cfg.events[0].precise = cfg.events[1].precise = 1;
    setup_and_start(RING_BYTES);
    retire(0, 1000, 1000, 1000);
    deliver(0, 0x40a000);
    sampler_counts(0, &c);
    CHECK_EQ(c.sampled, 2);
    CHECK_EQ(c.collision, 1);
    CHECK_EQ(c.dropped, 1);
    check_exact(0);
    retire(0, 1000, 0, 0);
    deliver(0, 0x40a001);
    check_exact(0);
    CHECK_EQ(count_records(0), 2);
    sampler_stop();
    sampler_reset();

    /* A stuck PMI on CPU 1: four samples, one counted lost, its PMU reset; CPU 0 samples on. */
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    setup_and_start(RING_BYTES);
    shim_sim(1)->reassert_overflow(FIXED2, ~0u);
    retire(1, 0, 0, 1000);
    deliver(1, 0x40b000);
    sampler_counts(1, &c);
    CHECK_EQ(c.sampled, 5);
    CHECK_EQ(c.stuck, 1);
    CHECK_EQ(c.stuck_resets, 1);
    check_exact(1);
    CHECK_EQ(msr(1, MSR_IA32_FIXED_CTR_CTRL), 0);
    retire(1, 0, 0, 1000);
    check_no_pmi(1);
    retire(0, 0, 0, 1000);
    deliver(0, 0x40b010);
    check_exact(0);
    CHECK_EQ(count_records(0), 1);
    sampler_pause();
    sampler_resume(); /* CPU 1 stays reset */
    retire(1, 0, 0, 1000);
    check_no_pmi(1);
    sampler_stop();
    sampler_reset();
}

/* ---- PMI on a vector ---- */

static void test_vector_delivery(void)
{
    const uint8_t vector = 0x40;
    struct sep_sample_pc rec[2];

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.use_nmi = 0;
    cfg.vector = vector;
    setup_and_start(RING_BYTES);
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == board_nmi); /* the NMI stays the board's */
    CHECK(trap_get_handler(vector) != NULL);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        CHECK_EQ(shim_lapic(cpu)->lvt_pc, vector);

    const struct trap_frame f = frame_at(0x405000);
    retire(1, 0, 0, 1000);
    deliver(1, 0x405000);
    CHECK_EQ(records(1, rec, 2), 1);
    check_record(&rec[0], 1, 0x405000, &f, 0, 0);
    CHECK_EQ(shim_lapic(1)->eois, 1);
    CHECK_EQ(shim_lapic(1)->unmasks, 1);
    CHECK_EQ(shim_lapic(1)->lvt_pc, vector);

    /* The vector without an overflow: acknowledged, not ours, passed to nobody. */
    struct trap_frame spurious = frame_at(0x405010);
    spurious.vector = vector;
    shim_set_current_cpu(1);
    trap_get_handler(vector)(&spurious);
    shim_set_current_cpu(0);
    CHECK_EQ(shim_lapic(1)->eois, 2);
    CHECK_EQ(board_nmis, 0);
    check_counts(1, 1, 0, 1, 1);

    sampler_stop();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        CHECK_EQ(shim_lapic(cpu)->lvt_pc, LAPIC_LVT_MASKED | vector);
    sampler_reset();
    CHECK(shim_acart_nmi() == NULL);
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == board_nmi);
}

/* ---- Interrupt attribution: samples inside a handler belong to it ---- */

static void test_irq_attribution(void)
{
    struct sep_sample_pc rec[4];

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    setup_and_start(RING_BYTES);

    /* cpu 1 enters the e1000 handler, then a nested timer handler: the PMI charges the
     * innermost one; cpu 0, in no handler, keeps its task. */
    shim_set_current_cpu(1);
    aca_irq_enter(0x2b);
    aca_irq_enter(0x20);
    shim_set_current_cpu(0);
    retire(1, 0, 0, 1000);
    deliver(1, 0x406000);
    shim_set_current_cpu(1);
    aca_irq_exit();
    shim_set_current_cpu(0);
    retire(1, 0, 0, 1000);
    deliver(1, 0x406010);
    shim_set_current_cpu(1);
    aca_irq_exit();
    aca_irq_exit(); /* one exit too many: ignored */
    shim_set_current_cpu(0);
    retire(1, 0, 0, 1000);
    deliver(1, 0x406020);
    retire(0, 0, 0, 1000);
    deliver(0, 0x406030);

    CHECK_EQ(records(1, rec, 4), 3);
    CHECK_EQ(rec[0].pid_rec_index, ACA_IRQ_PID);
    CHECK_EQ(rec[0].tid, ACA_IRQ_TID(0x20));
    CHECK_EQ(rec[1].pid_rec_index, ACA_IRQ_PID);
    CHECK_EQ(rec[1].tid, ACA_IRQ_TID(0x2b));
    CHECK_EQ(rec[2].pid_rec_index, SHIM_PID_BASE + 1);
    CHECK_EQ(rec[2].tid, SHIM_TID_BASE + 1);
    CHECK_EQ(records(0, rec, 4), 1);
    CHECK_EQ(rec[0].tid, SHIM_TID_BASE + 0);
    sampler_stop();
    sampler_reset();
}

/* ---- PEBS: the event's own IP ---- */

static void test_pebs_ip(void)
{
    const struct trap_frame f = frame_at(0x409999);
    struct sep_sample_pc rec[2];

    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    CHECK(sampler_pmu_caps()->pebs.usable);
    config_one(0, 0, EVSEL_INST_RETIRED, 1000);
    cfg.events[0].precise = 1;
    cfg.events[0].event_index = 2;
    cfg.events[0].descriptor_id = 1;
    setup_and_start(RING_BYTES);
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        const uint64_t ds = msr(cpu, MSR_IA32_DS_AREA);

        CHECK_EQ(msr(cpu, MSR_IA32_PEBS_ENABLE), 1);
        CHECK(ds != 0 && ds % PEBS_DS_ALIGN == 0);
        for (uint32_t other = 0; other < cpu; other++)
            CHECK(msr(other, MSR_IA32_DS_AREA) != ds); /* a DS area per CPU */
    }

    shim_sim(2)->set_ip(0x402468);
    retire(2, 1000, 1000, 1000);
    CHECK_EQ(shim_sim(2)->pebs_records(), 1);
    deliver(2, 0x409999);
    CHECK_EQ(records(2, rec, 2), 1);
    check_record(&rec[0], 2, 0x402468, &f, 2, 1);
    /* The CPU reloaded the counter from the DS area and counts on. */
    shim_sim(2)->set_ip(0x402470);
    retire(2, 1000, 1000, 1000);
    deliver(2, 0x409998);
    CHECK_EQ(records(2, rec, 2), 2);
    CHECK_EQ(rec[1].iip, 0x402470);

    sampler_stop();
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++)
        check_idle(cpu);
    sampler_reset();

    /* PEBS turned off in MISC_ENABLE: the same event samples the interrupted IP. */
    power_on(&sim_skylake_no_pebs);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    CHECK(!sampler_pmu_caps()->pebs.usable);
    setup_and_start(RING_BYTES);
    CHECK_EQ(msr(0, MSR_IA32_PEBS_ENABLE), 0);
    shim_sim(0)->set_ip(0x402468);
    retire(0, 1000, 1000, 1000);
    CHECK_EQ(shim_sim(0)->pebs_records(), 0);
    deliver(0, 0x409999);
    CHECK_EQ(records(0, rec, 2), 1);
    check_record(&rec[0], 0, 0x409999, &f, 2, 1);
    sampler_stop();
    sampler_reset();
}

/* ---- Addresses of the simulated CPU's mode ---- */

/* The highest addresses code has in the simulated CPU's mode (sim_models.h), `ia32e` for
 * IA-32e mode, the other for protected mode: in IA-32e mode above 4 GiB (the upper
 * canonical half, where a 64-bit kernel-style image lives), which a 64-bit build that
 * kept an IP, a branch address or the interrupted IP in 32 bits would cut; in protected
 * mode with bit 31 set, which a 32-bit build that widened one through a signed type would
 * sign-extend. */
static uint64_t mode_address(uint64_t ia32e, uint32_t protected_mode)
{
    return sim_ia32e() ? ia32e : protected_mode;
}

/* A precise event with the record's LBR group (adaptive PEBS, architectural LBR), then an
 * ordinary overflow with the LBR MSRs (legacy LBR), both at the mode's high addresses: the
 * sample's IP (the PEBS record's, then the interrupted one) and every LBR FROM/TO word come
 * out whole, in the code mode of this program. */
static void test_mode_addresses(void)
{
    const uint32_t cpu = 1;
    const uint64_t pebs_ip = mode_address(0xffffffff81402468ull, 0x81402468u);
    const uint64_t from = mode_address(0xffffffff81401000ull, 0xc0401000u);
    const uint64_t to = mode_address(0x00007fffd0402000ull, 0xfff02000u);
    const uintptr_t frame_ip = (uintptr_t)mode_address(0xffffffff81409999ull, 0xfff09999u);
    struct trap_frame f = frame_at(0);
    struct sep_sample_pc rec[1];
    const void *data;

    f.ip = frame_ip;
    start_precise_branches_with_lbrs();
    for (unsigned i = 0; i < 3; i++)
        shim_sim(cpu)->branch_kind(from + 16 * i, to + 16 * i, SIM_BR_JCC, 0, 5);
    shim_sim(cpu)->set_ip(pebs_ip);
    struct sim_events ev = {.branches = 1000};
    shim_sim(cpu)->retire(&ev);
    CHECK_EQ(shim_sim(cpu)->pebs_records(), 1);
    CHECK_EQ(shim_raise_pmi(cpu, &f), SHIM_DELIVERED);
    CHECK_EQ(records(cpu, rec, 1), 1);
    CHECK_EQ(rec[0].iip, pebs_ip);
    CHECK_EQ(rec[0].cpu_and_os >> SEP_SAMPLE_CODE_MODE_SHIFT,
             sim_ia32e() ? SEP_MODE_64BIT : SEP_MODE_32BIT);
    ring_peek(sampler_ring(cpu), &data);
    for (unsigned k = 0; k < 3; k++) {
        CHECK_EQ(lbr_word(data, 3 * k), from + 16 * (2 - k));
        CHECK_EQ(lbr_word(data, 3 * k + 1), to + 16 * (2 - k));
    }
    check_exact(cpu);
    sampler_stop();
    sampler_reset();

    /* Legacy LBRs (Skylake, format 5) read at the PMI; the sample's IP the interrupted one. */
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.events[0].lbr = 1;
    cfg.lbr_num_regs = lbr_list(0, 32, 1);
    cfg.lbr_offset = sizeof(struct sep_sample_pc);
    cfg.record_size = cfg.lbr_offset + 8 * cfg.lbr_num_regs;
    setup_and_start(RING_BYTES);
    for (unsigned i = 0; i < 3; i++)
        shim_sim(cpu)->branch_kind(from + 16 * i, to + 16 * i, SIM_BR_JCC, 0, 5);
    retire(cpu, 1000, 1000, 1000);
    CHECK_EQ(shim_raise_pmi(cpu, &f), SHIM_DELIVERED);
    CHECK_EQ(records(cpu, rec, 1), 1);
    CHECK_EQ(rec[0].iip, frame_ip);
    ring_peek(sampler_ring(cpu), &data);
    CHECK_EQ(lbr_word(data, 0), 3); /* TOS: the third branch, in slot 3 */
    for (unsigned k = 0; k < 3; k++) {
        CHECK_EQ(lbr_word(data, 1 + 3 * (k + 1)), from + 16 * k);
        CHECK_EQ(lbr_word(data, 1 + 3 * (k + 1) + 1), to + 16 * k);
    }
    check_exact(cpu);
    sampler_stop();
    sampler_reset();
}

/* ---- When the LVT entry is unmasked, per model ---- */

/* late: 1 after the handler core, 0 before it, 2 in its middle (status clear, counting
 * still off: Linux's mid_ack). */
static void check_ack_order(const struct sim_model *model, int late)
{
    power_on(model);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    CHECK_EQ(sampler_pmu_caps()->pmi_ack_late, late == 1);
    CHECK_EQ(sampler_pmu_caps()->pmi_ack_mid, late == 2);
    config_one(1, 2, FIXED_CTRL_SAMPLE, FIXTURE_SAMPLE_AFTER);
    setup_and_start(RING_BYTES);
    for (uint32_t round = 0; round < 2; round++) {
        retire(0, 0, 0, FIXTURE_SAMPLE_AFTER);
        deliver(0, 0x406000 + round);
        CHECK_EQ(count_records(0), round + 1);
        CHECK_EQ(shim_lapic(0)->lvt_pc, LAPIC_LVT_NMI);
        if (late == 1) { /* after the handler core: status cleared, counting on again */
            CHECK_EQ(shim_lapic(0)->status_at_unmask, 0);
            CHECK_EQ(shim_lapic(0)->global_ctrl_at_unmask, FIXED2);
        } else if (late == 2) { /* in the middle: status cleared, counting still off */
            CHECK_EQ(shim_lapic(0)->status_at_unmask, 0);
            CHECK_EQ(shim_lapic(0)->global_ctrl_at_unmask, 0);
        } else { /* before it: the overflow still in GLOBAL_STATUS */
            CHECK_EQ(shim_lapic(0)->status_at_unmask & FIXED2, FIXED2);
        }
        CHECK_EQ(msr(0, MSR_IA32_PERF_GLOBAL_CTRL), FIXED2); /* v3: freeze undone */
    }
    sampler_stop();
    check_idle(0);
    sampler_reset();
}

static void test_ack_order(void)
{
    check_ack_order(&sim_nehalem, 0);
    check_ack_order(&sim_haswell, 1);
    check_ack_order(&sim_gracemont, 2);
    /* A model the table does not know: Linux's default, first thing (intel_pmu_init()'s
     * generic case sets neither late_ack nor mid_ack). */
    struct sim_model unknown = sim_skylake;
    unknown.signature = 0xf06f0; /* 06_FF */
    check_ack_order(&unknown, 0);
}

/* ---- Counter freeze off: a PMI lost in the late-unmask window ---- */

/* Skylake acknowledges late: between re-enabling counting and unmasking the LVT entry an
 * overflow raises a PMI the masked entry loses (SDM vol. 3A, "Local Vector Table": a
 * masked entry inhibits reception; the PMI is an edge, not held). With counters frozen on
 * PMI (SDM vol. 3B, "Freezing LBR and Performance Counters on PMI": from perfmon v4 the
 * CPU sets GLOBAL_STATUS.CTR_FRZ, which stops every counter until software clears it) the
 * counters would stay frozen for good, nothing left to overflow. acart never asks for it,
 * as Linux never does: the counters count on, and the next PMI of any counter takes the
 * lost overflow with it. */
static void test_lost_pmi_not_frozen(void)
{
    const struct trap_frame f = frame_at(0x405000);
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.num_events = 2;
    cfg.events[1].counter = 0;
    cfg.events[1].control = EVSEL_INST_RETIRED;
    cfg.events[1].sample_after = 5000;
    cfg.events[1].event_index = 1;
    setup_and_start(RING_BYTES);
    CHECK_EQ(msr(0, MSR_IA32_DEBUGCTL) & DEBUGCTL_FREEZE_PERFMON_ON_PMI, 0);

    /* The overflow's PMI; right after the handler re-enables counting, before the late
     * unmask, fixed counter 2 overflows again: its PMI finds the entry masked. */
    struct sim_events again = {.ref_cycles = 1000};
    shim_after_enable(0, &again, &f);
    retire(0, 0, 0, 1000);
    deliver(0, 0x405000);
    CHECK_EQ(shim_after_enable_result(0), SHIM_LVT_MASKED);
    CHECK_EQ(count_records(0), 1);
    CHECK(msr(0, MSR_IA32_PERF_GLOBAL_STATUS) & FIXED2); /* the lost overflow */
    CHECK_EQ(msr(0, MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_CTR_FROZEN, 0);
    CHECK_EQ(msr(0, MSR_IA32_PERF_GLOBAL_CTRL), FIXED2 | 1);
    /* Not frozen: both counters count on... */
    uint64_t pmc0_then = msr(0, MSR_IA32_PMC0), fixed2 = msr(0, MSR_IA32_FIXED_CTR0 + 2);
    retire(0, 100, 100, 100);
    CHECK_EQ(msr(0, MSR_IA32_PMC0), (pmc0_then + 100) & MASK48);
    CHECK_EQ(msr(0, MSR_IA32_FIXED_CTR0 + 2), fixed2 + 100);
    /* ... and the next PMI (PMC0's) takes the lost overflow too: sampling resumes. */
    retire(0, 5000, 0, 0);
    deliver(0, 0x405010);
    CHECK_EQ(count_records(0), 3);
    CHECK_EQ(msr(0, MSR_IA32_PERF_GLOBAL_STATUS), 0);
    CHECK_EQ(msr(0, MSR_IA32_FIXED_CTR0 + 2), (0 - 1000ull) & MASK48);
    retire(0, 0, 0, 1000);
    deliver(0, 0x405020);
    CHECK_EQ(count_records(0), 4);
    check_exact(0);
    sampler_stop();
    sampler_reset();
}

/* ---- A hybrid part: an E-core's counters ---- */

/* Alder Lake: CPU 0 a P-core (8 general counters), CPU 1 an E-core (6). The boot CPU's
 * caps say 8; an event on PMC6 must never be written on the E-core (a #GP there, which
 * would fail this test through the simulator's fault count): START refuses the plan with
 * a reason that names the core type, and leaves every CPU idle. PMC0-5 work everywhere. */
static void test_hybrid_e_core(void)
{
    power_on(&sim_alderlake_p);
    shim_sim(1)->reset(&sim_alderlake_e);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    CHECK(sampler_pmu_caps()->hybrid);
    CHECK_EQ(sampler_pmu_caps()->core_type, 0x40);
    CHECK_EQ(sampler_pmu_caps()->num_gp, 8);
    CHECK_EQ(sampler_pmu_caps()->pmi_ack_late, 1);
    CHECK_EQ(sampler_pmu_caps()->pmi_ack_mid, 1);

    config_one(0, 6, EVSEL_INST_RETIRED, 1000);
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    CHECK_EQ(sampler_start(), ACA_ERR_INVALID);
    uint32_t cpu = 99;
    const char *why = sampler_start_error(&cpu);
    CHECK(why != NULL && strstr(why, "core type") != NULL);
    CHECK_EQ(cpu, 1);
    CHECK_EQ(shim_sim(1)->faults(), 0);
    for (uint32_t c = 0; c < SESSION_CPUS; c++)
        CHECK_EQ(msr(c, MSR_IA32_PERF_GLOBAL_CTRL), 0);
    sampler_reset();

    config_one(0, 5, EVSEL_INST_RETIRED, 1000);
    setup_and_start(RING_BYTES);
    CHECK(sampler_start_error(&cpu) == NULL);
    for (uint32_t c = 0; c < SESSION_CPUS; c++)
        CHECK_EQ(msr(c, MSR_IA32_PERF_GLOBAL_CTRL), 1ull << 5);
    retire(1, 1000, 1000, 1000);
    deliver(1, 0x406100);
    CHECK_EQ(count_records(1), 1);
    /* Both acknowledgements, as Linux's handler on a hybrid part: mid, then late. */
    CHECK_EQ(shim_lapic(1)->unmasks, 2);
    sampler_stop();
    for (uint32_t c = 0; c < SESSION_CPUS; c++)
        CHECK_EQ(msr(c, MSR_IA32_PERF_GLOBAL_CTRL), 0);
    sampler_reset();
}

/* ---- Configurations refused ---- */

static void test_refusals(void)
{
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);

    config_one(1, 2, FIXED_CTRL_SAMPLE, 0);
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    /* Below SAMPLER_MIN_SAMPLE_AFTER: an interrupt storm, refused. */
    config_one(1, 2, FIXED_CTRL_SAMPLE, SAMPLER_MIN_SAMPLE_AFTER - 1);
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    CHECK_EQ(sampler_setup(SESSION_CPUS + 1, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    CHECK_EQ(sampler_setup(0, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    cfg.record_size = sizeof(struct sep_sample_pc) - 8;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    cfg.num_events = 0;
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_INVALID);
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == board_nmi);

    /* A plan this CPU cannot hold (Skylake has PMC0-3): start fails, nothing runs. */
    config_one(0, 5, EVSEL_INST_RETIRED, 1000);
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    CHECK_EQ(sampler_start(), ACA_ERR_INVALID);
    CHECK(!sampler_is_running());
    for (uint32_t cpu = 0; cpu < SESSION_CPUS; cpu++) {
        check_idle(cpu);
        CHECK(shim_lapic(cpu)->lvt_pc & LAPIC_LVT_MASKED);
    }
    sampler_reset();

    /* While running: no second setup or start. */
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);
    setup_and_start(RING_BYTES);
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_BUSY);
    CHECK_EQ(sampler_start(), ACA_ERR_BUSY);
    sampler_stop();
    sampler_reset();
}

/* ---- The NMI vector across sessions ---- */

static void test_nmi_across_sessions(void)
{
    power_on(&sim_skylake);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    config_one(1, 2, FIXED_CTRL_SAMPLE, 1000);

    /* Set up twice in one session: the NMI chain still ends at the board's handler. */
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    CHECK_EQ(sampler_start(), ACA_OK);
    struct trap_frame f = frame_at(0x407000);
    CHECK_EQ(shim_raise_nmi(0, &f), SHIM_DELIVERED);
    CHECK_EQ(shim_nmis_declined(), 1);
    sampler_reset();
    CHECK(shim_acart_nmi() == NULL);
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == board_nmi);

    /* The board changes its NMI handler between sessions; a session that ends without
     * sampler_setup (the agent resets at every session end) must leave it in place. */
    trap_set_handler(TRAP_VECTOR_NMI, watchdog_nmi);
    sampler_reset();
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == watchdog_nmi);

    /* And the next session chains to the new one. */
    CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    sampler_reset();
    CHECK(trap_get_handler(TRAP_VECTOR_NMI) == watchdog_nmi);
}

/* ---- No PMU: QEMU TCG ---- */

static void test_no_pmu(void)
{
    const struct sim_model *none[] = {&sim_qemu_tcg, &sim_perfmon_v1};

    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        power_on(none[i]);
        CHECK_EQ(sampler_probe_pmu(), PMU_ERR_NO_PMU);
        CHECK(sampler_pmu_caps() == NULL);
        config_one(1, 2, FIXED_CTRL_SAMPLE, FIXTURE_SAMPLE_AFTER);
        CHECK_EQ(sampler_setup(SESSION_CPUS, ring_memory, RING_BYTES, &cfg), ACA_ERR_NO_PMU);
        CHECK(trap_get_handler(TRAP_VECTOR_NMI) == board_nmi);
        CHECK_EQ(sampler_num_cpus(), 0);
        sampler_reset();
    }
}

static void run(const char *name, void (*test)(void))
{
    int before = check_failures;

    test();
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        const struct sim_instance *sim = shim_sim(cpu);

        if (sim->faults()) {
            fprintf(stderr, "%s: simulated #GP on CPU %u: %s (%u in all)\n", name, (unsigned)cpu,
                    sim->fault_text(), sim->faults());
            check_failures++;
            sim->clear_faults();
        }
    }
    if (sampler_is_running()) {
        fprintf(stderr, "%s: left the sampler running\n", name);
        check_failures++;
        sampler_reset();
    }
    printf("%s %s\n", check_failures == before ? "PASS" : "FAIL", name);
}

#define RUN(test) run(#test, test)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <fixtures-dir>\n", argv[0]);
        return 2;
    }
    fixtures_dir = argv[1];
    RUN(test_fixture_on_every_cpu);
    RUN(test_two_counters_one_pmi);
    RUN(test_lbr_records);
    RUN(test_stack_copy_records);
    RUN(test_pebs_lbr_records);
    RUN(test_lbr_call_stack_across_pmis);
    RUN(test_perfmon_events);
    RUN(test_load_latency);
    RUN(test_pause_resume);
    RUN(test_multiplexing);
    RUN(test_counting);
    RUN(test_ring_full);
    RUN(test_vector_delivery);
    RUN(test_irq_attribution);
    RUN(test_pebs_ip);
    RUN(test_mode_addresses);
    RUN(test_exact_accounting);
    RUN(test_ack_order);
    RUN(test_lost_pmi_not_frozen);
    RUN(test_hybrid_e_core);
    RUN(test_refusals);
    RUN(test_nmi_across_sessions);
    RUN(test_no_pmu);
    printf("%s\n", check_failures ? "FAILED" : "all sampler PMU tests passed");
    return check_failures ? 1 : 0;
}
