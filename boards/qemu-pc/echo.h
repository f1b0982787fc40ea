/* A TCP echo service (lwIP raw API): the network self-test of the board. */
#ifndef QEMU_PC_ECHO_H
#define QEMU_PC_ECHO_H

#include <stdint.h>

int echo_start(uint16_t port);

#endif
