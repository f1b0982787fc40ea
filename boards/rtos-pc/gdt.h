/* The kernel's own flat GDT: ring 0 code and data over all 4 GiB. */
#ifndef RTOS_PC_GDT_H
#define RTOS_PC_GDT_H

#include <stdint.h>

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10

/* What lgdt and lidt load. */
struct table_register {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed));

/* Loads the GDT and reloads every segment register. */
void gdt_init(void);

#endif
