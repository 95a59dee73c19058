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
# verify loads into a GStreamer workload (docs/gstreamer.md). It needs that architecture's
# GStreamer development files (libgstreamer1.0-dev, libgstreamer-plugins-base1.0-dev); where
# they are missing it is not built, and this script says so.
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

# The GStreamer tracer for $1 with compiler $2 into $3/gst/, when $1's GStreamer development
# files are installed; otherwise a loud line on stderr and no library.
build_gst_tracer() {
	local arch=$1 cc=$2 out=$3 pc=(pkg-config) mods=(gstreamer-1.0 gstreamer-allocators-1.0)
	[[ $arch == "$native" ]] || pc=(env PKG_CONFIG_LIBDIR="/usr/lib/$arch-linux-gnu/pkgconfig" pkg-config)
	if ! "${pc[@]}" --exists "${mods[@]}" 2>/dev/null; then
		echo "ffi/build.sh: $arch: GStreamer tracer NOT BUILT: no $arch GStreamer development" \
			"files (libgstreamer1.0-dev and libgstreamer-plugins-base1.0-dev for $arch);" \
			"verify will record no per-pad memory for GStreamer workloads on $arch" >&2
		return 0
	fi
	mkdir -p "$out/gst"
	# shellcheck disable=SC2046 # pkg-config prints words
	"$cc" -std=gnu11 -O2 -g -fPIC -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers -Iffi/src/gst \
		$("${pc[@]}" --cflags "${mods[@]}") -shared -Wl,--no-undefined \
		-o "$out/gst/libgstaxltrace.so" ffi/src/gst/axl_gst_pads.c $("${pc[@]}" --libs "${mods[@]}")
	echo "ffi/build.sh: built $out/gst/libgstaxltrace.so"
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
