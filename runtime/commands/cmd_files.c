/* acart's extension commands: what the board offers beyond SEP (Intel PT's commands are in
 * cmd_pt.c), and the IPROBE sample files (ipr_file.c) for `acart fetch`. The file commands answer
 * like an unknown command until the session asked for ACART_OP_EXTENSIONS, so a SEP host that never
 * does (VTune) sees exactly the reference's behaviour (docs/sep-protocol.md 4.3). */
#include "session.h"
#include "acart_opts.h"
#include "commands.h"
#include "pmu_owner.h"
#if ACA_WITH_IPROBE
#include "ipr_file.h"
#endif

#include <string.h>

/* A part built out (acart_opts.h) is not offered: a host then meets a target without it. */
#define EXT_FILES      (ACA_WITH_IPROBE ? ACART_EXT_FILES : 0)
#define EXT_PT         (ACA_WITH_PT ? ACART_EXT_PT : 0)
#define EXT_STACK_COPY (ACA_WITH_STACK_COPY ? ACART_EXT_STACK_COPY : 0)

int32_t cmd_extensions(struct cmd_request *req)
{
    struct session *sess = req->session;
    struct acart_extensions ext = {1, ACART_EXT_DROP_REASONS | EXT_FILES | EXT_PT | EXT_STACK_COPY,
                                   0, 0};
    switch (pmu_owner_current()) {
    case PMU_OWNER_HOST:
        ext.pmu_owner = ACART_PMU_HOST;
        break;
    case PMU_OWNER_IPROBE:
        ext.pmu_owner = ACART_PMU_IPROBE;
        break;
    default:
        ext.pmu_owner = ACART_PMU_FREE;
        break;
    }
    sess->extensions_negotiated = 1;
    return cmd_reply(req, &ext, sizeof(ext));
}

#if ACA_WITH_IPROBE
int32_t cmd_list_files(struct cmd_request *req)
{
    struct session *sess = req->session;
    static struct acart_file_list list;
    if (!sess->extensions_negotiated)
        return SEP_STATUS_DRIVER_COMM_FAILED;
    memset(&list, 0, sizeof(list));
    list.count = ipr_file_list(list.files, ACART_MAX_FILES);
    return cmd_reply(
        req, &list,
        (uint32_t)(offsetof(struct acart_file_list, files) + list.count * sizeof(list.files[0])));
}

int32_t cmd_read_file(struct cmd_request *req)
{
    struct session *sess = req->session;
    struct acart_file_read r;
    if (!sess->extensions_negotiated)
        return SEP_STATUS_DRIVER_COMM_FAILED;
    memcpy(&r, req->in, sizeof(r));
    if (r.length > ACART_FILE_READ_MAX || r.length > req->out_cap)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    /* A file gone or replaced since the list (a program wrote it again) reads as a bad
     * parameter; the host lists again. */
    if (ipr_file_read(r.id, r.offset, req->out, r.length) != 0)
        return SEP_STATUS_BAD_PARAMETER;
    req->out_len = r.length;
    return SEP_STATUS_SUCCESS;
}
#endif
