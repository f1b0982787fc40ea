/* PCI configuration space through I/O ports 0xCF8/0xCFC (mechanism #1). */
#ifndef QEMU_PC_PCI_H
#define QEMU_PC_PCI_H

#include <stdint.h>

struct pci_device {
    uint8_t bus, slot, func;
    uint16_t vendor, device;
};

uint32_t pci_read32(const struct pci_device *d, uint8_t offset);
void pci_write32(const struct pci_device *d, uint8_t offset, uint32_t value);

/* Finds the first function with this vendor/device ID; returns 0 when found. */
int pci_find(uint16_t vendor, uint16_t device, struct pci_device *out);

#endif
