"""Cut is cut: `acart collect` against a scripted SEP target on loopback
(tests/acarttest/scripted_target.py) that ends a data channel short after STOP. The host
never takes a channel's end of file as proof that it is whole (QEMU's user network passes a
board's reset on as a FIN): a channel is whole only when the target, on a control connection
still up after the drain, says it sent what arrived. So collect must exit 5 naming the cut
channel and write no session.json when the session ends mid-drain, whether the channel ended
with a FIN (the case a FIN-for-reset would pass off as whole), a reset or inside a record,
and when the session ends during the collection; with the control connection kept, a short
channel is named with what the target claims: its sample count, or what it queued on each
channel (ACART_OP_GET_CHANNEL_TOTALS), the module channel's only check. A whole collection
is never called cut."""

import os
import re

from acarttest.scripted_target import PMU_BASED, Cut, Target
from acarttest.tooltest import check, main, run

SAMPLES = [120, 110]


def collect(args, name, cut=None, expect=5, duration="0.5", totals=None):
    t = Target(PMU_BASED, SAMPLES, cut=cut, totals=totals)
    t.start()
    folder = os.path.join(args.workdir, name)
    out, err = run([args.acart, "collect", "--target", "127.0.0.1:%d" % t.port, "--duration",
                    duration, "-o", folder, "--timeout", "20"], expect=expect)
    t.join(30)
    check(not t.is_alive(), "%s: the scripted target is still waiting" % name)
    check(t.error is None, "%s: the scripted target failed: %s" % (name, t.error))
    return folder, out, err


def check_cut(name, folder, err, pattern):
    print("%s: %s" % (name, err.strip()))
    check(re.search(pattern, err), "%s: the cut channel is not named (%s):\n%s"
          % (name, pattern, err))
    check("cut" in err and "incomplete" in err, "%s: not called cut:\n%s" % (name, err))
    check(not os.path.exists(os.path.join(folder, "session.json")),
          "%s: a cut collection left a session.json that looks complete" % name)


def test(args):
    # Whole: every channel ends after all its records and the target confirms them.
    folder, out, err = collect(args, "whole", expect=0)
    check("cut" not in err and "230 samples" in out, "whole collection:\n%s%s" % (out, err))
    check(os.path.exists(os.path.join(folder, "session.json")), "whole: no session.json")
    # ... and with a target that says what it queued on each channel.
    _, out, err = collect(args, "whole_totals", expect=0, totals=0)
    check("cut" not in err and "230 samples" in out, "whole_totals:\n%s%s" % (out, err))

    # The session ends mid-drain: CPU 1's channel ends after 40 of its 110 records with a
    # FIN, and the control connection closes before the host can ask for the counts. A host
    # that took the FIN for a whole stream would pass this off as complete.
    folder, _, err = collect(args, "fin_mid_drain", Cut(1, 40))
    check_cut("fin_mid_drain", folder, err, r"data channel of CPU 1 (was cut )?after 40 records")
    check(re.search(r"data channel of CPU 0 (was cut )?after 120 records", err),
          "fin_mid_drain: CPU 0, never confirmed either, is not named:\n%s" % err)

    # The same with a reset, as the board sends it.
    folder, _, err = collect(args, "reset_mid_drain", Cut(1, 40, reset=True))
    check_cut("reset_mid_drain", folder, err, r"data channel of CPU 1 (was cut )?after 40 records")

    # The channel ends 20 bytes into a record.
    folder, _, err = collect(args, "mid_record", Cut(1, 40, extra=20))
    check_cut("mid_record", folder, err,
              r"data channel of CPU 1 (was cut )?after 40 records and 20 bytes of a record")

    # The session ends during the collection, before STOP.
    folder, _, err = collect(args, "ended_collecting", Cut(0, control="start"), duration="3")
    check_cut("ended_collecting", folder, err, r"data channel of CPU 0 (was cut )?after 0 records")
    check("closed the control connection during the collection" in err,
          "ended_collecting: the cause is not given:\n%s" % err)

    # The control connection stays: the target's own count shows what is missing.
    t_err = collect(args, "fin_control_kept", Cut(1, 40, control="keep"))[2]
    check("data channel of CPU 1 was cut after 40 of 110 records" in t_err,
          "fin_control_kept: the cut channel is not named:\n%s" % t_err)
    check("CPU 0" not in t_err, "fin_control_kept: CPU 0 blamed:\n%s" % t_err)
    # ... and by the channel totals, with a target that gives them (ACART_OP_GET_CHANNEL_TOTALS).
    t_err = collect(args, "fin_control_kept_totals", Cut(1, 40, control="keep"), totals=0)[2]
    check(re.search(r"data channel of CPU 1 was cut after 40 of 110 records \(GET_CHANNEL_TOTALS",
                    t_err), "fin_control_kept_totals: the cut channel is not named:\n%s" % t_err)
    # The module channel has no count in SEP: only the totals show it cut (160 bytes queued,
    # none arrived).
    t_err = collect(args, "module_cut", totals=160)[2]
    check("module data channel was cut after 0 of 160 bytes" in t_err,
          "module_cut: the cut module channel is not named:\n%s" % t_err)


if __name__ == "__main__":
    main(test)
