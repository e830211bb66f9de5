/** The agent's questions as shown (src/view/question-view.ts): refused when malformed, redacted, answered by position. */
import { describe, expect, it } from "vitest";
import type { CreateElicitationRequest } from "../../src/protocol/schema.js";
import { authChoices, formContent, formView, urlView } from "../../src/view/question-view.js";
import { Redactor } from "../../src/trace/redact.js";

const redactor = new Redactor(["hunter2-secret"]);
const form = (requestedSchema: unknown, message = "m") =>
  ({ sessionId: "s", mode: "form", message, requestedSchema }) as CreateElicitationRequest;
const url = (u: string) => ({ sessionId: "s", mode: "url", message: "m", url: u }) as CreateElicitationRequest;

describe("formView", () => {
  it.each([
    ["a number", { properties: { a: 5 } }],
    ["null", { properties: { a: null } }],
    ["an array type", { properties: { a: { type: "array" } } }],
    ["an empty enum", { properties: { a: { enum: [] } } }],
    ["a non-string title", { properties: { a: { title: 3 } } }],
    ["properties as a list", { properties: [1, 2] }],
  ])("refuses a property that is %s with -32602", (_, schema) => {
    expect(() => formView(form(schema), redactor)).toThrow(
      expect.objectContaining({
        code: -32602,
        message: expect.stringMatching(/^Invalid params for elicitation\/create: requestedSchema\.properties/),
      }),
    );
  });

  it("required fields first in schema order, then the rest by name; text redacted and on one line", () => {
    const v = formView(
      form(
        {
          properties: {
            z: { type: "integer" },
            b: { type: "boolean", title: "B\nfake" },
            a: { enum: ["x", "y"], enumNames: ["X hunter2-secret"] },
          },
          required: ["b", "nope"],
        },
        "Hi\u202e",
      ),
      redactor,
    );
    expect(v.shown.message).toBe("Hi\\u{202e}");
    expect(v.names).toEqual(["b", "a", "z"]);
    expect(v.shown.fields.map((f) => [f.label, f.type, f.choices])).toEqual([
      ["B\\nfake", "choice", ["yes", "no"]],
      ["a (optional)", "choice", ["X [REDACTED]", "y"]],
      ["z (optional)", "integer", undefined],
    ]);
  });

  it("answers by position become the agent's values; anything that does not fill the form is no content", () => {
    const v = formView(
      form({
        properties: {
          env: { oneOf: [{ const: "s", title: "Staging" }, { const: 7 }] },
          n: { type: "integer" },
          t: { type: "string" },
        },
        required: ["env", "n"],
      }),
      redactor,
    );
    expect(
      formContent(v, [
        { field: 1, choice: 2 },
        { field: 2, text: "3.9" },
      ]),
    ).toEqual({ env: 7, n: 3 });
    expect(
      formContent(v, [
        { field: 1, choice: 1 },
        { field: 2, text: "1" },
        { field: 3, text: "x" },
      ]),
    ).toEqual({ env: "s", n: 1, t: "x" });
    expect(
      formContent(v, [
        { field: 1, choice: 3 },
        { field: 2, text: "1" },
      ]),
    ).toBeUndefined();
    expect(
      formContent(v, [
        { field: 1, choice: 1 },
        { field: 2, text: "abc" },
      ]),
    ).toBeUndefined();
    expect(formContent(v, [{ field: 1, choice: 1 }])).toBeUndefined();
    expect(formContent(v, [{ field: 9, text: "x" }])).toBeUndefined();
    // What comes from Lua is checked, whatever its type says.
    expect(formContent(v, "nope" as never)).toBeUndefined();
  });

  it("a default is offered only when it shows as it is", () => {
    const v = formView(
      form({
        properties: {
          a: { type: "string", default: "plain" },
          b: { type: "string", default: "x hunter2-secret" },
          c: { type: "string", default: "two\nlines" },
        },
      }),
      redactor,
    );
    expect(v.shown.fields.map((f) => f.default)).toEqual(["plain", undefined, undefined]);
  });
});

describe("urlView", () => {
  it.each([
    "https://a.example/\u202etxt.exe",
    "https://a.example/\u200bx",
    "https://a.example/ x",
    "https://a.example/\nx",
    "https://a.example/\u{e0041}",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "not a url",
    "",
    `https://a.example/${"x".repeat(2000)}`,
  ])("refuses %j", (u) => {
    expect(() => urlView(url(u), redactor)).toThrow(expect.objectContaining({ code: -32602 }));
  });

  it("opens what it shows: the parsed form, a look-alike host in punycode; a secret is hidden and said so", () => {
    expect(urlView(url("https://раураl.example/login"), redactor)).toMatchObject({
      url: "https://xn--l-7sba6dbr.example/login",
      shown: "https://xn--l-7sba6dbr.example/login",
      hidden: false,
    });
    expect(urlView(url("https://a.example/cb?k=hunter2-secret"), redactor)).toMatchObject({
      url: "https://a.example/cb?k=hunter2-secret",
      shown: "https://a.example/cb?k=[REDACTED]",
      hidden: true,
    });
  });
});

describe("authChoices", () => {
  it("names and descriptions redacted, one line; terminal methods marked", () => {
    expect(
      authChoices([{ id: "a", name: "Key hunter2-secret\n2: x", description: "d\u202e", type: "terminal" }], redactor),
    ).toEqual([{ name: "Key [REDACTED]\\n2: x", description: "d\\u{202e}", terminal: true }]);
  });
});
