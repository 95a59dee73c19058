/**
 * Frame producers behind one interface: {@linkcode HeapProducer} (test patterns),
 * {@linkcode V4l2Producer} (V4L2 cameras, DMABUF memory) and {@linkcode ArgusProducer}
 * (Jetson cameras).
 *
 * @module
 */
export type { Producer } from "./producer.ts";
export { fillPattern, HeapProducer } from "./heap_producer.ts";
export type { HeapProducerOptions } from "./heap_producer.ts";
export { listCaptureDevices, V4l2Producer } from "./v4l2_producer.ts";
export type { V4l2DeviceInfo, V4l2ProducerOptions } from "./v4l2_producer.ts";
export { ArgusProducer } from "./argus_producer.ts";
export type { ArgusProducerOptions } from "./argus_producer.ts";
