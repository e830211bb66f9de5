/**
 * Validates messages against the official ACP JSON schema shipped in @agentclientprotocol/sdk.
 * Used on everything the client sent in a test (the fake agent records it).
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { readFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const SCHEMA = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
const UNSTABLE = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.unstable.json");
const schema = require(SCHEMA) as {
  $defs: Record<string, { "x-method"?: string; "x-side"?: string }>;
};

/** method -> $defs name of what the client sends for it (request/notification params, or response). */
const clientSends = new Map<string, { params?: string; result?: string }>();
for (const [name, def] of Object.entries(schema.$defs)) {
  const method = def["x-method"];
  if (!method) continue;
  const entry = clientSends.get(method) ?? {};
  if (def["x-side"] === "agent" && (name.endsWith("Request") || name.endsWith("Notification"))) entry.params = name;
  if (def["x-side"] === "protocol" && name.endsWith("Notification")) entry.params = name;
  if (def["x-side"] === "client" && name.endsWith("Response")) entry.result = name;
  clientSends.set(method, entry);
}

/*
 * Methods only the unstable schema has (session/fork, session/set_title: option `unstable`) are
 * checked against schema.unstable.json, shipped in the same package.
 */
const unstableSchema = require(UNSTABLE) as {
  $defs: Record<string, { "x-method"?: string; "x-side"?: string }>;
};
const unstableSends = new Map<string, { params?: string; result?: string }>();
for (const [name, def] of Object.entries(unstableSchema.$defs)) {
  const method = def["x-method"];
  if (!method || clientSends.has(method)) continue;
  const entry = unstableSends.get(method) ?? {};
  if (def["x-side"] === "agent" && (name.endsWith("Request") || name.endsWith("Notification"))) entry.params = name;
  if (def["x-side"] === "client" && name.endsWith("Response")) entry.result = name;
  unstableSends.set(method, entry);
}

type Validate = ((value: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

/**
 * The validators of every def above, compiled by Ajv once for all test files: compiling the
 * schema took about 1 s of CPU in each file (most e2e files quit a Neovim with a fake agent and so
 * check its record). Ajv's standalone code is the same compiled code, kept in .cache under a hash
 * of the two schemas and Ajv's version, so a new SDK compiles again.
 */
let compiled: Record<string, Validate> | undefined;
function validators(): Record<string, Validate> {
  if (compiled) return compiled;
  const hash = createHash("sha256");
  for (const f of [SCHEMA, UNSTABLE, require.resolve("ajv/package.json")]) hash.update(readFileSync(f));
  const dir = fileURLToPath(new URL("../../.cache", import.meta.url));
  const file = `${dir}/acp-validators-${hash.digest("hex").slice(0, 16)}.cjs`;
  if (!existsSync(file)) {
    const Ajv2020 = require("ajv/dist/2020.js").default;
    const standaloneCode = require("ajv/dist/standalone").default;
    const ajv = new Ajv2020({ strict: false, allErrors: true, code: { source: true } });
    for (const f of ["uint16", "uint32", "uint64", "int32", "int64", "double", "uri"]) ajv.addFormat(f, true);
    ajv.addSchema(schema, "acp");
    ajv.addSchema(unstableSchema, "acpu");
    const refs: Record<string, string> = {};
    for (const [id, sends] of [
      ["acp", clientSends],
      ["acpu", unstableSends],
    ] as const)
      for (const e of sends.values())
        for (const def of [e.params, e.result]) if (def) refs[`${id}/${def}`] = `${id}#/$defs/${def}`;
    mkdirSync(dir, { recursive: true });
    // Written whole, then renamed: another worker may be writing the same file.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, standaloneCode(ajv, refs));
    renameSync(tmp, file);
  }
  compiled = require(file) as Record<string, Validate>;
  return compiled;
}

/** Ajv's errorsText(), without loading Ajv. */
function errorsText(errors: Validate["errors"]): string {
  return errors?.length ? errors.map((e) => `data${e.instancePath} ${e.message}`).join(", ") : "No errors";
}

/**
 * Methods outside the schema that the client still sends to older agents (gemini-cli answers
 * session/set_model), checked by shape instead.
 */
const LEGACY: Record<string, (params: unknown) => boolean> = {
  "session/set_model": (p) =>
    typeof p === "object" &&
    p !== null &&
    typeof (p as { sessionId?: unknown }).sessionId === "string" &&
    typeof (p as { modelId?: unknown }).modelId === "string",
};

export interface Violation {
  message: unknown;
  errors: string;
}

/**
 * Check client->agent messages. `requestMethods` maps the agent's request ids to methods so the
 * client's responses can be checked against the right response schema.
 */
export function validateClientMessages(
  messages: Record<string, unknown>[],
  requestMethods: Map<unknown, string>,
): { checked: number; violations: Violation[]; methods: Set<string> } {
  const violations: Violation[] = [];
  const methods = new Set<string>();
  let checked = 0;
  for (const m of messages) {
    if (m.jsonrpc !== "2.0") {
      violations.push({ message: m, errors: "jsonrpc must be 2.0" });
      continue;
    }
    let def: string | undefined;
    let value: unknown;
    let schemaId = "acp";
    if (typeof m.method === "string") {
      def = clientSends.get(m.method)?.params;
      if (!def && unstableSends.get(m.method)?.params) {
        def = unstableSends.get(m.method)!.params;
        schemaId = "acpu";
      }
      value = m.params;
      methods.add(m.method);
      const legacy = LEGACY[m.method];
      if (!def && legacy) {
        checked++;
        if (!legacy(value)) violations.push({ message: m, errors: `bad params for legacy ${m.method}` });
        continue;
      }
      if (!def) {
        violations.push({ message: m, errors: `no schema for method ${m.method}` });
        continue;
      }
    } else if ("result" in m) {
      const method = requestMethods.get(m.id);
      def = method ? clientSends.get(method)?.result : undefined;
      value = m.result;
      if (method) methods.add(`${method} (response)`);
      if (!def) continue; // a response to something that had no schema (or an unknown request)
    } else {
      const err = m.error as { code?: unknown; message?: unknown } | undefined;
      if (!err || typeof err.code !== "number" || typeof err.message !== "string")
        violations.push({ message: m, errors: "bad error object" });
      checked++;
      continue;
    }
    const validate = validators()[`${schemaId}/${def}`]!;
    checked++;
    if (!validate(value)) violations.push({ message: m, errors: errorsText(validate.errors) });
  }
  return { checked, violations, methods };
}

/** Read a fake agent's record file: what the client sent it, and the ids of the agent's own requests. */
export function readRecord(file: string): { received: Record<string, unknown>[]; sent: Map<unknown, string> } {
  const received: Record<string, unknown>[] = [];
  const sent = new Map<unknown, string>();
  if (!existsSync(file)) return { received, sent };
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const m = JSON.parse(line) as Record<string, unknown> & { $sent?: { id: unknown; method: string } };
    if (m.$sent) sent.set(m.$sent.id, m.$sent.method);
    else received.push(m);
  }
  return { received, sent };
}
