/** What the API adapters' contract files share: a call after a queued fault, an aborted call, the teardown. */
import type { CallResult } from '../../../src/ports/reviewer.js';
import { type Fault, type FaultServer, faults } from '../../helpers/fault-server.js';
import { cleanupDirs } from '../call-request.js';
import { detailHas, type Variant } from './reviewer-contract.js';

export interface CallOpts<C> {
  over?: Partial<C>;
  deadlineInMs?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}
export type ServerCall<C> = (server: FaultServer, o?: CallOpts<C>) => Promise<CallResult>;

/** A call answered by `fault`, the next in the server's queue. */
export const afterFault =
  <C>(call: ServerCall<C>) =>
  (fault: Fault, o: CallOpts<C> = {}) =>
  (server: FaultServer): Promise<CallResult> => {
    server.push(fault);
    return call(server, o);
  };

/** revloop aborts a call while the endpoint stalls: unknown, never a retry. */
export const abortedStall = <C>(call: ServerCall<C>): Variant<FaultServer> => ({
  name: 'revloop aborts a call to a stalled endpoint',
  call: (server) => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    return afterFault(call)(faults.stall(), { signal: ac.signal })(server);
  },
  check: detailHas('interrupted'),
});

export async function closeServer(server: FaultServer): Promise<void> {
  await server.close();
  cleanupDirs();
}
