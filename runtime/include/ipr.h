/* For the application (installed): ipr.h: the IPROBE API (seed 002) on x86: a program on the target
 * owns the performance counters, counts, samples into buffers, keeps histograms and writes sample
 * files, with no host and no file system. docs/iprobe.md maps every function to what it does here.
 *
 * Names, arguments and semantics are the seed's. Where x86 differs:
 *  - "process" is the calling task (aca_port_current_task's tid) or, where the port
 *    names none, the one context that calls;
 *  - counter numbers are dense: counter 0 is the time-stamp counter (a software counter,
 *    present everywhere, also without a PMU), then each fixed counter the CPU has
 *    (IA32_FIXED_CTR0..3), then each general-purpose counter (IA32_PMC0..7);
 *  - counts are 64 bits wide (virtualised across overflows). IprRead, IprReadAll and
 *    IprWrite take the seed's int arrays (a count's low 32 bits), so code written from the
 *    seed compiles and runs unchanged; aca_ipr_read, aca_ipr_read_all and aca_ipr_write
 *    take IPR_COUNT arrays with the whole count. In C11, IprRead, IprReadAll and IprWrite
 *    are also macros that call the 64-bit functions when the array is IPR_COUNT, so code
 *    written for either compiles and gets what its array holds;
 *  - IPR_FREQ is the number of events between interrupts (0: count only);
 *  - sample files are named blobs in RAM (ACA_IPR_FILE_BYTES) that the agent serves to
 *    `acart fetch`.
 *
 * Contexts: every function is for task context (or net context), never an interrupt
 * handler; IprPause and IprResume may be called by tasks other than the owner. Calls that
 * act on CPUs other than the caller's own go through the agent's net context when the
 * agent runs (aca_poll serves them), so the net context must keep polling meanwhile. */
#ifndef ACART_IPR_H
#define ACART_IPR_H

#include <stdint.h>

#include "acart_opts.h"

typedef int IPR_STATUS;
typedef uint64_t IPR_CPUMASK; /* bit n: CPU n */
typedef uint32_t IPR_CTRMASK; /* bit n: counter n */
typedef uint32_t IPR_DMASK;   /* IPR_DATA_* */
typedef uint32_t IPR_HMASK;   /* IPR_HIST_* */
typedef uint32_t IPR_MMASK;   /* bit IPR_MODE_*: 1u << IPR_MODE_KERNEL ... */
typedef uint32_t IPR_FMASK;   /* IPR_FUNC_* */
typedef uint64_t IPR_COUNT;   /* counts, sizes of arrays */
typedef uint32_t IPR_SIZE;    /* element counts, byte sizes */
typedef uint64_t IPR_FREQ;    /* events per interrupt; or a mask of powers of two */
typedef uint32_t IPR_EVENT;   /* see "Events" below */
typedef uint32_t IPR_CTRNUMBER;
typedef uint64_t IPR_HISTVALUE; /* an address or other histogrammed value */
typedef uint32_t IPR_HISTELEM;  /* one histogram cell */
typedef int IPR_BOOLEAN;
typedef uint64_t uint64;

#define IPR_MAX_CPUS     64 /* a CPU context at or above this ends the iteration */
#define IPR_MAX_COUNTERS 13 /* the TSC, 4 fixed, 8 general-purpose */
#define IPR_ALL_CPUS     (~(IPR_CPUMASK)0)
#define IPR_CURRENT_CPU  ((IPR_CPUMASK)0)

/* ---- Status codes. Successes are odd, failures even (IPR_SUCCESS tests the low bit). ---- */
#define IPR__SUCCESS           1
#define IPR__PARTBUFF          3  /* IprNextFullSampleBuffer: a partially filled buffer */
#define IPR__FURTHER_EVENTS    5  /* IprAvailableEvents: more events fit */
#define IPR__NO_FURTHER_EVENTS 7  /* IprAvailableEvents: nothing more fits */
#define IPR__NOMORECPU         9  /* a CPU-context iteration is over */
#define IPR__NOMOREBUFF        2  /* no (further) full sample buffer */
#define IPR__NOTOWNER          4  /* the caller does not own the counters */
#define IPR__ALREADYOWNER      6  /* IprAllocate by the owner itself */
#define IPR__INUSE             8  /* another task owns the counters */
#define IPR__HOSTSESSION       10 /* a host's SEP collection holds the PMU */
#define IPR__BADCPUMASK        12 /* no online CPU in the mask, or not exactly one CPU */
#define IPR__BADCTRMASK        14 /* a counter this CPU does not have */
#define IPR__BADARG            16 /* a NULL pointer, size or value out of range */
#define IPR__BUFTOOSMALL       18 /* a caller's array or a buffer size is too small */
#define IPR__NOMEMORY          20 /* the pool (ACA_IPR_POOL_BYTES) or file store is full */
#define IPR__INVEVENT          22 /* not an event this CPU counts (without a PMU: any but the TSC) */
#define IPR__INVEVENTNAME      24 /* no event of that name */
#define IPR__AMBIGUOUS         26 /* the name matches several events */
#define IPR__NOCOUNTER         28 /* the events do not fit the counters */
#define IPR__BADFREQ           32 /* not 0, a power of two the counter allows, or LOWEST/HIGHEST */
#define IPR__MODENOTSUPP       34 /* a mode the hardware cannot filter on */
#define IPR__NOTIMPL                                                                               \
    36                       /* the seed leaves it unimplemented (sampleaction), or x86 has        \
                                no equivalent (IPR_FULL_WAKE) */
#define IPR__NOSELECTION  38 /* IprSetEvents with nothing selected */
#define IPR__BADMUX       40 /* a MUXvalue no selection returned */
#define IPR__BUFFERSEXIST 42 /* sample buffers already exist on a CPU */
#define IPR__NOBUFFERS    44 /* no sample buffers / histograms to add to or read */
#define IPR__RUNNING      46 /* not while counters run */
#define IPR__FILENOTOPEN  48 /* no sample file is open */
#define IPR__FILEOPEN     50 /* a sample file is open already */
#define IPR__BADHIST      52 /* no histogram matches type/index/range */

#define IPR_SUCCESS(s) (((s)&1) != 0)

/* ---- Events. A hardware event is the event bits of IA32_PERFEVTSELx: (umask << 8) | event
 * code, with edge detect (bit 18), any thread (21), invert (23) and the counter mask
 * (31:24) where perfmon's encoding has them (IPR_EVENT_EVTSEL_BITS); IPROBE sets the mode,
 * interrupt and enable bits. IPR_EVENT_TSC is the time-stamp counter. ---- */
#define IPR_EVENT_EVTSEL_BITS 0xffa4ffffu
/* IPR_EVENT_TABLE | (1 + i): event i of the CPU's perfmon table (aca_ipr_use_perfmon), for
 * the events that need an MSR besides their select (offcore response, load latency,
 * frontend), whose value does not fit an IPR_EVENT. */
#define IPR_EVENT_TABLE       0x20000u
#define IPR_EVENT_TSC         0x10000u
#define IPR_EVENT_NONE        0xffffffffu
#define IPR_MAX_EVENTS_IN_SET 32

typedef struct ipr_eventset {
    uint32_t count;
    IPR_EVENT events[IPR_MAX_EVENTS_IN_SET]; /* ascending, no duplicates */
} IPR_EVENTSET;

#define IPR_FREQUENCY_LOWEST  (~(IPR_FREQ)0)     /* the counter's longest period */
#define IPR_FREQUENCY_HIGHEST (~(IPR_FREQ)0 - 1) /* its shortest period */

/* ---- Modes (IprSetModes): index numbers; the mask has bit 1u << IPR_MODE_x. ---- */
#define IPR_MODE_KERNEL    0
#define IPR_MODE_EXEC      1 /* VMS only */
#define IPR_MODE_SUPER     2 /* VMS only */
#define IPR_MODE_USER      3
#define IPR_MODE_INTERRUPT 4
#define IPR_MODE_IDLE      5
#define IPR_MODE_COUNT     6
#define IPR_IPL_COUNT      1 /* x86 has no IPLs: everything is at one level */

/* ---- Sample data items (datcol, qdatcol), in record order; 4 bytes each, 8 in qdatcol. */
#define IPR_DATA_PC     0x01u /* the interrupted EIP */
#define IPR_DATA_TSC    0x02u /* the time-stamp counter */
#define IPR_DATA_CPU    0x04u
#define IPR_DATA_TASK   0x08u /* pid (aca_port_current_task) */
#define IPR_DATA_THREAD 0x10u /* tid */
#define IPR_DATA_CTR    0x20u /* the counter whose interrupt took the sample */
#define IPR_DATA_COUNT  0x40u /* that counter's count */
#define IPR_DATA_ALL    0x7fu

/* ---- Histograms (IPR_HMASK). ---- */
#define IPR_HIST_ADDRESS 0x1u /* by interrupted PC, over [BeginAddr, EndAddr] */
#define IPR_HIST_MODE    0x2u /* by IPR_MODE_* of the interrupted code */
#define IPR_HIST_ALL     0x3u
#define IPR_PCSHIFT      0 /* x86 instructions start on any byte */

/* ---- Actions. ---- */
#define IPR_FULL_NONE  0
#define IPR_FULL_WAKE  1
#define IPR_FULL_AST   2
#define IPR_FULL_WRITE 3

#define IPR_ACTION_COPY  0
#define IPR_ACTION_SUM   1
#define IPR_ACTION_ADD   2
#define IPR_HACTION_COPY IPR_ACTION_COPY
#define IPR_HACTION_SUM  IPR_ACTION_SUM
#define IPR_HACTION_ADD  IPR_ACTION_ADD

#define IPR_WRITE_PARTIAL   1
#define IPR_NOWRITE_PARTIAL 0

/* ---- IprAvailableFuncs. ---- */
#define IPR_FUNC_COUNT      0x1u  /* counting (always: at least the TSC) */
#define IPR_FUNC_PMU        0x2u  /* hardware events */
#define IPR_FUNC_SAMPLE     0x4u  /* sample buffers */
#define IPR_FUNC_HISTOGRAM  0x8u  /* histograms */
#define IPR_FUNC_SAMPLEFILE 0x10u /* sample files (RAM blobs) */
#define IPR_FUNC_TIMER      0x20u /* time-based sampling on the TSC counter */

/* A sample buffer. Records follow the header: the datcol items in bit order. */
typedef struct ipr_sbuffer {
    uint32_t magic; /* IPR_SBUFFER_MAGIC */
    uint16_t cpu, index;
    uint32_t size;          /* bytes of records it holds */
    volatile uint32_t used; /* bytes filled */
    volatile uint32_t full; /* 1 once no further record fits */
    uint32_t record_bytes;
    IPR_DMASK datcol, qdatcol;
    uint8_t data[];
} IPR_SBUFFER;
#define IPR_SBUFFER_MAGIC 0x46554249u /* "IBUF" */

/* ---- Ownership ---- */
IPR_STATUS IprAllocate(void);
IPR_STATUS IprDeallocate(void);

/* ---- Counters ---- */
IPR_STATUS IprSetActiveCounters(IPR_CPUMASK cpus, IPR_CTRMASK validmask, IPR_CTRMASK *retmask);
IPR_STATUS IprSetSampleSkip(IPR_CPUMASK cpus, const IPR_COUNT *skip_values, IPR_SIZE arrsize);
IPR_STATUS IprSelectEvents(IPR_CPUMASK cpus, const IPR_EVENTSET *events, IPR_FREQ freq,
                           uint64 *MUXvalue);
IPR_STATUS IprSelectEventsFromArray(IPR_CPUMASK cpus, const IPR_EVENT *events,
                                    const IPR_FREQ *freqs, IPR_SIZE asize, uint64 *MUXvalue);
IPR_STATUS IprSetEvents(IPR_CPUMASK cpus, const uint64 *MUXvalue);
IPR_STATUS IprSetModes(IPR_CPUMASK cpus, IPR_MMASK modes);
IPR_STATUS IprSpecifyOperations(IPR_CPUMASK cpus, const IPR_EVENT *selected_event,
                                const IPR_FREQ *selected_frequency, IPR_COUNT ecount,
                                IPR_MMASK selected_modes, uint64 *MUXvalue, IPR_CTRMASK *ctrmask);
IPR_STATUS IprEventCounterMap(IPR_CPUMASK cpus, IPR_EVENT *event_arr, IPR_SIZE asize);
IPR_STATUS IprFreqCounterMap(IPR_CPUMASK cpus, IPR_FREQ *freq_arr, IPR_SIZE asize);
IPR_STATUS IprCounterNumber(IPR_CPUMASK cpus, IPR_EVENT event, IPR_CTRNUMBER *cnum);
IPR_STATUS IprStart(IPR_CPUMASK cpus, IPR_CTRMASK ctrs);
IPR_STATUS IprStop(IPR_CPUMASK cpus, IPR_CTRMASK ctrs);
IPR_STATUS IprPause(IPR_CPUMASK cpus, IPR_CTRMASK ctrs);
IPR_STATUS IprResume(IPR_CPUMASK cpus, IPR_CTRMASK ctrs);
/* The seed's signatures: int arrays, each element the low 32 bits of a count (IprRead's
 * ACTION_ADD adds modulo 2^32); IprWrite sets each count to its int's value modulo 2^32. */
IPR_STATUS IprRead(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask, int *retdata,
                   IPR_SIZE rsize, int action_flags);
IPR_STATUS IprReadAll(IPR_CPUMASK cpus, int *cpuctxptr, int *retdata, IPR_SIZE rsize,
                      int action_flags);
IPR_STATUS IprWrite(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask, const int *srcdata,
                    IPR_SIZE srcsize);
/* acart's: the same with whole 64-bit counts. */
IPR_STATUS aca_ipr_read(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask, IPR_COUNT *retdata,
                        IPR_SIZE rsize, int action_flags);
IPR_STATUS aca_ipr_read_all(IPR_CPUMASK cpus, int *cpuctxptr, IPR_COUNT *retdata, IPR_SIZE rsize,
                            int action_flags);
IPR_STATUS aca_ipr_write(IPR_CPUMASK cpus, int *cpuctxptr, IPR_CTRMASK cmask,
                         const IPR_COUNT *srcdata, IPR_SIZE srcsize);
/* C11: the array's type picks the function, so an IPR_COUNT array gets whole counts and
 * an int array the seed's behaviour. Anything else (a NULL) goes to the int function,
 * which answers IPR__BADARG as the seed's would. Parenthesised names, (IprRead)(...),
 * and C++ get the seed's functions. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus) &&           \
    !defined(__CPPCHECK__) /* cppcheck does not follow _Generic: it sees unread arrays */
#define IPR_COUNT_ARRAY_(a, seed, wide)                                                            \
    _Generic((a), IPR_COUNT * : wide, const IPR_COUNT * : wide, default : seed)
#define IprRead(cpus, ctx, cmask, retdata, rsize, flags)                                           \
    IPR_COUNT_ARRAY_(retdata, IprRead, aca_ipr_read)(cpus, ctx, cmask, retdata, rsize, flags)
#define IprReadAll(cpus, ctx, retdata, rsize, flags)                                               \
    IPR_COUNT_ARRAY_(retdata, IprReadAll, aca_ipr_read_all)(cpus, ctx, retdata, rsize, flags)
#define IprWrite(cpus, ctx, cmask, srcdata, srcsize)                                               \
    IPR_COUNT_ARRAY_(srcdata, IprWrite, aca_ipr_write)(cpus, ctx, cmask, srcdata, srcsize)
#endif
IPR_STATUS IprClear(IPR_CPUMASK cpus, IPR_CTRMASK ctrs);
IPR_STATUS IprClearContext(IPR_CPUMASK cpus);
IPR_COUNT IprNumCounters(void);

/* ---- Sample buffers ---- */
IPR_STATUS IprCreateSampleBuffers(IPR_CPUMASK cpus, IPR_COUNT bufcnt, IPR_SIZE bufsiz,
                                  IPR_DMASK datcol, IPR_DMASK qdatcol, int sampleaction,
                                  int fullaction, int (*pRoutine)(void), IPR_COUNT rangecnt,
                                  const uint64 *ranges);
IPR_STATUS IprDeleteBuffers(IPR_CPUMASK cpus);
IPR_STATUS IprMarkEmptySampleBuffer(IPR_SBUFFER *Sptr);
IPR_STATUS IprNextFullSampleBuffer(IPR_CPUMASK cpus, IPR_SBUFFER **bctx, IPR_SIZE *bsize,
                                   IPR_BOOLEAN part_flag);

/* ---- Histograms ---- */
IPR_STATUS IprCreateHistogramBuffers(IPR_CPUMASK cpus, IPR_HMASK histos, IPR_HISTVALUE BeginAddr,
                                     IPR_HISTVALUE EndAddr, unsigned int gran, unsigned int index);
IPR_STATUS IprAddAddressHistogramBuffers(IPR_CPUMASK cpus, IPR_HISTVALUE BeginAddr,
                                         IPR_HISTVALUE EndAddr, unsigned int gran,
                                         unsigned int index);
IPR_STATUS IprReadHistogram(IPR_CPUMASK cpus, int *cpuctxptr, IPR_HISTELEM *retdata,
                            IPR_SIZE retsize, IPR_HISTVALUE retmin, IPR_HMASK htype,
                            unsigned int index, int action_flags);
IPR_STATUS IprReadMultipleHistograms(IPR_CPUMASK cpus, int *cpuctxptr, IPR_HISTELEM **retdata,
                                     const IPR_SIZE *retsize, const IPR_HISTVALUE *retmin,
                                     const IPR_HMASK *htype, const unsigned int *index,
                                     int action_flags, IPR_COUNT itemcnt);
IPR_STATUS IprClearHistograms(IPR_CPUMASK cpus, IPR_HMASK hmask, unsigned int index);
IPR_STATUS IprHbIndex(IPR_HISTVALUE value, IPR_CTRNUMBER ctr, IPR_COUNT numctrs,
                      IPR_HISTVALUE minval, int gran, int *index);
IPR_STATUS IprHbValue(int index, IPR_COUNT numctrs, IPR_HISTVALUE minval, int gran,
                      IPR_HISTVALUE *value);
IPR_STATUS IprHbElements(IPR_COUNT numctrs, IPR_COUNT numval, int gran, IPR_COUNT *numelem);

/* ---- Sample files (named blobs in RAM) ---- */
IPR_STATUS IprOpenSampleFile(const char *fname, const char *defname);
IPR_STATUS IprCloseSampleFile(int *buffwrites, int *partwrites);
IPR_STATUS IprWriteToSampleFile(const void *bptr, IPR_SIZE bsize);
IPR_STATUS IprWriteOneSampleBuffer(const IPR_SBUFFER *bptr, IPR_SIZE bsize);
IPR_STATUS IprWriteSampleBuffers(IPR_CPUMASK cpus, int write_flag, int *rbufwrites,
                                 int *rpartwrites);
IPR_STATUS IprTerminateSampling(int *rbufwrites, int *rpartwrites);

/* ---- Messages ---- */
IPR_STATUS IprPrintMessage(const char *tag, IPR_STATUS errcode, void (*callback)(char *));

/* ---- Events by name and what the counters can do ---- */
const char *IprEventNumberToName(IPR_EVENT evt);
IPR_COUNT IprNumberOfEvents(void);
IPR_STATUS IprEventNameToNumber(const char *ename, IPR_EVENT *evtnum, const char **matches);
IPR_STATUS IprAvailableEvents(const IPR_EVENTSET *reqevents, IPR_EVENTSET *additional_events);
IPR_STATUS IprAvailableFreqs(const IPR_EVENT evt, IPR_FREQ *freq);
IPR_STATUS IprAvailableModes(IPR_MMASK *modes);
IPR_STATUS IprAvailableFuncs(IPR_FMASK *funcs);
IPR_STATUS IprCounterEvents(IPR_CTRNUMBER ctr, IPR_EVENTSET *eset);
IPR_STATUS IprAvailableCounters(IPR_EVENT evt, IPR_CTRMASK *ctrs);

/* ---- Event sets ---- */
IPR_SIZE IprEventSetSize(void);
IPR_EVENT IprEventToNumber(const IPR_EVENTSET *eset);
IPR_COUNT IprNumberEventsInSet(const IPR_EVENTSET *eset);
IPR_BOOLEAN IprVerifyEventInSet(const IPR_EVENTSET *eset, const IPR_EVENT evt);
IPR_STATUS IprClearEventSet(IPR_EVENTSET *eset);
IPR_STATUS IprInsertEvent(IPR_EVENTSET *eset, const IPR_EVENT evt);
IPR_STATUS IprDeleteEvent(IPR_EVENTSET *eset, const IPR_EVENT evt);
IPR_STATUS IprMaskEventSet(IPR_EVENTSET *dst, const IPR_EVENTSET *src);
IPR_STATUS IprRemoveEventSet(IPR_EVENTSET *dst, const IPR_EVENTSET *src);
IPR_STATUS IprExpandEventSet(const IPR_EVENTSET *eset, IPR_EVENT *retdata, IPR_SIZE retsize);
IPR_STATUS IprMergeEventSet(IPR_EVENTSET *dst, const IPR_EVENTSET *src);
/* The seed's scan spells two of them with a Z; both spellings are the same functions. */
#define ZprVerifyEventInSet IprVerifyEventInSet
#define ZprMaskEventSet     IprMaskEventSet

/* ---- Bit manipulation. The macros work on any unsigned mask type; BIprAll1, BIprLowest
 * and BIprIs1 evaluate their argument twice. ---- */
#define BIprAll1(m)     ((m) | ~(m))
#define BIprIsSet(m, b) ((((m) >> (b)) & 1u) != 0)
#define BIprSet(m, c)   ((m) | (c))
#define BIprBoth(m, c)  ((m) & (c))
#define BIprClr(m, c)   ((m) & ~(c))
#define BIprSetLo(b)    ((2ull << (b)) - 1u)
#define BIprSetHi(b)    (~0ull << (b))
#define BIprSet1(m, b)  ((m) | (1ull << (b)))
#define BIprClr1(m, b)  ((m) & ~(1ull << (b)))
#define BIprLowest(m)   ((m) & (0u - (m)))
#define BIprIs1(m)      ((m) != 0 && ((m) & ((m)-1u)) == 0)
#define BIprClrLo(m, b) ((m) & ~((1ull << (b)) - 1u))
#define BIprClrHi(m, b) ((m) & ((2ull << (b)) - 1u))
#define BIprA111        BIprAll1 /* the seed's scan */
#define BZprLowest      BIprLowest
#define BIprZsl         BIprIs1
#define BIprClrl        BIprClr1
uint64_t BIprB2M(unsigned b);
unsigned BIprCnt(uint64_t m);
int BIprWhich(uint64_t m);              /* -1 for an empty mask */
int BIprRelPos(uint64_t m, unsigned b); /* -1 when bit b is not set in m */
#define BZprB2M   BIprB2M
#define BIprXhich BIprWhich

/* ---- acart extensions (not in the seed) ---- */

/* Lets IprEventNameToNumber, IprEventNumberToName and IprNumberOfEvents use every core
 * event of Intel's perfmon table for this CPU's model, besides the architectural events.
 * Defined in libacart_perfmon.a (CMake acart::perfmon), which carries the tables: a
 * program that never calls it does not link them (docs/iprobe.md gives the cost).
 * IPR__INVEVENTNAME when acart has no table for this CPU (the names stay the
 * architectural ones). Net or task context. */
IPR_STATUS aca_ipr_use_perfmon(void);

/* Appends every histogram of `cpus` matching hmask/index to the open sample file, typed so
 * `acart report` can read them back (the seed has no way to write a histogram). */
IPR_STATUS aca_ipr_write_histograms(IPR_CPUMASK cpus, IPR_HMASK hmask, unsigned int index);

/* Runs what the interrupt path deferred: IPR_FULL_AST routines, IPR_FULL_WRITE writes, and
 * other CPUs' work for tasks. aca_poll() calls it; a port without the agent calls it from
 * a task (never from an interrupt handler) every few milliseconds. */
void aca_ipr_poll(void);

/* The readable text of a status, "IPR__NOTOWNER: ..." */
const char *aca_ipr_strerror(IPR_STATUS status);

#endif
