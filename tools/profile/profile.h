/* The input of the analysis commands: a collection folder written by `acart collect`
 * (session.json, module.bin, cpu<N>.bin) or a tb5 file written by `acart import`. Both
 * give the same session, modules and samples, so report, flamegraph and export work on
 * either. */
#ifndef ACART_TOOLS_PROFILE_H
#define ACART_TOOLS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "module_map.h"
#include "lbr_format.h"
#include "session.h"

/* One sample, decoded. */
struct sample {
    uint64_t ip;
    uint64_t psr; /* ipsr (iip/ipsr form: EFLAGS | CPL << 32) or eflags (eip form) */
    uint64_t csd; /* code segment descriptor (eip form only, else 0) */
    uint64_t tsc;
    uint32_t pid, tid;
    uint16_t cpu;
    uint16_t cs;
    uint8_t event; /* the session event's index */
    uint8_t mode;  /* enum code_mode */
    /* The call stack, when the record carries one: return addresses into the callers of
     * the function containing ip, innermost first (callers[0] is in its caller). A return
     * address points after its call instruction, so look up callers[i] - 1 for the call's
     * own line and function. num_callers is 0 for a record without a call stack, for one
     * whose stack is empty, and always for samples from a tb5 file. */
    const uint64_t *callers; /* valid only during the callback that receives the batch */
    uint32_t num_callers;
    /* The LBR stack the record carries (acart collect --lbr), newest first; in call-stack
     * mode it is also the call stack above: callers[i] is then branches[i].from + 1, the
     * call instruction's address plus one, so that the lookup of callers[i] - 1 finds it.
     * Valid like callers; 0 entries without LBRs. */
    const struct lbr_entry *branches;
    uint32_t num_branches;
    /* The load a load-latency sample measured (acart collect --event
     * MEM_TRANS_RETIRED.LOAD_LATENCY_*:precise): its data linear address, the PEBS data
     * source encoding and its latency in core cycles. has_memory 0: none (every sample of
     * other events, and always from a tb5 file). */
    uint64_t data_address, data_source, latency;
    bool has_memory;
};

/* Receives samples in batches, in file order: for a CPU, in the order the target sent
 * them. Return 0 to go on, or a positive value of your own to stop the scan with it
 * (negative values are the scan's own diag codes). */
typedef int profile_sample_fn(const struct sample *batch, size_t n, void *ctx);

/* Called now and then during a scan with the bytes of input read so far. */
typedef void profile_progress_fn(uint64_t bytes_done, void *ctx);

enum profile_kind { PROFILE_COLLECTION, PROFILE_TB5 };

/* Turns a record's stack copy (`acart collect --callstack=dwarf`: struct acart_stack_copy
 * and its stack, copy_size bytes) into the sample's callers: at most max return addresses,
 * innermost first; returns how many. Whoever opens the image the target ran sets it
 * (cli_open_symbols, with tools/analysis/unwind.h); without it such records have no
 * callers. */
typedef uint32_t profile_unwind_fn(void *ctx, const unsigned char *copy, uint32_t copy_size,
                                   uint64_t *callers, uint32_t max);

struct profile {
    char *source;
    enum profile_kind kind;
    struct session session;
    struct module_info *modules; /* one per load, sorted by load_address, then load time */
    size_t num_modules;
    struct module_map module_map; /* which of them holds an address at a time */
    uint64_t input_bytes;         /* bytes of sample records (raw .bin files, or tb5 stream 0) */
    /* Sample records per CPU (session.num_cpus entries); for a collection whose records
     * are not all 48 bytes, known only after a complete scan. */
    uint64_t *records_per_cpu;
    bool records_known;
    bool reported_counts; /* session.samples_per_cpu holds what the target reported */
    uint64_t num_records;
    /* The most return addresses a sample's call stack may hold: 0 when the samples carry
     * no call stacks (the collection was made without them, or this is a tb5 file). */
    uint32_t callstack_depth;
    /* How the records' LBRs decode (from session.lbr); depth 0 without LBRs. */
    struct lbr_caps lbr;
    profile_progress_fn *progress;
    void *progress_ctx;
    profile_unwind_fn *unwind; /* see profile_unwind_fn; NULL: stack copies give no callers */
    void *unwind_ctx;
    void (*unwind_free)(void *ctx); /* profile_close calls it on unwind_ctx */
    void *tb5;                      /* TBRW handle for PROFILE_TB5 */
};

/* The module holding the code at ip for process pid at time tsc (module_map.h), or NULL. */
const struct module_info *profile_module_at(const struct profile *p, uint64_t ip, uint32_t pid,
                                            uint64_t tsc);

/* The code mode of the collection's image (enum code_mode): its executable module's, else
 * its first module's; CODE_MODE_UNKNOWN without module records. A long-mode target's
 * samples and modules are 64-bit code, a 32-bit target's 32-bit. */
unsigned profile_code_mode(const struct profile *p);

/* "64-bit code (Intel 64)", "32-bit code (IA-32)", ...: for reports. */
const char *profile_code_mode_name(unsigned mode);

/* Writes a warning line to stderr for each CPU whose record count differs from what the
 * target reported in session.json; returns the number of such CPUs. */
unsigned profile_check_counts(const struct profile *p, const char *command);

/* Shared by the two readers: sorts p->modules, points each name into its path and builds
 * the module map; timed says whether the samples carry their TSC (without it, lifetimes
 * cannot tell modules apart and the latest load at an address wins). */
int profile_finish_modules(struct profile *p, bool timed, struct diag *d);

/* Adds a module (copying path) to p->modules, in the order of the records. */
int profile_add_module(struct profile *p, const struct module_info *m, struct diag *d);

/* An unload at time tsc ends the most recent load added so far of the same process and
 * address (and path, unless path is NULL) that is still loaded and began no later than
 * tsc. Returns whether there was such a load. Only before profile_finish_modules. */
bool profile_unload_module(struct profile *p, uint32_t pid, uint64_t load_address, const char *path,
                           uint64_t tsc);

#endif
