/* SPDX-License-Identifier: GPL-2.0 */
/*
 * axl: the Metis-compatible node (linux/axl_metis.h). Internal declarations
 * shared by axl_metis.c (the node) and axl_metis_xfer.c (attach and eDMA).
 */
#ifndef _AXL_METIS_H
#define _AXL_METIS_H

#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/dma-direction.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/axl_metis.h>

#include "axl_compat.h" /* struct iosys_map on every kernel */

struct axl_pin;
struct dma_buf;
struct dma_buf_attachment;
struct device;
struct sg_table;

/* metis.ko maps every buffer this way; so does the node. */
#define AXL_METIS_DIR DMA_BIDIRECTIONAL

/*
 * eDMA descriptors per pass in metis.ko 1.6: 32 KiB of descriptor memory
 * over 4 channels each way, 24-byte descriptors, 3 kept back (the link and
 * end elements): 32768 / (2 * 4 * 24) - 3.
 */
#define AXL_METIS_LL_MAX 167

/**
 * struct axl_metis_desc - one descriptor of the simulated eDMA's linked list
 * @pos:  offset in the buffer of the first byte (its DMA entry's part).
 * @len:  bytes.
 * @card: card memory address of the first byte.
 */
struct axl_metis_desc {
	u64 pos;
	u64 len;
	u64 card;
};

/**
 * struct axl_metis_file - state of one open file of the Metis-compatible node
 * @lock:       protects the attachment fields and @busy; never held while
 *              waiting for a transfer.
 * @node:       link in the list of open files, so a device removal can
 *              detach their buffers.
 * @id:         number of the attachment in the axl_dmabuf_* trace events.
 * @dmabuf:     the attached buffer (reference), or NULL.
 * @pin:        its bytes, charged to the user who attached it (axl_pin.c).
 * @attach:     its attachment to the engine's device.
 * @sgt:        the attachment's mapping.
 * @dev:        the device @attach belongs to.
 * @map:        kernel mapping the simulated eDMA copies through.
 * @ll:         the descriptor list of a pass, AXL_METIS_LL_MAX long.
 * @phys:       DMA address of the first scatterlist entry, for the trace
 *              events (metis.ko notes it too, and moves nothing with it).
 * @mapped_len: sum of the DMA entries' lengths, at most the buffer's size
 *              (the vmap's): transfers are bounded by it.
 * @nents:      DMA entries of @sgt.
 * @inode:      inode of the dma-buf's file, as debugfs bufinfo shows it.
 * @busy:       a transfer is queued or running.
 * @state:      AXL_METIS_XFER_* of the last ASYNC transfer; 0 before one.
 * @poll_events: completions not yet consumed by CLEAR_POLL_EVENT.
 * @poll_wq:    woken on every completion.
 * @work:       the simulated eDMA copy of the transfer in flight.
 * @waiter:     the SYNC caller of the transfer in flight, or NULL: told
 *              that transfer's end and status alone, never a later one's.
 * @xfer:       the transfer in flight.
 * @queued:     when it was queued.
 */
/**
 * struct axl_metis_waiter - a SYNC caller waiting for its own transfer
 * @done:   completed when that transfer ends.
 * @status: its result, 0 or a negative errno; set before @done.
 *
 * On the caller's stack: the transfer's end reaches it through
 * axl_metis_file.waiter under the file's lock, and a caller that stops
 * waiting takes it back under that lock before it returns.
 */
struct axl_metis_waiter {
	struct completion done;
	int status;
};

struct axl_metis_file {
	struct mutex lock; /* the attachment; see above */
	struct list_head node;
	u32 id;
	struct dma_buf *dmabuf;
	struct axl_pin *pin;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct device *dev;
	struct iosys_map map;
	struct axl_metis_desc *ll;
	dma_addr_t phys;
	u64 mapped_len;
	u32 nents;
	unsigned long inode;
	bool busy;
	atomic_t state;
	atomic_t poll_events;
	wait_queue_head_t poll_wq;
	struct delayed_work work;
	struct axl_metis_waiter *waiter;
	struct axl_metis_xfer xfer;
	ktime_t queued;
};

/* axl_metis.c: the node. */
int axl_metis_init(void);
void axl_metis_register(void);
void axl_metis_fini(void);
void axl_metis_revoke_all(void);
void axl_metis_count_start(const struct axl_metis_xfer *x, u32 nents);
void axl_metis_count_end(const struct axl_metis_xfer *x, int status, ktime_t queued);
void axl_metis_stats_get(struct axl_metis_dma_stats *out);
void axl_metis_stats_reset(bool all);

/* axl_metis_gen.c: the metis.ko release presented, dma-trace and dma-statistics. */
struct attribute_group;
extern const struct attribute_group *axl_metis_gen_groups[];
int axl_metis_gen_init(void);
void axl_metis_gen_debugfs(void);
void axl_metis_gen_fini(void);
void axl_metis_trace_add(const struct axl_metis_xfer *x, ktime_t queued, ktime_t start,
			 ktime_t end, u64 moved);

/* axl_metis_xfer.c: attach, detach, transfers and card memory. */
int axl_metis_card_init(void);
void axl_metis_card_fini(void);
u64 axl_metis_card_size(void);
void axl_metis_file_init(struct axl_metis_file *f);
int axl_metis_attach(struct axl_metis_file *f, int __user *uarg);
int axl_metis_detach(struct axl_metis_file *f);
int axl_metis_xfer(struct axl_metis_file *f, void __user *uarg);
void axl_metis_stop(struct axl_metis_file *f, bool revoke);

#endif /* _AXL_METIS_H */
