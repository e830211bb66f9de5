// A heap snapshot's bytes split into the program's data and V8's own objects: compiled code,
// bytecode, feedback vectors, deopt data (type "code") and object shapes (maps, descriptor
// arrays). The latter grow as V8 optimises functions, not with what the program holds.
import { readFileSync, rmSync } from "node:fs";

export function heapParts(file) {
  const s = JSON.parse(readFileSync(file, "utf8"));
  rmSync(file, { force: true });
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const n = fields.length;
  const ti = fields.indexOf("type");
  const si = fields.indexOf("self_size");
  let data = 0;
  let v8own = 0;
  for (let i = 0; i < s.nodes.length; i += n) {
    const t = types[s.nodes[i + ti]];
    if (t === "code" || t === "object shape") v8own += s.nodes[i + si];
    else data += s.nodes[i + si];
  }
  return { data, v8own };
}
