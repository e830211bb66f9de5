/**
 * What the feature modules' views get from view-model.ts: its blockView, for the blocks a
 * subagent's block holds (the two recurse into each other, and these modules do not import
 * view-model.ts back).
 */
export interface ViewHelpers {
  blockView: (b: never) => unknown;
}
