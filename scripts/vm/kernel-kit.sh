#!/usr/bin/env bash
# Builds the rig's arm64 Linux 5.15 kernel kits from a kernel tree you provide, so that a
# clone of the repository can make the kits the arm64 guest boots (docs/kernel-kits.md).
#
#   scripts/vm/kernel-kit.sh [options] SRC
#
#   SRC                a Linux 5.15.y source tree (a git checkout of the stable tree or an
#                      unpacked tarball), not configured in place: builds go to --build
#   --out DIR          the kits directory to write (default: build/kernel-kits); each
#                      flavour becomes DIR/linux-5.15-arm64[-debug|-fault]/ with Image,
#                      headers.tar.xz, config and RELEASE. Use it as --kernel-kit DIR.
#   --flavour F        plain, debug, fault or both (default: both: plain and debug);
#                      fault is the debug kernel with the kernel's fault injection
#                      (failslab, fail_page_alloc, fail_function, fail-nth) and
#                      kmemleak added (scripts/vm/kit/fault.config), as
#                      DIR/linux-5.15-arm64-fault/
#   --build DIR        where the O= builds go (default: build/kernel-kit-build); each
#                      flavour builds in DIR/<flavour>/, kept for incremental rebuilds
#   --jobs N           parallel make jobs (default: the number of CPUs)
#   --config-only      configure and check each flavour, write DIR/<kit>/config, no compile
#   --package BUILD    package an existing O= build of SRC (one flavour) without
#                      configuring or compiling it
#   --check CONFIG     no SRC: check a kernel .config (e.g. a kit's config) against the
#                      fragments of one flavour, print every option that did not take
#   --no-install       never call apt-get; fail naming the missing packages instead
#
# Each flavour starts from allnoconfig, merges the fragments of scripts/vm/kit/ with the
# kernel's own scripts/kconfig/merge_config.sh, runs olddefconfig, and then checks that
# every option a fragment asks for is in the result (a dependency the fragment lacks, or
# an option this tree does not have, fails here, naming the option). A build of the plain
# flavour takes about 12 minutes on 2 cores; the debug flavour (KASAN) longer.
#
# Exit status: 0 done, 1 --check found options missing, 2 bad usage, 3 cannot run (the
# message says what to do), or the failing make's status.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/vm/lib.sh
source "$here/lib.sh"

kk_usage() {
	sed -n '4,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" >&2
	exit 2
}

out=$repo/build/kernel-kits builds=$repo/build/kernel-kit-build jobs=$(nproc)
flavour=both config_only=0 package_build='' check='' vm_no_install=0
while (($#)); do
	case $1 in
	--out) out=${2:?--out needs a directory} && shift ;;
	--flavour) flavour=${2:?--flavour needs plain, debug, fault or both} && shift ;;
	--build) builds=${2:?--build needs a directory} && shift ;;
	--jobs) jobs=${2:?--jobs needs a number} && shift ;;
	--config-only) config_only=1 ;;
	--package) package_build=${2:?--package needs the O= directory of a build} && shift ;;
	--check) check=${2:?--check needs a kernel .config} && shift ;;
	--no-install) vm_no_install=1 ;;
	-h | --help) kk_usage ;;
	-*) printf 'kernel-kit.sh: unknown option %s\n' "$1" >&2 && kk_usage ;;
	*) break ;;
	esac
	shift
done
if [[ -n $check ]]; then (($# == 0)) || kk_usage; else (($# == 1)) || kk_usage; fi
case $flavour in
plain | debug | fault) flavours=("$flavour") ;;
both) flavours=(plain debug) ;;
*) vm_die "--flavour $flavour: use plain, debug, fault or both" ;;
esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || vm_die "--jobs $jobs: give a positive number"
[[ -z $package_build$check || ${#flavours[@]} == 1 ]] ||
	vm_die "--package and --check take one flavour: name it with --flavour plain, debug or fault"

# kk_kit FLAVOUR — the kit directory name the rig looks for.
kk_kit() { if [[ $1 == plain ]]; then echo linux-5.15-arm64; else echo "linux-5.15-arm64-$1"; fi; }

# kk_fragments FLAVOUR — the config fragments of a flavour, in the order they apply.
kk_fragments() {
	echo "$here/kit/jetson-vm.config"
	[[ $1 == plain ]] || echo "$here/kit/debug.config"
	[[ $1 != fault ]] || echo "$here/kit/fault.config"
}

# kk_check_tree SRC — dies unless SRC is a Linux 5.15 source tree.
kk_check_tree() {
	local src=$1 version patchlevel sublevel
	[[ -f $src/Makefile && -f $src/Kconfig && -f $src/scripts/kconfig/merge_config.sh ]] ||
		vm_die "$src is not a Linux source tree (it needs Makefile, Kconfig and" \
			"scripts/kconfig/merge_config.sh): give the top of a linux-5.15.y checkout"
	version=$(sed -n 's/^VERSION = *//p' "$src/Makefile")
	patchlevel=$(sed -n 's/^PATCHLEVEL = *//p' "$src/Makefile")
	sublevel=$(sed -n 's/^SUBLEVEL = *//p' "$src/Makefile")
	[[ $version.$patchlevel == 5.15 ]] ||
		vm_die "$src is Linux $version.$patchlevel.$sublevel; the kits are Linux 5.15, the series of" \
			"the Jetson's L4T R36: use the linux-5.15.y stable tree (a v5.15.N tag)"
}

# kk_check_unconfigured SRC — dies when SRC was configured in place: the kernel refuses
# an O= build of such a tree.
kk_check_unconfigured() {
	[[ ! -e $1/.config && ! -d $1/include/config ]] ||
		vm_die "$1 has been configured in place; the kits build in a separate directory (O=)," \
			"which the kernel refuses for a configured tree: run 'make mrproper' in $1 first"
}

# kk_make SRC BUILD TARGET... — the kernel's make for arm64, cross-compiled, out of tree.
kk_make() {
	local src=$1 build=$2
	shift 2
	make -C "$src" O="$build" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "$@"
}

# kk_configure SRC BUILD FLAVOUR — allnoconfig, the flavour's fragments merged by the
# kernel's merge_config.sh, olddefconfig; dies naming any option that did not take.
kk_configure() {
	local src=$1 build=$2 flavour=$3 fragments missing
	mapfile -t fragments < <(kk_fragments "$flavour")
	mkdir -p "$build"
	vm_log "configuring $flavour in $build"
	kk_make "$src" "$build" -s allnoconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${fragments[@]}" >"$build/merge_config.log" ||
		vm_die "merge_config.sh failed (see $build/merge_config.log)"
	kk_make "$src" "$build" -s olddefconfig
	if ! missing=$(vm_check_config "$build/.config" "${fragments[@]}"); then
		vm_die "the $flavour configuration lacks options its fragments ask for; add what they" \
			"depend on to scripts/vm/kit/*.config, or use a tree that has them:"$'\n'"$missing"
	fi
}

# kk_stage_headers SRC BUILD TREE — fills TREE with what an external module build needs:
# the tree's Makefiles, Kconfig and Kbuild files and Perl scripts, its headers and
# scripts, and from the build the configuration, generated headers, Module.symvers and
# the host tools it compiled (x86_64 binaries).
kk_stage_headers() {
	local src=$1 build=$2 tree=$3
	mkdir -p "$tree"
	(cd "$src" && find . -path ./.git -prune -o -type f \( -name 'Kconfig*' -o \
		\( \( -name 'Makefile*' -o -name 'Kbuild*' -o -name '*.pl' \) \
		-not -path './Documentation/*' -not -path './tools/testing/*' \) \) -print0 |
		xargs -0 -r cp --parents -t "$tree")
	(cd "$src" && cp -a --parents include scripts arch/arm64/include "$tree")
	(cd "$build" && cp -a --parents .config Module.symvers include/generated include/config \
		arch/arm64/include/generated "$tree")
	(cd "$build" && find scripts -type f \( -perm -u+x -o -name '*.lds' -o -name '*.o' \) -print0 |
		xargs -0 -r cp --parents -t "$tree")
	# Not needed to build a module: the device-tree compiler and the GCC plugins' sources.
	# Kconfig files stay, so that the tree can still be configured (the configuration test).
	rm -rf "$tree/scripts/dtc"
	[[ ! -d $tree/scripts/gcc-plugins ]] ||
		find "$tree/scripts/gcc-plugins" -type f -not -name 'Kconfig*' -delete
}

# kk_package SRC BUILD KITDIR — writes KITDIR (Image, headers.tar.xz, config, RELEASE)
# from a finished O= build; KITDIR is replaced only once everything is written.
kk_package() {
	local src=$1 build=$2 kit=$3 release f stage
	[[ -r $build/include/config/kernel.release ]] ||
		vm_die "$build has no include/config/kernel.release: it is not a configured O= build of" \
			"the kernel (build it first, or point --package at the O= directory of a finished build)"
	for f in arch/arm64/boot/Image .config Module.symvers; do
		[[ -f $build/$f ]] || vm_die "$build/$f is missing: the build did not finish" \
			"(make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O=$build Image modules_prepare modules)"
	done
	release=$(<"$build/include/config/kernel.release")
	stage=$(mktemp -d "${TMPDIR:-/tmp}/axl-kernel-kit.XXXXXX")
	# shellcheck disable=SC2064 # the paths are fixed now
	trap "rm -rf '$stage' '$kit.new'" EXIT
	vm_log "packaging $release into $kit"
	kk_stage_headers "$src" "$build" "$stage/linux-headers-$release"
	rm -rf "$kit.new" && mkdir -p "$kit.new"
	tar -C "$stage" -cJf "$kit.new/headers.tar.xz" "linux-headers-$release"
	cp "$build/arch/arm64/boot/Image" "$kit.new/Image"
	cp "$build/.config" "$kit.new/config"
	echo "$release" >"$kit.new/RELEASE"
	rm -rf "$kit" && mv "$kit.new" "$kit"
	rm -rf "$stage"
	trap - EXIT
}

if [[ -n $check ]]; then
	[[ -r $check ]] || vm_die "cannot read $check: give a kernel .config (a kit's config file)"
	mapfile -t fragments < <(kk_fragments "${flavours[0]}")
	if ! missing=$(vm_check_config "$check" "${fragments[@]}"); then
		printf '%s: options the %s fragments ask for that did not take:\n%s\n' "$check" \
			"${flavours[0]}" "$missing" >&2
		exit 1
	fi
	vm_log "$check has every option of the ${flavours[0]} fragments"
	exit 0
fi

src=$(cd "$1" 2>/dev/null && pwd) || vm_die "no directory $1: give the top of a linux-5.15.y tree"
kk_check_tree "$src"
tools=(make gcc bc flex bison gcc-aarch64-linux-gnu xz-utils)
vm_apt_install "${tools[@]}"
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [[ -n $package_build ]]; then
	build=$(cd "$package_build" 2>/dev/null && pwd) || vm_die "no build directory $package_build"
	kk_package "$src" "$build" "$out/$(kk_kit "${flavours[0]}")"
	exit 0
fi

kk_check_unconfigured "$src"
mkdir -p "$builds"
builds=$(cd "$builds" && pwd) # make -C changes directory before it reads O=
for f in "${flavours[@]}"; do
	build=$builds/$f
	kit=$out/$(kk_kit "$f")
	kk_configure "$src" "$build" "$f"
	if ((config_only)); then
		mkdir -p "$kit" && cp "$build/.config" "$kit/config"
		vm_log "$f: configuration checked, written to $kit/config"
		continue
	fi
	vm_log "building $f with $jobs jobs (the plain kernel takes about 12 minutes on 2 cores)"
	kk_make "$src" "$build" -j"$jobs" Image modules_prepare modules
	kk_package "$src" "$build" "$kit"
done
if ((config_only)); then
	vm_log "configurations in $out (no kernel built)"
else
	vm_log "kits in $out: use them with --kernel-kit $out"
fi
