"""report_fmt.py - number and table formatting shared by the report
scripts (report.py and its sections)."""
import os


def fmt_t(us):
    """A time in microseconds, with a unit that keeps it readable."""
    if us is None or us == "":
        return "-"
    if us >= 1000:
        return "%.1f ms" % (us / 1000)
    if us >= 10:
        return "%.1f us" % us
    return "%.3f us" % us


def md_header(*cols):
    """The header and separator lines of a Markdown table."""
    return ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]


def fmt_ratio(x):
    """A ratio with two decimals, "-" if there is none."""
    return "-" if x is None or x == "" else "%.2f" % x


def fmt_bytes(b):
    """A byte count in B, KB, MB or GB (powers of 1000, as the targets)."""
    if b is None or b == "":
        return "-"
    for div, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
        if abs(b) >= div:
            return "%.2f %s" % (b / div, unit)
    return "%d B" % round(b)


def fmt_status(met):
    """A target's status cell: met, **MISSED** or not measured (None)."""
    return {True: "met", False: "**MISSED**", None: "not measured"}[met]


def splice_section(path, text, begin, end, anchor="\n# Results with"):
    """Replaces the text between the markers begin and end in the file at
    path by text (which carries the markers); without the markers, inserts
    text before the first anchor (or at the end)."""
    with open(path) as f:
        doc = f.read()
    if begin in doc and end in doc:
        a = doc.index(begin)
        b = doc.index(end) + len(end)
        doc = doc[:a] + text.rstrip("\n") + doc[b:]
    else:
        i = doc.find(anchor)
        i = len(doc) if i < 0 else i + 1
        doc = doc[:i] + text + "\n" + doc[i:]
    with open(path, "w") as f:
        f.write(doc)


def save_fig(fig, docs, fname):
    """Lays out fig, writes it as docs/bench/fname, closes it; fname."""
    import matplotlib.pyplot as plt  # the callers chose the backend

    fig.tight_layout()
    fig.savefig(os.path.join(docs, "bench", fname), dpi=90)
    plt.close(fig)
    return fname
