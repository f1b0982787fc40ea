/* GET_SYS_CONFIG decoding (see collect_sysinfo.h and the blob's layout in acart_wire.h). */
#include "collect_sysinfo.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collect_link.h"

#define CPUID_LEAF_VENDOR   0x0u
#define CPUID_LEAF_FEATURES 0x1u
#define CPUID_LEAF_X2APIC   0xBu
#define CPUID_LEAF_EXT_FEAT 0x7u /* sub-leaf 0 only in the blob */
#define CPUID_LEAF_ARCH_LBR 0x1Cu

struct blob {
    const uint8_t *bytes;
    size_t len;
    struct diag *d;
};

static int bad(struct blob *b, const char *what, uint64_t offset)
{
    return diag_fail(b->d, COLLECT_DIAG_TARGET,
                     "GET_SYS_CONFIG: %s (at byte %" PRIu64
                     " of the %zu-byte system configuration)",
                     what, offset, b->len);
}

/* Copies size bytes at offset into out, if they lie inside the blob. */
static int read_at(struct blob *b, uint64_t offset, void *out, size_t size, const char *what)
{
    if (offset > b->len || size > b->len - offset)
        return bad(b, what, offset);
    memcpy(out, b->bytes + offset, size);
    return 0;
}

/* Reads the array header at offset and checks its type and entry size; *first is where
 * its entries begin. */
static int read_array(struct blob *b, uint64_t offset, uint16_t type, size_t entry_size,
                      struct sep_sysinfo_array_hdr *h, uint64_t *first, const char *what)
{
    int rc = read_at(b, offset, h, sizeof *h, what);
    if (rc)
        return rc;
    if (h->type != type || h->hdr_size < sizeof *h || h->entry_size < entry_size)
        return bad(b, what, offset);
    uint64_t end = offset + h->hdr_size + (uint64_t)h->num_entries * h->entry_size;
    if (end > b->len)
        return bad(b, what, offset);
    *first = offset + h->hdr_size;
    return 0;
}

static void copy_vendor(char *vendor, const struct sep_sysinfo_cpuid *leaf)
{
    memcpy(vendor, &leaf->ebx, 4);
    memcpy(vendor + 4, &leaf->edx, 4);
    memcpy(vendor + 8, &leaf->ecx, 4);
    vendor[12] = '\0';
    if (strlen(vendor) != 12)
        vendor[0] = '\0';
}

/* APIC id, the LBR leaves and, for CPU 0, the vendor, from the CPU's CPUID leaves. */
static int read_leaves(struct blob *b, uint64_t offset, struct sysinfo_cpu *c, char *vendor)
{
    struct sep_sysinfo_array_hdr h;
    uint64_t at;
    int rc = read_array(b, offset, SEP_SYSINFO_TYPE_CPUID, sizeof(struct sep_sysinfo_cpuid), &h,
                        &at, "bad CPUID array");
    if (rc)
        return rc;
    int have_x2apic = 0;
    for (uint32_t i = 0; i < h.num_entries; i++, at += h.entry_size) {
        struct sep_sysinfo_cpuid leaf;
        memcpy(&leaf, b->bytes + at, sizeof leaf);
        if (leaf.eax_input == CPUID_LEAF_VENDOR && vendor)
            copy_vendor(vendor, &leaf);
        else if (leaf.eax_input == CPUID_LEAF_EXT_FEAT)
            c->cpuid7_edx = leaf.edx;
        else if (leaf.eax_input == CPUID_LEAF_ARCH_LBR) {
            c->cpuid1c_eax = leaf.eax;
            c->cpuid1c_ebx = leaf.ebx;
        } else if (leaf.eax_input == CPUID_LEAF_FEATURES && !have_x2apic)
            c->apic_id = leaf.ebx >> 24;
        else if (leaf.eax_input == CPUID_LEAF_X2APIC && !have_x2apic) {
            /* The first 0BH entry is sub-leaf 0; its EDX is the full x2APIC id. */
            c->apic_id = leaf.edx;
            have_x2apic = 1;
        }
    }
    return 0;
}

int sysinfo_parse(const void *bytes, size_t len, uint32_t num_cpus, struct sysinfo *out,
                  struct diag *d)
{
    struct blob b = {bytes, len, d};
    struct sep_sysinfo top;
    struct sep_sysinfo_array_hdr h;
    struct sep_sysinfo_node node;
    uint64_t at;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = read_at(&b, 0, &top, sizeof top, "truncated header")) ||
        (rc = read_array(&b, top.node_array.offset, SEP_SYSINFO_TYPE_NODE, sizeof node, &h, &at,
                         "bad node array")))
        return rc;
    if (h.num_entries == 0)
        return bad(&b, "no node", top.node_array.offset);
    memcpy(&node, b.bytes + at, sizeof node);
    if ((rc = read_array(&b, node.percpu_array.offset, SEP_SYSINFO_TYPE_PER_CPU,
                         sizeof(struct sep_sysinfo_cpu), &h, &at, "bad per-CPU array")))
        return rc;
    if (h.num_entries != num_cpus)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_SYS_CONFIG lists %" PRIu32 " CPUs, the handshake %" PRIu32,
                         h.num_entries, num_cpus);
    out->cpus = calloc(num_cpus, sizeof *out->cpus);
    if (!out->cpus)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    out->num_cpus = num_cpus;
    for (uint32_t i = 0; i < num_cpus; i++, at += h.entry_size) {
        struct sep_sysinfo_cpu e;
        memcpy(&e, b.bytes + at, sizeof e);
        if (e.cpu_number >= num_cpus) {
            rc = bad(&b, "CPU number out of range", at);
            break;
        }
        struct sysinfo_cpu *c = &out->cpus[e.cpu_number];
        c->package = e.cpu_package_num;
        c->core = e.cpu_core_num;
        c->thread = e.cpu_hw_thread_num;
        c->module = e.cpu_module_id;
        c->num_modules = e.cpu_num_modules;
        c->core_type = e.cpu_core_type;
        c->perfmon_version = e.arch_perfmon_ver;
        c->gp_counters = e.num_gp_counters;
        c->fixed_counters = e.num_fixed_counters;
        if (e.cpuid_array.offset &&
            (rc = read_leaves(&b, e.cpuid_array.offset, c, e.cpu_number == 0 ? out->vendor : NULL)))
            break;
    }
    if (rc)
        sysinfo_free(out);
    return rc;
}

int sysinfo_flat(uint32_t num_cpus, struct sysinfo *out, struct diag *d)
{
    memset(out, 0, sizeof *out);
    out->cpus = calloc(num_cpus, sizeof *out->cpus);
    if (!out->cpus)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    out->num_cpus = num_cpus;
    for (uint32_t i = 0; i < num_cpus; i++) {
        out->cpus[i].core = (uint16_t)i;
        out->cpus[i].num_modules = 1;
    }
    return 0;
}

void sysinfo_topology(const struct sysinfo *si, struct sep_cpu_topology *out)
{
    memset(out, 0, si->num_cpus * sizeof *out);
    for (uint32_t i = 0; i < si->num_cpus; i++) {
        const struct sysinfo_cpu *c = &si->cpus[i];
        struct sep_cpu_topology *t = &out[i];
        t->cpu_number = i;
        t->cpu_package_num = c->package;
        t->cpu_core_num = c->core;
        t->cpu_hw_thread_num = c->thread;
        t->socket_master = t->core_master = t->cpu_module_master = 1;
        for (uint32_t j = 0; j < i; j++) {
            const struct sysinfo_cpu *o = &si->cpus[j];
            if (o->package == c->package) {
                t->socket_master = 0;
                if (o->core == c->core)
                    t->core_master = 0;
                if (o->module == c->module)
                    t->cpu_module_master = 0;
            }
        }
        t->thr_master = 1;
        t->cpu_module_num = c->module;
        t->cpu_num_modules = c->num_modules;
        t->cpu_core_type = c->core_type;
        t->arch_perfmon_ver = c->perfmon_version;
        t->num_gp_counters = c->gp_counters;
        t->num_fixed_counters = c->fixed_counters;
    }
}

void sysinfo_free(struct sysinfo *si)
{
    free(si->cpus);
    memset(si, 0, sizeof *si);
}
