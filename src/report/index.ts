/** Report renderers: pure functions of a RunReport. */
export { type AnnotationLimits, GITHUB_LIMITS, toGithubAnnotations } from './github-annotations.js';
export { toJunit } from './junit.js';
export { MARKDOWN_MAX_BYTES, type MarkdownOptions, toMarkdown } from './markdown.js';
export { toRdjson } from './rdjson.js';
export { SARIF_SCHEMA_URI, type SarifOptions, toSarif } from './sarif.js';
export { renderRunSummary } from './terminal.js';
