/* Finds the RSDP in the BIOS areas, follows RSDT (or XSDT, below 4 GiB) to the MADT. */
#include "acpi_madt.h"
#include "io.h"

#include <string.h>

struct acpi_sdt_header {
    char signature[4];
    uint32_t length;
    uint8_t revision;
    uint8_t checksum;
    char oem_id[6];
    char oem_table_id[8];
    uint32_t oem_revision;
    uint32_t creator_id;
    uint32_t creator_revision;
} __attribute__((packed));

_Static_assert(sizeof(struct acpi_sdt_header) == 36, "ACPI SDT header is 36 bytes");

static int checksum_ok(const void *p, uint32_t len)
{
    const uint8_t *b = p;
    uint8_t sum = 0;
    for (uint32_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + b[i]);
    return sum == 0;
}

static const uint8_t *find_rsdp_in(uint32_t start, uint32_t len)
{
    for (uint32_t a = start; a + 20 <= start + len; a += 16) {
        const uint8_t *p = phys_ptr(a);
        if (memcmp(p, "RSD PTR ", 8) == 0 && checksum_ok(p, 20))
            return p;
    }
    return 0;
}

static const struct acpi_sdt_header *find_madt(void)
{
    uint32_t ebda = (uint32_t)(*(const volatile uint16_t *)phys_ptr(0x40e)) << 4;
    const uint8_t *rsdp = ebda ? find_rsdp_in(ebda, 1024) : 0;
    if (!rsdp)
        rsdp = find_rsdp_in(0xe0000, 0x20000);
    if (!rsdp)
        return 0;

    uint32_t rsdt_addr, xsdt_lo = 0, entry_size = 4;
    memcpy(&rsdt_addr, rsdp + 16, 4);
    if (rsdp[15] >= 2) {
        uint32_t xsdt_hi;
        memcpy(&xsdt_lo, rsdp + 24, 4);
        memcpy(&xsdt_hi, rsdp + 28, 4);
        if (xsdt_lo && xsdt_hi == 0) {
            rsdt_addr = xsdt_lo;
            entry_size = 8;
        }
    }
    const struct acpi_sdt_header *root = phys_ptr(rsdt_addr);
    if (!checksum_ok(root, root->length))
        return 0;
    uint32_t n = (root->length - sizeof(*root)) / entry_size;
    const uint8_t *entries = (const uint8_t *)(root + 1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t addr;
        memcpy(&addr, entries + i * entry_size, 4);
        const struct acpi_sdt_header *h = phys_ptr(addr);
        if (memcmp(h->signature, "APIC", 4) == 0 && checksum_ok(h, h->length))
            return h;
    }
    return 0;
}

/* Returns 1 and the APIC ID when the entry is an enabled processor (xAPIC or x2APIC). */
static int madt_entry_cpu(const uint8_t *e, uint32_t *apic_id)
{
    uint32_t flags;
    if (e[0] == 0 && e[1] >= 8) { /* processor local APIC */
        memcpy(&flags, e + 4, 4);
        *apic_id = e[3];
        return flags & 1;
    }
    if (e[0] == 9 && e[1] >= 16) { /* processor local x2APIC */
        memcpy(apic_id, e + 4, 4);
        memcpy(&flags, e + 8, 4);
        return flags & 1;
    }
    return 0;
}

int acpi_madt_cpus(uint32_t *apic_ids, int max)
{
    const struct acpi_sdt_header *madt = find_madt();
    if (!madt)
        return -1;
    const uint8_t *p = (const uint8_t *)madt + sizeof(*madt) + 8; /* skip LAPIC addr, flags */
    const uint8_t *end = (const uint8_t *)madt + madt->length;
    int n = 0;
    while (p + 2 <= end && p[1] >= 2 && p + p[1] <= end) {
        uint32_t id;
        if (madt_entry_cpu(p, &id) && n < max)
            apic_ids[n++] = id;
        p += p[1];
    }
    return n;
}
