/* For a port, and read by the application (installed): every build-time option of acart
 * with its default, in one place. The port sets them: it builds libacart.a with them, and
 * overrides any of them by defining it first (-D or a forced include; docs/porting.md,
 * "The memory budget"). The application only reads them, where what it may call or size depends on
 * one (ipr.h includes this header for ACA_IPR_*; a board tests #if ACA_WITH_IPROBE). */
#ifndef ACART_OPTS_H
#define ACART_OPTS_H

/* The parts a port may leave out (docs/porting.md, "The memory budget"). Each is 1 (built)
 * or 0: then its code and static data are not in libacart.a at all, and the agent answers
 * a host as a target without the feature does (no uncore, no Intel PT, no sample files).
 * The CMake options ACART_WITH_<PART> (IPROBE, PT, UNCORE, PEBS, LBR, STACK_COPY,
 * COUNTING) set them for the library and for whatever links it: a board may test them
 * (#if ACA_WITH_IPROBE) but must not set them apart from the library it links. */
#ifndef ACA_WITH_IPROBE
#define ACA_WITH_IPROBE 1 /* ipr.h: IPROBE, its pool and sample files */
#endif
#ifndef ACA_WITH_PT
#define ACA_WITH_PT 1 /* Intel PT (docs/pt.md) */
#endif
#ifndef ACA_WITH_UNCORE
#define ACA_WITH_UNCORE 1 /* uncore counters (docs/sep-protocol.md 5.7) */
#endif
/* PEBS, LBR, stack copies and counting mode are left out as a CPU or target without them
 * answers: precise events refused with the reason (as on a CPU whose PEBS an erratum
 * turned off), LBR_INFO refused as on a CPU without LBRs, stack copies not offered by
 * EXTENSIONS, counting mode and event groups refused as on a CPU without a PMU. */
#ifndef ACA_WITH_PEBS
#define ACA_WITH_PEBS 1 /* PEBS: precise events, load latency (docs/pmu.md) */
#endif
#ifndef ACA_WITH_LBR
#define ACA_WITH_LBR 1 /* LBR stacks in samples (LBR_INFO, docs/sep-protocol.md 6.3) */
#endif
#ifndef ACA_WITH_STACK_COPY
#define ACA_WITH_STACK_COPY 1 /* stack copies for --callstack=dwarf (sep-protocol.md 6.5) */
#endif
#ifndef ACA_WITH_COUNTING
#define ACA_WITH_COUNTING 1 /* counting mode (EMON) and event groups taking turns */
#endif

/* The CPUs acart can use (the CMake option ACART_MAX_CPUS): per-CPU state is sized for this
 * many; CPUs of a larger board beyond it take no samples. */
#ifndef ACA_MAX_CPUS
#define ACA_MAX_CPUS 64
#endif

/* The built-in sample rings: one pool in .bss (section .bss.acart_rings, NOBITS) of
 * ACA_RING_BYTES_PER_CPU for each of ACA_MAX_CPUS, split evenly among the CPUs online at
 * aca_start() (so a board with fewer CPUs online than ACA_MAX_CPUS gets larger rings). A
 * port that wants its rings elsewhere passes ring_memory in struct aca_config instead (and
 * may set ACA_RING_BYTES_PER_CPU as low as 4096). 256 KiB per CPU: 16 MiB for 64 CPUs, 256 KiB for
 * a one-CPU image (ACART_MAX_CPUS=1). */
#ifndef ACA_RING_BYTES_PER_CPU
#define ACA_RING_BYTES_PER_CPU (256 * 1024)
#endif
#ifndef ACA_RING_POOL_BYTES
#define ACA_RING_POOL_BYTES (ACA_RING_BYTES_PER_CPU * ACA_MAX_CPUS)
#endif

/* The control connection's reply buffer (.bss): the largest reply a command writes; the
 * zero padding up to what the host asked for is sent without being kept (DRV_PLATFORM_INFO
 * asks 15440 bytes and gets 32 and zeros). The largest replies grow with the board: the
 * system configuration by up to 1.4 KiB per CPU (its CPUID leaves), the thread list by 48
 * bytes per task; an IPROBE file read is up to 32 KiB. A reply that does not fit is
 * refused with SEP's BUFFER_TOO_SMALL. */
#ifndef ACA_CONTROL_REPLY_BYTES
#define ACA_CONTROL_REPLY_BYTES (64 * 1024)
#endif

/* Intel PT trace buffers (docs/pt.md): a pool in .bss (section .bss.acart_pt, NOBITS,
 * 64 KiB aligned), cut among the CPUs for each collection that asks for PT. 0 by default,
 * so a program that does not trace carries no trace buffer: a port that wants PT gives
 * the memory in struct aca_config (pt_memory), or sets this. Only a CPU with Intel PT
 * uses it. */
#ifndef ACA_PT_POOL_BYTES
#define ACA_PT_POOL_BYTES 0
#endif

/* The task switches a collection keeps (aca_task_switched, acart_platform.h): a pool in
 * .bss (section .bss.acart_task_switches, NOBITS) of this many 16-byte records for each of
 * ACA_MAX_CPUS, cut evenly among the collection's CPUs; switches beyond a CPU's share are
 * counted, not kept. 2048: 32 KiB per CPU, and a one-CPU board keeps 2048 switches per
 * CPU acart is built for (131072 at 64 CPUs: over 20 minutes of a 100 Hz scheduler that
 * switches at every tick). 0 builds no switch log: the port's calls then cost a return. */
#ifndef ACA_TASK_SWITCHES_PER_CPU
#define ACA_TASK_SWITCHES_PER_CPU 2048
#endif

/* Tasks and modules the runtime remembers from the port's events. */
#ifndef ACA_MAX_TASKS
#define ACA_MAX_TASKS 256
#endif
#ifndef ACA_MAX_MODULE_EVENTS
#define ACA_MAX_MODULE_EVENTS 256
#endif

/* The module records of a collection (.bss), sent on the module data connection: the
 * port's modules at START and every load and unload during the collection, each about
 * 80 bytes and its name. Records that do not fit are left out (and counted). */
#ifndef ACA_MODULE_BUFFER_BYTES
#define ACA_MODULE_BUFFER_BYTES (32 * 1024)
#endif

/* Uncore sample records waiting for the uncore data channel (.bss): with delayed
 * transfer they wait until STOP, so this bounds a delayed uncore collection (a 56-byte
 * record every 10 ms fills 64 KiB in about 11 s); reads that do not fit are counted. */
#ifndef ACA_UNCORE_BUFFER_BYTES
#define ACA_UNCORE_BUFFER_BYTES (64 * 1024)
#endif

/* IPROBE (ipr.h): sample buffers and histograms are cut from one pool, sample files from
 * one store of named blobs, both in .bss (NOBITS: RAM, never image size). */
#ifndef ACA_IPR_POOL_BYTES
#define ACA_IPR_POOL_BYTES (512 * 1024)
#endif
#ifndef ACA_IPR_FILE_BYTES
#define ACA_IPR_FILE_BYTES (512 * 1024)
#endif
#ifndef ACA_IPR_MAX_FILES
#define ACA_IPR_MAX_FILES 16
#endif

/* The PMI budget of each CPU (docs/pmu.md, "The PMI budget"), as Linux keeps one:
 * at most ACA_PMI_MAX_RATE_HZ sampling interrupts per second and CPU, of which at most
 * ACA_PMI_CPU_PERCENT % of the CPU's time may go to the handler; beyond either the CPU's
 * sampling periods double, and the host is told. Linux allows 100 kHz and 25 %. A board
 * pays more per PMI than Linux's 100 kHz assumes: the kit's NMI is two hardware task
 * switches, and a Skylake PMI that reads its 32-deep LBR stack makes about 100 MSR reads,
 * some 10 us at 2 GHz; at 20 kHz such PMIs fit in 25 % of the CPU, and the net context,
 * which shares CPU 0 with them, keeps the rest. VTune's usual sample-after values sample at
 * 1 kHz or less per CPU. */
#ifndef ACA_PMI_MAX_RATE_HZ
#define ACA_PMI_MAX_RATE_HZ 20000
#endif
#ifndef ACA_PMI_CPU_PERCENT
#define ACA_PMI_CPU_PERCENT 25
#endif
/* struct aca_config's pmi_max_rate_hz for no budget at all (see there). */
#define ACA_PMI_NO_BUDGET 0xffffffffu

#ifndef ACA_DEFAULT_PORT
#define ACA_DEFAULT_PORT 9321
#endif

/* TCP keepalive on every connection of a session. A host that went silent (power, cable,
 * VPN) is dropped after IDLE + COUNT * INTERVAL without an answer: 30 + 5 * 5 = 55 s, so
 * within a minute. A live host's TCP stack answers the probes by itself, so a long
 * delayed-mode collection, whose control channel is idle throughout, is not ended. */
#ifndef ACA_KEEPALIVE_IDLE_MS
#define ACA_KEEPALIVE_IDLE_MS 30000
#endif
#ifndef ACA_KEEPALIVE_INTERVAL_MS
#define ACA_KEEPALIVE_INTERVAL_MS 5000
#endif
#ifndef ACA_KEEPALIVE_COUNT
#define ACA_KEEPALIVE_COUNT 5
#endif

/* A handshake must be complete within this: the first message on the control connection
 * and then every data connection opened and greeted. */
#ifndef ACA_HANDSHAKE_TIMEOUT_MS
#define ACA_HANDSHAKE_TIMEOUT_MS 10000
#endif

/* A data connection whose send buffer stays full, with records waiting, and that takes
 * fewer than ACA_DRAIN_MIN_BYTES in ACA_DRAIN_STALL_MS (its host stopped reading) ends
 * the session. A live host answers probes of a zero window, so keepalive alone would
 * never end it; and buffers between the board and the host (a NAT, the host's kernel) may
 * still take a trickle long after the host stopped reading, hence a floor, not zero. */
#ifndef ACA_DRAIN_STALL_MS
#define ACA_DRAIN_STALL_MS 30000
#endif
#ifndef ACA_DRAIN_MIN_BYTES
#define ACA_DRAIN_MIN_BYTES (64 * 1024)
#endif

/* A connection the board closed gets this long to deliver its last bytes and FIN; then it
 * is reset, so a host that vanished cannot keep the board's TCP memory. */
#ifndef ACA_CLOSE_LINGER_MS
#define ACA_CLOSE_LINGER_MS 5000
#endif

#endif
