// SPDX-License-Identifier: GPL-2.0
/* AXL_HAVE_HRTIMER_SETUP: hrtimer_setup() exists. */
#include <linux/hrtimer.h>

static inline void axl_conftest(struct hrtimer *t,
				enum hrtimer_restart (*fn)(struct hrtimer *))
{
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
}
