#!/usr/bin/env bash
# Builds libaxl_shim.so for x86_64 and aarch64 into build/<arch>/.
#
#   ffi/build.sh            both architectures (aarch64 needs gcc-aarch64-linux-gnu)
#   ffi/build.sh --native   only the machine's own architecture
#
#   AXL_MMAPI=<dir>  Jetson Multimedia API to build the Argus export against
#                    (default /usr/src/jetson_multimedia_api when it exists)
#
# Beside each shim: build/<arch>/gst/libgstaxltrace.so, the GStreamer tracer 'axlpads' that
# verify loads into a GStreamer workload (docs/gstreamer.md), and build/<arch>/gst-tests/nvmm_camera,
# the rig's NVMM-shaped camera (tests/device/gst/nvmm_camera.c). They need that architecture's
# GStreamer development files (libgstreamer1.0-dev, libgstreamer-plugins-base1.0-dev): the
# host's for its own architecture (where they are missing nothing is built, and this script says
# so); for aarch64 on another host, Debian's arm64 packages unpacked into a sysroot by
# ffi/gst-sysroot.sh (apt-get download + dpkg -x; AXL_GST_SYSROOT=DIR uses DIR instead).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

native=$(uname -m)
archs=(x86_64 aarch64)
[[ ${1:-} == --native ]] && archs=("$native")

cflags=(-std=gnu11 -O2 -g -fPIC -Wall -Wextra -Werror -Wno-unused-parameter
	-fvisibility=default -Ikernel/include/uapi -Iffi/src)
sources=(ffi/src/consts.c ffi/src/fd.c ffi/src/mem.c ffi/src/heap.c ffi/src/fence.c
	ffi/src/device.c ffi/src/metis.c ffi/src/v4l2.c ffi/src/trace_scan.c ffi/src/trace_join.c
	ffi/src/frame_steps.c ffi/src/implicit_sync.c)

compiler_for() {
	if [[ $1 == "$native" ]]; then
		echo "${CC:-cc}"
	else
		echo "$1-linux-gnu-gcc"
	fi
}

# The GStreamer tracer and the NVMM-shaped camera for $1 with compiler $2 into $3/gst/ and
# $3/gst-tests/, when $1's GStreamer development files are at hand; otherwise a loud line on
# stderr and neither.
build_gst_tracer() {
	local arch=$1 cc=$2 out=$3 pc=(pkg-config) mods=(gstreamer-1.0 gstreamer-allocators-1.0)
	local link=() sysroot why="no $arch GStreamer development files (libgstreamer1.0-dev and libgstreamer-plugins-base1.0-dev for $arch)"
	if [[ $arch != "$native" && $arch == aarch64 ]]; then
		if sysroot=${AXL_GST_SYSROOT:-$(bash ffi/gst-sysroot.sh)}; then
			pc=(env PKG_CONFIG_SYSROOT_DIR="$sysroot"
				PKG_CONFIG_LIBDIR="$sysroot/usr/lib/$arch-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig" pkg-config)
			# The libraries' own dependencies (libffi, pcre2, libdw, …) are not in the sysroot:
			# the guest's root has them, and the linker need not check them here.
			link=(-Wl,-rpath-link,"$sysroot/usr/lib/$arch-linux-gnu" -Wl,--allow-shlib-undefined)
		else
			why="Debian's arm64 GStreamer development packages could not be fetched (ffi/gst-sysroot.sh, above)"
		fi
	elif [[ $arch != "$native" ]]; then
		pc=(env PKG_CONFIG_LIBDIR="/usr/lib/$arch-linux-gnu/pkgconfig" pkg-config)
	fi
	if ! "${pc[@]}" --exists "${mods[@]}" gstreamer-app-1.0 gstreamer-base-1.0 2>/dev/null; then
		echo "ffi/build.sh: $arch: GStreamer tracer NOT BUILT: $why;" \
			"verify will record no per-pad memory for GStreamer workloads on $arch" >&2
		return 0
	fi
	mkdir -p "$out/gst" "$out/gst-tests"
	local warn=(-std=gnu11 -O2 -g -fPIC -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers)
	# shellcheck disable=SC2046 # pkg-config prints words
	"$cc" "${warn[@]}" -Iffi/src/gst $("${pc[@]}" --cflags "${mods[@]}") -shared -Wl,--no-undefined \
		-o "$out/gst/libgstaxltrace.so" ffi/src/gst/axl_gst_pads.c $("${pc[@]}" --libs "${mods[@]}") "${link[@]}"
	echo "ffi/build.sh: built $out/gst/libgstaxltrace.so"
	# A test program of the rig, not part of axl: where it does not build (older kernel headers
	# without linux/dma-heap.h, say) the shim and the tracer still stand.
	# shellcheck disable=SC2046 # pkg-config prints words
	if "$cc" "${warn[@]}" -Iffi/src/gst -Ikernel/include/uapi \
		$("${pc[@]}" --cflags gstreamer-1.0 gstreamer-base-1.0 gstreamer-app-1.0) \
		-o "$out/gst-tests/nvmm_camera" tests/device/gst/nvmm_camera.c \
		$("${pc[@]}" --libs gstreamer-1.0 gstreamer-base-1.0 gstreamer-app-1.0) -pthread "${link[@]}"; then
		echo "ffi/build.sh: built $out/gst-tests/nvmm_camera"
	else
		echo "ffi/build.sh: $arch: the rig's test program nvmm_camera NOT BUILT (see above);" \
			"tests/device/gst_nvmm_metis.test.ts will fail" >&2
	fi
}

mmapi=${AXL_MMAPI:-/usr/src/jetson_multimedia_api}
for arch in "${archs[@]}"; do
	cc=$(compiler_for "$arch")
	if ! command -v "$cc" >/dev/null; then
		echo "ffi/build.sh: no C compiler for $arch ('$cc'); install gcc-aarch64-linux-gnu" \
			"and libc6-dev-arm64-cross, or run 'ffi/build.sh --native'" >&2
		exit 1
	fi
	out=build/$arch
	mkdir -p "$out/obj"
	objs=()
	for src in "${sources[@]}"; do
		obj=$out/obj/$(basename "${src%.c}").o
		"$cc" "${cflags[@]}" -c "$src" -o "$obj"
		objs+=("$obj")
	done
	libs=()
	if [[ $arch == aarch64 && $native == aarch64 && -f $mmapi/include/Argus/Argus.h ]]; then
		# Only on a Jetson: libargus through the socket client (libnvargus_socketclient, which
		# also exports the EGLStream consumer), NvBufSurface from libnvbufsurface, against the
		# Jetson's own headers (nvbufsurface.h included). No C++ exception may cross into the
		# FFI caller: -fno-exceptions. tests/jetson/argus_compile.test.ts compiles with these
		# flags and holds the object's undefined symbols to docs/deployment.md's list.
		argus_cxxflags=(-std=c++14 -O2 -g -fPIC -fno-exceptions -Wall -Wextra -Werror)
		"${CXX:-c++}" "${argus_cxxflags[@]}" -Iffi/src -Ikernel/include/uapi \
			-I"$mmapi/include" -c ffi/src/argus.cpp -o "$out/obj/argus.o"
		objs+=("$out/obj/argus.o")
		libs+=(-L/usr/lib/aarch64-linux-gnu/tegra -lnvargus_socketclient -lnvbufsurface -lstdc++)
		echo "ffi/build.sh: $arch: Argus export built against $mmapi"
	else
		"$cc" "${cflags[@]}" -c ffi/src/argus_none.c -o "$out/obj/argus_none.o"
		objs+=("$out/obj/argus_none.o")
	fi
	"$cc" -shared -Wl,-soname,libaxl_shim.so -Wl,--no-undefined -o "$out/libaxl_shim.so" \
		"${objs[@]}" "${libs[@]}"
	echo "ffi/build.sh: built $out/libaxl_shim.so"
	build_gst_tracer "$arch" "$cc" "$out"
done
