/*
 * section_hardware.c - the hardware section (9.2.1): the system tree of nodes, cpus,
 * cpu architectures and cpuid values. On disk the tree is stored depth first, each
 * structure as its record followed by its children (docs/tb5-format.md).
 */
#include <stdlib.h>
#include <string.h>

#include "tb5_internal.h"

/* Bounds that keep a damaged or careless tree from asking for absurd memory. */
#define MAX_NODES         4096u
#define MAX_CPUS_PER_NODE 65536u
#define MAX_ARCHS_PER_CPU 16u
#define MAX_CPUIDS        1024u

static int is_ia64(uint16_t arch_type)
{
    return arch_type == TBRW_GST_ITANIUM;
}

static TBRW_U32 check_arch(const TBRW_CPU_ARCH *a)
{
    if (a->arch_size != sizeof(TBRW_CPU_ARCH))
        return TBRW_UNSUPPORTED_DATA_SIZE;
    if (a->arch_type != TBRW_GST_X86 && a->arch_type != TBRW_GST_ITANIUM &&
        a->arch_type != TBRW_GST_EM64T)
        return TBRW_UNSUPPORTED_ARCH_TYPE;
    if (a->arch_num_cpuid == 0 || a->arch_num_cpuid > MAX_CPUIDS)
        return TBRW_UNEXPECTED_NUM_CPUIDS;
    if (!a->cpuid_ia32_array)
        return TBRW_UNEXPECTED_NULL_PTR;
    return TBRW_SUCCESS;
}

static TBRW_U32 check_tree(const TBRW_SYSTEM *sys, size_t *len)
{
    size_t n = TB5_REC_SYSTEM;

    if (sys->system_size != sizeof(TBRW_SYSTEM))
        return TBRW_UNSUPPORTED_DATA_SIZE;
    if (sys->system_num_nodes > MAX_NODES)
        return TBRW_UNEXPECTED_VALUE;
    if (sys->system_num_nodes && !sys->node_array)
        return TBRW_UNEXPECTED_NULL_PTR;
    for (TBRW_U32 i = 0; i < sys->system_num_nodes; i++) {
        const TBRW_NODE *node = &sys->node_array[i];
        if (node->node_size != sizeof(TBRW_NODE))
            return TBRW_UNSUPPORTED_DATA_SIZE;
        if (node->node_num_available > MAX_CPUS_PER_NODE)
            return TBRW_UNEXPECTED_VALUE;
        if (node->node_num_available && !node->cpu_array)
            return TBRW_UNEXPECTED_NULL_PTR;
        n += TB5_REC_NODE;
        for (TBRW_U32 c = 0; c < node->node_num_available; c++) {
            const TBRW_CPU *cpu = &node->cpu_array[c];
            if (cpu->cpu_size != sizeof(TBRW_CPU))
                return TBRW_UNSUPPORTED_DATA_SIZE;
            if (cpu->num_cpu_arch_array > MAX_ARCHS_PER_CPU)
                return TBRW_UNEXPECTED_VALUE;
            if (cpu->num_cpu_arch_array && !cpu->cpu_arch_array)
                return TBRW_UNEXPECTED_NULL_PTR;
            n += TB5_REC_CPU;
            for (TBRW_U32 a = 0; a < cpu->num_cpu_arch_array; a++) {
                TBRW_U32 rc = check_arch(&cpu->cpu_arch_array[a]);
                if (rc)
                    return rc;
                n += TB5_REC_CPU_ARCH +
                     (size_t)cpu->cpu_arch_array[a].arch_num_cpuid * TB5_REC_CPUID;
            }
        }
    }
    *len = n;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_hardware_encode(const TBRW_SYSTEM *sys, uint8_t **out, size_t *len)
{
    uint8_t *p;
    TBRW_U32 rc = check_tree(sys, len);

    if (rc)
        return rc;
    p = *out = malloc(*len);
    if (!p)
        return TBRW_NO_MEMORY;
    tb5_encode(&tb5_codec_system, sys, p, NULL, NULL);
    p += TB5_REC_SYSTEM;
    for (TBRW_U32 i = 0; i < sys->system_num_nodes; i++) {
        const TBRW_NODE *node = &sys->node_array[i];
        tb5_encode(&tb5_codec_node, node, p, NULL, NULL);
        p += TB5_REC_NODE;
        for (TBRW_U32 c = 0; c < node->node_num_available; c++) {
            const TBRW_CPU *cpu = &node->cpu_array[c];
            tb5_encode(&tb5_codec_cpu, cpu, p, NULL, NULL);
            p += TB5_REC_CPU;
            for (TBRW_U32 a = 0; a < cpu->num_cpu_arch_array; a++) {
                const TBRW_CPU_ARCH *arch = &cpu->cpu_arch_array[a];
                tb5_encode(&tb5_codec_cpu_arch, arch, p, NULL, NULL);
                p += TB5_REC_CPU_ARCH;
                for (TBRW_U32 k = 0; k < arch->arch_num_cpuid; k++) {
                    if (is_ia64(arch->arch_type))
                        tb5_encode(&tb5_codec_cpuid_ia64, &arch->cpuid_ia64_array[k], p, NULL,
                                   NULL);
                    else
                        tb5_encode(&tb5_codec_cpuid_ia32, &arch->cpuid_ia32_array[k], p, NULL,
                                   NULL);
                    p += TB5_REC_CPUID;
                }
            }
        }
    }
    return TBRW_SUCCESS;
}

/* Counts of everything in an encoded tree, each bounds-checked against its bytes. */
struct tree_counts {
    size_t nodes, cpus, archs, cpuids;
};

#define HW_BAD(...) tb5_fail(TBRW_CORRUPT_FILE, "hardware section: " __VA_ARGS__)

static TBRW_U32 count_tree(const uint8_t *in, size_t len, struct tree_counts *n)
{
    size_t off = TB5_REC_SYSTEM;
    uint32_t nodes;

    memset(n, 0, sizeof(*n));
    if (len < TB5_REC_SYSTEM)
        return HW_BAD("%zu bytes, shorter than its system record (%u)", len, TB5_REC_SYSTEM);
    nodes = tb5_get32(in + TB5_SYSTEM_NUM_NODES);
    if (nodes > MAX_NODES)
        return HW_BAD("field num_nodes at byte offset %u: %u nodes, at most %u",
                      TB5_SYSTEM_NUM_NODES, nodes, MAX_NODES);
    for (uint32_t i = 0; i < nodes; i++, n->nodes++) {
        uint32_t cpus;
        if (len - off < TB5_REC_NODE)
            return HW_BAD("node %u at byte offset %zu runs past the end (%zu bytes)", i, off, len);
        cpus = tb5_get32(in + off + TB5_NODE_NUM_CPUS);
        if (cpus > MAX_CPUS_PER_NODE)
            return HW_BAD("node %u field num_cpus at byte offset %zu: %u, at most %u", i,
                          off + TB5_NODE_NUM_CPUS, cpus, MAX_CPUS_PER_NODE);
        off += TB5_REC_NODE;
        for (uint32_t c = 0; c < cpus; c++, n->cpus++) {
            uint32_t archs;
            if (len - off < TB5_REC_CPU)
                return HW_BAD("node %u cpu %u at byte offset %zu runs past the end (%zu bytes)", i,
                              c, off, len);
            archs = tb5_get32(in + off + TB5_CPU_NUM_ARCHS);
            if (archs > MAX_ARCHS_PER_CPU)
                return HW_BAD("node %u cpu %u field num_archs at byte offset %zu: %u, at most %u",
                              i, c, off + TB5_CPU_NUM_ARCHS, archs, MAX_ARCHS_PER_CPU);
            off += TB5_REC_CPU;
            for (uint32_t a = 0; a < archs; a++, n->archs++) {
                uint32_t ids;
                if (len - off < TB5_REC_CPU_ARCH)
                    return HW_BAD("node %u cpu %u arch %u at byte offset %zu runs past the end "
                                  "(%zu bytes)",
                                  i, c, a, off, len);
                ids = tb5_get16(in + off + TB5_ARCH_NUM_CPUIDS);
                if (ids > MAX_CPUIDS || len - off - TB5_REC_CPU_ARCH < (size_t)ids * TB5_REC_CPUID)
                    return HW_BAD("node %u cpu %u arch %u field num_cpuids at byte offset %zu: %u "
                                  "cpuid records do not fit",
                                  i, c, a, off + TB5_ARCH_NUM_CPUIDS, ids);
                off += TB5_REC_CPU_ARCH;
                off += (size_t)ids * TB5_REC_CPUID;
                n->cpuids += ids;
            }
        }
    }
    if (off != len)
        return HW_BAD("the tree ends at byte offset %zu, the section at %zu", off, len);
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_hardware_decode(const uint8_t *in, size_t len, TBRW_SYSTEM *buf, size_t cap,
                             size_t *needed)
{
    struct tree_counts n;
    TBRW_NODE *nodes;
    TBRW_CPU *cpus;
    TBRW_CPU_ARCH *archs;
    uint8_t *ids;
    TBRW_U32 rc = count_tree(in, len, &n);

    if (rc)
        return rc;
    *needed = sizeof(TBRW_SYSTEM) + n.nodes * sizeof(TBRW_NODE) + n.cpus * sizeof(TBRW_CPU) +
              n.archs * sizeof(TBRW_CPU_ARCH) + n.cpuids * TB5_REC_CPUID;
    if (!buf || cap < *needed)
        return TBRW_BUFFER_TOO_SMALL;
    /* Arrays follow the system in this order; every size is a multiple of 8. */
    nodes = (TBRW_NODE *)(buf + 1);
    cpus = (TBRW_CPU *)(nodes + n.nodes);
    archs = (TBRW_CPU_ARCH *)(cpus + n.cpus);
    ids = (uint8_t *)(archs + n.archs);
    tb5_decode(&tb5_codec_system, in, buf);
    buf->node_array = n.nodes ? nodes : NULL;
    in += TB5_REC_SYSTEM;
    for (size_t i = 0; i < n.nodes; i++) {
        TBRW_NODE *node = nodes++;
        tb5_decode(&tb5_codec_node, in, node);
        in += TB5_REC_NODE;
        node->cpu_array = node->node_num_available ? cpus : NULL;
        for (TBRW_U32 c = 0; c < node->node_num_available; c++) {
            TBRW_CPU *cpu = cpus++;
            tb5_decode(&tb5_codec_cpu, in, cpu);
            in += TB5_REC_CPU;
            cpu->cpu_arch_array = cpu->num_cpu_arch_array ? archs : NULL;
            for (TBRW_U32 a = 0; a < cpu->num_cpu_arch_array; a++) {
                TBRW_CPU_ARCH *arch = archs++;
                tb5_decode(&tb5_codec_cpu_arch, in, arch);
                in += TB5_REC_CPU_ARCH;
                arch->cpuid_ia32_array = (TBRW_CPUID_IA32 *)ids;
                for (TBRW_U32 k = 0; k < arch->arch_num_cpuid; k++) {
                    tb5_decode(is_ia64(arch->arch_type) ? &tb5_codec_cpuid_ia64
                                                        : &tb5_codec_cpuid_ia32,
                               in, ids);
                    in += TB5_REC_CPUID;
                    ids += TB5_REC_CPUID;
                }
            }
        }
    }
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_set_system(TBRW_PTR ptr, const TBRW_SYSTEM *system)
{
    struct tb5 *tb = tb5_handle(ptr);
    uint8_t *bytes;
    size_t len;
    TBRW_U32 rc;

    if (!tb || !system)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_writing(tb, TBRW_HARDWARE_SECTION);
    if (rc)
        return rc;
    rc = tb5_hardware_encode(system, &bytes, &len);
    if (rc)
        return rc;
    free(tb->gw.hardware);
    tb->gw.hardware = bytes;
    tb->gw.hardware_len = len;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_get_system(TBRW_PTR ptr, TBRW_U32 size_of_buffer, TBRW_SYSTEM *buf_ptr,
                         TBRW_U32 *size_buffer_used)
{
    struct tb5 *tb = tb5_handle(ptr);
    uint8_t *bytes;
    size_t needed = 0;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_HARDWARE_SECTION);
    if (rc)
        return rc;
    rc = tb5_section_load(tb, tb5_find(tb, TB5_K_HARDWARE, TB5_GLOBAL), &bytes);
    if (rc)
        return rc;
    rc = tb5_hardware_decode(bytes, tb5_find(tb, TB5_K_HARDWARE, TB5_GLOBAL)->length, buf_ptr,
                             size_of_buffer, &needed);
    free(bytes);
    if ((rc == TBRW_SUCCESS || rc == TBRW_BUFFER_TOO_SMALL) && size_buffer_used)
        *size_buffer_used = (TBRW_U32)needed;
    return rc;
}
