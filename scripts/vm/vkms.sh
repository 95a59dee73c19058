# shellcheck shell=bash
# vkms.ko for the x86_64 guest (sourced by ensure.sh). Debian's 6.12 kernels
# ship no vkms (CONFIG_DRM_VKMS is off), but the driver builds out of tree
# against linux-headers from the linux-source-6.12 package of the same Debian
# version as the guest's linux-image. Only drivers/gpu/drm/vkms/ is unpacked.

# vm_vkms_build KVER MODDIR CACHE — builds vkms.ko for KVER (its headers are in
# MODDIR/build) under CACHE/vkms-<version>/ once, and prints its path. The
# source package is fetched with apt-get download (no root needed) unless
# vm_no_install=1.
vm_vkms_build() {
	local kver=$1 moddir=$2 cache=$3 ver dir src deb key
	ver=$(dpkg-query -W -f='${Version}' "linux-image-$kver-unsigned" 2>/dev/null) ||
		vm_die "linux-image-$kver-unsigned is not installed: cannot tell which linux-source-6.12 builds vkms for it"
	dir=$cache/vkms-$ver
	src=$dir/linux-source-6.12/drivers/gpu/drm/vkms
	key=$(printf '%s %s\n' "$kver" "$ver" | sha256sum | cut -c1-16)
	if vm_fresh "$src/vkms.ko" "$key"; then
		echo "$src/vkms.ko"
		return
	fi
	mkdir -p "$dir"
	deb=$(find "$dir" -maxdepth 1 -name 'linux-source-6.12_*.deb' -print -quit)
	if [[ -z $deb ]]; then
		((!${vm_no_install:-0})) ||
			vm_die "vkms.ko is not built yet and --no-install forbids fetching linux-source-6.12=$ver (drop --no-install)"
		vm_log "downloading linux-source-6.12=$ver (~150 MB) to build vkms.ko"
		(cd "$dir" && apt-get download -q "linux-source-6.12=$ver" >&2) ||
			vm_die "apt-get download linux-source-6.12=$ver failed: vkms.ko needs the kernel source of" \
				"the guest's Debian version (add bookworm-security to the apt sources and run apt-get update," \
				"or boot without --vkms)"
		deb=$(find "$dir" -maxdepth 1 -name 'linux-source-6.12_*.deb' -print -quit)
	fi
	vm_log "unpacking drivers/gpu/drm/vkms from $(basename "$deb")"
	rm -rf "$dir/linux-source-6.12"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.12.tar.xz |
		tar -xJf - -C "$dir" --wildcards 'linux-source-6.12/drivers/gpu/drm/vkms/*' ||
		vm_die "unpacking vkms from $deb failed (a truncated download? delete $dir and retry)"
	vm_log "building vkms.ko in $src"
	make -C "$moddir/build" M="$src" CONFIG_DRM_VKMS=m modules >&2 ||
		vm_die "building vkms.ko against $moddir/build failed (see above)"
	[[ -s $src/vkms.ko ]] || vm_die "the build in $src produced no vkms.ko"
	# The 150 MB package is only needed again for another Debian version.
	rm -f "$deb"
	vm_stamp "$src/vkms.ko" "$key"
	echo "$src/vkms.ko"
}
