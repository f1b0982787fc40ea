/* The module records of a collection (module_records.c): what the port had loaded when the
 * collection started, then what it loaded and unloaded until the stop, as ModuleRecords in
 * the collection's module stream (collection.h) that transfer.c sends. */
#ifndef ACART_MODULE_RECORDS_H
#define ACART_MODULE_RECORDS_H

#include <stdint.h>

/* At START: the port's module list and the run-time modules loaded before since_tsc and
 * not unloaded before it. */
void module_records_queue_initial(uint64_t since_tsc);
/* At STOP: load and unload records for what the port loaded or unloaded since since_tsc. */
void module_records_queue_changes(uint64_t since_tsc);

#endif
