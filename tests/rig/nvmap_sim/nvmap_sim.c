// SPDX-License-Identifier: GPL-2.0
/*
 * nvmap-sim: the VM rig's stand-in for NVIDIA's nvmap as a dma-buf exporter
 * (a test module of the rig, not part of axl.ko).
 *
 * User space allocates from /dev/dma_heap/nvmap-sim with the dma-heap uapi
 * (DMA_HEAP_IOCTL_ALLOC), as from any heap. The kernel's dma_heap_add() is
 * not exported to modules (5.15, 6.12), so the node is a misc device named
 * into the same directory, implementing that one ioctl.
 *
 * Buffers export as "nvmap_dmabuf" and behave as nvmap's do for importers:
 *  - attach accepts any device;
 *  - map_dma_buf keeps a "stash" per (device, direction): the first map of a
 *    buffer for a device does the real dma_map_sgtable() (through the IOMMU
 *    when the device sits behind one) with DMA_ATTR_SKIP_CPU_SYNC; later maps,
 *    from this or another attachment of that device, return a copy of the
 *    stashed table; unmap only drops a pin; the IOMMU unmap happens when the
 *    buffer is released;
 *  - buffers up to 1 MiB are physically contiguous when the page allocator has
 *    such a run (else page by page), as nvmap's carveout and CMA buffers are;
 *  - cache_sgt_mapping is set, so the dma-buf core also maps an attachment
 *    once and unmaps it at detach;
 *  - begin/end_cpu_access sync every stashed mapping (the mappings skip the
 *    CPU sync), mmap and vmap map the pages;
 *  - every op fires the tracepoint nvmap fires (nvmap_sim_trace.h).
 *
 * debugfs nvmap_sim/iommu_maps and iommu_unmaps count dma_map_sgtable() and
 * dma_unmap_sgtable() calls, for tests. debugfs nvmap_sim/next_short_pages
 * (test only) makes the next buffer a broken exporter's: its dma-buf size
 * and vmap that many pages shorter than its pages and DMA table.
 * debugfs nvmap_sim/next_iomem (test only) makes the next buffer's vmap
 * say I/O memory, as an exporter of a device's memory does (its pages are
 * still RAM: an importer that refuses such a mapping never touches them).
 */
#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include <uapi/linux/dma-heap.h>

#define CREATE_TRACE_POINTS
#include "nvmap_sim_trace.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 18, 0)
#define iosys_map dma_buf_map
#define iosys_map_set_vaddr dma_buf_map_set_vaddr
#define iosys_map_set_vaddr_iomem dma_buf_map_set_vaddr_iomem
#endif

/* The name nvmap gives its buffers (fdinfo exp_name, bufinfo exporter). */
static const char nvmap_sim_exp_name[] = "nvmap_dmabuf";
/* The client every trace event names: read-only data of this module. */
static const char nvmap_sim_client[] = "nvmap-sim";

static atomic_t nvmap_sim_iommu_maps = ATOMIC_INIT(0);
static atomic_t nvmap_sim_iommu_unmaps = ATOMIC_INIT(0);
static struct dentry *nvmap_sim_debugfs;
/* Test only: pages the next buffer's size and vmap leave out of its table. */
static u32 nvmap_sim_next_short;
/* Test only: the next buffer's vmap says I/O memory (a device's memory would). */
static bool nvmap_sim_next_iomem;

/**
 * struct nvmap_handle - one buffer (named after nvmap's handle, which the
 * make/release events print)
 * @dmabuf:      the exported buffer.
 * @pages:       @npages order-0 pages.
 * @npages:      pages of the buffer.
 * @lock:        protects @stash, @vaddr and @vmap_count.
 * @stash:       struct nvmap_sim_stash entries, one per (device, direction).
 * @vaddr:       kernel mapping while @vmap_count > 0.
 * @vmap_count:  vmap() calls not yet undone.
 * @iomem:       vmap() hands out @vaddr as I/O memory (next_iomem).
 */
struct nvmap_handle {
	struct dma_buf *dmabuf;
	struct page **pages;
	unsigned int npages;
	struct mutex lock;
	struct list_head stash;
	void *vaddr;
	unsigned int vmap_count;
	bool iomem;
};

/**
 * struct nvmap_sim_stash - a buffer's mapping for one device and direction
 * @node: in nvmap_handle.stash.
 * @dev:  the device (a reference is held until the buffer's release).
 * @dir:  the direction of the mapping.
 * @sgt:  the table mapped with dma_map_sgtable().
 * @pins: map_dma_buf calls not yet unmapped.
 */
struct nvmap_sim_stash {
	struct list_head node;
	struct device *dev;
	enum dma_data_direction dir;
	struct sg_table sgt;
	unsigned int pins;
};

static struct nvmap_sim_stash *stash_find(struct nvmap_handle *h,
					  struct device *dev,
					  enum dma_data_direction dir)
{
	struct nvmap_sim_stash *s;

	lockdep_assert_held(&h->lock);
	list_for_each_entry(s, &h->stash, node)
		if (s->dev == dev && s->dir == dir)
			return s;
	return NULL;
}

/* The buffer's first map for @dev and @dir: the real (IOMMU) mapping. */
static struct nvmap_sim_stash *stash_add(struct nvmap_handle *h,
					 struct device *dev,
					 enum dma_data_direction dir)
{
	struct nvmap_sim_stash *s;
	int ret;

	lockdep_assert_held(&h->lock);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages(&s->sgt, h->pages, h->npages, 0,
					(size_t)h->npages << PAGE_SHIFT,
					GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = dma_map_sgtable(dev, &s->sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret)
		goto err_free_table;
	atomic_inc(&nvmap_sim_iommu_maps);
	s->dev = get_device(dev);
	s->dir = dir;
	list_add_tail(&s->node, &h->stash);
	return s;

err_free_table:
	sg_free_table(&s->sgt);
err_free:
	kfree(s);
	return ERR_PTR(ret);
}

/* At release: the IOMMU unmap the stash deferred. */
static void stash_remove(struct nvmap_sim_stash *s)
{
	WARN_ON(s->pins);
	list_del(&s->node);
	dma_unmap_sgtable(s->dev, &s->sgt, s->dir, DMA_ATTR_SKIP_CPU_SYNC);
	atomic_inc(&nvmap_sim_iommu_unmaps);
	put_device(s->dev);
	sg_free_table(&s->sgt);
	kfree(s);
}

/*
 * An attachment's own copy of a stashed table (pages and DMA addresses), so
 * that what the dma-buf core does to a returned table never reaches another
 * attachment's.
 */
static struct sg_table *sgt_copy(const struct sg_table *src)
{
	struct scatterlist *from, *to;
	struct sg_table *sgt;
	unsigned int i;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	if (sg_alloc_table(sgt, src->orig_nents, GFP_KERNEL)) {
		kfree(sgt);
		return ERR_PTR(-ENOMEM);
	}
	to = sgt->sgl;
	for_each_sgtable_sg(src, from, i) {
		sg_set_page(to, sg_page(from), from->length, from->offset);
		to = sg_next(to);
	}
	to = sgt->sgl;
	for_each_sgtable_dma_sg(src, from, i) {
		sg_dma_address(to) = sg_dma_address(from);
		sg_dma_len(to) = sg_dma_len(from);
		to = sg_next(to);
	}
	sgt->nents = src->nents;
	return sgt;
}

static void sgt_free(struct sg_table *sgt)
{
	sg_free_table(sgt);
	kfree(sgt);
}

static int nvmap_sim_attach(struct dma_buf *dmabuf,
			    struct dma_buf_attachment *attach)
{
	trace_nvmap_dmabuf_attach(dmabuf, attach->dev);
	return 0;
}

static void nvmap_sim_detach(struct dma_buf *dmabuf,
			     struct dma_buf_attachment *attach)
{
	trace_nvmap_dmabuf_detach(dmabuf, attach->dev);
}

static struct sg_table *nvmap_sim_map(struct dma_buf_attachment *attach,
				      enum dma_data_direction dir)
{
	struct nvmap_handle *h = attach->dmabuf->priv;
	struct nvmap_sim_stash *s;
	struct sg_table *sgt;

	trace_nvmap_dmabuf_map_dma_buf(attach->dmabuf, attach->dev);
	mutex_lock(&h->lock);
	s = stash_find(h, attach->dev, dir);
	if (!s)
		s = stash_add(h, attach->dev, dir);
	if (IS_ERR(s)) {
		sgt = ERR_CAST(s);
		goto out;
	}
	sgt = sgt_copy(&s->sgt);
	if (!IS_ERR(sgt))
		s->pins++;
out:
	mutex_unlock(&h->lock);
	return sgt;
}

/* Drops a pin; the mapping stays stashed until the buffer's release. */
static void nvmap_sim_unmap(struct dma_buf_attachment *attach,
			    struct sg_table *sgt, enum dma_data_direction dir)
{
	struct nvmap_handle *h = attach->dmabuf->priv;
	struct nvmap_sim_stash *s;

	trace_nvmap_dmabuf_unmap_dma_buf(attach->dmabuf, attach->dev);
	mutex_lock(&h->lock);
	s = stash_find(h, attach->dev, dir);
	if (!WARN_ON(!s || !s->pins))
		s->pins--;
	mutex_unlock(&h->lock);
	sgt_free(sgt);
}

static void handle_free(struct nvmap_handle *h)
{
	unsigned int i;

	for (i = 0; i < h->npages; i++)
		if (h->pages[i])
			__free_page(h->pages[i]);
	kvfree(h->pages);
	mutex_destroy(&h->lock);
	kfree(h);
}

static void nvmap_sim_release(struct dma_buf *dmabuf)
{
	struct nvmap_handle *h = dmabuf->priv;
	struct nvmap_sim_stash *s, *tmp;

	trace_nvmap_dmabuf_release(nvmap_sim_client, h, dmabuf);
	/* the last reference is gone: nobody else can take the lock */
	list_for_each_entry_safe(s, tmp, &h->stash, node)
		stash_remove(s);
	WARN_ON(h->vmap_count);
	handle_free(h);
}

/* The stashed mappings skip the CPU sync: CPU access does it, as nvmap's cache maintenance. */
static int nvmap_sim_begin_cpu_access(struct dma_buf *dmabuf,
				      enum dma_data_direction dir)
{
	struct nvmap_handle *h = dmabuf->priv;
	struct nvmap_sim_stash *s;

	trace_nvmap_dmabuf_begin_cpu_access(dmabuf, 0, dmabuf->size);
	mutex_lock(&h->lock);
	if (h->vaddr)
		invalidate_kernel_vmap_range(h->vaddr, dmabuf->size);
	list_for_each_entry(s, &h->stash, node)
		dma_sync_sgtable_for_cpu(s->dev, &s->sgt, s->dir);
	mutex_unlock(&h->lock);
	return 0;
}

static int nvmap_sim_end_cpu_access(struct dma_buf *dmabuf,
				    enum dma_data_direction dir)
{
	struct nvmap_handle *h = dmabuf->priv;
	struct nvmap_sim_stash *s;

	trace_nvmap_dmabuf_end_cpu_access(dmabuf, 0, dmabuf->size);
	mutex_lock(&h->lock);
	if (h->vaddr)
		flush_kernel_vmap_range(h->vaddr, dmabuf->size);
	list_for_each_entry(s, &h->stash, node)
		dma_sync_sgtable_for_device(s->dev, &s->sgt, s->dir);
	mutex_unlock(&h->lock);
	return 0;
}

static int nvmap_sim_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct nvmap_handle *h = dmabuf->priv;

	trace_nvmap_dmabuf_mmap(dmabuf);
	return vm_map_pages(vma, h->pages, h->npages);
}

static int nvmap_sim_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct nvmap_handle *h = dmabuf->priv;
	int ret = 0;

	trace_nvmap_dmabuf_vmap(dmabuf);
	mutex_lock(&h->lock);
	if (!h->vmap_count) {
		/* the size's pages: fewer than the table's after next_short_pages */
		h->vaddr = vmap(h->pages, dmabuf->size >> PAGE_SHIFT, VM_MAP, PAGE_KERNEL);
		if (!h->vaddr)
			ret = -ENOMEM;
	}
	if (!ret) {
		h->vmap_count++;
		if (h->iomem)
			iosys_map_set_vaddr_iomem(map, (void __iomem *)h->vaddr);
		else
			iosys_map_set_vaddr(map, h->vaddr);
	}
	mutex_unlock(&h->lock);
	return ret;
}

static void nvmap_sim_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct nvmap_handle *h = dmabuf->priv;

	trace_nvmap_dmabuf_vunmap(dmabuf);
	mutex_lock(&h->lock);
	if (!WARN_ON(!h->vmap_count) && !--h->vmap_count) {
		vunmap(h->vaddr);
		h->vaddr = NULL;
	}
	mutex_unlock(&h->lock);
}

static const struct dma_buf_ops nvmap_sim_dmabuf_ops = {
	/* the dma-buf core maps an attachment once, as for nvmap (removed in 6.16) */
	.cache_sgt_mapping = true,
	.attach = nvmap_sim_attach,
	.detach = nvmap_sim_detach,
	.map_dma_buf = nvmap_sim_map,
	.unmap_dma_buf = nvmap_sim_unmap,
	.release = nvmap_sim_release,
	.begin_cpu_access = nvmap_sim_begin_cpu_access,
	.end_cpu_access = nvmap_sim_end_cpu_access,
	.mmap = nvmap_sim_mmap,
	.vmap = nvmap_sim_vmap,
	.vunmap = nvmap_sim_vunmap,
};

/*
 * One physically contiguous run for the whole buffer when the page allocator
 * has it (up to NVMAP_SIM_MAX_ORDER): a contiguous importer (vivid's
 * dma-contig, in the rig) can then attach it. Split into order-0 pages, so the
 * buffer is handled alike either way. false when there is no such run.
 */
#define NVMAP_SIM_MAX_ORDER 8

static bool pages_contiguous(struct nvmap_handle *h)
{
	unsigned int order = get_order((size_t)h->npages << PAGE_SHIFT), i;
	struct page *page;

	if (order > NVMAP_SIM_MAX_ORDER)
		return false;
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, order);
	if (!page)
		return false;
	split_page(page, order);
	for (i = 0; i < (1U << order); i++) {
		if (i < h->npages)
			h->pages[i] = page + i;
		else
			__free_page(page + i);
	}
	return true;
}

static struct nvmap_handle *handle_alloc(size_t len)
{
	struct nvmap_handle *h;
	unsigned int i;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return NULL;
	mutex_init(&h->lock);
	INIT_LIST_HEAD(&h->stash);
	h->npages = len >> PAGE_SHIFT;
	h->pages = kvcalloc(h->npages, sizeof(*h->pages), GFP_KERNEL);
	if (!h->pages)
		goto err_free;
	if (pages_contiguous(h))
		return h;
	for (i = 0; i < h->npages; i++) {
		h->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!h->pages[i])
			goto err_free;
	}
	return h;

err_free:
	handle_free(h);
	return NULL;
}

/* A new buffer of @len bytes as a dma-buf fd with @fd_flags, or -errno. */
static int nvmap_sim_alloc(size_t len, u32 fd_flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	size_t short_len = (size_t)xchg(&nvmap_sim_next_short, 0) << PAGE_SHIFT;
	struct nvmap_handle *h;
	struct dma_buf *dmabuf;
	int fd;

	if (short_len >= len)
		return -EINVAL;
	h = handle_alloc(len);
	if (!h)
		return -ENOMEM;
	h->iomem = xchg(&nvmap_sim_next_iomem, false);
	exp.exp_name = nvmap_sim_exp_name;
	exp.owner = THIS_MODULE;
	exp.ops = &nvmap_sim_dmabuf_ops;
	exp.size = len - short_len;
	exp.flags = fd_flags;
	exp.priv = h;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		handle_free(h);
		return PTR_ERR(dmabuf);
	}
	h->dmabuf = dmabuf;
	trace_nvmap_make_dmabuf(nvmap_sim_client, h, dmabuf);
	fd = dma_buf_fd(dmabuf, fd_flags);
	if (fd < 0)
		dma_buf_put(dmabuf); /* releases h */
	return fd;
}

#define NVMAP_SIM_FD_FLAGS (O_CLOEXEC | O_ACCMODE)

static long nvmap_sim_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct dma_heap_allocation_data data;
	void __user *uarg = (void __user *)arg;
	int fd;

	if (cmd != DMA_HEAP_IOCTL_ALLOC)
		return -ENOTTY;
	if (copy_from_user(&data, uarg, sizeof(data)))
		return -EFAULT;
	if (data.fd || data.heap_flags || (data.fd_flags & ~NVMAP_SIM_FD_FLAGS))
		return -EINVAL;
	if (!data.len || data.len > (u64)totalram_pages() << PAGE_SHIFT)
		return -EINVAL;
	fd = nvmap_sim_alloc(PAGE_ALIGN(data.len), data.fd_flags);
	if (fd < 0)
		return fd;
	data.fd = fd;
	if (copy_to_user(uarg, &data, sizeof(data)))
		return -EFAULT; /* the fd stays installed, as dma-heap's does */
	return 0;
}

static const struct file_operations nvmap_sim_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = nvmap_sim_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice nvmap_sim_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nvmap-sim",
	.nodename = "dma_heap/nvmap-sim",
	.fops = &nvmap_sim_fops,
};

/*
 * No exit: buffers and their stashed mappings may outlive any unload
 * attempt, and the trace events' client string must outlive the trace
 * buffer, so the module stays loaded (as a built-in heap would).
 */
static int __init nvmap_sim_init(void)
{
	int ret;

	ret = misc_register(&nvmap_sim_misc);
	if (ret)
		return ret;
	nvmap_sim_debugfs = debugfs_create_dir("nvmap_sim", NULL);
	debugfs_create_atomic_t("iommu_maps", 0444, nvmap_sim_debugfs,
				&nvmap_sim_iommu_maps);
	debugfs_create_atomic_t("iommu_unmaps", 0444, nvmap_sim_debugfs,
				&nvmap_sim_iommu_unmaps);
	debugfs_create_u32("next_short_pages", 0600, nvmap_sim_debugfs,
			   &nvmap_sim_next_short);
	debugfs_create_bool("next_iomem", 0600, nvmap_sim_debugfs,
			    &nvmap_sim_next_iomem);
	return 0;
}
module_init(nvmap_sim_init);

MODULE_DESCRIPTION("nvmap-sim: the VM rig's stand-in for nvmap's dma-buf exporter");
MODULE_LICENSE("GPL");
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
MODULE_IMPORT_NS("DMA_BUF");
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
MODULE_IMPORT_NS(DMA_BUF);
#endif
