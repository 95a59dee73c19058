// SPDX-License-Identifier: MIT
/*
 * The Metis driver's dma-buf ioctls (linux/axl_metis.h): metis.ko's own
 * ABI, served by metis.ko on a Metis card and by axl.ko's
 * Metis-compatible node on metis-sim. Flattened into scalar slots.
 */
#include <errno.h>
#include <string.h>
#include <linux/axl_metis.h>

#include "axl_shim.h"
#include "shim_private.h"

int32_t axl_shim_metis_attach(int32_t dev, int32_t buf_fd)
{
	int fd = buf_fd;

	return axl_xioctl(dev, AXL_METIS_IOCTL_DMA_ATTACH, &fd);
}

int32_t axl_shim_metis_detach(int32_t dev)
{
	int unused = 0;

	return axl_xioctl(dev, AXL_METIS_IOCTL_DMA_DETACH, &unused);
}

/* flags: AXL_METIS_XFER_*; channel < 0 lets the driver choose. */
int32_t axl_shim_metis_xfer(int32_t dev, uint64_t phy, uint64_t size, uint32_t offset,
			    int32_t flags, int32_t channel)
{
	struct axl_metis_xfer x = {
		.phy = phy,
		.size = size,
		.offset = offset,
		.flags = flags,
		.channel = channel,
	};

	if (size > SIZE_MAX)
		return -EINVAL;
	return axl_xioctl(dev, AXL_METIS_IOCTL_DMA_XFER, &x);
}

/* The state of the file's last ASYNC transfer (AXL_METIS_XFER_*, 0 before one). */
int32_t axl_shim_metis_xfer_status(int32_t dev)
{
	struct axl_metis_xfer x;

	memset(&x, 0, sizeof(x));
	return axl_xioctl(dev, AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS, &x);
}

/* 1 when a completion event was consumed, 0 when there was none. */
int32_t axl_shim_metis_clear_event(int32_t dev)
{
	int unused = 0;

	return axl_xioctl(dev, AXL_METIS_IOCTL_CLEAR_POLL_EVENT, &unused);
}

int32_t axl_shim_metis_property(int32_t dev, uint64_t id, uint64_t *out)
{
	__u64 v = id;
	int ret;

	if (!out)
		return -EINVAL;
	ret = axl_xioctl(dev, AXL_METIS_IOCTL_GET_DEV_PROPERTY, &v);
	if (ret < 0)
		return ret;
	*out = v;
	return 0;
}

/*
 * out: [0] sysspm_base [1] sysspm_size [2] l2_base [3] l2_size
 *      [4] ddr_base[0] [5] ddr_base[1] [6] ddr_size[0] [7] ddr_size[1]
 */
int32_t axl_shim_metis_resources(int32_t dev, uint64_t *out)
{
	struct axl_metis_res_info r;
	int ret;

	if (!out)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	ret = axl_xioctl(dev, AXL_METIS_IOCTL_GET_RESOURCE_INFO, &r);
	if (ret < 0)
		return ret;
	out[0] = r.sysspm_base;
	out[1] = r.sysspm_size;
	out[2] = r.l2_base;
	out[3] = r.l2_size;
	out[4] = r.ddr_base[0];
	out[5] = r.ddr_base[1];
	out[6] = r.ddr_size[0];
	out[7] = r.ddr_size[1];
	return 0;
}

/*
 * out: AXL_SHIM_METIS_STATS_SLOTS slots per channel, the AXL_METIS_DMA_CHANNELS
 * read channels first, then the write channels: [0] count [1] num_xfer
 * [2] num_err [3] bytes_xfer [4] max_sgt [5] max_duration_us [6] duration_us
 * [7] size [8] speed_mbps.
 */
int32_t axl_shim_metis_dma_stats(int32_t dev, uint64_t *out)
{
	struct axl_metis_dma_stats st;
	const struct axl_metis_channel_stats *c;
	int ret;

	if (!out)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	ret = axl_xioctl(dev, AXL_METIS_IOCTL_GET_DMA_STATS, &st);
	if (ret < 0)
		return ret;
	for (int i = 0; i < 2 * AXL_METIS_DMA_CHANNELS; i++) {
		c = i < AXL_METIS_DMA_CHANNELS ? &st.rd_channels[i] :
						 &st.wr_channels[i - AXL_METIS_DMA_CHANNELS];
		uint64_t *o = out + (size_t)i * AXL_SHIM_METIS_STATS_SLOTS;

		o[0] = (uint64_t)(int64_t)c->count;
		o[1] = (uint64_t)(int64_t)c->num_xfer;
		o[2] = (uint64_t)(int64_t)c->num_err;
		o[3] = c->bytes_xfer;
		o[4] = (uint64_t)(int64_t)c->max_sgt;
		o[5] = c->max_duration_us;
		o[6] = c->duration_us;
		o[7] = c->size;
		o[8] = c->speed_mbps;
	}
	return 0;
}
