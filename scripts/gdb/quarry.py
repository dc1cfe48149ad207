# quarry.py - Quarry's gdb helpers; `make gdb` sources this file
# (gdb -x scripts/gdb/quarry.py), or by hand: (gdb) source scripts/gdb/quarry.py
# The commands and printers live in quarry_gdb/ (quarry-help lists them).
import os
import sys

sys.dont_write_bytecode = True		# no __pycache__ in the source tree
here = os.path.dirname(os.path.abspath(__file__))
if here not in sys.path:
    sys.path.insert(0, here)

import quarry_gdb  # noqa: E402

quarry_gdb.register()
