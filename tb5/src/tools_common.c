/* tools_common.c - conveniences of tb5_tools.h shared by host tools. */
#include "tb5_internal.h"
#include "tb5_tools.h"

TBRW_U32 tb5_open_path(TBRW_PTR *ptr, const char *path, TBRW_U32 access_mode)
{
    return tb5_open_utf8(ptr, path, access_mode);
}

const char *tb5_strerror(TBRW_U32 code)
{
    return tb5_error_text(code);
}
