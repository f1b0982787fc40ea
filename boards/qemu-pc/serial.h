/* The 16550 UART at COM1: the board console. */
#ifndef QEMU_PC_SERIAL_H
#define QEMU_PC_SERIAL_H

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, unsigned len);

#endif
