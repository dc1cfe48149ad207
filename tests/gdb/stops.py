# stops.py - for tests/gdb/helpers.sh: reach a named stop whatever other
# stops the remote reports on the way.
#
# With two vCPUs, QEMU's gdbstub now and then reports a stop that is not the
# one the script continued for: the breakpoint just stepped over reported
# again, or the other CPU stopped where it idles. A plain sequence of
# 'continue's then checks every later step against the wrong place (a CI run
# failed five checks that way). 'test-continue-to' continues until the
# selected thread is stopped where asked, prints every other stop it passed
# over (so the log says what happened), and gives up after a bound.
import gdb

MAX_STOPS = 10


def frame_matches(func, step):
    """True when the newest frame is FUNC called from gdbtest_run (for
    kmem_cache_alloc) or, for gdbtest_stop, with its 'step' argument STEP."""
    frame = gdb.newest_frame()
    if frame.name() != func:
        return False
    if step is not None:
        try:
            return frame.read_var("step").string() == step
        except (gdb.error, ValueError):
            return False
    caller = frame.older()
    return caller is not None and caller.name() == "gdbtest_run"


class ContinueTo(gdb.Command):
    """test-continue-to FUNC [STEP]: continue until the selected thread stops
    in FUNC (with step == STEP for gdbtest_stop; called from gdbtest_run
    otherwise). Other stops are printed as 'passing over' and continued
    from; after 10 stops it prints 'test-continue-to: gave up'."""

    def __init__(self):
        super().__init__("test-continue-to", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        func = words[0]
        step = " ".join(words[1:]) if len(words) > 1 else None
        for _ in range(MAX_STOPS):
            gdb.execute("continue")
            try:
                if frame_matches(func, step):
                    return
                frame = gdb.newest_frame()
                print("test-continue-to: passing over a stop in thread %d at %s (pc %#x)"
                      % (gdb.selected_thread().num, frame.name(), frame.pc()))
            except gdb.error as e:
                print("test-continue-to: gave up: %s" % e)
                return
        print("test-continue-to: gave up after %d stops" % MAX_STOPS)


ContinueTo()
