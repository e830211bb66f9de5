// The zod layer of ACP's messages, generated from the JSON schema the SDK ships
// (@agentclientprotocol/sdk/schema/v1/schema.json and schema.unstable.json), as the SDK generates
// its own: src/protocol/generated/acp-schema.ts (stable) and acp-schema-unstable.ts (what the
// unstable schema adds). Only the definitions the client parses are written (ROOTS and what they
// refer to). `npm run gen:schemas` writes them; test/unit/schemas-generated.test.ts fails when the
// files on disk are not what this makes of the installed SDK now.
//
// The project's rules, not the SDK's deserializer's:
// - every object is a `z.looseObject`: unknown fields are kept; `_meta` is a record, and one that
//   is not (a string, a list) is dropped rather than failing the message: agents extend `_meta`
//   freely, and a stray one in, say, `agentInfo` must not fail the whole `initialize` (except in
//   what the hot path checks by hand, HOT_PATH below);
// - a field that is not required is `.optional()`, or `.nullish()` where the schema allows null
//   (or says `x-deserialize-default-on-null`, null meaning "not given");
// - a `oneOf` whose variants each fix one property to a constant (`type`, `sessionUpdate`) is a
//   `z.discriminatedUnion`, each variant also exported on its own (`<Name>Variants`);
// - every schema is built on first use (`lazy`, src/protocol/lazy-schema.ts), not when the
//   module loads: the host's start pays for none of them;
// - the SDK's `x-deserialize-default-on-error` (a wrong field silently dropped) is not copied: a
//   wrong field rejects the message, which the client then reports (parseSessionUpdate).
// Policy that differs from the schema (leniencies real agents need) lives in
// src/protocol/schema-overrides.ts: each of its exports replaces a definition (`Name`) or one
// field of one (`Name__field`) here, so that every place using it gets the override.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const OUT = {
  stable: "src/protocol/generated/acp-schema.ts",
  unstable: "src/protocol/generated/acp-schema-unstable.ts",
};
const OVERRIDES = "src/protocol/schema-overrides.ts";

/** What the client parses from the stable schema (the rest of what it uses is reached from these). */
const STABLE_ROOTS = [
  "SessionNotification",
  "SessionUpdate",
  "InitializeResponse",
  "NewSessionResponse",
  "LoadSessionResponse",
  "ListSessionsResponse",
  "PromptResponse",
  "RequestPermissionRequest",
  "ReadTextFileRequest",
  "WriteTextFileRequest",
  "CreateTerminalRequest",
  "TerminalOutputRequest",
  "ReleaseTerminalRequest",
  "WaitForTerminalExitRequest",
  "KillTerminalRequest",
  "CreateElicitationRequest",
  "CompleteElicitationNotification",
];
/** What the client parses from the unstable schema's additions (with `unstable` on). */
const UNSTABLE_ROOTS = [
  "PlanUpdate",
  "PlanRemoved",
  "SubagentUpdate",
  "SessionMessage",
  "SessionMessageChunk",
  "AuthStatusUpdateNotification",
  "MessageMcpRequest",
  "ForkSessionResponse",
  "SetSessionTitleResponse",
];

const req = createRequire(import.meta.url);
function sdk() {
  const dir = join(dirname(req.resolve("@agentclientprotocol/sdk/schema/v1/schema.json")), "..", "..");
  return {
    version: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version,
    stable: JSON.parse(readFileSync(join(dir, "schema/v1/schema.json"), "utf8")).$defs,
    unstable: JSON.parse(readFileSync(join(dir, "schema/v1/schema.unstable.json"), "utf8")).$defs,
  };
}

/** The names schema-overrides.ts exports: `Name` (a definition) or `Name__field` (one field). */
export function overrideNames(root = ROOT) {
  const text = readFileSync(join(root, OVERRIDES), "utf8");
  return [...text.matchAll(/^export const (\w+)\b/gm)].map((m) => m[1]);
}

const refName = (ref) => {
  const m = /^#\/\$defs\/(\w+)$/.exec(ref);
  if (!m) throw new Error(`gen-schemas: unsupported $ref ${ref}`);
  return m[1];
};
const isNull = (n) =>
  n && n.type === "null" && Object.keys(n).every((k) => ["type", "title", "description"].includes(k));
const ident = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
// The first paragraph of a description, as a one-line doc comment (a closing token inside is broken).
const doc = (n, indent = "") => {
  const d = n?.description
    ?.split(/\n\s*\n/)[0]
    ?.replace(/\s*\n\s*/g, " ")
    .replace(/\*\//g, "* /");
  return d ? `${indent}/** ${d} */\n` : "";
};

/** The constant a variant fixes its discriminator to, or undefined. */
function variantConst(v, key) {
  const p = v?.properties?.[key];
  return p && typeof p.const === "string" && (v.required ?? []).includes(key) ? p.const : undefined;
}
/** The property every variant of `alts` fixes to a constant (the discriminator), or undefined. */
function discriminatorOf(node, alts) {
  const key = node.discriminator?.propertyName;
  const keys = key ? [key] : Object.keys(alts[0]?.properties ?? {});
  return keys.find((k) => alts.every((v) => variantConst(v, k) !== undefined));
}

class Emitter {
  constructor(defs, { local, imported, overrides }) {
    this.defs = defs;
    /** Definitions written in this file (`name -> true`), in order. */
    this.local = local;
    /** Definitions imported from the stable file. */
    this.imported = imported;
    this.overrides = new Set(overrides);
    this.usedOverrides = new Set();
    this.usedImports = new Set();
  }

  ref(name) {
    if (this.overrides.has(name)) {
      this.usedOverrides.add(name);
      return `real(O.${name})`;
    }
    if (this.imported.has(name)) {
      this.usedImports.add(name);
      return `real(S.${name})`;
    }
    if (!this.local.has(name)) throw new Error(`gen-schemas: ${name} is neither written nor imported`);
    return `real(${name})`;
  }

  /** A zod expression for `n`, and whether it admits null (the caller decides nullable/nullish). */
  expr(n, owner) {
    if (n.$ref) return { code: this.ref(refName(n.$ref)), nullable: false };
    if (n.allOf && n.allOf.length === 1 && !n.properties && !n.type) return this.expr(n.allOf[0], owner);
    const alts = n.oneOf ?? n.anyOf;
    if (alts && !n.properties) {
      const nonNull = alts.filter((a) => !isNull(a));
      const nullable = nonNull.length < alts.length;
      if (nonNull.length === 1) return { code: this.expr(nonNull[0], owner).code, nullable };
      // Named strings plus any string (an open set: NoticeSeverity, SessionConfigOptionCategory).
      const plainString = (a) => a.type === "string" && a.const === undefined && !a.enum && !a.minLength;
      if (nonNull.every((a) => a.type === "string") && nonNull.some(plainString))
        return { code: "z.string()", nullable };
      // Named strings only: an enum.
      if (nonNull.every((a) => a.type === "string" && typeof a.const === "string"))
        return { code: `z.enum(${JSON.stringify(nonNull.map((a) => a.const))})`, nullable };
      return { code: this.union(n, nonNull, owner), nullable };
    }
    const types = Array.isArray(n.type) ? n.type : n.type ? [n.type] : [];
    const nullable = types.includes("null") || n["x-deserialize-default-on-null"] === true;
    const t = types.filter((x) => x !== "null");
    if (t.length > 1) throw new Error(`gen-schemas: ${owner}: several types ${t}`);
    switch (t[0]) {
      case undefined:
        if (n.properties || n.oneOf || n.anyOf) throw new Error(`gen-schemas: ${owner}: object without type`);
        return { code: "z.unknown()", nullable: false };
      case "string":
        if (n.const !== undefined) return { code: `z.literal(${JSON.stringify(n.const)})`, nullable };
        if (n.enum) return { code: `z.enum(${JSON.stringify(n.enum)})`, nullable };
        return { code: `z.string()${n.minLength ? `.min(${n.minLength})` : ""}`, nullable };
      case "integer":
      case "number": {
        let c = t[0] === "integer" ? "z.number().int()" : "z.number()";
        if (n.minimum === 0) c += ".nonnegative()";
        else if (n.minimum !== undefined) c += `.min(${n.minimum})`;
        if (n.maximum !== undefined) c += `.max(${n.maximum})`;
        return { code: c, nullable };
      }
      case "boolean":
        return { code: "z.boolean()", nullable };
      case "array":
        return { code: `z.array(${this.expr(n.items ?? {}, owner).code})`, nullable };
      case "object":
        return { code: this.object(n, owner), nullable };
      default:
        throw new Error(`gen-schemas: ${owner}: type ${t[0]}`);
    }
  }

  /** A field of `owner`: its override, or its schema made optional/nullish/nullable as the rules say. */
  field(owner, key, p, required) {
    const o = `${owner}__${key}`;
    if (this.overrides.has(o)) {
      this.usedOverrides.add(o);
      return `O.${o}`;
    }
    if (key === "_meta") return HOT_PATH.has(owner) ? "real(strictMeta)" : "real(meta)";
    const { code, nullable } = this.expr(p, `${owner}.${key}`);
    if (required) return nullable ? `${code}.nullable()` : code;
    if (code === "z.unknown()") return `${code}.optional()`;
    return nullable ? `${code}.nullish()` : `${code}.optional()`;
  }

  fields(n, owner) {
    const required = new Set(n.required ?? []);
    return Object.entries(n.properties ?? {}).map(
      ([k, p]) => `${k === "_meta" ? "" : doc(p, "  ")}  ${ident(k)}: ${this.field(owner, k, p, required.has(k))},`,
    );
  }

  object(n, owner) {
    if (!n.properties) {
      const ap = n.additionalProperties;
      const v = ap && ap !== true ? this.expr(ap, owner).code : "z.unknown()";
      return `z.record(z.string(), ${v})`;
    }
    return `z.looseObject({\n${this.fields(n, owner).join("\n")}\n})`;
  }

  /** oneOf/anyOf: a discriminated union where each variant fixes one key, else a plain union. */
  union(n, alts, owner) {
    const key = discriminatorOf(n, alts);
    if (!key) return `z.union([${alts.map((a) => this.expr(a, owner).code).join(", ")}])`;
    if (owner.includes(".")) throw new Error(`gen-schemas: ${owner}: a discriminated union inside a field (name it)`);
    // Variants are named in `<owner>Variants` (see variants); the union lists them.
    this.variantsOf ??= new Map();
    const names = alts.map((a) => variantConst(a, key));
    this.variantsOf.set(owner, { n, alts, key });
    return `z.discriminatedUnion(${JSON.stringify(key)}, [${names.map((v) => (/^[A-Za-z_$][\w$]*$/.test(v) ? `real(${owner}Variants.${v})` : `real(${owner}Variants[${JSON.stringify(v)}])`)).join(", ")}])`;
  }

  /** `<Name>Variants`: one schema per discriminated variant, its base's fields plus the fixed key. */
  variants(name, base) {
    const { alts, key } = this.variantsOf.get(name);
    const shared = base ? this.fields(base, name) : [];
    const lines = alts.map((v) => {
      const c = variantConst(v, key);
      const others = Object.entries(v.properties).filter(([k]) => k !== key);
      if (others.length) throw new Error(`gen-schemas: ${name}/${c}: variant with its own fields`);
      const parts = (v.allOf ?? []).map((a) => this.expr(a, `${name}.${c}`).code);
      if (parts.length > 1) throw new Error(`gen-schemas: ${name}/${c}: several bases`);
      const ext = [...shared, `  ${key}: z.literal(${JSON.stringify(c)}),`].join("\n");
      const from = parts[0] ?? "z.looseObject({})";
      return `${doc(v, "  ")}  ${ident(c)}: lazy(() =>\n${from}.extend({\n${ext}\n})),`;
    });
    return `export const ${name}Variants = {\n${lines.join("\n")}\n};\n`;
  }

  /** One definition: `export const Name = ...;` (and its variants first, when it has them). */
  def(name) {
    const n = this.defs[name];
    this.variantsOf?.delete(name);
    let code;
    let base;
    if (n.properties && (n.oneOf || n.anyOf)) {
      // Fields shared by every variant plus a discriminated choice (SessionConfigOption).
      base = n;
      const alts = n.oneOf ?? n.anyOf;
      code = this.union(n, alts, name);
      if (!this.variantsOf?.has(name)) throw new Error(`gen-schemas: ${name}: shared fields and no discriminator`);
    } else {
      const e = this.expr(n, name);
      code = e.nullable ? `${e.code}.nullable()` : e.code;
    }
    const pre = this.variantsOf?.has(name) ? this.variants(name, base) : "";
    return `${pre}${doc(n)}export const ${name} = lazy(() => ${code});\n`;
  }
}

/** Every $ref under `n`. */
function refsOf(n, out = new Set()) {
  if (Array.isArray(n)) for (const x of n) refsOf(x, out);
  else if (n && typeof n === "object") {
    if (typeof n.$ref === "string") out.add(refName(n.$ref));
    for (const v of Object.values(n)) refsOf(v, out);
  }
  return out;
}

/** `roots` and what they refer to, dependencies first; `stop(name)` ends the walk there (imported, overridden). */
function ordered(defs, roots, stop) {
  const out = [];
  const state = new Map();
  const visit = (name, from) => {
    if (stop(name)) return;
    if (!defs[name]) throw new Error(`gen-schemas: ${from} refers to ${name}, which the schema lacks`);
    if (state.get(name) === "done") return;
    if (state.get(name) === "open") throw new Error(`gen-schemas: ${name} refers to itself (needs z.lazy)`);
    state.set(name, "open");
    for (const r of [...refsOf(defs[name])].sort()) visit(r, name);
    state.set(name, "done");
    out.push(name);
  };
  for (const r of roots) visit(r, "ROOTS");
  return out;
}

/** Definitions replaced whole by an override (used here, or a root): exported under their name all the same. */
function reexportOverrides(e, roots) {
  for (const r of roots) if (e.overrides.has(r)) e.ref(r);
  return [...e.usedOverrides]
    .filter((n) => !n.includes("__"))
    .sort()
    .map((n) => `/** Replaced by its override in schema-overrides.ts. */\nexport const ${n} = O.${n};\n`);
}

/** The same definition, prose aside (descriptions differ between the two files). */
const same = (a, b) => {
  const shape = (n) => JSON.stringify(n, (k, v) => (k === "description" && typeof v === "string" ? undefined : v));
  return shape(a) === shape(b);
};

/**
 * What src/protocol/hot-path.ts checks by hand (a text chunk and its envelope): there a `_meta`
 * that is not an object fails the message, as the hand check does, so the two agree exactly.
 */
const HOT_PATH = new Set(["SessionNotification", "ContentChunk", "TextContent"]);

function file(header, imports, body) {
  const code = body.join("\n");
  const strict = code.includes("strictMeta")
    ? "// Where the hot path checks by hand (HOT_PATH in scripts/gen-schemas.mjs): as strict as it is.\nconst strictMeta = lazy(() => z.record(z.string(), z.unknown()).nullish());\n"
    : "";
  return `${header}\n${imports.join("\n")}\n\n// A malformed \`_meta\` is dropped, not fatal (see scripts/gen-schemas.mjs).\nconst meta = lazy(() => z.record(z.string(), z.unknown()).nullish().catch(undefined));\n${strict}\n${code}`;
}

/** The two generated files' text, formatted, for the installed SDK and the overrides now. */
export function generate(root = ROOT) {
  const { version, stable, unstable } = sdk();
  const names = overrideNames(root);
  const overridden = (name) => names.includes(name);
  const head = (what) =>
    [
      `// Generated by scripts/gen-schemas.mjs from @agentclientprotocol/sdk ${version} ${what}; do not edit.`,
      "// `npm run gen:schemas` rewrites it. Policy (leniencies) is in ../schema-overrides.ts, the API in ../schema.ts.",
    ].join("\n");

  // Stable: the roots and what they use; overridden definitions come from schema-overrides.ts.
  const sOrder = ordered(stable, STABLE_ROOTS, overridden);
  const s = new Emitter(stable, { local: new Set(sOrder), imported: new Set(), overrides: names });
  const sBody = sOrder.map((d) => s.def(d));
  sBody.push(...reexportOverrides(s, STABLE_ROOTS));
  const sImports = ['import { z } from "zod";', 'import { lazy, real } from "../lazy-schema.js";'];
  if (s.usedOverrides.size) sImports.push('import * as O from "../schema-overrides.js";');
  const stableText = file(head("(schema/v1/schema.json)"), sImports, sBody);

  // Unstable: what the unstable schema adds; a definition both schemas share unchanged is imported.
  const shared = (name) => stable[name] && same(stable[name], unstable[name]) && sOrder.includes(name);
  const uOrder = ordered(unstable, UNSTABLE_ROOTS, (n) => overridden(n) || shared(n));
  const u = new Emitter(unstable, {
    local: new Set(uOrder),
    imported: new Set(Object.keys(unstable).filter(shared)),
    overrides: names,
  });
  const uBody = uOrder.map((d) => u.def(d));
  uBody.push(...reexportOverrides(u, UNSTABLE_ROOTS));
  const uImports = ['import { z } from "zod";', 'import { lazy, real } from "../lazy-schema.js";'];
  if (u.usedOverrides.size) uImports.push('import * as O from "../schema-overrides.js";');
  if (u.usedImports.size) uImports.push('import * as S from "./acp-schema.js";');
  const unstableText = file(head("(schema/v1/schema.unstable.json, its additions)"), uImports, uBody);

  const unused = names.filter((n) => !s.usedOverrides.has(n) && !u.usedOverrides.has(n));
  if (unused.length) throw new Error(`gen-schemas: overrides that replace nothing: ${unused.join(", ")}`);
  return {
    [OUT.stable]: format(root, OUT.stable, stableText),
    [OUT.unstable]: format(root, OUT.unstable, unstableText),
  };
}

/** Whether the generator can run here (the dev dependencies, the SDK and Biome, are installed). */
export function canGenerate(root = ROOT) {
  try {
    req.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
    return existsSync(join(root, "node_modules", ".bin", "biome"));
  } catch {
    return false;
  }
}

/** Biome's formatting (the repository's style), so `npm run lint` passes on the generated files. */
function format(root, path, text) {
  const biome = join(root, "node_modules", ".bin", "biome");
  return execFileSync(biome, ["format", `--stdin-file-path=${path}`], { cwd: root, input: text, encoding: "utf8" });
}

/** Write the generated files; returns their paths. */
export function writeSchemas(root = ROOT) {
  const files = generate(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return Object.keys(files);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`wrote ${writeSchemas().join(", ")}\n`);
}
