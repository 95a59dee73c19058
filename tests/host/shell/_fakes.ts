// Session objects that need no device: a producer and a trace (both duck-typed).
import type { Frame } from "../../../lib/frames/frame.ts";
import type { Producer } from "../../../lib/frames/producers/producer.ts";
import type { Stoppable } from "../../../lib/shell/session.ts";

/** A producer that records what happened to it. */
export class FakeProducer implements Producer {
  readonly name: string;
  readonly log: string[];
  constructor(name: string, log: string[]) {
    this.name = name;
    this.log = log;
  }
  next(): Promise<Frame> {
    return Promise.reject(new Error("FakeProducer has no frames"));
  }
  recycle(): void {}
  close(): void {
    this.log.push(`close ${this.name}`);
  }
  [Symbol.dispose](): void {
    this.close();
  }
}

/** A trace that records its stop. */
export class FakeTrace implements Stoppable {
  readonly description = "fake trace";
  stopped = false;
  readonly log: string[];
  constructor(log: string[]) {
    this.log = log;
  }
  stop(): Promise<void> {
    this.stopped = true;
    this.log.push("stop trace");
    return Promise.resolve();
  }
}
