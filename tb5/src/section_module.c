/* section_module.c - the module section (9.2.4): one record per load or unload. */
#include "tb5_internal.h"

TBRW_U32 TBRW_add_module(TBRW_PTR ptr, const TBRW_MODULE *module)
{
    struct tb5 *tb = tb5_handle(ptr);
    uint8_t rec[TB5_REC_MODULE];
    TBRW_U32 rc;

    if (!tb || !module)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_writing(tb, TBRW_MODULE_SECTION);
    if (rc)
        return rc;
    if (module->module_size != sizeof(*module))
        return TBRW_UNSUPPORTED_DATA_SIZE;
    rc = tb5_encode(&tb5_codec_module, module, rec, tb5_intern, tb);
    if (rc)
        return rc;
    return tb5_writer_append(tb, &tb->gw.modules, rec, sizeof(rec));
}

TBRW_U32 TBRW_get_one_module(TBRW_PTR ptr, TBRW_U64 module_index, const TBRW_MODULE **p_module)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb || !p_module)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_MODULE_SECTION);
    if (rc == TBRW_SUCCESS)
        rc = tb5_record_at(tb, tb5_find(tb, TB5_K_MODULES, TB5_GLOBAL), &tb5_codec_module,
                           module_index, &tb->one_module);
    *p_module = rc ? NULL : &tb->one_module;
    return rc;
}

struct module_visit {
    TBRW_MODULE_CALLBACK *cb;
    void *user;
};

static TBRW_U32 visit_modules(void *ctx, void *records, uint32_t count, uint64_t first)
{
    struct module_visit *v = ctx;

    (void)first;
    return v->cb(records, count * (TBRW_U32)sizeof(TBRW_MODULE), count, v->user);
}

TBRW_U32 TBRW_enumerate_modules(TBRW_PTR ptr, TBRW_MODULE_CALLBACK *callback_func, void *user_ptr,
                                TBRW_U64 start_index)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct module_visit v = {callback_func, user_ptr};
    TBRW_U32 rc;

    if (!tb || !callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_MODULE_SECTION);
    if (rc)
        return rc;
    return tb5_records_foreach(tb, tb5_find(tb, TB5_K_MODULES, TB5_GLOBAL), &tb5_codec_module,
                               start_index, visit_modules, &v);
}

TBRW_U32 tb5_modules_load(const struct tb5 *tb, TBRW_MODULE **modules, uint64_t *count)
{
    const struct tb5_section *sec = tb5_find(tb, TB5_K_MODULES, TB5_GLOBAL);
    void *out;
    TBRW_U32 rc;

    *modules = NULL;
    *count = 0;
    if (!sec)
        return TBRW_SUCCESS;
    rc = tb5_records_load(tb, sec, &tb5_codec_module, &out, count);
    *modules = out;
    return rc;
}
