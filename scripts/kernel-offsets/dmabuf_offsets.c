// SPDX-License-Identifier: GPL-2.0
/*
 * The struct offsets verify's kprobe events follow from a probed function's argument, as this
 * kernel tree lays the structs out: the dma-buf events' to the buffer's inode, its exporter's
 * name and the importing device's name; the process probes' (fd_install(),
 * dma_buf_mmap_internal()) to a file's superblock magic and a mapping's range and flags.
 * Compiled to assembly only (`make M=... dmabuf_offsets.s`), never linked or loaded: each
 * OFFSET() leaves a `->NAME VALUE` string in the output, the way the kernel's own asm-offsets
 * are made. scripts/kernel-offsets.sh reads them.
 */
#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/kbuild.h>
#include <linux/mm_types.h>

void axl_dmabuf_offsets(void);

void axl_dmabuf_offsets(void)
{
	DEFINE(AXL_POINTER_SIZE, sizeof(void *));
	OFFSET(AXL_DMA_BUF_ATTACHMENT_DMABUF, dma_buf_attachment, dmabuf);
	OFFSET(AXL_DMA_BUF_ATTACHMENT_DEV, dma_buf_attachment, dev);
	OFFSET(AXL_DEVICE_KOBJ_NAME, device, kobj.name);
	OFFSET(AXL_DMA_BUF_FILE, dma_buf, file);
	OFFSET(AXL_DMA_BUF_EXP_NAME, dma_buf, exp_name);
	OFFSET(AXL_FILE_F_INODE, file, f_inode);
	OFFSET(AXL_INODE_I_INO, inode, i_ino);
	OFFSET(AXL_INODE_I_SB, inode, i_sb);
	OFFSET(AXL_SUPER_BLOCK_S_MAGIC, super_block, s_magic);
	OFFSET(AXL_VM_AREA_STRUCT_VM_START, vm_area_struct, vm_start);
	OFFSET(AXL_VM_AREA_STRUCT_VM_END, vm_area_struct, vm_end);
	OFFSET(AXL_VM_AREA_STRUCT_VM_FLAGS, vm_area_struct, vm_flags);
}
