/**
 * A short-lived connection to an agent, for questions that need no chat: listing or deleting
 * sessions when no chat with that agent is open. The agent is killed afterwards.
 */
import { AgentProcess, describeExit, type AgentCommand } from "../agent/agent-process.js";
import { AcpClient, type ClientFeatures } from "../client/acp-client.js";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import { JsonRpcPeer } from "../protocol/jsonrpc.js";
import { V2Peer } from "../protocol/v2/peer.js";

const refuse = async (): Promise<never> => {
  throw new RpcError(ErrorCodes.MethodNotFound, "not available while listing sessions");
};

/**
 * `features`: what the client advertises (its feature modules make session/set_title usable).
 * `signal`: aborting it ends the agent at once (the chat it was asked from closed): whatever is
 * pending fails, and nothing waits out the initialize timeout.
 */
export async function withAgent<T>(
  cmd: AgentCommand,
  fn: (client: AcpClient) => Promise<T>,
  timeoutMs = 30_000,
  features: ClientFeatures = {},
  signal?: AbortSignal,
  /** The agent's option: "v2-draft" speaks ACP v2 when the agent answers 2 (listing needs no file reads). */
  protocol?: "v1" | "v2-draft",
): Promise<T> {
  if (signal?.aborted) throw new Error("cancelled");
  const agent = new AgentProcess(cmd);
  const peer = new JsonRpcPeer(agent.stdout, agent.stdin);
  const onAbort = () => {
    peer.close("cancelled: the chat it was asked from closed");
    void agent.kill(500);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const client = new AcpClient(
    protocol === "v2-draft" ? new V2Peer(peer, { read: async () => undefined }) : peer,
    {
      sessionUpdate: () => undefined,
      requestPermission: refuse,
      readTextFile: refuse,
      writeTextFile: refuse,
      createTerminal: refuse,
      terminalOutput: refuse,
      waitForTerminalExit: refuse,
      killTerminal: refuse,
      releaseTerminal: refuse,
    },
    features,
  );
  try {
    await client
      .initialize({ name: "acp-chat.nvim", version: "0.1.0" }, { initializeMs: timeoutMs })
      .catch(async (e) => {
        const exit = await Promise.race([agent.exited, new Promise<undefined>((r) => setTimeout(r, 300))]);
        throw exit ? new Error(describeExit(cmd, exit, agent.stderr.lastLines(5))) : e;
      });
    return await fn(client);
  } catch (e) {
    throw signal?.aborted ? new Error("cancelled: the chat it was asked from closed") : e;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    peer.close("done");
    await agent.kill(500);
  }
}
