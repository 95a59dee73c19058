// The report's GStreamer section: the pipeline drawn with the breaking element marked.
import assert from "node:assert/strict";
import { pipelineHtml } from "../../../../lib/verify/report/pipeline_html.ts";
import { escapeHtml } from "../../../../lib/verify/report/html.ts";
import { judgePipeline } from "../../../../lib/verify/pipeline.ts";
import { parseGstPads } from "../../../../lib/trace/parse/gst_pads.ts";

Deno.test("pipelineHtml() marks the element where frames leave the camera's dma-buf", () => {
  const s = judgePipeline(parseGstPads([
    "pad pid=1 pad=v4l2src0:src element=v4l2src0 factory=v4l2src peer=videoconvert0:sink",
    "pad pid=1 pad=videoconvert0:src element=videoconvert0 factory=videoconvert peer=kmssink0:sink",
    "dmabuf pid=1 ino=5 exp=videobuf2_dma_contig size=1",
    "buf pid=1 pad=v4l2src0:src n=1 t=1 m=dmabuf:5",
    "buf pid=1 pad=videoconvert0:src n=1 t=2 m=sys:<KMSMemory>",
  ].join("\n")));
  const html = pipelineHtml(s, (x) => `<b>${x}</b>`, escapeHtml);
  assert.match(html, /<h2>GStreamer pipeline <b>FAIL<\/b><\/h2>/);
  assert.match(html, /<pre>v4l2src0 ! \[videoconvert0 ✗ system memory\] ! kmssink0<\/pre>/);
  assert.match(html, /<tr class="broke"><td>✗ <code>videoconvert0:src<\/code>/);
  // Text from the tracer is escaped.
  assert.match(html, /system memory \(&lt;KMSMemory&gt;\)/);
  assert.equal(pipelineHtml(undefined, (x) => x, escapeHtml), "");
});
