/**
 * A fake Gemini API (generativelanguage v1beta) on 127.0.0.1 for driving the real gemini-cli
 * without a network: gemini-cli talks to it when started with GOOGLE_GEMINI_BASE_URL=<url> and
 * GEMINI_API_KEY=<anything> (see geminiEnv). The user's prompt is a small script, one command a turn:
 *   tool <name> <json args>   -> a functionCall of a tool gemini offered the model (by the name it
 *                                declared, e.g. the editor's MCP tool), then a reply quoting the
 *                                functionResponse
 *   anything else             -> a plain text reply
 * gemini-cli's side requests (a JSON answer: the next speaker, the model router) get a JSON
 * answer that ends the turn. Every request is recorded, its path and body.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Part {
  text?: string;
  functionCall?: { name: string; args?: unknown };
  functionResponse?: { name: string; response?: unknown };
}
interface Content {
  role?: string;
  parts?: Part[];
}
export interface GeminiRequest {
  contents?: Content[];
  systemInstruction?: Content | string;
  tools?: { functionDeclarations?: { name: string }[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown };
}

export interface FakeGemini {
  url: string;
  requests: { path: string; body: GeminiRequest }[];
  close(): Promise<void>;
}

/** The functions a request offers the model, by name. */
export function declaredTools(body: GeminiRequest): string[] {
  return (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name));
}

/** The function responses the agent sent the model in a request, as text. */
export function functionResponses(body: GeminiRequest): string[] {
  return (body.contents ?? []).flatMap((c) =>
    (c.parts ?? []).filter((p) => p.functionResponse).map((p) => JSON.stringify(p.functionResponse)),
  );
}

/** The script command: the last user text (the client's notes left out), and what followed it. */
function command(contents: Content[]): { text: string; response?: Part["functionResponse"] } {
  let text = "";
  let response: Part["functionResponse"];
  for (const c of contents) {
    if (c.role !== "user") continue;
    const parts = c.parts ?? [];
    const fr = parts.find((p) => p.functionResponse);
    const texts = parts
      .filter((p) => typeof p.text === "string")
      .map((p) => p.text!.replace(/^\[acp-chat\.nvim\] .*$/gm, "").trim())
      .filter((t) => t !== "");
    if (fr) response = fr.functionResponse;
    else if (texts.length > 0) {
      text = texts.at(-1)!;
      response = undefined;
    }
  }
  return { text, response };
}

function decide(body: GeminiRequest): Part {
  const mime = body.generationConfig?.responseMimeType;
  if (mime === "application/json" || body.generationConfig?.responseJsonSchema || body.generationConfig?.responseSchema)
    return {
      text: JSON.stringify({ reasoning: "fake", next_speaker: "user", model_choice: "flash", complexity: "simple" }),
    };
  const { text, response } = command(body.contents ?? []);
  if (response) return { text: `TOOL RESULT: ${JSON.stringify(response.response ?? {})}` };
  const m = text.match(/^tool (\S+)(?: ([\s\S]+))?$/);
  if (m) {
    const offered = declaredTools(body);
    if (!offered.includes(m[1]!)) return { text: `NO SUCH TOOL: ${m[1]} (offered: ${offered.join(", ")})` };
    return { functionCall: { name: m[1]!, args: m[2] ? JSON.parse(m[2]) : {} } };
  }
  return { text: `You said: ${text}` };
}

function answer(part: Part): unknown {
  return {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
    modelVersion: "gemini-fake",
  };
}

export async function startFakeGemini(): Promise<FakeGemini> {
  const requests: FakeGemini["requests"] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: GeminiRequest = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as GeminiRequest;
      } catch {
        body = {};
      }
      const path = (req.url ?? "").split("?")[0]!;
      requests.push({ path, body });
      if (req.method === "POST" && path.endsWith(":countTokens")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ totalTokens: 100 }));
      } else if (req.method === "POST" && path.endsWith(":streamGenerateContent")) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(`data: ${JSON.stringify(answer(decide(body)))}\r\n\r\n`);
      } else if (req.method === "POST" && path.endsWith(":generateContent")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer(decide(body))));
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: 404, message: `not found: ${path}`, status: "NOT_FOUND" } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The installed gemini-cli's entry point (a devDependency). */
export const GEMINI_CLI = join(process.cwd(), "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");

/** gemini-cli's environment for the fake server: a private home, an API key it never checks. */
export function geminiEnv(url: string): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "acpchat-gemini-home-"));
  mkdirSync(join(home, ".gemini"));
  return {
    HOME: home,
    GEMINI_CLI_HOME: home,
    GOOGLE_GEMINI_BASE_URL: url,
    GEMINI_API_KEY: "fake-gemini-key",
    GEMINI_CLI_NO_RELAUNCH: "true",
    GEMINI_TELEMETRY_ENABLED: "false",
    NO_BROWSER: "true",
    CI: "",
  };
}
