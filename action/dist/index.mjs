import { createRequire as __revloopRequire } from 'node:module';
const require = __revloopRequire(import.meta.url);

// src/action/main.ts
import { spawnSync as spawnSync2 } from "node:child_process";
import { closeSync, existsSync as existsSync2, openSync, readFileSync as readFileSync2, rmSync, writeFileSync as writeFileSync2 } from "node:fs";
import { tmpdir } from "node:os";
import { join as join2, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// src/action/refusal.ts
var Refusal = class extends Error {
  constructor(code, exit, message) {
    super(message);
    this.code = code;
    this.exit = exit;
  }
  code;
  exit;
};

// src/action/runner.ts
import { appendFileSync } from "node:fs";
var inputVar = (name) => `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
function input(env, name, fallback) {
  const v = env[inputVar(name)];
  return v === void 0 ? fallback : v.trim();
}
var commandData = (s) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
function annotate(kind, title, message) {
  process.stdout.write(`::${kind} title=${title}::${commandData(message)}
`);
}
function setOutputs(env, outputs) {
  const file = env.GITHUB_OUTPUT;
  if (!file) throw new Error("GITHUB_OUTPUT is not set");
  const lines = Object.entries(outputs).map(([k, v]) => `${k}=${v.replace(/[\r\n]+/g, " ")}
`);
  appendFileSync(file, lines.join(""));
}
function appendSummary(env, text) {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) throw new Error("GITHUB_STEP_SUMMARY is not set");
  appendFileSync(file, text);
}

// src/action/sqlite.ts
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
var pkgUrl = new URL("../../package.json", import.meta.url);
var lockUrl = new URL("../../package-lock.json", import.meta.url);
var DRIVER = "better-sqlite3";
function lockedDriver() {
  const lock = JSON.parse(readFileSync(lockUrl, "utf8"));
  const out = {};
  const want = [DRIVER];
  for (let name = want.pop(); name !== void 0; name = want.pop()) {
    const key = `node_modules/${name}`;
    const entry = lock.packages[key];
    if (!entry) throw new Error(`package-lock.json has no ${key}`);
    out[key] = entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) if (!out[`node_modules/${dep}`]) want.push(dep);
  }
  return out;
}
function installed(dir, version) {
  const manifest = join(dir, "node_modules", DRIVER, "package.json");
  if (!existsSync(manifest)) return false;
  return JSON.parse(readFileSync(manifest, "utf8")).version === version;
}
function ensureSqliteDriver(env, temp) {
  if (env.REVLOOP_SQLITE_DRIVER) return env.REVLOOP_SQLITE_DRIVER;
  try {
    createRequire(pkgUrl).resolve(DRIVER);
    return void 0;
  } catch {
  }
  const packages = lockedDriver();
  const version = packages[`node_modules/${DRIVER}`]?.version ?? "";
  const dir = join(temp, "revloop-sqlite");
  if (installed(dir, version)) return dir;
  process.stdout.write(`revloop: installing the SQLite driver ${DRIVER}@${version} into ${dir}
`);
  mkdirSync(dir, { recursive: true });
  const dependencies = { [DRIVER]: version };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true, dependencies }));
  writeFileSync(
    join(dir, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, requires: true, packages: { "": { dependencies }, ...packages } })
  );
  const npm = spawnSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: dir,
    env,
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"]
  });
  if (npm.status === 0 && installed(dir, version)) return dir;
  const why = npm.error ? `npm could not start: ${npm.error.message}` : `npm exited ${npm.status ?? npm.signal}: ${lastLine(npm.stderr)}`;
  throw new Refusal(
    "usage",
    2,
    `revloop review needs the SQLite driver ${DRIVER}@${version} for its ledger and could not install it (${why}); install it with npm install --prefix DIR ${DRIVER}@${version} and set REVLOOP_SQLITE_DRIVER=DIR`
  );
}
var lastLine = (s) => (s ?? "").split("\n").map((l) => l.trim()).filter(Boolean).pop() ?? "no message";

// src/action/summary.ts
var esc = (s) => String(s ?? "—").replace(/[|<>&`*_\\[\]]/g, (c) => `\\${c}`);
function verifySummary(r) {
  const head = r.ok ? "### ✅ revloop verify: ok" : `### ❌ revloop verify: refused (${esc(r.code)})`;
  return `${[
    head,
    "",
    "| | |",
    "|---|---|",
    `| reason | ${esc(r.reason)} |`,
    `| run | ${esc(r.runId)} |`,
    `| commit | ${esc(r.head)} |`,
    `| outcome | ${esc(r.outcome)} |`,
    `| key | ${esc(r.keyId?.slice(0, 16))} |`,
    ""
  ].join("\n")}
`;
}
function readVerifyResult(text, exit) {
  try {
    const r = JSON.parse(text ?? "");
    if (r && typeof r === "object") return r;
  } catch {
  }
  return {
    ok: false,
    code: "error",
    reason: `revloop verify exited ${exit} without a result; see the step's log`
  };
}

// src/action/main.ts
var CLI = fileURLToPath(new URL("./revloop.mjs", import.meta.url));
var MIN_NODE = 22;
function flag(env, name, fallback) {
  const v = input(env, name, fallback);
  if (v === "true" || v === "false") return v === "true";
  throw new Refusal("usage", 2, `input '${name}' must be 'true' or 'false', got '${v}'`);
}
function readInputs(env) {
  return {
    record: input(env, "record", ""),
    notesRef: input(env, "notes-ref", "revloop"),
    key: input(env, "key", ""),
    keysFrom: input(env, "keys-from", ""),
    target: input(env, "target", ""),
    allowFindings: flag(env, "allow-findings", "false"),
    review: flag(env, "review", "false"),
    publish: flag(env, "publish", "false"),
    requireConfined: flag(env, "require-confined", "true"),
    githubToken: input(env, "github-token", ""),
    workingDirectory: input(env, "working-directory", ".")
  };
}
var Job = class {
  constructor(env, cwd) {
    this.env = env;
    this.cwd = cwd;
    this.temp = env.RUNNER_TEMP || tmpdir();
    this.childEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("INPUT_")));
  }
  env;
  cwd;
  temp;
  /** The environment of every revloop the action starts: the job's, without the action's inputs (the token). */
  childEnv;
  git(args) {
    const r = spawnSync2("git", args, { cwd: this.cwd, env: this.childEnv, encoding: "utf8" });
    return { ok: r.status === 0, stdout: r.stdout ?? "" };
  }
  /** The target branch's full refname after fetching it (a tag of the same short name can never stand in). */
  baseRef() {
    const base = this.env.GITHUB_BASE_REF;
    if (!base) return void 0;
    this.git(["fetch", "--quiet", "origin", `+refs/heads/${base}:refs/remotes/origin/${base}`]);
    return `refs/remotes/origin/${base}`;
  }
  /** Runs the bundled CLI; stdout to `out` (appended with `append`) or to the step's log. */
  revloop(args, o = {}) {
    const fd = o.out ? openSync(o.out, o.append ? "a" : "w") : "inherit";
    try {
      const opts = {
        cwd: this.cwd,
        env: { ...this.childEnv, ...o.env },
        stdio: ["ignore", fd, "inherit"]
      };
      const r = spawnSync2(process.execPath, [CLI, ...args], opts);
      if (r.error) process.stdout.write(`revloop could not start: ${r.error.message}
`);
      return r.status ?? 70;
    } finally {
      if (typeof fd === "number") closeSync(fd);
    }
  }
};
function refuse(env, r) {
  annotate("error", "revloop verify", r.message);
  appendSummary(env, `### ❌ revloop verify: no record (${r.code})

${r.message}
`);
  setOutputs(env, { ok: "false", code: r.code, "run-id": "" });
  return r.exit;
}
var runIdOf = (file) => {
  try {
    const id = JSON.parse(readFileSync2(file, "utf8")).runId;
    return typeof id === "string" ? id : "";
  } catch {
    return "";
  }
};
function review(job, inp) {
  const sqlite = ensureSqliteDriver(job.childEnv, job.temp);
  const env = sqlite ? { REVLOOP_SQLITE_DRIVER: sqlite } : {};
  const out = join2(job.temp, "revloop-record.json");
  const json = join2(job.temp, "revloop-review.json");
  rmSync(out, { force: true });
  const base = job.baseRef();
  const args = ["review", ...base ? ["--base", base] : []];
  if (inp.requireConfined) args.push("--require-confined");
  const exit = job.revloop([...args, "--json", "--out", out], { out: json, env });
  const runId = runIdOf(json);
  if (runId) {
    job.revloop(["export", runId, "--format", "markdown"], {
      out: job.env.GITHUB_STEP_SUMMARY,
      append: true,
      env
    });
    job.revloop(["export", runId, "--format", "github"], { env });
  }
  process.stdout.write(`review exited ${exit}
`);
  if (runId && inp.publish) publish(job, runId, inp, env);
  else if (inp.publish) process.stdout.write("revloop publish: no run to publish\n");
  return { record: existsSync2(out) ? out : "", exit, runId };
}
function publish(job, runId, inp, env) {
  const code = job.revloop(["publish", runId, "--to", "github", "--json"], {
    out: join2(job.temp, "revloop-publish.json"),
    env: { ...env, ...inp.githubToken ? { GITHUB_TOKEN: inp.githubToken } : {} }
  });
  if (code !== 0) annotate("warning", "revloop publish", `publish exited ${code}; see the log line above`);
}
function noRecord(exit) {
  if (exit === 2)
    return new Refusal("usage", 2, "revloop review did not start (exit 2): see the review's log above");
  if (exit === 14)
    return new Refusal(
      "not_confined",
      14,
      "revloop review refused to run unconfined (exit 14): this runner has no working bwrap; install bubblewrap (docs/security.md) or set require-confined: 'false'"
    );
  return new Refusal(
    "not_completed",
    exit === 0 || exit === 1 ? 3 : exit,
    `revloop review wrote no record: the run did not complete (review exited ${exit}; see the summary)`
  );
}
function verify(job, inp, reviewed) {
  let record = inp.record || reviewed?.record || "";
  if (!record && reviewed) throw noRecord(reviewed.exit);
  if (!record && inp.notesRef) {
    const ref = `refs/notes/${inp.notesRef}`;
    job.git(["fetch", "--quiet", "origin", `${ref}:${ref}`]);
    const note = job.git(["notes", `--ref=${inp.notesRef}`, "show", "HEAD"]);
    if (note.ok) {
      record = join2(job.temp, "revloop-note.json");
      writeFileSync2(record, note.stdout);
    }
  }
  const args = [];
  if (inp.key) {
    for (const k of inp.key.split("\n").map((s) => s.trim())) if (k) args.push("--key", k);
  } else {
    const keysFrom = inp.keysFrom || job.baseRef();
    if (keysFrom) args.push("--keys-from", keysFrom);
  }
  const target = inp.target || job.baseRef();
  if (target) args.push("--target", target);
  if (inp.allowFindings) args.push("--allow-findings");
  if (!record) {
    const head = job.git(["rev-parse", "--short", "HEAD"]).stdout.trim() || "HEAD";
    throw new Refusal(
      "usage",
      2,
      `no revloop record for ${head}: pass 'record', publish one as a git note under refs/notes/${inp.notesRef}, or set 'review: true'`
    );
  }
  const out = join2(job.temp, "revloop-verify.json");
  const exit = job.revloop(["verify", record, "--json", ...args], { out });
  const r = readVerifyResult(existsSync2(out) ? readFileSync2(out, "utf8") : null, exit);
  appendSummary(job.env, verifySummary(r));
  setOutputs(job.env, { ok: String(r.ok === true), code: String(r.code), "run-id": r.runId ?? "" });
  if (!r.ok) annotate("error", "revloop verify", `${r.code}: ${r.reason}`);
  return r.ok ? exit : exit || 70;
}
function runAction(env) {
  try {
    const major = Number(process.versions.node.split(".")[0]);
    if (major < MIN_NODE)
      throw new Refusal(
        "usage",
        2,
        `revloop needs Node.js ${MIN_NODE} or later and this step runs Node.js ${process.versions.node}`
      );
    const inp = readInputs(env);
    const job = new Job(env, resolve(env.GITHUB_WORKSPACE || process.cwd(), inp.workingDirectory));
    const reviewed = inp.review ? review(job, inp) : null;
    return verify(job, inp, reviewed);
  } catch (err) {
    if (err instanceof Refusal) return refuse(env, err);
    annotate("error", "revloop verify", `revloop action: ${String(err?.message ?? err)}`);
    try {
      setOutputs(env, { ok: "false", code: "error", "run-id": "" });
    } catch {
    }
    return 70;
  }
}
process.exitCode = runAction(process.env);
export {
  runAction
};
