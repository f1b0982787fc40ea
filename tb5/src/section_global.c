/*
 * section_global.c - opening and closing global sections (9.1.1). Set-style
 * sections (hardware, software, version info, user-defined) gather in memory and
 * are written whole at done; add-style sections (modules, processes/threads)
 * stream through writers as entries are added.
 */
#include <stdlib.h>

#include "tb5_internal.h"

static int section_exists(const struct tb5 *tb, TBRW_SECTION_IDENTIFIER section)
{
    switch (section) {
    case TBRW_HARDWARE_SECTION:
        return tb5_find(tb, TB5_K_HARDWARE, TB5_GLOBAL) != NULL;
    case TBRW_SOFTWARE_SECTION:
        return tb5_find(tb, TB5_K_SOFTWARE, TB5_GLOBAL) != NULL;
    case TBRW_PROCESS_THREAD_SECTION:
        return tb5_find(tb, TB5_K_PROCESSES, TB5_GLOBAL) != NULL ||
               tb5_find(tb, TB5_K_THREADS, TB5_GLOBAL) != NULL;
    case TBRW_MODULE_SECTION:
        return tb5_find(tb, TB5_K_MODULES, TB5_GLOBAL) != NULL;
    case TBRW_USER_DEFINED_GLOBAL_SECTION:
        return tb5_find(tb, TB5_K_USER_GLOBAL, TB5_GLOBAL) != NULL;
    case TBRW_VERSION_INFO_SECTION:
        return tb5_find(tb, TB5_K_VERSION, TB5_GLOBAL) != NULL;
    }
    return 0;
}

static int known(TBRW_SECTION_IDENTIFIER section)
{
    return (unsigned)section < TB5_NUM_GLOBAL_SECTIONS;
}

TBRW_U32 tb5_global_readable(const struct tb5 *tb, TBRW_SECTION_IDENTIFIER section)
{
    if (tb->global_state[section] == TB5_WRITING)
        return TBRW_SECTION_NOT_READABLE;
    return section_exists(tb, section) ? TBRW_SUCCESS : TBRW_SECTION_NOT_EXIST;
}

TBRW_U32 tb5_global_writing(const struct tb5 *tb, TBRW_SECTION_IDENTIFIER section)
{
    return tb->global_state[section] == TB5_WRITING ? TBRW_SUCCESS : TBRW_SECTION_NOT_WRITEABLE;
}

TBRW_U32 TBRW_reading_section(TBRW_PTR ptr, TBRW_SECTION_IDENTIFIER section)
{
    struct tb5 *tb = tb5_handle(ptr);

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!known(section))
        return TBRW_UNKNOWN_SECTION_NUMBER;
    if (tb->global_state[section] != TB5_CLOSED)
        return TBRW_SECTION_ALREADY_IN_USE;
    if (!section_exists(tb, section))
        return TBRW_SECTION_NOT_EXIST;
    tb->global_state[section] = TB5_READING;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_writing_section(TBRW_PTR ptr, TBRW_SECTION_IDENTIFIER section)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_global_write *gw;
    TBRW_U32 rc = TBRW_SUCCESS;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!known(section))
        return TBRW_UNKNOWN_SECTION_NUMBER;
    if (!tb5_writable(tb))
        return TBRW_INVALID_ACCESS_PERMS;
    if (tb->global_state[section] != TB5_CLOSED)
        return TBRW_SECTION_ALREADY_IN_USE;
    if (section_exists(tb, section))
        return TBRW_SECTION_EXISTS;
    gw = &tb->gw;
    if (section == TBRW_MODULE_SECTION) {
        rc = tb5_writer_begin(tb, &gw->modules, TB5_K_MODULES, TB5_GLOBAL, TB5_REC_MODULE);
    } else if (section == TBRW_PROCESS_THREAD_SECTION) {
        rc = tb5_writer_begin(tb, &gw->pids, TB5_K_PROCESSES, TB5_GLOBAL, TB5_REC_PID);
        if (rc == TBRW_SUCCESS) {
            rc = tb5_writer_begin(tb, &gw->tids, TB5_K_THREADS, TB5_GLOBAL, TB5_REC_TID);
            if (rc)
                tb5_writer_discard(&gw->pids);
        }
    }
    if (rc == TBRW_SUCCESS)
        tb->global_state[section] = TB5_WRITING;
    return rc;
}

static TBRW_U32 finish_records(struct tb5 *tb, struct tb5_writer *w)
{
    return tb5_writer_finish(tb, w, (w->sec->length + w->fill) / w->sec->record_size);
}

static TBRW_U32 commit(struct tb5 *tb, TBRW_SECTION_IDENTIFIER section)
{
    struct tb5_global_write *gw = &tb->gw;
    TBRW_U32 rc;

    switch (section) {
    case TBRW_HARDWARE_SECTION:
        if (!gw->hardware)
            return TBRW_NO_DATA_TO_WRITE;
        return tb5_write_section(tb, TB5_K_HARDWARE, TB5_GLOBAL, 0, 1, gw->hardware,
                                 gw->hardware_len);
    case TBRW_SOFTWARE_SECTION:
        if (!gw->software_mask)
            return TBRW_NO_DATA_TO_WRITE;
        tb5_put32(gw->software + TB5_SW_MASK, gw->software_mask);
        return tb5_write_section(tb, TB5_K_SOFTWARE, TB5_GLOBAL, 0, 1, gw->software, TB5_SW_SIZE);
    case TBRW_VERSION_INFO_SECTION:
        if (!gw->version_set)
            return TBRW_NO_DATA_TO_WRITE;
        return tb5_write_section(tb, TB5_K_VERSION, TB5_GLOBAL, TB5_REC_VERSION, 1, gw->version,
                                 TB5_REC_VERSION);
    case TBRW_USER_DEFINED_GLOBAL_SECTION:
        if (!gw->user_set)
            return TBRW_NO_DATA_TO_WRITE;
        return tb5_write_section(tb, TB5_K_USER_GLOBAL, TB5_GLOBAL, 0, 1, gw->user, gw->user_len);
    case TBRW_MODULE_SECTION:
        return finish_records(tb, &gw->modules);
    case TBRW_PROCESS_THREAD_SECTION:
        rc = finish_records(tb, &gw->pids);
        if (rc == TBRW_SUCCESS)
            rc = finish_records(tb, &gw->tids);
        if (rc)
            tb5_remove(tb, TB5_K_PROCESSES, TB5_GLOBAL);
        return rc;
    }
    return TBRW_UNKNOWN_SECTION_NUMBER;
}

/* Whatever the outcome, the section is closed and what it gathered is released. */
static void release(struct tb5 *tb, TBRW_SECTION_IDENTIFIER section)
{
    struct tb5_global_write *gw = &tb->gw;

    switch (section) {
    case TBRW_HARDWARE_SECTION:
        free(gw->hardware);
        gw->hardware = NULL;
        gw->hardware_len = 0;
        break;
    case TBRW_SOFTWARE_SECTION:
        gw->software_mask = 0;
        break;
    case TBRW_VERSION_INFO_SECTION:
        gw->version_set = 0;
        break;
    case TBRW_USER_DEFINED_GLOBAL_SECTION:
        free(gw->user);
        gw->user = NULL;
        gw->user_len = 0;
        gw->user_set = 0;
        break;
    case TBRW_MODULE_SECTION:
        tb5_writer_discard(&gw->modules);
        break;
    case TBRW_PROCESS_THREAD_SECTION:
        tb5_writer_discard(&gw->pids);
        tb5_writer_discard(&gw->tids);
        break;
    }
}

TBRW_U32 TBRW_done_section(TBRW_PTR ptr, TBRW_SECTION_IDENTIFIER section)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc = TBRW_SUCCESS;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!known(section))
        return TBRW_UNKNOWN_SECTION_NUMBER;
    if (tb->global_state[section] == TB5_CLOSED)
        return TBRW_UNEXPECTED_VALUE;
    if (tb->global_state[section] == TB5_WRITING) {
        rc = commit(tb, section);
        release(tb, section);
    }
    tb->global_state[section] = TB5_CLOSED;
    return rc;
}
