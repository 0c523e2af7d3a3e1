/** The controller version pinned in every snapshot: a verdict is replayable only under the same controller. */
export const CONTROLLER_VERSION = 'revloop/0.1.0';
