"""report_fmt.py - number and table formatting shared by the report
scripts (report.py and its sections)."""


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
