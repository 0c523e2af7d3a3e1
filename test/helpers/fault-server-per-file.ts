/**
 * One fault server for a test file: started before its tests, its request
 * log emptied before each test (a test reads only its own requests), closed
 * after them.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type FaultServer, startFaultServer } from './fault-server.js';

export function faultServerPerFile(): { readonly server: FaultServer } {
  let started: FaultServer | undefined;
  beforeAll(async () => {
    started = await startFaultServer();
  });
  beforeEach(() => {
    if (started) started.requests.length = 0;
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get server(): FaultServer {
      if (!started) throw new Error('the fault server starts in beforeAll: read it inside a test or hook');
      return started;
    },
  };
}
