/* IPROBE sample files without a file system: named blobs in one RAM store
 * (ACA_IPR_FILE_BYTES, .bss), one open for writing at a time, served by the agent to
 * `acart fetch` once closed (cmd_files.c). A file is the acart_ipr_file_header, then
 * records (acart_wire.h).
 *
 * The store is cut in order. A file written again under its name replaces the old one,
 * whose bytes are given back only when no file is left; so the space of a live file is
 * never reused, and the agent reads closed files without a lock: it copies, then checks
 * that the file (its id) is still there. */
#include "ipr_file.h"
#include "code_mode.h"
#include "ipr_state.h"
#include "ipr_owner.h"

#include "io.h"

#include <string.h>

struct blob {
    volatile uint32_t used;
    uint32_t id;
    uint32_t offset, bytes;
    volatile uint32_t writing;
    char name[ACART_FILE_NAME_MAX];
};

static uint8_t store[ACA_IPR_FILE_BYTES]
    __attribute__((section(".bss.acart_ipr_files"), aligned(8)));
static uint32_t store_used;
static struct blob blobs[ACA_IPR_MAX_FILES];
static uint32_t next_id = 1;
static int open_blob = -1;
static volatile uint32_t file_lock;
static int auto_writes, auto_partwrites;

_Static_assert(ACA_IPR_MAX_FILES <= ACART_MAX_FILES, "every file fits the list reply");

void ipr_file_lock(void)
{
    while (__atomic_exchange_n(&file_lock, 1, __ATOMIC_ACQUIRE))
        cpu_relax();
}

int ipr_file_trylock(void)
{
    return !__atomic_exchange_n(&file_lock, 1, __ATOMIC_ACQUIRE);
}

void ipr_file_unlock(void)
{
    __atomic_store_n(&file_lock, 0, __ATOMIC_RELEASE);
}

int ipr_file_is_open(void)
{
    return open_blob >= 0;
}

void ipr_file_count_write(int partial)
{
    auto_writes++;
    auto_partwrites += partial != 0;
}

IPR_STATUS ipr_file_append(uint32_t type, const void *a, uint32_t a_bytes, const void *b,
                           uint32_t b_bytes)
{
    if (open_blob < 0)
        return IPR__FILENOTOPEN;
    struct blob *f = &blobs[open_blob];
    struct acart_ipr_record rec = {type, a_bytes + b_bytes};
    /* Records start on 8-byte boundaries, so a reader can map their headers in place. */
    uint64_t end = ((uint64_t)f->offset + f->bytes + sizeof(rec) + a_bytes + b_bytes + 7) & ~7ull;
    if (end > sizeof(store))
        return IPR__NOMEMORY;
    uint8_t *p = store + f->offset + f->bytes;
    memcpy(p, &rec, sizeof(rec));
    if (a_bytes)
        memcpy(p + sizeof(rec), a, a_bytes);
    if (b_bytes)
        memcpy(p + sizeof(rec) + a_bytes, b, b_bytes);
    f->bytes = (uint32_t)(end - f->offset);
    return IPR__SUCCESS;
}

/* The name with defname's extension when fname has none (the seed's partial defaulting). */
static int full_name(const char *fname, const char *defname, char *out)
{
    size_t n = strlen(fname);
    const char *ext = defname ? strrchr(defname, '.') : 0;
    if (n == 0 || n >= ACART_FILE_NAME_MAX)
        return -1;
    memcpy(out, fname, n + 1);
    if (ext && !strchr(fname, '.')) {
        size_t e = strlen(ext);
        if (n + e >= ACART_FILE_NAME_MAX)
            return -1;
        memcpy(out + n, ext, e + 1);
    }
    return 0;
}

static void write_header(void)
{
    struct acart_ipr_file_header h;
    const struct ipr_cpu *c = &ipr_cpus[aca_plat_cpu_index()];
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, ACART_IPR_MAGIC, sizeof(ACART_IPR_MAGIC));
    h.tsc_hz = aca_plat_tsc_hz();
    h.num_counters = ipr_layout.num_counters;
    h.code_bits = CPU_LONG_MODE ? 64 : 32;
    for (uint32_t n = 0; n < ACART_IPR_MAX_COUNTERS; n++) {
        int on = n < ipr_layout.num_counters && (c->selected & (1u << n));
        h.counter_event[n] = on ? c->ctr[n].event : IPR_EVENT_NONE;
        if (on) {
            const char *name = IprEventNumberToName(c->ctr[n].event);
            strncpy(h.counter_name[n], name, sizeof(h.counter_name[n]) - 1);
        }
    }
    struct blob *f = &blobs[open_blob];
    memcpy(store + f->offset, &h, sizeof(h));
    f->bytes = sizeof(h);
}

IPR_STATUS IprOpenSampleFile(const char *fname, const char *defname)
{
    char name[ACART_FILE_NAME_MAX];
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    if (!fname || full_name(fname, defname, name) != 0)
        return IPR__BADARG;
    ipr_file_lock();
    int slot = -1, live = 0;
    if (open_blob >= 0) {
        ipr_file_unlock();
        return IPR__FILEOPEN;
    }
    for (int i = 0; i < ACA_IPR_MAX_FILES; i++) {
        if (blobs[i].used && strcmp(blobs[i].name, name) == 0)
            __atomic_store_n(&blobs[i].used, 0, __ATOMIC_RELEASE); /* replaced */
        live += blobs[i].used != 0;
    }
    if (!live)
        store_used = 0;
    for (int i = 0; i < ACA_IPR_MAX_FILES && slot < 0; i++)
        if (!blobs[i].used)
            slot = i;
    if (slot < 0 || sizeof(store) - store_used < sizeof(struct acart_ipr_file_header)) {
        ipr_file_unlock();
        return IPR__NOMEMORY;
    }
    struct blob *f = &blobs[slot];
    memcpy(f->name, name, sizeof(name));
    f->id = next_id++;
    f->offset = store_used;
    f->writing = 1;
    open_blob = slot;
    write_header();
    auto_writes = auto_partwrites = 0;
    __atomic_store_n(&f->used, 1, __ATOMIC_RELEASE);
    ipr_file_unlock();
    return IPR__SUCCESS;
}

IPR_STATUS IprCloseSampleFile(int *buffwrites, int *partwrites)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    ipr_file_lock();
    if (open_blob < 0) {
        ipr_file_unlock();
        return IPR__FILENOTOPEN;
    }
    struct blob *f = &blobs[open_blob];
    store_used = f->offset + f->bytes;
    __atomic_store_n(&f->writing, 0, __ATOMIC_RELEASE);
    open_blob = -1;
    if (buffwrites)
        *buffwrites = auto_writes;
    if (partwrites)
        *partwrites = auto_partwrites;
    ipr_file_unlock();
    return IPR__SUCCESS;
}

IPR_STATUS IprWriteToSampleFile(const void *bptr, IPR_SIZE bsize)
{
    IPR_STATUS st = ipr_check_owner();
    if (!IPR_SUCCESS(st))
        return st;
    if (!bptr && bsize)
        return IPR__BADARG;
    ipr_file_lock();
    st = ipr_file_append(ACART_IPR_REC_USER, bptr, bsize, 0, 0);
    ipr_file_unlock();
    return st;
}

/* ---- The agent's side (net context, no lock: see the top of this file) ---- */

uint32_t ipr_file_list(struct acart_file_entry *entries, uint32_t max)
{
    uint32_t n = 0;
    for (int i = 0; i < ACA_IPR_MAX_FILES && n < max; i++) {
        const struct blob *f = &blobs[i];
        if (!__atomic_load_n(&f->used, __ATOMIC_ACQUIRE))
            continue;
        struct acart_file_entry *e = &entries[n++];
        memset(e, 0, sizeof(*e));
        e->id = f->id;
        e->bytes = f->bytes;
        e->state = f->writing ? ACART_FILE_WRITING : ACART_FILE_CLOSED;
        memcpy(e->name, f->name, sizeof(e->name) - 1);
    }
    return n;
}

int ipr_file_read(uint32_t id, uint32_t offset, uint8_t *out, uint32_t length)
{
    for (int i = 0; i < ACA_IPR_MAX_FILES; i++) {
        const struct blob *f = &blobs[i];
        if (!__atomic_load_n(&f->used, __ATOMIC_ACQUIRE) || f->id != id)
            continue;
        if (f->writing || offset > f->bytes || length > f->bytes - offset)
            return -1;
        memcpy(out, store + f->offset + offset, length);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return f->used && f->id == id ? 0 : -1;
    }
    return -1;
}
