/** How the editor's loop kept up while a test ran, and why it did not. */

/**
 * A 5 ms timer in the editor, like editorLateness (nvim.ts), that also tells why a
 * tick was late: from /proc/self/schedstat, the time the editor's main thread waited for a core
 * (the machine's load). `busyMs`: the most CPU the editor used between two ticks; `loadMs`: the
 * most a tick was late for the editor's own work or for want of a core; `heldMs`: the most a
 * tick was late while the editor neither ran nor waited for a core, i.e. it was blocked in a
 * call that waits (a sleep, a synchronous read) - lateness that load does not excuse.
 */
export async function loopWatch(lua: (code: string) => Promise<unknown>) {
  const key = `_acpchat_watch_${Math.random().toString(36).slice(2)}`;
  await lua(`
    local function cpu()
      local r = vim.uv.getrusage()
      return (r.utime.sec + r.stime.sec) * 1e3 + (r.utime.usec + r.stime.usec) / 1e3
    end
    local function queued()
      local f = io.open("/proc/self/schedstat")
      if not f then return 0 end
      local s = f:read("*l") or ""
      f:close()
      return (tonumber(s:match("^%d+%s+(%d+)")) or 0) / 1e6
    end
    local s = { busy = 0, load = 0, held = 0, last = vim.uv.hrtime(), cpu = cpu(), queued = queued(), timer = vim.uv.new_timer() }
    _G["${key}"] = s
    s.timer:start(5, 5, function()
      local now, c, q = vim.uv.hrtime(), cpu(), queued()
      local late = math.max(0, (now - s.last) / 1e6 - 5)
      local ran = (c - s.cpu) + (q - s.queued)
      s.busy = math.max(s.busy, c - s.cpu)
      s.load = math.max(s.load, math.min(late, ran))
      s.held = math.max(s.held, late - ran)
      s.last, s.cpu, s.queued = now, c, q
    end)`);
  return () =>
    lua(
      `local s = _G["${key}"]; s.timer:stop(); s.timer:close(); _G["${key}"] = nil; return { busyMs = s.busy, loadMs = s.load, heldMs = s.held }`,
    ) as Promise<{ busyMs: number; loadMs: number; heldMs: number }>;
}
