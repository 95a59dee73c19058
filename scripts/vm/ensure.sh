#!/usr/bin/env bash
# Makes sure everything the VM rig needs is on this host and built, then prints
# what run.sh needs as KEY=VALUE lines on stdout (progress goes to stderr).
#
#   scripts/vm/ensure.sh [--rt] [--no-module] [--no-nvmap-sim] [--no-install] [--deno] [--vkms]
#   scripts/vm/ensure.sh --arch aarch64 --kernel-kit DIR --mem SIZE --smp N [...]
#
#   --rt          Debian's PREEMPT_RT flavour (-rt-amd64) of the same 6.12
#   --fault-kernel  the fault kernel scripts/vm/fault-kernel.sh built (same 6.12
#                 release, the kernel's fault injection and kmemleak built in);
#                 fails (3) when it is not built or not current
#   --no-module   do not build kernel/ (axl.ko)
#   --no-nvmap-sim  do not build tests/rig/nvmap_sim/ (nvmap_sim.ko, the rig's nvmap
#                 stand-in: /dev/dma_heap/nvmap-sim)
#   --no-install  never call apt-get; fail naming the missing packages instead
#   --deno        also build the initramfs variant that carries the pinned deno
#   --vkms        also build vkms.ko (x86_64) out of tree from linux-source-6.12 of
#                 the guest kernel's Debian version (scripts/vm/vkms.sh)
#   --arch aarch64   the arm64 guest: the kernel of an arm64 kit (DIR holds its
#                    Image, headers.tar.xz and RELEASE; docs/kernel-kits.md),
#                    a root of Debian's arm64 packages, a device tree with the
#                    linux,cma area for a machine of --mem and --smp
#
#   AXL_VM_MODULE_SRC  module source directory (default: the repo's kernel/)
#
# x86_64: the kernel is the newest linux-image-6.12.*+deb12-<flavour>-unsigned
# that apt knows; it and its headers are installed when missing. The PVH
# vmlinux, the initramfs and the module build are cached under
# ${XDG_CACHE_HOME:-~/.cache}/axl/vm/<release>/ (AXL_VM_CACHE overrides), the
# arm64 ones under .../vm/arm64/<release>/, keyed by the hashes of their inputs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$here/lib.sh"
# shellcheck source=scripts/vm/vkms.sh
source "$here/vkms.sh"

rt=0 fault=0 vkms=0 module=1 nvmap_sim=1 deno=0 vm_no_install=0 arch=x86_64 kit='' mem='' smp=''
need() { (($# > 1)) || vm_die "ensure.sh: option $1 needs a value"; }
while (($#)); do
	case $1 in
	--rt) rt=1 ;;
	--fault-kernel) fault=1 ;;
	--no-module) module=0 ;;
	--no-nvmap-sim) nvmap_sim=0 ;;
	--no-install) vm_no_install=1 ;;
	--deno) deno=1 ;;
	--vkms) vkms=1 ;;
	--arch) need "$@" && arch=$2 && shift ;;
	--kernel-kit) need "$@" && kit=$2 && shift ;;
	--mem) need "$@" && mem=$2 && shift ;;
	--smp) need "$@" && smp=$2 && shift ;;
	-h | --help)
		sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
		exit 0
		;;
	*) vm_die "ensure.sh: unknown option '$1' (see --help)" ;;
	esac
	shift
done

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

# Each kernel_<arch> sets kver, kernel, bios, cache (locked), busybox, moddir,
# kmods (modules for the initramfs), module_make (make's arguments for axl.ko),
# root and dtb (arm64 only).
kernel_x86_64() {
	local flavour abi key vmlinux
	# The guest runs the host's root: GStreamer for the device tests' third-party pipelines,
	# tmux for the ls --watch device test (it drives the view in a tmux pane); -bad has kmssink.
	# gcc, pkg-config and GStreamer's development files: the NVMM device test builds its feeder
	# (tests/device/gst/nvmm_feed.c) in the guest.
	local tools=(qemu-system-x86 qemu-system-data busybox-static cpio zstd xz-utils kmod linux-perf bc
		gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
		gcc pkg-config libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev tmux socat)
	((module || nvmap_sim || vkms)) && tools+=(make gcc)
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
	vmlinux=$cache/vmlinux
	key=$(vm_hash "$vmlinuz")
	if ! vm_fresh "$vmlinux" "$key"; then
		vm_log "extracting the PVH vmlinux from $vmlinuz"
		if extract_vmlinux "$vmlinux"; then
			vm_stamp "$vmlinux" "$key"
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
	busybox=$(command -v busybox) || vm_die "busybox missing (apt-get install busybox-static)"
	mapfile -t kmods < <(initramfs_modules)
	module_make=(-C "$moddir/build")
	root=/ dtb=
}

# The fault kernel of scripts/vm/fault-kernel.sh: its vmlinux boots through the PVH
# entry; everything the rig needs is built in (no initramfs modules); the modules build
# against its O= tree. The host's Debian 6.12 still provides the tools and the root.
kernel_x86_64_fault() {
	local tools=(qemu-system-x86 qemu-system-data busybox-static cpio kmod make gcc)
	local -A fk=()
	vm_apt_install "${tools[@]}"
	while IFS='=' read -r k v; do fk[$k]=$v; done < <("$here/fault-kernel.sh" --print || echo "FAILED=1")
	[[ -z ${fk[FAILED]:-} ]] || vm_die "no current fault kernel (see above)"
	kver=${fk[FAULT_RELEASE]}
	cache=$AXL_VM_CACHE/fault-${fk[FAULT_KEY]}
	vm_lock "$cache"
	kernel=${fk[FAULT_BUILD]}/vmlinux bios=/usr/share/qemu/qboot.rom
	[[ -r $bios ]] || vm_die "$bios missing (apt-get install --reinstall qemu-system-data)"
	busybox=$(command -v busybox) || vm_die "busybox missing (apt-get install busybox-static)"
	moddir=
	kmods=()
	module_make=(-C "${fk[FAULT_BUILD]}")
	root=/ dtb=
}

# An arm64 kit's kernel (everything the rig needs is built in: no initramfs
# modules), Debian's arm64 userland, and the device tree with linux,cma.
kernel_aarch64() {
	local f key kdir
	# shellcheck source=scripts/vm/arm64/root.sh
	source "$here/arm64/root.sh"
	# shellcheck source=scripts/vm/arm64/dtb.sh
	source "$here/arm64/dtb.sh"
	[[ -n $kit && -n $mem && -n $smp ]] || vm_die "ensure.sh --arch aarch64 needs --kernel-kit, --mem and --smp"
	for f in Image headers.tar.xz RELEASE; do
		[[ -r $kit/$f ]] || vm_die "kernel kit incomplete: $kit/$f is missing. The arm64 5.15 kits" \
			"(Image, headers.tar.xz, RELEASE per flavour) are expected in ../shared/kernels beside the repo;" \
			"point --kernel-kit at a kit directory elsewhere, or build the kits from a linux-5.15.y tree" \
			"with scripts/vm/kernel-kit.sh (docs/kernel-kits.md)"
	done
	local tools=(qemu-system-arm qemu-user-static device-tree-compiler cpio xz-utils bc libc6-arm64-cross socat)
	((module)) && tools+=(make gcc gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
	vm_apt_install "${tools[@]}"
	kver=$(<"$kit/RELEASE") kernel=$kit/Image bios='' moddir='' kmods=()

	# The root is shared by every kit: it depends on the package list only. Each list
	# gets a directory of its own, so that building one never pulls a root from under a
	# guest that is running on another (the guest reads its root live, over 9p).
	vm_lock "$AXL_VM_CACHE/arm64"
	key=$( (
		printf '%s\n' "${AXL_ARM64_PACKAGES[@]}"
		cat "$here/arm64/root.sh"
	) | sha256sum | cut -c1-16)
	root=$AXL_VM_CACHE/arm64/root-$key
	if ! vm_fresh "$root/etc/passwd" "$key"; then
		vm_arm64_root "$root"
		vm_stamp "$root/etc/passwd" "$key"
	fi
	vm_unlock
	busybox=$root/bin/busybox

	cache=$AXL_VM_CACHE/arm64/$kver
	vm_lock "$cache"
	dtb=$cache/virt-$mem-$smp.dtb
	key=$( (
		echo "$mem $smp ${vm_arm64_machine[*]} $AXL_VM_ARM64_CMA_MIB"
		qemu-system-aarch64 --version
		cat "$here/arm64/dtb.sh"
	) | sha256sum | cut -c1-16)
	if ! vm_fresh "$dtb" "$key"; then
		vm_log "building the device tree (QEMU's virt + linux,cma $AXL_VM_ARM64_CMA_MIB MiB)"
		vm_arm64_dtb "$dtb" "$AXL_VM_ARM64_CMA_MIB" "${vm_arm64_machine[@]}" -m "$mem" -smp "$smp"
		vm_stamp "$dtb" "$key"
	fi
	if ((module || nvmap_sim)); then
		kdir=$(vm_kit_tree "$kit") || vm_die "cannot unpack $kit/headers.tar.xz (see above)"
		module_make=(-C "$kdir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	fi
}

case $arch in
x86_64) if ((fault)); then kernel_x86_64_fault; else kernel_x86_64; fi ;;
aarch64) kernel_aarch64 ;;
*) vm_die "--arch wants x86_64 or aarch64, got '$arch'" ;;
esac
initramfs=$cache/initramfs.cpio
key=$( (
	echo "$kver"
	printf '%s\n' "${kmods[@]}"
	cat "$busybox" "$here/guest/init" "$here/guest/stage2.sh"
	((${#kmods[@]} == 0)) || (cd "$moddir" && cat "${kmods[@]}")
) | sha256sum | cut -c1-16)
if ! vm_fresh "$initramfs" "$key"; then
	vm_log "building the initramfs for $kver"
	work=$(mktemp -d)
	mkdir -p "$work"/{bin,dev,proc,sys,newroot,lib/modules}
	cp "$busybox" "$work/bin/busybox"
	cp "$here/guest/init" "$work/init"
	cp "$here/guest/stage2.sh" "$work/stage2.sh"
	chmod 755 "$work/init" "$work/stage2.sh"
	: >"$work/modules.load"
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
	vm_stamp "$initramfs" "$key"
fi

# The pinned deno rides in a second cpio appended to the initramfs (the kernel
# unpacks concatenated archives); exec over 9p is far slower.
initramfs_deno='' deno_bin=
if ((deno)); then
	deno_arch=x86_64
	[[ $arch == aarch64 ]] && deno_arch=arm64
	deno_bin=$(AXL_DENO_ARCH=$deno_arch "$repo/scripts/bootstrap-deno.sh") || vm_die "scripts/bootstrap-deno.sh failed (see above)"
	initramfs_deno=$cache/initramfs-deno.cpio
	key=$( (
		cat "$initramfs.key"
		stat -c '%s %Y' "$deno_bin"
	) | sha256sum | cut -c1-16)
	if ! vm_fresh "$initramfs_deno" "$key"; then
		vm_log "adding $deno_bin to the initramfs"
		work=$(mktemp -d)
		cp "$deno_bin" "$work/deno"
		(cd "$work" && echo deno | cpio -o -H newc --quiet -R 0:0) >"$work/deno.cpio"
		cat "$initramfs" "$work/deno.cpio" >"$initramfs_deno.tmp"
		rm -rf "$work"
		mv "$initramfs_deno.tmp" "$initramfs_deno"
		vm_stamp "$initramfs_deno" "$key"
	fi
fi

axl_ko=
if ((module)); then
	src=$(cd "${AXL_VM_MODULE_SRC:-$repo/kernel}" && pwd) || vm_die "no module source directory ${AXL_VM_MODULE_SRC:-$repo/kernel}"
	axl_ko=$(vm_module_build "$src" "$cache/module-$(echo "$src" | sha256sum | cut -c1-8)" "$kver" \
		"${module_make[@]}")
fi
# The struct offsets verify's kprobe events follow to a buffer's inode on kernels without BTF
# argument names (scripts/kernel-offsets.sh), measured from the tree axl.ko is built against.
offsets=
if ((module)); then
	offsets=$cache/kernel-offsets
	key=$(vm_hash "$repo/scripts/kernel-offsets.sh" "$repo/scripts/kernel-offsets/dmabuf_offsets.c" \
		"$repo/scripts/kernel-offsets/Kbuild")-$kver
	if ! vm_fresh "$offsets" "$key"; then
		vm_log "measuring the dma-buf struct offsets of $kver"
		"$repo/scripts/kernel-offsets.sh" "${module_make[1]}" "${module_make[@]:2}" >"$offsets.tmp" ||
			vm_die "measuring the struct offsets against ${module_make[1]} failed (see above)"
		mv "$offsets.tmp" "$offsets"
		vm_stamp "$offsets" "$key"
	fi
fi
# The rig's nvmap stand-in (tests/rig/nvmap_sim/README.md), built like axl.ko.
nvmap_sim_ko=
if ((nvmap_sim)); then
	src=$repo/tests/rig/nvmap_sim
	nvmap_sim_ko=$(vm_module_build_named nvmap_sim "$src" "$cache/nvmap-sim-$(echo "$src" | sha256sum | cut -c1-8)" \
		"$kver" "${module_make[@]}")
fi
vkms_ko=
if ((vkms)); then
	[[ $arch == x86_64 ]] || vm_die "--vkms is for x86_64: the arm64 kits build no vkms"
	vkms_ko=$(vm_vkms_build "$kver" "$moddir" "$cache")
fi
vm_unlock

printf '%s=%s\n' KVER "$kver" KERNEL "$kernel" BIOS "$bios" INITRAMFS "$initramfs" \
	INITRAMFS_DENO "$initramfs_deno" DENO "$deno_bin" AXL_KO "$axl_ko" NVMAP_SIM_KO "$nvmap_sim_ko" VKMS_KO "$vkms_ko" ROOT "$root" DTB "$dtb" \
	KERNEL_OFFSETS "$offsets"
