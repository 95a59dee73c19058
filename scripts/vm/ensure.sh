#!/usr/bin/env bash
# Makes sure everything the VM rig needs is on this host and built, then prints
# what run.sh needs as KEY=VALUE lines on stdout (progress goes to stderr).
#
#   scripts/vm/ensure.sh [--rt] [--no-module] [--no-install] [--deno]
#
#   --rt          Debian's PREEMPT_RT flavour (-rt-amd64) of the same 6.12
#   --no-module   do not build kernel/ (axl.ko)
#   --no-install  never call apt-get; fail naming the missing packages instead
#   --deno        also build the initramfs variant that carries the pinned deno
#
#   AXL_VM_MODULE_SRC  module source directory (default: the repo's kernel/)
#
# The kernel is the newest linux-image-6.12.*+deb12-<flavour>-unsigned that apt
# knows; it and its headers are installed when missing. The PVH vmlinux, the
# initramfs and the module build are cached under
# ${XDG_CACHE_HOME:-~/.cache}/axl/vm/<release>/ (AXL_VM_CACHE overrides),
# keyed by the hashes of their inputs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$here/lib.sh"

rt=0 module=1 deno=0 vm_no_install=0
while (($#)); do
	case $1 in
	--rt) rt=1 ;;
	--no-module) module=0 ;;
	--no-install) vm_no_install=1 ;;
	--deno) deno=1 ;;
	-h | --help)
		sed -n '2,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
		exit 0
		;;
	*) vm_die "ensure.sh: unknown option '$1' (see --help)" ;;
	esac
	shift
done

tools=(qemu-system-x86 qemu-system-data busybox-static cpio zstd xz-utils kmod linux-perf bc)
((module)) && tools+=(make gcc)
vm_apt_install "${tools[@]}"

flavour=$(vm_flavour "$rt")
abi=$(vm_newest_abi "$flavour")
if [[ -z $abi ]] && ((!vm_no_install)); then
	vm_log "apt knows no 6.12 kernel; running apt-get update"
	vm_apt update -q || vm_die "apt-get update failed"
	abi=$(vm_newest_abi "$flavour")
fi
[[ -n $abi ]] || vm_die "apt knows no linux-image-6.12.*+deb12-$flavour-unsigned; add Debian bookworm(-backports/-security) to the apt sources and run apt-get update"
kver=$abi-$flavour
vm_apt_install "linux-image-$kver-unsigned" "linux-headers-$kver"

vmlinuz=/boot/vmlinuz-$kver
moddir=/lib/modules/$kver
[[ -r $vmlinuz ]] || vm_die "$vmlinuz is missing or unreadable although linux-image-$kver-unsigned is installed (reinstall it)"
[[ -r $moddir/modules.dep ]] || vm_die "$moddir/modules.dep missing (run: depmod $kver)"

cache=$AXL_VM_CACHE/$kver
vm_lock "$cache"

# A cache entry is valid when its .key file holds the hash of its inputs.
fresh() { [[ -s $1 && -r $1.key && $(cat "$1.key") == "$2" ]]; }
stamp() { echo "$2" >"$1.key"; }

# The bzImage carries a compressed ELF vmlinux with a PVH entry note: booting
# that directly skips the in-guest decompression (~2 s under TCG).
extract_vmlinux() {
	local out=$1 off
	while read -r off; do
		tail -c +$((off + 1)) "$vmlinuz" | zstd -dcq 2>/dev/null >"$out.tmp" || true
		if [[ $(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
			mv "$out.tmp" "$out"
			return 0
		fi
	done < <(grep -aob $'\x28\xb5\x2f\xfd' "$vmlinuz" | cut -d: -f1)
	rm -f "$out.tmp"
	return 1
}

vmlinux=$cache/vmlinux
key=$(vm_hash "$vmlinuz")
if ! fresh "$vmlinux" "$key"; then
	vm_log "extracting the PVH vmlinux from $vmlinuz"
	if extract_vmlinux "$vmlinux"; then
		stamp "$vmlinux" "$key"
	else
		vm_log "no zstd-compressed ELF in $vmlinuz; booting the bzImage (slower)"
		rm -f "$vmlinux" "$vmlinux.key"
	fi
fi
if [[ -s $vmlinux ]]; then
	kernel=$vmlinux bios=/usr/share/qemu/qboot.rom
	[[ -r $bios ]] || vm_die "$bios missing (apt-get install --reinstall qemu-system-data)"
else
	kernel=$vmlinuz bios=
fi

# Modules the initramfs needs to reach the host root, dependencies first.
initramfs_modules() {
	local want line self deps f
	declare -A seen=()
	for want in netfs 9pnet 9pnet_virtio 9p overlay; do
		line=$(grep -E "/$want\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep") ||
			vm_die "module $want not found in $moddir/modules.dep"
		self=${line%%:*} deps=${line#*:}
		# modules.dep lists the deepest dependency last
		# shellcheck disable=SC2086 # deps is a space-separated list
		for f in $(printf '%s\n' $deps | tac) "$self"; do
			[[ -n ${seen[$f]:-} ]] && continue
			seen[$f]=1
			echo "$f"
		done
	done
}

busybox=$(command -v busybox) || vm_die "busybox missing (apt-get install busybox-static)"
mapfile -t kmods < <(initramfs_modules)
initramfs=$cache/initramfs.cpio
key=$( (
	echo "$kver"
	printf '%s\n' "${kmods[@]}"
	cat "$busybox" "$here/guest/init" "$here/guest/stage2.sh"
	cd "$moddir" && cat "${kmods[@]}"
) | sha256sum | cut -c1-16)
if ! fresh "$initramfs" "$key"; then
	vm_log "building the initramfs for $kver"
	work=$(mktemp -d)
	mkdir -p "$work"/{bin,dev,proc,sys,newroot,lib/modules}
	cp "$busybox" "$work/bin/busybox"
	cp "$here/guest/init" "$work/init"
	cp "$here/guest/stage2.sh" "$work/stage2.sh"
	chmod 755 "$work/init" "$work/stage2.sh"
	for f in "${kmods[@]}"; do
		b=$(basename "$f")
		ko=${b%.xz} && ko=${ko%.zst} && ko=${ko%.gz}
		case $b in
		*.xz) xz -dc "$moddir/$f" ;;
		*.zst) zstd -dcq "$moddir/$f" ;;
		*.gz) gzip -dc "$moddir/$f" ;;
		*) cat "$moddir/$f" ;;
		esac >"$work/lib/modules/$ko"
		echo "$ko" >>"$work/modules.load"
	done
	# Uncompressed: decompressing under TCG costs more than reading it.
	(cd "$work" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$initramfs.tmp"
	rm -rf "$work"
	mv "$initramfs.tmp" "$initramfs"
	stamp "$initramfs" "$key"
fi

# The pinned deno rides in a second cpio appended to the initramfs (the kernel
# unpacks concatenated archives); exec over 9p is far slower.
initramfs_deno='' deno_bin=
if ((deno)); then
	deno_bin=$("$repo/scripts/bootstrap-deno.sh") || vm_die "scripts/bootstrap-deno.sh failed (see above)"
	initramfs_deno=$cache/initramfs-deno.cpio
	key=$( (
		cat "$initramfs.key"
		stat -c '%s %Y' "$deno_bin"
	) | sha256sum | cut -c1-16)
	if ! fresh "$initramfs_deno" "$key"; then
		vm_log "adding $deno_bin to the initramfs"
		work=$(mktemp -d)
		cp "$deno_bin" "$work/deno"
		(cd "$work" && echo deno | cpio -o -H newc --quiet -R 0:0) >"$work/deno.cpio"
		cat "$initramfs" "$work/deno.cpio" >"$initramfs_deno.tmp"
		rm -rf "$work"
		mv "$initramfs_deno.tmp" "$initramfs_deno"
		stamp "$initramfs_deno" "$key"
	fi
fi

# axl.ko is built from a copy of kernel/ so that the rig never writes build
# products into the working tree another engineer may be building in.
axl_ko=
if ((module)); then
	src=$(cd "${AXL_VM_MODULE_SRC:-$repo/kernel}" && pwd) || vm_die "no module source directory ${AXL_VM_MODULE_SRC:-$repo/kernel}"
	[[ -e $src/Kbuild || -e $src/Makefile ]] ||
		vm_die "$src has no Kbuild or Makefile yet: write it, or pass --no-module"
	build=$cache/module-$(echo "$src" | sha256sum | cut -c1-8)
	mkdir -p "$build"
	key=$( (
		echo "$kver"
		cd "$src" && find . -type f ! -name '*.o' ! -name '*.ko' ! -name '*.cmd' \
			! -name '*.mod*' ! -name 'modules.order' ! -name 'Module.symvers' -print0 |
			LC_ALL=C sort -z | xargs -0 cat
	) | sha256sum | cut -c1-16)
	if ! fresh "$build/axl.ko" "$key"; then
		vm_log "building axl.ko against $kver"
		rm -f "$build/axl.ko.key"
		# Sources deleted from the tree must not linger in the copy.
		(cd "$build" && find . -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) -print0) |
			while IFS= read -r -d '' f; do [[ -e $src/$f ]] || rm -f "$build/$f"; done
		# tar keeps mtimes, so make only rebuilds what changed.
		(cd "$src" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' .) |
			(cd "$build" && tar -xf -)
		make -C "$moddir/build" M="$build" modules >&2 ||
			vm_die "building axl.ko against $kver failed (see above)"
		[[ -s $build/axl.ko ]] || vm_die "the module build in $src produced no axl.ko"
		stamp "$build/axl.ko" "$key"
	fi
	axl_ko=$build/axl.ko
fi
vm_unlock

printf '%s=%s\n' KVER "$kver" KERNEL "$kernel" BIOS "$bios" INITRAMFS "$initramfs" \
	INITRAMFS_DENO "$initramfs_deno" DENO "$deno_bin" AXL_KO "$axl_ko"
