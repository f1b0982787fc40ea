/* For the host tools, the tests and the runtime (not installed): SEP event control blocks
 * (EM_CONFIG_NEXT payloads): header and register entries. Part of acart_wire.h (the whole format,
 * see there). */
#ifndef ACART_WIRE_SEP_ECB_H
#define ACART_WIRE_SEP_ECB_H

#include "sep_base.h"

/* ---------------------------------------------------------------------------------------- */
/* Event control block (EM_CONFIG_NEXT payload): header + register entries                  */
/* ---------------------------------------------------------------------------------------- */

/* Register entry types (sep_event_reg.reg_type); 0 is an empty slot. */
#define SEP_REG_EMPTY         0
#define SEP_REG_CCCR          1  /* control register (global ctrl, fixed ctr ctrl, ...) */
#define SEP_REG_ESCR          2  /* event select / other configuration */
#define SEP_REG_DATA          4  /* counter, preloaded with -(sample after) */
#define SEP_REG_DATA_RO_DELTA 8  /* read-only counter, reported as a delta */
#define SEP_REG_DATA_RO_SS    16 /* read-only counter, reported as a snapshot */
#define SEP_REG_METRICS       32

/* sep_event_reg.flags */
#define SEP_EVREG_PRECISE       0x0001u /* PEBS event */
#define SEP_EVREG_GLOBAL        0x0002u /* global (not per-counter) register */
#define SEP_EVREG_UNCORE        0x0004u
#define SEP_EVREG_UNCORE_Q_RST  0x0008u
#define SEP_EVREG_LATENCY       0x0010u
#define SEP_EVREG_IS_GP_REG     0x0020u /* general-purpose counter */
#define SEP_EVREG_CLEAN_UP      0x0040u /* write 0 here when the collection ends */
#define SEP_EVREG_EM_TRIGGER    0x0080u
#define SEP_EVREG_LBR_VALUE     0x0100u /* sample carries LBRs */
#define SEP_EVREG_FIXED_REG     0x0200u /* fixed-function counter */
#define SEP_EVREG_UNC_INTR_READ 0x0400u
#define SEP_EVREG_MULTI_PKG     0x1000u
#define SEP_EVREG_BRANCH_EVT    0x2000u
#define SEP_EVREG_EBC_SAMPLING  0x4000u

/* How an uncore entry is reached (sep_event_reg.reg_prog_type; core ECBs leave it 0). */
#define SEP_REG_PROG_MSR  1
#define SEP_REG_PROG_PCI  2
#define SEP_REG_PROG_MMIO 3

/* sep_event_reg.reg_rw_type: how the reference writes an uncore entry. */
#define SEP_REG_RW_READ       1
#define SEP_REG_RW_WRITE      2
#define SEP_REG_RW_READ_WRITE 3 /* read-modify-write: OR the value into the register */

/* sep_event_reg.counter_type of uncore DATA entries. A static counter is reported as
 * read; the others as the sum of their deltas since START, wrapping at max_bits. */
#define SEP_UNC_COUNTER_STATIC       1
#define SEP_UNC_COUNTER_FREERUN      2 /* counts from power-on; never written */
#define SEP_UNC_COUNTER_PROG_FREERUN 3
#define SEP_UNC_COUNTER_PROGRAMMABLE 4

/* Where a register lives: an MSR index, or PCI/MMIO coordinates for uncore units. */
struct sep_event_reg_id {
    uint32_t reg_id; /* MSR index (or PCI offset / MMIO offset) */
    uint32_t pci_bus_no;
    uint32_t pci_dev_no;
    uint32_t pci_func_no;
    uint32_t data_size; /* access width in bytes for PCI/MMIO */
    uint32_t bar_index; /* index into the ECB's mmio_bar_list (1-based) */
    uint32_t reserved1;
    uint32_t reserved2;
    sep_u64_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_event_reg_id, 40);

/* One register of an event group. */
struct sep_event_reg {
    uint8_t reg_type; /* SEP_REG_* */
    uint8_t unit_id;
    uint16_t event_id_index;       /* index of the event in the host's event list */
    uint16_t counter_event_offset; /* slot of this counter's count in an EBC/uncore record */
    uint16_t reserved1;
    struct sep_event_reg_id event_reg_id;
    sep_u64_t reg_value; /* value to write (a DATA entry: the preload) */
    uint16_t desc_id;    /* sample descriptor used when this counter overflows */
    uint16_t flags;      /* SEP_EVREG_* */
    uint32_t reserved2;
    sep_u64_t max_bits; /* counter width mask, e.g. 0xFFFFFFFFFFFF for 48 bits */
    uint8_t scheduled;
    int8_t secondary_pci_offset_shift;
    uint16_t secondary_pci_offset_offset;
    uint32_t counter_type; /* uncore: static/freerun/... */
    uint32_t event_scope;  /* uncore: package/module/thread/system */
    uint8_t reg_prog_type; /* uncore: 1 MSR, 2 PCI, 3 MMIO */
    uint8_t reg_rw_type;
    uint8_t reg_order;
    uint8_t bit_position;
    sep_u64_t secondary_pci_offset_mask;
    uint32_t core_event_id;
    uint32_t uncore_buffer_offset_in_package;
    uint32_t uncore_buffer_offset_in_system;
    uint32_t aux_reg_id_to_read;
    sep_u64_t aux_read_mask;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_event_reg, 136);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, event_id_index, 2);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, event_reg_id, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, reg_value, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, desc_id, 56);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, flags, 58);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, max_bits, 64);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, counter_type, 76);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, reg_prog_type, 84);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, secondary_pci_offset_mask, 88);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, core_event_id, 96);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, aux_read_mask, 112);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, reserved4, 128);

/* PCI device of an uncore ECB. */
struct sep_pci_device_entry {
    uint32_t bus_no;
    uint32_t dev_no;
    uint32_t func_no;
    uint32_t bar_offset;
    sep_u64_t bar_mask;
    uint32_t bit_offset;
    uint32_t size;
    sep_u64_t bar_address;
    uint32_t enable_offset;
    uint32_t enabled;
    uint32_t base_offset_for_mmio;
    uint32_t operation;
    uint32_t bar_name;
    uint32_t prog_type;
    uint32_t config_type;
    int8_t bar_shift;
    uint8_t reserved0;
    uint16_t reserved1;
    sep_u64_t value;
    sep_u64_t mask;
    sep_u64_t virtual_address;
    uint32_t port_id;
    uint32_t op_code;
    uint32_t device_id;
    uint16_t bar_num;
    uint16_t feature_id;
    sep_u64_t reserved2;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_pci_device_entry, 136);
SEP_WIRE_ASSERT_OFFSET(struct sep_pci_device_entry, bar_mask, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_pci_device_entry, value, 72);
SEP_WIRE_ASSERT_OFFSET(struct sep_pci_device_entry, reserved2, 112);

/* PMU operation kinds: index of sep_ecb_header.operations[] (the host fills slot i with
 * operation_type i). Each names a range of the ECB's entries. */
#define SEP_PMU_OP_INITIALIZE               0
#define SEP_PMU_OP_WRITE                    1
#define SEP_PMU_OP_ENABLE                   2
#define SEP_PMU_OP_DISABLE                  3
#define SEP_PMU_OP_READ                     4
#define SEP_PMU_OP_CLEANUP                  5
#define SEP_PMU_OP_READ_LBRS                6
#define SEP_PMU_OP_GLOBAL_REGS              7  /* global control registers */
#define SEP_PMU_OP_CTRL_GP                  8  /* general counters' event selects */
#define SEP_PMU_OP_DATA_FIXED               9  /* fixed counters */
#define SEP_PMU_OP_DATA_GP                  10 /* general counters */
#define SEP_PMU_OP_OCR                      11 /* off-core response and other extras */
#define SEP_PMU_OP_HW_ERRATA                12
#define SEP_PMU_OP_CHECK_OVERFLOW_GP_ERRATA 13
#define SEP_PMU_OP_CHECK_OVERFLOW_ERRATA    14
#define SEP_PMU_OP_ALL_REG                  15
#define SEP_PMU_OP_DATA_ALL                 16
#define SEP_PMU_OP_GLOBAL_STATUS            17 /* the global overflow status register */
#define SEP_PMU_OP_METRICS                  18
#define SEP_MAX_PMU_OPERATIONS              32

struct sep_pmu_operation {
    uint32_t operation_type; /* SEP_PMU_OP_* */
    uint32_t register_start; /* first entry index */
    uint32_t register_len;   /* number of entries */
    uint32_t reserved1;
    uint32_t reserved2;
    uint32_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_pmu_operation, 24);

#define SEP_MAX_MMIO_BARS 8

struct sep_mmio_bar_info {
    uint32_t bus_no;
    uint32_t dev_no;
    uint32_t func_no;
    uint32_t addr_size;
    sep_u64_t base_offset_for_mmio;
    uint32_t map_size_for_mmio;
    uint32_t main_bar_offset;
    sep_u64_t main_bar_mask;
    uint8_t main_bar_shift;
    uint8_t reserved1;
    uint16_t reserved2;
    uint32_t reserved3;
    uint32_t reserved4;
    uint32_t secondary_bar_offset;
    sep_u64_t secondary_bar_mask;
    uint8_t secondary_bar_shift;
    uint8_t reserved5;
    uint16_t reserved6;
    uint32_t reserved7;
    uint16_t feature_id;
    uint16_t reserved8;
    uint32_t reserved9;
    sep_u64_t reserved10;
};
SEP_WIRE_ASSERT_SIZE(struct sep_mmio_bar_info, 88);

/* Device types (sep_ecb_header.device_type, sep_dev_config.device_type). */
#define SEP_DEVICE_CORE    1
#define SEP_DEVICE_HETERO  2
#define SEP_DEVICE_UNC_IMC 12 /* uncore memory controller; uncore types start at 10 */

#define SEP_ECB_VERSION 2

/* sep_ecb_header.flags */
#define SEP_ECB_DIRECT2CORE  0x0001u
#define SEP_ECB_BL_BYPASS    0x0002u
#define SEP_ECB_PCU_CCST_DBG 0x0004u

/* Event control block header. The entries (struct sep_event_reg) follow at byte 1728.
 *
 * How many entries follow is NOT num_entries: the host puts num_entries entries in the
 * cccr/escr/data ranges and may append more (the core fixture carries 22 entries for
 * num_entries 21; the last one, IA32_PERF_GLOBAL_STATUS, is referenced only by the
 * GLOBAL_STATUS operation). size_of_allocation (= the payload length) is authoritative:
 * entries = (size_of_allocation - 1728) / 136. */
struct sep_ecb_header {
    uint8_t version; /* SEP_ECB_VERSION */
    uint8_t reserved1;
    uint16_t reserved2;
    uint32_t num_entries; /* entries covered by the cccr/escr/data ranges */
    uint32_t group_id;    /* event group number, 0-based */
    uint32_t num_events;
    uint32_t cccr_start; /* first index of the control registers */
    uint32_t cccr_pop;   /* how many slots */
    uint32_t escr_start; /* event selects / extras */
    uint32_t escr_pop;
    uint32_t data_start; /* counters */
    uint32_t data_pop;
    uint16_t flags; /* SEP_ECB_* */
    uint8_t pmu_timer_interval;
    uint8_t reserved3;
    uint32_t size_of_allocation; /* total bytes of this ECB, header and entries */
    uint32_t group_offset;
    uint32_t reserved4;
    struct sep_pci_device_entry pcidev_entry_node;
    uint32_t num_pci_devices;
    uint32_t pcidev_list_offset;
    sep_u64_t pcidev_entry_list; /* host pointer, meaningless on the target */
    uint32_t device_type;        /* 1 core; uncore types >= 10 (12 = IMC) */
    uint32_t dev_node;
    struct sep_pmu_operation operations[SEP_MAX_PMU_OPERATIONS];
    uint32_t descriptor_id;
    uint32_t reserved5;
    uint32_t metric_start;
    uint32_t metric_pop;
    struct sep_mmio_bar_info mmio_bar_list[SEP_MAX_MMIO_BARS];
    uint32_t num_mmio_secondary_bar;
    uint32_t group_id_offset_in_trigger_evt_desc;
    sep_u64_t reserved7;
    sep_u64_t reserved8;
};
SEP_WIRE_ASSERT_SIZE(struct sep_ecb_header, 1728);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, num_entries, 4);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, cccr_start, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, data_pop, 36);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, flags, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, size_of_allocation, 44);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, pcidev_entry_node, 56);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, num_pci_devices, 192);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, pcidev_entry_list, 200);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, device_type, 208);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, operations, 216);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, descriptor_id, 984);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, metric_start, 992);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, mmio_bar_list, 1000);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, num_mmio_secondary_bar, 1704);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, reserved8, 1720);

/* EM_CONFIG_NEXT reply (when the host asks for one, from_target_data_size >= 48): why an
 * ECB was refused. drv_status 0 means accepted. */
struct sep_ioctl_status {
    uint32_t drv_status;   /* SEP_STATUS_*; SEP_STATUS_INVALID_PROG_INFO for a refused register */
    uint8_t reg_prog_type; /* 1 MSR, 2 PCI, 3 MMIO */
    uint8_t reserved1;
    uint16_t reserved2;
    sep_u64_t
        reg_key1; /* the refused MSR index (PCI: bus 7:0, dev 12:8, func 15:13, offset 31:16) */
    uint32_t reg_key2;
    uint32_t reserved3;
    sep_u64_t reserved4;
    sep_u64_t reserved5;
    sep_u64_t reserved6;
};
SEP_WIRE_ASSERT_SIZE(struct sep_ioctl_status, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_ioctl_status, reg_key1, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_ioctl_status, reg_key2, 16);

#endif
