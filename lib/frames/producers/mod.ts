/**
 * Frame producers behind one interface: {@linkcode HeapProducer} (test patterns),
 * {@linkcode V4l2Producer} (V4L2 cameras, DMABUF memory) and {@linkcode ArgusProducer}
 * (Jetson cameras).
 *
 * @module
 */
export * from "./producer.ts";
export * from "./heap_producer.ts";
export * from "./v4l2_producer.ts";
export * from "./argus_producer.ts";
