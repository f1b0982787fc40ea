/* acart collect: one sampling collection from a SEP (protocol v6) target into a folder.
 *
 * The command plays VTune's SEP host: handshake, data connections, the set-up requests
 * in SEP's order, START, the wait, STOP, the drain of every data channel to end of file,
 * then the target's own counts and TERMINATE. It writes the channels' bytes as received
 * (cpu<N>.bin, module.bin) and session.json, and succeeds only when every CPU channel
 * delivered exactly the records the target says it sent. A collection whose target ended
 * the session before saying so is cut (collect_cut.c), whatever its channels' ends looked
 * like: it fails naming each channel and leaves no session.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "collect_internal.h"
#include "commands.h"
#include "file_util.h"
#include "text_escape.h"

static int exit_status(const struct diag *d)
{
    fputs("acart collect: ", stderr);
    text_fput_terminal(d->msg[0] ? d->msg : diag_strerror(d->code), stderr); /* target text */
    fputc('\n', stderr);
    return d->code == COLLECT_DIAG_TARGET ? ACART_EXIT_TARGET : diag_exit_status(d->code);
}

int cmd_collect(int argc, char **argv)
{
    struct collection c;
    struct diag d = {0};
    memset(&c, 0, sizeof c);
    c.link.control = -1;
    int rc = collect_parse_options(argc, argv, &c.opt);
    if (rc >= 0)
        return rc;
    if (link_parse_target(&c.link, c.opt.target, &d))
        return cli_usage_error("collect", collect_usage, "%s", d.msg);
    collect_layout_init(&c.layout, c.opt.callstack_depth); /* the depth is checked already */
    if (file_make_dir(c.opt.output, &d))
        return exit_status(&d);

    int collected = 0;
    if (!(rc = collect_connect_target(&c, &d)) && !(rc = collect_target_description(&c, &d)) &&
        !(rc = collect_resolve_events(&c, &d)) && !(rc = collect_plan_lbr(&c, &d)) &&
        !(rc = collect_configure_driver(&c, &d)) && !(rc = collect_configure_pt(&c, &d)) &&
        !(rc = collect_configure_events(&c, &d)) && !(rc = collect_configure_uncore(&c, &d)) &&
        !(rc = collect_read_tasks(&c, &d)) && !(rc = collect_init_pmu(&c, &d)) &&
        !(rc = collect_run(&c, &d)) && !(rc = collect_results(&c, &d)) &&
        !(rc = collect_write_task_switches(&c, &d)) && !(rc = collect_write_session(&c, &d)) &&
        !(rc = collect_write_uncore(&c, &d))) {
        collected = 1;
        if (!(rc = collect_check_channels(&c, &d)) && !(rc = collect_check_counts(&c, &d)))
            rc = collect_check_silent_cpus(&c, &d);
    } else if (rc == COLLECT_DIAG_TARGET && collect_channels_cut(&c)) {
        /* Whatever step noticed first, the records on their way are lost: cut is cut. */
        rc = collect_report_cut(&c, &d);
    }
    link_close(&c.link);
    if (collected) {
        collect_print_summary(&c);
        collect_warn_lost_switches(&c);
    }
    if (c.data)
        for (size_t i = 0; i <= c.num_cpus + SEP_NONCORE_DATA_CONNECTIONS; i++)
            if (c.data[i].fd >= 0)
                close(c.data[i].fd);
    free(c.data);
    data_reader_free(&c.reader);
    sysinfo_free(&c.sys);
    collect_pt_free(&c.pt);
    counts_free(&c.counts);
    collect_switches_free(&c.switches);
    for (size_t i = 0; i < c.num_tasks; i++)
        free(c.tasks[i].name);
    free(c.tasks);
    return rc ? exit_status(&d) : ACART_EXIT_OK;
}
