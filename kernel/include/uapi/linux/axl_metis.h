/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * axl: the subset of the Axelera Metis driver's (metis.ko) dma-buf ioctl ABI
 * that axl.ko serves on its Metis-compatible node, /dev/axl-metis-*.
 *
 * The numbers and layouts are those of metis.ko's public GPL sources
 * (axelera-ai-hub/axelera-driver: axl-aipu-dmabuf.h, axl-aipu.h), written
 * here under names of our own so this header can sit beside theirs. Unlike
 * linux/axl.h this ABI is not ours to fix: it uses size_t and int, so its
 * layouts differ between 32- and 64-bit user space. Only 64-bit callers are
 * served (no compat_ioctl); ffi/abi/layout.txt pins x86_64 and aarch64.
 *
 * What metis.ko does with these calls, and what our node mirrors:
 *  - DMA_ATTACH takes a dma-buf fd, attaches it to the card's PCI function,
 *    maps it DMA_BIDIRECTIONAL and keeps the whole scatterlist. One buffer
 *    per open file. Our node refuses a read-only dma-buf (its file not
 *    opened for writing) with -EACCES: READ transfers write into it. Our
 *    node also counts the attached buffer's bytes, as
 *    /dev/axl counts an import's, against the attaching user's share
 *    (module parameter max_user_pinned_mb) and everyone's (max_pinned_mb):
 *    an attach past either fails with -ENOSPC, as an import does, and
 *    DMA_DETACH or close gives the bytes back. The open file is the unit:
 *    a buffer attached here and imported on /dev/axl counts once for each
 *    file, both times against the same user. metis.ko bounds nothing here.
 *  - DMA_XFER has the card's eDMA copy between that buffer (at @offset) and
 *    card memory (at @phy) over every scatterlist entry the range covers:
 *    @offset + @size is checked against the sum of the entries' lengths, so
 *    a scattered buffer needs no contiguity; our node also checks it against
 *    the buffer's size (-EINVAL past it), for an exporter whose table is
 *    longer than its buffer. SYNC waits, ASYNC returns at
 *    once. Completion of
 *    every transfer raises a poll() event (POLLIN) on the file until it is
 *    consumed with CLEAR_POLL_EVENT.
 *  - DMA_GET_XFER_ASYNC_STATUS returns the state of the file's last
 *    transfer as the ioctl's return value (AXL_METIS_XFER_*).
 *
 * Card memory is one area for the whole node (metis_card_mb MiB at card
 * address 0), shared by every open file and never cleared, not even when a
 * file is closed: any opener of the node reads and overwrites what another
 * wrote there, as with metis.ko, whose node is meant for one trusted group
 * of users. The driver sets no mode of its own (devtmpfs makes the node
 * 0600, root only); a udev rule that opens it to a group should name only
 * users who may share the card's memory.
 */
#ifndef _UAPI_LINUX_AXL_METIS_H
#define _UAPI_LINUX_AXL_METIS_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Node name prefix: "axl-metis-<domain>-<bus>-<slot>" in hex, like metis.ko's "metis-...". */
#define AXL_METIS_NODE_PREFIX "axl-metis-"

/* Directions and modes of struct axl_metis_xfer.flags: one of each pair. */
#define AXL_METIS_XFER_READ  0x1 /* card memory -> buffer */
#define AXL_METIS_XFER_WRITE 0x2 /* buffer -> card memory */
#define AXL_METIS_XFER_SYNC  0x4 /* the ioctl returns when the copy is done */
#define AXL_METIS_XFER_ASYNC 0x8 /* the ioctl returns once the copy is queued */

/**
 * struct axl_metis_xfer - DMA_XFER argument (metis.ko's struct dmabuf_xfer)
 * @phy:     card memory address of the first byte.
 * @size:    bytes to copy; not 0.
 * @offset:  byte offset into the attached buffer.
 * @handle:  unused by the driver.
 * @flags:   AXL_METIS_XFER_*: READ or WRITE, and SYNC or ASYNC.
 * @channel: eDMA channel, or negative for any.
 */
struct axl_metis_xfer {
	__u64 phy;
	__kernel_size_t size;
	__u32 offset;
	__s32 handle;
	__s32 flags;
	__s32 channel;
};

/* States DMA_GET_XFER_ASYNC_STATUS returns; 0 before the first transfer. */
#define AXL_METIS_XFER_DONE    1
#define AXL_METIS_XFER_FAIL    2
#define AXL_METIS_XFER_TIMEOUT 3
#define AXL_METIS_XFER_PENDING 4

/* GET_DEV_PROPERTY ids (a __u64 in, the value out in the same __u64). */
#define AXL_METIS_PROP_HW_GEN         0 /* 0: Metis */
#define AXL_METIS_PROP_AICORE_COUNT   1
#define AXL_METIS_PROP_PVE_CORE_COUNT 2
#define AXL_METIS_PROP_PES_GROUP      3 /* PCIe switch bus, or -1 */

/* eDMA channels per direction in struct axl_metis_dma_stats. */
#define AXL_METIS_DMA_CHANNELS 4

/**
 * struct axl_metis_channel_stats - one eDMA channel (metis.ko's dma_channel_stats)
 * @count:           transfers queued or running now.
 * @num_xfer:        transfers since load.
 * @num_err:         transfers that failed.
 * @bytes_xfer:      bytes requested since load.
 * @max_sgt:         most scatterlist entries of a transferred buffer.
 * @max_duration_us: longest transfer.
 * @duration_us:     last transfer.
 * @size:            bytes of the last transfer.
 * @speed_mbps:      @size / @duration_us (bytes per microsecond).
 */
struct axl_metis_channel_stats {
	__s32 count;
	__s32 num_xfer;
	__s32 num_err;
	__u64 bytes_xfer;
	__s32 max_sgt;
	__u64 max_duration_us;
	__u64 duration_us;
	__kernel_size_t size;
	__u32 speed_mbps;
};

/**
 * struct axl_metis_dma_stats - GET_DMA_STATS output (metis.ko's struct dma_stats)
 * @rd_channels: channels of READ transfers (card -> buffer).
 * @wr_channels: channels of WRITE transfers (buffer -> card).
 */
struct axl_metis_dma_stats {
	struct axl_metis_channel_stats rd_channels[AXL_METIS_DMA_CHANNELS];
	struct axl_metis_channel_stats wr_channels[AXL_METIS_DMA_CHANNELS];
};

/**
 * struct axl_metis_res_info - GET_RESOURCE_INFO output (metis.ko's dev_res_info)
 * @sysspm_base: unused on Metis (0).
 * @sysspm_size: unused on Metis (0).
 * @l2_base:     card L2 window (0 on the simulator).
 * @l2_size:     its size.
 * @ddr_base:    card memory areas; [0] is what DMA_XFER's @phy addresses.
 * @ddr_size:    their sizes.
 */
struct axl_metis_res_info {
	__u64 sysspm_base;
	__u64 sysspm_size;
	__u64 l2_base;
	__u64 l2_size;
	__u64 ddr_base[2];
	__u64 ddr_size[2];
};

#define AXL_METIS_IOCTL_BASE 'U'
#define AXL_METIS_IOCTL_GET_DEV_PROPERTY _IOWR(AXL_METIS_IOCTL_BASE, 3, __u64)
#define AXL_METIS_IOCTL_DMA_ATTACH       _IOWR(AXL_METIS_IOCTL_BASE, 5, int)
#define AXL_METIS_IOCTL_DMA_DETACH       _IOWR(AXL_METIS_IOCTL_BASE, 6, int)
/* The size field of these two encodes a pointer, as metis.ko declares them. */
#define AXL_METIS_IOCTL_DMA_XFER         _IOWR(AXL_METIS_IOCTL_BASE, 7, struct axl_metis_xfer *)
#define AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS \
	_IOWR(AXL_METIS_IOCTL_BASE, 8, struct axl_metis_xfer *)
#define AXL_METIS_IOCTL_CLEAR_POLL_EVENT _IOWR(AXL_METIS_IOCTL_BASE, 15, int)
#define AXL_METIS_IOCTL_GET_RESOURCE_INFO \
	_IOR(AXL_METIS_IOCTL_BASE, 16, struct axl_metis_res_info)
#define AXL_METIS_IOCTL_GET_DMA_STATS \
	_IOR(AXL_METIS_IOCTL_BASE, 32, struct axl_metis_dma_stats)

#endif /* _UAPI_LINUX_AXL_METIS_H */
