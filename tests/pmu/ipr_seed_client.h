/* The seed-written IPROBE client (ipr_seed_client.c). */
#ifndef ACART_TEST_IPR_SEED_CLIENT_H
#define ACART_TEST_IPR_SEED_CLIENT_H

#include "ipr.h"

/* Counts `event` on every CPU around work(), the measured code (the test's): each CPU's
 * count into percpu, their sum into total, and the value read back after writing 123456
 * on CPU 0 into written. Returns the last IPROBE status (IPR__SUCCESS). */
int seed_client(IPR_EVENT event, void (*work)(void), int percpu[IPR_MAX_CPUS], int *total,
                int *written);

#endif
