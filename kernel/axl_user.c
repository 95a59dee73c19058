// SPDX-License-Identifier: GPL-2.0
/*
 * axl: the users the driver keeps accounts for.
 *
 * A user is the real uid of the caller, taken in the initial user
 * namespace; a caller in a user namespace is the user who owns it (the
 * owner of its outermost ancestor below the initial one), so a range of
 * subordinate uids mapped into namespaces (newuidmap) is one user, not one
 * per uid. The kernel's own per-namespace counts (ucounts) are not
 * exported to modules, hence the owner. What a user holds through all its open files is counted in
 * one struct axl_user: the bytes its buffers pin (axl_pin.c) and the
 * timeouts of its jobs in flight (axl_share.c). Each thing counted holds a
 * reference; the last one frees the entry.
 */
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <linux/xarray.h>

#include "axl_drv.h"

/* uid (in the initial namespace) -> struct axl_user, under axl_users_lock */
static DEFINE_XARRAY(axl_users);
static DEFINE_MUTEX(axl_users_lock);

/*
 * The uid, in the initial namespace, of the account the caller is charged
 * to: its real uid there, or the owner of the namespace it descends from.
 * Namespaces only nest below their creator's, and an owner is fixed at
 * creation, so no uid a namespace maps can be charged on its own.
 */
static unsigned long axl_user_uid(void)
{
	const struct user_namespace *ns = current_user_ns();

	if (ns == &init_user_ns)
		return from_kuid(&init_user_ns, current_uid());
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return from_kuid(&init_user_ns, ns->owner);
}

/**
 * axl_user_get() - the account of the calling user
 *
 * Takes no other lock inside axl_users_lock; may allocate.
 *
 * Return: the account, with a reference for the caller; NULL when out of
 * memory.
 */
struct axl_user *axl_user_get(void)
{
	unsigned long uid = axl_user_uid();
	struct axl_user *user;

	mutex_lock(&axl_users_lock);
	user = xa_load(&axl_users, uid);
	if (user) {
		refcount_inc(&user->ref);
		goto out;
	}
	user = AXL_FAULT_NULL("user.alloc", kzalloc(sizeof(*user), GFP_KERNEL));
	if (!user)
		goto out;
	user->uid = uid;
	refcount_set(&user->ref, 1);
	atomic64_set(&user->pinned, 0);
	atomic64_set(&user->queued_ns, 0);
	if (AXL_FAULT_INT("user.xa_store", -ENOMEM,
			  xa_err(xa_store(&axl_users, uid, user, GFP_KERNEL)))) {
		kfree(user);
		user = NULL;
		goto out;
	}
	atomic64_inc(&axl_stats.users);
out:
	mutex_unlock(&axl_users_lock);
	return user;
}

/**
 * axl_user_put() - drop a reference from axl_user_get()
 * @user: the account; freed with its last reference. May sleep.
 */
void axl_user_put(struct axl_user *user)
{
	mutex_lock(&axl_users_lock);
	if (refcount_dec_and_test(&user->ref)) {
		xa_erase(&axl_users, user->uid);
		kfree(user);
		atomic64_dec(&axl_stats.users);
	}
	mutex_unlock(&axl_users_lock);
}
