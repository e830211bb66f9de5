/**
 * The feature modules, and the one place that decides which are on: a feature of the SDK's
 * unstable schema only with the option `unstable` (config.lua), every other always. The core
 * asks here (or asks AcpClient.moduleOn, which was handed this list) instead of branching on the
 * option: moving a feature to stable is its `unstable: false`.
 */
import { authStatus, mcpMessage } from "./agent-calls.js";
import type { Feature } from "./feature.js";
import { fork } from "./fork.js";
import { plans } from "./plans.js";
import { sessionMessages } from "./session-messages.js";
import { sessionTitle } from "./session-title.js";
import { subagents } from "./subagents.js";
import { usage } from "./usage.js";

export type { Feature } from "./feature.js";
export { SessionFeatures } from "./session-features.js";

/** Every feature module. Messages before subagents: a turn's end lets their held text out first. */
export const FEATURES: readonly Feature[] = [
  plans,
  sessionMessages,
  subagents,
  fork,
  sessionTitle,
  usage,
  authStatus,
  mcpMessage,
];

/** The configuration that gates them. */
export interface FeatureConfig {
  /** What the SDK's unstable v1 schema adds (option `unstable`). */
  unstable?: boolean;
}

/** The features that are on with `config`. */
export function activeFeatures(config: FeatureConfig = {}): Feature[] {
  return FEATURES.filter((f) => !f.unstable || config.unstable === true);
}

/** Whether the feature `name` is on with `config`. */
export function featureOn(config: FeatureConfig, name: string): boolean {
  return activeFeatures(config).some((f) => f.name === name);
}

/** A throw that says why, when the feature `name` is off with `config`. */
export function requireFeature(config: FeatureConfig, name: string): void {
  if (featureOn(config, name)) return;
  const f = FEATURES.find((x) => x.name === name);
  throw new Error(f?.offHint ?? `${name} is off`);
}
