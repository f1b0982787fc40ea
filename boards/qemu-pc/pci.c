#include "pci.h"
#include "io.h"

static uint32_t address(uint8_t bus, uint8_t slot, uint8_t func, uint8_t offset)
{
    return 0x80000000u | ((uint32_t)bus << 16) | ((uint32_t)slot << 11) | ((uint32_t)func << 8) |
           (offset & 0xfc);
}

uint32_t pci_read32(const struct pci_device *d, uint8_t offset)
{
    outl(0xcf8, address(d->bus, d->slot, d->func, offset));
    return inl(0xcfc);
}

void pci_write32(const struct pci_device *d, uint8_t offset, uint32_t value)
{
    outl(0xcf8, address(d->bus, d->slot, d->func, offset));
    outl(0xcfc, value);
}

int pci_find(uint16_t vendor, uint16_t device, struct pci_device *out)
{
    for (unsigned bus = 0; bus < 256; bus++) {
        for (unsigned slot = 0; slot < 32; slot++) {
            for (unsigned func = 0; func < 8; func++) {
                struct pci_device d = {(uint8_t)bus, (uint8_t)slot, (uint8_t)func, 0, 0};
                uint32_t id = pci_read32(&d, 0);
                if ((id & 0xffff) == 0xffff) {
                    if (func == 0)
                        break;
                    continue;
                }
                if ((id & 0xffff) == vendor && (id >> 16) == device) {
                    d.vendor = vendor;
                    d.device = device;
                    *out = d;
                    return 0;
                }
            }
        }
    }
    return -1;
}
