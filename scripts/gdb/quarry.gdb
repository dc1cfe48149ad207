# quarry.gdb - what `make gdb` runs once attached to `make debug`'s paused QEMU
# (the architecture, Quarry's helpers in scripts/gdb/quarry.py and the
# connection come first, on make gdb's command line). The architecture is set
# before connecting: QEMU starts the x86_64 CPU in real mode and a debugger
# that guessed a 32-bit target would reject the 64-bit register packet
# ("Remote 'g' packet reply is too long"). kmain is a hardware breakpoint:
# GRUB loads the x86_64 kernel after we connect and would overwrite a
# software breakpoint's int3; once kmain is hit, software breakpoints work.
set pagination off
set confirm off
hbreak kmain
echo \nQuarry: QEMU is paused at reset; a hardware breakpoint is set on kmain.\n
echo Type 'continue' to boot to it, then next/step/bt/print as usual.\n
echo Helpers (memory reads only, safe wherever the kernel stopped): quarry-slabinfo,\n
echo quarry-cache NAME, quarry-page ADDR, quarry-buddyinfo, quarry-dmesg, quarry-percpu VAR,\n
echo quarry-help. With make debug CMDLINE=gdbtest: 'break gdbtest_stop', 'continue'.\n
