/* The uncore (see uncore.h). */
#include "uncore.h"

#include "acart.h"
#include "acart_opts.h"
#include "acart_platform.h"
#include "cpuid.h"
#include "io.h"
#include "log.h"
#include "uncore_io.h"

#include <string.h>

#define MSR_UNC_CBO_CONFIG 0x396u
#define CPUID_HYPERVISOR   (1u << 31) /* CPUID.1:ECX: running under a hypervisor */

/* The uncores acart knows, per CPU model (family 6). client_msrs: the UCLK fixed, ARB and
 * CBo MSRs of SDM vol. 4's "uncore PMU MSRs" tables for 6th-generation Core and its
 * successors on the same uncore. imc_*: the IMC's read-only counters, as offsets from
 * MCHBAR: on Skylake-class client parts UNC_IMC_DRAM_DATA_READS/WRITES at 0x5050/0x5054
 * (as Linux's uncore_snb.c reads them), on Goldmont-class SoCs the two DRAM slice
 * counters VTune's UNC_IMC_DRAM_RW_SLICE0/1 ECB reads (tests/fixtures/aca). */
static const struct uncore_model {
    const char *name;
    uint8_t models[4];
    uint8_t client_msrs;
    uint16_t imc_first, imc_len;
} models[] = {
    {"Skylake client", {0x4E, 0x5E, 0x8E, 0x9E}, 1, 0x5050, 8},
    {"Goldmont", {0x5C, 0x5F, 0, 0}, 0, 0x6868, 8},
    {"Goldmont Plus", {0x7A, 0, 0, 0}, 0, 0x6868, 8},
};

/* Operations of the reference's uncore ECBs whose entries acart carries out. */
#define OP_WRITE   (1u << 0)
#define OP_ENABLE  (1u << 1)
#define OP_DISABLE (1u << 2)
#define OP_READ    (1u << 3)

struct uncore_reg {
    uint8_t ops;  /* OP_* of the ranges that hold this entry */
    uint8_t prog; /* SEP_REG_PROG_* */
    uint8_t rw;
    uint8_t counter_type;
    uint8_t size; /* PCI/MMIO bytes */
    uint8_t bus, dev, func;
    uint16_t offset; /* READ: where the count goes in the record */
    uint32_t reg;
    uint64_t value;
    uint64_t mask; /* READ: counter width */
};

struct uncore_device {
    uint16_t index;
    int have_groups, have_ecb;
    uint32_t descriptor_id, record_size, group_offset;
    struct ecb_bar bar;
    uint64_t bar_base;
    uint32_t num_regs;
    struct uncore_reg regs[UNCORE_MAX_REGS];
    uint64_t prev[UNCORE_MAX_REGS], acc[UNCORE_MAX_REGS];
};

static struct {
    const struct uncore_model *model;
    const char *absent; /* why there is no uncore */
    uint32_t num_devices_announced;
    uint32_t num_devices;
    struct uncore_device *current; /* the device INIT_UNC named last, or NULL */
    struct uncore_device devices[UNCORE_MAX_DEVICES];
    int programmed, running;
    uint64_t last_ms;
    uint32_t interval_ms;
    uint32_t len, sent, dropped;
    uint8_t records[ACA_UNCORE_BUFFER_BYTES];
} unc;

_Static_assert(ACA_UNCORE_BUFFER_BYTES >= 4096, "room for a few reads of every device");

const char *uncore_probe(int pmu_usable, struct msr_policy_limits *limits)
{
    struct cpu_signature sig;

    memset(&unc, 0, sizeof(unc));
    unc.absent = "this CPU model has no uncore acart supports";
    cpu_read_signature(&sig);
    if (strcmp(sig.vendor, "GenuineIntel") != 0 || sig.family != 6)
        return unc.absent;
    if (!pmu_usable)
        return unc.absent = "no usable core PMU, so no uncore either";
    if (cpuid(1, 0).ecx & CPUID_HYPERVISOR)
        return unc.absent = "running under a hypervisor, which does not virtualise the uncore";
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]) && !unc.model; i++)
        for (size_t j = 0; j < sizeof(models[i].models); j++)
            if (models[i].models[j] && models[i].models[j] == sig.model)
                unc.model = &models[i];
    if (!unc.model)
        return unc.absent;
    if (unc.model->client_msrs) {
        uint64_t cfg;
        if (uncore_msr_read(MSR_UNC_CBO_CONFIG, &cfg) != 0) {
            unc.model = NULL;
            return unc.absent = "MSR_UNC_CBO_CONFIG raised #GP: no client uncore here";
        }
        uint8_t cbos = (uint8_t)(cfg & 0xf);
        limits->uncore_client = 1;
        limits->uncore_cbos = cbos > 8 ? 8 : cbos;
    }
    limits->imc_mmio_first = unc.model->imc_first;
    limits->imc_mmio_len = unc.model->imc_len;
    unc.absent = NULL;
    return NULL;
}

const char *uncore_model_name(void)
{
    return unc.model ? unc.model->name : NULL;
}

static int32_t refuse_absent(const char *what)
{
    agent_log("acart: %s refused: %s", what, unc.absent);
    return SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE;
}

int32_t uncore_set_num_devices(uint32_t n)
{
    unc.num_devices_announced = n;
    return SEP_STATUS_SUCCESS;
}

int32_t uncore_init_device(const struct sep_dev_unc_config *cfg)
{
    if (unc.absent)
        return refuse_absent("INIT_UNC");
    if (unc.programmed)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    if (unc.num_devices_announced && cfg->device_index >= unc.num_devices_announced) {
        agent_log("acart: INIT_UNC: device %u beyond the %u INIT_NUM_DEV announced",
                  (unsigned)cfg->device_index, (unsigned)unc.num_devices_announced);
        return SEP_STATUS_BAD_PARAMETER;
    }
    unc.current = NULL;
    if (cfg->num_events == 0)
        return SEP_STATUS_SUCCESS; /* a device with nothing to count, as the reference */
    struct uncore_device *d = NULL;
    for (uint32_t i = 0; i < unc.num_devices; i++)
        if (unc.devices[i].index == cfg->device_index)
            d = &unc.devices[i];
    if (!d) {
        if (unc.num_devices == UNCORE_MAX_DEVICES) {
            agent_log("acart: INIT_UNC: more than %u uncore devices with events",
                      (unsigned)UNCORE_MAX_DEVICES);
            return SEP_STATUS_NO_PMU_RESOURCES;
        }
        d = &unc.devices[unc.num_devices++];
    }
    memset(d, 0, sizeof(*d));
    d->index = cfg->device_index;
    unc.current = d;
    return SEP_STATUS_SUCCESS;
}

int32_t uncore_set_groups(const struct sep_event_config *ec)
{
    if (unc.absent)
        return refuse_absent("EM_GROUPS_UNC");
    if (!unc.current)
        return SEP_STATUS_INVALID_STATE_TRANS;
    if (ec->num_groups_unc == 0)
        return SEP_STATUS_NO_EVENTS;
    if (ec->num_groups_unc > 1) {
        agent_log("acart: EM_GROUPS_UNC: %u uncore groups: uncore multiplexing is not "
                  "supported, send one group",
                  (unsigned)ec->num_groups_unc);
        return SEP_STATUS_EM_TOO_MANY_EVENT_GROUPS;
    }
    unc.current->have_groups = 1;
    unc.current->have_ecb = 0;
    return SEP_STATUS_SUCCESS;
}

/* The entry's register as an offset from its device's BAR, as the reference's mapping
 * places it: from base_offset_for_mmio when the offset lies below it. */
static uint64_t bar_relative(const struct ecb_bar *bar, uint32_t reg)
{
    return reg >= bar->base_offset ? reg : (uint64_t)bar->base_offset + reg;
}

static int writes_entry(const struct uncore_reg *r)
{
    if (r->ops & (OP_WRITE | OP_ENABLE | OP_DISABLE))
        return 1;
    /* START zeroes the MSR counters that are not free-running, as the reference. */
    return r->prog == SEP_REG_PROG_MSR && r->counter_type != SEP_UNC_COUNTER_FREERUN &&
           r->counter_type != SEP_UNC_COUNTER_STATIC;
}

static int32_t refuse_reg(uint32_t i, const char *kind, uint32_t reg, int err)
{
    agent_log("acart: EM_CONFIG_NEXT_UNC entry %u: %s 0x%x refused: %s", (unsigned)i, kind,
              (unsigned)reg, msr_policy_strerror(err));
    return SEP_STATUS_INVALID_PROG_INFO;
}

/* Every register of the device through the allowlist, with how it is reached. */
static int32_t check_reg(const struct ecb *ecb, uint32_t i, const struct uncore_reg *r)
{
    int write = writes_entry(r);
    switch (r->prog) {
    case SEP_REG_PROG_MSR: {
        int err = msr_policy_check(r->reg, write);
        return err ? refuse_reg(i, "MSR", r->reg, err) : SEP_STATUS_SUCCESS;
    }
    case SEP_REG_PROG_PCI: {
        int err = pci_policy_check(r->bus, r->dev, r->func, (uint16_t)r->reg, write);
        if (!err && r->size != 4)
            err = MSR_POLICY_ERR_UNLISTED;
        return err ? refuse_reg(i, "PCI register", r->reg, err) : SEP_STATUS_SUCCESS;
    }
    case SEP_REG_PROG_MMIO: {
        const struct ecb_bar *b = &ecb->bar;
        int err = pci_policy_check(b->bus, b->dev, b->func, b->bar_offset, 0);
        if (!err)
            err = mmio_policy_check(b->bus, b->dev, b->func, b->bar_offset, bar_relative(b, r->reg),
                                    r->size, write);
        return err ? refuse_reg(i, "MMIO offset", r->reg, err) : SEP_STATUS_SUCCESS;
    }
    default:
        agent_log("acart: EM_CONFIG_NEXT_UNC entry %u: unknown register kind %u", (unsigned)i,
                  (unsigned)r->prog);
        return SEP_STATUS_INVALID_PROG_INFO;
    }
}

static uint8_t ops_of(const struct ecb *ecb, uint32_t i)
{
    static const struct {
        uint32_t op;
        uint8_t bit;
    } carried[] = {{SEP_PMU_OP_WRITE, OP_WRITE},
                   {SEP_PMU_OP_ENABLE, OP_ENABLE},
                   {SEP_PMU_OP_DISABLE, OP_DISABLE},
                   {SEP_PMU_OP_READ, OP_READ}};
    uint8_t ops = 0;
    for (size_t k = 0; k < sizeof(carried) / sizeof(carried[0]); k++) {
        struct ecb_range r = ecb->operations[carried[k].op];
        if (i >= r.start && i - r.start < r.count)
            ops |= carried[k].bit;
    }
    return ops;
}

static int offset_fits(uint32_t offset, uint32_t size)
{
    return offset >= sizeof(struct sep_uncore_sample_pc) && offset % 8 == 0 &&
           (uint64_t)offset + 8 <= size;
}

int32_t uncore_configure(const struct ecb *ecb, uint32_t desc_size)
{
    if (unc.absent)
        return refuse_absent("EM_CONFIG_NEXT_UNC");
    struct uncore_device *d = unc.current;
    if (!d || !d->have_groups)
        return SEP_STATUS_INVALID_STATE_TRANS;
    if (unc.programmed)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    if (ecb->device_type == SEP_DEVICE_CORE) {
        agent_log("acart: EM_CONFIG_NEXT_UNC: a core ECB (device type 1)");
        return SEP_STATUS_INVALID_PROG_INFO;
    }
    d->have_ecb = 0;
    d->num_regs = 0;
    uint32_t end = sizeof(struct sep_uncore_sample_pc);
    for (uint32_t i = 0; i < ecb->entry_count; i++) {
        const struct ecb_entry *e = &ecb->entries[i];
        uint8_t ops = ops_of(ecb, i);
        if (e->reg_type == SEP_REG_EMPTY || ops == 0)
            continue;
        if (d->num_regs == UNCORE_MAX_REGS) {
            agent_log("acart: EM_CONFIG_NEXT_UNC: more than %u registers",
                      (unsigned)UNCORE_MAX_REGS);
            return SEP_STATUS_INVALID_PROG_INFO;
        }
        struct uncore_reg *r = &d->regs[d->num_regs];
        memset(r, 0, sizeof(*r));
        r->ops = ops;
        r->prog = e->prog_type ? e->prog_type : SEP_REG_PROG_MSR;
        r->rw = e->rw_type;
        r->counter_type = e->counter_type;
        r->size = e->data_size ? e->data_size : 4;
        r->bus = e->pci_bus, r->dev = e->pci_dev, r->func = e->pci_func;
        r->reg = e->reg_id;
        r->value = e->value;
        r->mask = e->max_bits ? e->max_bits : ~0ull;
        r->offset = e->counter_event_offset;
        if ((r->prog != SEP_REG_PROG_MSR && r->size != 4 && r->size != 8) ||
            (r->mask & (r->mask + 1)) != 0) {
            agent_log("acart: EM_CONFIG_NEXT_UNC entry %u: access width %u or counter mask "
                      "0x%llx invalid",
                      (unsigned)i, (unsigned)r->size, (unsigned long long)r->mask);
            return SEP_STATUS_INVALID_PROG_INFO;
        }
        int32_t st = check_reg(ecb, i, r);
        if (st != SEP_STATUS_SUCCESS)
            return st;
        if ((ops & OP_READ) && r->offset + 8u > end)
            end = r->offset + 8u;
        d->num_regs++;
    }
    if (ecb->group_offset && ecb->group_offset + 8 > end)
        end = ecb->group_offset + 8;
    d->record_size = desc_size ? desc_size : end;
    for (uint32_t i = 0; i < d->num_regs; i++)
        if ((d->regs[i].ops & OP_READ) && !offset_fits(d->regs[i].offset, d->record_size)) {
            agent_log("acart: EM_CONFIG_NEXT_UNC: count offset %u outside the %u-byte record",
                      (unsigned)d->regs[i].offset, (unsigned)d->record_size);
            return SEP_STATUS_INVALID_EVENT_SIZE;
        }
    if ((ecb->group_offset && !offset_fits(ecb->group_offset, d->record_size)) ||
        d->record_size > 1024) {
        agent_log("acart: EM_CONFIG_NEXT_UNC: group offset %u or record size %u invalid",
                  (unsigned)ecb->group_offset, (unsigned)d->record_size);
        return SEP_STATUS_INVALID_EVENT_SIZE;
    }
    d->descriptor_id = ecb->descriptor_id;
    d->group_offset = ecb->group_offset;
    d->bar = ecb->bar;
    d->have_ecb = 1;
    return SEP_STATUS_SUCCESS;
}

int uncore_configured(void)
{
    for (uint32_t i = 0; i < unc.num_devices; i++)
        if (unc.devices[i].have_ecb)
            return 1;
    return 0;
}

static int reg_read(const struct uncore_device *d, const struct uncore_reg *r, uint64_t *v)
{
    uint32_t lo = 0, hi = 0;
    int err = 0;
    switch (r->prog) {
    case SEP_REG_PROG_MSR:
        return uncore_msr_read(r->reg, v);
    case SEP_REG_PROG_PCI:
        err = uncore_pci_read32(r->bus, r->dev, r->func, (uint16_t)r->reg, &lo);
        break;
    default: {
        uint64_t at = d->bar_base + bar_relative(&d->bar, r->reg);
        err = uncore_mmio_read32(at, &lo);
        if (!err && r->size == 8)
            err = uncore_mmio_read32(at + 4, &hi);
        break;
    }
    }
    *v = (uint64_t)hi << 32 | lo;
    return err;
}

/* The entries of op, in entry order; only MSRs are ever written (the allowlist holds no
 * writable PCI or MMIO register). */
static void write_op(struct uncore_device *d, uint8_t op, int enable)
{
    for (uint32_t i = 0; i < d->num_regs; i++) {
        const struct uncore_reg *r = &d->regs[i];
        if (!(r->ops & op) || r->prog != SEP_REG_PROG_MSR)
            continue;
        uint64_t v = r->value, cur;
        if (r->rw == SEP_REG_RW_READ_WRITE && uncore_msr_read(r->reg, &cur) == 0)
            v = enable ? cur | r->value : cur & r->value;
        uncore_msr_write(r->reg, v);
    }
}

static int resolve_bar(struct uncore_device *d)
{
    int uses_bar = 0;
    for (uint32_t i = 0; i < d->num_regs; i++)
        uses_bar |= d->regs[i].prog == SEP_REG_PROG_MMIO;
    if (!uses_bar)
        return 0;
    uint32_t lo, hi;
    if (uncore_pci_read32(d->bar.bus, d->bar.dev, d->bar.func, d->bar.bar_offset, &lo) ||
        uncore_pci_read32(d->bar.bus, d->bar.dev, d->bar.func, d->bar.bar_offset + 4, &hi))
        return -1;
    d->bar_base = ((uint64_t)hi << 32 | lo) & d->bar.bar_mask;
    return d->bar_base ? 0 : -1;
}

int uncore_start(uint64_t now_ms, uint32_t interval_ms)
{
    unc.len = unc.sent = unc.dropped = 0;
    for (uint32_t k = 0; k < unc.num_devices; k++) {
        struct uncore_device *d = &unc.devices[k];
        if (!d->have_ecb)
            continue;
        if (resolve_bar(d) != 0) {
            agent_log("acart: START: uncore device %u: its BAR (PCI %u:%u.%u offset 0x%x) is "
                      "not set",
                      (unsigned)d->index, (unsigned)d->bar.bus, (unsigned)d->bar.dev,
                      (unsigned)d->bar.func, (unsigned)d->bar.bar_offset);
            return -1;
        }
    }
    for (uint32_t k = 0; k < unc.num_devices; k++) {
        struct uncore_device *d = &unc.devices[k];
        if (!d->have_ecb)
            continue;
        write_op(d, OP_WRITE, 1);
        for (uint32_t i = 0; i < d->num_regs; i++) {
            const struct uncore_reg *r = &d->regs[i];
            if ((r->ops & OP_READ) && writes_entry(r) && !(r->ops & ~OP_READ))
                uncore_msr_write(r->reg, 0);
        }
        write_op(d, OP_ENABLE, 1);
        for (uint32_t i = 0; i < d->num_regs; i++) {
            uint64_t v = 0;
            reg_read(d, &d->regs[i], &v);
            d->prev[i] = v & d->regs[i].mask;
            d->acc[i] = 0;
        }
    }
    unc.programmed = unc.running = 1;
    unc.last_ms = now_ms;
    unc.interval_ms = interval_ms ? interval_ms : UNCORE_DEFAULT_INTERVAL_MS;
    return 0;
}

/* One record per configured device, all of them or none. */
static void read_devices(void)
{
    uint32_t total = 0;
    for (uint32_t k = 0; k < unc.num_devices; k++)
        if (unc.devices[k].have_ecb)
            total += unc.devices[k].record_size;
    if (unc.sent == unc.len)
        unc.sent = unc.len = 0;
    if (unc.len + total > sizeof(unc.records)) {
        unc.dropped++;
        return;
    }
    uint64_t tsc = rdtsc();
    for (uint32_t k = 0; k < unc.num_devices; k++) {
        struct uncore_device *d = &unc.devices[k];
        if (!d->have_ecb)
            continue;
        uint8_t *rec = unc.records + unc.len;
        memset(rec, 0, d->record_size);
        struct sep_uncore_sample_pc h;
        memset(&h, 0, sizeof(h));
        h.descriptor_id = d->descriptor_id;
        h.cpu_num = (uint16_t)aca_plat_cpu_index();
        h.flags = SEP_UNCORE_VALID;
        h.tsc = tsc;
        if (d->group_offset) {
            uint64_t group = 1; /* the one group, numbered from 1 as the reference */
            memcpy(rec + d->group_offset, &group, sizeof(group));
        }
        for (uint32_t i = 0; i < d->num_regs; i++) {
            const struct uncore_reg *r = &d->regs[i];
            if (!(r->ops & OP_READ))
                continue;
            uint64_t v;
            if (reg_read(d, r, &v) != 0) {
                h.flags &= ~SEP_UNCORE_VALID;
                continue;
            }
            v &= r->mask;
            if (r->counter_type == SEP_UNC_COUNTER_STATIC) {
                d->acc[i] = v;
            } else {
                d->acc[i] += (v - d->prev[i]) & r->mask; /* one wrap between reads at most */
                d->prev[i] = v;
            }
            memcpy(rec + r->offset, &d->acc[i], sizeof(d->acc[i]));
        }
        memcpy(rec, &h, sizeof(h));
        unc.len += d->record_size;
    }
}

int uncore_running(void)
{
    return unc.running;
}

void uncore_poll(uint64_t now_ms)
{
    if (!unc.running || now_ms - unc.last_ms < unc.interval_ms)
        return;
    unc.last_ms = now_ms;
    read_devices();
}

static void disable_all(void)
{
    for (uint32_t k = 0; k < unc.num_devices; k++)
        if (unc.devices[k].have_ecb)
            write_op(&unc.devices[k], OP_DISABLE, 0);
    unc.programmed = unc.running = 0;
}

void uncore_stop(void)
{
    if (!unc.running)
        return;
    read_devices();
    disable_all();
    if (unc.dropped)
        agent_log("acart: uncore: %u reads did not fit the %u-byte record buffer",
                  (unsigned)unc.dropped, (unsigned)sizeof(unc.records));
}

void uncore_reset(void)
{
    if (unc.programmed)
        disable_all();
    const struct uncore_model *model = unc.model;
    const char *absent = unc.absent;
    memset(&unc.num_devices_announced, 0,
           sizeof(unc) - offsetof(__typeof__(unc), num_devices_announced));
    unc.model = model;
    unc.absent = absent;
}

int uncore_drain(struct channel *ch, uint32_t *queued)
{
    uint32_t left = unc.len - unc.sent;
    uint32_t room = channel_send_room(ch);
    uint32_t n = left < room ? left : room;
    *queued = 0;
    if (n && channel_send(ch, unc.records + unc.sent, n) == ACA_OK) {
        unc.sent += n;
        *queued = n;
        channel_flush(ch);
    }
    return unc.sent == unc.len;
}

int uncore_blocked(struct channel *ch)
{
    return unc.sent < unc.len && channel_send_room(ch) == 0;
}

uint32_t uncore_dropped(void)
{
    return unc.dropped;
}
