/* For the application: acart, VTune's SEP sampling agent as a library for bare-metal x86
 * firmware. What a port implements or calls is in acart_platform.h.
 *
 * A board links libacart.a, implements the port (acart_platform.h), and calls
 * aca_start(). From then on the board answers VTune's SEP collector (or `acart collect`)
 * on a TCP port. Everything runs in the caller's single address space; acart installs
 * its own sampling-interrupt handler and keeps samples in per-CPU RAM rings.
 *
 * What acart needs from the CPU and the RTOS (CPU index, interrupts, a sampling timer,
 * stack bounds, TSC rate) is the platform seam, acart_platform.h: implemented by acart's
 * x86 kit (libacart_x86.a) or by the port itself.
 *
 * Contexts. "Net context" is wherever the port runs lwIP: an interrupt handler or a task,
 * on any CPU, as long as it is always the same one context (lwIP's raw API is not
 * re-entrant; with lwIP's tcpip thread, that thread). aca_start() and aca_poll() must be
 * called from there. "Interrupt context" means acart's sampling handler, which may be an
 * NMI: hooks called from it must not block, lock or print. */
#ifndef ACART_H
#define ACART_H

#include <stddef.h>
#include <stdint.h>

/* ---- Errors: negative values, readable strings. ---- */
enum aca_error {
    ACA_OK = 0,
    ACA_ERR_INVALID = -1,     /* an argument or message is malformed */
    ACA_ERR_NO_MEMORY = -2,   /* a build-time table or ring is too small */
    ACA_ERR_BUSY = -3,        /* already started / another host holds the session */
    ACA_ERR_NET = -4,         /* lwIP refused (bind, listen, write) */
    ACA_ERR_NO_PMU = -5,      /* no usable performance-monitoring unit */
    ACA_ERR_STATE = -6,       /* the call is not valid in the current state */
    ACA_ERR_DENIED = -7,      /* an MSR/PCI/MMIO access outside the allowlist */
    ACA_ERR_UNSUPPORTED = -8, /* a request acart does not implement */
    ACA_ERR_CONFIG_SIZE = -9, /* struct aca_config size unknown to this library */
    ACA_ERR_PLATFORM = -10,   /* the platform seam answers wrongly (aca_selftest says how) */
    ACA_ERR_LWIP = -11,       /* the linked lwIP's options cannot carry acart (the log names
                                 the option and both values) */
};

const char *aca_strerror(int err);

/* ---- Configuration. ---- */
enum aca_transfer_mode {
    ACA_TRANSFER_DELAYED = 0,   /* samples stay in RAM until STOP, then drain */
    ACA_TRANSFER_IMMEDIATE = 1, /* samples drain while collecting */
};

enum aca_interrupt_mode {
    ACA_INTERRUPT_NMI = 0,    /* PMI delivered as NMI: samples even where IRQs are off */
    ACA_INTERRUPT_VECTOR = 1, /* PMI on a fixed vector (cfg.interrupt_vector) */
};

/* Hosts allowed to connect: an IPv4 subnet, addr/prefix_len. addr is in network byte
 * order (on x86 the first octet is the lowest byte: ACA_IPV4(192, 168, 7, 0)); prefix_len
 * 32 names one host, 24 a /24, 0 every host. */
struct aca_allowed_hosts {
    uint32_t addr;
    uint8_t prefix_len; /* 0..32 */
};
#define ACA_IPV4(a, b, c, d)                                                                       \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

struct aca_config {
    uint32_t size;                   /* sizeof(struct aca_config), for versioning */
    uint16_t port;                   /* TCP port; 0 means 9321 */
    enum aca_transfer_mode transfer; /* default delayed */
    enum aca_interrupt_mode interrupt_mode;
    uint8_t interrupt_vector;    /* for ACA_INTERRUPT_VECTOR: 0x30..0xef, not claimed */
    void *ring_memory;           /* NULL: the built-in pool (ACA_RING_POOL_BYTES) */
    uint32_t ring_bytes_per_cpu; /* with ring_memory: bytes per CPU (ring_memory holds
                                    num_cpus times this, 64-byte aligned) */
    /* Who may connect: num_allowed_hosts subnets (kept by pointer, so static storage).
     * NULL, the default, lets any host that reaches the port connect: right for a lab,
     * not for a plant or field network (docs/porting.md). A connection from elsewhere is
     * reset as it is accepted, before a byte of it is read, and its address logged (one
     * line per minute at most, then a count). */
    const struct aca_allowed_hosts *allowed_hosts;
    uint32_t num_allowed_hosts;
    /* Session timeouts in milliseconds (count for keepalive_count); 0 means the default
     * of acart_opts.h (ACA_KEEPALIVE_*, ACA_HANDSHAKE_TIMEOUT_MS, ACA_DRAIN_*). */
    uint32_t keepalive_idle_ms, keepalive_interval_ms, keepalive_count;
    uint32_t handshake_timeout_ms;
    uint32_t drain_stall_ms, drain_min_bytes;
    /* Intel PT trace memory: 64 KiB aligned, identity-mapped (the trace unit writes to
     * physical addresses), pt_memory_bytes long; NULL: the built-in pool
     * (ACA_PT_POOL_BYTES, 0 by default: then there is no PT). */
    void *pt_memory;
    uint32_t pt_memory_bytes;
    /* The PMI budget per CPU (docs/pmu.md): at most pmi_max_rate_hz sampling interrupts a
     * second, of which at most pmi_cpu_percent % of the CPU's time in the handler; beyond
     * that the CPU's sampling periods double and the host is told. 0 means the default of
     * acart_opts.h (ACA_PMI_MAX_RATE_HZ, ACA_PMI_CPU_PERCENT). A board that wants more sets
     * a higher rate. ACA_PMI_NO_BUDGET turns it off: only for a harness whose TSC is not
     * its CPUs' time (a simulated board), never on hardware, where a storm starves the net
     * context. */
    uint32_t pmi_max_rate_hz;
    uint32_t pmi_cpu_percent;
};

/* Fills cfg with the defaults. */
void aca_config_init(struct aca_config *cfg);

/* Starts listening. Net context; the network interface must be up. */
int aca_start(const struct aca_config *cfg);

/* Serves the network side: pending transfers, timeouts. Net context, called often
 * (every lwIP poll; at least every few milliseconds while a host is connected). */
void aca_poll(void);

/* Checks the port: the CPU index on every CPU, the current-task hook, stack bounds that
 * contain the interrupted stack pointer, and that the sampling timer (or the port's tick)
 * delivers on every CPU. Prints each finding through aca_port_log and returns ACA_OK or
 * the first error. Task context with interrupts enabled, on any CPU, before aca_start()
 * or with no host connected; takes about 50 ms. */
int aca_selftest(void);

/* ---- Intel PT flight recorder (docs/pt.md) ----
 * During a snapshot-mode PT collection (`acart collect --pt --pt-snapshot`) each CPU's
 * trace ring wraps until something freezes it; the host fetches the frozen rings, the last
 * trace before the freeze, when the collection ends. The firmware freezes them when it sees
 * what it wants traced, a missed deadline for example: the calling CPU stops tracing at
 * once, the others at the agent's next poll. The first freeze of a collection wins; `code`
 * is the firmware's own, shown to the host. Any context, NMI and exception handlers
 * included: a few stores and one MSR write on the calling CPU, no locks, no libc. Does
 * nothing unless a snapshot-mode PT collection is running. */
void aca_trace_freeze(uint32_t code);

#endif
