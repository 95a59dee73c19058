#!/usr/bin/env bash
# Measures, from a kernel's own build tree, the struct offsets that `axl verify`'s kprobe events
# follow on kernels whose probes cannot name fields through BTF (Linux before 6.6, e.g. L4T's
# 5.15): the dma-buf events' to a buffer's inode and its exporter's name, the process probes' to
# a file's superblock magic and a mapping's range and flags. Prints them as the file verify
# reads:
#
#   scripts/kernel-offsets.sh KDIR [MAKE_ARGS...] > FILE
#   sudo AXL_KERNEL_OFFSETS=FILE axl verify --evidence generic ...
#
# KDIR is the tree modules for the running kernel are built against (on a Jetson
# /lib/modules/$(uname -r)/build, from L4T's kernel headers); MAKE_ARGS go to make, e.g.
# ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- for a cross build. The measurement compiles
# scripts/kernel-offsets/dmabuf_offsets.c to assembly in a temporary directory (nothing is
# linked, loaded or written into KDIR) and reads the offsetof() values the compiler put there.
# Exit status 1, naming the cause, when the tree cannot be compiled against.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() {
	echo "kernel-offsets: $*" >&2
	exit 1
}
(($#)) || die "usage: $0 KDIR [MAKE_ARGS...]"
kdir=$1
shift
[[ -f $kdir/Makefile ]] || die "$kdir is no kernel build tree (no Makefile): install the kernel headers"
release=$(cat "$kdir/include/config/kernel.release" 2>/dev/null) ||
	die "$kdir has no include/config/kernel.release: is it a prepared build tree (make modules_prepare)?"
work=$(mktemp -d "${TMPDIR:-/tmp}/axl-kernel-offsets.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$here/kernel-offsets/dmabuf_offsets.c" "$here/kernel-offsets/Kbuild" "$work/"
if ! make -s -C "$kdir" M="$work" "$@" dmabuf_offsets.s >"$work/make.log" 2>&1; then
	cat "$work/make.log" >&2
	die "compiling against $kdir failed (above): the offsets cannot be known from this tree"
fi
# Each OFFSET()/DEFINE() is `.ascii "->NAME VALUE expr"`; VALUE may carry `#` or `$`.
values=$(sed -nE 's/^[[:space:]]*\.ascii[[:space:]]+"->(AXL_[A-Z_]+) [#$]?([0-9]+) .*/\1=\2/p' "$work/dmabuf_offsets.s")
get() {
	local v
	v=$(sed -n "s/^$1=//p" <<<"$values")
	[[ $v =~ ^[0-9]+$ ]] || die "no value for $1 in the compiler's output ($work/dmabuf_offsets.s)"
	echo "$v"
}
[[ $(get AXL_POINTER_SIZE) == 8 ]] || die "$release is not a 64-bit kernel: verify's probes read 8-byte pointers"
cat <<OUT
# axl kernel offsets: measured by scripts/kernel-offsets.sh from the build tree of this release
release=$release
dma_buf_attachment.dmabuf=$(get AXL_DMA_BUF_ATTACHMENT_DMABUF)
dma_buf_attachment.dev=$(get AXL_DMA_BUF_ATTACHMENT_DEV)
device.kobj.name=$(get AXL_DEVICE_KOBJ_NAME)
dma_buf.file=$(get AXL_DMA_BUF_FILE)
dma_buf.exp_name=$(get AXL_DMA_BUF_EXP_NAME)
file.f_inode=$(get AXL_FILE_F_INODE)
inode.i_ino=$(get AXL_INODE_I_INO)
inode.i_sb=$(get AXL_INODE_I_SB)
super_block.s_magic=$(get AXL_SUPER_BLOCK_S_MAGIC)
vm_area_struct.vm_start=$(get AXL_VM_AREA_STRUCT_VM_START)
vm_area_struct.vm_end=$(get AXL_VM_AREA_STRUCT_VM_END)
vm_area_struct.vm_flags=$(get AXL_VM_AREA_STRUCT_VM_FLAGS)
OUT
