/**
 * Live progress on a terminal: one line, rewritten in place, with the round,
 * stage, agent, elapsed time and money spent. Nothing at all when stdout is
 * not a terminal or --json is on: then only the result is printed.
 */
import type { LoopEvent } from '../loop/deps.js';
import type { CliIO } from './io.js';
import { terminalSafe } from './terminal-safe.js';

export function progressPrinter(io: CliIO, enabled: boolean, now: () => number = Date.now) {
  if (!enabled) return { onEvent: undefined, done: () => undefined };
  const started = now();
  let spent = 0;
  let round = 0;
  let stage = 'admit';
  let agent = '';
  const draw = () => {
    const secs = ((now() - started) / 1000).toFixed(1);
    const line = `revloop: round ${round} · ${stage}${agent ? ` · ${agent}` : ''} · ${secs}s · $${spent.toFixed(4)}`;
    io.progress(`\r\x1b[2K${terminalSafe(line)}`);
  };
  const onEvent = (e: LoopEvent) => {
    if (e.kind === 'stage') {
      round = e.round;
      stage = e.stage;
      agent = '';
    } else if (e.kind === 'call') agent = `${e.name}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`;
    else if (e.kind === 'call_done') spent += e.costUsd;
    else if (e.kind === 'retry') agent = `${e.name}: ${e.class}, retrying in ${Math.round(e.delayMs)} ms`;
    draw();
  };
  // Redraw every second, so a long call still shows time passing.
  const ticker = setInterval(draw, 1000);
  ticker.unref();
  return {
    onEvent,
    done: () => {
      clearInterval(ticker);
      io.progress('\r\x1b[2K');
    },
  };
}
