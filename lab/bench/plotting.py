"""plotting.py - the one plotting library of the lab's reports: matplotlib
(Debian's python3-matplotlib, installed by scripts/deps.sh like every other
dependency; report.py runs the reports under a python3 that imports it).

    plt, why = pyplot()     matplotlib.pyplot with the file-only Agg backend,
                            or (None, a line saying why there is no plot)
"""

NO_PLOT = ("no plot: python3-matplotlib does not import "
           "(Debian: apt-get install python3-matplotlib, or scripts/deps.sh as root)")


def pyplot():
    """(matplotlib.pyplot, None), or (None, the reason) when matplotlib does not import."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None, NO_PLOT
    return plt, None
