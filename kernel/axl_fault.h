/* SPDX-License-Identifier: GPL-2.0 */
/*
 * axl: test-only fault points (axl_fault.c).
 */
#ifndef _AXL_FAULT_H
#define _AXL_FAULT_H

#include <linux/err.h>
#include <linux/jump_label.h>

/*
 * axl_fault.c: test-only fault points (debugfs axl/fault_nth). Every
 * allocation and every kernel call that can fail on the IMPORT, IMPORT_FD2,
 * SUBMIT, Metis ATTACH and XFER paths goes through one of these, named by
 * a site string, with the errno the real call gives when it fails.
 */
struct dentry;
DECLARE_STATIC_KEY_FALSE(axl_fault_key);
int __axl_fault(const char *site, int err);
void axl_fault_debugfs(struct dentry *dir);
void axl_fault_fini(void);

/**
 * axl_fault() - whether the fault point @site fails this time
 * @site: the point's name (a string literal).
 * @err:  the negative errno the real call gives when it fails.
 *
 * Return: 0, or @err when a test armed the points and this hit is the one.
 */
static __always_inline int axl_fault(const char *site, int err)
{
	if (static_branch_unlikely(&axl_fault_key))
		return __axl_fault(site, err);
	return 0;
}

/* @expr, a pointer that is NULL on failure, unless @site fails (-ENOMEM). */
#define AXL_FAULT_NULL(site, expr) \
	(axl_fault(site, -ENOMEM) ? NULL : (expr))

/* @expr, a pointer that is an ERR_PTR() on failure, unless @site fails with @err. */
#define AXL_FAULT_PTR(site, err, expr) ({				\
	int axl_fault_err_ = axl_fault(site, err);			\
	axl_fault_err_ ? ERR_PTR(axl_fault_err_) : (expr);		\
})

/* @expr, an int that is 0 or a negative errno, unless @site fails with @err. */
#define AXL_FAULT_INT(site, err, expr) ({				\
	int axl_fault_err_ = axl_fault(site, err);			\
	axl_fault_err_ ? axl_fault_err_ : (expr);			\
})

#endif /* _AXL_FAULT_H */
