/* Data transfer (transfer.c): ring records to the CPU channels, module records to the
 * module channel, uncore and PT data to theirs. */
#ifndef ACART_TRANSFER_H
#define ACART_TRANSFER_H

#include "session.h"

#include <stdint.h>

void transfer_pump(void);
void transfer_queue_modules(void);
/* At STOP: load and unload records for what the port loaded or unloaded since then. */
void transfer_queue_module_changes(uint64_t since_tsc);
uint64_t transfer_records_committed(void);
/* A data connection whose host stopped reading (see ACA_DRAIN_STALL_MS), or NULL. */
const struct data_link *transfer_stalled(uint64_t now_ms);

#endif
