/* tools_common.c - conveniences of tb5_tools.h shared by host tools. */
#include <stdio.h>

#include "tb5_internal.h"
#include "tb5_tools.h"

TBRW_U32 tb5_open_path(TBRW_PTR *ptr, const char *path, TBRW_U32 access_mode)
{
    return tb5_open_utf8(ptr, path, access_mode);
}

const char *tb5_strerror(TBRW_U32 code)
{
    static _Thread_local char text[512];
    const char *detail = tb5_error_detail(code);
    if (!detail[0])
        return tb5_error_text(code);
    snprintf(text, sizeof(text), "%s: %s", tb5_error_text(code), detail);
    return text;
}
