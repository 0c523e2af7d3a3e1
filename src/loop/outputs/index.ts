/**
 * The outputs room: what a run leaves behind once the ledger ended it: the
 * signed record (write-record.ts), the escalation report (escalation.ts), and
 * the run as the outputs read it from the ledger (run-report-loader.ts).
 * Other rooms import it from here only.
 */
export { escalationJson, escalationMarkdown, writeEscalation } from './escalation.js';
export { loadOutputReport, loadRunReport } from './run-report-loader.js';
export { recordFromLedger, signingKeyPath, writeRunOutputs, writeRunRecord } from './write-record.js';
