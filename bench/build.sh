#!/usr/bin/env bash
# Builds the C baselines of the benchmarks into build/bench/, linked against the
# native libaxl_shim.so (built first with ffi/build.sh --native).
#
#   bench/build.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

arch=$(uname -m)
bash ffi/build.sh --native >&2
out=build/bench
mkdir -p "$out"
# Same flags as the shim; the rpath finds build/<arch>/libaxl_shim.so from build/bench/.
cflags=(-std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter
	-Ikernel/include/uapi -Iffi/src)
for prog in frame_loop ffi_calls; do
	"${CC:-cc}" "${cflags[@]}" -o "$out/$prog" "bench/$prog.c" \
		-L"build/$arch" -laxl_shim -Wl,-rpath,"\$ORIGIN/../$arch"
done
# The C floor of the trace-analysis stages, loaded through FFI (no shim needed).
"${CC:-cc}" "${cflags[@]}" -shared -fPIC -o "$out/libline_count.so" bench/line_count.c
echo "bench/build.sh: built $out/frame_loop $out/ffi_calls against build/$arch/libaxl_shim.so," \
	"$out/libline_count.so" >&2
