/* Every build-time option of acart with its default, in one place. A board overrides
 * any of them by defining it first (e.g. with -D or a forced include). */
#ifndef ACART_OPTS_H
#define ACART_OPTS_H

#ifndef ACA_MAX_CPUS
#define ACA_MAX_CPUS 32
#endif

/* Per-CPU sample ring in the built-in .acart_rings section. */
#ifndef ACA_RING_BYTES_PER_CPU
#define ACA_RING_BYTES_PER_CPU (1024 * 1024)
#endif

/* Tasks and modules the runtime remembers from the port's events. */
#ifndef ACA_MAX_TASKS
#define ACA_MAX_TASKS 256
#endif
#ifndef ACA_MAX_MODULE_EVENTS
#define ACA_MAX_MODULE_EVENTS 256
#endif

#ifndef ACA_DEFAULT_PORT
#define ACA_DEFAULT_PORT 9321
#endif

#endif
