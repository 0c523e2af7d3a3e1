#!/usr/bin/env node
// Runs inside a network namespace that has only loopback (`unshare -rn`):
// `netless-bridge.mjs <unix-socket> <port> <command> [args...]` listens on
// 127.0.0.1:<port>, forwards each connection to the Unix socket of the
// loopback model server outside the namespace, then runs the command with
// stdio passed through and exits as it did. The command can reach that one
// server and nothing else: there is no other network in the namespace.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const [socketPath, port, command, ...args] = process.argv.slice(2);
if (!socketPath || !port || !command) {
  process.stderr.write('usage: netless-bridge.mjs <unix-socket> <port> <command> [args...]\n');
  process.exit(64);
}
const bridge = createServer((inside) => {
  const outside = connect(socketPath);
  inside.pipe(outside).pipe(inside);
  const drop = () => {
    inside.destroy();
    outside.destroy();
  };
  inside.on('error', drop);
  outside.on('error', drop);
});
bridge.listen(Number(port), '127.0.0.1', () => {
  // Same process group: revloop's deadline kill reaches the command and this bridge alike.
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (err) => {
    process.stderr.write(`netless-bridge: ${command}: ${err.message}\n`);
    process.exit(127);
  });
  for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
});
