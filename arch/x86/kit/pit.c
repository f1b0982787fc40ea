#include "pit.h"
#include "io.h"

void pit_start_periodic(uint32_t hz)
{
    uint32_t divisor = 1193182u / hz;
    outb(0x43, 0x34); /* channel 0, lo/hi, mode 2 (rate generator) */
    outb(0x40, (uint8_t)divisor);
    outb(0x40, (uint8_t)(divisor >> 8));
}
