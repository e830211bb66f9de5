/** The trace as :AcpChatLog gets it (src/trace/trace-log.ts keeps it). Imports nothing (see transcript.ts). */

/** A trace entry; its payload is the agent's data, so it crosses as JSON text. */
export interface TraceEntryWire {
  time: string;
  dir: "in" | "out" | "note";
  kind: string;
  id?: number | string | null;
  method?: string;
  size: number;
  payloadJson: string;
}
