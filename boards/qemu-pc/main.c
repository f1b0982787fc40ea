/* The qemu-pc board: boots every CPU, brings up lwIP on the e1000, starts acart (or the
 * echo self-test), and runs the workload chosen on the kernel command line. */
#include "acart_opts.h"
#include "acart_x86.h"
#include "console.h"
#include "cpuid.h"
#include "echo.h"
#include "io.h"
#include "lapic.h"
#include "net.h"
#include "percpu.h"
#include "serial.h"
#include "smp.h"
#include "tasks.h"
#include "trap_report.h"
#include "selfmeasure.h"
#include "trap.h"
#include "tsc.h"
#include "workloads.h"

#include "acart.h"
#include "acart_platform.h"
#include "bench_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MULTIBOOT_BOOTLOADER_MAGIC 0x2badb002
#define IMAGE_NAME                 "acart-qemu-pc.elf"
#define ECHO_PORT                  9322

/* The start of the multiboot information structure: flags, then (bit 2) the command line
 * at offset 16. */
struct multiboot_info {
    uint32_t flags;
    // cppcheck-suppress unusedStructMember ; layout only: mem_lower, mem_upper, boot_device
    uint32_t fields_we_skip[3];
    uint32_t cmdline;
};

extern const char __text_start[], __text_end[];
extern uint8_t boot_stack_guard[], boot_stack[], boot_stack_top[];

static const struct workload *workload;
static enum aca_transfer_mode transfer_mode = ACA_TRANSFER_DELAYED;
static uint32_t bench_timer_hz;
static int run_selftest;
static int count_nmis;
static uint32_t irq_busy_us;
static struct aca_config session_timeouts; /* only the timeout fields are used */
static uint32_t ring_kib;                  /* ring-kib=N: rings of N KiB per CPU from big_rings */
/* allow=A.B.C.D/N[,...]: the hosts allowed to connect (aca_config.allowed_hosts). */
static struct aca_allowed_hosts allowed[4];
static uint32_t num_allowed;
/* Room for rings larger than the library's built-in ones: tests that need more records
 * in flight than every buffer between the board and the host holds. */
static uint8_t big_rings[32u << 20] __attribute__((aligned(64)));
#if ACA_WITH_PT
/* Intel PT trace memory, used where the CPU has PT (not under TCG): libacart has no pool of
 * its own by default (ACA_PT_POOL_BYTES). */
static uint8_t pt_memory[2u << 20] __attribute__((aligned(64 * 1024)));
#endif
static volatile uint32_t workloads_released;
static uint64_t boot_tsc;

struct boot_options {
    const char *workload;
    struct net_config net;
};

/* Parses "workload=NAME dhcp ip=A.B.C.D transfer=immediate bench-timer-hz=N
 * keepalive=IDLE_MS,INTERVAL_MS,COUNT handshake-timeout-ms=N drain-stall-ms=N
 * drain-min-bytes=N ring-kib=N selfmeasure=DELAY_MS,SECONDS allow=A.B.C.D/N[,...]" from
 * the kernel command line. */
static void parse_cmdline(const char *cmdline, struct boot_options *opt)
{
    static char copy[256];
    strncpy(copy, cmdline ? cmdline : "", sizeof(copy) - 1);
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
        if (strncmp(tok, "workload=", 9) == 0) {
            opt->workload = tok + 9;
        } else if (strcmp(tok, "transfer=immediate") == 0) {
            transfer_mode = ACA_TRANSFER_IMMEDIATE;
        } else if (strncmp(tok, "bench-timer-hz=", 15) == 0) {
            bench_timer_hz = (uint32_t)strtoul(tok + 15, NULL, 10);
        } else if (strncmp(tok, "keepalive=", 10) == 0) {
            unsigned long idle, interval, count;
            if (sscanf(tok + 10, "%lu,%lu,%lu", &idle, &interval, &count) == 3) {
                session_timeouts.keepalive_idle_ms = (uint32_t)idle;
                session_timeouts.keepalive_interval_ms = (uint32_t)interval;
                session_timeouts.keepalive_count = (uint32_t)count;
            }
        } else if (strncmp(tok, "handshake-timeout-ms=", 21) == 0) {
            session_timeouts.handshake_timeout_ms = (uint32_t)strtoul(tok + 21, NULL, 10);
        } else if (strncmp(tok, "drain-stall-ms=", 15) == 0) {
            session_timeouts.drain_stall_ms = (uint32_t)strtoul(tok + 15, NULL, 10);
        } else if (strncmp(tok, "irq-busy-us=", 12) == 0) {
            irq_busy_us = (uint32_t)strtoul(tok + 12, NULL, 10);
        } else if (strcmp(tok, "count-nmis") == 0) {
            count_nmis = 1;
        } else if (strcmp(tok, "selftest") == 0) {
            run_selftest = 1;
        } else if (strncmp(tok, "ring-kib=", 9) == 0) {
            ring_kib = (uint32_t)strtoul(tok + 9, NULL, 10);
        } else if (strncmp(tok, "drain-min-bytes=", 16) == 0) {
            session_timeouts.drain_min_bytes = (uint32_t)strtoul(tok + 16, NULL, 10);
        } else if (strncmp(tok, "selfmeasure=", 12) == 0) {
            selfmeasure_configure(tok + 12);
        } else if (strncmp(tok, "allow=", 6) == 0) {
            for (const char *p = tok + 6; p && num_allowed < sizeof(allowed) / sizeof(allowed[0]);
                 p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
                unsigned a, b, c, d, len;
                if (sscanf(p, "%u.%u.%u.%u/%u", &a, &b, &c, &d, &len) == 5)
                    allowed[num_allowed++] = (struct aca_allowed_hosts){
                        ACA_IPV4(a, b, c, d), (uint8_t)(len > 32 ? 33 : len)};
            }
        } else if (strcmp(tok, "dhcp") == 0) {
            opt->net.use_dhcp = 1;
        } else if (strncmp(tok, "ip=", 3) == 0) {
            unsigned a, b, c, d;
            if (sscanf(tok + 3, "%u.%u.%u.%u", &a, &b, &c, &d) == 4)
                opt->net.ip = (a << 24) | (b << 16) | (c << 8) | d;
        }
    }
}

static void ignore_interrupt(struct trap_frame *frame)
{
    (void)frame;
}

static void ap_entry(uint32_t cpu)
{
    lapic_write(LAPIC_REG_LVT_LINT1, LAPIC_LVT_NMI); /* external NMIs reach every CPU */
    while (!__atomic_load_n(&workloads_released, __ATOMIC_ACQUIRE))
        cpu_relax();
    char name[32];
    snprintf(name, sizeof(name), "%s%lu", workload->name, (unsigned long)cpu);
    task_switch_to((uint32_t)task_create(name, cpu));
    if (bench_timer_hz)
        bench_timer_start_this_cpu(bench_timer_hz);
    workload->run(cpu);
}

static void on_network_up(uint32_t ip)
{
    uint64_t ms = (rdtsc() - boot_tsc) / (tsc_hz() / 1000);
    console_printf("net: up at %lu.%lu.%lu.%lu after %lu ms\n", (unsigned long)(ip >> 24),
                   (unsigned long)((ip >> 16) & 0xff), (unsigned long)((ip >> 8) & 0xff),
                   (unsigned long)(ip & 0xff), (unsigned long)ms);
    struct aca_config cfg;
    aca_config_init(&cfg);
    cfg.transfer = transfer_mode;
    cfg.keepalive_idle_ms = session_timeouts.keepalive_idle_ms;
    cfg.keepalive_interval_ms = session_timeouts.keepalive_interval_ms;
    cfg.keepalive_count = session_timeouts.keepalive_count;
    cfg.handshake_timeout_ms = session_timeouts.handshake_timeout_ms;
    cfg.drain_stall_ms = session_timeouts.drain_stall_ms;
    cfg.drain_min_bytes = session_timeouts.drain_min_bytes;
#if ACA_WITH_PT
    cfg.pt_memory = pt_memory;
    cfg.pt_memory_bytes = sizeof(pt_memory);
#endif
    if (num_allowed) {
        cfg.allowed_hosts = allowed;
        cfg.num_allowed_hosts = num_allowed;
    }
    if (ring_kib) {
        uint32_t per_cpu = sizeof(big_rings) / smp_num_cpus() & ~63u;
        cfg.ring_memory = big_rings;
        cfg.ring_bytes_per_cpu = ring_kib * 1024 < per_cpu ? ring_kib * 1024 : per_cpu;
    }
    int err = aca_start(&cfg);
    if (err == ACA_OK) {
        net_set_poll(aca_poll);
        console_printf("acart: listening on %lu.%lu.%lu.%lu:%u\n", (unsigned long)(ip >> 24),
                       (unsigned long)((ip >> 16) & 0xff), (unsigned long)((ip >> 8) & 0xff),
                       (unsigned long)(ip & 0xff), cfg.port);
    } else {
        console_printf("acart: aca_start failed: %s\n", aca_strerror(err));
    }
    if (bench_service_start() != 0)
        console_printf("bench: cannot listen on port %u\n", BENCH_PORT);
    if (echo_start(ECHO_PORT) == 0)
        console_printf("echo: listening on %lu.%lu.%lu.%lu:%u\n", (unsigned long)(ip >> 24),
                       (unsigned long)((ip >> 16) & 0xff), (unsigned long)((ip >> 8) & 0xff),
                       (unsigned long)(ip & 0xff), ECHO_PORT);
    else
        console_printf("echo: cannot listen on port %u\n", ECHO_PORT);
}

int aca_port_module_list(struct aca_module_info *out, int max)
{
    if (max >= 1) {
        out[0].pid = 0;
        out[0].start = (uintptr_t)__text_start;
        out[0].length = (uintptr_t)__text_end - (uintptr_t)__text_start;
        strncpy(out[0].name, IMAGE_NAME, sizeof(out[0].name) - 1);
    }
    return 1;
}

void board_main(uint32_t magic, const struct multiboot_info *mbi)
{
    struct boot_options opt = {
        .workload = "idle",
        .net = {0, 0x0a00020fu /* 10.0.2.15 */, 0xffffff00u, 0x0a000202u /* 10.0.2.2 */},
    };

    boot_tsc = rdtsc();
    x86_kit_init(boot_stack, boot_stack_top);
    x86_kit_guard_page(boot_stack_guard);
    trap_set_fatal_handler(trap_report_fatal);
    serial_init();
    console_printf("\nacart qemu-pc board\n");
    if (magic == MULTIBOOT_BOOTLOADER_MAGIC && (mbi->flags & (1u << 2)))
        parse_cmdline((const char *)(uintptr_t)mbi->cmdline, &opt);
    workload = workload_find(opt.workload);
    if (!workload) {
        console_printf("unknown workload '%s', using idle\n", opt.workload);
        workload = workload_find("idle");
    }

    trap_set_handler(TRAP_VECTOR_SPURIOUS, ignore_interrupt);
    if (count_nmis)
        bench_count_nmis();
    trap_set_handler(TRAP_VECTOR_PIC_BASE + 7, ignore_interrupt);
    trap_set_handler(TRAP_VECTOR_PIC_BASE + 15, ignore_interrupt);
    lapic_write(LAPIC_REG_LVT_LINT0, LAPIC_LVT_EXTINT);
    lapic_write(LAPIC_REG_LVT_LINT1, LAPIC_LVT_NMI);

    struct cpu_signature sig;
    cpu_read_signature(&sig);
    console_printf("cpu: %s family 0x%lx model 0x%lx stepping %lu\n", sig.vendor,
                   (unsigned long)sig.family, (unsigned long)sig.model,
                   (unsigned long)sig.stepping);
    console_printf("tsc: %llu Hz (%s); lapic: %s, timer %llu Hz\n", (unsigned long long)tsc_hz(),
                   tsc_source_name(), lapic_x2apic_enabled() ? "x2APIC" : "xAPIC",
                   (unsigned long long)lapic_timer_hz());
    console_printf("cpu 0 online (apic id %lu)\n", (unsigned long)percpu_table[0].apic_id);
    uint32_t ncpus = x86_kit_start_aps(ap_entry);
    for (uint32_t i = 1; i < ncpus; i++)
        console_printf("cpu %lu online (apic id %lu)\n", (unsigned long)i,
                       (unsigned long)percpu_table[i].apic_id);
    console_printf("smp: %lu cpus online\n", (unsigned long)ncpus);

    console_printf("Module: %s 0x%lx-0x%lx\n", IMAGE_NAME, (unsigned long)(uintptr_t)__text_start,
                   (unsigned long)(uintptr_t)__text_end);
    workload_print_info(workload);

    char name[32];
    snprintf(name, sizeof(name), "%s0", workload->name);
    int tid = task_create(name, 0);

    if (net_init(&opt.net, on_network_up) != 0)
        console_printf("net: disabled\n");
    else if (irq_busy_us)
        net_set_irq_busy(irq_busy_us);

    __atomic_store_n(&workloads_released, 1, __ATOMIC_RELEASE);
    task_switch_to((uint32_t)tid);
    if (bench_timer_hz) {
        console_printf("bench: bare LAPIC timer at %lu Hz on every cpu\n",
                       (unsigned long)bench_timer_hz);
        bench_timer_start_this_cpu(bench_timer_hz);
    }
    irq_enable();
    if (run_selftest)
        aca_selftest(); /* from the boot task, interrupts on, every CPU running its task */
    workload->run(0);
}

void aca_port_log(const char *line)
{
    console_printf("%s\n", line);
}

void _exit(int status)
{
    console_printf("exit(%d)\n", status);
    for (;;)
        __asm__ volatile("cli; hlt");
}
