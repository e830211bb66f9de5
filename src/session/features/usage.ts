/** A turn's token usage (`PromptResponse.usage`): a line at the turn's end, and in the status. */
import type { Feature } from "./feature.js";

export const usage: Feature = { name: "usage", unstable: true };
