/** Small AbortSignal helpers. */

/** Resolve with `p`, or reject when `signal` fires. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** A controller that aborts when any of `signals` does. */
export function linkedController(...signals: (AbortSignal | undefined)[]): AbortController {
  const c = new AbortController();
  const abort = () => c.abort(new Error("cancelled"));
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) abort();
    else s.addEventListener("abort", abort, { once: true });
  }
  return c;
}
