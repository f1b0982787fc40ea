/* Data transfer (transfer.c): ring records to the CPU channels, module records to the
 * module channel, uncore and PT data to theirs. */
#ifndef ACART_TRANSFER_H
#define ACART_TRANSFER_H

#include "session.h"

#include <stdint.h>

void transfer_pump(void);
/* A data connection whose host stopped reading (see ACA_DRAIN_STALL_MS), or NULL. */
const struct data_link *transfer_stalled(uint64_t now_ms);

#endif
