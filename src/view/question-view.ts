/**
 * The agent's questions as the user sees them: forms and URLs (elicitation/create) and sign-in
 * methods. Every piece of the agent's text is redacted (the chat's Redactor) and drawn on one
 * line (oneLine), as permission questions are; the editor answers by position (which field,
 * which choice, which method), and the values that go back to the agent stay here, unredacted.
 * A request that cannot be shown faithfully (a malformed form, a URL with hidden characters or
 * a scheme a browser should not open) is refused with -32602.
 */
import { z } from "zod";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import { lazy } from "../protocol/lazy-schema.js";
import type { AuthMethod, CreateElicitationRequest } from "../protocol/schema.js";
import type { Redactor } from "../trace/redact.js";
import { oneLine } from "../session/one-line.js";
import type { AuthQuestion, ElicitationQuestion, FieldAnswer, ShownField } from "../wire/index.js";

type Value = string | number | boolean;
const Scalar = lazy(() => z.union([z.string(), z.number(), z.boolean()]));
/** One field of a form: the primitive schemas of elicitation/create (string, number, integer, boolean, enum). */
const Field = lazy(() =>
  z.looseObject({
    type: z.enum(["string", "number", "integer", "boolean"]).nullish(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    default: Scalar.nullish(),
    enum: z.array(Scalar).min(1).nullish(),
    enumNames: z.array(z.string()).nullish(),
    oneOf: z
      .array(z.looseObject({ const: Scalar, title: z.string().nullish() }))
      .min(1)
      .nullish(),
  }),
);
const FormSchema = lazy(() =>
  z.looseObject({
    properties: z.record(z.string(), Field).nullish(),
    required: z.array(z.string()).nullish(),
  }),
);

export interface FormView {
  shown: Extract<ElicitationQuestion, { mode: "form" }>;
  /** Per field: its name in the agent's schema, and the values behind its choices. */
  names: string[];
  values: (Value[] | undefined)[];
}

function refuse(why: string): never {
  throw new RpcError(ErrorCodes.InvalidParams, `Invalid params for elicitation/create: ${why}`);
}

/** Agent text for a question: redacted, one line. */
function safe(redactor: Redactor, s: string, max: number): string {
  return oneLine(redactor.text(s), max);
}

/** The form of an elicitation/create request (mode "form") as the user is asked it. */
export function formView(req: CreateElicitationRequest, redactor: Redactor): FormView {
  const parsed = FormSchema.safeParse(req.requestedSchema ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    refuse(`requestedSchema.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  const props = parsed.data.properties ?? {};
  const required = new Set((parsed.data.required ?? []).filter((r) => Object.hasOwn(props, r)));
  // Required fields first in the schema's order, then the others by name.
  const names = [
    ...required,
    ...Object.keys(props)
      .filter((n) => !required.has(n))
      .sort(),
  ];
  const fields: ShownField[] = [];
  const values: (Value[] | undefined)[] = [];
  for (const name of names) {
    const p = props[name]!;
    const label = safe(redactor, p.title ?? name, 120) + (required.has(name) ? "" : " (optional)");
    const description = p.description ? safe(redactor, p.description, 300) : undefined;
    let choices: { value: Value; label: string }[] | undefined;
    if (p.oneOf) choices = p.oneOf.map((o) => ({ value: o.const, label: o.title ?? String(o.const) }));
    else if (p.enum) choices = p.enum.map((v, i) => ({ value: v, label: p.enumNames?.[i] ?? String(v) }));
    else if (p.type === "boolean")
      choices = [
        { value: true, label: "yes" },
        { value: false, label: "no" },
      ];
    if (choices) {
      fields.push({
        label,
        description,
        required: required.has(name),
        type: "choice",
        choices: choices.map((c) => safe(redactor, c.label, 120)),
      });
      values.push(choices.map((c) => c.value));
      continue;
    }
    // A default is offered as typed text only when it shows as it is (no secret, one line).
    const d = p.default == null ? undefined : String(p.default);
    const shownDefault = d !== undefined && safe(redactor, d, 1000) === d ? d : undefined;
    fields.push({
      label,
      description,
      required: required.has(name),
      type: p.type === "number" || p.type === "integer" ? p.type : "string",
      default: shownDefault,
    });
    values.push(undefined);
  }
  return { shown: { mode: "form", message: safe(redactor, req.message, 300), fields }, names, values };
}

/**
 * The content of an accepted form from the editor's answers (by position); undefined when they
 * do not fill the form (a required field missing, a choice or number out of place).
 */
export function formContent(view: FormView, answers: FieldAnswer[] | undefined): Record<string, unknown> | undefined {
  // From Lua: each answer is checked (a form the answers do not fill is not sent).
  if (!Array.isArray(answers)) return undefined;
  const content: Record<string, unknown> = {};
  for (const a of answers) {
    const i = typeof a?.field === "number" ? a.field - 1 : -1;
    const field = view.shown.fields[i];
    if (!field) return undefined;
    const name = view.names[i]!;
    if (field.type === "choice") {
      const v = typeof a.choice === "number" ? view.values[i]?.[a.choice - 1] : undefined;
      if (v === undefined) return undefined;
      content[name] = v;
    } else {
      if (typeof a.text !== "string") return undefined;
      if (field.type === "string") content[name] = a.text;
      else {
        const n = Number(a.text);
        if (a.text.trim() === "" || !Number.isFinite(n)) return undefined;
        content[name] = field.type === "integer" ? Math.floor(n) : n;
      }
    }
  }
  if (view.shown.fields.some((f, i) => f.required && !(view.names[i]! in content))) return undefined;
  return content;
}

/** Characters that would hide or disguise part of a URL (controls, bidi, zero-width, tags) and spaces. */
const HIDDEN =
  /[\u0000-\u0020\u007f-\u00a0\u00ad\u061c\u115f\u1160\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;
/** A URL longer than this is refused: it could not be shown whole. */
const MAX_URL = 2000;

/**
 * A URL question (mode "url"): the URL that will be opened is the one shown (the parser's
 * normal form: a host in punycode, so a look-alike host reads as what it is), redacted only
 * where it holds a secret (`hidden` says so). A URL with a control, bidi or invisible
 * character, or one that is not http(s), is refused.
 */
export function urlView(
  req: CreateElicitationRequest,
  redactor: Redactor,
): Extract<ElicitationQuestion, { mode: "url" }> {
  const raw = req.url;
  if (typeof raw !== "string" || raw === "") refuse("url: a URL question needs a url");
  if (HIDDEN.test(raw))
    refuse(
      `url: it holds control, bidi or invisible characters, so it could read as another address: ${oneLine(redactor.text(raw), 300)}`,
    );
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    refuse(`url: not a URL: ${oneLine(redactor.text(raw), 300)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    refuse(`url: only http and https addresses are opened, not ${oneLine(url.protocol, 40)}`);
  if (url.href.length > MAX_URL) refuse(`url: longer than ${MAX_URL} characters, so it could not be shown whole`);
  const shown = oneLine(redactor.text(url.href), MAX_URL);
  return { mode: "url", message: safe(redactor, req.message, 300), url: url.href, shown, hidden: shown !== url.href };
}

/** Sign-in methods as the user picks them (the answer is a position; the id stays here). */
export function authChoices(
  methods: AuthMethod[],
  redactor: Redactor,
): Extract<AuthQuestion, { how: "choose" }>["methods"] {
  return methods.map((m) => ({
    name: safe(redactor, m.name, 120),
    description: m.description ? safe(redactor, m.description, 300) : undefined,
    terminal: m.type === "terminal",
  }));
}
