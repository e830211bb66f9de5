/** The environment every spawned process gets: no editor address, a cookie of its own. */
import { afterEach, describe, expect, it } from "vitest";
import { COOKIE_VAR, childEnv, cookieIn, loopbackUnproxied } from "../../src/agent/child-env.js";

const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

describe("childEnv", () => {
  it("drops NVIM, NVIM_LISTEN_ADDRESS and any variable holding the editor's address", () => {
    process.env.NVIM = "/run/user/0/nvim.123.0";
    process.env.NVIM_LISTEN_ADDRESS = "/tmp/nvimXYZ/0";
    process.env.MY_EDITOR_SOCK = "/run/user/0/nvim.123.0";
    process.env.OTHER_SOCK = "/tmp/nvimXYZ/0";
    process.env.KEEP_ME = "yes";
    const env = childEnv({ EXTRA: "1", COPIED: "/run/user/0/nvim.123.0", NVIM: "/agent/asked/for/this" });
    for (const k of ["NVIM", "NVIM_LISTEN_ADDRESS", "MY_EDITOR_SOCK", "OTHER_SOCK", "COPIED"])
      expect(env).not.toHaveProperty(k);
    expect(Object.values(env)).not.toContain("/run/user/0/nvim.123.0");
    expect(Object.values(env)).not.toContain("/agent/asked/for/this");
    expect(env.KEEP_ME).toBe("yes");
    expect(env.EXTRA).toBe("1");
    expect(env.PATH).toBe(process.env.PATH);
  });

  it("gives every call a fresh cookie that the caller cannot override", () => {
    delete process.env[COOKIE_VAR];
    const a = childEnv();
    const b = childEnv({ [COOKIE_VAR]: "mine" });
    expect(cookieIn(a)).toMatch(/^[0-9a-f]{24}$/);
    expect(cookieIn(b)).toMatch(/^[0-9a-f]{24}$/);
    expect(cookieIn(a)).not.toBe(cookieIn(b));
    expect(b[COOKIE_VAR]).toBe(cookieIn(b));
  });

  it("keeps an inherited cookie, so a chat inside a terminal stays in that terminal's tree", () => {
    process.env[COOKIE_VAR] = "outer";
    const env = childEnv();
    expect(env[COOKIE_VAR]).toMatch(/^outer [0-9a-f]{24}$/);
    expect(cookieIn(env)).not.toBe("outer");
  });
});

describe("loopbackUnproxied", () => {
  it("adds 127.0.0.1 to NO_PROXY (both spellings) when a proxy is set, keeping the user's entries", () => {
    expect(loopbackUnproxied({ HTTPS_PROXY: "http://proxy:3128", no_proxy: "corp.example, .internal" })).toEqual({
      HTTPS_PROXY: "http://proxy:3128",
      NO_PROXY: "corp.example,.internal,127.0.0.1",
      no_proxy: "corp.example,.internal,127.0.0.1",
    });
    expect(loopbackUnproxied({ http_proxy: "http://p", NO_PROXY: "127.0.0.1" }).no_proxy).toBe("127.0.0.1");
  });

  it("leaves an environment without a proxy as it is", () => {
    const env = { PATH: "/bin", NO_PROXY: "x" };
    expect(loopbackUnproxied(env)).toBe(env);
  });
});
