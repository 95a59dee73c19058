# shellcheck shell=bash
# The arm64 guest's root file system (sourced by scripts/vm/ensure.sh): Debian
# bookworm's arm64 packages, fetched through the rig's private apt state and
# unpacked side by side, without running their maintainer scripts (the host
# cannot execute arm64 code natively). The host's root is x86_64, so unlike
# the x86 guest, this one cannot simply share it.

# What the guest runs: the shells and tools of the rig's init and of
# tests/device/run-suite.sh, kmod (insmod/modinfo for axl.ko), util-linux
# (dmesg, script for the shell test), perf for verify's I4, and busybox for
# the initramfs; libc6-dbg so that perf names the C library's copy routines
# (__memcpy_generic and its kin are local symbols, stripped from libc.so.6).
# GStreamer for the arm64 pipeline tests (tests/device/gst_nvmm_arm64.test.ts):
# gst-launch-1.0/gst-inspect-1.0 and the base plugins (appsrc/appsink, and the
# core elements of libgstreamer1.0-0). Not gstreamer1.0-plugins-good: with
# --no-install-recommends it still brings 88 more packages (systemd, ICU, X11,
# PulseAudio, …) for v4l2src and kin, which no arm64 test runs.
# Their dependencies come along (apt resolves them).
AXL_ARM64_PACKAGES=(bash dash coreutils findutils grep sed mawk gzip procps kmod mount
	util-linux bsdutils linux-perf libc6-dbg busybox-static libc-bin
	gstreamer1.0-tools gstreamer1.0-plugins-base)

# vm_arm64_root DIR — build the root in DIR (replaced), merged-/usr like a
# bookworm install: /bin, /sbin and /lib are links into /usr, and tar keeps
# those links when a package brings files for /bin.
vm_arm64_root() {
	local dir=$1 archives=$AXL_VM_CACHE/arm64/apt/cache/archives deb
	vm_log "fetching Debian's arm64 packages for the guest root: ${AXL_ARM64_PACKAGES[*]}"
	rm -f "$archives"/*.deb
	vm_arm64_apt install -y --download-only --no-install-recommends "${AXL_ARM64_PACKAGES[@]}" ||
		vm_die "apt-get could not fetch the arm64 packages (see above; the lists may be stale:" \
			"rm -r $AXL_VM_CACHE/arm64/apt/lists and retry)"
	rm -rf "$dir" && mkdir -p "$dir"/usr/{bin,sbin,lib}
	ln -s usr/bin "$dir/bin" && ln -s usr/sbin "$dir/sbin" && ln -s usr/lib "$dir/lib"
	for deb in "$archives"/*.deb; do
		dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$dir" ||
			vm_die "cannot unpack $deb into $dir"
	done
	# What maintainer scripts would have made: /bin/sh, the alternatives the
	# scripts call by their generic names, the root account, the mount points
	# of the guest's init.
	ln -sf dash "$dir/usr/bin/sh"
	ln -sf mawk "$dir/usr/bin/awk"
	ln -sf which.debianutils "$dir/usr/bin/which"
	printf 'root:x:0:0:root:/root:/bin/bash\n' >"$dir/etc/passwd"
	printf 'root:x:0:\n' >"$dir/etc/group"
	mkdir -p "$dir"/{dev,proc,sys,run,tmp,var/tmp,root}
	[[ -x $dir/bin/busybox && -x $dir/bin/bash && -x $dir/usr/bin/perf && -x $dir/usr/bin/awk &&
		-x $dir/usr/bin/gst-launch-1.0 ]] ||
		vm_die "the arm64 root in $dir lacks busybox, bash, perf, awk or gst-launch-1.0 after unpacking"
}
