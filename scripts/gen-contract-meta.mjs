// The Lua side of the contract, generated from its TypeScript types (src/nvim/contract.ts and
// the shapes of src/wire/) with the TypeScript compiler's own checker, as Neovim generates
// vim/lsp/_meta/protocol.lua from the LSP's model: a LuaCATS class for every call's parameters
// (acpchat.call.<Name>), every reply (acpchat.reply.<Name>), every event (acpchat.event.<Name>),
// every buffer request and its answer (acpchat.request.<Name>, acpchat.response.<Name>), every
// kind of question and its answer (acpchat.question.<Kind>, acpchat.answer.<Kind>: the map of
// src/wire/questions.ts; `.Any` for any kind) and every other named shape they use
// (acpchat.wire.<Name>). Keys are in their wire form (snake_case, as
// src/nvim/wire.ts converts them) and nulls are dropped there, so a nullable field is optional.
// The build writes it; test/unit/contract-meta.test.ts fails when the file on disk is stale.
// TypeScript is a dev dependency: a user's build (`npm ci --omit=dev`) has none, and keeps the
// committed file; only contractMeta() loads it.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the build writes the Lua mirrors of the contract (relative to the repository). */
export const LUA_OUT = {
  /** The method names (written by scripts/build.mjs from the bundle). */
  names: "lua/acpchat/host/contract.lua",
  /** The LuaCATS classes (this module). */
  meta: "lua/acpchat/_meta/contract.lua",
};

const CONTRACT = "src/nvim/contract.ts";
const VIEWS = "src/wire/index.ts";
/** The method tables and the question map: they become calls, events, requests, questions and answers, not shapes. */
const TABLES = new Set([
  "LuaToNode",
  "NodeEvents",
  "NodeRequests",
  "LuaMethod",
  "NodeEvent",
  "NodeRequest",
  "QuestionMap",
]);
/** The question map (src/wire/questions.ts) and its unions of every kind's question and answer. */
const QUESTIONS = { map: "QuestionMap", anyQuestion: "AnyQuestion", anyAnswer: "AnyAnswer" };

const snake = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const pascal = (k) => k[0].toUpperCase() + k.slice(1);
const oneLine = (s) => s.replace(/\s*\n\s*/g, " ").trim();

/** Whether the generator can run here (the dev dependencies are installed). */
export function canGenerate() {
  try {
    createRequire(import.meta.url).resolve("typescript");
    return true;
  } catch {
    return false;
  }
}

/** The text of lua/acpchat/_meta/contract.lua. */
export function contractMeta(root = ROOT) {
  const ts = createRequire(import.meta.url)("typescript");
  const program = ts.createProgram([join(root, CONTRACT)], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const file = (p) => {
    const sf = program.getSourceFile(join(root, p));
    if (!sf) throw new Error(`gen-contract-meta: ${p} is not in the program`);
    return sf;
  };
  const contract = file(CONTRACT);
  const views = file(VIEWS);

  // The named shapes: every type exported by the two files, by its declaring symbol, with its Lua name.
  const wireName = (name) => `acpchat.wire.${name}`;
  const named = new Map();
  let questionMap;
  for (const sf of [views, contract]) {
    for (let sym of checker.getExportsOfModule(checker.getSymbolAtLocation(sf))) {
      if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      if (sym.name === QUESTIONS.map) questionMap = sym;
      if (!(sym.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) || TABLES.has(sym.name)) continue;
      named.set(sym, wireName(sym.name));
    }
  }
  // Each kind's question and answer by the kind's name; AnyQuestion and AnyAnswer as `.Any`.
  if (!questionMap) throw new Error(`gen-contract-meta: no ${QUESTIONS.map} among the shapes`);
  const kinds = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(questionMap)).map((p) => p.name);
  const byName = new Map([...named.keys()].map((s) => [s.name, s]));
  const rename = (name, lua) => {
    const sym = byName.get(name);
    if (!sym) throw new Error(`gen-contract-meta: ${QUESTIONS.map} names ${name}, which is not exported`);
    named.set(sym, lua);
  };
  for (const kind of kinds) {
    const entry = checker.getTypeOfSymbol(
      checker.getPropertyOfType(checker.getDeclaredTypeOfSymbol(questionMap), kind),
    );
    for (const [part, ns] of [
      ["question", "acpchat.question"],
      ["answer", "acpchat.answer"],
    ]) {
      const decl = checker.getPropertyOfType(entry, part).declarations[0];
      if (!decl.type || !ts.isTypeReferenceNode(decl.type))
        throw new Error(`gen-contract-meta: ${QUESTIONS.map}.${kind}.${part} must name an exported type`);
      rename(decl.type.typeName.getText(), `${ns}.${pascal(kind)}`);
    }
  }
  rename(QUESTIONS.anyQuestion, "acpchat.question.Any");
  rename(QUESTIONS.anyAnswer, "acpchat.answer.Any");
  /** The named unions by their members (a union written out again, or one with nil added, keeps its name). */
  const membersKey = (type) =>
    type.types
      .filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)))
      .map((t) => t.id)
      .sort((a, b) => a - b)
      .join(",");
  const unions = new Map();
  for (const [sym, name] of named) {
    const t = checker.getDeclaredTypeOfSymbol(sym);
    if (t.isUnion() && !unions.has(membersKey(t))) unions.set(membersKey(t), name);
  }
  const namedRef = (type) => {
    const sym =
      type.aliasSymbol ??
      (type.flags & ts.TypeFlags.Object && type.objectFlags & ts.ObjectFlags.Interface ? type.symbol : undefined);
    const name = sym && named.get(sym);
    if (name && !type.aliasTypeArguments) return name;
    return type.isUnion() ? unions.get(membersKey(type)) : undefined;
  };

  const docOf = (sym) => oneLine(ts.displayPartsToString(sym.getDocumentationComment(checker)));
  const luaTag = (sym) => sym.getJsDocTags(checker).find((t) => t.name === "lua");

  /** The doc comment just before a union's member (it belongs to the `|` token, not the member). */
  const leadingDoc = (node, from) => {
    const docs = node
      .getSourceFile()
      .text.slice(from, node.getStart())
      .match(/\/\*\*[\s\S]*?\*\//g);
    return docs
      ? oneLine(
          docs
            .at(-1)
            .replace(/^\/\*\*|\*\/$/g, "")
            .replace(/^\s*\* ?/gm, ""),
        )
      : "";
  };

  /** A TypeScript type as a LuaCATS type expression. */
  function lua(type, top = false) {
    const ref = top ? undefined : namedRef(type);
    if (ref) return ref;
    const f = type.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return "any";
    if (f & ts.TypeFlags.String) return "string";
    if (f & ts.TypeFlags.Number) return "number";
    if (f & ts.TypeFlags.Boolean) return "boolean";
    if (f & ts.TypeFlags.BooleanLiteral) return checker.typeToString(type);
    if (f & ts.TypeFlags.StringLiteral) return JSON.stringify(type.value);
    if (f & ts.TypeFlags.NumberLiteral) return String(type.value);
    if (f & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return "nil";
    if (f & ts.TypeFlags.Never) return "nil";
    if (type.isUnion()) {
      const parts = [
        ...new Set(
          type.types.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined))).map((t) => lua(t)),
        ),
      ];
      if (parts.length === 0) return "nil";
      if (parts.includes("true") && parts.includes("false"))
        parts.splice(parts.indexOf("true"), 1, "boolean"), parts.splice(parts.indexOf("false"), 1);
      return parts.join("|");
    }
    if (checker.isArrayType(type)) {
      const el = lua(checker.getTypeArguments(type)[0]);
      return /[|{ ]/.test(el) ? `(${el})[]` : `${el}[]`;
    }
    if (checker.isTupleType(type)) return "any[]";
    if (f & ts.TypeFlags.Object || type.isIntersection()) {
      const props = checker.getPropertiesOfType(type);
      const index = checker.getIndexInfosOfType(type)[0];
      if (props.length === 0) return index ? `table<${lua(index.keyType)}, ${lua(index.type)}>` : "table";
      return `{ ${props
        .map((p) => {
          const fl = field(p);
          return `${fl.name}${fl.optional ? "?" : ""}: ${fl.type}`;
        })
        .join(", ")} }`;
    }
    return "any";
  }

  /** One property as a field: its wire name, whether it may be absent, its type and doc. */
  function field(p) {
    const type = checker.getTypeOfSymbol(p);
    const nullable = type.isUnion() && type.types.some((t) => t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined));
    const tag = luaTag(p);
    const luaType = tag ? ts.displayPartsToString(tag.text).trim() : lua(type);
    return {
      name: snake(p.name),
      optional: Boolean(p.flags & ts.SymbolFlags.Optional) || nullable,
      type: luaType,
      doc: docOf(p),
    };
  }

  const out = [];
  const comment = (doc) => (doc ? [`--- ${doc}`] : []);
  /** A class of the type's fields (an object type, an interface or an intersection). */
  function klass(name, type, doc) {
    out.push(...comment(doc), `---@class ${name}`);
    for (const p of checker.getPropertiesOfType(type)) {
      const fl = field(p);
      out.push(`---@field ${fl.name}${fl.optional ? "?" : ""} ${fl.type}${fl.doc ? ` ${fl.doc}` : ""}`);
    }
    const index = checker.getIndexInfosOfType(type)[0];
    if (index) out.push(`---@field [${lua(index.keyType)}] ${lua(index.type)}`);
    out.push("");
  }
  const isObject = (t) =>
    (t.flags & ts.TypeFlags.Object || t.isIntersection()) &&
    !checker.isArrayType(t) &&
    !checker.isTupleType(t) &&
    !t.getCallSignatures().length;
  /** A class when the type is one object (a named one as its parent), else an alias. */
  function shape(name, type, doc) {
    const ref = namedRef(type);
    if (ref && isObject(type)) out.push(...comment(doc), `---@class ${name} : ${ref}`, "");
    else if (isObject(type)) klass(name, type, doc);
    else out.push(...comment(doc), `---@alias ${name} ${lua(type)}`, "");
  }

  /** The discriminant of a union member (`type` or `op`), for its class name. */
  const variantName = (type) => {
    for (const key of ["type", "op", "result", "loaded", "how", "mode"]) {
      const p = checker.getPropertyOfType(type, key);
      if (!p) continue;
      const t = checker.getTypeOfSymbol(p);
      const lits = (t.isUnion() ? t.types : [t]).map((x) => x.value ?? checker.typeToString(x));
      return lits.join("_");
    }
    return undefined;
  };

  // The named shapes first: a union of object literals becomes one class per variant and an alias.
  out.push("-- Shapes that the calls, replies and events use.", "");
  for (const [sym, name] of named) {
    const decl = sym.declarations[0];
    const type = checker.getDeclaredTypeOfSymbol(sym);
    const doc = docOf(sym);
    if (
      ts.isTypeAliasDeclaration(decl) &&
      ts.isUnionTypeNode(decl.type) &&
      decl.type.types.some((n) => !ts.isLiteralTypeNode(n))
    ) {
      const members = [];
      let from = decl.type.pos;
      for (const node of decl.type.types) {
        const before = from;
        from = node.end;
        const t = checker.getTypeFromTypeNode(node);
        const ref = namedRef(t);
        const v = !ref && isObject(t) ? variantName(t) : undefined;
        if (ref || !v) {
          members.push(ref ?? lua(t));
          continue;
        }
        const member = `${name}.${v}`;
        klass(member, t, leadingDoc(node, before));
        members.push(member);
      }
      out.push(...comment(doc), `---@alias ${name}`, ...members.map((m) => `---| ${m}`), "");
    } else if (name.endsWith(".Any")) {
      // Every kind's question (or answer), by name.
      const ns = name.slice(0, -".Any".length);
      out.push(...comment(doc), `---@alias ${name}`, ...kinds.map((k) => `---| ${ns}.${pascal(k)}`), "");
    } else if (isObject(type)) {
      klass(name, type, doc);
    } else {
      out.push(...comment(doc), `---@alias ${name} ${lua(type, true)}`, "");
    }
  }

  const table = (iface) => {
    const sym = contract.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === iface);
    if (!sym) throw new Error(`gen-contract-meta: no interface ${iface} in ${CONTRACT}`);
    return checker.getPropertiesOfType(checker.getTypeAtLocation(sym.name));
  };
  const part = (p, key) => checker.getTypeOfSymbol(checker.getPropertyOfType(checker.getTypeOfSymbol(p), key));

  out.push(
    "-- Lua -> Node calls (RPC notifications): their parameters, and the value the `result` event carries back.",
    "",
  );
  for (const m of table("LuaToNode")) {
    shape(`acpchat.call.${pascal(m.name)}`, part(m, "params"), `\`${snake(m.name)}\`: ${docOf(m)}`.replace(/: $/, ""));
    shape(`acpchat.reply.${pascal(m.name)}`, part(m, "result"), `What \`${snake(m.name)}\` answers.`);
  }
  out.push("-- Node -> Lua events (notifications).", "");
  for (const m of table("NodeEvents"))
    shape(
      `acpchat.event.${pascal(m.name)}`,
      checker.getTypeOfSymbol(m),
      `\`${snake(m.name)}\`: ${docOf(m)}`.replace(/: $/, ""),
    );
  out.push("-- Node -> Lua buffer requests (answered at once), and their answers.", "");
  for (const m of table("NodeRequests")) {
    shape(
      `acpchat.request.${pascal(m.name)}`,
      part(m, "params"),
      `\`${snake(m.name)}\`: ${docOf(m)}`.replace(/: $/, ""),
    );
    shape(`acpchat.response.${pascal(m.name)}`, part(m, "result"), `What \`${snake(m.name)}\` answers.`);
  }

  return [
    "---@meta",
    `-- Generated by scripts/build.mjs (scripts/gen-contract-meta.mjs) from ${CONTRACT}: do not edit.`,
    "-- The Lua <-> Node contract's shapes in their wire form (snake_case keys; nulls dropped), for lua-language-server.",
    'error("Cannot require a meta file")',
    "",
    ...out,
  ]
    .join("\n")
    .replace(/\n+$/, "\n");
}
