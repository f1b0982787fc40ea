/* `acart pt packets`: every packet of a trace as Intel's ptdump prints it (offset, type,
 * payload), read by libipt's packet decoder. */
#ifndef ACART_TOOLS_PT_PACKETS_H
#define ACART_TOOLS_PT_PACKETS_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Prints the packets of bytes [begin, end) of a trace, from its first PSB, as ptdump does
 * without options (with no_pad, as with --no-pad): one line per packet, offsets counted
 * from base; where a packet cannot be read, ptdump's error line, and on from the next PSB.
 * config gives the CPU (errata) and the timing fields; its begin and end are set here.
 * Returns the number of packets printed. */
uint64_t pt_packets_print(const uint8_t *begin, const uint8_t *end, uint64_t base,
                          const struct pt_config *config, bool no_pad, FILE *out);

/* acart pt packets (DIR|TRACE) [--cpu N] [--no-pad] [raw-trace options]. */
int pt_packets(int argc, char **argv);

#endif
