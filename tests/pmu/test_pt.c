/* Tests of arch/x86's Intel PT layer (pt.c, pt_output.c, pt_cpu.c) on the simulated CPU,
 * whose trace unit writes a packet stream into the buffers as the simulated code runs.
 * Every simulator fault (a #GP on hardware: an RTIT MSR written with TraceEn set, reserved
 * bits, unsupported encodings) fails the test it occurs in; the first test shows the
 * simulator raises them where the SDM says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_check.h"
#include "msr.h"
#include "pmu.h"
#include "pt_cpu.h"
#include "sim_cpu.h"

#define MEMORY_BYTES (2u * 1024u * 1024u)

static uint8_t *memory;

/* The simulated code's trace: passes of a PSB+ (PSB, PSBEND) and PASS_BYTES - 18 bytes
 * that cannot form a PSB, each pass's bytes telling its position apart. */
#define PASS_BYTES 3000u
static uint8_t pass[PASS_BYTES];

static void make_pass(void)
{
    for (unsigned i = 0; i < 16; i++)
        pass[i] = (i & 1) ? 0x82 : 0x02;
    pass[16] = 0x02;
    pass[17] = 0x23; /* PSBEND */
    for (unsigned i = 18; i < PASS_BYTES; i++)
        pass[i] = (uint8_t)(0x10 + i % 200); /* never 0x02: no PSB here */
}

static void expect_no_faults(const char *where)
{
    if (sim_faults()) {
        fprintf(stderr, "%s: %u simulator fault(s), first: %s\n", where, sim_faults(),
                sim_fault_text());
        check_failures++;
        sim_clear_faults();
    }
}

/* ---- the simulator raises #GP where the SDM says ---- */

static void expect_fault(uint32_t msr, uint64_t value, const char *why)
{
    unsigned before = sim_faults();

    msr_write(msr, value);
    if (sim_faults() != before + 1) {
        fprintf(stderr, "no #GP for wrmsr %#x <- %#llx (%s)\n", msr, (unsigned long long)value,
                why);
        check_failures++;
    }
    sim_clear_faults();
}

static void test_sim_rtit_rules(void)
{
    const uint64_t topa = RTIT_CTL_TOPA | RTIT_CTL_BRANCH_EN | RTIT_CTL_OS;
    uint64_t table[2] __attribute__((aligned(4096)));

    sim_reset(&sim_skylake);
    table[0] = (uint64_t)(uintptr_t)memory; /* one 4 KiB region */
    table[1] = (uint64_t)(uintptr_t)table | TOPA_END;
    msr_write(MSR_IA32_RTIT_OUTPUT_BASE, (uint64_t)(uintptr_t)table);
    msr_write(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0x7f);
    msr_write(MSR_IA32_RTIT_ADDR0_A, 0x1000);
    msr_write(MSR_IA32_RTIT_ADDR0_A + 1, 0x1fff);
    msr_write(MSR_IA32_RTIT_CTL, topa);
    expect_no_faults("configuring with TraceEn clear");
    expect_fault(MSR_IA32_RTIT_CTL, topa | (1ull << 18), "reserved bit 18");
    expect_fault(MSR_IA32_RTIT_CTL, topa | RTIT_CTL_MTC_FREQ(1), "MTC period 1 not listed");
    expect_fault(MSR_IA32_RTIT_CTL, topa | RTIT_CTL_ADDR_CFG(0, 3), "ADDR0_CFG 3");
    expect_fault(MSR_IA32_RTIT_CTL, topa | RTIT_CTL_ADDR_CFG(2, 1), "ADDR2: two ranges only");
    expect_fault(MSR_IA32_RTIT_ADDR0_A, 0x0000800000000000ull, "not canonical");
    expect_fault(MSR_IA32_RTIT_ADDR0_A + 4, 0, "ADDR2_A: two ranges only");
    expect_fault(MSR_IA32_RTIT_CR3_MATCH, 0x1001, "CR3_MATCH bits 4:0");
    expect_fault(MSR_IA32_RTIT_STATUS, 1ull << 3, "reserved status bit");
    expect_fault(MSR_IA32_RTIT_OUTPUT_BASE, (uint64_t)(uintptr_t)table | 0x40, "base bits 6:0");

    msr_write(MSR_IA32_RTIT_CTL, topa | RTIT_CTL_TRACE_EN);
    expect_no_faults("setting TraceEn");
    msr_write(MSR_IA32_RTIT_CTL, topa | RTIT_CTL_TRACE_EN);
    expect_no_faults("writing the same value back with TraceEn set");
    expect_fault(MSR_IA32_RTIT_CTL, topa | RTIT_CTL_TRACE_EN | RTIT_CTL_TSC_EN,
                 "IA32_RTIT_CTL changed while TraceEn is set");
    expect_fault(MSR_IA32_RTIT_OUTPUT_BASE, (uint64_t)(uintptr_t)table, "with TraceEn set");
    expect_fault(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, 0x7f, "with TraceEn set");
    expect_fault(MSR_IA32_RTIT_STATUS, 0, "with TraceEn set");
    expect_fault(MSR_IA32_RTIT_ADDR0_A, 0x1000, "with TraceEn set");
    msr_write(MSR_IA32_RTIT_CTL, topa | RTIT_CTL_TSC_EN); /* clears TraceEn: may change */
    expect_no_faults("changing IA32_RTIT_CTL together with clearing TraceEn");
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS) & 0x7f, 0x7f);

    sim_reset(&sim_broadwell); /* no PSB/CYC, no MTC, no ranges */
    expect_fault(MSR_IA32_RTIT_CTL, RTIT_CTL_CYC_EN | RTIT_CTL_OS, "CYCEn without CPUID");
    expect_fault(MSR_IA32_RTIT_CTL, RTIT_CTL_MTC_EN | RTIT_CTL_OS, "MTCEn without CPUID");
    expect_fault(MSR_IA32_RTIT_STATUS, 1ull << 32, "PacketByteCnt without CPUID");
    expect_fault(MSR_IA32_RTIT_ADDR0_A, 0x1000, "no address ranges");

    sim_reset(&sim_pt_topa_one); /* ToPA only: no single range */
    expect_fault(MSR_IA32_RTIT_CTL, RTIT_CTL_TRACE_EN | RTIT_CTL_OS | RTIT_CTL_BRANCH_EN,
                 "single-range output without CPUID.14H:ECX[2]");

    sim_reset(&sim_haswell); /* no Intel PT at all */
    expect_fault(MSR_IA32_RTIT_CTL, 0, "no IA32_RTIT_CTL");
    (void)msr_read(MSR_IA32_RTIT_STATUS);
    CHECK_EQ(sim_faults(), 1);
    sim_clear_faults();
}

/* ---- probing ---- */

static void test_probe(void)
{
    struct pt_caps caps;

    sim_reset(&sim_skylake);
    CHECK_EQ(pt_probe(&caps), PT_OK);
    CHECK(caps.present && caps.topa && caps.topa_multi && caps.single_range && caps.lip);
    CHECK(caps.cr3_filter && caps.psb_cyc && caps.ip_filter && caps.mtc && caps.pmi);
    CHECK(!caps.ptwrite && !caps.power_events && !caps.transport);
    CHECK_EQ(caps.num_ranges, 2);
    CHECK_EQ(caps.mtc_periods, 0x249);
    CHECK_EQ(caps.cyc_thresholds, 0x3fff);
    CHECK_EQ(caps.psb_periods, 0x3f);
    CHECK_EQ(caps.cpuid15_eax, 3);
    CHECK_EQ(caps.cpuid15_ebx, 250);
    CHECK_EQ(caps.cpuid15_ecx, 24000000);
    CHECK_EQ(caps.maxphyaddr, 48);

    sim_reset(&sim_goldmont_plus);
    CHECK_EQ(pt_probe(&caps), PT_OK);
    CHECK(caps.ptwrite && caps.power_events);

    sim_reset(&sim_broadwell);
    CHECK_EQ(pt_probe(&caps), PT_OK);
    CHECK(caps.topa && !caps.topa_multi && caps.single_range && caps.cr3_filter);
    CHECK(!caps.psb_cyc && !caps.mtc && !caps.ip_filter);
    CHECK_EQ(caps.num_ranges, 0);
    CHECK_EQ(caps.mtc_periods | caps.cyc_thresholds | caps.psb_periods, 0);

    sim_reset(&sim_qemu_tcg);
    CHECK_EQ(pt_probe(&caps), PT_ERR_NO_PT);
    CHECK(!caps.present && strstr(caps.why, "CPUID.07H:EBX[25]"));
    CHECK(strlen(caps.why) < 80); /* it travels in acart_pt_info.why */
    sim_reset(&sim_haswell);
    CHECK_EQ(pt_probe(&caps), PT_ERR_NO_PT);
    sim_reset(&sim_amd);
    CHECK_EQ(pt_probe(&caps), PT_ERR_NO_PT);
    CHECK(strstr(caps.why, "not an Intel CPU") != NULL);
    expect_no_faults("probing reads no MSR");
}

/* ---- IA32_RTIT_CTL from a configuration ---- */

static void test_config_ctl(void)
{
    struct pt_caps sky, bdw, glp;
    struct pt_config cfg;
    uint64_t ctl;

    sim_reset(&sim_skylake);
    pt_probe(&sky);
    sim_reset(&sim_broadwell);
    pt_probe(&bdw);
    sim_reset(&sim_goldmont_plus);
    pt_probe(&glp);

    memset(&cfg, 0, sizeof(cfg));
    cfg.flags = PT_TRACE_OS | PT_TIMING_TSC | PT_TIMING_MTC | PT_TIMING_CYC;
    cfg.mtc_freq = 3;
    cfg.cyc_thresh = 1;
    cfg.psb_freq = 2;
    cfg.num_ranges = 2;
    cfg.ranges[0] = (struct pt_range){0x100000, 0x1fffff, PT_RANGE_FILTER};
    cfg.ranges[1] = (struct pt_range){0x300000, 0x300fff, PT_RANGE_STOP};
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_OK);
    CHECK_EQ(ctl, RTIT_CTL_BRANCH_EN | RTIT_CTL_OS | RTIT_CTL_TSC_EN | RTIT_CTL_MTC_EN |
                      RTIT_CTL_MTC_FREQ(3) | RTIT_CTL_CYC_EN | RTIT_CTL_CYC_THRESH(1) |
                      RTIT_CTL_PSB_FREQ(2) | RTIT_CTL_ADDR_CFG(0, 1) | RTIT_CTL_ADDR_CFG(1, 2) |
                      RTIT_CTL_TOPA);
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_SINGLE, &ctl), PT_OK);
    CHECK_EQ(ctl & RTIT_CTL_TOPA, 0);

    CHECK_EQ(pt_config_ctl(&bdw, &cfg, PT_OUT_TOPA_ONE, &ctl), PT_ERR_NO_MTC);
    cfg.flags &= ~PT_TIMING_MTC;
    cfg.mtc_freq = 0;
    CHECK_EQ(pt_config_ctl(&bdw, &cfg, PT_OUT_TOPA_ONE, &ctl), PT_ERR_NO_CYC);
    cfg.flags |= PT_TIMING_MTC;
    cfg.mtc_freq = 1; /* 0x249 lists 0, 3, 6, 9 */
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_MTC_FREQ);
    cfg.mtc_freq = 3;
    cfg.psb_freq = 6; /* 0x3f lists 0-5 */
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_PSB_FREQ);
    cfg.psb_freq = 0;
    cfg.cyc_thresh = 14;
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_CYC_THRESH);
    cfg.cyc_thresh = 0;
    cfg.num_ranges = 3;
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_RANGES);
    cfg.num_ranges = 1;
    cfg.ranges[0].start = 0x200000;
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_RANGE);
    cfg.ranges[0] = (struct pt_range){0x1000, 0x0000800000000000ull, PT_RANGE_FILTER};
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_RANGE);
    cfg.num_ranges = 0;
    cfg.flags |= PT_PACKETS_PTW;
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_NO_PTWRITE);
    CHECK_EQ(pt_config_ctl(&glp, &cfg, PT_OUT_TOPA, &ctl), PT_OK);
    CHECK(ctl & RTIT_CTL_PTW_EN);
    cfg.flags = PT_TIMING_TSC;
    CHECK_EQ(pt_config_ctl(&sky, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_NO_CPL);
    struct pt_caps none;
    sim_reset(&sim_qemu_tcg);
    pt_probe(&none);
    CHECK_EQ(pt_config_ctl(&none, &cfg, PT_OUT_TOPA, &ctl), PT_ERR_NO_PT);

    uint32_t msrs[PT_CONFIG_MAX_MSRS];
    cfg.num_ranges = 2;
    CHECK_EQ(pt_config_msrs(&cfg, msrs), 8);
    CHECK_EQ(msrs[7], MSR_IA32_RTIT_ADDR0_A + 3);
    for (int e = PT_OK; e >= PT_ERR_STATE; e--)
        CHECK(pt_strerror(e)[0] != 0 && strcmp(pt_strerror(e), "unknown PT error") != 0);
}

/* ---- the output in RAM ---- */

static void test_layout(void)
{
    struct pt_caps sky, bdw, one;
    struct pt_layout layout;
    struct pt_buffer bufs[32];

    sim_reset(&sim_skylake);
    pt_probe(&sky);
    sim_reset(&sim_broadwell);
    pt_probe(&bdw);
    sim_reset(&sim_pt_topa_one);
    pt_probe(&one);

    CHECK_EQ(pt_output_layout(&sky, PT_MODE_FULL, memory, MEMORY_BYTES, 4, &layout, bufs), PT_OK);
    CHECK_EQ(layout.output, PT_OUT_TOPA);
    CHECK(layout.discard.data == memory && layout.discard.bytes == PT_DISCARD_BYTES);
    uintptr_t tables = (uintptr_t)memory + MEMORY_BYTES - 5 * 4096;
    CHECK((uintptr_t)layout.discard.table == tables + 4 * 4096);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(bufs[i].region_bytes, PT_REGION_MAX);
        CHECK_EQ(bufs[i].regions, 7); /* (2 MiB - 64 KiB - 20 KiB) / 4 = 491 KiB */
        CHECK((uintptr_t)bufs[i].data == (uintptr_t)memory + PT_DISCARD_BYTES + i * 7u * 65536);
        CHECK((uintptr_t)bufs[i].table == tables + (uintptr_t)i * 4096);
        CHECK(((uintptr_t)bufs[i].data & (PT_REGION_MAX - 1)) == 0);
    }
    CHECK((uintptr_t)bufs[3].data + bufs[3].bytes <= tables);

    CHECK_EQ(pt_output_layout(&sky, PT_MODE_SNAPSHOT, memory, MEMORY_BYTES, 32, &layout, bufs),
             PT_OK);
    CHECK_EQ(bufs[0].region_bytes, 8192); /* 62 KiB each: a quarter, down to 2^n */
    CHECK_EQ(layout.discard.bytes, 0);

    CHECK_EQ(pt_output_layout(&bdw, PT_MODE_FULL, memory, MEMORY_BYTES, 4, &layout, bufs),
             PT_ERR_FULL_NEEDS_TOPA);
    CHECK_EQ(pt_output_layout(&bdw, PT_MODE_SNAPSHOT, memory, MEMORY_BYTES, 3, &layout, bufs),
             PT_OK);
    CHECK_EQ(layout.output, PT_OUT_SINGLE);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(bufs[i].bytes, 512u * 1024); /* 2 MiB / 3, down to 2^n */
        CHECK(((uintptr_t)bufs[i].data & (bufs[i].bytes - 1)) == 0);
        CHECK(bufs[i].table == NULL);
    }
    CHECK_EQ(pt_output_layout(&one, PT_MODE_SNAPSHOT, memory, MEMORY_BYTES, 2, &layout, bufs),
             PT_OK);
    CHECK_EQ(layout.output, PT_OUT_TOPA_ONE);
    CHECK_EQ(bufs[0].regions, 1);
    CHECK_EQ(
        pt_output_layout(&sky, PT_MODE_FULL, memory + 4096, MEMORY_BYTES - 65536, 4, &layout, bufs),
        PT_ERR_MEMORY);
    CHECK_EQ(pt_output_layout(&sky, PT_MODE_FULL, memory, 128 * 1024, 8, &layout, bufs),
             PT_ERR_MEMORY);
}

/* ---- full mode: every region reaches the drain, a full ring discards and counts ---- */

struct drained {
    uint8_t bytes[8u * 1024 * 1024];
    uint64_t len;
    uint32_t losses;
    struct pt_loss loss[16];
};
static struct drained drained;

/* What the net context does: take the ready bytes and losses, say they are sent. */
static void drain(struct pt_cpu *c)
{
    uint64_t ready = pt_cpu_ready_bytes(c);

    for (; drained.len < ready; drained.len++)
        drained.bytes[drained.len] = c->buf.data[drained.len % c->buf.bytes];
    for (uint32_t n = pt_cpu_num_losses(c); drained.losses < n; drained.losses++)
        drained.loss[drained.losses] = pt_cpu_loss(c, drained.losses);
    pt_cpu_sent(c, drained.len, drained.losses);
}

static int pmis_taken;

/* The code runs on; every ToPA PMI it raises is taken at once. */
static void run(struct pt_cpu *c, size_t bytes, size_t step)
{
    while (bytes) {
        size_t k = bytes < step ? bytes : step;

        sim_pt_run(k);
        bytes -= k;
        if (sim_take_pmi()) {
            CHECK_EQ(pt_cpu_pmi(c), 1);
            pmis_taken++;
        }
        CHECK_EQ(sim_msr(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_TRACE_TOPA, 0);
    }
}

static struct sim_pt_write writes[4096];

static int in_buffer(const struct pt_buffer *b, uint64_t address)
{
    return address >= (uintptr_t)b->data && address < (uintptr_t)b->data + b->bytes;
}

static void test_full_mode(void)
{
    struct pt_caps caps;
    struct pt_layout layout;
    struct pt_buffer bufs[1];
    struct pt_config cfg = {PT_MODE_FULL, PT_TRACE_OS | PT_TIMING_TSC, 0, 0, 0, 0, {{0}}};
    static struct pt_cpu c;
    uint64_t ctl;

    sim_reset(&sim_skylake);
    CHECK_EQ(pt_probe(&caps), PT_OK);
    CHECK_EQ(pt_output_layout(&caps, PT_MODE_FULL, memory, 1024 * 1024, 1, &layout, bufs), PT_OK);
    CHECK_EQ(pt_config_ctl(&caps, &cfg, layout.output, &ctl), PT_OK);
    pt_output_write_discard(&layout);
    pt_cpu_init(&c, &caps, &bufs[0], &layout.discard, &cfg, ctl);
    pt_cpu_program(&c, &cfg);
    expect_no_faults("programming");
    const uint32_t R = bufs[0].regions, S = bufs[0].region_bytes;
    CHECK_EQ(S, 65536);
    CHECK_EQ(R, 14); /* (1 MiB - 64 KiB - 8 KiB) / 64 KiB, rounded down */
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_CTL), ctl);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_OUTPUT_BASE), (uintptr_t)bufs[0].table);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), 0x7f);
    for (uint32_t i = 0; i < R; i++)
        CHECK_EQ(bufs[0].table[i], ((uintptr_t)bufs[0].data + i * S) | 4ull << TOPA_SIZE_SHIFT |
                                       TOPA_INT | (i == R - 1 ? TOPA_STOP : 0));
    CHECK_EQ(bufs[0].table[R], (uintptr_t)bufs[0].table | TOPA_END);
    CHECK_EQ(layout.discard.table[0], (uintptr_t)memory | 4ull << TOPA_SIZE_SHIFT | TOPA_INT);

    memset(&drained, 0, sizeof(drained));
    pmis_taken = 0;
    sim_pt_source(pass, sizeof(pass));
    pt_cpu_start(&c);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_CTL), ctl | RTIT_CTL_TRACE_EN);
    run(&c, S / 2, 1000);
    CHECK_EQ(pmis_taken, 0);
    CHECK_EQ(pt_cpu_ready_bytes(&c), 0);
    run(&c, 2 * S, 1000); /* two regions filled */
    CHECK_EQ(pmis_taken, 2);
    CHECK_EQ(pt_cpu_ready_bytes(&c), 2ull * S);
    drain(&c);
    CHECK(memcmp(drained.bytes, pass, sizeof(pass)) == 0);

    /* No drain for a while: the unit fills the ring up to its STOP, then the discard
     * region, at least three laps of it. */
    run(&c, (uint64_t)(R + 4) * S, 1000);
    CHECK_EQ(pt_cpu_ready_bytes(&c), (uint64_t)(R + 2) * S); /* two were sent: R ahead */
    CHECK(c.discarding);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_OUTPUT_BASE), (uintptr_t)layout.discard.table);
    CHECK_EQ(pt_cpu_num_losses(&c), 0); /* counted, not recorded until the loss ends */
    drain(&c);
    /* The next discard lap's PMI sees the ring free and goes back to it, PSB first. */
    run(&c, PT_DISCARD_BYTES + 4000, 1000);
    CHECK(!c.discarding);
    CHECK_EQ(pt_cpu_num_losses(&c), 1);
    run(&c, S + 10000, 1000);
    CHECK(pt_cpu_stop(&c, 1234));
    CHECK_EQ(c.state, PT_CPU_DONE);
    CHECK_EQ(c.done_tsc, 1234);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_CTL), ctl);
    CHECK_EQ(pt_cpu_stop(&c, 99), 0); /* once */
    drain(&c);
    expect_no_faults("full mode");

    /* What the unit wrote into the ring, in order, is what was drained; what it wrote
     * into the discard region is the one loss, where the ring filled. */
    size_t n = sim_pt_writes(writes, 4096);
    uint64_t kept = 0, discarded = 0, loss_at = 0;
    int checked_psb = 0;
    CHECK(n < 4096);
    for (size_t i = 0; i < n; i++) {
        if (in_buffer(&layout.discard, writes[i].address)) {
            if (!discarded)
                loss_at = kept;
            discarded += writes[i].bytes;
            continue;
        }
        CHECK(in_buffer(&bufs[0], writes[i].address));
        CHECK_EQ(writes[i].address, (uintptr_t)bufs[0].data + kept % bufs[0].bytes);
        for (uint64_t k = 0; k < writes[i].bytes; k++)
            if (drained.bytes[kept + k] != pass[(writes[i].source + k) % PASS_BYTES]) {
                CHECK(!"drained byte differs from what the unit wrote");
                break;
            }
        if (discarded && !checked_psb) {
            CHECK_EQ(writes[i].source % PASS_BYTES, 0); /* the ring resumes with a PSB */
            checked_psb = 1;
        }
        kept += writes[i].bytes;
    }
    CHECK(checked_psb);
    CHECK_EQ(drained.len, kept);
    CHECK_EQ(drained.losses, 1);
    CHECK_EQ(loss_at, (uint64_t)R * S + 2ull * S);
    CHECK_EQ(drained.loss[0].offset, loss_at);
    CHECK_EQ(drained.loss[0].bytes, discarded);
    CHECK(discarded >= 3ull * PT_DISCARD_BYTES);
    CHECK_EQ(c.lost_bytes, discarded);
    CHECK_EQ(c.lost_events, 1);
    CHECK_EQ(c.lost_unknown, 0);
    /* The count is a lower bound: what the code ran between the STOP and the PMI, and
     * before the PSB the unit resumed with, left no byte anywhere. */
    CHECK(sim_pt_position() - kept > c.lost_bytes);
    CHECK_EQ(c.errors, 0);
    CHECK_EQ((uint64_t)pmis_taken, c.pmis);
}

/* A ring that fills while the handler cannot send: a stop with room already freed goes
 * back at once, the loss counted with size 0 (the unit wrote nothing meanwhile). */
static void test_full_stop_then_room(void)
{
    struct pt_caps caps;
    struct pt_layout layout;
    struct pt_buffer bufs[1];
    struct pt_config cfg = {PT_MODE_FULL, PT_TRACE_OS, 0, 0, 0, 0, {{0}}};
    static struct pt_cpu c;
    uint64_t ctl;

    sim_reset(&sim_skylake);
    pt_probe(&caps);
    CHECK_EQ(pt_output_layout(&caps, PT_MODE_FULL, memory, 512 * 1024, 1, &layout, bufs), PT_OK);
    pt_config_ctl(&caps, &cfg, layout.output, &ctl);
    pt_output_write_discard(&layout);
    pt_cpu_init(&c, &caps, &bufs[0], &layout.discard, &cfg, ctl);
    pt_cpu_program(&c, &cfg);
    memset(&drained, 0, sizeof(drained));
    sim_pt_source(pass, sizeof(pass));
    pt_cpu_start(&c);
    const uint32_t R = bufs[0].regions, S = bufs[0].region_bytes;
    /* Fill the ring without taking the PMIs, then free it before the handler runs. */
    sim_pt_run((size_t)R * S + 5000);
    CHECK(sim_msr(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_STOPPED);
    CHECK(sim_take_pmi());
    pt_cpu_sent(&c, (uint64_t)R * S, 0);
    CHECK_EQ(pt_cpu_pmi(&c), 1);
    CHECK(!c.discarding);
    CHECK_EQ(pt_cpu_num_losses(&c), 1);
    CHECK_EQ(pt_cpu_loss(&c, 0).offset, (uint64_t)R * S);
    CHECK_EQ(pt_cpu_loss(&c, 0).bytes, 0);
    CHECK_EQ(c.lost_events, 1);
    CHECK_EQ(c.lost_unknown, 1);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_STOPPED, 0);
    uint64_t before = sim_pt_written();
    sim_pt_run(PASS_BYTES * 2);
    CHECK(sim_pt_written() > before);
    CHECK(pt_cpu_stop(&c, 1));
    expect_no_faults("stop with room");
}

/* ---- snapshot mode: the ring wraps, a freeze gives the last bytes from a PSB ---- */

static int is_psb(const uint8_t *p)
{
    for (int j = 0; j < 16; j++)
        if (p[j] != ((j & 1) ? 0x82 : 0x02))
            return 0;
    return 1;
}

static void snapshot_case(const struct sim_model *model, uint32_t expect_output, size_t run_bytes,
                          int expect_wrapped)
{
    struct pt_caps caps;
    struct pt_layout layout;
    struct pt_buffer bufs[1];
    struct pt_config cfg = {PT_MODE_SNAPSHOT, PT_TRACE_OS | PT_TRACE_USER, 0, 0, 0, 0, {{0}}};
    static struct pt_cpu c;
    static uint8_t written[8u * 1024 * 1024];
    uint64_t ctl;

    sim_reset(model);
    CHECK_EQ(pt_probe(&caps), PT_OK);
    CHECK_EQ(pt_output_layout(&caps, PT_MODE_SNAPSHOT, memory, 512 * 1024, 1, &layout, bufs),
             PT_OK);
    CHECK_EQ(layout.output, expect_output);
    CHECK_EQ(pt_config_ctl(&caps, &cfg, layout.output, &ctl), PT_OK);
    pt_cpu_init(&c, &caps, &bufs[0], NULL, &cfg, ctl);
    pt_cpu_program(&c, &cfg);
    if (expect_output == PT_OUT_SINGLE)
        CHECK_EQ(sim_msr(MSR_IA32_RTIT_OUTPUT_MASK_PTRS), bufs[0].bytes - 1);
    sim_pt_source(pass, sizeof(pass));
    pmis_taken = 0;
    pt_cpu_start(&c);
    run(&c, run_bytes, 777);
    CHECK(pt_cpu_stop(&c, 5));
    expect_no_faults(model->name);

    /* The stream the unit wrote, in order; the ring keeps its last bytes. */
    size_t n = sim_pt_writes(writes, 4096);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        for (uint64_t k = 0; k < writes[i].bytes; k++)
            written[total++] = pass[(writes[i].source + k) % PASS_BYTES];
    CHECK_EQ(total, run_bytes);
    uint64_t oldest = total > bufs[0].bytes ? total - bufs[0].bytes : 0, psb = oldest;
    while (psb + 16 <= total && !is_psb(written + psb))
        psb++;
    if (psb + 16 > total)
        psb = total;

    uint32_t first = 0;
    int wrapped = -1;
    uint32_t len = pt_cpu_snapshot(&c, &first, &wrapped);
    CHECK_EQ(wrapped, expect_wrapped);
    CHECK_EQ(len, total - psb);
    for (uint32_t k = 0; k < len; k++)
        if (bufs[0].data[(first + k) % bufs[0].bytes] != written[psb + k]) {
            CHECK(!"snapshot byte differs from the last bytes written");
            break;
        }
    if (expect_output == PT_OUT_TOPA)
        CHECK_EQ(c.wraps, run_bytes / bufs[0].bytes);
}

static void test_snapshot(void)
{
    snapshot_case(&sim_skylake, PT_OUT_TOPA, 3 * 512 * 1024 + 12345, 1);
    snapshot_case(&sim_skylake, PT_OUT_TOPA, 100000, 0);
    snapshot_case(&sim_broadwell, PT_OUT_SINGLE, 2 * 512 * 1024 + 777, 1);
    snapshot_case(&sim_broadwell, PT_OUT_SINGLE, 9000, 0);
    snapshot_case(&sim_pt_topa_one, PT_OUT_TOPA_ONE, 1536 * 1024 + 1, 1);
}

/* ---- the rest of the life of a CPU ---- */

static void test_ranges_pause_and_errors(void)
{
    struct pt_caps caps;
    struct pt_layout layout;
    struct pt_buffer bufs[1];
    struct pt_config cfg = {PT_MODE_SNAPSHOT, PT_TRACE_OS, 0, 0, 0, 2, {{0}}};
    static struct pt_cpu c;
    uint64_t ctl;

    cfg.ranges[0] = (struct pt_range){0x100000, 0x10ffff, PT_RANGE_FILTER};
    cfg.ranges[1] = (struct pt_range){0x200000, 0x2000ff, PT_RANGE_STOP};
    sim_reset(&sim_skylake);
    pt_probe(&caps);
    pt_output_layout(&caps, PT_MODE_SNAPSHOT, memory, 512 * 1024, 1, &layout, bufs);
    CHECK_EQ(pt_config_ctl(&caps, &cfg, layout.output, &ctl), PT_OK);
    pt_cpu_init(&c, &caps, &bufs[0], NULL, &cfg, ctl);
    pt_cpu_program(&c, &cfg);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_ADDR0_A), 0x100000);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_ADDR0_A + 1), 0x10ffff);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_ADDR0_A + 2), 0x200000);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_ADDR0_A + 3), 0x2000ff);
    CHECK_EQ((sim_msr(MSR_IA32_RTIT_CTL) >> 32) & 0xff, 0x21);

    sim_pt_source(pass, sizeof(pass));
    pt_cpu_start(&c);
    sim_pt_run(1000);
    pt_cpu_pause(&c);
    CHECK_EQ(c.state, PT_CPU_PAUSED);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_CTL) & RTIT_CTL_TRACE_EN, 0);
    sim_pt_run(5000); /* not traced */
    CHECK_EQ(sim_pt_written(), 1000);
    pt_cpu_resume(&c);
    sim_pt_run(1000);
    CHECK_EQ(sim_pt_written(), 2000);
    CHECK(pt_cpu_stop(&c, 0));
    CHECK_EQ(c.tail, 2000);
    expect_no_faults("ranges, pause and resume");

    /* A region misaligned to its size is an operational error: no #GP, nothing written,
     * counted at the stop. */
    pt_cpu_init(&c, &caps, &bufs[0], NULL, &cfg, ctl);
    pt_cpu_program(&c, &cfg);
    bufs[0].table[0] += 4096;
    pt_cpu_start(&c);
    uint64_t before = sim_pt_written();
    sim_pt_run(3000);
    CHECK_EQ(sim_pt_written(), before);
    CHECK(sim_msr(MSR_IA32_RTIT_STATUS) & RTIT_STATUS_ERROR);
    CHECK(pt_cpu_stop(&c, 0));
    CHECK_EQ(c.errors, 1);
    expect_no_faults("operational error");

    /* A stop that interrupts the PMI handler (an exception inside it) is carried out by
     * the handler as it leaves. */
    pt_cpu_init(&c, &caps, &bufs[0], NULL, &cfg, ctl);
    pt_cpu_program(&c, &cfg);
    pt_cpu_start(&c);
    c.state = PT_CPU_BUSY;
    CHECK_EQ(pt_cpu_stop(&c, 77), 1);
    CHECK_EQ(c.state, PT_CPU_BUSY);
    c.state = PT_CPU_TRACING;
    sim_pt_run(bufs[0].bytes + PASS_BYTES); /* from a PSB, past the last region: a wrap PMI */
    CHECK(sim_take_pmi());
    CHECK_EQ(pt_cpu_pmi(&c), 1);
    CHECK_EQ(c.state, PT_CPU_DONE);
    CHECK_EQ(c.done_tsc, 77);
    CHECK_EQ(sim_msr(MSR_IA32_RTIT_CTL) & RTIT_CTL_TRACE_EN, 0);
    expect_no_faults("stop during the PMI");
    CHECK_EQ(pt_cpu_pmi(&c), 0); /* bit 55 is clear: not the trace unit's */
}

static void run_test(const char *name, void (*fn)(void))
{
    int before = check_failures;

    fn();
    expect_no_faults(name);
    printf("%s %s\n", check_failures == before ? "ok  " : "FAIL", name);
}

#define RUN(test) run_test(#test, test)

int main(void)
{
    memory = aligned_alloc(MEMORY_BYTES, MEMORY_BYTES); /* so single ranges can be large */
    if (!memory)
        return 2;
    make_pass();
    RUN(test_sim_rtit_rules);
    RUN(test_probe);
    RUN(test_config_ctl);
    RUN(test_layout);
    RUN(test_full_mode);
    RUN(test_full_stop_then_room);
    RUN(test_snapshot);
    RUN(test_ranges_pause_and_errors);
    free(memory);
    return check_report("test_pt");
}
