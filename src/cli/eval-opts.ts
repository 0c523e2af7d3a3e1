/** Flags of `revloop eval` and its verbs `mine`, `replay` and `import` (one commander command declares them all). */
export interface EvalOpts {
  config?: string;
  against?: string;
  mode?: string;
  window?: string;
  format?: string;
  json?: boolean;
  out?: string;
  seed?: string;
  resamples?: string;
  keep?: string;
  jobs?: string;
  ledger?: string;
  // eval mine
  repo?: string;
  since?: string;
  source?: string[];
  // eval replay
  reviewer?: string;
  with?: string;
  store?: string;
  // eval import
  repos?: string;
  split?: string;
}
