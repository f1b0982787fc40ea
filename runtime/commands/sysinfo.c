#include "sysinfo.h"
#include "control_framing.h"
#include "target.h"

#include "cpuid.h"
#include "acart_platform.h"
#include "io.h"
#include "msr_safe.h"
#include "topology.h"

#include <string.h>

#define MAX_LEAVES 64

struct cpu_leaves {
    uint32_t count;
    struct sep_sysinfo_cpuid leaf[MAX_LEAVES];
    uint32_t apic_id;
};

/* The whole configuration for ACA_MAX_CPUS CPUs with every leaf, or what a reply can carry. */
#define SYSINFO_MAX_BYTES                                                                          \
    (sizeof(struct sep_sysinfo) + 2 * sizeof(struct sep_sysinfo_array_hdr) +                       \
     sizeof(struct sep_sysinfo_node) +                                                             \
     ACA_MAX_CPUS * (sizeof(struct sep_sysinfo_cpu) + sizeof(struct sep_sysinfo_array_hdr) +       \
                     MAX_LEAVES * sizeof(struct sep_sysinfo_cpuid)))
#define BLOB_BYTES                                                                                 \
    (SYSINFO_MAX_BYTES < CONTROL_MAX_PAYLOAD ? SYSINFO_MAX_BYTES : CONTROL_MAX_PAYLOAD)

static struct cpu_leaves leaves[ACA_MAX_CPUS];
static int64_t skew[ACA_MAX_CPUS];
static uint8_t blob[BLOB_BYTES];
static uint32_t blob_size;

static void add_leaf(struct cpu_leaves *c, uint32_t leaf, uint32_t subleaf)
{
    if (c->count >= MAX_LEAVES)
        return;
    struct cpuid_regs r = cpuid(leaf, subleaf);
    struct sep_sysinfo_cpuid *e = &c->leaf[c->count++];
    e->eax_input = leaf;
    e->eax = r.eax;
    e->ebx = r.ebx;
    e->ecx = r.ecx;
    e->edx = r.edx;
}

/* Sub-leafed leaves are listed once per sub-leaf, in order, as the host expects. */
static void read_leaves_on_this_cpu(void *arg)
{
    (void)arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= target.num_cpus)
        return;
    struct cpu_leaves *c = &leaves[cpu];
    c->count = 0;
    c->apic_id = cpu_apic_id();
    uint32_t max = cpuid_max_leaf();
    if (max > 0x1f)
        max = 0x1f;
    for (uint32_t leaf = 0; leaf <= max; leaf++) {
        if (leaf == 4 || leaf == 0xb || leaf == 0x1f) {
            for (uint32_t sub = 0; sub < 8; sub++) {
                struct cpuid_regs r = cpuid(leaf, sub);
                if ((leaf == 4 && (r.eax & 0x1f) == 0) || (leaf != 4 && ((r.ecx >> 8) & 0xff) == 0))
                    break;
                add_leaf(c, leaf, sub);
            }
        } else {
            add_leaf(c, leaf, 0);
        }
    }
    uint32_t ext = cpuid(0x80000000u, 0).eax;
    if (ext > 0x80000008u)
        ext = 0x80000008u;
    for (uint32_t leaf = 0x80000000u; leaf <= ext && ext >= 0x80000000u; leaf++)
        add_leaf(c, leaf, 0);
}

/* Every CPU waits at a gate, then reads its TSC as soon as CPU 0 opens it; the spread is
 * the skew (plus the few cycles a store takes to become visible). */
static volatile uint32_t gate, arrived;
static uint64_t tsc_at_gate[ACA_MAX_CPUS];

static void read_tsc_at_gate(void *arg)
{
    (void)arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= target.num_cpus)
        return;
    __atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
    if (cpu == 0) {
        while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < target.num_cpus)
            cpu_relax();
        __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
    } else {
        while (!__atomic_load_n(&gate, __ATOMIC_ACQUIRE))
            cpu_relax();
    }
    tsc_at_gate[cpu] = rdtsc();
}

static uint32_t put(uint32_t at, const void *p, uint32_t len)
{
    if (at + len <= sizeof(blob))
        memcpy(blob + at, p, len);
    return at + len;
}

static struct sep_sysinfo_array_hdr array_header(uint32_t entries, uint32_t entry_size,
                                                 uint16_t type)
{
    struct sep_sysinfo_array_hdr h;
    memset(&h, 0, sizeof(h));
    h.hdr_size = sizeof(h);
    h.num_entries = entries;
    h.entry_size = entry_size;
    h.type = type;
    h.subtype = SEP_SYSINFO_SUB_X86;
    return h;
}

uint32_t sysinfo_build(void)
{
    uint32_t n = target.num_cpus;
    aca_plat_call_on_all_cpus(read_leaves_on_this_cpu, 0);
    gate = 0;
    arrived = 0;
    aca_plat_call_on_all_cpus(read_tsc_at_gate, 0);
    for (uint32_t i = 0; i < n; i++)
        skew[i] = (int64_t)(tsc_at_gate[i] - tsc_at_gate[0]);

    uint32_t at = 0;
    struct sep_sysinfo top;
    memset(&top, 0, sizeof(top));
    top.node_array.offset = sizeof(top);
    top.min_app_address = ~0ull;
    top.max_app_address = ~0ull;
    top.page_size = 4096;
    top.allocation_granularity = 4096;
    at = put(at, &top, sizeof(top));

    struct sep_sysinfo_array_hdr nh =
        array_header(1, sizeof(struct sep_sysinfo_node), SEP_SYSINFO_TYPE_NODE);
    at = put(at, &nh, sizeof(nh));
    struct sep_sysinfo_node node;
    memset(&node, 0, sizeof(node));
    node.node_type_from_shell = SEP_SYSINFO_NA32;
    node.node_id = SEP_SYSINFO_NA32;
    node.node_num_available = n;
    node.node_num_used = SEP_SYSINFO_NA32;
    node.percpu_array.offset = at + sizeof(node);
    at = put(at, &node, sizeof(node));

    struct sep_sysinfo_array_hdr ch =
        array_header(n, sizeof(struct sep_sysinfo_cpu), SEP_SYSINFO_TYPE_PER_CPU);
    at = put(at, &ch, sizeof(ch));
    uint32_t cpus_at = at;
    at += n * (uint32_t)sizeof(struct sep_sysinfo_cpu);

    struct cpuid_regs a = cpuid_max_leaf() >= 0xa ? cpuid(0xa, 0) : (struct cpuid_regs){0};
    for (uint32_t i = 0; i < n; i++) {
        struct sep_sysinfo_cpu cpu;
        struct cpu_topology topo;
        topology_decode(leaves[i].apic_id, &topo);
        memset(&cpu, 0, sizeof(cpu));
        cpu.cpu_number = i;
        cpu.cpu_speed_mhz = (uint32_t)(aca_plat_tsc_hz() / 1000000u);
        cpu.cpu_fsb_mhz = SEP_SYSINFO_NA32;
        cpu.cpu_cache_l2_kb = SEP_SYSINFO_NA32;
        cpu.cpu_cache_l3_kb = SEP_SYSINFO_NA32;
        cpu.cpu_intel_processor_number = SEP_SYSINFO_NA32;
        cpu.cpu_tsc_offset = skew[i];
        cpu.cpu_package_num = (uint16_t)topo.package_id;
        cpu.cpu_core_num = (uint16_t)topo.core_id;
        cpu.cpu_hw_thread_num = (uint16_t)topo.thread_id;
        cpu.cpu_threads_per_core = 1;
        cpu.cpu_num_modules = 1;
        cpu.arch_perfmon_ver = a.eax & 0xff;
        cpu.num_gp_counters = (a.eax >> 8) & 0xff;
        cpu.num_fixed_counters = a.edx & 0x1f;
        cpu.cpuid_array.offset = at;
        put(cpus_at + i * (uint32_t)sizeof(cpu), &cpu, sizeof(cpu));

        struct sep_sysinfo_array_hdr lh =
            array_header(leaves[i].count, sizeof(struct sep_sysinfo_cpuid), SEP_SYSINFO_TYPE_CPUID);
        at = put(at, &lh, sizeof(lh));
        at = put(at, leaves[i].leaf, leaves[i].count * (uint32_t)sizeof(struct sep_sysinfo_cpuid));
    }
    blob_size = at <= sizeof(blob) ? at : 0;
    return blob_size;
}

const void *sysinfo_blob(uint32_t *size)
{
    *size = blob_size;
    return blob;
}

int64_t sysinfo_tsc_skew(uint32_t cpu)
{
    return cpu < ACA_MAX_CPUS ? skew[cpu] : 0;
}
