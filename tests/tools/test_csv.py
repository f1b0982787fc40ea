"""acart export csv: file names, headers and rows follow VTune's external-data CSV rules
(acarttest/check_vtune_csv.py), and the rows hold the task intervals and cumulative counts that
follow from the synthetic samples. The checker is first shown files it must reject."""

import os

from acarttest import check_vtune_csv
from acarttest.tooltest import check, main, run

HOST = "csvbox"
EVENTS = [("CPU_CLK_UNHALTED.REF_TSC", 2200000), ("INST_RETIRED.ANY", 1000000)]
TASKS = {(1, 1): "idle", (1, 2): "net", (2, 3): "worker,a"}
TSC_START, TSC_STEP = 5000, 100
# (cpu, pid, tid, count, event), appended per CPU in this order.
RUNS = [(0, 1, 1, 3, 0), (0, 1, 2, 2, 0), (0, 1, 2, 1, 1), (0, 1, 1, 1, 0),
        (1, 2, 3, 4, 0), (1, 1, 9, 2, 0)]


def checker_rejects(args):
    """The checker must find what is wrong with bad files, or it proves nothing."""
    bad = {
        "tasks-host-csvbox.csv": "name,start_tsc.RDTSC,end_tsc\nx,1,2\n",
        "a-hostname-csvbox.csv": "name,start.RDTSC,end_tsc\nx,1,2\n",
        "b-hostname-csvbox.csv": "name,start_tsc.RDTSC,end_tsc,tid,pid\nx,1,2,3,4\n",
        "c-hostname-csvbox.csv": "name,start_tsc.RDTSC,end_tsc\nx,5,2\n",
        "d-hostname-csvbox.csv": "tsc.RDTSC,E.COUNT\n1,5\n2,4\n",
        "e-hostname-csvbox.csv": "tsc.RDTSC,E\n1,5\n",
        "f-hostname-csvbox.csv": "tsc.RDTSC,E.COUNT\n1,5\n\n2,6\n",
        "g-hostname-csvbox.csv": "tsc.RDTSC,E.COUNT\n1,5,7\n",
        "h-hostname-other.csv": "tsc.RDTSC,E.COUNT\n1,5\n",
    }
    folder = os.path.join(args.workdir, "bad")
    os.makedirs(folder)
    for name, text in bad.items():
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(text)
        check(check_vtune_csv.problems(path, HOST), "the checker accepts the bad file %s" % name)
    good = os.path.join(folder, "ok-hostname-csvbox.csv")
    with open(good, "w") as f:
        f.write("tsc.RDTSC,E.COUNT,F.INST,pid,tid\n1,5,0.5,1,2\n2,6,0.25,1,2\n")
    check(not check_vtune_csv.problems(good, HOST), "the checker rejects a good file")


def expected():
    """Intervals and per-CPU counter rows that the documented rules give for RUNS."""
    samples = {}
    for cpu, pid, tid, count, event in RUNS:
        samples.setdefault(cpu, []).extend([(pid, tid, event)] * count)
    intervals, counters = [], {}
    for cpu, seq in samples.items():
        tsc = [TSC_START + cpu + k * TSC_STEP for k in range(len(seq))]
        start = 0
        for k in range(1, len(seq) + 1):
            if k == len(seq) or seq[k][:2] != seq[start][:2]:
                pid, tid = seq[start][:2]
                name = TASKS.get((pid, tid), "task %d" % tid).replace(",", "_")
                end = tsc[k] if k < len(seq) else tsc[-1]
                intervals.append([name, str(tsc[start]), str(end), str(pid), str(tid)])
                start = k
        cumulative = [0] * len(EVENTS)
        rows = []
        for k, (_, _, event) in enumerate(seq):
            cumulative[event] += EVENTS[event][1]
            rows.append([str(tsc[k])] + [str(v) for v in cumulative])
        counters[cpu] = rows
    return intervals, counters


def read_table(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:]]


def test(args):
    checker_rejects(args)
    folder = os.path.join(args.workdir, "collection")
    cmd = [args.synth, folder, "--cpus", 2, "--hostname", HOST, "--tsc-start", TSC_START,
           "--tsc-step", TSC_STEP]
    for ev, sav in EVENTS:
        cmd += ["--event", "%s:%d" % (ev, sav)]
    for (pid, tid), name in TASKS.items():
        cmd += ["--task", "%d:%d:%s" % (pid, tid, name)]
    for cpu, pid, tid, count, event in RUNS:
        cmd += ["--run", "%d:%d:%d:0x1000:%d:%d" % (cpu, pid, tid, count, event)]
    run(cmd)
    tb5 = os.path.join(args.workdir, "collection.tb5")
    run([args.acart, "import", folder, "-o", tb5])

    want_intervals, want_counters = expected()
    for source, outdir in ((folder, "from-folder"), (tb5, "from-tb5")):
        out = os.path.join(args.workdir, outdir)
        run([args.acart, "export", "csv", source, "-o", out])
        files = sorted(os.listdir(out))
        check(files == ["counters-cpu0-hostname-%s.csv" % HOST, "counters-cpu1-hostname-%s.csv" % HOST,
                        "tasks-hostname-%s.csv" % HOST], "%s: files %s" % (outdir, files))
        for name in files:
            found = check_vtune_csv.problems(os.path.join(out, name), HOST)
            check(not found, "%s/%s breaks VTune's CSV rules:\n%s" % (outdir, name, "\n".join(found)))

        header, rows = read_table(os.path.join(out, "tasks-hostname-%s.csv" % HOST))
        check(header == ["name", "start_tsc.RDTSC", "end_tsc", "pid", "tid"], "tasks header %s" % header)
        check(sorted(rows) == sorted(want_intervals),
              "%s: intervals\n got %s\nwant %s" % (outdir, sorted(rows), sorted(want_intervals)))
        for cpu, want in want_counters.items():
            header, rows = read_table(os.path.join(out, "counters-cpu%d-hostname-%s.csv" % (cpu, HOST)))
            check(header == ["tsc.RDTSC", "CPU_CLK_UNHALTED_REF_TSC_cpu%d.COUNT" % cpu,
                             "INST_RETIRED_ANY_cpu%d.COUNT" % cpu], "cpu%d counters header %s" % (cpu, header))
            check(rows == want, "%s: cpu%d counters\n got %s\nwant %s" % (outdir, cpu, rows, want))

    # --hostname names the files for another computer name.
    out = os.path.join(args.workdir, "renamed")
    run([args.acart, "export", "csv", folder, "-o", out, "--hostname", "lab-board-7"])
    check(sorted(os.listdir(out))[-1] == "tasks-hostname-lab-board-7.csv", "--hostname: %s" % os.listdir(out))


main(test)
