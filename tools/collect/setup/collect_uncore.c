/* acart collect --uncore (see collect_uncore.h). */
#include "collect_uncore.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "cli.h"
#include "file_util.h"

enum collect_uncore_kind { UNC_FIXED, UNC_ARB, UNC_CBO, UNC_IMC };

/* SDM vol. 4, the client uncore PMU MSRs; vol. 3B, the uncore event select layout. */
#define UNC_GLOBAL_CTRL 0xe01u
#define UNC_GLOBAL_EN   (1ull << 29)
#define UNC_FIXED_CTRL  0x394u
#define UNC_FIXED_CTR   0x395u
#define UNC_ARB_CTR0    0x3b0u
#define UNC_ARB_SEL0    0x3b2u
#define UNC_CBO_SEL0    0x700u
#define UNC_CBO_CTR0    0x706u
#define UNC_CBO_STRIDE  0x10u
#define UNC_SEL_EN      (1ull << 22)
#define UNC_CTR_MASK    ((1ull << 44) - 1)
#define UNC_FIXED_MASK  ((1ull << 48) - 1)
#define UNC_MAX_CBOS    8
#define UNC_PER_BOX     2 /* counters per ARB and per CBo */
#define IMC_MASK        0xffffffffull
/* MCHBAR: host bridge 0:0.0, configuration offset 0x48, bits 38:15. */
#define MCHBAR_OFFSET 0x48u
#define MCHBAR_MASK   0x7fffff8000ull
#define RECORD_FIRST  40u /* counts after the 32-byte header and the group number */

static const struct uncore_name {
    const char *name;
    uint8_t kind;
    uint16_t code; /* select (umask << 8 | event) or MCHBAR offset */
} client_names[] =
    {
        {"UNC_CLOCK.SOCKET", UNC_FIXED, 0},
        {"UNC_ARB_TRK_REQUESTS.ALL", UNC_ARB, 0x0181},
        {"UNC_ARB_COH_TRK_REQUESTS.ALL", UNC_ARB, 0x0184},
        {"UNC_CBO_CACHE_LOOKUP.ANY_MESI", UNC_CBO, 0x8f34},
        {"UNC_CBO_XSNP_RESPONSE.MISS_XCORE", UNC_CBO, 0x4122},
        {"UNC_IMC_DRAM_DATA_READS", UNC_IMC, 0x5050},
        {"UNC_IMC_DRAM_DATA_WRITES", UNC_IMC, 0x5054},
        {NULL, 0, 0},
},
  goldmont_names[] = {
      {"UNC_IMC_DRAM_RW_SLICE0", UNC_IMC, 0x6868},
      {"UNC_IMC_DRAM_RW_SLICE1", UNC_IMC, 0x686c},
      {NULL, 0, 0},
};

static const struct uncore_name *names_for(uint32_t family, uint32_t model, const char **what)
{
    if (family != 6)
        return NULL;
    switch (model) {
    case 0x4e:
    case 0x5e:
    case 0x8e:
    case 0x9e:
        *what = "Skylake client";
        return client_names;
    case 0x5c:
    case 0x5f:
    case 0x7a:
        *what = "Goldmont";
        return goldmont_names;
    default:
        return NULL;
    }
}

int collect_uncore_parse(const char *list, struct collect_uncore *u, struct diag *d)
{
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 0)
            return diag_fail(d, DIAG_USAGE, "--uncore: empty event name in %s", list);
        if (u->num_events == COLLECT_UNCORE_MAX_EVENTS)
            return diag_fail(d, DIAG_USAGE, "--uncore: more than %d events",
                             COLLECT_UNCORE_MAX_EVENTS);
        struct collect_uncore_event *e = &u->events[u->num_events];
        if (n >= sizeof e->name)
            return diag_fail(d, DIAG_USAGE, "--uncore: event name too long: %.*s", (int)n, p);
        memset(e, 0, sizeof *e);
        memcpy(e->name, p, n);
        u->num_events++;
        p += n + (p[n] == ',');
    }
    if (u->num_events == 0)
        return diag_fail(d, DIAG_USAGE, "--uncore: no events");
    return 0;
}

/* "NAME" or "NAME:cbo=N": the base name's length and the CBo. */
static int split_modifier(const char *name, size_t *base, uint8_t *cbo)
{
    const char *colon = strchr(name, ':');
    *base = colon ? (size_t)(colon - name) : strlen(name);
    *cbo = 0;
    if (!colon)
        return 0;
    uint64_t v;
    if (strncmp(colon, ":cbo=", 5) != 0 || cli_parse_uint(colon + 5, UNC_MAX_CBOS - 1, &v) != 0)
        return -1;
    *cbo = (uint8_t)v;
    return 1;
}

int collect_uncore_resolve(struct collect_uncore *u, uint32_t family, uint32_t model,
                           struct diag *d)
{
    const char *what = NULL;
    const struct uncore_name *names = names_for(family, model, &what);
    unsigned arb = 0, cbo[UNC_MAX_CBOS] = {0}, fixed = 0;
    uint32_t imc_used[2] = {0, 0};
    for (size_t i = 0; i < u->num_events; i++) {
        struct collect_uncore_event *e = &u->events[i];
        size_t base;
        int modifier = split_modifier(e->name, &base, &e->cbo);
        if (modifier < 0)
            return diag_fail(d, DIAG_USAGE, "--uncore %s: the only modifier is :cbo=N (0-%d)",
                             e->name, UNC_MAX_CBOS - 1);
        if (!names)
            return diag_fail(d, DIAG_USAGE,
                             "--uncore: acart knows no uncore events for CPU family %" PRIu32
                             " model 0x%02" PRIx32,
                             family, model);
        const struct uncore_name *n = names;
        while (n->name && (strlen(n->name) != base || strncmp(n->name, e->name, base) != 0))
            n++;
        if (!n->name)
            return diag_fail(d, DIAG_USAGE, "--uncore: %.*s is no uncore event of %s CPUs",
                             (int)base, e->name, what);
        if (modifier && n->kind != UNC_CBO)
            return diag_fail(d, DIAG_USAGE, "--uncore %s: :cbo=N is for UNC_CBO_ events", e->name);
        e->kind = n->kind;
        e->select = n->code;
        switch (n->kind) {
        case UNC_FIXED:
            if (fixed++)
                return diag_fail(d, DIAG_USAGE, "--uncore: %s twice", n->name);
            e->counter = UNC_FIXED_CTR;
            e->control = UNC_FIXED_CTRL;
            e->control_value = UNC_SEL_EN;
            e->mask = UNC_FIXED_MASK;
            break;
        case UNC_ARB:
            if (arb == UNC_PER_BOX)
                return diag_fail(d, DIAG_USAGE, "--uncore: more than %d ARB events", UNC_PER_BOX);
            e->counter = UNC_ARB_CTR0 + arb;
            e->control = UNC_ARB_SEL0 + arb++;
            e->control_value = UNC_SEL_EN | n->code;
            e->mask = UNC_CTR_MASK;
            break;
        case UNC_CBO:
            if (cbo[e->cbo] == UNC_PER_BOX)
                return diag_fail(d, DIAG_USAGE, "--uncore: more than %d events on CBo %u",
                                 UNC_PER_BOX, (unsigned)e->cbo);
            e->counter = UNC_CBO_CTR0 + UNC_CBO_STRIDE * e->cbo + cbo[e->cbo];
            e->control = UNC_CBO_SEL0 + UNC_CBO_STRIDE * e->cbo + cbo[e->cbo]++;
            e->control_value = UNC_SEL_EN | n->code;
            e->mask = UNC_CTR_MASK;
            break;
        default:
            if (imc_used[(n->code & 4) != 0]++)
                return diag_fail(d, DIAG_USAGE, "--uncore: %s twice", n->name);
            e->counter = n->code;
            e->mask = IMC_MASK;
            break;
        }
    }
    return 0;
}

static int has_msr_events(const struct collect_uncore *u)
{
    for (size_t i = 0; i < u->num_events; i++)
        if (u->events[i].kind != UNC_IMC)
            return 1;
    return 0;
}

static void put_reg(uint8_t *at, uint8_t type, uint8_t prog, uint32_t reg, uint64_t value,
                    uint16_t event, uint16_t offset, uint8_t counter_type, uint64_t mask)
{
    struct sep_event_reg e;
    memset(&e, 0, sizeof e);
    e.reg_type = type;
    e.event_id_index = event;
    e.counter_event_offset = offset;
    e.event_reg_id.reg_id = reg;
    e.event_reg_id.data_size = prog == SEP_REG_PROG_MMIO ? 4 : 8;
    e.reg_value = value;
    e.max_bits = mask;
    e.counter_type = counter_type;
    e.event_scope = 1; /* package */
    e.reg_prog_type = prog;
    e.reg_rw_type = type == SEP_REG_DATA ? SEP_REG_RW_READ : SEP_REG_RW_WRITE;
    e.flags = SEP_EVREG_UNCORE;
    memcpy(at, &e, sizeof e);
}

/* The ECB: WRITE the selects and controls, then the global enable; DISABLE the global
 * enable; READ the counters, each count at 40 + 8 i. */
int collect_uncore_ecb(const struct collect_uncore *u, uint8_t *buf, size_t cap)
{
    size_t n_write = 0;
    for (size_t i = 0; i < u->num_events; i++)
        n_write += u->events[i].control != 0;
    int global = has_msr_events(u);
    size_t n_entries = n_write + (size_t)global * 2 + u->num_events;
    size_t len = sizeof(struct sep_ecb_header) + n_entries * sizeof(struct sep_event_reg);
    if (len > cap)
        return -1;
    memset(buf, 0, len);
    struct sep_ecb_header h;
    memset(&h, 0, sizeof h);
    h.version = SEP_ECB_VERSION;
    h.num_entries = (uint32_t)n_entries;
    h.num_events = (uint32_t)u->num_events;
    h.size_of_allocation = (uint32_t)len;
    h.group_offset = sizeof(struct sep_uncore_sample_pc);
    h.device_type = SEP_DEVICE_UNC_IMC;
    /* No descriptor of the host's describes the records: the target sizes them. */
    h.descriptor_id = 1;
    h.pcidev_entry_node.bar_offset = MCHBAR_OFFSET;
    h.pcidev_entry_node.bar_mask = MCHBAR_MASK;
    for (uint32_t op = 0; op < SEP_MAX_PMU_OPERATIONS; op++)
        h.operations[op].operation_type = op;
    uint32_t at = 0;
    h.operations[SEP_PMU_OP_WRITE].register_start = at;
    uint8_t *e = buf + sizeof h;
    for (size_t i = 0; i < u->num_events; i++) {
        const struct collect_uncore_event *ev = &u->events[i];
        if (ev->control)
            put_reg(e + at++ * sizeof(struct sep_event_reg), SEP_REG_CCCR, SEP_REG_PROG_MSR,
                    ev->control, ev->control_value, (uint16_t)i, 0, 0, 0);
    }
    if (global)
        put_reg(e + at++ * sizeof(struct sep_event_reg), SEP_REG_CCCR, SEP_REG_PROG_MSR,
                UNC_GLOBAL_CTRL, UNC_GLOBAL_EN, 0, 0, 0, 0);
    h.operations[SEP_PMU_OP_WRITE].register_len = at;
    if (global) {
        h.operations[SEP_PMU_OP_DISABLE].register_start = at;
        h.operations[SEP_PMU_OP_DISABLE].register_len = 1;
        put_reg(e + at++ * sizeof(struct sep_event_reg), SEP_REG_CCCR, SEP_REG_PROG_MSR,
                UNC_GLOBAL_CTRL, 0, 0, 0, 0, 0);
    }
    h.operations[SEP_PMU_OP_READ].register_start = at;
    h.operations[SEP_PMU_OP_READ].register_len = (uint32_t)u->num_events;
    for (size_t i = 0; i < u->num_events; i++) {
        const struct collect_uncore_event *ev = &u->events[i];
        int imc = ev->kind == UNC_IMC;
        put_reg(e + at++ * sizeof(struct sep_event_reg), SEP_REG_DATA,
                imc ? SEP_REG_PROG_MMIO : SEP_REG_PROG_MSR, ev->counter, 0, (uint16_t)i,
                (uint16_t)(RECORD_FIRST + 8 * i),
                imc ? SEP_UNC_COUNTER_FREERUN : SEP_UNC_COUNTER_PROGRAMMABLE, ev->mask);
    }
    memcpy(buf, &h, sizeof h);
    return (int)len;
}

int collect_uncore_configure(const struct collect_uncore *u, struct collect_link *l, struct diag *d)
{
    static struct sep_dev_unc_config dev; /* 4 KiB */
    struct sep_event_config ec;
    uint32_t num_devices = COLLECT_UNCORE_DEVICE_INDEX + 1, units = 1;
    memset(&dev, 0, sizeof dev);
    memset(&ec, 0, sizeof ec);
    dev.device_index = COLLECT_UNCORE_DEVICE_INDEX;
    dev.num_events = (uint32_t)u->num_events;
    dev.num_units = 1;
    dev.device_type = SEP_DEVICE_UNC_IMC;
    ec.num_groups_unc = 1;
    ec.em_mode = SEP_EM_DISABLED;
    ec.em_factor = ec.em_event_num = -1;
    int rc;
    if ((rc = link_request(l, SEP_OP_INIT_NUM_DEV, &num_devices, sizeof num_devices, NULL, 0, 0,
                           NULL, d)))
        return rc;
    if ((rc = link_request(l, SEP_OP_INIT_UNC, &dev, sizeof dev, NULL, 0, 0, NULL, d))) {
        if (l->last_status == SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "--uncore: %s:%s has no uncore acart can count (INIT_UNC answered "
                             "%d, UNSUPPORTED_UNCORE_ARCH_TYPE; the target's console says why)",
                             l->host, l->port, (int)l->last_status);
        return rc;
    }
    if (u->events[0].mask == 0) /* not resolved: the target's status said no uncore */
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--uncore: %s:%s accepted INIT_UNC, but its status says it has no "
                         "uncore",
                         l->host, l->port);
    if ((rc = link_request(l, SEP_OP_EM_GROUPS_UNC, &ec, sizeof ec, NULL, 0, 0, NULL, d)))
        return rc;
    static uint8_t ecb[sizeof(struct sep_ecb_header) +
                       (2 * COLLECT_UNCORE_MAX_EVENTS + 2) * sizeof(struct sep_event_reg)];
    int len = collect_uncore_ecb(u, ecb, sizeof ecb);
    if (len < 0)
        return diag_fail(d, DIAG_USAGE, "--uncore: too many events for one ECB");
    struct sep_ioctl_status verdict;
    if ((rc = link_request(l, SEP_OP_EM_CONFIG_NEXT_UNC, ecb, (size_t)len, &verdict, sizeof verdict,
                           0, NULL, d)))
        return rc;
    return link_request(l, SEP_OP_SET_DEVICE_NUM_UNITS, &units, sizeof units, NULL, 0, 0, NULL, d);
}

int collect_uncore_write(const struct collect_uncore *u, const char *dir, uint64_t tsc_hz,
                         struct diag *d)
{
    cJSON *root = cJSON_CreateObject(), *events = cJSON_CreateArray();
    int ok = root && events && cJSON_AddItemToObject(root, "events", events);
    if (!ok)
        cJSON_Delete(events);
    ok = ok && cJSON_AddNumberToObject(root, "version", 1) &&
         cJSON_AddNumberToObject(root, "interval_ms", u->interval_ms) &&
         cJSON_AddNumberToObject(root, "record_size", RECORD_FIRST + 8.0 * u->num_events) &&
         cJSON_AddNumberToObject(root, "tsc_hz", (double)tsc_hz);
    for (size_t i = 0; ok && i < u->num_events; i++) {
        cJSON *e = cJSON_CreateObject();
        if (!e || !cJSON_AddItemToArray(events, e)) {
            cJSON_Delete(e);
            ok = 0;
            break;
        }
        ok = cJSON_AddStringToObject(e, "name", u->events[i].name) &&
             cJSON_AddNumberToObject(e, "offset", RECORD_FIRST + 8.0 * i);
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    char *path = file_join(dir, "uncore.json");
    int rc = !text || !path ? diag_fail(d, DIAG_NOMEM, "out of memory")
                            : file_write_all(path, text, strlen(text), d);
    free(text);
    free(path);
    return rc;
}
