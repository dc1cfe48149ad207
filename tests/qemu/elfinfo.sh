#!/usr/bin/env bash
# elfinfo.sh FILE - what a Quarry kernel ELF was built for, as one line
# "ARCH PAGE": ARCH x86_64 or arm64 (from the ELF header's e_machine, 0x3e or
# 0xb7), PAGE 4K, 16K or 64K (from the PAGE_SHIFT the Makefile passed on the
# compiler's command line, which -g3 keeps in the DWARF macro info; when that
# is missing, from a build directory named <arch>-<4k|16k|64k>[-...]; "?"
# when neither tells). Exit status 1, nothing printed, when FILE is not a
# 64-bit little-endian ELF for one of those two machines.
set -u
f=$1
[ -f "$f" ] || exit 1
# e_ident: 7f 'E' 'L' 'F', class 2 (64-bit), data 1 (little-endian); e_machine at 18
hdr=$(od -An -tx1 -N6 -- "$f" 2>/dev/null | tr -d ' \n')
[ "$hdr" = 7f454c460201 ] || exit 1
case $(od -An -tx1 -j18 -N2 -- "$f" | tr -d ' \n') in
3e00) arch=x86_64 ;;
b700) arch=arm64 ;;
*) exit 1 ;;
esac
page='?'
shift_=$(readelf --debug-dump=macro -- "$f" 2>/dev/null |
	sed -n 's/.*lineno : 0 macro : PAGE_SHIFT \([0-9][0-9]*\)$/\1/p' | head -1)
case $shift_ in
12) page=4K ;;
14) page=16K ;;
16) page=64K ;;
*)
	case $(basename "$(dirname "$f")") in
	*-4k | *-4k-*) page=4K ;;
	*-16k | *-16k-*) page=16K ;;
	*-64k | *-64k-*) page=64K ;;
	esac ;;
esac
echo "$arch $page"
