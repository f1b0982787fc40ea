/* Tests of arch/x86's PMU layer (pmu.c, pmu_models.c, pmi.c, pebs.c, lbr.c) on the
 * simulated CPU of sim_cpu.c. Usage: test_pmu <fixtures-dir> (for perfmon's mapfile.csv and
 * the fixture ECB). Every simulator fault (a #GP on hardware) fails the test it occurs in. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msr.h"
#include "pmi.h"
#include "acart_check.h"
#include "pmu.h"
#include "pmu_raw.h"
#include "sim_cpu.h"

static const char *fixtures_dir;

#define MASK48 0xffffffffffffull

/* ---- Fixture: one CPU, its caps and state, and what the handler reported. ---- */

static struct pmu_caps caps;
static struct pmu_cpu_state cpu;
static uint8_t ds_memory[PEBS_DS_BYTES_PER_CPU] __attribute__((aligned(PEBS_DS_ALIGN)));

#define MAX_SEEN 16
struct seen_overflow {
    uint8_t counter;
    uint32_t tag;
    uint64_t status;
    int has_pebs;
    struct pebs_sample pebs;
    uint32_t lbr_count;
    struct lbr_entry lbr[LBR_MAX_ENTRIES];
    uint64_t pebs_lbr_from[4]; /* the record's LBR group, first entries' FROM */
};
struct seen_list {
    unsigned n;
    struct seen_overflow ov[MAX_SEEN];
};
static struct seen_list seen;

static void collect(void *ctx, const struct pmu_overflow *ov)
{
    struct seen_list *list = ctx;
    struct seen_overflow *s;

    if (list->n >= MAX_SEEN) {
        list->n++;
        return;
    }
    s = &list->ov[list->n++];
    s->counter = ov->counter;
    s->tag = ov->tag;
    s->status = ov->status;
    s->has_pebs = ov->pebs != NULL;
    if (ov->pebs) {
        s->pebs = *ov->pebs;
        for (unsigned k = 0; k < 4 && k < ov->pebs->lbr_count; k++)
            memcpy(&s->pebs_lbr_from[k], ov->pebs->lbr + k * PEBS_LBR_ENTRY_BYTES, 8);
    }
    s->lbr_count = ov->lbr_count;
    CHECK(ov->lbr_count <= LBR_MAX_ENTRIES);
    CHECK((ov->lbr != NULL) == (cpu.lbr_on != 0));
    if (ov->lbr)
        memcpy(s->lbr, ov->lbr, ov->lbr_count * sizeof(*ov->lbr));
}

/* The PMI, as the board's handler runs it (minus the LAPIC). */
static unsigned take_pmi(void)
{
    memset(&seen, 0, sizeof(seen));
    CHECK(sim_take_pmi());
    return pmu_handle_overflow(&cpu, collect, &seen);
}

static void power_on(const struct sim_model *m)
{
    sim_reset(m);
    CHECK_EQ(pmu_probe(&caps), PMU_OK);
    pmu_cpu_init(&cpu, &caps);
}

static void retire(uint64_t instructions, uint64_t cycles, uint64_t ref_cycles, uint64_t branches)
{
    struct sim_events ev = {.instructions = instructions,
                            .cycles = cycles,
                            .ref_cycles = ref_cycles,
                            .branches = branches};

    sim_retire(&ev);
}

static struct pmu_counter_plan gp(unsigned index, uint64_t control, uint64_t sample_after,
                                  uint32_t tag)
{
    return (struct pmu_counter_plan){PMU_COUNTER_GP, (uint8_t)index, 0, tag, control, sample_after};
}

static struct pmu_counter_plan fixed(unsigned index, uint64_t control, uint64_t sample_after,
                                     uint32_t tag)
{
    return (struct pmu_counter_plan){PMU_COUNTER_FIXED, (uint8_t)index, 0, tag,
                                     control,           sample_after};
}

static struct pmu_counter_plan pebs(struct pmu_counter_plan c)
{
    c.flags |= PMU_COUNTER_PEBS;
    return c;
}

#define EV_CYCLES       0x3c
#define EV_INSTRUCTIONS 0xc0
#define EV_BRANCHES     0xc4 /* BR_INST_RETIRED.ALL_BRANCHES */
#define RINGS           (EVTSEL_OS | EVTSEL_USR)
#define FIXED_RINGS     (FIXED_CTRL_OS | FIXED_CTRL_USR)

static const volatile struct pebs_ds_area *ds(void)
{
    return (const volatile struct pebs_ds_area *)ds_memory;
}

/* ---- Probe ---- */

struct probe_expect {
    const struct sim_model *model;
    const char *uarch;
    uint32_t model_number;
    uint8_t version, num_gp, num_fixed, full_width, streamlined_freeze, ack_late;
    uint8_t pebs_format, pebs_adaptive;
    uint64_t pebs_counters;
    uint8_t lbr_depth, lbr_format, lbr_arch, lbr_info;
    uint32_t lbr_from;
};

static const struct probe_expect probe_table[] = {
    {&sim_skylake, "skylake", 0x5e, 4, 4, 3, 1, 1, 1, 3, 0, 0xf, 32, 5, 0, 1, 0x680},
    {&sim_skylake_no_fw, "skylake", 0x5e, 4, 4, 3, 0, 1, 1, 3, 0, 0xf, 32, 5, 0, 1, 0x680},
    {&sim_skylake_no_pebs, "skylake", 0x5e, 4, 4, 3, 1, 1, 1, 0, 0, 0, 32, 5, 0, 1, 0x680},
    {&sim_haswell, "haswell", 0x3c, 3, 4, 3, 1, 0, 1, 2, 0, 0xf, 16, 4, 0, 0, 0x680},
    {&sim_nehalem, "nehalem", 0x1a, 3, 4, 3, 0, 0, 0, 1, 0, 0xf, 16, 3, 0, 0, 0x680},
    {&sim_goldmont, "goldmont", 0x5c, 4, 4, 3, 1, 1, 0, 3, 0, 0xf, 32, 5, 0, 1, 0x680},
    {&sim_goldmont_plus, "goldmont_plus", 0x7a, 4, 4, 3, 1, 1, 0, 3, 0, 0xf, 32, 6, 0, 0, 0x680},
    {&sim_tremont, "tremont", 0x96, 5, 4, 3, 1, 1, 1, 4, 1, 0x70000000full, 32, 5, 0, 1, 0x680},
    {&sim_tigerlake, "tigerlake", 0x8c, 5, 8, 4, 1, 1, 1, 4, 1, 0xf000000ffull, 32, 5, 0, 1, 0x680},
    {&sim_sapphire_rapids, "sapphirerapids", 0x8f, 5, 8, 4, 1, 1, 1, 4, 1, 0xf000000ffull, 32, 0x3f,
     1, 1, 0x1500},
};

static void test_probe_models(void)
{
    for (size_t i = 0; i < sizeof(probe_table) / sizeof(probe_table[0]); i++) {
        const struct probe_expect *e = &probe_table[i];

        sim_reset(e->model);
        CHECK_EQ(pmu_probe(&caps), PMU_OK);
        if (strcmp(caps.uarch, e->uarch) != 0) {
            fprintf(stderr, "%s: uarch %s, expected %s\n", e->model->name, caps.uarch, e->uarch);
            check_failures++;
        }
        CHECK_EQ(caps.family, 6);
        CHECK_EQ(caps.model, e->model_number);
        CHECK_EQ(caps.version, e->version);
        CHECK_EQ(caps.num_gp, e->num_gp);
        CHECK_EQ(caps.gp_width, 48);
        CHECK_EQ(caps.num_fixed, e->num_fixed);
        CHECK_EQ(caps.fixed_width, 48);
        CHECK_EQ(caps.counters, ((1ull << e->num_gp) - 1) | ((1ull << e->num_fixed) - 1) << 32);
        CHECK_EQ(caps.full_width_write, e->full_width);
        CHECK_EQ(caps.max_period_gp, e->full_width ? MASK48 >> 1 : 0x7fffffff);
        CHECK_EQ(caps.streamlined_freeze, e->streamlined_freeze);
        CHECK_EQ(caps.pmi_ack_late, e->ack_late);
        CHECK_EQ(caps.pebs.usable, e->pebs_counters != 0);
        if (e->pebs_counters)
            CHECK_EQ(caps.pebs.format, e->pebs_format);
        CHECK_EQ(caps.pebs.adaptive, e->pebs_adaptive);
        CHECK_EQ(caps.pebs.counters, e->pebs_counters);
        CHECK_EQ(caps.lbr.depth, e->lbr_depth);
        CHECK_EQ(caps.lbr.format, e->lbr_format);
        CHECK_EQ(caps.lbr.arch, e->lbr_arch);
        CHECK_EQ(caps.lbr.has_info, e->lbr_info);
        CHECK_EQ(caps.lbr.from_msr, e->lbr_from);
        CHECK_EQ((caps.status_ack_mask >> 58) & 3, e->streamlined_freeze ? 3 : 0);
        if (sim_faults())
            fprintf(stderr, "probe of %s faulted: %s\n", e->model->name, sim_fault_text());
        sim_clear_faults();
        CHECK_EQ(sim_faults(), 0);
    }
    /* AnyThread: v3/v4 have it, v5 parts here deprecate it; TSX qualifiers with RTM. */
    sim_reset(&sim_skylake);
    pmu_probe(&caps);
    CHECK(caps.evtsel_valid & EVTSEL_ANY);
    CHECK(caps.evtsel_valid & (1ull << 32));
    sim_reset(&sim_tigerlake);
    pmu_probe(&caps);
    CHECK(!(caps.evtsel_valid & EVTSEL_ANY));
    CHECK(caps.evtsel_valid & EVTSEL_ADAPTIVE);
    CHECK(caps.status_ack_mask & GLOBAL_STATUS_PERF_METRICS);
}

static void test_probe_no_pmu(void)
{
    const struct sim_model *none[] = {&sim_qemu_tcg, &sim_perfmon_v1, &sim_amd};

    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        sim_reset(none[i]);
        CHECK_EQ(pmu_probe(&caps), PMU_ERR_NO_PMU);
        CHECK_EQ(sim_faults(), 0); /* no MSR read on a CPU that has none of them */
    }
    CHECK(strstr(pmu_strerror(PMU_ERR_NO_PMU), "performance-monitoring") != NULL);
    for (int e = PMU_OK; e >= PMU_ERR_CORE_TYPE; e--)
        CHECK(strcmp(pmu_strerror(e), "unknown PMU error") != 0);
    CHECK_EQ(pmu_probe(NULL), PMU_ERR_INVALID);

    /* An unknown model still gets its enumerated counters, but no table facts. */
    struct sim_model unknown = sim_skylake;
    unknown.signature = 0xf06f0; /* 06_FF */
    sim_reset(&unknown);
    CHECK_EQ(pmu_probe(&caps), PMU_OK);
    CHECK(strcmp(caps.uarch, "unknown") == 0);
    CHECK_EQ(caps.num_gp, 4);
    CHECK_EQ(caps.lbr.depth, 0);
    CHECK_EQ(caps.pebs.usable, 0);
    /* Linux's default for a model it does not know: unmask first thing. */
    CHECK_EQ(caps.pmi_ack_late, 0);
    CHECK_EQ(caps.pmi_ack_mid, 0);
}

/* Perfmon v2 without fixed counters in CPUID: assumed present, except under a hypervisor. */
static void test_core2_fixed_quirk(void)
{
    struct pmu_plan plan = {.num_counters = 2, .freeze_on_pmi = 1};

    power_on(&sim_core2);
    CHECK_EQ(caps.version, 2);
    CHECK_EQ(caps.num_gp, 2);
    CHECK_EQ(caps.num_fixed, 3);
    CHECK_EQ(caps.fixed_width, 40);
    CHECK_EQ(caps.status_ack_mask, 0xc000000700000003ull); /* no uncore/freeze bits on v2 */
    /* No PDCM: LBR format 0 from the model table (4 entries at 0x40), no PEBS. */
    CHECK_EQ(caps.lbr.depth, 4);
    CHECK_EQ(caps.lbr.format, LBR_FORMAT_32);
    CHECK_EQ(caps.lbr.to_msr, 0);
    CHECK_EQ(caps.pebs.usable, 0);
    plan.counters[0] = fixed(1, FIXED_RINGS, 100000, 1);
    plan.counters[1] = gp(1, EV_BRANCHES | RINGS, 300, 2);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), 0x1800); /* LBRs frozen too, though not recording */
    pmu_start_cpu(&cpu);
    retire(0, 100000, 0, 300);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0); /* v2 freeze */
    CHECK_EQ(take_pmi(), 2);
    CHECK_EQ(seen.ov[0].counter, 1);
    CHECK_EQ(seen.ov[1].counter, PMU_FIXED_ID(1));
    CHECK_EQ(pmu_read_counter(&cpu, PMU_FIXED_ID(1)), (1ull << 40) - 100000);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0x200000002ull);

    struct sim_model guest = sim_core2;
    guest.leaf1_ecx |= 1u << 31; /* a hypervisor's report is taken as it is */
    sim_reset(&guest);
    CHECK_EQ(pmu_probe(&caps), PMU_OK);
    CHECK_EQ(caps.num_fixed, 0);
}

/* Every model of the six perfmon families acart carries maps to its table row. */
static void test_models_match_perfmon_mapfile(void)
{
    static const struct {
        const char *dir, *uarch;
    } families[] = {{"/SKL/", "skylake"},  {"/TGL/", "tigerlake"},     {"/SPR/", "sapphirerapids"},
                    {"/GLM/", "goldmont"}, {"/GLP/", "goldmont_plus"}, {"/EHL/", "tremont"}};
    char path[1024], line[512];
    unsigned checked = 0;
    FILE *f;

    snprintf(path, sizeof(path), "%s/perfmon/mapfile.csv", fixtures_dir);
    f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        unsigned family, model;
        const struct pmu_model *row;

        if (sscanf(line, "GenuineIntel-%u-%x", &family, &model) != 2)
            continue;
        for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
            if (!strstr(line, families[i].dir))
                continue;
            row = pmu_model_lookup(family, model);
            if (!row || strcmp(row->uarch, families[i].uarch) != 0) {
                fprintf(stderr, "mapfile model %u-%02X: table says %s, expected %s\n", family,
                        model, row ? row->uarch : "nothing", families[i].uarch);
                check_failures++;
            }
            checked++;
        }
    }
    fclose(f);
    CHECK(checked >= 13); /* SKL 6 models, TGL 2, SPR 1, GLM 2, GLP 1, EHL 2 */
}

/* ---- The fixture ECB: CPU_CLK_UNHALTED.REF_TSC on fixed counter 2, every 2.2 M ---- */

#define FIXTURE_SAMPLE_AFTER 2200000u

static void check_fixture_sampling(uint32_t tag)
{
    const uint64_t preload = (0 - (uint64_t)FIXTURE_SAMPLE_AFTER) & MASK48;

    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR0 + 2), 0xffffffde6e40ull);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR0 + 2), preload);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0x400000000ull);

    for (int round = 0; round < 3; round++) {
        retire(0, 0, FIXTURE_SAMPLE_AFTER - 1, 0);
        CHECK(!sim_take_pmi());
        CHECK_EQ(pmu_read_counter(&cpu, PMU_FIXED_ID(2)), MASK48);
        retire(1000, 1000, 1, 0); /* the 2,200,000th reference cycle */
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS) & (1ull << 34), 1ull << 34);
        /* Frozen on PMI (v4: Ctr_Frz, LBR_Frz): nothing counts until the handler. */
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS) >> 58 & 3, 3);
        retire(0, 0, 5000, 0);
        CHECK_EQ(pmu_read_counter(&cpu, PMU_FIXED_ID(2)), 0);

        CHECK_EQ(take_pmi(), 1);
        CHECK_EQ(seen.n, 1);
        CHECK_EQ(seen.ov[0].counter, PMU_FIXED_ID(2));
        CHECK_EQ(seen.ov[0].tag, tag);
        CHECK(!seen.ov[0].has_pebs);
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
        CHECK_EQ(pmu_read_counter(&cpu, PMU_FIXED_ID(2)), preload); /* re-armed */
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0x400000000ull);
    }
    CHECK_EQ(sim_pmi_count(), 3);
}

static void test_fixture_plan(void)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1};

    power_on(&sim_skylake);
    plan.counters[0] = fixed(2, FIXED_RINGS, FIXTURE_SAMPLE_AFTER, 7);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    /* The same register values the host's ECB carries. */
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR_CTRL), 0xb00);
    CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), 0x1800);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0); /* not before start */
    check_fixture_sampling(7);
}

/* The raw path with the register writes of the real fixture file. */
static void test_fixture_raw(void)
{
    struct pmu_msr_write writes[32];
    uint8_t ecb[8192];
    uint32_t n = 0;
    char path[1024];
    size_t len;
    FILE *f;

    snprintf(path, sizeof(path), "%s/aca/bin_ecb.config_6_0_CPU_CLK_UNHALTED.REF_TSC",
             fixtures_dir);
    f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    len = fread(ecb, 1, sizeof(ecb), f);
    fclose(f);
    /* 1864-byte header, then 136-byte entries: reg_type at 0, event index at 2, MSR at 8,
     * value at 48. Type 0 entries are empty slots. */
    for (size_t off = 1864; off + 136 <= len && n < 32; off += 136) {
        uint16_t event_index;

        if (ecb[off] == 0)
            continue;
        memcpy(&event_index, ecb + off + 2, 2);
        memcpy(&writes[n].msr, ecb + off + 8, 4);
        memcpy(&writes[n].value, ecb + off + 48, 8);
        writes[n].tag = event_index;
        n++;
    }
    CHECK_EQ(n, 6);

    power_on(&sim_skylake);
    CHECK_EQ(pmu_program_raw(&cpu, writes, n), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR_CTRL), 0xb00);
    CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), 0x1800);
    check_fixture_sampling(0);

    /* An explicit GLOBAL_CTRL in the list waits for pmu_start_cpu(). */
    struct pmu_msr_write with_ctrl[] = {{MSR_IA32_FIXED_CTR_CTRL, 0, 0x0b0},
                                        {MSR_IA32_FIXED_CTR0 + 1, 5, (0 - 300ull) & MASK48},
                                        {MSR_IA32_PERF_GLOBAL_CTRL, 0, 1ull << 33}};
    CHECK_EQ(pmu_program_raw(&cpu, with_ctrl, 3), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR_CTRL), 0x0b0);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 1ull << 33);
    retire(0, 300, 0, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].counter, PMU_FIXED_ID(1));
    CHECK_EQ(seen.ov[0].tag, 5);
    CHECK_EQ(pmu_read_counter(&cpu, PMU_FIXED_ID(1)), (0 - 300ull) & MASK48);

    /* A read-only MSR in the list: refused before anything is written. */
    struct pmu_msr_write bad[] = {{MSR_IA32_FIXED_CTR_CTRL, 0, 0},
                                  {MSR_IA32_PERF_GLOBAL_STATUS, 0, 0}};
    unsigned before = sim_accesses();
    CHECK_EQ(pmu_program_raw(&cpu, bad, 2), PMU_ERR_READ_ONLY);
    CHECK_EQ(sim_accesses(), before);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR_CTRL), 0x0b0);
    /* The DS area is not the raw path's business. */
    struct pmu_msr_write ds_write = {MSR_IA32_DS_AREA, 0, 0x1000};
    CHECK_EQ(pmu_program_raw(&cpu, &ds_write, 1), PMU_ERR_INVALID);
    CHECK_EQ(sim_accesses(), before);
}

/* ---- General-purpose counters ---- */

static void test_gp_event_select(void)
{
    struct pmu_plan plan = {.num_counters = 2};

    power_on(&sim_skylake);
    plan.counters[0] = gp(0, EV_BRANCHES | RINGS, 1000, 3);
    plan.counters[1] = gp(1, EV_INSTRUCTIONS | EVTSEL_USR, 0, 4); /* counts user code only */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_PERFEVTSEL0), 0x5300c4);     /* EN | INT | OS | USR | 0xC4 */
    CHECK_EQ(sim_msr(MSR_IA32_PERFEVTSEL0 + 1), 0x4100c0); /* EN | USR, no INT */
    CHECK_EQ(sim_msr(MSR_IA32_A_PMC0), (0 - 1000ull) & MASK48);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0x3);

    sim_set_ring(0);
    retire(500, 800, 800, 999);
    CHECK(!sim_take_pmi());
    CHECK_EQ(pmu_read_counter(&cpu, 1), 0);
    sim_set_ring(3);
    retire(700, 900, 900, 1);
    CHECK_EQ(pmu_read_counter(&cpu, 1), 700);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 1);
    CHECK_EQ(seen.ov[0].counter, 0);
    CHECK_EQ(seen.ov[0].tag, 3);
    CHECK_EQ(seen.ov[0].status & 0xf, 1);
    CHECK_EQ(pmu_read_counter(&cpu, 0), (0 - 1000ull) & MASK48);
    CHECK_EQ(pmu_read_counter(&cpu, 1), 700);
    retire(0, 0, 0, 1000);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].tag, 3);
}

static void test_multiple_overflows(void)
{
    struct pmu_plan plan = {.num_counters = 5, .freeze_on_pmi = 1};
    static const uint8_t order[] = {0, 3, 32, 33};
    static const uint32_t tags[] = {12, 13, 10, 11};
    static const uint64_t periods[] = {40, 250, 100, 250};

    power_on(&sim_skylake);
    plan.counters[0] = fixed(0, FIXED_RINGS, 100, 10);
    plan.counters[1] = fixed(1, FIXED_RINGS, 250, 11);
    plan.counters[2] = gp(0, EV_BRANCHES | RINGS, 40, 12);
    plan.counters[3] = gp(3, EV_CYCLES | RINGS, 250, 13);
    plan.counters[4] = gp(2, EV_INSTRUCTIONS | RINGS, 0, 14); /* counting only */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);

    for (int round = 0; round < 2; round++) {
        retire(99, 249, 249, 39);
        CHECK(!sim_take_pmi());
        retire(1, 1, 1, 1); /* all four sampling counters overflow together */
        CHECK_EQ(sim_pmi_count(), (unsigned)round + 1);
        CHECK_EQ(take_pmi(), 4);
        CHECK_EQ(seen.n, 4);
        for (unsigned k = 0; k < 4 && k < seen.n; k++) {
            CHECK_EQ(seen.ov[k].counter, order[k]);
            CHECK_EQ(seen.ov[k].tag, tags[k]);
            CHECK_EQ(pmu_read_counter(&cpu, order[k]), (0 - periods[k]) & MASK48);
        }
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
    }
    CHECK_EQ(pmu_read_counter(&cpu, 2), 200);

    /* A counting-only counter that wraps: the PMU's overflow, but nothing to report. */
    plan.num_counters = 2;
    plan.counters[0] = gp(2, EV_INSTRUCTIONS | RINGS, 0, 14);
    plan.counters[1] = fixed(2, FIXED_RINGS, 1000, 15);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(MASK48 + 1, 0, 0, 0);
    CHECK(!sim_take_pmi()); /* no INT on it */
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS) & 0x4, 0x4);
    memset(&seen, 0, sizeof(seen));
    CHECK_EQ(pmu_handle_overflow(&cpu, collect, &seen), 1);
    CHECK_EQ(seen.n, 0);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
}

/* Checkpointed counting (IN_TXCP, IA32_PERFEVTSELx bit 33, with RTM): a sampling counter
 * would loop (overflow, abort, rollback, overflow), so it is refused with its own error;
 * counting it is allowed. */
static void test_txcp_sampling_refused(void)
{
    struct pmu_plan plan = {.num_counters = 1};
    const uint64_t in_txcp = 1ull << 33;

    power_on(&sim_skylake);
    plan.counters[0] = gp(0, EV_CYCLES | RINGS | EVTSEL_INT | in_txcp, 100000, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_TXCP_SAMPLING);
    CHECK(strstr(pmu_strerror(PMU_ERR_TXCP_SAMPLING), "IN_TXCP") != NULL);
    plan.counters[0] = gp(0, EV_CYCLES | RINGS | in_txcp, 0, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
}

/* Skylake-family clients with the 2019 TSX microcode (CPUID.(7,0):EDX[13]): PMC3 counts
 * right only while TSX_FORCE_ABORT makes transactions abort; the simulated CPU clobbers
 * PMC3 otherwise. Set while PMC3 counts, clear when it does not and after a stop. */
static void test_tsx_force_abort(void)
{
    struct sim_model tfa = sim_skylake;
    struct pmu_plan plan = {.num_counters = 4};

    tfa.name = "skylake-tsx-force-abort";
    tfa.leaf7_edx |= CPUID7_EDX_TSX_FORCE_ABORT;
    power_on(&tfa);
    CHECK(caps.tsx_force_abort);
    for (unsigned i = 0; i < 4; i++)
        plan.counters[i] = gp(i, EV_INSTRUCTIONS | RINGS, 0, i + 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_TSX_FORCE_ABORT), TSX_FORCE_ABORT_RTM);
    retire(1000, 0, 0, 0);
    CHECK_EQ(pmu_read_counter(&cpu, 3), 1000);
    CHECK_EQ(sim_pmc3_clobbered(), 0);
    pmu_stop_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_TSX_FORCE_ABORT), 0);

    plan.num_counters = 3; /* without PMC3, transactions run */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_TSX_FORCE_ABORT), 0);
    retire(1000, 0, 0, 0);
    CHECK_EQ(pmu_read_counter(&cpu, 2), 1000);
    pmu_stop_cpu(&cpu);

    power_on(&sim_skylake); /* without the microcode's bit, MSR 0x10F is never touched */
    CHECK(!caps.tsx_force_abort);
}

/* Broadwell samples INST_RETIRED.ALL right only every 128 or more events with the low 6
 * bits clear (errata BDM11, BDM57; Linux's bdw_limit_period()): other periods are refused
 * with their reason (the simulated Broadwell faults on them), counting and other events are
 * not limited. */
static void test_broadwell_inst_retired_all(void)
{
    struct pmu_plan plan = {.num_counters = 1};
    const uint64_t inst_retired_all = 0x01c0;

    power_on(&sim_broadwell);
    CHECK(caps.inst_retired_all_limits);
    plan.counters[0] = gp(0, inst_retired_all | RINGS | EVTSEL_INT, 2000003, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_PERIOD_ERRATUM);
    CHECK(strstr(pmu_strerror(PMU_ERR_PERIOD_ERRATUM), "BDM57") != NULL);
    plan.counters[0].sample_after = 64;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_PERIOD_ERRATUM);
    plan.counters[0].sample_after = 2000000 - 2000000 % 64;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu); /* the simulated Broadwell faults on a period the errata break */
    CHECK_EQ(sim_faults(), 0);
    pmu_stop_cpu(&cpu);
    plan.counters[0] = gp(0, inst_retired_all | RINGS, 0, 1); /* counting */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    plan.counters[0] = gp(0, EV_INSTRUCTIONS | RINGS | EVTSEL_INT, 2000003, 1); /* umask 0 */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);

    power_on(&sim_haswell); /* Haswell has no such erratum */
    CHECK(!caps.inst_retired_all_limits);
}

static void test_periods(void)
{
    struct pmu_plan plan = {.num_counters = 1};
    const uint64_t big = 3000000000ull;

    /* Without full-width writes, IA32_PMCx takes 32 bits sign-extended. */
    power_on(&sim_skylake_no_fw);
    plan.counters[0] = gp(0, EV_INSTRUCTIONS | RINGS, 0x80000000ull, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_PERIOD);
    plan.counters[0].sample_after = 0x7fffffff;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_PMC0), (0 - 0x7fffffffull) & MASK48);
    pmu_start_cpu(&cpu);
    retire(0x7fffffff, 0, 0, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(sim_msr(MSR_IA32_PMC0), (0 - 0x7fffffffull) & MASK48);

    /* With them, any period up to half the width, through IA32_A_PMCx. */
    power_on(&sim_skylake);
    plan.counters[0].sample_after = big;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_PMC0), (0 - big) & MASK48);
    pmu_start_cpu(&cpu);
    retire(big - 1, 0, 0, 0);
    CHECK(!sim_take_pmi());
    retire(1, 0, 0, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(sim_msr(MSR_IA32_PMC0), (0 - big) & MASK48);
    plan.counters[0].sample_after = MASK48 >> 1;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    plan.counters[0].sample_after = (MASK48 >> 1) + 1;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_PERIOD);
    plan.counters[0] = fixed(1, FIXED_RINGS, (MASK48 >> 1) + 1, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_PERIOD);
}

static void expect_refused(const struct pmu_plan *plan, int err, int line)
{
    unsigned before = sim_accesses();
    int got = pmu_program_cpu(&cpu, plan);

    if (got != err || sim_accesses() != before) {
        fprintf(stderr, "%s:%d: plan gave %d (%s) after %u MSR accesses, expected %d\n", __FILE__,
                line, got, pmu_strerror(got), sim_accesses() - before, err);
        check_failures++;
    }
}

static void test_plan_validation(void)
{
    struct pmu_plan plan = {.num_counters = 1};

    power_on(&sim_skylake);
    plan.counters[0] = gp(4, EV_BRANCHES | RINGS, 100, 0); /* 4 GP counters: 0..3 */
    expect_refused(&plan, PMU_ERR_NO_COUNTER, __LINE__);
    plan.counters[0] = fixed(3, FIXED_RINGS, 100, 0); /* 3 fixed: 0..2 */
    expect_refused(&plan, PMU_ERR_NO_COUNTER, __LINE__);
    plan.counters[0] = gp(0, EV_BRANCHES | RINGS | (1ull << 35), 100, 0);
    expect_refused(&plan, PMU_ERR_RESERVED, __LINE__);
    plan.counters[0] = fixed(0, 0x10 | FIXED_RINGS, 100, 0);
    expect_refused(&plan, PMU_ERR_RESERVED, __LINE__);
    plan.counters[0] = gp(0, EV_BRANCHES, 100, 0); /* neither OS nor USR */
    expect_refused(&plan, PMU_ERR_INVALID, __LINE__);
    plan.counters[0] = gp(0, EV_BRANCHES | RINGS, 100, 0);
    plan.counters[0].kind = 7;
    expect_refused(&plan, PMU_ERR_INVALID, __LINE__);
    plan.num_counters = 2;
    plan.counters[0] = gp(1, EV_BRANCHES | RINGS, 100, 0);
    plan.counters[1] = gp(1, EV_CYCLES | RINGS, 100, 0);
    expect_refused(&plan, PMU_ERR_INVALID, __LINE__);
    plan.num_counters = PMU_MAX_COUNTERS + 1;
    expect_refused(&plan, PMU_ERR_INVALID, __LINE__);
    plan.num_counters = 1;
    plan.counters[0] = pebs(gp(0, EV_BRANCHES | RINGS, 100, 0)); /* no DS area yet */
    expect_refused(&plan, PMU_ERR_NO_PEBS, __LINE__);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(fixed(0, FIXED_RINGS, 100, 0)); /* legacy PEBS: GP only */
    expect_refused(&plan, PMU_ERR_NO_PEBS, __LINE__);
    plan.counters[0] = pebs(gp(0, EV_BRANCHES | RINGS, 0, 0)); /* PEBS only samples */
    expect_refused(&plan, PMU_ERR_INVALID, __LINE__);
    plan.counters[0] = gp(0, EV_BRANCHES | RINGS, 100, 0);
    plan.pebs_data_cfg = PEBS_DATA_CFG_MEMORY; /* not adaptive */
    expect_refused(&plan, PMU_ERR_NO_PEBS, __LINE__);
    plan.pebs_data_cfg = 0;
    plan.lbr = 1;
    plan.lbr_select = 1ull << 12;
    expect_refused(&plan, PMU_ERR_RESERVED, __LINE__);
    CHECK_EQ(pmu_program_cpu(&cpu, NULL), PMU_ERR_INVALID);

    power_on(&sim_tigerlake); /* AnyThread deprecated */
    plan = (struct pmu_plan){.num_counters = 1};
    plan.counters[0] = gp(0, EV_BRANCHES | RINGS | EVTSEL_ANY, 100, 0);
    expect_refused(&plan, PMU_ERR_RESERVED, __LINE__);
    plan.counters[0] = fixed(0, FIXED_RINGS | FIXED_CTRL_ANY, 100, 0);
    expect_refused(&plan, PMU_ERR_RESERVED, __LINE__);
    plan.counters[0] = gp(7, EV_BRANCHES | RINGS, 100, 0); /* 8 GP here */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);

    struct sim_model unknown = sim_skylake;
    unknown.signature = 0xf06f0; /* no table row: no model-specific LBR */
    power_on(&unknown);
    plan = (struct pmu_plan){.num_counters = 1, .lbr = 1};
    plan.counters[0] = fixed(2, FIXED_RINGS, 100, 0);
    expect_refused(&plan, PMU_ERR_NO_LBR, __LINE__);

    /* No PMU at all: nothing to program, nothing claimed, no MSR touched. */
    sim_reset(&sim_qemu_tcg);
    CHECK_EQ(pmu_probe(&caps), PMU_ERR_NO_PMU);
    pmu_cpu_init(&cpu, NULL);
    unsigned before = sim_accesses();
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_NO_PMU);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_ERR_NO_PEBS);
    pmu_start_cpu(&cpu);
    pmu_stop_cpu(&cpu);
    CHECK_EQ(pmu_handle_overflow(&cpu, collect, &seen), 0);
    CHECK_EQ(sim_accesses(), before);
}

/* ---- PEBS ---- */

static void test_pebs_skylake(void)
{
    struct pmu_plan plan = {.num_counters = 2, .freeze_on_pmi = 1};
    const uint64_t base = (uintptr_t)ds_memory + PEBS_DS_HEADER_BYTES;

    power_on(&sim_skylake);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, 100), PMU_ERR_TOO_SMALL);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory + 8, 4000), PMU_ERR_TOO_SMALL);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_DS_AREA), (uintptr_t)ds_memory);
    plan.counters[0] = pebs(gp(0, EV_BRANCHES | RINGS, 1000, 9));
    plan.counters[1] = fixed(1, FIXED_RINGS, 1000000, 2);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_PERFEVTSEL0) & EVTSEL_INT, 0); /* the DS threshold interrupts */
    CHECK_EQ(ds()->pebs_base, base);
    CHECK_EQ(ds()->pebs_index, base);
    CHECK_EQ(ds()->pebs_threshold, base + 0xc8); /* one format-3 record */
    CHECK_EQ(ds()->pebs_max, base + (sizeof(ds_memory) - PEBS_DS_HEADER_BYTES) / 0xc8 * 0xc8);
    CHECK_EQ(ds()->reset[0], (0 - 1000ull) & MASK48);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 0);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 1);

    static const uint64_t ips[] = {0x401234, 0x402000, 0x4ffff0};
    for (int round = 0; round < 3; round++) {
        sim_set_ip(ips[round]);
        sim_set_data_address(0x5000 + 8 * round);
        retire(2000, 2000, 2000, 999);
        CHECK(!sim_take_pmi());
        retire(1, 1, 1, 1);
        CHECK_EQ(sim_pebs_records(), (unsigned)round + 1);
        CHECK_EQ(take_pmi(), 1);
        CHECK_EQ(seen.n, 1);
        CHECK_EQ(seen.ov[0].counter, 0);
        CHECK_EQ(seen.ov[0].tag, 9);
        CHECK(seen.ov[0].has_pebs);
        CHECK_EQ(seen.ov[0].pebs.ip, ips[round]); /* the eventing IP, not the next one */
        CHECK_EQ(seen.ov[0].pebs.have, PEBS_IP_EXACT | PEBS_HAVE_RFLAGS | PEBS_HAVE_TSC |
                                           PEBS_HAVE_COUNTERS | PEBS_HAVE_MEMORY);
        CHECK_EQ(seen.ov[0].pebs.tsc, sim_tsc());
        CHECK_EQ(seen.ov[0].pebs.rflags, 0x246);
        CHECK_EQ(seen.ov[0].pebs.data_address, 0x5000 + 8 * round);
        CHECK_EQ(seen.ov[0].pebs.counters, 1);
        CHECK_EQ(seen.ov[0].pebs.size, 0xc8);
        CHECK_EQ(ds()->pebs_index, base); /* buffer emptied */
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
        /* The CPU reloaded the counter from the DS area; the handler left it alone. */
        CHECK_EQ(pmu_read_counter(&cpu, 0), (0 - 1000ull) & MASK48);
    }
    CHECK_EQ(sim_pebs_dropped(), 0);
}

/* A CPU with DS but without DTES64 (CPUID.1:ECX[2]) uses the 64-bit DS save area and
 * records only in IA-32e mode and the 32-bit ones in protected mode (sim_models.h); pebs.c
 * lays out only the 64-bit format, so PEBS is refused in both modes: not usable, no DS
 * area, a precise counter refused, and the same plan without PEBS still runs. The
 * simulator's side is checked on a DS area laid out here by hand in the format of this
 * program's mode. */
static void test_pebs_without_dtes64(void)
{
    struct sim_model m = sim_skylake;
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1};

    m.leaf1_ecx &= ~(1u << 2);
    sim_reset(&m);
    CHECK_EQ(pmu_probe(&caps), PMU_OK);
    CHECK_EQ(caps.pebs.usable, 0);
    pmu_cpu_init(&cpu, &caps);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_ERR_NO_PEBS);
    CHECK_EQ(sim_msr(MSR_IA32_DS_AREA), 0);
    plan.counters[0] = pebs(gp(0, EV_BRANCHES | RINGS, 1000, 9));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_NO_PEBS);
    plan.counters[0] = gp(0, EV_BRANCHES | EVTSEL_INT | RINGS, 1000, 9);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(0, 0, 0, 1000);
    CHECK_EQ(take_pmi(), 1);
    CHECK(!seen.ov[0].has_pebs);
    pmu_stop_cpu(&cpu);

    /* The simulator: PMC0 counts branches with PEBS into a DS area of this mode's format. */
    uint8_t *const area = ds_memory, *const base = ds_memory + PEBS_DS_HEADER_BYTES;
    const uint64_t ip = 0x7ff00123;
    memset(ds_memory, 0, sizeof(ds_memory));
    if (sim_ia32e()) {
        volatile struct pebs_ds_area *d = (volatile struct pebs_ds_area *)area;
        d->pebs_base = d->pebs_index = (uintptr_t)base;
        d->pebs_max = (uintptr_t)base + 0x800;
        d->pebs_threshold = (uintptr_t)base + 1;
        d->reset[0] = (0 - 1000ull) & MASK48;
    } else {
        /* SDM vol. 3B, "BTS and DS Save Area": 32-bit BTS base, index, maximum, threshold,
         * the same for PEBS from 0x10, the one PEBS counter reset at 0x20. */
        const uint32_t fields[8] = {0,
                                    0,
                                    0,
                                    0,
                                    (uint32_t)(uintptr_t)base,
                                    (uint32_t)(uintptr_t)base,
                                    (uint32_t)(uintptr_t)base + 0x800,
                                    (uint32_t)(uintptr_t)base + 1};
        const uint64_t reset = (0 - 1000ull) & MASK48;
        memcpy(area, fields, sizeof(fields));
        memcpy(area + 0x20, &reset, sizeof(reset));
    }
    msr_write(MSR_IA32_DS_AREA, (uintptr_t)area);
    msr_write(MSR_IA32_A_PMC0, (0 - 1000ull) & MASK48); /* full width: Skylake */
    msr_write(MSR_IA32_PERFEVTSEL0, EV_BRANCHES | RINGS | EVTSEL_EN);
    msr_write(MSR_IA32_PEBS_ENABLE, 1);
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 1);
    sim_set_ip(ip);
    retire(0, 0, 0, 1000);
    CHECK_EQ(sim_pebs_records(), 1);
    CHECK_EQ(sim_faults(), 0);
    if (sim_ia32e()) {
        uint64_t rec_ip;
        CHECK_EQ(ds()->pebs_index, (uintptr_t)base + 0xc8); /* a format-3 record */
        memcpy(&rec_ip, base + 0xb0, sizeof(rec_ip));       /* its eventing IP */
        CHECK_EQ(rec_ip, ip);
    } else {
        uint32_t index, rec_ip;
        memcpy(&index, area + 0x14, sizeof(index));
        CHECK_EQ(index, (uintptr_t)base + 0x28);   /* a 40-byte record */
        memcpy(&rec_ip, base + 4, sizeof(rec_ip)); /* the IP after the instruction */
        CHECK_EQ(rec_ip, ip + 3);
    }
    CHECK_EQ(sim_msr(MSR_IA32_PMC0), (0 - 1000ull) & MASK48); /* reloaded from the reset */
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 0);
    msr_write(MSR_IA32_PEBS_ENABLE, 0);
}

/* The raw path with a load-latency enable: on legacy PEBS, IA32_PEBS_ENABLE bit 32 + i
 * turns on load-latency records for general counter i, and is not a PEBS enable for fixed
 * counter 0 (whose counter id is also 32). Fixed counter 0 still interrupts the ordinary
 * way and its overflow must reach the handler as a sample of its own. */
static void test_raw_load_latency_bit(void)
{
    power_on(&sim_skylake);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    struct pmu_msr_write writes[] = {
        {MSR_IA32_PERFEVTSEL0, 3, EVTSEL_EN | RINGS | EV_BRANCHES},
        {MSR_IA32_A_PMC0, 3, (0 - 1000ull) & MASK48},
        {MSR_IA32_FIXED_CTR_CTRL, 0, 0xb}, /* fixed 0: OS, USR, PMI */
        {MSR_IA32_FIXED_CTR0, 4, (0 - 300ull) & MASK48},
        {MSR_IA32_PEBS_ENABLE, 0, 1 | 1ull << 32},
    };
    CHECK_EQ(pmu_program_raw(&cpu, writes, 5), PMU_OK);
    CHECK_EQ(cpu.pebs_counters, 1);
    CHECK_EQ(cpu.sampling, 1 | 1ull << PMU_FIXED_ID(0));
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 1 | 1ull << 32);
    retire(300, 0, 0, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 1);
    CHECK_EQ(seen.ov[0].counter, PMU_FIXED_ID(0));
    CHECK_EQ(seen.ov[0].tag, 4);
    CHECK(!seen.ov[0].has_pebs);
    CHECK_EQ(pmu_read_counter(&cpu, PMU_FIXED_ID(0)), (0 - 300ull) & MASK48);
    retire(0, 0, 0, 1000);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 1);
    CHECK_EQ(seen.ov[0].counter, 0);
    CHECK_EQ(seen.ov[0].tag, 3);
    CHECK(seen.ov[0].has_pebs);
    pmu_stop_cpu(&cpu);
}

static void check_legacy_pebs(const struct sim_model *m, uint32_t size, int exact)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1};

    power_on(m);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(gp(2, EV_INSTRUCTIONS | RINGS, 5000, 31));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(ds()->pebs_threshold - ds()->pebs_base, size);
    pmu_start_cpu(&cpu);
    sim_set_ip(0x300100);
    retire(5000, 5000, 5000, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 1);
    CHECK_EQ(seen.ov[0].counter, 2);
    CHECK_EQ(seen.ov[0].tag, 31);
    CHECK_EQ(seen.ov[0].pebs.size, size);
    /* Formats without the eventing IP give the instruction after the sampled one. */
    CHECK_EQ(seen.ov[0].pebs.ip, exact ? 0x300100 : 0x300103);
    CHECK_EQ((seen.ov[0].pebs.have & PEBS_IP_EXACT) != 0, exact);
    CHECK_EQ(seen.ov[0].pebs.have & PEBS_HAVE_TSC, 0);
    CHECK_EQ(pmu_read_counter(&cpu, 2), (0 - 5000ull) & MASK48);
}

static void test_pebs_legacy_formats(void)
{
    check_legacy_pebs(&sim_nehalem, 0xb0, 0); /* format 1 */
    check_legacy_pebs(&sim_haswell, 0xc0, 1); /* format 2 */
    CHECK_EQ(caps.pebs.format, 2);

    /* Decoding by hand-made records: a truncated record is refused. */
    struct pebs_caps f3 = {.usable = 1, .format = 3, .counters = 0xf};
    uint8_t rec[0xc8] = {0};
    struct pebs_sample s;
    uint64_t eventing = 0x1234, tsc = 99;
    memcpy(rec + 0xb0, &eventing, 8);
    memcpy(rec + 0xc0, &tsc, 8);
    CHECK_EQ(pebs_decode(&f3, rec, sizeof(rec), &s), 0xc8);
    CHECK_EQ(s.ip, 0x1234);
    CHECK_EQ(s.tsc, 99);
    CHECK_EQ(pebs_decode(&f3, rec, sizeof(rec) - 1, &s), PMU_ERR_RECORD);
    /* Format 0 (Core 2): RFLAGS and the next IP, PEBS on PMC0 only. */
    struct pebs_caps f0 = {.usable = 1, .format = 0, .counters = 1};
    uint64_t next_ip = 0x2468;
    memcpy(rec + 8, &next_ip, 8);
    CHECK_EQ(pebs_decode(&f0, rec, 0x90, &s), 0x90);
    CHECK_EQ(s.ip, 0x2468);
    CHECK_EQ(s.counters, 1);
    CHECK_EQ(s.have, PEBS_HAVE_RFLAGS | PEBS_HAVE_COUNTERS);
    CHECK_EQ(pebs_record_size(&f0, 0), 0x90);

    /* Adaptive: [47:32] of the record info is the retire latency (timed PEBS), not a group. */
    struct pebs_caps f5 = {.usable = 1, .format = 5, .adaptive = 1, .counters = 0xf};
    uint64_t info = 0x20ull << 48 | 0x1234ull << 32, ip = 0x4321;
    memcpy(rec, &info, 8);
    memcpy(rec + 8, &ip, 8);
    CHECK_EQ(pebs_decode(&f5, rec, 0x20, &s), 0x20);
    CHECK_EQ(s.ip, 0x4321);
    info = 0x20ull << 48 | PEBS_DATA_CFG_MEMORY; /* size disagrees with the groups */
    memcpy(rec, &info, 8);
    CHECK_EQ(pebs_decode(&f5, rec, sizeof(rec), &s), PMU_ERR_RECORD);
    struct pebs_caps f9 = {.usable = 1, .format = 9};
    CHECK_EQ(pebs_decode(&f9, rec, sizeof(rec), &s), PMU_ERR_RECORD);
    CHECK_EQ(pebs_record_size(&f9, 0), 0);
}

/* Formats 0/1 report the instruction after the event; where the event was a taken branch,
 * Linux's intel_pmu_pebs_fixup_ip() knows it exactly from the LBRs: the record's IP is the
 * newest entry's TO, the event its FROM. acart does that one case (pmi.c, pebs_branch_ip),
 * only with LBRs on and recording every branch. On the simulated Nehalem (format 1) the
 * sampled instruction is at 0x300100, its record's IP 0x300103. */
static unsigned format1_branch_sample(uint64_t lbr_select, uint64_t from, uint64_t to)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1, .lbr = 1};

    power_on(&sim_nehalem);
    CHECK_EQ(caps.pebs.format, 1);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(gp(2, EV_INSTRUCTIONS | RINGS, 5000, 31));
    plan.lbr_select = lbr_select;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    sim_branch_kind(0x100000, 0x100100, SIM_BR_JCC, 0, 1);
    sim_branch_kind(from, to, SIM_BR_JCC, 0, 1);
    sim_set_ip(0x300100);
    retire(5000, 5000, 5000, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 1);
    CHECK(seen.ov[0].has_pebs);
    CHECK_EQ((seen.ov[0].pebs.have & PEBS_IP_EXACT) != 0, seen.ov[0].pebs.ip != 0x300103);
    pmu_stop_cpu(&cpu);
    return (unsigned)seen.ov[0].pebs.ip;
}

static void test_pebs_format1_branch_ip(void)
{
    /* The event was the branch into the record's IP: its FROM, exact. */
    CHECK_EQ(format1_branch_sample(0, 0x2ff000, 0x300103), 0x2ff000);
    /* The newest branch went elsewhere: the next instruction, not exact. */
    CHECK_EQ(format1_branch_sample(0, 0x2ff000, 0x200000), 0x300103);
    /* A filtered stack (here: no conditional branches recorded) may not hold the last
     * branch: never fixed up, even when the newest recorded entry matches. */
    CHECK_EQ(format1_branch_sample(LBR_SEL_JCC, 0x2ff000, 0x300103), 0x300103);
    CHECK_EQ(format1_branch_sample(LBR_SEL_REL_JMP, 0x2ff000, 0x300103), 0x300103);
}

/* PEBS format 5: a fixed counter's reset value lives at DS + 0x140 + 8j, after room for 32
 * general counters, not at 0x80 + 8j as up to format 4. The simulated CPU reloads from
 * where the SDM and Linux say; a reset written at the format-4 place would leave the
 * counter at 0 after its record, and it would not overflow again. */
static void test_pebs_format5_fixed_reset(void)
{
    struct sim_model fmt5 = sim_tigerlake;
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1};
    const uint8_t *area = (const uint8_t *)ds_memory;
    uint64_t at_0x80, at_0x140;

    fmt5.name = "tigerlake-pebs-format-5";
    fmt5.perf_capabilities = (sim_tigerlake.perf_capabilities & ~0xf00ull) | 0x500;
    power_on(&fmt5);
    CHECK_EQ(caps.pebs.format, 5);
    memset(ds_memory, 0, sizeof(ds_memory));
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(fixed(0, FIXED_RINGS, 500, 31));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    memcpy(&at_0x80, area + 0x80, 8);
    memcpy(&at_0x140, area + 0x140, 8);
    CHECK_EQ(at_0x140, (0 - 500ull) & MASK48);
    CHECK_EQ(at_0x80, 0);
    pmu_start_cpu(&cpu);
    retire(510, 0, 0, 0); /* one overflow, 10 events past it */
    CHECK_EQ(sim_pebs_records(), 1);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR0), (0 - 490ull) & MASK48); /* reloaded, then 10 */
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].tag, 31);
    pmu_stop_cpu(&cpu);
}

static void test_pebs_adaptive(void)
{
    struct pmu_plan plan = {.num_counters = 2, .freeze_on_pmi = 1};
    const uint32_t size = 0x20 + 0x20 + 0x90; /* basic + memory + GPRs */
    int saw_gp = 0, saw_fixed = 0;

    power_on(&sim_tigerlake);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(fixed(0, FIXED_RINGS, 500, 21));
    plan.counters[1] = pebs(gp(1, EV_BRANCHES | RINGS, 100, 22));
    plan.pebs_data_cfg = PEBS_DATA_CFG_MEMORY | PEBS_DATA_CFG_GPRS;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_PERFEVTSEL0 + 1), 0x4300c4 | EVTSEL_ADAPTIVE); /* no INT */
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR_CTRL), 0x3 | 1ull << 32);            /* no PMI, adaptive */
    CHECK_EQ(sim_msr(MSR_PEBS_DATA_CFG), 3);
    CHECK_EQ(ds()->pebs_threshold - ds()->pebs_base, size);
    /* PEBS format 4: fixed counter 0's reset value at DS + 0x80 (SDM, Linux). */
    CHECK_EQ(*(const volatile uint64_t *)((const volatile uint8_t *)ds() + 0x80),
             (0 - 500ull) & MASK48);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 1ull << 32 | 1ull << 1);

    sim_set_ip(0x7000);
    sim_set_data_address(0xbeef0);
    retire(500, 500, 500, 100); /* both overflow: two records, one PMI */
    CHECK_EQ(sim_pebs_records(), 2);
    CHECK_EQ(take_pmi(), 2);
    CHECK_EQ(seen.n, 2);
    for (unsigned k = 0; k < 2 && k < seen.n; k++) {
        const struct seen_overflow *o = &seen.ov[k];

        saw_gp += o->counter == 1 && o->tag == 22;
        saw_fixed += o->counter == PMU_FIXED_ID(0) && o->tag == 21;
        CHECK(o->has_pebs);
        CHECK_EQ(o->pebs.ip, 0x7000);
        CHECK_EQ(o->pebs.size, size);
        CHECK_EQ(o->pebs.data_address, 0xbeef0);
        CHECK_EQ(o->pebs.rflags, 0x246);
        CHECK_EQ(o->pebs.tsc, sim_tsc());
        CHECK_EQ(o->pebs.have, PEBS_IP_EXACT | PEBS_HAVE_RFLAGS | PEBS_HAVE_TSC |
                                   PEBS_HAVE_COUNTERS | PEBS_HAVE_MEMORY);
    }
    CHECK_EQ(saw_gp, 1);
    CHECK_EQ(saw_fixed, 1);
    CHECK_EQ(ds()->pebs_index, ds()->pebs_base);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);

    /* Basic group only: 32-byte records. */
    plan.pebs_data_cfg = 0;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(ds()->pebs_threshold - ds()->pebs_base, 0x20);
    CHECK_EQ(sim_msr(MSR_IA32_PERFEVTSEL0 + 1) & EVTSEL_ADAPTIVE, 0);
    pmu_start_cpu(&cpu);
    retire(0, 0, 0, 100);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].pebs.have, PEBS_IP_EXACT | PEBS_HAVE_TSC | PEBS_HAVE_COUNTERS);
    CHECK_EQ(seen.ov[0].tag, 22);
}

/* ---- Load-latency PEBS ---- */

/* One load-latency event on general counter 1 with threshold 32 (MSR_PEBS_LD_LAT, as
 * perfmon's MSRValue for MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32): loads at or below it are
 * not counted, the sampled one's record carries its address, data source and latency. */
static void check_load_latency(const struct sim_model *m, uint64_t event, uint64_t pebs_enable,
                               uint32_t size)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1, .num_extra = 1};
    struct pmu_counter_plan c = pebs(gp(1, event | RINGS, 1000, 44));
    struct sim_events fast = {.loads = 5000}, slow = {.loads = 999}, last = {.loads = 1};

    power_on(m);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    c.flags |= PMU_COUNTER_LOAD_LATENCY;
    plan.counters[0] = c;
    plan.extra[0] = (struct pmu_extra_msr){MSR_PEBS_LD_LAT, 32};
    plan.pebs_data_cfg = caps.pebs.adaptive ? PEBS_DATA_CFG_MEMORY : 0;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(ds()->pebs_threshold - ds()->pebs_base, size);
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), pebs_enable);
    CHECK_EQ(sim_msr(MSR_PEBS_LD_LAT), 32);

    sim_set_ip(0x500200);
    sim_set_load(0x8000, 32, 0x1); /* at the threshold: not counted */
    sim_retire(&fast);
    CHECK(!sim_take_pmi());
    CHECK_EQ(pmu_read_counter(&cpu, 1), (0 - 1000ull) & MASK48);
    sim_set_load(0x9040, 151, 0x14); /* L3 hit, STLB miss */
    sim_retire(&slow);
    CHECK(!sim_take_pmi());
    sim_retire(&last);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 1);
    CHECK_EQ(seen.ov[0].counter, 1);
    CHECK_EQ(seen.ov[0].tag, 44);
    CHECK(seen.ov[0].has_pebs);
    CHECK(seen.ov[0].pebs.have & PEBS_HAVE_MEMORY);
    CHECK_EQ(seen.ov[0].pebs.data_address, 0x9040);
    CHECK_EQ(seen.ov[0].pebs.data_source, 0x14);
    CHECK_EQ(seen.ov[0].pebs.latency, 151);
    pmu_stop_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 0);
    CHECK_EQ(sim_msr(MSR_PEBS_LD_LAT), 0);

    /* Without the load-latency flag, legacy PEBS leaves the facility off: nothing counts. */
    if (caps.version < 5) {
        plan.counters[0].flags = PMU_COUNTER_PEBS;
        CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
        pmu_start_cpu(&cpu);
        CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 1ull << 1);
        sim_retire(&slow);
        sim_retire(&last);
        CHECK(!sim_take_pmi());
        CHECK_EQ(pmu_read_counter(&cpu, 1), (0 - 1000ull) & MASK48);
        pmu_stop_cpu(&cpu);
    }
}

static void test_pebs_load_latency(void)
{
    check_load_latency(&sim_nehalem, 0x100b, 1ull << 1 | 1ull << 33, 0xb0); /* format 1 */
    check_load_latency(&sim_haswell, 0x01cd, 1ull << 1 | 1ull << 33, 0xc0); /* format 2 */
    check_load_latency(&sim_skylake, 0x01cd, 1ull << 1 | 1ull << 33, 0xc8); /* format 3 */
    check_load_latency(&sim_tigerlake, 0x01cd, 1ull << 1, 0x20 + 0x20);     /* adaptive, v5 */

    /* Refused: without PEBS, on a fixed counter, and where records have no memory fields
     * (Core 2's format 0). */
    struct pmu_plan plan = {.num_counters = 1};
    power_on(&sim_skylake);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = gp(0, 0x01cd | RINGS, 1000, 1);
    plan.counters[0].flags = PMU_COUNTER_LOAD_LATENCY;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_INVALID);
    plan.counters[0] = pebs(fixed(0, FIXED_RINGS, 1000, 1));
    plan.counters[0].flags |= PMU_COUNTER_LOAD_LATENCY;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_NO_PEBS); /* no fixed PEBS before v5 */
    struct pebs_caps f0 = caps.pebs;
    caps.pebs.format = 0;
    plan.counters[0] = pebs(gp(0, 0x01cd | RINGS, 1000, 1));
    plan.counters[0].flags |= PMU_COUNTER_LOAD_LATENCY;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_NO_PEBS);
    caps.pebs = f0;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_faults(), 0);

    /* The simulator holds the SDM's reserved bits of MSR_PEBS_LD_LAT. */
    msr_write(MSR_PEBS_LD_LAT, 1ull << 16);
    CHECK_EQ(sim_faults(), 1);
    sim_clear_faults();
}

/* ---- Per-model PEBS errata and constraints ---- */

static void test_pebs_quirks(void)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1, .num_extra = 1};
    struct sim_events slow = {.loads = 1000};

    /* Sandy Bridge below microcode 0x28: PEBS off with the reason, precise plans refused. */
    power_on(&sim_sandybridge_old);
    CHECK_EQ(caps.model, 0x2a);
    CHECK(!caps.pebs.usable);
    CHECK_EQ(caps.pebs.counters, 0);
    CHECK(caps.pebs_quirk && strstr(caps.pebs_quirk, "microcode below 0x28"));
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_ERR_NO_PEBS);
    plan.counters[0] = pebs(gp(0, EV_BRANCHES | RINGS, 1000, 1));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_NO_PEBS);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 0);

    /* With 0x2f: PEBS works; the load-latency facility only on PMC3. */
    power_on(&sim_sandybridge);
    CHECK(caps.pebs.usable);
    CHECK(!caps.pebs_quirk);
    CHECK_EQ(caps.pebs.counters, 0xf);
    CHECK_EQ(caps.pebs.load_latency_counters, 0x8);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.extra[0] = (struct pmu_extra_msr){MSR_PEBS_LD_LAT, 32};
    for (unsigned k = 0; k < 4; k++) {
        plan.counters[0] = pebs(gp(k, 0x01cd | RINGS, 1000, 7));
        plan.counters[0].flags |= PMU_COUNTER_LOAD_LATENCY;
        CHECK_EQ(pmu_program_cpu(&cpu, &plan), k == 3 ? PMU_OK : PMU_ERR_NO_PEBS);
    }
    pmu_start_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 1ull << 3 | 1ull << 35);
    sim_set_load(0x6000, 77, 0x3);
    sim_retire(&slow);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].counter, 3);
    CHECK_EQ(seen.ov[0].pebs.latency, 77);
    pmu_stop_cpu(&cpu);
    /* Plain PEBS keeps every legacy counter. */
    plan.counters[0] = pebs(gp(0, EV_BRANCHES | RINGS, 1000, 1));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);

    /* Ice Lake and later: load latency on PMC1-7, not PMC0; the Atom cores: none. */
    power_on(&sim_tigerlake);
    CHECK_EQ(caps.pebs.load_latency_counters, 0xfe);
    CHECK(!caps.pebs_quirk);
    power_on(&sim_goldmont);
    CHECK(caps.pebs.usable);
    CHECK_EQ(caps.pebs.load_latency_counters, 0);

    /* The table as Linux's intel_snb_pebs_broken has it. */
    CHECK(pebs_quirk_lookup(6, 0x2a, 7, 0x27) != NULL);
    CHECK(pebs_quirk_lookup(6, 0x2a, 7, 0x28) == NULL);
    CHECK(pebs_quirk_lookup(6, 0x2d, 6, 0x617) != NULL);
    CHECK(pebs_quirk_lookup(6, 0x2d, 6, 0x618) == NULL);
    CHECK(pebs_quirk_lookup(6, 0x2d, 7, 0x70b) != NULL);
    CHECK(pebs_quirk_lookup(6, 0x2d, 7, 0x70c) == NULL);
    CHECK(pebs_quirk_lookup(6, 0x2d, 5, 0xffffff) != NULL); /* no fix for other steppings */
    CHECK(pebs_quirk_lookup(6, 0x3a, 9, 0) == NULL);        /* Ivy Bridge */
    CHECK(pebs_quirk_lookup(15, 0x2a, 7, 0) == NULL);
}

/* ---- Exact accounting: every sample the CPU took is delivered or counted dropped ---- */

static unsigned dropped_total(void)
{
    unsigned n = 0;

    for (unsigned r = 0; r < PMU_DROP_REASONS; r++)
        n += cpu.dropped[r];
    return n;
}

/* What the simulated CPU took (each overflow of a sampling counter, each PEBS record
 * written) against what the handler reported plus what it counted as dropped. */
static void check_exact(unsigned delivered)
{
    CHECK_EQ(sim_overflows() - sim_pebs_dropped(), delivered + dropped_total());
}

static void write_u64(volatile uint8_t *p, uint64_t v)
{
    for (unsigned k = 0; k < 8; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static volatile uint8_t *record_at(unsigned k)
{
    return (volatile uint8_t *)(uintptr_t)(ds()->pebs_base + (uint64_t)k * cpu.pebs.record_size);
}

/* Formats <= 2 record IA32_PERF_GLOBAL_STATUS, other counters' bits included. */
static void test_pebs_collision(void)
{
    struct pmu_plan plan = {.num_counters = 2, .freeze_on_pmi = 1};
    unsigned delivered = 0;

    /* Two PEBS counters overflow in one batch: the second record names both (a collision,
     * dropped as Linux does), the first only its own. */
    power_on(&sim_nehalem);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(gp(0, EV_INSTRUCTIONS | RINGS, 1000, 40));
    plan.counters[1] = pebs(gp(1, EV_CYCLES | RINGS, 1000, 41));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(1000, 1000, 1000, 0);
    CHECK_EQ(sim_pebs_records(), 2);
    CHECK_EQ(take_pmi(), 2);
    CHECK_EQ(seen.n, 1);
    CHECK_EQ(seen.ov[0].counter, 0);
    CHECK_EQ(seen.ov[0].tag, 40);
    delivered += seen.n;
    CHECK_EQ(cpu.dropped[PMU_DROP_COLLISION], 1);
    CHECK_EQ(dropped_total(), 1);
    check_exact(delivered);

    /* A record whose status names no counter: with two PEBS counters it is nobody's. */
    retire(999, 0, 0, 0);
    retire(1, 0, 0, 0);
    CHECK_EQ(sim_pebs_records(), 3);
    write_u64(record_at(0) + 0x90, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 0);
    CHECK_EQ(cpu.dropped[PMU_DROP_NO_COUNTER], 1);
    check_exact(delivered);

    /* One PEBS counter and a sampling counter without PEBS overflowing together: the record
     * names both in its status, but only the PEBS counter is its owner; the other reports
     * its own overflow. Nothing is a collision. */
    plan.counters[0] = gp(0, EV_INSTRUCTIONS | RINGS, 1000, 50);
    plan.counters[1] = pebs(gp(1, EV_INSTRUCTIONS | RINGS, 1000, 51));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(1000, 0, 0, 0);
    CHECK_EQ(take_pmi(), 2);
    CHECK_EQ(seen.n, 2);
    CHECK_EQ(seen.ov[0].tag, 51);
    CHECK(seen.ov[0].has_pebs);
    CHECK_EQ(seen.ov[0].pebs.counters, 3); /* the record's status: both */
    CHECK_EQ(seen.ov[1].tag, 50);
    CHECK(!seen.ov[1].has_pebs);
    delivered += seen.n;
    CHECK_EQ(cpu.dropped[PMU_DROP_COLLISION], 1);
    check_exact(delivered);

    /* The only PEBS counter and a record whose status raced with its clearing (0): the
     * record is that counter's. */
    retire(999, 0, 0, 0);
    retire(1, 0, 0, 0);
    write_u64(record_at(0) + 0x90, 0);
    CHECK_EQ(take_pmi(), 2);
    CHECK_EQ(seen.n, 2);
    CHECK_EQ(seen.ov[0].tag, 51);
    delivered += seen.n;
    CHECK_EQ(dropped_total(), 2);
    check_exact(delivered);

    /* Format 3 records name their counter exactly: two at once are two samples. */
    power_on(&sim_skylake);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(gp(0, EV_INSTRUCTIONS | RINGS, 1000, 60));
    plan.counters[1] = pebs(gp(1, EV_CYCLES | RINGS, 1000, 61));
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(1000, 1000, 1000, 0);
    CHECK_EQ(take_pmi(), 2);
    CHECK_EQ(seen.n, 2);
    CHECK_EQ(dropped_total(), 0);
    check_exact(2);
    /* ... and a format 3 record naming no counter of ours is dropped, not guessed at. */
    plan.num_counters = 1;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(1000, 0, 0, 0);
    write_u64(record_at(0) + 0x90, 1ull << 3);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 0);
    CHECK_EQ(cpu.dropped[PMU_DROP_NO_COUNTER], 1);
    check_exact(2);
}

static void test_pebs_malformed(void)
{
    struct pmu_plan plan = {.num_counters = 3, .freeze_on_pmi = 1};
    const uint32_t size = 0x20 + 0x20; /* basic + memory */
    unsigned delivered = 0;

    power_on(&sim_tigerlake);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(fixed(0, FIXED_RINGS, 500, 70));
    plan.counters[1] = pebs(gp(1, EV_BRANCHES | RINGS, 100, 71));
    plan.counters[2] = pebs(gp(0, EV_CYCLES | RINGS, 500, 72));
    plan.pebs_data_cfg = PEBS_DATA_CFG_MEMORY;
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(cpu.pebs.record_size, size);
    pmu_start_cpu(&cpu);

    /* The first of three records is malformed (its size disagrees with its groups): it is
     * counted, and the two after it are still delivered. */
    retire(500, 500, 500, 100);
    CHECK_EQ(sim_pebs_records(), 3);
    write_u64(record_at(0), (uint64_t)(size + 8) << 48 | PEBS_DATA_CFG_MEMORY);
    CHECK_EQ(take_pmi(), 3);
    CHECK_EQ(seen.n, 2);
    CHECK_EQ(cpu.dropped[PMU_DROP_MALFORMED], 1);
    delivered += seen.n;
    check_exact(delivered);
    CHECK_EQ(ds()->pebs_index, ds()->pebs_base);

    /* The middle one of three, and a tail shorter than a record: both counted. */
    retire(500, 500, 500, 100);
    write_u64(record_at(1), 0xffull);
    ((volatile struct pebs_ds_area *)ds_memory)->pebs_index = ds()->pebs_index + 8;
    CHECK_EQ(take_pmi(), 4);
    CHECK_EQ(seen.n, 2);
    CHECK_EQ(cpu.dropped[PMU_DROP_MALFORMED], 3);
    delivered += seen.n;
    CHECK_EQ(sim_overflows() - sim_pebs_dropped() + 1, delivered + dropped_total());

    /* A DS index outside the buffer: the records are unknown, one is counted. */
    retire(0, 0, 0, 100);
    ((volatile struct pebs_ds_area *)ds_memory)->pebs_index = ds()->pebs_base - 8;
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 0);
    CHECK_EQ(cpu.dropped[PMU_DROP_MALFORMED], 4);
    CHECK_EQ(ds()->pebs_index, ds()->pebs_base);

    /* An index past the end of the buffer: one counted, nothing read beyond it. */
    retire(0, 0, 0, 100);
    ((volatile struct pebs_ds_area *)ds_memory)->pebs_index =
        ds()->pebs_base + cpu.pebs.buffer_bytes + size;
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 0);
    CHECK_EQ(cpu.dropped[PMU_DROP_MALFORMED], 5);

    /* The threshold interrupt with the buffer already empty: still this PMU's interrupt. */
    retire(0, 0, 0, 100);
    ((volatile struct pebs_ds_area *)ds_memory)->pebs_index = ds()->pebs_base;
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.n, 0);
    CHECK_EQ(cpu.unclaimed, 0);
    CHECK_EQ(cpu.dropped[PMU_DROP_MALFORMED], 5);
}

#define FIXED2_BIT (1ull << 34)

/* An overflow that comes back while the handler runs is handled in further passes (at
 * most 4, PMI_MAX_PASSES); one that keeps coming back is given up on as Linux does: the
 * PMU is reset and what was lost is counted. */
static void test_stuck_pmi(void)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1};

    power_on(&sim_skylake);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 80);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);

    /* Three more overflows during the handler: four passes, all delivered. */
    sim_reassert_overflow(FIXED2_BIT, 3);
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 4);
    CHECK_EQ(seen.n, 4);
    CHECK_EQ(cpu.stuck_resets, 0);
    CHECK_EQ(dropped_total(), 0);
    check_exact(4);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), FIXED2_BIT); /* counting on */

    /* For ever: four delivered, the fifth counted, the PMU reset and quiet. */
    sim_reassert_overflow(FIXED2_BIT, ~0u);
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 5);
    CHECK_EQ(seen.n, 4);
    CHECK_EQ(cpu.stuck_resets, 1);
    CHECK_EQ(cpu.dropped[PMU_DROP_STUCK], 1);
    check_exact(8);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR_CTRL), 0);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR0 + 2), 0);
    CHECK(!cpu.running);
    retire(0, 0, 100000, 0);
    CHECK(!sim_take_pmi());
    pmu_start_cpu(&cpu); /* a resume after the reset leaves it off */
    retire(0, 0, 100000, 0);
    CHECK(!sim_take_pmi());
}

/* ---- LBR ---- */

static uint64_t branch_from(unsigned i)
{
    return 0x100000 + 16 * i;
}

static uint64_t branch_to(unsigned i)
{
    return 0x200000 + 16 * i;
}

static void feed_branches(unsigned first, unsigned count)
{
    for (unsigned i = first; i < first + count; i++)
        sim_branch(branch_from(i), branch_to(i), i & 1, (uint16_t)(i + 1));
}

/* The stack holds branches newest..oldest = first_newest, first_newest - 1, ... */
static void check_stack(const struct seen_overflow *o, unsigned count, unsigned newest,
                        int has_mispred, int has_cycles)
{
    CHECK_EQ(o->lbr_count, count);
    for (unsigned k = 0; k < count && k < o->lbr_count; k++) {
        unsigned i = newest - k;

        CHECK_EQ(o->lbr[k].from, branch_from(i));
        CHECK_EQ(o->lbr[k].to, branch_to(i));
        if (has_mispred)
            CHECK_EQ(o->lbr[k].flags & LBR_FLAG_MISPRED, (i & 1) ? LBR_FLAG_MISPRED : 0);
        if (has_cycles) {
            CHECK(o->lbr[k].flags & LBR_FLAG_CYCLES);
            CHECK_EQ(o->lbr[k].cycles, i + 1);
        }
    }
}

static void check_lbr(const struct sim_model *m, uint64_t debugctl, int has_mispred, int has_cycles)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1, .lbr = 1};

    power_on(m);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), debugctl);
    pmu_start_cpu(&cpu);

    feed_branches(0, 40);
    retire(0, 0, 1000, 0);
    feed_branches(40, 1); /* after the PMI: frozen, not recorded */
    CHECK_EQ(take_pmi(), 1);
    check_stack(&seen.ov[0], 32, 39, has_mispred, has_cycles);

    feed_branches(41, 1);
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].lbr_count, 32);
    CHECK_EQ(seen.ov[0].lbr[0].from, branch_from(41));
    CHECK_EQ(seen.ov[0].lbr[1].from, branch_from(39));

    /* Programming again starts an empty stack. */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    feed_branches(100, 5);
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 1);
    check_stack(&seen.ov[0], 5, 104, has_mispred, has_cycles);
}

static void test_lbr(void)
{
    check_lbr(&sim_skylake, 0x1801, 1, 1); /* format 5: LBR_INFO */
    CHECK_EQ(sim_msr(MSR_LBR_SELECT), 0);
    check_lbr(&sim_sapphire_rapids, 0x1800, 1, 1); /* architectural: no DEBUGCTL.LBR */
    CHECK_EQ(sim_msr(MSR_LBR_CTL), 0x7f0007);
    CHECK_EQ(sim_msr(MSR_LBR_DEPTH), 32);
    check_lbr(&sim_goldmont_plus, 0x1801, 1, 1); /* format 6: cycles in TO[63:48] */
    check_lbr(&sim_goldmont, 0x1801, 1, 1);
}

/* Adaptive PEBS with architectural LBRs: a precise overflow's record carries its LBR group,
 * the stack when the event happened, not the LBR MSRs at the PMI (here changed after the
 * record, as software may write them), which every overflow of the PMI still gets. */
static void test_pebs_lbr_group(void)
{
    struct pmu_plan plan = {.num_counters = 2, .lbr = 1};
    const uint32_t size = 0x20 + 4 * 0x18;

    power_on(&sim_sapphire_rapids);
    CHECK(caps.pebs.adaptive && caps.lbr.arch);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = pebs(gp(0, EV_BRANCHES | RINGS, 100, 5));
    plan.counters[1] = fixed(2, FIXED_RINGS, 1000, 6);
    plan.pebs_data_cfg = PEBS_DATA_CFG_LBRS | 3ull << PEBS_DATA_CFG_LBR_SHIFT; /* 4 entries */
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_PEBS_DATA_CFG), PEBS_DATA_CFG_LBRS | 3ull << PEBS_DATA_CFG_LBR_SHIFT);
    CHECK_EQ(ds()->pebs_threshold - ds()->pebs_base, size);
    pmu_start_cpu(&cpu);

    feed_branches(0, 6);
    retire(0, 0, 0, 100); /* the PEBS record, with branches 5, 4, 3, 2 */
    feed_branches(6, 2);  /* frozen: recorded nowhere */
    msr_write(MSR_ARCH_LBR_FROM_0, 0xdead0);
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 2);
    CHECK_EQ(seen.n, 2);
    for (unsigned k = 0; k < 2 && k < seen.n; k++) {
        const struct seen_overflow *o = &seen.ov[k];
        CHECK_EQ(o->lbr_count, 6);
        CHECK_EQ(o->lbr[0].from, 0xdead0);
        CHECK_EQ(o->lbr[1].from, branch_from(4));
        if (o->counter == 0) {
            CHECK(o->has_pebs && (o->pebs.have & PEBS_HAVE_LBR));
            CHECK_EQ(o->pebs.lbr_count, 4);
            for (unsigned i = 0; i < 4; i++)
                CHECK_EQ(o->pebs_lbr_from[i], branch_from(5 - i));
        } else {
            CHECK_EQ(o->counter, PMU_FIXED_ID(2));
            CHECK(!o->has_pebs);
        }
    }
    pmu_stop_cpu(&cpu);
}

/* Format 0 (Core 2): FROM and TO share one MSR; only 4 entries. */
static void test_lbr_format_32(void)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1, .lbr = 1};

    power_on(&sim_core2);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), 0x1801);
    pmu_start_cpu(&cpu);
    feed_branches(0, 6);
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 1);
    check_stack(&seen.ov[0], 4, 5, 0, 0);
    CHECK_EQ(seen.ov[0].lbr[0].flags, 0);
}

/* A known call sequence: main calls a, a calls b (returns), then c; c calls d. Jumps and
 * conditional branches in between. In call-stack mode the stack is the chain of calls
 * still open, innermost first: d's call site, c's, a's. */
#define SITE_MAIN_A 0x1010u
#define SITE_A_B    0x2020u
#define SITE_A_C    0x2040u
#define SITE_C_D    0x3030u
#define FN_A        0x2000u
#define FN_B        0x2100u
#define FN_C        0x3000u
#define FN_D        0x4000u

static void feed_calls(void)
{
    sim_branch_kind(SITE_MAIN_A, FN_A, SIM_BR_REL_CALL, 0, 5);
    sim_branch_kind(0x2008, 0x2010, SIM_BR_JCC, 1, 1);
    sim_branch_kind(SITE_A_B, FN_B, SIM_BR_REL_CALL, 0, 7);
    sim_branch_kind(0x2110, 0x2120, SIM_BR_REL_JMP, 0, 1);
    sim_branch_kind(0x2130, SITE_A_B + 5, SIM_BR_RET, 0, 2);
    sim_branch_kind(SITE_A_C, FN_C, SIM_BR_IND_CALL, 1, 9);
    sim_branch_kind(SITE_C_D, FN_D, SIM_BR_REL_CALL, 0, 11);
}

static void check_call_stack(const struct sim_model *m, uint64_t lbr_ctl)
{
    static const uint64_t sites[] = {SITE_C_D, SITE_A_C, SITE_MAIN_A};
    static const uint64_t targets[] = {FN_D, FN_C, FN_A};
    struct pmu_plan plan = {
        .num_counters = 1, .freeze_on_pmi = 1, .lbr = 1, .lbr_select = LBR_SEL_CALL_STACK_MODE};

    power_on(m);
    CHECK(caps.lbr.callstack);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    if (caps.lbr.arch)
        CHECK_EQ(sim_msr(MSR_LBR_CTL), lbr_ctl);
    else
        CHECK_EQ(sim_msr(MSR_LBR_SELECT), LBR_SEL_CALL_STACK_MODE);
    pmu_start_cpu(&cpu);
    feed_calls();
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].lbr_count, 3);
    for (unsigned k = 0; k < 3 && k < seen.ov[0].lbr_count; k++) {
        CHECK_EQ(seen.ov[0].lbr[k].from, sites[k]);
        CHECK_EQ(seen.ov[0].lbr[k].to, targets[k]);
    }
}

static void test_lbr_call_stack(void)
{
    check_call_stack(&sim_skylake, 0);
    check_call_stack(&sim_haswell, 0);
    /* Architectural: OS, USR, call stack, near calls and returns only. */
    check_call_stack(&sim_sapphire_rapids, 0x7 | (1u << 3) | (0x7u << 19));

    /* Without call-stack mode (Goldmont), bit 9 is refused before anything is written. */
    struct pmu_plan plan = {
        .num_counters = 1, .freeze_on_pmi = 1, .lbr = 1, .lbr_select = LBR_SEL_CALL_STACK_MODE};
    power_on(&sim_goldmont);
    CHECK(!caps.lbr.callstack);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_ERR_RESERVED);
    CHECK_EQ(sim_msr(MSR_LBR_SELECT), 0);

    /* A filter without call stacks: only JCCs (everything else suppressed). */
    power_on(&sim_skylake);
    plan.lbr_select = LBR_SEL_VALID & ~(uint64_t)(LBR_SEL_JCC | LBR_SEL_CALL_STACK | 3);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    feed_calls();
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(seen.ov[0].lbr_count, 1);
    CHECK_EQ(seen.ov[0].lbr[0].from, 0x2008);
    CHECK_EQ(seen.ov[0].lbr[0].flags & LBR_FLAG_MISPRED, LBR_FLAG_MISPRED);
}

/* The simulated CPU's model of Linux's reason for clearing FREEZE_LBRS_ON_PMI in call-stack
 * mode (intel/lbr.c, __intel_pmu_lbr_enable(): "If FREEZE_LBRS_ON_PMI is set, PMI near
 * call/return instructions may cause superfluous increase/decrease of LBR_TOS"), checked on
 * the simulator alone so that the drift acart's call-stack tests avoid is known to exist:
 * two calls on the stack, then a PMI right after a third call or a return. Returns
 * LBR_TOS after the PMI. */
static unsigned tos_after_pmi(const struct sim_model *m, uint64_t lbr_select, uint64_t debugctl,
                              enum sim_branch_kind last)
{
    sim_reset(m);
    msr_write(MSR_LBR_SELECT, lbr_select);
    msr_write(MSR_IA32_DEBUGCTL, debugctl);
    sim_branch_kind(0x1000, 0x2000, SIM_BR_REL_CALL, 0, 1);
    sim_branch_kind(0x2010, 0x3000, SIM_BR_REL_CALL, 0, 1);
    CHECK_EQ(sim_msr(MSR_LBR_TOS), 2);
    msr_write(MSR_IA32_FIXED_CTR0 + 2, (0 - 1000ull) & MASK48);
    msr_write(MSR_IA32_FIXED_CTR_CTRL, 0xbull << 8); /* fixed counter 2: all rings, PMI */
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 34);
    if (last == SIM_BR_RET)
        sim_branch_kind(0x3010, 0x2015, SIM_BR_RET, 0, 1);
    else
        sim_branch_kind(0x3010, 0x4000, last, 0, 1);
    retire(0, 0, 1000, 0); /* the overflow's PMI, right after that branch */
    CHECK(sim_take_pmi());
    CHECK_EQ(sim_faults(), 0);
    return (unsigned)sim_msr(MSR_LBR_TOS);
}

static void test_sim_freeze_tos_drift(void)
{
    const uint64_t lbr = DEBUGCTL_LBR, freeze = DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI;
    const struct sim_model *models[] = {&sim_skylake, &sim_haswell};

    for (unsigned i = 0; i < 2; i++) {
        const struct sim_model *m = models[i];
        /* Call-stack mode without the freeze: a call pushes one (TOS 3), a return pops one
         * (TOS 1), the PMI changes nothing. */
        CHECK_EQ(tos_after_pmi(m, LBR_SEL_CALL_STACK_MODE, lbr, SIM_BR_REL_CALL), 3);
        CHECK_EQ(tos_after_pmi(m, LBR_SEL_CALL_STACK_MODE, lbr, SIM_BR_RET), 1);
        /* With it, one more each way: the superfluous increase and decrease. */
        CHECK_EQ(tos_after_pmi(m, LBR_SEL_CALL_STACK_MODE, freeze, SIM_BR_REL_CALL), 4);
        CHECK_EQ(tos_after_pmi(m, LBR_SEL_CALL_STACK_MODE, freeze, SIM_BR_IND_CALL), 4);
        CHECK_EQ(tos_after_pmi(m, LBR_SEL_CALL_STACK_MODE, freeze, SIM_BR_RET), 0);
        /* Only in call-stack mode: a plain LBR ring with the freeze does not drift. */
        CHECK_EQ(tos_after_pmi(m, 0, freeze, SIM_BR_REL_CALL), 3);
    }
}

/* Pre-v4 freeze: the PMI clears GLOBAL_CTRL and DEBUGCTL.LBR; the handler restores them. */
static void test_legacy_freeze(void)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1, .lbr = 1};

    power_on(&sim_haswell);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 5);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    for (int round = 0; round < 2; round++) {
        feed_branches(10 * round, 20);
        retire(0, 0, 1000, 0);
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
        CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), 0x1800);
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 1ull << 34); /* no freeze bits */
        CHECK_EQ(take_pmi(), 1);
        CHECK_EQ(seen.ov[0].tag, 5);
        /* 16 deep; format 4 carries the mispredict bit in FROM, no cycles */
        check_stack(&seen.ov[0], 16, 10 * round + 19, 1, 0);
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 1ull << 34);
        CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), 0x1801);
    }
}

/* ---- Pause, stop, not-ours ---- */

static void test_pause_resume(void)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1};

    power_on(&sim_skylake);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(0, 0, 600, 0);
    pmu_pause_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
    retire(0, 0, 5000, 0);
    CHECK(!sim_take_pmi());
    pmu_start_cpu(&cpu);
    retire(0, 0, 399, 0);
    CHECK(!sim_take_pmi());
    retire(0, 0, 1, 0);
    /* A PMI handled after pausing does not turn counting back on. */
    pmu_pause_cpu(&cpu);
    CHECK_EQ(take_pmi(), 1);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
    pmu_start_cpu(&cpu);
    retire(0, 0, 1000, 0);
    CHECK_EQ(take_pmi(), 1);
}

static void test_stop_clears_everything(void)
{
    struct pmu_plan plan = {.num_counters = 3, .freeze_on_pmi = 1, .lbr = 1};

    power_on(&sim_skylake);
    CHECK_EQ(pmu_cpu_setup_pebs(&cpu, ds_memory, sizeof(ds_memory)), PMU_OK);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 1);
    plan.counters[1] = pebs(gp(0, EV_BRANCHES | RINGS, 100, 2));
    plan.counters[2] = gp(3, EV_CYCLES | RINGS, 0, 3);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    feed_branches(0, 3);
    retire(10, 10, 1000, 100); /* overflows pending, a PEBS record written */
    CHECK(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS) != 0);
    CHECK(ds()->pebs_index != ds()->pebs_base);

    pmu_stop_cpu(&cpu);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS), 0);
    CHECK_EQ(sim_msr(MSR_IA32_PEBS_ENABLE), 0);
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR_CTRL), 0);
    CHECK_EQ(sim_msr(MSR_IA32_DEBUGCTL), 0);
    CHECK_EQ(ds()->pebs_index, ds()->pebs_base);
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(sim_msr(MSR_IA32_PERFEVTSEL0 + i), 0);
        CHECK_EQ(sim_msr(MSR_IA32_PMC0 + i), 0);
    }
    for (unsigned j = 0; j < 3; j++)
        CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR0 + j), 0);

    sim_take_pmi();      /* the one raised before the stop */
    pmu_start_cpu(&cpu); /* nothing programmed any more */
    feed_branches(10, 3);
    retire(1000000, 1000000, 1000000, 1000000);
    CHECK(!sim_take_pmi());
    CHECK_EQ(sim_msr(MSR_IA32_FIXED_CTR0 + 2), 0);
    CHECK_EQ(sim_msr(MSR_IA32_PMC0), 0);
    CHECK_EQ(sim_pebs_records(), 1);
    memset(&seen, 0, sizeof(seen));
    CHECK_EQ(pmu_handle_overflow(&cpu, collect, &seen), 0); /* not ours */
    CHECK_EQ(cpu.unclaimed, 1);
    CHECK_EQ(seen.n, 0);
}

static void test_not_ours(void)
{
    struct pmu_plan plan = {.num_counters = 1, .freeze_on_pmi = 1};

    power_on(&sim_skylake);
    plan.counters[0] = fixed(2, FIXED_RINGS, 1000, 1);
    CHECK_EQ(pmu_program_cpu(&cpu, &plan), PMU_OK);
    pmu_start_cpu(&cpu);
    retire(0, 0, 10, 0);
    memset(&seen, 0, sizeof(seen));
    CHECK_EQ(pmu_handle_overflow(&cpu, collect, &seen), 0);
    CHECK_EQ(seen.n, 0);
    CHECK_EQ(cpu.unclaimed, 1);
    CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_CTRL), 1ull << 34); /* still running */
    retire(0, 0, 990, 0);
    CHECK_EQ(take_pmi(), 1);
}

/* The simulator must fault where hardware raises #GP, or the tests prove nothing. */
static void test_sim_is_strict(void)
{
    fprintf(stderr, "test_sim_is_strict: the nine #GP lines that follow are expected\n");
    sim_reset(&sim_skylake);
    msr_write(MSR_IA32_PERF_GLOBAL_STATUS, 0);
    CHECK_EQ(sim_faults(), 1);
    msr_write(MSR_IA32_PERFEVTSEL0, 1ull << 40);
    CHECK_EQ(sim_faults(), 2);
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 1ull << 3 | 1ull << 35); /* no fixed counter 3 */
    CHECK_EQ(sim_faults(), 3);
    msr_write(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1ull << 50);
    CHECK_EQ(sim_faults(), 4);
    msr_write(MSR_IA32_FIXED_CTR0, 1ull << 48);
    CHECK_EQ(sim_faults(), 5);
    msr_read(0x1234);
    CHECK_EQ(sim_faults(), 6);
    msr_write(MSR_LBR_CTL, 1); /* no architectural LBR on Skylake */
    CHECK_EQ(sim_faults(), 7);
    sim_reset(&sim_skylake_no_fw);
    msr_write(MSR_IA32_A_PMC0, 1);
    CHECK_EQ(sim_faults(), 1);
    sim_reset(&sim_qemu_tcg);
    msr_read(MSR_IA32_PERF_GLOBAL_CTRL);
    CHECK_EQ(sim_faults(), 1);
    sim_clear_faults();
}

static void run(const char *name, void (*test)(void))
{
    int before = check_failures;

    test();
    if (sim_faults()) {
        fprintf(stderr, "%s: simulated #GP: %s (%u in all)\n", name, sim_fault_text(),
                sim_faults());
        check_failures++;
        sim_clear_faults();
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
    RUN(test_sim_is_strict);
    RUN(test_probe_models);
    RUN(test_probe_no_pmu);
    RUN(test_core2_fixed_quirk);
    RUN(test_models_match_perfmon_mapfile);
    RUN(test_fixture_plan);
    RUN(test_fixture_raw);
    RUN(test_gp_event_select);
    RUN(test_multiple_overflows);
    RUN(test_periods);
    RUN(test_txcp_sampling_refused);
    RUN(test_tsx_force_abort);
    RUN(test_broadwell_inst_retired_all);
    RUN(test_plan_validation);
    RUN(test_pebs_skylake);
    RUN(test_pebs_without_dtes64);
    RUN(test_raw_load_latency_bit);
    RUN(test_pebs_legacy_formats);
    RUN(test_pebs_format1_branch_ip);
    RUN(test_pebs_adaptive);
    RUN(test_pebs_format5_fixed_reset);
    RUN(test_pebs_load_latency);
    RUN(test_pebs_quirks);
    RUN(test_pebs_collision);
    RUN(test_pebs_malformed);
    RUN(test_stuck_pmi);
    RUN(test_lbr);
    RUN(test_lbr_format_32);
    RUN(test_lbr_call_stack);
    RUN(test_sim_freeze_tos_drift);
    RUN(test_pebs_lbr_group);
    RUN(test_legacy_freeze);
    RUN(test_pause_resume);
    RUN(test_stop_clears_everything);
    RUN(test_not_ours);
    printf("%s\n", check_failures ? "FAILED" : "all PMU tests passed");
    return check_failures ? 1 : 0;
}
