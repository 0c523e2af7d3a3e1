/**
 * The kill harness's hook: `REVLOOP_CRASH_AT=name[@n]` kills this process with
 * SIGKILL the n-th time (default 1st) the driver passes the boundary `name`
 * (`before:review`, `call:fix`, `before-complete:decide`, `after:finish`, ...).
 * Read once at the composition root and passed in as a plain function.
 */
export function crashPointFromEnv(
  value: string | undefined,
  kill: () => void,
): ((name: string) => void) | undefined {
  if (!value) return undefined;
  const [target, nth] = value.split('@');
  const wanted = Math.max(1, Number(nth ?? '1') || 1);
  let seen = 0;
  return (name: string) => {
    if (name !== target) return;
    seen++;
    if (seen === wanted) kill();
  };
}
