/* Stack copies unwound by elfutils (see unwind.h). */
#include "unwind.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"

struct unwinder {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    int elf64;
    /* The image's loadable bytes, for reads the CFI makes outside the stack (a DWARF
     * expression may load a pointer the code keeps in .data). */
    const unsigned char *file;
    size_t file_size;
    GElf_Addr bias;
    Elf *elf;
    /* The sample being unwound: its registers and its stack bytes [sp, sp + copied). */
    struct acart_stack_copy regs;
    const unsigned char *stack;
    uint64_t sp;
    uint32_t copied;
    uint64_t *out;
    uint32_t n, max, frames;
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* One "thread": each sample is unwound on its own, from its own registers. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
    (void)dwfl;
    if (*thread_arg)
        return 0;
    *thread_arg = arg;
    return 1;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
    (void)dwfl;
    (void)tid;
    *thread_arg = arg;
    return true;
}

/* Bytes of the image at addr (the file's contents of a PT_LOAD segment), or false. */
static bool image_read(struct unwinder *u, uint64_t addr, unsigned size, uint64_t *v)
{
    size_t phnum;
    if (!u->file || elf_getphdrnum(u->elf, &phnum) != 0)
        return false;
    uint64_t at = addr - u->bias;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(u->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (at >= ph.p_vaddr && at - ph.p_vaddr + size <= ph.p_filesz &&
            ph.p_offset + (at - ph.p_vaddr) + size <= u->file_size) {
            *v = 0;
            memcpy(v, u->file + ph.p_offset + (at - ph.p_vaddr), size);
            return true;
        }
    }
    return false;
}

/* A word of the target's memory as it was at the sample: from the copied stack, else from
 * the image. Anything else (a stack byte past the copy, device memory) is unknown, which
 * ends the unwind there rather than inventing a caller. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    struct unwinder *u = arg;
    unsigned size = u->elf64 ? 8 : 4;
    uint64_t v = 0;
    if (addr >= u->sp && addr - u->sp + size <= u->copied) {
        memcpy(&v, u->stack + (addr - u->sp), size);
    } else if (!image_read(u, addr, size, &v)) {
        return false;
    }
    *result = v;
    return true;
}

/* DWARF register numbers of the slots (the psABIs: x86-64's and i386's), -1 for slots the
 * CFI never names (IP is the PC, the flags and segments are not unwound). */
static const int dwarf_x86_64[ACART_STACK_NUM_REGS] = {
    [ACART_REG_AX] = 0,   [ACART_REG_DX] = 1,     [ACART_REG_CX] = 2,   [ACART_REG_BX] = 3,
    [ACART_REG_SI] = 4,   [ACART_REG_DI] = 5,     [ACART_REG_BP] = 6,   [ACART_REG_SP] = 7,
    [ACART_REG_R8] = 8,   [ACART_REG_R9] = 9,     [ACART_REG_R10] = 10, [ACART_REG_R11] = 11,
    [ACART_REG_R12] = 12, [ACART_REG_R13] = 13,   [ACART_REG_R14] = 14, [ACART_REG_R15] = 15,
    [ACART_REG_IP] = -1,  [ACART_REG_FLAGS] = -1, [ACART_REG_CS] = -1,  [ACART_REG_SS] = -1,
    [ACART_REG_DS] = -1,  [ACART_REG_ES] = -1,    [ACART_REG_FS] = -1,  [ACART_REG_GS] = -1,
};
static const int dwarf_i386[ACART_STACK_NUM_REGS] = {
    [ACART_REG_AX] = 0,   [ACART_REG_CX] = 1,     [ACART_REG_DX] = 2,   [ACART_REG_BX] = 3,
    [ACART_REG_SP] = 4,   [ACART_REG_BP] = 5,     [ACART_REG_SI] = 6,   [ACART_REG_DI] = 7,
    [ACART_REG_IP] = -1,  [ACART_REG_FLAGS] = -1, [ACART_REG_CS] = -1,  [ACART_REG_SS] = -1,
    [ACART_REG_DS] = -1,  [ACART_REG_ES] = -1,    [ACART_REG_FS] = -1,  [ACART_REG_GS] = -1,
    [ACART_REG_R8] = -1,  [ACART_REG_R9] = -1,    [ACART_REG_R10] = -1, [ACART_REG_R11] = -1,
    [ACART_REG_R12] = -1, [ACART_REG_R13] = -1,   [ACART_REG_R14] = -1, [ACART_REG_R15] = -1,
};

/* The known registers only: an unknown one stays undefined to elfutils, so a frame whose
 * CFI needs it ends the unwind instead of using a 0. */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    struct unwinder *u = arg;
    const int *map = u->elf64 ? dwarf_x86_64 : dwarf_i386;
    for (int r = 0; r < ACART_STACK_NUM_REGS; r++) {
        if (!(u->regs.known & (1ull << r)) || map[r] < 0)
            continue;
        Dwarf_Word v = u->elf64 ? u->regs.regs[r] : (uint32_t)u->regs.regs[r];
        if (!dwfl_thread_state_registers(thread, map[r], 1, &v))
            return false;
    }
    dwfl_thread_state_register_pc(thread, u->regs.regs[ACART_REG_IP]);
    return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

int unwind_open(const char *path, uint64_t load_address, struct unwinder **out, struct diag *d)
{
    struct unwinder *u = calloc(1, sizeof *u);
    if (!u)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    const char *slash = strrchr(path, '/');
    u->dwfl = dwfl_begin(&offline_callbacks);
    if (!u->dwfl) {
        free(u);
        return diag_fail(d, DIAG_LIBRARY, "%s: elfutils: %s", path, dwfl_errmsg(-1));
    }
    /* As symbols_open: ET_EXEC ignores the base; ET_DYN goes to load_address. */
    u->mod = dwfl_report_elf(u->dwfl, slash ? slash + 1 : path, path, -1, load_address, true);
    if (!u->mod || dwfl_report_end(u->dwfl, NULL, NULL) != 0 ||
        !(u->elf = dwfl_module_getelf(u->mod, &u->bias))) {
        int rc = diag_fail(d, DIAG_INPUT, "%s: not a usable ELF image: %s", path, dwfl_errmsg(-1));
        unwind_close(u);
        return rc;
    }
    u->elf64 = gelf_getclass(u->elf) == ELFCLASS64;
    u->file = (const unsigned char *)elf_rawfile(u->elf, &u->file_size);
    if (!dwfl_attach_state(u->dwfl, u->elf, 1, &thread_callbacks, u)) {
        int rc = diag_fail(d, DIAG_LIBRARY, "%s: elfutils cannot unwind this image: %s", path,
                           dwfl_errmsg(-1));
        unwind_close(u);
        return rc;
    }
    *out = u;
    return 0;
}

void unwind_close(struct unwinder *u)
{
    if (!u)
        return;
    dwfl_end(u->dwfl);
    free(u);
}

/* Frame 0 is the sampled instruction itself; each further frame's PC is a return address
 * into a caller, which is what a sample's callers hold. */
static int on_frame(Dwfl_Frame *frame, void *arg)
{
    struct unwinder *u = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(frame, &pc, &activation))
        return DWARF_CB_ABORT;
    if (u->frames++ == 0)
        return DWARF_CB_OK;
    if (pc == 0 || u->n >= u->max)
        return DWARF_CB_ABORT;
    u->out[u->n++] = pc;
    return DWARF_CB_OK;
}

uint32_t unwind_stack_copy(struct unwinder *u, const unsigned char *copy, uint32_t copy_size,
                           uint64_t *out, uint32_t max)
{
    if (copy_size < ACART_STACK_COPY_HEAD || max == 0)
        return 0;
    memcpy(&u->regs, copy, ACART_STACK_COPY_HEAD);
    const uint64_t needed = (1ull << ACART_REG_IP) | (1ull << ACART_REG_SP);
    if ((u->regs.known & needed) != needed)
        return 0;
    u->stack = copy + ACART_STACK_COPY_HEAD;
    u->sp = u->regs.regs[ACART_REG_SP];
    u->copied = u->regs.copied <= copy_size - ACART_STACK_COPY_HEAD
                    ? u->regs.copied
                    : copy_size - ACART_STACK_COPY_HEAD;
    u->out = out;
    u->n = 0;
    u->max = max;
    u->frames = 0;
    /* Its end (the CFI ran out, a read fell outside the copy) is the normal way a walk
     * ends: what was unwound up to there stands. */
    (void)dwfl_getthread_frames(u->dwfl, 1, on_frame, u);
    return u->n;
}
