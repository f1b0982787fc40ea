/*
 * acart_wire.h - the SEP sampling protocol (version 6) as it travels on TCP.
 * For the host tools, the tests and the runtime; not installed (firmware never needs it).
 *
 * Every byte the host collector (SEP in VTune, or the conformance suite) sends to the board
 * or receives from it is described here, once. Layouts follow the host's x86-64 ABI: the
 * host built its structures with 64-bit pointers and 8-byte aligned 64-bit integers. The
 * board is i686, where GCC aligns 64-bit struct members to 4 only; every 64-bit member
 * is therefore of type sep_u64_t (8-byte aligned on both toolchains), pointers the host
 * keeps inside payloads are sep_u64_t, and each structure's size and key offsets are
 * checked by _Static_assert on both builds.
 *
 * Bit fields of the host's structures are carried as whole words here (for example
 * sep_drv_config.collection_config) with named bit masks: C bit-field layout is the
 * compiler's choice and we do not want the wire to depend on it.
 *
 * All integers are little-endian (both ends are x86). Units are bytes unless stated.
 * See docs/sep-protocol.md for how the messages are sequenced.
 */
#ifndef ACART_WIRE_H
#define ACART_WIRE_H

/* The format by part, as lwIP keeps prot/ apart. */
#include "sep_base.h"
#include "sep_handshake.h"
#include "sep_control.h"
#include "sep_ecb.h"
#include "sep_sys_config.h"
#include "sep_results.h"
#include "acart_ext.h"
#include "sep_records.h"

#endif
