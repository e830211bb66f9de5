import { describe, expect, it } from "vitest";
import { errorMessage, RpcError } from "../../src/protocol/errors.js";

describe("errorMessage", () => {
  it("shows what the agent's error data says after its message", () => {
    const details = "Cannot enable privileged approval modes in an untrusted folder";
    expect(errorMessage(new RpcError(-32603, "Internal error", { details }))).toBe(`Internal error: ${details}`);
    expect(errorMessage(new RpcError(-32603, "Internal error", "disk\n  full"))).toBe("Internal error: disk full");
    expect(errorMessage(new RpcError(-32602, "Invalid params", { reason: "cwd must be absolute" }))).toBe(
      "Invalid params: cwd must be absolute",
    );
    expect(errorMessage(new RpcError(-32002, "Resource not found", { uri: "file:///x" }))).toBe(
      'Resource not found: {"uri":"file:///x"}',
    );
  });

  it("adds nothing when there is nothing more to say, and cuts a long one", () => {
    expect(errorMessage(new RpcError(-32603, "Internal error"))).toBe("Internal error");
    expect(errorMessage(new RpcError(-32603, "Internal error", {}))).toBe("Internal error");
    expect(errorMessage(new RpcError(-32603, "Internal error: disk full", { details: "disk full" }))).toBe(
      "Internal error: disk full",
    );
    expect(errorMessage(new RpcError(-32603, "Internal error", { details: "x".repeat(2000) }))).toBe(
      `Internal error: ${"x".repeat(500)}…`,
    );
    expect(errorMessage(new Error("plain"))).toBe("plain");
    expect(errorMessage("text")).toBe("text");
  });
});
