// Types of scripts/gen-schemas.mjs for the tests that import it.
export declare const ROOT: string;
export declare const OUT: { stable: string; unstable: string };
export declare function overrideNames(root?: string): string[];
export declare function generate(root?: string): Record<string, string>;
export declare function writeSchemas(root?: string): string[];
export declare function canGenerate(root?: string): boolean;
