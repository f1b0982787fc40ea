"""`acart report --latency`'s two tables as tests read them: the rows by data source and the
rows by function, each field as printed (callers convert what they compare as numbers)."""


def report_rows(out):
    """Source rows: name -> (loads, share, avg, stlb, buckets as ints); function rows: name ->
    (loads, avg, stlb loads)."""
    sources, functions, part = {}, {}, None
    for line in out.splitlines():
        if line.lstrip().startswith("Loads"):
            part = "functions" if "Function" in line else "sources"
            continue
        f = line.split()
        if part == "sources" and len(f) > 13:
            sources[" ".join(f[13:])] = (int(f[0]), f[1], f[2], f[3], [int(x) for x in f[4:13]])
        elif part == "functions" and len(f) > 4 and f[0].isdigit():
            functions[" ".join(f[4:])] = (int(f[0]), f[2], int(f[3]))
    return sources, functions
