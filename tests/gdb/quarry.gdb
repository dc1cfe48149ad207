# quarry.gdb - what `make gdb` runs: attach to `make debug`'s paused QEMU.
# The architecture is set before connecting: QEMU starts the CPU in real mode
# and a debugger that guessed a 32-bit target would reject the 64-bit register
# packet ("Remote 'g' packet reply is too long"). kmain is a hardware
# breakpoint: GRUB loads the kernel after we connect, and would overwrite a
# software breakpoint's int3.
# (make gdb sets the architecture on its command line, before this file runs)
set pagination off
set confirm off
target remote localhost:1234
hbreak kmain
echo \nQuarry: QEMU is paused at reset; a hardware breakpoint is set on kmain.\n
echo Type 'continue' to boot to it, then next/step/bt/print as usual.\n
