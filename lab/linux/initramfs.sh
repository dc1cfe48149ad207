# initramfs.sh - sourced: the one way the lab's Linux boots get their
# initramfs (a static busybox, an /init script, and files at the root).
#   linux_initramfs OUT.cpio.gz BUSYBOX INIT [FILE...]
# BUSYBOX: a statically linked busybox for the guest's arch, linked as the
# few applets the /init scripts use; INIT: the script that becomes /init;
# each FILE is copied to the root under its own name. Every time stamp is
# zeroed, the archive sorted and written without inode numbers (cpio
# --reproducible), so the same inputs give the same bytes (they place the
# guest's pages, so an -icount boot repeats exactly).
# Returns 1 with a message when an input is missing or the archive fails.
linux_initramfs() {
	local out=$1 bb=$2 init=$3 ir f a
	shift 3
	[ -x "$bb" ] || { echo "initramfs.sh: no busybox at $bb" >&2; return 1; }
	[ -f "$init" ] || { echo "initramfs.sh: no init script $init" >&2; return 1; }
	ir=$(mktemp -d) && chmod 755 "$ir" || return 1
	mkdir -p "$ir"/bin "$ir"/proc "$ir"/sys "$ir"/dev
	cp "$bb" "$ir/bin/busybox"
	for a in sh mount insmod rmmod grep cat echo poweroff sleep; do ln -s busybox "$ir/bin/$a"; done
	cp "$init" "$ir/init" && chmod 755 "$ir/init"
	for f in "$@"; do
		[ -f "$f" ] || { echo "initramfs.sh: no file $f" >&2; rm -rf "$ir"; return 1; }
		cp "$f" "$ir/"
	done
	(cd "$ir" && find . -exec touch -h -d @0 {} + && find . | LC_ALL=C sort |
		cpio -o -H newc --quiet --reproducible | gzip -9 -n) > "$out" || { rm -rf "$ir"; echo "initramfs.sh: cannot write $out" >&2; return 1; }
	rm -rf "$ir"
}

# linux_relax_tools DIR - put /bin/relax (relax.S, assembled here for x86_64)
# and /bin/cpus-online (cpus-online.sh) under DIR, the root of an initramfs
# being made: Linux 6.1 on several x86_64 CPUs boots with maxcpus=1 and its
# /init brings the other CPUs up with them (boot.sh says why). Returns 1 with
# a message when binutils are missing or a step fails.
linux_relax_tools() {
	local root=$1 here
	here=$(dirname "${BASH_SOURCE[0]}")
	mkdir -p "$root/bin" || return 1
	if ! as --64 -o "$root/relax.o" "$here/relax.S" ||
		! ld -m elf_x86_64 -static -o "$root/bin/relax" "$root/relax.o"; then
		rm -f "$root/relax.o"
		echo "initramfs.sh: cannot assemble $here/relax.S (binutils for x86_64: as, ld)" >&2
		return 1
	fi
	rm -f "$root/relax.o"
	cp "$here/cpus-online.sh" "$root/bin/cpus-online" && chmod 755 "$root/bin/relax" "$root/bin/cpus-online"
}

# linux_initramfs_relax OUT BASE INIT - Linux 6.1 on several x86_64 CPUs (boot.sh):
# OUT is the initramfs BASE followed by a second archive holding INIT as /init
# and linux_relax_tools' two files. The kernel unpacks both archives in turn,
# the second's files replacing the first's, so a kernel built earlier boots
# with the current init.sh; BASE is left as it is. Time stamps zeroed and the
# archive sorted, as above: the same inputs give the same bytes.
# Returns 1 with a message when an input is missing or a step fails.
linux_initramfs_relax() {
	local out=$1 base=$2 init=$3 ir
	[ -f "$base" ] || { echo "initramfs.sh: no initramfs $base" >&2; return 1; }
	[ -f "$init" ] || { echo "initramfs.sh: no init script $init" >&2; return 1; }
	ir=$(mktemp -d) && chmod 755 "$ir" || return 1
	linux_relax_tools "$ir/root" || { rm -rf "$ir"; return 1; }
	cp "$init" "$ir/root/init" && chmod 755 "$ir/root/init"
	{ cat "$base" && (cd "$ir/root" && find . -exec touch -h -d @0 {} + && find . | LC_ALL=C sort |
		cpio -o -H newc --quiet --reproducible | gzip -9 -n); } > "$out" || { rm -rf "$ir"; echo "initramfs.sh: cannot write $out" >&2; return 1; }
	rm -rf "$ir"
}
