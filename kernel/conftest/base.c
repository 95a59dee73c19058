// SPDX-License-Identifier: GPL-2.0
/* Must compile: if it does not, the probe flags are wrong, not the kernel. */
#include <linux/module.h>

static inline int axl_conftest_base(void)
{
	return 0;
}
