/* For the host tools, and for the application that links libacart_perfmon.a (installed
 * with it): Intel's perfmon event tables for the CPU models acart knows by name. The host
 * tools resolve `acart collect --event NAME` here; on the target, libacart_perfmon.a's
 * binding (ipr_perfmon.c) resolves IPROBE's names here once the application has called
 * aca_ipr_use_perfmon (ipr.h), and the application may look events up itself.
 *
 * perfmon.c looks models and events up in the generated tables (perfmon_tables.h). One
 * table per events file, found by CPUID family and model through perfmon's mapfile;
 * events sorted by name, case ignored.
 *
 * Freestanding (host tools and i686 target alike): no allocation, no libc but what the
 * compiler may call. On the target this is libacart_perfmon.a, linked only by programs
 * that look events up by name (docs/iprobe.md says what it costs). */
#ifndef ACART_PERFMON_H
#define ACART_PERFMON_H

#include <stdint.h>

#include "perfmon_tables.h"

/* The table for a CPUID display family and model (family 6 only), or NULL. */
const struct perfmon_model *perfmon_model_for(uint32_t family, uint32_t model);

/* The event called name (case ignored), or NULL. */
const struct perfmon_event *perfmon_find(const struct perfmon_model *m, const char *name);

const char *perfmon_name(const struct perfmon_model *m, const struct perfmon_event *e);
uint32_t perfmon_sample_after(const struct perfmon_model *m, const struct perfmon_event *e);
/* The extra MSR the event needs, or NULL. */
const struct perfmon_extra *perfmon_extra(const struct perfmon_model *m,
                                          const struct perfmon_event *e);

/* The event's IA32_PERFEVTSELx bits: event code, umask, edge, any-thread, invert, counter
 * mask. USR, OS, INT and EN are the caller's. */
uint32_t perfmon_evtsel(const struct perfmon_event *e);

#endif
