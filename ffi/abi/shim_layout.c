// SPDX-License-Identifier: MIT
/*
 * Emits the layout of the shim's own packed argument block (struct
 * axl_shim_frame_args of axl_shim.h) the way layout.c emits the uapi's:
 * compiled with -S for each target, its "->" lines read by ffi/abi/check.ts's
 * compileLayout() and compared with ffi/frame_args.ts by
 * tests/host/ffi/frame_args.test.ts. Nothing here is executed.
 */
#include <stddef.h>
#include "axl_shim.h"

#define EMIT(name, val) asm volatile("\n.ascii \"->" name " %0\"" : : "i"((unsigned long)(val)))
#define FIELD(f) EMIT(#f, offsetof(struct axl_shim_frame_args, f))

void axl_shim_layout(void);
void axl_shim_layout(void)
{
	EMIT("sizeof", sizeof(struct axl_shim_frame_args));
	EMIT("imp_out slots", AXL_SHIM_IMPORT_OUT_SLOTS);
	EMIT("sub_out slots", AXL_SHIM_SUBMIT_OUT_SLOTS);
	FIELD(dev);
	FIELD(buf_fd);
	FIELD(width);
	FIELD(height);
	FIELD(pixfmt);
	FIELD(stride);
	FIELD(flags);
	FIELD(handle);
	FIELD(result_fd);
	FIELD(model_id);
	FIELD(timeout_us);
	FIELD(submit_flags);
	FIELD(step);
	FIELD(pad);
	FIELD(imp_out);
	FIELD(sub_out);
}
