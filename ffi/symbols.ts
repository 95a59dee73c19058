/**
 * The symbol table of `libaxl_shim.so` for `Deno.dlopen`. Each entry carries
 * the C prototype from `ffi/src/axl_shim.h`. Every function returns a value
 * >= 0 on success or -errno; 64-bit values are bigints.
 *
 * @module
 */

/** The shim's exported functions, as Deno FFI declarations. */
export const symbols = {
  // int32_t axl_shim_api_version(void);
  axl_shim_api_version: { parameters: [], result: "i32" },
  // int32_t axl_shim_abi_version(void);
  axl_shim_abi_version: { parameters: [], result: "i32" },
  // int64_t axl_shim_const(const char *name);
  axl_shim_const: { parameters: ["buffer"], result: "i64" },
  // const char *axl_shim_errno_name(int32_t err);
  axl_shim_errno_name: { parameters: ["i32"], result: "pointer" },

  // int32_t axl_shim_open(const char *path, int32_t flags);
  axl_shim_open: { parameters: ["buffer", "i32"], result: "i32" },
  // int32_t axl_shim_close(int32_t fd);
  axl_shim_close: { parameters: ["i32"], result: "i32" },
  // int32_t axl_shim_dup(int32_t fd);
  axl_shim_dup: { parameters: ["i32"], result: "i32" },
  // int32_t axl_shim_fstat(int32_t fd, uint64_t *out);
  axl_shim_fstat: { parameters: ["i32", "buffer"], result: "i32" },
  // int64_t axl_shim_ioctl(int32_t fd, uint64_t request, void *arg);
  axl_shim_ioctl: { parameters: ["i32", "u64", "buffer"], result: "i64" },
  // int64_t axl_shim_clock_ns(int32_t clock_id);
  axl_shim_clock_ns: { parameters: ["i32"], result: "i64" },

  // int32_t axl_shim_mmap(int32_t fd, uint64_t len, int32_t prot, uint64_t offset, uint64_t *addr_out);
  axl_shim_mmap: { parameters: ["i32", "u64", "i32", "u64", "buffer"], result: "i32" },
  // int32_t axl_shim_munmap(uint64_t addr, uint64_t len);
  axl_shim_munmap: { parameters: ["u64", "u64"], result: "i32" },
  // int32_t axl_shim_memcpy(uint64_t dst, uint64_t src, uint64_t len);
  axl_shim_memcpy: { parameters: ["u64", "u64", "u64"], result: "i32" },

  // int32_t axl_shim_heap_alloc(const char *heap, uint64_t len, uint32_t fd_flags, uint64_t heap_flags);
  axl_shim_heap_alloc: { parameters: ["buffer", "u64", "u32", "u64"], result: "i32" },
  // int32_t axl_shim_dmabuf_sync(int32_t fd, uint64_t flags);
  axl_shim_dmabuf_sync: { parameters: ["i32", "u64"], result: "i32" },
  // int32_t axl_shim_dmabuf_set_name(int32_t fd, const char *name);
  axl_shim_dmabuf_set_name: { parameters: ["i32", "buffer"], result: "i32" },

  // int32_t axl_shim_poll_in(int32_t fd, int32_t timeout_ms);
  axl_shim_poll_in: { parameters: ["i32", "i32"], result: "i32" },
  // The same function on a worker thread, for awaiting without blocking the event loop.
  axl_shim_poll_in_async: {
    name: "axl_shim_poll_in",
    parameters: ["i32", "i32"],
    result: "i32",
    nonblocking: true,
  },
  // int32_t axl_shim_fence_info(int32_t fd, int64_t *out, char *name, uint64_t name_len);
  axl_shim_fence_info: { parameters: ["i32", "buffer", "buffer", "u64"], result: "i32" },

  // int32_t axl_shim_dev_info(int32_t dev, uint64_t *nums, char *strings, uint64_t strings_len);
  axl_shim_dev_info: { parameters: ["i32", "buffer", "buffer", "u64"], result: "i32" },
  // int32_t axl_shim_dev_import(int32_t dev, int32_t buf_fd, uint32_t width, uint32_t height,
  //                             uint32_t pixfmt, uint32_t stride, uint32_t flags, uint64_t *out);
  axl_shim_dev_import: {
    parameters: ["i32", "i32", "u32", "u32", "u32", "u32", "u32", "buffer"],
    result: "i32",
  },
  // int32_t axl_shim_dev_import2(int32_t dev, int32_t buf_fd, uint32_t width, uint32_t height,
  //                              uint32_t pixfmt, uint32_t flags, uint64_t modifier,
  //                              uint32_t nplanes, const uint64_t *planes, uint64_t *out);
  axl_shim_dev_import2: {
    parameters: ["i32", "i32", "u32", "u32", "u32", "u32", "u64", "u32", "buffer", "buffer"],
    result: "i32",
  },
  // int32_t axl_shim_dev_submit(int32_t dev, uint32_t handle, int32_t input_fd,
  //                             int32_t result_fd, uint32_t model_id, uint32_t timeout_us,
  //                             uint32_t flags, uint64_t *out);
  axl_shim_dev_submit: {
    parameters: ["i32", "u32", "i32", "i32", "u32", "u32", "u32", "buffer"],
    result: "i32",
  },
  // int32_t axl_shim_dev_release(int32_t dev, uint32_t handle);
  axl_shim_dev_release: { parameters: ["i32", "u32"], result: "i32" },
  // int32_t axl_shim_result_decode(uint64_t addr, uint64_t len, int64_t *nums, uint32_t *histogram);
  axl_shim_result_decode: { parameters: ["u64", "u64", "buffer", "buffer"], result: "i32" },
  // int32_t axl_shim_fence_wait_info(int32_t fd, int32_t timeout_ms, int64_t *out, char *name,
  //                                  uint64_t name_len);
  axl_shim_fence_wait_info: {
    parameters: ["i32", "i32", "buffer", "buffer", "u64"],
    result: "i32",
  },
  // int32_t axl_shim_result_read(int32_t buf_fd, uint64_t addr, uint64_t len, int64_t *nums,
  //                              uint32_t *histogram);
  axl_shim_result_read: { parameters: ["i32", "u64", "u64", "buffer", "buffer"], result: "i32" },
  // int32_t axl_shim_frame_import(struct axl_shim_frame_args *a);
  axl_shim_frame_import: { parameters: ["buffer"], result: "i32" },
  // int32_t axl_shim_frame_submit(struct axl_shim_frame_args *a);
  axl_shim_frame_submit: { parameters: ["buffer"], result: "i32" },
  // int32_t axl_shim_dev_import_submit(struct axl_shim_frame_args *a);
  axl_shim_dev_import_submit: { parameters: ["buffer"], result: "i32" },
  // int32_t axl_shim_implicit_sync(void);
  axl_shim_implicit_sync: { parameters: [], result: "i32" },
  // int32_t axl_shim_implicit_sync_probe(int32_t buf_fd);
  axl_shim_implicit_sync_probe: { parameters: ["i32"], result: "i32" },
  // int32_t axl_shim_fence_close_release(int32_t fence_fd, int32_t dev, uint32_t handle);
  axl_shim_fence_close_release: { parameters: ["i32", "i32", "u32"], result: "i32" },

  // int32_t axl_shim_metis_attach(int32_t dev, int32_t buf_fd);
  axl_shim_metis_attach: { parameters: ["i32", "i32"], result: "i32" },
  // int32_t axl_shim_metis_detach(int32_t dev);
  axl_shim_metis_detach: { parameters: ["i32"], result: "i32" },
  // int32_t axl_shim_metis_xfer(int32_t dev, uint64_t phy, uint64_t size, uint32_t offset,
  //                             int32_t flags, int32_t channel);
  axl_shim_metis_xfer: { parameters: ["i32", "u64", "u64", "u32", "i32", "i32"], result: "i32" },
  // The same call on a worker thread: a SYNC transfer awaited without blocking the event loop.
  axl_shim_metis_xfer_async: {
    name: "axl_shim_metis_xfer",
    parameters: ["i32", "u64", "u64", "u32", "i32", "i32"],
    result: "i32",
    nonblocking: true,
  },
  // int32_t axl_shim_metis_xfer_status(int32_t dev);
  axl_shim_metis_xfer_status: { parameters: ["i32"], result: "i32" },
  // int32_t axl_shim_metis_clear_event(int32_t dev);
  axl_shim_metis_clear_event: { parameters: ["i32"], result: "i32" },
  // int32_t axl_shim_metis_property(int32_t dev, uint64_t id, uint64_t *out);
  axl_shim_metis_property: { parameters: ["i32", "u64", "buffer"], result: "i32" },
  // int32_t axl_shim_metis_resources(int32_t dev, uint64_t *out);
  axl_shim_metis_resources: { parameters: ["i32", "buffer"], result: "i32" },
  // int32_t axl_shim_metis_dma_stats(int32_t dev, uint64_t *out);
  axl_shim_metis_dma_stats: { parameters: ["i32", "buffer"], result: "i32" },

  // int32_t axl_shim_v4l2_querycap(int32_t fd, uint32_t *caps, char *strings, uint64_t strings_len);
  axl_shim_v4l2_querycap: { parameters: ["i32", "buffer", "buffer", "u64"], result: "i32" },
  // int32_t axl_shim_v4l2_set_format(int32_t fd, uint32_t width, uint32_t height, uint32_t fourcc,
  //                                  uint32_t *out);
  axl_shim_v4l2_set_format: { parameters: ["i32", "u32", "u32", "u32", "buffer"], result: "i32" },
  // int32_t axl_shim_v4l2_set_interval(int32_t fd, uint32_t num, uint32_t den, uint32_t *out);
  axl_shim_v4l2_set_interval: { parameters: ["i32", "u32", "u32", "buffer"], result: "i32" },
  // int32_t axl_shim_v4l2_reqbufs(int32_t fd, uint32_t count);
  axl_shim_v4l2_reqbufs: { parameters: ["i32", "u32"], result: "i32" },
  // int32_t axl_shim_v4l2_qbuf(int32_t fd, uint32_t index, int32_t dmabuf_fd, uint32_t length);
  axl_shim_v4l2_qbuf: { parameters: ["i32", "u32", "i32", "u32"], result: "i32" },
  // int32_t axl_shim_v4l2_dqbuf(int32_t fd, uint64_t *out);
  axl_shim_v4l2_dqbuf: { parameters: ["i32", "buffer"], result: "i32" },
  // int32_t axl_shim_v4l2_stream(int32_t fd, int32_t on);
  axl_shim_v4l2_stream: { parameters: ["i32", "i32"], result: "i32" },

  // int32_t axl_shim_argus_available(void);
  axl_shim_argus_available: { parameters: [], result: "i32" },
  // int32_t axl_shim_argus_open(uint32_t sensor, uint32_t width, uint32_t height);
  axl_shim_argus_open: { parameters: ["u32", "u32", "u32"], result: "i32" },
  // int32_t axl_shim_argus_acquire_fd(int32_t session, int32_t timeout_ms, uint64_t *out);
  axl_shim_argus_acquire_fd: { parameters: ["i32", "i32", "buffer"], result: "i32" },
  // int32_t axl_shim_argus_release(int32_t session, uint32_t slot);
  axl_shim_argus_release: { parameters: ["i32", "u32"], result: "i32" },
  // int32_t axl_shim_argus_close(int32_t session);
  axl_shim_argus_close: { parameters: ["i32"], result: "i32" },

  // int32_t axl_trace_scan_state_bytes(void);
  axl_trace_scan_state_bytes: { parameters: [], result: "i32" },
  // int32_t axl_trace_scan(uint8_t *state, const uint8_t *text, uint32_t len, double *out, uint32_t out_len);
  axl_trace_scan: { parameters: ["buffer", "buffer", "u32", "buffer", "u32"], result: "i32" },
  // int32_t axl_trace_join_start(uint8_t *state, double list_limit, double window);
  axl_trace_join_start: { parameters: ["buffer", "f64", "f64"], result: "i32" },
  // int32_t axl_trace_join_add(uint8_t *state, int32_t kind, const double *args, const uint8_t *text, uint32_t len);
  axl_trace_join_add: {
    parameters: ["buffer", "i32", "buffer", "buffer", "u32"],
    result: "i32",
  },
  // int32_t axl_trace_join_summary(uint8_t *state, double *out, uint32_t out_len);
  axl_trace_join_summary: { parameters: ["buffer", "buffer", "u32"], result: "i32" },
  // int32_t axl_trace_join_read(uint8_t *state, int32_t what, double *out, uint32_t out_len);
  axl_trace_join_read: { parameters: ["buffer", "i32", "buffer", "u32"], result: "i32" },
  // int32_t axl_trace_join_string(uint8_t *state, int32_t id, uint8_t *out, uint32_t out_len);
  axl_trace_join_string: { parameters: ["buffer", "i32", "buffer", "u32"], result: "i32" },
  // int32_t axl_trace_join_count_only(uint8_t *state, int32_t num);
  axl_trace_join_count_only: { parameters: ["buffer", "i32"], result: "i32" },
  // void axl_trace_join_stop(uint8_t *state);
  axl_trace_join_stop: { parameters: ["buffer"], result: "void" },
} as const satisfies Deno.ForeignLibraryInterface;

/** The loaded shim's functions. */
export type ShimSymbols = Deno.DynamicLibrary<typeof symbols>["symbols"];
