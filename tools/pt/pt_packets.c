#include "pt_packets.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pt_args.h"
#include "pt_decode.h"

static const char packets_usage[] =
    "usage: acart pt packets (DIR|TRACE) [--cpu N] [--no-pad]\n"
    "\n"
    "Prints every packet of the trace as Intel's ptdump does: its offset in the file\n"
    "(16 hex digits), its type and its payload, e.g.\n"
    "  0000000000000016  tsc        2fa1088fac05e2\n"
    "  000000000000053f  tip.pge    3: 0000000000401000\n"
    "from the first PSB on; where a packet cannot be read, ptdump's error line\n"
    "[OFFSET: error decoding packet: ...] and on from the next PSB. libipt's packet\n"
    "decoder reads them. With a collection of several CPUs, each starts with a line cpu N.\n"
    "\n"
    "  --no-pad              leave PAD packets out\n";

/* A sign-extended 48-bit IP, as ptdump shows IPBytes 011b. */
static uint64_t sext48(uint64_t ip)
{
    return (ip & (1ull << 47)) ? (ip | ~((1ull << 48) - 1)) : (ip & ((1ull << 48) - 1));
}

static void ip_payload(const struct pt_packet_ip *p, char *buf, size_t size)
{
    switch (p->ipc) {
    case pt_ipc_suppressed:
        snprintf(buf, size, "%x: ????????????????", (unsigned)p->ipc);
        return;
    case pt_ipc_update_16:
        snprintf(buf, size, "%x: ????????????%04" PRIx64, (unsigned)p->ipc, p->ip);
        return;
    case pt_ipc_update_32:
        snprintf(buf, size, "%x: ????????%08" PRIx64, (unsigned)p->ipc, p->ip);
        return;
    case pt_ipc_update_48:
        snprintf(buf, size, "%x: ????%012" PRIx64, (unsigned)p->ipc, p->ip);
        return;
    case pt_ipc_sext_48:
        snprintf(buf, size, "%x: %016" PRIx64, (unsigned)p->ipc, sext48(p->ip));
        return;
    default:
        snprintf(buf, size, "%x: %016" PRIx64, (unsigned)p->ipc, p->ip);
        return;
    }
}

/* Taken '!' and not taken '.', oldest first. */
static void tnt_payload(const struct pt_packet_tnt *p, char *buf, size_t size)
{
    size_t n = 0;
    for (uint8_t bits = p->bit_size; bits > 0 && n + 1 < size; bits--)
        buf[n++] = p->payload & (1ull << (bits - 1)) ? '!' : '.';
    buf[n] = '\0';
}

/* pwrx's wake reason, as ptdump names it. */
static const char *pwrx_reason(const struct pt_packet_pwrx *p)
{
    int reasons = !!p->interrupt + !!p->store + !!p->autonomous;
    if (reasons != 1)
        return "bad";
    return p->interrupt ? "int" : p->store ? " st" : " hw";
}

/* The packet's mnemonic into op and its payload into payload (empty for none); -1 for a
 * packet ptdump does not know. */
static int describe(const struct pt_packet *p, char *op, size_t opsize, char *payload, size_t size)
{
    payload[0] = '\0';
    const char *name = NULL;
    switch (p->type) {
    case ppt_psb:
        name = "psb";
        break;
    case ppt_psbend:
        name = "psbend";
        break;
    case ppt_pad:
        name = "pad";
        break;
    case ppt_ovf:
        name = "ovf";
        break;
    case ppt_stop:
        name = "stop";
        break;
    case ppt_fup:
    case ppt_tip:
    case ppt_tip_pge:
    case ppt_tip_pgd:
        name = p->type == ppt_fup       ? "fup"
               : p->type == ppt_tip     ? "tip"
               : p->type == ppt_tip_pge ? "tip.pge"
                                        : "tip.pgd";
        ip_payload(&p->payload.ip, payload, size);
        break;
    case ppt_pip:
        name = "pip";
        snprintf(payload, size, "%" PRIx64 "%s", p->payload.pip.cr3,
                 p->payload.pip.nr ? ", nr" : "");
        break;
    case ppt_vmcs:
        name = "vmcs";
        snprintf(payload, size, "%" PRIx64, p->payload.vmcs.base);
        break;
    case ppt_tnt_8:
    case ppt_tnt_64:
        name = p->type == ppt_tnt_8 ? "tnt.8" : "tnt.64";
        tnt_payload(&p->payload.tnt, payload, size);
        break;
    case ppt_mode:
        if (p->payload.mode.leaf == pt_mol_exec) {
            const struct pt_packet_mode_exec *e = &p->payload.mode.bits.exec;
            name = "mode.exec";
            snprintf(payload, size, "%s%s%s", e->csd ? "cs.d" : "", e->csd && e->csl ? ", " : "",
                     e->csl ? "cs.l" : "");
        } else if (p->payload.mode.leaf == pt_mol_tsx) {
            const struct pt_packet_mode_tsx *t = &p->payload.mode.bits.tsx;
            name = "mode.tsx";
            snprintf(payload, size, "%s%s%s", t->intx ? "intx" : "", t->intx && t->abrt ? ", " : "",
                     t->abrt ? "abrt" : "");
        } else {
            name = "mode";
            snprintf(payload, size, "leaf: %x", (unsigned)p->payload.mode.leaf);
        }
        break;
    case ppt_tsc:
        name = "tsc";
        snprintf(payload, size, "%" PRIx64, p->payload.tsc.tsc);
        break;
    case ppt_cbr:
        name = "cbr";
        snprintf(payload, size, "%x", (unsigned)p->payload.cbr.ratio);
        break;
    case ppt_tma:
        name = "tma";
        snprintf(payload, size, "%x, %x", (unsigned)p->payload.tma.ctc,
                 (unsigned)p->payload.tma.fc);
        break;
    case ppt_mtc:
        name = "mtc";
        snprintf(payload, size, "%x", (unsigned)p->payload.mtc.ctc);
        break;
    case ppt_cyc:
        name = "cyc";
        snprintf(payload, size, "%" PRIx64, p->payload.cyc.value);
        break;
    case ppt_mnt:
        name = "mnt";
        snprintf(payload, size, "%" PRIx64, p->payload.mnt.payload);
        break;
    case ppt_exstop:
        name = "exstop";
        snprintf(payload, size, "%s", p->payload.exstop.ip ? "ip" : "");
        break;
    case ppt_mwait:
        name = "mwait";
        snprintf(payload, size, "%08x, %08x", p->payload.mwait.hints, p->payload.mwait.ext);
        break;
    case ppt_pwre:
        name = "pwre";
        snprintf(payload, size, "c%u.%u%s", (p->payload.pwre.state + 1u) & 0xf,
                 (p->payload.pwre.sub_state + 1u) & 0xf, p->payload.pwre.hw ? ", hw" : "");
        break;
    case ppt_pwrx:
        name = "pwrx";
        snprintf(payload, size, "%s: c%u, c%u", pwrx_reason(&p->payload.pwrx),
                 (p->payload.pwrx.last + 1u) & 0xf, (p->payload.pwrx.deepest + 1u) & 0xf);
        break;
    case ppt_ptw:
        name = "ptw";
        snprintf(payload, size, "%x: %" PRIx64 "%s", (unsigned)p->payload.ptw.plc,
                 p->payload.ptw.payload, p->payload.ptw.ip ? ", ip" : "");
        break;
    case ppt_unknown:
        name = "<unknown>";
        break;
    case ppt_invalid:
        name = "<invalid>";
        break;
    default:
        return -1;
    }
    snprintf(op, opsize, "%s", name);
    return 0;
}

/* One line as ptdump's print_buffer lays it out: the offset in 17 columns, the mnemonic in
 * 10 when a payload follows, the payload after a space. */
static void print_line(uint64_t offset, const char *op, const char *payload, FILE *out)
{
    char off[17];
    snprintf(off, sizeof off, "%016" PRIx64, offset);
    if (payload[0])
        fprintf(out, "%-17s %-10s %s\n", off, op, payload);
    else
        fprintf(out, "%-17s %s\n", off, op);
}

uint64_t pt_packets_print(const uint8_t *begin, const uint8_t *end, uint64_t base,
                          const struct pt_config *config, bool no_pad, FILE *out)
{
    struct pt_config c = *config;
    c.begin = (uint8_t *)begin;
    c.end = (uint8_t *)end;
    struct pt_packet_decoder *pkt = pt_pkt_alloc_decoder(&c);
    uint64_t printed = 0;
    if (!pkt) {
        fprintf(out, "[%" PRIx64 ": failed to allocate decoder]\n", base);
        return 0;
    }
    /* As ptdump's dump_sync: from the first PSB; after an error, from the next one. */
    int status = pt_pkt_sync_forward(pkt);
    if (status < 0 && status != -pte_eos)
        fprintf(out, "[%" PRIx64 ": sync error: %s]\n", base, pt_errstr(pt_errcode(status)));
    while (status >= 0) {
        uint64_t off = 0;
        struct pt_packet p;
        if ((status = pt_pkt_get_offset(pkt, &off)) < 0 ||
            (status = pt_pkt_next(pkt, &p, sizeof p)) < 0) {
            if (status == -pte_eos)
                break;
            fprintf(out, "[%" PRIx64 ": error decoding packet: %s]\n", base + off,
                    pt_errstr(pt_errcode(status)));
            status = pt_pkt_sync_forward(pkt);
            if (status < 0 && status != -pte_eos)
                fprintf(out, "[%" PRIx64 ": sync error: %s]\n", base,
                        pt_errstr(pt_errcode(status)));
            continue;
        }
        char op[16], payload[64];
        if (describe(&p, op, sizeof op, payload, sizeof payload) != 0) {
            fprintf(out, "[%" PRIx64 ": unknown packet: %s]\n", base + off, pt_errstr(pte_bad_opc));
            status = pt_pkt_sync_forward(pkt);
            continue;
        }
        if (no_pad && p.type == ppt_pad)
            continue;
        print_line(base + off, op, payload, out);
        printed++;
    }
    pt_pkt_free_decoder(pkt);
    return printed;
}

/* One CPU's trace, cut where the target lost bytes as the decoders cut it. */
static int print_cpu(struct pt_input *in, uint32_t cpu, bool no_pad, struct diag *d)
{
    struct pt_cpu_trace t;
    int rc = in->trace ? pt_trace_load_file(in->trace, &in->p.session, cpu, &t, d)
                       : pt_trace_load(in->dir, &in->p.session, cpu, &t, d);
    if (rc)
        return rc;
    uint64_t begin = 0;
    for (size_t i = 0; i <= t.info->num_lost; i++) {
        bool last = i == t.info->num_lost;
        uint64_t end = last ? t.size : t.info->lost[i].offset;
        if (end > t.size)
            end = t.size;
        if (begin < end)
            pt_packets_print(t.data + begin, t.data + end, begin, &in->config, no_pad, stdout);
        if (!last && t.info->lost[i].offset <= t.size) {
            char what[256];
            struct pt_gap g = {.kind = PT_GAP_LOST,
                               .offset = t.info->lost[i].offset,
                               .lost_bytes = t.info->lost[i].bytes};
            pt_gap_describe(&g, what, sizeof what);
            printf("[%s]\n", what);
        }
        begin = end;
    }
    pt_trace_free(&t);
    return 0;
}

int pt_packets(int argc, char **argv)
{
    struct pt_args a;
    struct pt_input in;
    int rc = pt_args_parse(argc, argv, "pt packets", packets_usage, false, &a);
    if (rc < 0)
        rc = pt_args_open(&in, &a, "pt packets");
    if (rc >= 0) {
        pt_args_free(&a);
        return rc;
    }
    struct diag d = {0};
    rc = ACART_EXIT_OK;
    bool headers = a.cpu < 0 && in.p.session.num_cpus > 1;
    for (uint32_t cpu = pt_args_first_cpu(&a); cpu < pt_args_end_cpu(&a, &in) && !rc; cpu++) {
        if (headers)
            printf("cpu %" PRIu32 "\n", cpu);
        if (print_cpu(&in, cpu, a.no_pad, &d) != 0)
            rc = diag_report("pt packets", &d);
    }
    if (rc == ACART_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "acart pt packets: cannot write the output\n");
        rc = ACART_EXIT_OUTPUT;
    }
    pt_input_close(&in);
    pt_args_free(&a);
    return rc;
}
