# relax.S - /bin/relax of Linux 6.1's multi-CPU x86_64 boots: spins on PAUSE
# until killed. init.sh runs it beside the write that brings a CPU online
# (boot.sh says why). Assembled by initramfs.sh (linux_initramfs_relax).
	.globl	_start
_start:
	pause
	jmp	_start
