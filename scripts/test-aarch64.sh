#!/usr/bin/env bash
# Runs host tests on aarch64 under qemu-user: Deno's arm64 build (from the npm
# registry) with Debian's arm64 C library, loading build/aarch64/libaxl_shim.so.
# Type-checking happens once on the native deno (it takes ~90 s per file under
# emulation); the emulated run uses --no-check.
#
#   scripts/test-aarch64.sh [--all] [TEST_PATH...]
#   scripts/test-aarch64.sh --vm [TEST_PATH...]
#
# Default set: the tests whose behaviour depends on the architecture — the FFI
# shim (struct layout, pointer and u64 passing, errno mapping), the ABI table,
# the shim locator, doctor (file-system and gzip APIs) and the pixel formats
# (plane/stride arithmetic). The rest of tests/host is pure TypeScript that V8
# runs the same way on both architectures; --all runs it too (about 10 minutes
# on 2 cores, against about 1 for the default set).
#
# Tests that cannot work under qemu-user are reported as ignored, never as
# passed (scripts/qemu_user_tests.ts, the entry module, says which and why):
# those spawning `deno` itself (the host kernel cannot exec the arm64 binary
# without binfmt_misc) and ioctls on non-device fds (qemu-user answers unknown
# ioctl numbers with ENOSYS). They run natively in the x86_64 host suite, and
# on a real arm64 kernel with --vm: only those tests (of the same files),
# in the arm64 5.15 guest of scripts/vm/run.sh --arch aarch64 (needs the kits
# in ../shared/kernels; results in build/vm-arm64-host-results).
#
# Needs qemu-user-static, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross (scripts/
# setup.sh installs them) and npm (for the arm64 Deno). Prints deno test's
# "ok | N passed | M failed" line. Exit: deno test's, or 3 when it cannot run.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 3
export NO_COLOR=1 RUST_BACKTRACE=0

default_set=(tests/host/ffi tests/host/kernel tests/host/tasks/compile.test.ts
	tests/host/doctor tests/host/formats tests/host/constraints tests/host/nvmm)

paths=() vm=0
for arg; do
	case $arg in
	--all) paths+=(tests/host) ;;
	--vm) vm=1 ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" && exit 0 ;;
	-*) echo "test-aarch64: unknown option '$arg' (see --help)" >&2 && exit 3 ;;
	*) paths+=("$arg") ;;
	esac
done
((${#paths[@]})) || paths=("${default_set[@]}")

sysroot=/usr/aarch64-linux-gnu
qemu=$(command -v qemu-aarch64-static || true)
if [[ -z $qemu || ! -e $sysroot/lib/ld-linux-aarch64.so.1 ]]; then
	echo "test-aarch64: needs qemu-aarch64-static and the arm64 C library in $sysroot:" \
		"apt-get install qemu-user-static libc6-arm64-cross (or run scripts/setup.sh)" >&2
	exit 3
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
	echo "test-aarch64: needs aarch64-linux-gnu-gcc to build the shim:" \
		"apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross" >&2
	exit 3
fi

native=$(scripts/bootstrap-deno.sh) || exit 3
arm=$(AXL_DENO_ARCH=arm64 scripts/bootstrap-deno.sh) || exit 3
version=$(tr -d '[:space:]' <scripts/DENO_VERSION)
got=$("$qemu" -L "$sysroot" "$arm" --version 2>&1 | head -n 1)
if [[ $got != "deno $version "* ]]; then
	echo "test-aarch64: $arm under $qemu printed '$got', expected deno $version" >&2
	exit 3
fi
echo "test-aarch64: $got under $("$qemu" --version | head -n 1)"

bash ffi/build.sh || exit 3
shim=$root/build/aarch64/libaxl_shim.so

# Files to check natively (the emulated run does not type-check).
mapfile -t files < <(for p in "${paths[@]}"; do
	if [[ -d $p ]]; then find "$p" -name '*.test.ts'; else echo "$p"; fi
done | LC_ALL=C sort -u)
((${#files[@]})) || { echo "test-aarch64: no test files in ${paths[*]}" >&2 && exit 3; }
echo "test-aarch64: deno check (native) ${#files[@]} files"
"$native" check scripts/qemu_user_tests.ts "${files[@]}" || exit 1

if ((vm)); then
	# The names qemu_user_tests.ts ignores, as deno test's --filter regular expression.
	pattern=$(sed -nE 's|^export const QEMU_USER_EXCLUDE = /(.*)/;$|\1|p' scripts/qemu_user_tests.ts)
	[[ -n $pattern ]] || { echo "test-aarch64: no QEMU_USER_EXCLUDE in scripts/qemu_user_tests.ts" >&2 && exit 3; }
	# The guest reuses the host's type-check cache only for the same set of root modules.
	"$native" check "${files[@]}" || exit 1
	echo "test-aarch64: the tests qemu-user ignores (/$pattern/), in the arm64 guest"
	exec bash scripts/vm/run.sh --arch aarch64 --no-build-tests --results build/vm-arm64-host-results \
		-- deno test --allow-all --filter "/$pattern/" "${files[@]}"
fi

echo "test-aarch64: deno test (aarch64, AXL_SHIM=$shim) ${paths[*]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
AXL_SHIM=$shim "$qemu" -L "$sysroot" "$arm" test --no-check --allow-all \
	scripts/qemu_user_tests.ts -- "${files[@]}" </dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo "test-aarch64: ${#files[@]} files in $(($(date +%s) - start)) s under emulation (exit $rc)"
# A run that executed nothing must not look like a pass.
if ((rc == 0)) && ! grep -qE '^ok \| [1-9][0-9]* passed' "$log"; then
	echo "test-aarch64: no test passed under emulation"
	echo "FAILED | 0 passed | 1 failed"
	exit 1
fi
exit "$rc"
