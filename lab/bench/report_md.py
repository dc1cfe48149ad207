"""report_md.py - the Markdown pieces every section of `make bench`'s report
writes the same way (imported by report_boot.py and its section modules):
a table, and a ratio to two decimals."""


def table(head, rows):
    """A Markdown table: the header, its rule, one line a row; None prints '-'."""
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join("-" if c is None else str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def ratio(a, b):
    """a / b to two decimals, '-' when either is missing or b is 0."""
    if a is None or b is None or float(b) == 0:
        return "-"
    return "%.2f" % (float(a) / float(b))
