/**
 * :AcpChatInstall over the registry (src/registry/): the list with what can be installed here,
 * and one install with its progress as notifications (throttled: one every few seconds).
 */
import { installAgent, installedAgents, commandExists } from "../../registry/install.js";
import { installMethod, loadRegistry } from "../../registry/registry.js";
import type { RegistryChoice, RegistryParams } from "../contract.js";

export async function registryList(
  p: RegistryParams,
): Promise<{ agents: RegistryChoice[]; source: "fetched" | "cache"; problem?: string; skipped: string[] }> {
  const reg = await loadRegistry(p.url, p.cacheFile);
  const installed = new Map(installedAgents(p.dir).map((a) => [a.id, a.version]));
  const has = { npm: await commandExists("npm"), uv: await commandExists("uv") };
  const agents = reg.agents.map((a): RegistryChoice => {
    const how = installMethod(a, has);
    return {
      id: a.id,
      name: a.name,
      version: a.version,
      description: a.description,
      method: how.kind,
      why: how.kind === "none" ? how.why : undefined,
      installed: installed.get(a.id),
    };
  });
  return { agents, source: reg.source, problem: reg.problem, skipped: reg.skipped };
}

export async function registryInstall(
  p: RegistryParams & { id: string },
  notify: (message: string) => void,
): Promise<{ id: string; name: string; version: string; command: string; sha256?: string }> {
  const reg = await loadRegistry(p.url, p.cacheFile);
  const a = reg.agents.find((x) => x.id === p.id);
  if (!a) {
    // An entry this client refused (a version that is no version, say) is said as such.
    const refused = reg.skipped.find((s) => s.startsWith(`${p.id}: `));
    throw new Error(
      refused
        ? `the registry's entry for ${p.id} cannot be installed: ${refused.slice(p.id.length + 2)}`
        : `the registry has no agent "${p.id}"`,
    );
  }
  let last = 0;
  notify(`installing ${a.name} ${a.version}…`);
  const done = await installAgent(a, p.dir, (line) => {
    const now = Date.now();
    if (now - last < 3000) return;
    last = now;
    notify(`installing ${a.name}: ${line.slice(0, 120)}`);
  });
  return { id: done.id, name: done.name, version: done.version, command: done.command, sha256: done.sha256 };
}
