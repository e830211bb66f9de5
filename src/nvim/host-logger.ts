/**
 * Stands in for `winston` inside the node client's host (dist/host.cjs: an esbuild alias in
 * scripts/build.mjs). The client makes one logger of it (neovim/lib/utils/logger.js) when its
 * API module loads; winston and its formats were ~130 ms of CPU at every host's start, for a
 * logger that writes nowhere unless NVIM_NODE_LOG_FILE is set. The same contract, with what
 * logger.js calls of winston: the level (NVIM_NODE_LOG_LEVEL, npm's levels), lines that its own
 * format makes (splat, timestamp, printf) appended to NVIM_NODE_LOG_FILE, and nothing ever on
 * stdout, the RPC channel: ALLOW_CONSOLE writes to stderr.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { format as formatArgs } from "node:util";

const LEVELS: Record<string, number> = { error: 0, warn: 1, info: 2, http: 3, verbose: 4, debug: 5, silly: 6 };

interface Info {
  level: string;
  message: unknown;
  splat: unknown[];
  timestamp?: string;
  line?: string;
}
type Format = (info: Info) => Info;
interface TransportOptions {
  filename?: string;
  level?: string;
  format?: Format;
  silent?: boolean;
}

const pad = (n: number) => String(n).padStart(2, "0");
function stamp(d = new Date()): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export const format = {
  combine:
    (...fs: Format[]): Format =>
    (info) =>
      fs.reduce((i, f) => f(i), info),
  /** `%s`-style arguments folded into the message, as winston's splat does. */
  splat: (): Format => (info) => {
    if (typeof info.message === "string" && info.splat.length > 0)
      return { ...info, message: formatArgs(info.message, ...info.splat), splat: [] };
    return info;
  },
  timestamp: (): Format => (info) => ({ ...info, timestamp: stamp() }),
  printf:
    (f: (info: Info) => string): Format =>
    (info) => ({ ...info, line: f(info) }),
};

class Transport {
  private stream: WriteStream | undefined;
  constructor(
    readonly opts: TransportOptions,
    private readonly out: "file" | "stderr",
  ) {}

  write(info: Info): void {
    if (this.opts.silent) return;
    const done = (this.opts.format ?? format.printf((i) => `${i.level} ${String(i.message)}`))(info);
    const line = `${done.line ?? String(done.message)}\n`;
    if (this.out === "stderr") process.stderr.write(line);
    else if (this.opts.filename) (this.stream ??= createWriteStream(this.opts.filename, { flags: "a" })).write(line);
  }
}

export const transports = {
  File: class File extends Transport {
    constructor(opts: TransportOptions) {
      super(opts, "file");
    }
  },
  Console: class Console extends Transport {
    constructor(opts: TransportOptions) {
      super(opts, "stderr");
    }
  },
};

class Logger {
  level: string;
  private readonly sinks: Transport[] = [];
  constructor(opts: { level?: string }) {
    this.level = opts.level ?? "info";
  }
  add(t: Transport): this {
    this.sinks.push(t);
    return this;
  }
  log(level: string, message: unknown, ...splat: unknown[]): this {
    const rank = LEVELS[level] ?? 0;
    for (const t of this.sinks) {
      if (rank > (LEVELS[t.opts.level ?? this.level] ?? 2)) continue;
      t.write({ level, message, splat });
    }
    return this;
  }
  error = (m: unknown, ...a: unknown[]) => this.log("error", m, ...a);
  warn = (m: unknown, ...a: unknown[]) => this.log("warn", m, ...a);
  info = (m: unknown, ...a: unknown[]) => this.log("info", m, ...a);
  verbose = (m: unknown, ...a: unknown[]) => this.log("verbose", m, ...a);
  debug = (m: unknown, ...a: unknown[]) => this.log("debug", m, ...a);
}

export function createLogger(opts: { level?: string }): Logger {
  return new Logger(opts);
}
