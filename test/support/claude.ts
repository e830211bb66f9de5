/** Running the real claude-code-acp and claude-agent-acp agents against the fake model server. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLAUDE_ACP = fileURLToPath(
  new URL("../../node_modules/@zed-industries/claude-code-acp/dist/index.js", import.meta.url),
);

export const CLAUDE_AGENT_ACP = fileURLToPath(
  new URL("../../node_modules/@zed-industries/claude-agent-acp/dist/index.js", import.meta.url),
);

/** The agent's environment: the fake server, a private HOME, no telemetry; root needs IS_SANDBOX. */
export function claudeEnv(url: string): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "acpchat-claude-home-"));
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-fake-key-for-tests",
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
  };
}
