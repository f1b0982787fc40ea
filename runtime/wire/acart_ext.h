/* For the host tools, the tests and the runtime (not installed): acart's extensions of SEP
 * (negotiated with ACART_OP_EXTENSIONS): drop reasons, group times, the PMI budget, channel
 * totals, sample files, Intel PT, IPROBE file contents. Part of acart_wire.h (the whole
 * format, see there). */
#ifndef ACART_WIRE_ACART_EXT_H
#define ACART_WIRE_ACART_EXT_H

#include "sep_base.h"
#include "sep_control.h"

/* acart extension: samples taken inside an interrupt handler (docs/sep-protocol.md 6.0)
 * carry these ids instead of the interrupted task's: pid_rec_index = ACART_IRQ_PID, tid =
 * ACART_IRQ_TID_BASE | vector. */
#define ACART_IRQ_PID      0x7fffff00u
#define ACART_IRQ_TID_BASE 0x7fff0000u

/* acart extension: why samples were dropped, per CPU. GET_SAMPLE_DROP_INFO has room for a
 * count only; this command, numbered far outside the host's DRV_OPERATION range so VTune
 * never sends it, gives the reasons behind each CPU's `dropped` (docs/sep-protocol.md 4.2).
 * A target without it answers SEP_STATUS_DRIVER_COMM_FAILED, as for any unknown command.
 * Per CPU: dropped = ring_full + no_counter + malformed + collision + stuck. */
#define ACART_OP_GET_DROP_REASONS  0x41430055u /* "AC" and 85, the command it completes */
#define ACART_MAX_DROP_REASON_CPUS 64

struct acart_drop_reasons_cpu {
    uint32_t cpu_id;
    uint32_t ring_full;    /* the CPU's sample buffer was full */
    uint32_t no_counter;   /* a PEBS record or overflow naming no counter of the session */
    uint32_t malformed;    /* a PEBS record that did not decode */
    uint32_t collision;    /* a PEBS record (format <= 2) naming several PEBS counters */
    uint32_t stuck;        /* lost when a PMI that would not clear made the PMU reset */
    uint32_t stuck_resets; /* those resets; sampling on the CPU ended with the first */
    uint32_t delivered;    /* samples delivered, as GET_SAMPLE_DROP_INFO's `sampled`, which
                            * covers 20 CPUs only (valid with ACART_DROP_REASONS_DELIVERED) */
};
SEP_WIRE_ASSERT_SIZE(struct acart_drop_reasons_cpu, 32);
SEP_WIRE_ASSERT_OFFSET(struct acart_drop_reasons_cpu, stuck_resets, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_drop_reasons_cpu, delivered, 28);

/* ACART_OP_GET_DROP_REASONS reply: the header and `size` entries; as every reply, it is
 * as long as the host asked (entries past `size` are zero), at least 8 + 32 * size. */
#define ACART_DROP_REASONS_DELIVERED 1u /* flags: every entry's `delivered` is filled in */

struct acart_drop_reasons {
    uint32_t size;  /* entries that follow */
    uint32_t flags; /* ACART_DROP_REASONS_*; 0 from a target older than `delivered` */
    struct acart_drop_reasons_cpu cpu[ACART_MAX_DROP_REASON_CPUS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_drop_reasons, cpu, 8);
SEP_WIRE_ASSERT_SIZE(struct acart_drop_reasons, 8 + 32 * ACART_MAX_DROP_REASON_CPUS);

/* acart extension: how long each event group counted on each CPU of a multiplexed
 * collection, so the host can scale each group's counts by time enabled / time running.
 * Not negotiated, like GET_DROP_REASONS: VTune never sends it, and a target without it
 * answers 159. Times in TSC ticks, up to now (after STOP: the whole collection). The
 * reply is as long as asked, at least 8 + 80 * num_cpus. */
#define ACART_OP_GET_GROUP_TIMES 0x41430036u /* "AC" and 54, SWITCH_GROUP's number */
#define ACART_MAX_EVENT_GROUPS   8

struct acart_group_times_cpu {
    sep_u64_t enabled;                         /* ticks the CPU counted: sum of running[] */
    sep_u64_t running[ACART_MAX_EVENT_GROUPS]; /* ticks each group had the counters */
    uint32_t cpu_id;
    uint32_t switches; /* turns ended on this CPU */
};
SEP_WIRE_ASSERT_SIZE(struct acart_group_times_cpu, 80);
SEP_WIRE_ASSERT_OFFSET(struct acart_group_times_cpu, running, 8);
SEP_WIRE_ASSERT_OFFSET(struct acart_group_times_cpu, cpu_id, 72);

struct acart_group_times {
    uint32_t num_cpus;
    uint32_t num_groups; /* groups of the collection: running[] past them is 0 */
    struct acart_group_times_cpu cpu[ACART_MAX_DROP_REASON_CPUS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_group_times, cpu, 8);
SEP_WIRE_ASSERT_SIZE(struct acart_group_times, 8 + 80 * ACART_MAX_DROP_REASON_CPUS);

/* acart extension: the PMI budget of each CPU (docs/pmu.md, "The PMI budget"): how many
 * sampling interrupts it took and how long they ran, and whether it was throttled. A CPU
 * over its budget (more than max_rate_hz PMIs a second, or its PMIs taking more than
 * cpu_percent % of its time) doubles its sampling periods; the periods stay raised for the
 * rest of the collection. A sample of CPU `cpu_id` with TSC t then stands for the event's
 * sample-after << s events, s the shift of the last raise at or before t (0 before the
 * first): weigh each sample so, or the counts of throttled CPUs come out too low. Not
 * negotiated, like GET_DROP_REASONS (a target without it answers
 * SEP_STATUS_DRIVER_COMM_FAILED). The reply is as long as asked, at least
 * 16 + 304 * num_cpus. */
#define ACART_OP_GET_PMI_BUDGET 0x41430056u /* "AC" and 86, next to GET_DROP_REASONS */
#define ACART_MAX_BUDGET_RAISES 16

struct acart_budget_raise {
    sep_u64_t tsc;  /* the CPU's TSC when the periods doubled */
    uint32_t shift; /* periods are sample-after << shift from then on */
    uint32_t reserved;
};
SEP_WIRE_ASSERT_SIZE(struct acart_budget_raise, 16);
SEP_WIRE_ASSERT_OFFSET(struct acart_budget_raise, shift, 8);

struct acart_pmi_budget_cpu {
    uint32_t cpu_id;
    uint32_t pmis;            /* sampling interrupts the CPU took */
    uint32_t throttles;       /* milliseconds over the rate: each doubled the periods */
    uint32_t rate_lowered;    /* times its PMIs took too long and its rate was lowered */
    uint32_t shift;           /* periods are sample-after << shift at the end */
    uint32_t rate_hz;         /* the rate its budget allowed at the end */
    sep_u64_t max_took_tsc;   /* the longest PMI, in TSC ticks */
    sep_u64_t total_took_tsc; /* all of them */
    uint32_t num_raises;      /* entries of raises[] in use */
    uint32_t reserved;
    struct acart_budget_raise raises[ACART_MAX_BUDGET_RAISES];
};
SEP_WIRE_ASSERT_SIZE(struct acart_pmi_budget_cpu, 48 + 16 * ACART_MAX_BUDGET_RAISES);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget_cpu, shift, 16);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget_cpu, rate_hz, 20);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget_cpu, max_took_tsc, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget_cpu, total_took_tsc, 32);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget_cpu, num_raises, 40);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget_cpu, raises, 48);

struct acart_pmi_budget {
    uint32_t num_cpus;
    uint32_t max_rate_hz; /* the configured budget (aca_config, or acart_opts.h's default) */
    uint32_t cpu_percent;
    uint32_t reserved;
    struct acart_pmi_budget_cpu cpu[ACART_MAX_DROP_REASON_CPUS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget, max_rate_hz, 4);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget, cpu_percent, 8);
SEP_WIRE_ASSERT_OFFSET(struct acart_pmi_budget, cpu, 16);
SEP_WIRE_ASSERT_SIZE(struct acart_pmi_budget, 16 + 304 * ACART_MAX_DROP_REASON_CPUS);

/* acart extension: what the target queued on each data connection of the session, and
 * whether it closed it having queued everything, so that a host can tell a whole stream from
 * a cut one without trusting how the connection ended: a NAT, QEMU's user network among
 * them, passes the board's reset on as a FIN (docs/sep-protocol.md 7.1). Asked after STOP
 * once every data connection has reached end of file: an entry with ACART_CHANNEL_FINISHED
 * was closed by the target after `bytes` bytes, all it had to carry, and the host must hold
 * exactly those. Covers every data connection the session accepted (CPU, uncore, module and
 * a PT channel) in the order accepted. Not negotiated, like GET_DROP_REASONS: a target
 * without it answers SEP_STATUS_DRIVER_COMM_FAILED. The reply is as long as asked, at least
 * 8 + 16 * size. */
#define ACART_OP_GET_CHANNEL_TOTALS 0x41430057u /* "AC" and 87, next to GET_PMI_BUDGET */
#define ACART_MAX_CHANNEL_TOTALS    (ACART_MAX_DROP_REASON_CPUS + SEP_NONCORE_DATA_CONNECTIONS + 1)
#define ACART_CHANNEL_FINISHED      1u /* flags: the target queued everything and closed it */

struct acart_channel_total {
    uint16_t data_type; /* SEP_DATA_*, or ACART_DATA_PT, as its handshake answer said */
    uint16_t data_id;   /* the CPU of a CPU channel, else 0 */
    uint32_t flags;     /* ACART_CHANNEL_* */
    sep_u64_t bytes;    /* queued after the handshake answer, in all */
};
SEP_WIRE_ASSERT_SIZE(struct acart_channel_total, 16);
SEP_WIRE_ASSERT_OFFSET(struct acart_channel_total, flags, 4);
SEP_WIRE_ASSERT_OFFSET(struct acart_channel_total, bytes, 8);

struct acart_channel_totals {
    uint32_t size; /* entries that follow */
    uint32_t reserved;
    struct acart_channel_total channel[ACART_MAX_CHANNEL_TOTALS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_channel_totals, channel, 8);
SEP_WIRE_ASSERT_SIZE(struct acart_channel_totals, 8 + 16 * ACART_MAX_CHANNEL_TOTALS);

/* acart extension: the task switches the port reported (aca_task_switched,
 * acart_platform.h) on one CPU between START and STOP, read after STOP a page at a time
 * from index `first`. Each CPU keeps its first switches (ACA_TASK_SWITCHES_PER_CPU of them
 * for each CPU acart is built for, the pool cut among the collection's CPUs) and counts
 * those it had no room for as lost: its switches are then the whole story only up to the
 * last one kept. A target whose port reports none answers with kept = lost = 0. Not
 * negotiated, like GET_DROP_REASONS: a target without it (or built without a switch log)
 * answers SEP_STATUS_DRIVER_COMM_FAILED. Asked while a collection runs: SEP_STATUS_
 * SAMP_IN_RUNNING_STATE; a CPU the collection does not have or `first` beyond the kept
 * switches: SEP_STATUS_BAD_PARAMETER. The reply is 16 + 16 * count bytes. */
#define ACART_OP_GET_TASK_SWITCHES 0x41430058u /* "AC" and 88, next to GET_CHANNEL_TOTALS */
#define ACART_TASK_SWITCH_PAGE     256

struct acart_task_switch_read {
    uint32_t cpu;
    uint32_t first; /* index of the first switch wanted */
};
SEP_WIRE_ASSERT_SIZE(struct acart_task_switch_read, 8);
SEP_WIRE_ASSERT_OFFSET(struct acart_task_switch_read, first, 4);

struct acart_task_switch {
    sep_u64_t tsc; /* the CPU's TSC when the task became current */
    uint32_t pid;  /* the incoming task, as aca_port_current_task would give it */
    uint32_t tid;
};
SEP_WIRE_ASSERT_SIZE(struct acart_task_switch, 16);
SEP_WIRE_ASSERT_OFFSET(struct acart_task_switch, pid, 8);
SEP_WIRE_ASSERT_OFFSET(struct acart_task_switch, tid, 12);

struct acart_task_switches {
    uint32_t cpu;
    uint32_t kept;  /* switches the CPU's log holds */
    uint32_t lost;  /* switches after the log filled up */
    uint32_t count; /* entries that follow: from `first`, at most ACART_TASK_SWITCH_PAGE */
    struct acart_task_switch entry[ACART_TASK_SWITCH_PAGE];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_task_switches, kept, 4);
SEP_WIRE_ASSERT_OFFSET(struct acart_task_switches, lost, 8);
SEP_WIRE_ASSERT_OFFSET(struct acart_task_switches, count, 12);
SEP_WIRE_ASSERT_OFFSET(struct acart_task_switches, entry, 16);
SEP_WIRE_ASSERT_SIZE(struct acart_task_switches, 16 + 16 * ACART_TASK_SWITCH_PAGE);

/* acart extension: IPROBE sample files (runtime/include/ipr.h), named blobs in the board's
 * RAM, fetched by `acart fetch` (docs/sep-protocol.md 4.3). Negotiated: the file commands
 * answer SEP_STATUS_DRIVER_COMM_FAILED, like any unknown command, until the session has
 * sent ACART_OP_EXTENSIONS, which VTune never sends (its number is outside the host's
 * DRV_OPERATION range), so a plain SEP host never meets them. */
#define ACART_OP_EXTENSIONS 0x41430100u /* reply: struct acart_extensions */
#define ACART_OP_LIST_FILES 0x41430101u /* reply: struct acart_file_list */
#define ACART_OP_READ_FILE  0x41430102u /* request: struct acart_file_read; reply: the bytes */

#define ACART_EXT_DROP_REASONS 0x1u /* ACART_OP_GET_DROP_REASONS */
#define ACART_EXT_FILES        0x2u /* ACART_OP_LIST_FILES, ACART_OP_READ_FILE */
#define ACART_EXT_PT           0x4u /* ACART_OP_PT_* and the PT data connection */
#define ACART_EXT_STACK_COPY   0x8u /* stack copies in samples (struct acart_stack_copy) */

/* Who holds the counters (acart_extensions.pmu_owner). */
#define ACART_PMU_FREE   0
#define ACART_PMU_HOST   1 /* a host's collection, from INIT_PMU to the session's end */
#define ACART_PMU_IPROBE 2 /* a program on the target (IprAllocate) */

struct acart_extensions {
    uint32_t version;    /* 1 */
    uint32_t extensions; /* ACART_EXT_* */
    uint32_t pmu_owner;  /* ACART_PMU_* */
    uint32_t reserved;
};
SEP_WIRE_ASSERT_SIZE(struct acart_extensions, 16);

#define ACART_MAX_FILES     16
#define ACART_FILE_NAME_MAX 48
#define ACART_FILE_READ_MAX (32 * 1024)
#define ACART_FILE_CLOSED   0
#define ACART_FILE_WRITING  1 /* open: not served until IprCloseSampleFile */

struct acart_file_entry {
    uint32_t id; /* changes whenever a file of that name is written again */
    uint32_t bytes;
    uint32_t state; /* ACART_FILE_* */
    uint32_t reserved;
    char name[ACART_FILE_NAME_MAX]; /* NUL-terminated */
};
SEP_WIRE_ASSERT_SIZE(struct acart_file_entry, 64);

struct acart_file_list {
    uint32_t count;
    uint32_t reserved;
    struct acart_file_entry files[ACART_MAX_FILES];
};
SEP_WIRE_ASSERT_SIZE(struct acart_file_list, 8 + 64 * ACART_MAX_FILES);

struct acart_file_read {
    uint32_t id, offset, length; /* length <= ACART_FILE_READ_MAX; the reply is that long */
    uint32_t reserved;
};
SEP_WIRE_ASSERT_SIZE(struct acart_file_read, 16);

/* acart extension: Intel Processor Trace (docs/sep-protocol.md 4.4, docs/pt.md). Negotiated
 * like the file commands (ACART_OP_EXTENSIONS first). PT_CONFIG, in the IDLE state, makes
 * the target expect one more data connection from this host, the PT channel: its answer
 * to the host's first message has data_type ACART_DATA_PT, and it carries chunks (struct
 * acart_pt_chunk) for every CPU, then closes once each CPU's trace has ended. */
#define ACART_OP_PT_INFO   0x41430110u /* reply: struct acart_pt_info */
#define ACART_OP_PT_CONFIG 0x41430111u /* acart_pt_config in, acart_pt_config_reply out */
#define ACART_OP_PT_FREEZE 0x41430112u /* snapshot mode: freeze the rings now (reason host) */
#define ACART_OP_PT_STATUS 0x41430113u /* reply: struct acart_pt_status, cut after num_cpus */

#define ACART_DATA_PT 0x5450u /* data_type of the PT channel ("PT"); no SEP channel has it */

/* The status of a PT command on a target whose CPU has no Intel PT, or that has no memory
 * for it: outside the host's numbering, like the command numbers. */
#define ACART_STATUS_NO_PT 0x41430001

/* acart_pt_info.caps */
#define ACART_PT_CAP_TOPA         0x001u /* ToPA output */
#define ACART_PT_CAP_TOPA_MULTI   0x002u /* ... with several regions: full mode */
#define ACART_PT_CAP_SINGLE_RANGE 0x004u
#define ACART_PT_CAP_IP_FILTER    0x008u
#define ACART_PT_CAP_MTC          0x010u
#define ACART_PT_CAP_PSB_CYC      0x020u /* CYC packets, PSB period */
#define ACART_PT_CAP_PTWRITE      0x040u
#define ACART_PT_CAP_POWER        0x080u
#define ACART_PT_CAP_CR3_FILTER   0x100u
#define ACART_PT_CAP_PMI          0x200u /* the ToPA interrupt */

struct acart_pt_info {
    uint32_t version; /* 1 */
    uint32_t present; /* 1: the CPUs have Intel PT and acart has memory for it */
    uint32_t caps;    /* ACART_PT_CAP_* */
    uint32_t num_ranges;
    uint16_t mtc_periods, cyc_thresholds, psb_periods, reserved; /* CPUID.(14H,1) bitmaps */
    uint32_t cpuid_15_eax, cpuid_15_ebx, cpuid_15_ecx;
    uint32_t nom_freq;     /* MSR_PLATFORM_INFO[15:8]; 0 if unknown */
    uint32_t memory_bytes; /* trace memory acart has for all CPUs together */
    uint32_t reserved2;
    char why[80]; /* without PT: why, NUL-terminated */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_info, 128);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_info, cpuid_15_eax, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_info, why, 48);

#define ACART_PT_MODE_FULL     0
#define ACART_PT_MODE_SNAPSHOT 1

/* acart_pt_config.flags */
#define ACART_PT_OS         0x01u /* trace CPL 0 */
#define ACART_PT_USER       0x02u /* trace CPL > 0 */
#define ACART_PT_TSC        0x04u /* TSC packets */
#define ACART_PT_MTC        0x08u /* MTC packets, every 2^mtc_freq crystal ticks */
#define ACART_PT_CYC        0x10u /* CYC packets (cycle-accurate) */
#define ACART_PT_PTWRITE    0x20u
#define ACART_PT_POWER      0x40u
#define ACART_PT_MAX_RANGES 4

#define ACART_PT_RANGE_FILTER 1 /* trace only inside */
#define ACART_PT_RANGE_STOP   2 /* stop tracing on entry */

struct acart_pt_filter {
    sep_u64_t start, end; /* end inclusive; ignored when module[0] is set */
    uint32_t cfg;         /* ACART_PT_RANGE_* */
    uint32_t reserved;
    char module[48]; /* a module the target reports, by name or base name: its range */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_filter, 72);

struct acart_pt_config {
    uint32_t version; /* 1 */
    uint32_t mode;    /* ACART_PT_MODE_* */
    uint32_t flags;   /* ACART_PT_OS ... */
    uint8_t mtc_freq, cyc_thresh, psb_freq, num_filters;
    struct acart_pt_filter filters[ACART_PT_MAX_RANGES];
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_config, 16 + 72 * ACART_PT_MAX_RANGES);

#define ACART_PT_OUT_TOPA     0 /* ToPA regions */
#define ACART_PT_OUT_TOPA_ONE 1 /* a one-entry ToPA */
#define ACART_PT_OUT_SINGLE   2 /* single-range output */

struct acart_pt_config_reply {
    sep_u64_t rtit_ctl; /* IA32_RTIT_CTL while tracing (TraceEn set) */
    uint32_t output;    /* ACART_PT_OUT_* */
    uint32_t bytes_per_cpu, region_bytes, regions;
    struct {
        sep_u64_t start, end;
    } filters[ACART_PT_MAX_RANGES]; /* as programmed, module names resolved */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_config_reply, 24 + 16 * ACART_PT_MAX_RANGES);

#define ACART_PT_FREEZE_HOST      0
#define ACART_PT_FREEZE_API       1 /* aca_trace_freeze(code) */
#define ACART_PT_FREEZE_EXCEPTION 2 /* aca_trace_freeze_exception(vector) */

#define ACART_MAX_PT_CPUS 64

struct acart_pt_cpu_status {
    sep_u64_t bytes;       /* trace bytes sent, or to send, on the PT channel for this CPU */
    sep_u64_t lost_bytes;  /* full mode: bytes the trace unit wrote while the ring was full,
                            * a lower bound of what it lost */
    uint32_t lost_events;  /* ... times it was full */
    uint32_t unrecorded;   /* ... of those, without a LOST chunk (too many too fast) */
    uint32_t wrapped;      /* snapshot: older trace was overwritten */
    uint32_t errors;       /* operational errors (IA32_RTIT_STATUS.Error) */
    uint32_t pmis;         /* ToPA interrupts taken */
    uint32_t lost_unknown; /* of lost_events, losses of unknown size (in lost_bytes as 0) */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_cpu_status, 40);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_cpu_status, lost_events, 16);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_cpu_status, lost_unknown, 36);

struct acart_pt_status {
    uint32_t version; /* 1 */
    uint32_t num_cpus;
    uint32_t mode;          /* ACART_PT_MODE_* */
    uint32_t tracing;       /* 1 while the CPUs trace */
    uint32_t frozen;        /* snapshot: 1 once frozen (the fields below say by what) */
    uint32_t freeze_reason; /* ACART_PT_FREEZE_* */
    uint32_t freeze_code;   /* the firmware's code, or the exception vector */
    uint32_t freeze_cpu;
    sep_u64_t freeze_tsc;
    struct acart_pt_cpu_status cpu[ACART_MAX_PT_CPUS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_status, cpu, 40);
SEP_WIRE_ASSERT_SIZE(struct acart_pt_status, 40 + 40 * ACART_MAX_PT_CPUS);

/* On the PT channel: a chunk header, then `length` payload bytes. DATA: trace bytes of
 * CPU `cpu` at `offset` of its pt-cpu<N>.bin (chunks of a CPU come in order, without
 * holes). LOST: the target lost at least `value` bytes (0: an unknown number) of that
 * CPU's trace just before `offset`. END: the CPU's trace ends at `offset`; `value` bit 0:
 * snapshot, the ring had wrapped. */
#define ACART_PT_CHUNK_DATA 1
#define ACART_PT_CHUNK_LOST 2
#define ACART_PT_CHUNK_END  3
#define ACART_PT_CHUNK_MAX  (32 * 1024) /* payload bytes */

struct acart_pt_chunk {
    uint16_t type; /* ACART_PT_CHUNK_* */
    uint16_t cpu;
    uint32_t length;
    sep_u64_t offset;
    sep_u64_t value;
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_chunk, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_chunk, value, 16);

/* The content of an IPROBE sample file: this header, then records, each an
 * acart_ipr_record and `bytes` of payload, the next record at the next multiple of 8 bytes
 * (docs/iprobe.md, "Sample files"). */
#define ACART_IPR_MAGIC        "acart-ipr-v1"
#define ACART_IPR_MAX_COUNTERS 16

struct acart_ipr_file_header {
    char magic[16]; /* ACART_IPR_MAGIC, NUL-padded */
    sep_u64_t tsc_hz;
    uint32_t num_counters;
    /* 32 or 64: the mode of the code that wrote the file, whose PCs it holds, so that the
     * host refuses an image of the other mode; 0 in files of before it was recorded. */
    uint32_t code_bits;
    /* The event of each counter when the file was opened (IPR_EVENT numbers; 0xffffffff:
     * none), and their names. */
    uint32_t counter_event[ACART_IPR_MAX_COUNTERS];
    char counter_name[ACART_IPR_MAX_COUNTERS][32];
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_file_header, 32 + 64 + 512);

#define ACART_IPR_REC_USER    1 /* IprWriteToSampleFile: the caller's bytes */
#define ACART_IPR_REC_SBUFFER 2 /* a sample buffer: acart_ipr_sbuffer, then its records */
#define ACART_IPR_REC_HIST    3 /* a histogram: acart_ipr_hist, then its u32 cells */

struct acart_ipr_record {
    uint32_t type;  /* ACART_IPR_REC_* */
    uint32_t bytes; /* payload that follows */
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_record, 8);

/* Sample records hold the datcol items (IPR_DATA_* of ipr.h: bit 0 PC, 1 TSC, 2 CPU, 3 pid,
 * 4 tid, 5 counter number, 6 its count) in bit order, 8 bytes for those in qdatcol, 4 for
 * the others (little-endian, the low bits of the value). */
struct acart_ipr_sbuffer {
    uint32_t cpu;
    uint32_t partial; /* 1: written before it was full */
    uint32_t datcol, qdatcol;
    uint32_t record_bytes;
    uint32_t used; /* bytes of records that follow */
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_sbuffer, 24);

/* Cells: bucket-major, num_counters per bucket: cell (b, c) counts samples of counter c
 * whose value lay in [begin + (b << gran), begin + ((b + 1) << gran)). Mode histograms
 * have begin 0, gran 0 and one bucket per IPR_MODE_*. */
struct acart_ipr_hist {
    uint32_t cpu, type, index, gran;
    sep_u64_t begin, end; /* end inclusive */
    uint32_t num_buckets, num_counters;
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_hist, 40);

/* acart extension: stack copies for CFI unwinding on the host (docs/sep-protocol.md 6.5,
 * `acart collect --callstack=dwarf`), what Linux perf's `--call-graph dwarf` records: the
 * interrupted context's registers and a bounded copy of its stack from SP upwards, so that
 * the host unwinds code built without frame pointers with the image's .eh_frame.
 *
 * Negotiated (ACART_EXT_STACK_COPY, after ACART_OP_EXTENSIONS): the host places the area
 * with two fields of the descriptor (DESC_NEXT) that SEP leaves reserved and VTune zero:
 * `reserved2` is the area's offset in the record (>= 48, a multiple of 8) and the low half
 * of `reserved3` its bytes (ACART_STACK_COPY_HEAD + a multiple of 8 up to
 * ACART_STACK_COPY_MAX); the area ends the record. A target ignores both fields in a
 * session that has not negotiated, so a VTune host never meets it. */
#define ACART_STACK_COPY_MAX 8192u /* stack bytes per sample, at most */

/* Register slots, in the order and numbering of Linux perf's PERF_REG_X86_* (perf_regs.h),
 * so that a sample means what a perf sample with the same mask means. */
enum acart_stack_reg {
    ACART_REG_AX,
    ACART_REG_BX,
    ACART_REG_CX,
    ACART_REG_DX,
    ACART_REG_SI,
    ACART_REG_DI,
    ACART_REG_BP,
    ACART_REG_SP,
    ACART_REG_IP,
    ACART_REG_FLAGS,
    ACART_REG_CS,
    ACART_REG_SS,
    ACART_REG_DS,
    ACART_REG_ES,
    ACART_REG_FS,
    ACART_REG_GS,
    ACART_REG_R8,
    ACART_REG_R9,
    ACART_REG_R10,
    ACART_REG_R11,
    ACART_REG_R12,
    ACART_REG_R13,
    ACART_REG_R14,
    ACART_REG_R15,
    ACART_STACK_NUM_REGS
};

/* The head of the area; the copied stack follows it: `copied` bytes of the interrupted
 * stack from regs[ACART_REG_SP] upwards, clipped to the stack the platform names
 * (aca_plat_stack_bounds), then zeros to the end of the area. A register whose bit is clear
 * in `known` is unknown, whatever its slot holds (0): the platform's interrupt frame does not
 * carry it (today IP, SP, BP, FLAGS and CS are known; an unwinder that needs another one at
 * that place stops there). copied 0: the stack was unknown or SP lay outside it. */
struct acart_stack_copy {
    sep_u64_t known; /* bit ACART_REG_*: that register's slot holds its value */
    sep_u64_t regs[ACART_STACK_NUM_REGS];
    uint32_t copied; /* stack bytes that follow, a multiple of 4 */
    uint32_t flags;  /* 0 */
};
#define ACART_STACK_COPY_HEAD 208u
SEP_WIRE_ASSERT_SIZE(struct acart_stack_copy, ACART_STACK_COPY_HEAD);
SEP_WIRE_ASSERT_OFFSET(struct acart_stack_copy, regs, 8);
SEP_WIRE_ASSERT_OFFSET(struct acart_stack_copy, copied, 200);
_Static_assert(ACART_REG_R15 == 23, "perf's PERF_REG_X86_R15");
/* The descriptor fields that place the area. */
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, reserved2, 96);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, reserved3, 104);

#endif
