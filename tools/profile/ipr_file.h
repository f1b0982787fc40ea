/* IPROBE sample files (`acart fetch`; the format of acart_ext.h: a header, then records at
 * 8-byte steps): which files of a folder are such files, and one file's records checked
 * and handed to a visitor, so that report and export read them the same way. */
#ifndef ACART_TOOLS_IPR_FILE_H
#define ACART_TOOLS_IPR_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "acart_wire.h"
#include "diag.h"

/* The data items of a sample record (IPR_DATA_* of ipr.h), by bit. */
enum ipr_item {
    IPR_ITEM_PC = 1u << 0,
    IPR_ITEM_TSC = 1u << 1,
    IPR_ITEM_CPU = 1u << 2,
    IPR_ITEM_PID = 1u << 3,
    IPR_ITEM_TID = 1u << 4,
    IPR_ITEM_COUNTER = 1u << 5,
    IPR_ITEM_COUNT = 1u << 6,
};

struct ipr_file {
    char *path;
    uint8_t *data;
    size_t size;
    struct acart_ipr_file_header header;
};

/* Callbacks for the records of a file, each optional; a nonzero return stops the scan and
 * is returned by ipr_file_scan. Everything given has been checked to lie in the file. */
struct ipr_file_visitor {
    int (*user)(void *ctx, const uint8_t *bytes, uint32_t n);
    int (*hist)(void *ctx, const struct acart_ipr_hist *h, const uint32_t *cells);
    /* records: b->used bytes, a record every b->record_bytes (> 0), each holding at least
     * the items of b->datcol. */
    int (*sbuffer)(void *ctx, const struct acart_ipr_sbuffer *b, const uint8_t *records);
};

/* The IPROBE sample files of folder dir, by name: paths (*n of them; free with
 * ipr_file_free_paths). A folder without any gives *n = 0 and *paths NULL. */
int ipr_file_list(const char *dir, char ***paths, size_t *n, struct diag *d);
void ipr_file_free_paths(char **paths, size_t n);

/* 1 when path is a folder holding IPROBE sample files and no collection (session.json). */
int ipr_file_folder(const char *path);

/* Reads the file whole and checks its header. */
int ipr_file_open(struct ipr_file *f, const char *path, struct diag *d);
void ipr_file_close(struct ipr_file *f);

/* Hands each record of f to v in file order; a damaged record is DIAG_INPUT naming the
 * file and the offset. Returns a visitor's nonzero return as it is. */
int ipr_file_scan(const struct ipr_file *f, const struct ipr_file_visitor *v, void *ctx,
                  struct diag *d);

/* The value of item `bit` in a record of a buffer with items datcol (8 bytes for those in
 * qdatcol, else 4), or 0 when the record does not hold it. */
uint64_t ipr_file_item(const uint8_t *record, uint32_t datcol, uint32_t qdatcol, uint32_t bit);

/* Room for a counter's name: the header's 32 bytes and a NUL. */
#define IPR_FILE_NAME_SIZE 48

/* Counter c's name as the header gives it (NUL-padded, possibly filling the field), into
 * out; "counter C" when it has none. */
void ipr_file_counter_name(const struct ipr_file *f, uint32_t c, char *out, size_t size);

#endif
