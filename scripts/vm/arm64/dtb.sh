# shellcheck shell=bash
# The arm64 guest's device tree (sourced by scripts/vm/ensure.sh): QEMU's own
# tree for the virt machine plus a reserved-memory node for the CMA area, as
# a Jetson's tree has it. The kernel names the CMA dma-heap after its area, so
# this gives /dev/dma_heap/linux,cma; without the node, the area made from
# CONFIG_CMA_SIZE_MBYTES (or cma=) is called "reserved".

# vm_arm64_dtb OUT CMA_MIB QEMU_ARGS... — dump the tree of the machine that
# QEMU_ARGS describe (QEMU fills in memory, CPUs, PMU, GIC and SMMU from them,
# so they must be those of the boot), add the linux,cma node and compile it
# to OUT. QEMU still writes /chosen (command line, initrd) at boot.
vm_arm64_dtb() {
	local out=$1 cma_mib=$2 work
	shift 2
	work=$(mktemp -d)
	# -nic none as at boot: the default NIC wants iPXE's efi-virtio.rom, which a
	# qemu-system-arm installed without recommends does not have.
	qemu-system-aarch64 "$@" -nic none -machine dumpdtb="$work/virt.dtb" -display none >&2 ||
		{ rm -rf "$work" && vm_die "qemu-system-aarch64 could not dump the virt machine's device tree"; }
	dtc -q -I dtb -O dts -o "$work/virt.dts" "$work/virt.dtb" || { rm -rf "$work" && vm_die "dtc cannot read QEMU's tree"; }
	# Appended as a second root node: dtc merges it into the first. Two cells
	# for addresses and sizes, as QEMU's virt tree declares at its root.
	cat >>"$work/virt.dts" <<-EOF
		/ {
			reserved-memory {
				#address-cells = <2>;
				#size-cells = <2>;
				ranges;
				linux,cma {
					compatible = "shared-dma-pool";
					reusable;
					size = <0x0 $(printf '0x%x' $((cma_mib << 20)))>;
					linux,cma-default;
				};
			};
		};
	EOF
	dtc -q -I dts -O dtb -o "$out.tmp" "$work/virt.dts" || { rm -rf "$work" && vm_die "dtc cannot compile the tree with the linux,cma node"; }
	rm -rf "$work"
	mv "$out.tmp" "$out"
}
