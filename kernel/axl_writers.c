// SPDX-License-Identifier: GPL-2.0
/*
 * axl: one device mapping for writing per buffer.
 *
 * The engine's device maps a buffer for writing when it is imported
 * FROM_DEVICE or BIDIRECTIONAL and when it is a job's result. Two such
 * mappings of one buffer would overlap, which the DMA API does not support
 * (DMA_API_DEBUG reports "overlapping mappings aren't supported"): on a
 * non-coherent system the unmap of one invalidates the CPU caches and can
 * drop what was written through the other. So each buffer has at most one
 * writer mapping at a time; mappings for reading (TO_DEVICE) are not
 * counted. The xarray's own lock is all the table needs.
 */
#include <linux/dma-buf.h>
#include <linux/xarray.h>

#include "axl_drv.h"

/* dma-buf -> whoever holds its writer mapping (an import or a job) */
static DEFINE_XARRAY(axl_writers);

/**
 * axl_writer_claim() - become the one writer mapping of a buffer
 * @buf:   the dma-buf, referenced by the caller until axl_writer_release().
 * @owner: the import or job that will map it.
 * @dir:   the direction it will be mapped in; DMA_TO_DEVICE claims nothing.
 *
 * A job that ended may hold its result buffer until its cleanup ran: that
 * is waited for (cleanups wait for no fence). Process context only; never
 * from the signalling worker.
 *
 * Return: 0; -EBUSY while an import or a job in flight maps @buf for
 * writing; -ENOMEM.
 */
int axl_writer_claim(struct dma_buf *buf, void *owner,
		     enum dma_data_direction dir)
{
	unsigned long key = (unsigned long)buf;
	int ret;

	if (dir == DMA_TO_DEVICE)
		return 0;
	ret = AXL_FAULT_INT("writer.insert", -ENOMEM,
			    xa_insert(&axl_writers, key, owner, GFP_KERNEL_ACCOUNT));
	if (ret == -EBUSY) {
		axl_engine_flush_cleanup();
		ret = xa_insert(&axl_writers, key, owner, GFP_KERNEL_ACCOUNT);
	}
	if (!ret)
		atomic64_inc(&axl_stats.writers);
	return ret;
}

/**
 * axl_writer_release() - a mapping made after axl_writer_claim() is gone
 * @buf: the buffer.
 * @dir: the direction given to axl_writer_claim().
 */
void axl_writer_release(struct dma_buf *buf, enum dma_data_direction dir)
{
	if (dir != DMA_TO_DEVICE && xa_erase(&axl_writers, (unsigned long)buf))
		atomic64_dec(&axl_stats.writers);
}

/**
 * axl_writer_busy() - whether a buffer has a writer mapping now
 * @buf: the dma-buf.
 *
 * As axl_writer_claim() would see it (a job that ended is waited for), but
 * claims nothing: SUBMIT asks before it waits for the result's fences, so
 * that a second job writing a buffer fails with -EBUSY at once instead of
 * waiting for the first job's fence. Process context only.
 *
 * Return: true while an import or a job in flight maps @buf for writing.
 */
bool axl_writer_busy(struct dma_buf *buf)
{
	unsigned long key = (unsigned long)buf;

	if (!xa_load(&axl_writers, key))
		return false;
	axl_engine_flush_cleanup();
	return xa_load(&axl_writers, key) != NULL;
}
