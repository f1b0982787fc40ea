/*
 * The GET_SYS_CONFIG blob as `acart collect` reads it (tools/collect/setup/collect_sysinfo.c): a
 * blob laid out as the agent builds it (runtime/commands/sysinfo.c) decodes to each CPU's topology,
 * APIC id and counters and to the vendor; SET_CPU_TOPOLOGY entries get their masters; a blob whose
 * offsets, types or counts do not hold is refused, never read past its end.
 */
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "acart_check.h"
#include "collect_link.h"
#include "collect_sysinfo.h"

#define NCPU 4

static uint8_t blob[8192];
static size_t blob_len;
/* Offsets the corruption tests poke at. */
static size_t percpu_hdr_at, cpu_at[NCPU], leaves_at[NCPU];

static const uint16_t package[NCPU] = {0, 0, 1, 1};
static const uint16_t core[NCPU] = {0, 1, 0, 0};
static const uint16_t thread[NCPU] = {0, 0, 0, 1};

static size_t put(size_t at, const void *p, size_t len)
{
    memcpy(blob + at, p, len);
    return at + len;
}

static struct sep_sysinfo_array_hdr array_hdr(uint32_t n, uint32_t size, uint16_t type)
{
    struct sep_sysinfo_array_hdr h;
    memset(&h, 0, sizeof h);
    h.hdr_size = sizeof h;
    h.num_entries = n;
    h.entry_size = size;
    h.type = type;
    h.subtype = SEP_SYSINFO_SUB_X86;
    return h;
}

/* CPU i has leaves 0 (vendor), 1 (APIC id 0x10 + i) and, on odd CPUs, 0BH sub-leaves 0
 * and 1 with x2APIC id 0x100 + i, which must win over leaf 1. */
static void build_blob(void)
{
    struct sep_sysinfo top;
    struct sep_sysinfo_node node;
    memset(blob, 0, sizeof blob);
    memset(&top, 0, sizeof top);
    memset(&node, 0, sizeof node);
    top.node_array.offset = sizeof top;
    size_t at = put(0, &top, sizeof top);
    struct sep_sysinfo_array_hdr h = array_hdr(1, sizeof node, SEP_SYSINFO_TYPE_NODE);
    at = put(at, &h, sizeof h);
    node.node_num_available = NCPU;
    node.percpu_array.offset = at + sizeof node;
    at = put(at, &node, sizeof node);
    percpu_hdr_at = at;
    h = array_hdr(NCPU, sizeof(struct sep_sysinfo_cpu), SEP_SYSINFO_TYPE_PER_CPU);
    at = put(at, &h, sizeof h);
    size_t cpus = at;
    at += NCPU * sizeof(struct sep_sysinfo_cpu);
    for (uint32_t i = 0; i < NCPU; i++) {
        struct sep_sysinfo_cpu c;
        memset(&c, 0, sizeof c);
        /* Listed in reverse: the CPU number, not the position, says which CPU it is. */
        c.cpu_number = NCPU - 1 - i;
        c.cpu_package_num = package[c.cpu_number];
        c.cpu_core_num = core[c.cpu_number];
        c.cpu_hw_thread_num = thread[c.cpu_number];
        c.cpu_num_modules = 1;
        c.arch_perfmon_ver = 4;
        c.num_gp_counters = 8;
        c.num_fixed_counters = 3 + c.cpu_number;
        c.cpuid_array.offset = at;
        cpu_at[c.cpu_number] = cpus + i * sizeof c;
        put(cpu_at[c.cpu_number], &c, sizeof c);
        leaves_at[c.cpu_number] = at;
        struct sep_sysinfo_cpuid leaves[4] = {
            {0, 0xd, 0x756e6547, 0x6c65746e, 0x49656e69}, /* "GenuineIntel" */
            {1, 0x806ec, (0x10 + c.cpu_number) << 24, 0, 0},
            {0xb, 0, 1, 0x100, 0x100 + c.cpu_number},
            {0xb, 4, 4, 0x201, 0x100 + c.cpu_number},
        };
        uint32_t n = c.cpu_number % 2 ? 4 : 2;
        h = array_hdr(n, sizeof leaves[0], SEP_SYSINFO_TYPE_CPUID);
        at = put(at, &h, sizeof h);
        at = put(at, leaves, n * sizeof leaves[0]);
    }
    blob_len = at;
}

static void test_decode(void)
{
    struct sysinfo si;
    struct diag d = {0};
    build_blob();
    CHECK_EQ(sysinfo_parse(blob, blob_len, NCPU, &si, &d), 0);
    if (d.code) {
        fprintf(stderr, "%s\n", d.msg);
        return;
    }
    CHECK(strcmp(si.vendor, "GenuineIntel") == 0);
    CHECK_EQ(si.num_cpus, NCPU);
    for (uint32_t i = 0; i < NCPU; i++) {
        CHECK_EQ(si.cpus[i].package, package[i]);
        CHECK_EQ(si.cpus[i].core, core[i]);
        CHECK_EQ(si.cpus[i].thread, thread[i]);
        CHECK_EQ(si.cpus[i].apic_id, i % 2 ? 0x100 + i : 0x10 + i);
        CHECK_EQ(si.cpus[i].perfmon_version, 4);
        CHECK_EQ(si.cpus[i].gp_counters, 8);
        CHECK_EQ(si.cpus[i].fixed_counters, 3 + i);
    }

    struct sep_cpu_topology t[NCPU];
    sysinfo_topology(&si, t);
    static const int socket_master[NCPU] = {1, 0, 1, 0};
    static const int core_master[NCPU] = {1, 1, 1, 0};
    static const int module_master[NCPU] = {1, 0, 1, 0};
    for (uint32_t i = 0; i < NCPU; i++) {
        CHECK_EQ(t[i].cpu_number, i);
        CHECK_EQ(t[i].cpu_package_num, package[i]);
        CHECK_EQ(t[i].cpu_core_num, core[i]);
        CHECK_EQ(t[i].cpu_hw_thread_num, thread[i]);
        CHECK_EQ(t[i].socket_master, socket_master[i]);
        CHECK_EQ(t[i].core_master, core_master[i]);
        CHECK_EQ(t[i].thr_master, 1);
        CHECK_EQ(t[i].cpu_module_master, module_master[i]);
        CHECK_EQ(t[i].cpu_num_modules, 1);
        CHECK_EQ(t[i].arch_perfmon_ver, 4);
        CHECK_EQ(t[i].num_fixed_counters, 3 + i);
    }
    sysinfo_free(&si);
}

/* Parses the blob as corrupted by the caller; it must be refused as the target's fault. */
static void expect_refused(size_t len, uint32_t ncpu, const char *what)
{
    struct sysinfo si;
    struct diag d = {0};
    int rc = sysinfo_parse(blob, len, ncpu, &si, &d);
    if (rc != COLLECT_DIAG_TARGET || d.code != COLLECT_DIAG_TARGET || !d.msg[0]) {
        fprintf(stderr, "%s: not refused (rc %d)\n", what, rc);
        check_failures++;
    }
    if (rc == 0)
        sysinfo_free(&si);
    CHECK(si.cpus == NULL);
    build_blob();
}

static void poke32(size_t at, uint32_t v)
{
    memcpy(blob + at, &v, sizeof v);
}

static void test_refused(void)
{
    build_blob();
    for (size_t len = 0; len < blob_len; len += 37)
        expect_refused(len, NCPU, "truncated");
    expect_refused(blob_len - 1, NCPU, "one byte short");
    expect_refused(blob_len, NCPU + 1, "more CPUs in the handshake");
    expect_refused(blob_len, NCPU - 1, "fewer CPUs in the handshake");

    poke32(offsetof(struct sep_sysinfo, node_array) + offsetof(struct sep_sysinfo_ref, offset),
           (uint32_t)blob_len);
    expect_refused(blob_len, NCPU, "node array past the end");
    poke32(percpu_hdr_at + offsetof(struct sep_sysinfo_array_hdr, type), SEP_SYSINFO_TYPE_CPUID);
    expect_refused(blob_len, NCPU, "per-CPU array of the wrong type");
    poke32(percpu_hdr_at + offsetof(struct sep_sysinfo_array_hdr, entry_size), 100);
    expect_refused(blob_len, NCPU, "per-CPU entries too small");
    poke32(cpu_at[2] + offsetof(struct sep_sysinfo_cpu, cpu_number), NCPU);
    expect_refused(blob_len, NCPU, "CPU number out of range");
    poke32(cpu_at[3] + offsetof(struct sep_sysinfo_cpu, cpuid_array) +
               offsetof(struct sep_sysinfo_ref, offset),
           (uint32_t)blob_len - 10);
    expect_refused(blob_len, NCPU, "CPUID array past the end");
    poke32(leaves_at[1] + offsetof(struct sep_sysinfo_array_hdr, num_entries), 0x10000000);
    expect_refused(blob_len, NCPU, "CPUID array longer than the blob");
}

static void test_flat(void)
{
    struct sysinfo si;
    struct diag d = {0};
    CHECK_EQ(sysinfo_flat(3, &si, &d), 0);
    struct sep_cpu_topology t[3];
    sysinfo_topology(&si, t);
    for (uint32_t i = 0; i < 3; i++) {
        CHECK_EQ(t[i].cpu_number, i);
        CHECK_EQ(t[i].cpu_core_num, i);
        CHECK_EQ(t[i].socket_master, i == 0);
        CHECK_EQ(t[i].core_master, 1);
    }
    CHECK(si.vendor[0] == '\0');
    sysinfo_free(&si);
}

int main(void)
{
    test_decode();
    test_refused();
    test_flat();
    return check_report("test_collect_sysinfo");
}
