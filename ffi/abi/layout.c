// SPDX-License-Identifier: MIT
/*
 * Emits the layout of the axl uapis (linux/axl.h, and linux/axl_metis.h whose
 * size_t and int members make it differ between 32- and 64-bit targets)
 * into assembly text, the way the kernel's
 * asm-offsets does: compile with -S for each target and read the "->" lines.
 * Nothing here is executed, so it works for any cross compiler.
 */
#include <stddef.h>
#include <linux/axl.h>
#include <linux/axl_metis.h>

#define EMIT(name, val) asm volatile("\n.ascii \"->" name " %0\"" : : "i"((unsigned long)(val)))
#define SIZE(s) EMIT("sizeof " #s, sizeof(struct s))
#define FIELD(s, f) EMIT("offsetof " #s "." #f, offsetof(struct s, f))
#define IOCTL(c) EMIT("ioctl " #c, c)

void axl_abi_layout(void);
void axl_abi_layout(void)
{
	EMIT("abi_version", AXL_ABI_VERSION);

	SIZE(axl_info);
	FIELD(axl_info, abi_version);
	FIELD(axl_info, caps);
	FIELD(axl_info, max_imports);
	FIELD(axl_info, max_jobs);
	FIELD(axl_info, file_imports);
	FIELD(axl_info, file_jobs);
	FIELD(axl_info, driver);
	FIELD(axl_info, engine);
	FIELD(axl_info, device);
	FIELD(axl_info, timeline);
	FIELD(axl_info, reserved);

	SIZE(axl_import_fd);
	FIELD(axl_import_fd, fd);
	FIELD(axl_import_fd, width);
	FIELD(axl_import_fd, height);
	FIELD(axl_import_fd, pixfmt);
	FIELD(axl_import_fd, stride);
	FIELD(axl_import_fd, flags);
	FIELD(axl_import_fd, handle);
	FIELD(axl_import_fd, out_flags);
	FIELD(axl_import_fd, iova_base);
	FIELD(axl_import_fd, size);
	FIELD(axl_import_fd, inode);
	FIELD(axl_import_fd, nents);
	FIELD(axl_import_fd, pad);
	FIELD(axl_import_fd, reserved);

	SIZE(axl_plane);
	FIELD(axl_plane, offset);
	FIELD(axl_plane, pitch);
	FIELD(axl_plane, reserved);

	SIZE(axl_import_fd2);
	FIELD(axl_import_fd2, fd);
	FIELD(axl_import_fd2, flags);
	FIELD(axl_import_fd2, width);
	FIELD(axl_import_fd2, height);
	FIELD(axl_import_fd2, pixfmt);
	FIELD(axl_import_fd2, nplanes);
	FIELD(axl_import_fd2, modifier);
	FIELD(axl_import_fd2, planes);
	FIELD(axl_import_fd2, handle);
	FIELD(axl_import_fd2, out_flags);
	FIELD(axl_import_fd2, iova_base);
	FIELD(axl_import_fd2, size);
	FIELD(axl_import_fd2, inode);
	FIELD(axl_import_fd2, nents);
	FIELD(axl_import_fd2, pad);
	FIELD(axl_import_fd2, reserved);

	SIZE(axl_submit);
	FIELD(axl_submit, input_handle);
	FIELD(axl_submit, result_fd);
	FIELD(axl_submit, model_id);
	FIELD(axl_submit, timeout_us);
	FIELD(axl_submit, flags);
	FIELD(axl_submit, fence_fd);
	FIELD(axl_submit, seqno);
	FIELD(axl_submit, submit_ns);
	FIELD(axl_submit, reserved);

	SIZE(axl_release);
	FIELD(axl_release, handle);
	FIELD(axl_release, reserved);

	SIZE(axl_result);
	FIELD(axl_result, magic);
	FIELD(axl_result, version);
	FIELD(axl_result, seqno);
	FIELD(axl_result, model_id);
	FIELD(axl_result, pixfmt);
	FIELD(axl_result, width);
	FIELD(axl_result, height);
	FIELD(axl_result, status);
	FIELD(axl_result, luma_min);
	FIELD(axl_result, luma_max);
	FIELD(axl_result, crc32);
	FIELD(axl_result, luma_sum);
	FIELD(axl_result, histogram);

	IOCTL(AXL_IOCTL_GET_INFO);
	IOCTL(AXL_IOCTL_IMPORT_FD);
	IOCTL(AXL_IOCTL_SUBMIT);
	IOCTL(AXL_IOCTL_RELEASE_IMPORT);
	IOCTL(AXL_IOCTL_IMPORT_FD2);

	SIZE(axl_metis_xfer);
	FIELD(axl_metis_xfer, phy);
	FIELD(axl_metis_xfer, size);
	FIELD(axl_metis_xfer, offset);
	FIELD(axl_metis_xfer, handle);
	FIELD(axl_metis_xfer, flags);
	FIELD(axl_metis_xfer, channel);

	SIZE(axl_metis_channel_stats);
	FIELD(axl_metis_channel_stats, count);
	FIELD(axl_metis_channel_stats, num_xfer);
	FIELD(axl_metis_channel_stats, num_err);
	FIELD(axl_metis_channel_stats, bytes_xfer);
	FIELD(axl_metis_channel_stats, max_sgt);
	FIELD(axl_metis_channel_stats, max_duration_us);
	FIELD(axl_metis_channel_stats, duration_us);
	FIELD(axl_metis_channel_stats, size);
	FIELD(axl_metis_channel_stats, speed_mbps);

	SIZE(axl_metis_dma_stats);
	FIELD(axl_metis_dma_stats, rd_channels);
	FIELD(axl_metis_dma_stats, wr_channels);

	SIZE(axl_metis_res_info);
	FIELD(axl_metis_res_info, l2_base);
	FIELD(axl_metis_res_info, ddr_base);
	FIELD(axl_metis_res_info, ddr_size);

	IOCTL(AXL_METIS_IOCTL_GET_DEV_PROPERTY);
	IOCTL(AXL_METIS_IOCTL_DMA_ATTACH);
	IOCTL(AXL_METIS_IOCTL_DMA_DETACH);
	IOCTL(AXL_METIS_IOCTL_DMA_XFER);
	IOCTL(AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS);
	IOCTL(AXL_METIS_IOCTL_CLEAR_POLL_EVENT);
	IOCTL(AXL_METIS_IOCTL_GET_RESOURCE_INFO);
	IOCTL(AXL_METIS_IOCTL_GET_DMA_STATS);
}
