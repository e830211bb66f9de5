/**
 * Questions to the user (permission, review, sign-in, forms), asked without waiting on Lua: the
 * `ask` event carries a key, and Lua's `reply` call answers it later. A question withdrawn (its
 * turn cancelled, its chat closed, its agent gone) is answered `undefined` and its window closed.
 */
import type { Bridge } from "./bridge.js";
import type { QuestionKind } from "./contract.js";

interface Open {
  chat: number;
  kind: QuestionKind;
  resolve: (answer: unknown) => void;
}

export class Questions {
  private readonly open = new Map<string, Open>();
  private next = 0;

  constructor(private readonly bridge: Bridge) {}

  /** Ask, and resolve with the answer (undefined: dismissed or withdrawn). */
  ask<T>(chat: number, kind: QuestionKind, question: unknown, signal: AbortSignal): Promise<T | undefined> {
    const key = `${chat}:${this.next++}`;
    const answer = new Promise<T | undefined>((resolve) => this.open.set(key, { chat, kind, resolve: resolve as (a: unknown) => void }));
    const withdraw = () => this.withdraw(key);
    if (signal.aborted) queueMicrotask(withdraw);
    else signal.addEventListener("abort", withdraw, { once: true });
    this.bridge.emit("ask", { chat, key, kind, question });
    void answer.finally(() => signal.removeEventListener("abort", withdraw));
    return answer;
  }

  /** Lua's answer; false when the question was already withdrawn. */
  answer(key: string, value: unknown): boolean {
    const q = this.open.get(key);
    if (!q) return false;
    this.open.delete(key);
    q.resolve(value);
    return true;
  }

  /** Every question of a chat that closed or crashed. */
  withdrawAll(chat: number): void {
    for (const [key, q] of this.open) if (q.chat === chat) this.withdraw(key);
  }

  private withdraw(key: string): void {
    const q = this.open.get(key);
    if (!q) return;
    this.answer(key, undefined);
    this.bridge.emit("dismiss", { key, kind: q.kind });
  }
}
