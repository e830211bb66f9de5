/**
 * Compile-time checks: the values the modules build (or read) have exactly the contract's
 * shapes (./views.ts). Nothing here runs; `npm run typecheck` fails when a module's type and the
 * contract part ways, and the message names the pair. The contract does not import these modules
 * for its own shapes: this file is the one place that looks at both.
 */
import type { McpServerConfig } from "../../client/mcp-servers.js";
import type { ToolName } from "../../editor-tools/tools.js";
import type { RenderOp } from "../../view/render-queue.js";
import type { FeatureBlockView } from "../../view/feature-views.js";
import type {
  BlockView,
  ChatStateName,
  MediaView,
  OptionView,
  StatusView,
  ToolContentView,
} from "../../view/view-model.js";
import type { ContextItem } from "../../session/prompt-builder.js";
import type { SessionChoice } from "../../session/session-commands.js";
import type { TraceEntry } from "../../trace/trace-log.js";
import type { BufferState } from "../../workspace/write-plan.js";
import type { FileChange } from "../../checkpoints/types.js";
import type * as wire from "./views.js";

/** True only when A and B are the same type (not merely assignable either way: an optional field renamed is caught). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when given `true`. */
type Check<T extends true> = T;

/** An intersection as one object type (Equal tells `A & B` from the same fields written out). */
type Flat<T> = { [K in keyof T]: T[K] };

export type ContractChecks = [
  Check<Equal<MediaView, wire.MediaView>>,
  Check<Equal<ToolContentView, wire.ToolContentView>>,
  Check<Equal<FileChange, wire.ChangedFileView>>,
  Check<Equal<FeatureBlockView, wire.FeatureBlockView>>,
  Check<Equal<BlockView, wire.BlockView>>,
  Check<Equal<ChatStateName, wire.ChatStateName>>,
  Check<Equal<OptionView, wire.OptionView>>,
  Check<Equal<StatusView, wire.StatusView>>,
  Check<Equal<RenderOp, wire.RenderOp>>,
  Check<Equal<ContextItem, wire.ContextItem>>,
  Check<Equal<SessionChoice, wire.SessionChoice>>,
  Check<Equal<McpServerConfig, wire.McpServerConfig>>,
  Check<Equal<ToolName, wire.ToolName>>,
  Check<Equal<Flat<Omit<TraceEntry, "payload"> & { payloadJson: string }>, Flat<wire.TraceEntryWire>>>,
  Check<Equal<BufferState, wire.BufferStateWire>>,
];
