/**
 * The run room: the driver that holds a run through its lease and walks it
 * round by round (driver.ts, in the order core/round-step.ts gives), what it
 * knows of the run (run-context.ts), the stages (stages/), and the facts they
 * read from git and the ledger. Other rooms import it from here only.
 */
export { type DriveOptions, type DriveResult, driveRun } from './driver.js';
export { haveFixCommit } from './fix-bundles.js';
