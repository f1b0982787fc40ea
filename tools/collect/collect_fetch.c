/* acart fetch --target HOST[:PORT] -o DIR: copies the IPROBE sample files a target holds in
 * RAM (ipr.h: IprOpenSampleFile ... IprCloseSampleFile) into DIR, one file each, through
 * acart's extension commands (docs/sep-protocol.md 4.3). `acart report DIR` reads them. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "collect_link.h"
#include "commands.h"
#include "file_util.h"

static const char usage[] =
    "usage: acart fetch --target HOST[:PORT] -o DIR [--timeout S]\n"
    "\n"
    "Copies the sample files an IPROBE program on the target wrote (named blobs in the\n"
    "board's RAM) into DIR, one file per blob under its name; `acart report DIR` reads\n"
    "them. Files still open for writing on the target are listed and skipped.\n"
    "\n"
    "  -t, --target HOST[:PORT]  the board (port 9321 by default)\n"
    "  -o, --output DIR          where the files go (created if needed)\n"
    "      --timeout S           longest wait for any answer (default 30)\n"
    "  -h, --help                show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 4 cannot write DIR, 5 target unreachable, failed, or\n"
    "without acart's extensions.\n";

static int fail(const struct diag *d)
{
    fprintf(stderr, "acart fetch: %s\n", d->msg[0] ? d->msg : diag_strerror(d->code));
    return d->code == COLLECT_DIAG_TARGET ? ACART_EXIT_TARGET : diag_exit_status(d->code);
}

/* A name the target chose, as a file name in DIR: no path separators, no dot files. */
static void safe_name(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (; name[n] && n + 1 < size; n++)
        out[n] = (name[n] == '/' || name[n] == '\\' || (n == 0 && name[n] == '.')) ? '_' : name[n];
    out[n] = 0;
}

static int fetch_file(struct collect_link *l, const struct acart_file_entry *e, const char *dir,
                      struct diag *d)
{
    char name[ACART_FILE_NAME_MAX + 1], path[4096];
    uint8_t *buf = malloc(e->bytes ? e->bytes : 1);
    if (!buf)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (uint32_t at = 0; at < e->bytes;) {
        struct acart_file_read r = {e->id, at, e->bytes - at, 0};
        if (r.length > ACART_FILE_READ_MAX)
            r.length = ACART_FILE_READ_MAX;
        int rc = link_request(l, ACART_OP_READ_FILE, &r, sizeof r, buf + at, r.length, r.length,
                              NULL, d);
        if (rc) {
            free(buf);
            return rc;
        }
        at += r.length;
    }
    memcpy(name, e->name, ACART_FILE_NAME_MAX);
    name[ACART_FILE_NAME_MAX] = 0;
    char safe[ACART_FILE_NAME_MAX + 1];
    safe_name(name, safe, sizeof safe);
    snprintf(path, sizeof path, "%s/%s", dir, safe);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(buf, 1, e->bytes, f) == e->bytes;
    if (f && fclose(f) != 0)
        ok = 0;
    free(buf);
    if (!ok)
        return diag_fail(d, DIAG_OUTPUT, "%s: cannot write", path);
    printf("%s (%" PRIu32 " bytes)\n", path, e->bytes);
    return 0;
}

static int fetch(struct collect_link *l, const char *dir, struct diag *d)
{
    struct acart_extensions ext;
    struct acart_file_list list;
    size_t got = 0;
    int rc = link_request(l, ACART_OP_EXTENSIONS, NULL, 0, &ext, sizeof ext, sizeof ext, NULL, d);
    if (rc || !(ext.extensions & ACART_EXT_FILES))
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "%s:%s has no sample files to offer: it does not answer acart's "
                         "EXTENSIONS command (not an acart board, or one without IPROBE)",
                         l->host, l->port);
    memset(&list, 0, sizeof list);
    if ((rc = link_request(l, ACART_OP_LIST_FILES, NULL, 0, &list, sizeof list, 8, &got, d)))
        return rc;
    if (list.count > ACART_MAX_FILES || 8 + list.count * sizeof list.files[0] > got)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "LIST_FILES: %" PRIu32 " files in a %zu-byte reply", list.count, got);
    uint32_t fetched = 0;
    for (uint32_t i = 0; i < list.count; i++) {
        const struct acart_file_entry *e = &list.files[i];
        if (e->state != ACART_FILE_CLOSED) {
            fprintf(stderr, "acart fetch: %.*s is still being written on the target: skipped\n",
                    ACART_FILE_NAME_MAX, e->name);
            continue;
        }
        if ((rc = fetch_file(l, e, dir, d)))
            return rc;
        fetched++;
    }
    printf("%" PRIu32 " of %" PRIu32 " files fetched into %s\n", fetched, list.count, dir);
    return 0;
}

int cmd_fetch(int argc, char **argv)
{
    static const struct option options[] = {{"target", required_argument, 0, 't'},
                                            {"output", required_argument, 0, 'o'},
                                            {"timeout", required_argument, 0, 'T'},
                                            {"help", no_argument, 0, 'h'},
                                            {0, 0, 0, 0}};
    const char *target = NULL, *dir = NULL;
    uint64_t timeout = 30;
    struct collect_link l;
    struct diag d = {0};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "t:o:h", options, NULL)) != -1) {
        switch (opt) {
        case 't':
            target = optarg;
            break;
        case 'o':
            dir = optarg;
            break;
        case 'T':
            if (cli_parse_uint(optarg, 3600, &timeout) < 0 || timeout == 0)
                return cli_usage_error("fetch", usage, "--timeout %s: seconds, 1-3600", optarg);
            break;
        case 'h':
            return cli_help(usage);
        default:
            return cli_usage_error("fetch", usage, "unknown option");
        }
    }
    if (!target || !dir || optind != argc)
        return cli_usage_error("fetch", usage, "--target and -o are required");
    memset(&l, 0, sizeof l);
    l.control = -1;
    if (link_parse_target(&l, target, &d))
        return cli_usage_error("fetch", usage, "%s", d.msg);
    if (file_make_dir(dir, &d))
        return fail(&d);
    int rc = link_open(&l, 30, (double)timeout, &d);
    struct link_data *data = NULL;
    size_t n = 0;
    if (!rc) {
        n = l.status.hardware_info.num_cpus + SEP_NONCORE_DATA_CONNECTIONS;
        data = calloc(n, sizeof *data);
        rc = data ? link_open_data(&l, data, n, &d) : diag_fail(&d, DIAG_NOMEM, "out of memory");
    }
    if (!rc)
        rc = fetch(&l, dir, &d);
    if (!rc)
        rc = link_request(&l, SEP_OP_TERMINATE, NULL, 0, NULL, 0, 0, NULL, &d);
    link_close(&l);
    for (size_t i = 0; data && i < n; i++)
        if (data[i].fd >= 0)
            close(data[i].fd);
    free(data);
    return rc ? fail(&d) : ACART_EXIT_OK;
}
