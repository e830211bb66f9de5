/**
 * Questions to the user (permission, review, sign-in, forms), asked without waiting on Lua: the
 * `ask` event carries a key, and Lua's `reply` call answers it later. A question withdrawn (its
 * turn cancelled, its chat closed, its agent gone) is answered `undefined` and its window closed.
 */
import type { Bridge } from "./bridge.js";
import type { AnyAnswer, AnyQuestion, QuestionKind, QuestionMap } from "../wire/index.js";
import { wireName } from "./wire.js";

/** Characters of a question's text per `askPart` event. */
export const PART_CHARS = 512 * 1024;

interface Open {
  chat: number;
  kind: QuestionKind;
  resolve: (answer: AnyAnswer | undefined) => void;
}

export class Questions {
  private readonly open = new Map<string, Open>();
  private next = 0;

  constructor(private readonly bridge: Bridge) {}

  /**
   * Ask, and resolve with the answer (undefined: dismissed or withdrawn). The answer is the one
   * of its kind (src/wire/questions.ts): Lua's reply is matched to the question by its key.
   */
  ask<K extends QuestionKind>(
    chat: number,
    kind: K,
    question: QuestionMap[K]["question"],
    signal: AbortSignal,
  ): Promise<QuestionMap[K]["answer"] | undefined> {
    const key = `${chat}:${this.next++}`;
    const answer = new Promise<QuestionMap[K]["answer"] | undefined>((resolve) =>
      this.open.set(key, { chat, kind, resolve: resolve as (a: AnyAnswer | undefined) => void }),
    );
    const withdraw = () => this.withdraw(key);
    if (signal.aborted) queueMicrotask(withdraw);
    else signal.addEventListener("abort", withdraw, { once: true });
    this.bridge.emit("ask", { chat, key, kind, question: this.sendTextsAhead(key, question) });
    void answer.finally(() => signal.removeEventListener("abort", withdraw));
    return answer;
  }

  /**
   * The question with each long text field sent ahead in parts (`askPart` events, in order
   * before the `ask`; Lua joins them back): a 16 MiB text in one event is decoded in one turn
   * of the editor's loop, holding it tens of milliseconds and more. The fields sent are named in
   * `parts` (as the wire names them), their values left empty: the one field a question gets
   * beyond its kind's shape (lua/acpchat/ask/init.lua joins the parts back and drops it).
   */
  private sendTextsAhead(key: string, question: AnyQuestion): AnyQuestion {
    const q = { ...question };
    const fields = q as Record<string, unknown>;
    const parts: string[] = [];
    for (const [field, v] of Object.entries(fields)) {
      if (typeof v !== "string" || v.length <= PART_CHARS) continue;
      for (let i = 0; i < v.length; ) {
        // Never between the two halves of a surrogate pair.
        let end = Math.min(v.length, i + PART_CHARS);
        if (end < v.length && /[\uD800-\uDBFF]/.test(v[end - 1]!)) end--;
        this.bridge.emit("askPart", { key, field: wireName(field), text: v.slice(i, end) });
        i = end;
      }
      fields[field] = "";
      parts.push(wireName(field));
    }
    return parts.length > 0 ? Object.assign(q, { parts }) : question;
  }

  /** Lua's answer; false when the question was already withdrawn. */
  answer(key: string, value: AnyAnswer | undefined): boolean {
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
