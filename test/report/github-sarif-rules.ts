/**
 * GitHub code scanning's documented SARIF rules, as a checker: what an upload
 * needs beyond the OASIS schema (test/fixtures/sarif) to become correct
 * alerts. Each rule cites where GitHub (or the SARIF standard GitHub points
 * to) says it. DOC is "SARIF support for code scanning", github/docs
 * content/code-security/code-scanning/integrating-with-code-scanning/
 * sarif-support-for-code-scanning.md (read at commit 058fa63b); the section
 * names are that page's headings. UPLOAD is github/codeql-action
 * src/fingerprints.ts, the code the `upload-sarif` action runs on a file.
 *
 * `checkGithubSarif` returns one line per violation ("rule: where: what"),
 * so a test can assert the empty list and show every break at once.
 */

// biome-ignore lint/suspicious/noExplicitAny: the checker walks untyped SARIF JSON.
type J = any;

export interface GithubSarifOptions {
  /** The same change's other analyses (e.g. the base branch's), to compare categories and rule ids. */
  alongside?: J[];
}

const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/** "category is everything in the string until the last forward slash" (DOC, `runAutomationDetails` object). */
export function category(run: J): string | null {
  const id = run?.automationDetails?.id;
  if (typeof id !== 'string' || !id.includes('/')) return null;
  return id.slice(0, id.lastIndexOf('/'));
}

export function checkGithubSarif(log: J, opts: GithubSarifOptions = {}): string[] {
  const out: string[] = [];
  const bad = (rule: string, where: string, what: string) => out.push(`${rule}: ${where}: ${what}`);

  // DOC, `sarifLog` object: $schema, version (only 2.1.0) and runs[] are required.
  // DOC, note above the tables: "The empty string is not supported for required properties."
  if (!nonEmpty(log?.$schema)) bad('sarifLog.$schema', '$', 'required');
  if (log?.version !== '2.1.0') bad('sarifLog.version', '$', 'code scanning only supports 2.1.0');
  if (!Array.isArray(log?.runs) || log.runs.length === 0) {
    bad('sarifLog.runs', '$', 'one or more runs are required');
    return out;
  }
  log.runs.forEach((run: J, r: number) => {
    const at = `runs[${r}]`;
    // DOC, `run` object: tool.driver and results[] are required.
    const driver = run?.tool?.driver;
    if (!driver) bad('run.tool.driver', at, 'required');
    if (!Array.isArray(run?.results)) bad('run.results', at, 'required (an array)');
    // DOC, `toolComponent` object: name and rules[] are required.
    if (!nonEmpty(driver?.name)) bad('toolComponent.name', at, 'required');
    const rules: J[] = Array.isArray(driver?.rules) ? driver.rules : [];
    if (!Array.isArray(driver?.rules)) bad('toolComponent.rules', at, 'required');
    // DOC, `toolComponent` object: semanticVersion is "specified by the Semantic Versioning 2.0 format".
    if (driver?.semanticVersion !== undefined && !/^\d+\.\d+\.\d+(?:[-+].*)?$/.test(driver.semanticVersion))
      bad('toolComponent.semanticVersion', at, `not Semantic Versioning 2.0: ${driver.semanticVersion}`);
    rules.forEach((rule: J, i: number) => {
      const w = `${at}.tool.driver.rules[${i}]`;
      // DOC, `reportingDescriptor` object: id, shortDescription.text, fullDescription.text and help.text are required.
      for (const k of ['id', 'shortDescription.text', 'fullDescription.text', 'help.text'] as const) {
        const v = k.split('.').reduce((o: J, p) => o?.[p], rule);
        if (!nonEmpty(v)) bad(`reportingDescriptor.${k}`, w, 'required');
      }
      // DOC, same table: name up to 255 characters, the descriptions up to 1024.
      if (typeof rule?.name === 'string' && rule.name.length > 255)
        bad('reportingDescriptor.name', w, '> 255');
      for (const k of ['shortDescription', 'fullDescription'])
        if ((rule?.[k]?.text ?? '').length > 1024) bad(`reportingDescriptor.${k}.text`, w, '> 1024');
      // DOC, same table: defaultConfiguration.level is one of note, warning, error.
      const lvl = rule?.defaultConfiguration?.level;
      if (lvl !== undefined && !['note', 'warning', 'error'].includes(lvl))
        bad('reportingDescriptor.defaultConfiguration.level', w, `invalid: ${lvl}`);
    });
    const ids = rules.map((x: J) => x?.id);
    if (new Set(ids).size !== ids.length) bad('reportingDescriptor.id', at, 'rule ids must be unique');

    // DOC, "Uploading more than one SARIF file for a commit": a later upload with the same
    // category and tool overwrites the earlier one; analyses are compared within a category,
    // so a pull request's and its base branch's must share it.
    for (const other of opts.alongside ?? []) {
      const o = other?.runs?.[0];
      if (category(o) !== category(run))
        bad('runAutomationDetails.id', at, `category ${category(run)} differs from ${category(o)}`);
      // DOC, "Providing data to track code scanning alerts across runs": "The ruleID for a result has to be the same across analysis."
      const theirs = (o?.tool?.driver?.rules ?? []).map((x: J) => x?.id);
      if (JSON.stringify(theirs) !== JSON.stringify(ids))
        bad('result.ruleId', at, 'rule ids differ between analyses');
    }

    const seenPrints = new Map<string, string>();
    (run?.results ?? []).forEach((res: J, i: number) => {
      const w = `${at}.results[${i}]`;
      // DOC, `result` object: message.text is required.
      if (!nonEmpty(res?.message?.text)) bad('result.message.text', w, 'required');
      // DOC, `result` object: ruleId and ruleIndex name the rule (reportingDescriptor.id / its index); "Specifying both ... might lead to inconsistencies".
      if (res?.ruleId !== undefined && !ids.includes(res.ruleId))
        bad('result.ruleId', w, `no rule ${res.ruleId}`);
      if (res?.ruleIndex !== undefined && ids[res.ruleIndex] !== res.ruleId)
        bad('result.ruleIndex', w, `rules[${res.ruleIndex}] is not ${res.ruleId}`);
      // DOC, `result` object: locations[] is required, at most 10, and "At least one location is required".
      const locs = res?.locations;
      if (!Array.isArray(locs) || locs.length === 0 || locs.length > 10)
        bad('result.locations', w, '1 to 10 required');
      const loc = locs?.[0]?.physicalLocation;
      // DOC, `physicalLocation` object: artifactLocation.uri is required, best "a relative path from the root of
      // the GitHub repository being analyzed. For example, `src/main.js`."; DOC, "Reporting consistent filepaths".
      // UPLOAD (resolveUriToFile): the uri is percent-decoded and looked up under the checkout, so `src%5Cwallet.js` finds nothing.
      const uri = loc?.artifactLocation?.uri;
      if (!nonEmpty(uri)) bad('physicalLocation.artifactLocation.uri', w, 'required');
      else {
        let decoded = '';
        try {
          decoded = decodeURIComponent(uri);
        } catch {
          bad('physicalLocation.artifactLocation.uri', w, `not a valid URI reference: ${uri}`);
        }
        if (/\\/.test(decoded)) bad('physicalLocation.artifactLocation.uri', w, `backslash in path: ${uri}`);
        if (/^[a-z][a-z0-9+.-]*:/i.test(decoded) || decoded.startsWith('/'))
          bad('physicalLocation.artifactLocation.uri', w, `not repository-relative: ${uri}`);
        if (decoded.split('/').some((s) => s === '..' || s === '.' || s === ''))
          bad('physicalLocation.artifactLocation.uri', w, `not a normalised relative path: ${uri}`);
      }
      // DOC, `physicalLocation` object: region.startLine is required (a positive line number).
      // The table also marks startColumn, endLine and endColumn required, yet the page's own
      // examples give `{ "startLine": 2 }` alone; we require what a whole-line finding can state.
      const region = loc?.region;
      if (!(Number.isInteger(region?.startLine) && region.startLine >= 1))
        bad('region.startLine', w, 'required');
      if (region?.endLine !== undefined && region.endLine < region.startLine)
        bad('region.endLine', w, '< startLine');
      // DOC, `result` object: partialFingerprints is required; DOC, "Including data for fingerprint generation":
      // results whose fingerprints are equal are "logically identical", one alert.
      const fp = res?.partialFingerprints;
      if (!fp || typeof fp !== 'object' || Object.keys(fp).length === 0)
        bad('result.partialFingerprints', w, 'required');
      else {
        const key = JSON.stringify(Object.entries(fp).sort());
        const place = `${uri}:${region?.startLine}`;
        const prior = seenPrints.get(key);
        if (prior !== undefined && prior !== place)
          bad('result.partialFingerprints', w, `shared with a result at ${prior}, here ${place}`);
        seenPrints.set(key, place);
      }
    });
    // DOC, `result` object: "SARIF upload supports a maximum of 25,000 results per run" (uploads above are rejected).
    if ((run?.results ?? []).length > 25_000) bad('run.results', at, 'more than 25,000 results');
  });
  return out;
}

/**
 * SARIF 2.1.0, Appendix I (informative), "Detecting incomplete result sets", the rule a consumer
 * applies (GitHub's upload API answers such a file as an "unsuccessful execution",
 * github/codeql-action#1732): a result set is incomplete when an invocation has
 * `executionSuccessful: false`, or a tool execution notification has level `error`.
 */
export function incompleteBecause(log: J): string[] {
  const out: string[] = [];
  for (const run of log?.runs ?? [])
    for (const inv of run?.invocations ?? []) {
      if (inv?.executionSuccessful === false) out.push('executionSuccessful: false');
      for (const n of inv?.toolExecutionNotifications ?? [])
        if (n?.level === 'error') out.push(`error notification: ${n?.message?.text}`);
    }
  return out;
}
