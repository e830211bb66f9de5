// Types of scripts/gen-contract-meta.mjs for the tests that import it.
export declare const ROOT: string;
export declare const LUA_OUT: { names: string; meta: string };
export declare function contractMeta(root?: string): string;
export declare function canGenerate(): boolean;
