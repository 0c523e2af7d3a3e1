// Types of template.mjs, for the TypeScript tests that share the harness's fixture.
export declare const AGENTS: string;
export declare const REVIEWERS: string[];
export declare const CALC_LINES: number;
export declare function gitEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
export declare function git(dir: string, args: string[]): string;
export declare function featureSource(bugs: number): string;
export declare function buildTemplate(
  dir: string,
  opts?: { bugs?: number; callSeconds?: number; wallSeconds?: number },
): { base: string; head: string };
