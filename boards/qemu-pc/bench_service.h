/* The board's benchmark service (TCP port 9323), for bench/: a host sends one line and
 * gets the answer, then the connection closes.
 *   "stats\n"      -> "tsc T tsc_hz H cpus N passes P0 .. PN-1 timer I0 .. IN-1\n"
 *   "source BYTES\n" -> BYTES zero bytes as fast as lwIP sends them (plain TCP throughput)
 *   "timer HZ\n"    -> "ok\n": every CPU takes bare LAPIC timer interrupts at HZ (0 stops
 *                      them), counted in "timer": the interrupt rate the board sustains
 *                      without acart. The kernel command line bench-timer-hz=HZ does the
 *                      same from boot. */
#ifndef QEMU_PC_BENCH_SERVICE_H
#define QEMU_PC_BENCH_SERVICE_H

#include <stdint.h>

#define BENCH_PORT 9323

int bench_service_start(void);

/* Starts the bare timer on the calling CPU (interrupts must be enabled by the caller). */
void bench_timer_start_this_cpu(uint32_t hz);

/* Boot option count-nmis: the board's own NMI handler, which counts per CPU the NMIs acart
 * does not claim (stats' "nmi"). */
void bench_count_nmis(void);

#endif
