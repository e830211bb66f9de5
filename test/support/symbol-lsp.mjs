#!/usr/bin/env node
/**
 * A small real language server for the tests (stdio, LSP framing): it answers workspace/symbol
 * with the Lua functions (`function NAME(` … the `end` at the same indent) of the files under
 * its root whose names contain the query. Nothing else is served.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

let root = process.cwd();
let buf = Buffer.alloc(0);

function send(msg) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...msg }));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...files(p));
    else if (name.endsWith(".lua")) out.push(p);
  }
  return out;
}

function symbols(query) {
  const out = [];
  for (const f of files(root)) {
    const lines = readFileSync(f, "utf8").split("\n");
    lines.forEach((l, i) => {
      const m = /^(\s*)(?:local\s+)?function\s+([\w.:]+)\s*\(/.exec(l);
      if (!m?.[2].toLowerCase().includes(query.toLowerCase())) return;
      let end = i;
      for (let j = i + 1; j < lines.length; j++)
        if (lines[j] === `${m[1]}end`) {
          end = j;
          break;
        }
      out.push({
        name: m[2],
        kind: 12,
        location: {
          uri: pathToFileURL(f).href,
          range: { start: { line: i, character: m[1].length }, end: { line: end, character: m[1].length + 3 } },
        },
      });
    });
  }
  return out;
}

function handle(msg) {
  if (msg.method === "initialize") {
    if (msg.params.rootUri) root = fileURLToPath(msg.params.rootUri);
    send({
      id: msg.id,
      result: { capabilities: { workspaceSymbolProvider: true }, serverInfo: { name: "symbol-lsp" } },
    });
  } else if (msg.method === "workspace/symbol") send({ id: msg.id, result: symbols(msg.params.query ?? "") });
  else if (msg.method === "shutdown") send({ id: msg.id, result: null });
  else if (msg.method === "exit") process.exit(0);
  else if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: `${msg.method} is not served` } });
}

process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const head = buf.indexOf("\r\n\r\n");
    if (head < 0) return;
    const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())?.[1]);
    if (buf.length < head + 4 + len) return;
    const body = buf.subarray(head + 4, head + 4 + len).toString();
    buf = buf.subarray(head + 4 + len);
    handle(JSON.parse(body));
  }
});
