/*
 * revloop's admission and lease protocol, as the PostgreSQL store runs it
 * (src/store/postgres/store.ts) and the loop drives it (src/loop/operations.ts,
 * src/loop/driver.ts, src/loop/lease-keeper.ts). docs/architecture.md
 * ("The lease protocol, model-checked") maps every transition below to the
 * SQL statement or function that implements it: change one, change the other.
 *
 * NW processes (each one `revloop enqueue`, `revloop review` or `revloop worker`,
 * chosen anew whenever it is idle) share one ledger with NR run rows over NK
 * admission keys. While it drives a run, a process may crash (kill -9: its
 * session ends, its transaction rolls back, and a new process starts), stall
 * (SIGSTOP, a frozen VM, a heartbeat too late; it comes back at the same
 * step), be asked to stop (SIGTERM) or fail to write its outputs after the
 * end, at any step, MAXFAULTS times in all. (Elsewhere a crash or a stall
 * touches no shared state: it is a review that gives up, or a delay, which
 * interleaving already covers.) Time is the database's: a lease expires once
 * its holder stopped heartbeating (stalled, dead, gave the run up); one clock
 * for every process.
 *
 * Properties:
 *   assertions  at most one queued/running/completed run per admission key
 *               (invariant 3); every applied fenced write carries the run's
 *               current token (invariant 13) and finds the run not terminal;
 *               stage completions land exactly once, in order.
 *   ltl ends    under weak fairness every admitted run ends.
 *
 * Mutants (spin -D...): NO_FENCE drops checkFence, NO_UNIQUE drops the partial
 * unique index on admission_key, NO_ROWLOCK reads the token without FOR UPDATE,
 * NO_EXPIRY never takes over an expired or dead owner's lease. Each must fail.
 */

#ifndef NW
#define NW 3
#endif
#define NK 2
#define NR 3
#define STAGES 1
#ifndef MAXADMIT
#define MAXADMIT 2
#endif
#ifndef MAXFAULTS
#define MAXFAULTS 1
#endif

#define NONE 255

/* runs.status; FAILED stands for every end that frees the key (failed, aborted, timed_out, unknown) */
#define QUEUED 1
#define RUNNING 2
#define COMPLETED 3
#define FAILED 4
#define HELD(s) ((s) == QUEUED || (s) == RUNNING || (s) == COMPLETED)
#define ACTIVE(s) ((s) == QUEUED || (s) == RUNNING)
#define TERMINAL(s) ((s) >= COMPLETED)

/* ---- the ledger: the runs table ---- */
byte st[NR];        /* status; 0 = no row yet */
byte key[NR];       /* admission_key */
byte tok[NR];       /* fencing_token */
byte owner[NR];     /* lease_owner: the process, or NONE */
byte oinc[NR];      /* lease_owner's pid: which incarnation of that process */
bool expired[NR];   /* lease_expires_at <= revloop_now_ms() */
byte done[NR];      /* stage completions recorded */
byte rowlock[NR];   /* the process whose open transaction holds the row lock, or NONE */
byte nruns;

/* ---- the processes ---- */
byte inc[NW];       /* a crash or an exit starts a new process: a new pid */
bool stalled[NW];
byte held[NW];      /* the run the lease keeper heartbeats, or NONE */
byte htok[NW];      /* the token of that lease */
bool lost[NW];      /* the keeper saw a heartbeat fenced out */
byte faults;
byte admits;

#define CLAIMABLE(r) (st[r] == QUEUED || st[r] == RUNNING && (owner[r] == NONE || EXPIRED(r)))
#ifdef NO_EXPIRY
#define EXPIRED(r) false
#else
#define EXPIRED(r) expired[r]
#endif
#define HK(k, r) (HELD(st[r]) && key[r] == (k))
#define KEY_OK(k) (HK(k, 0) + HK(k, 1) + HK(k, 2) <= 1)
#define KEYS_OK (KEY_OK(0) && KEY_OK(1))
/* The holder's keeper is heartbeating this very lease. */
#define BEATING(r) (owner[r] != NONE && inc[owner[r]] == oinc[r] && !stalled[owner[r]] \
                    && held[owner[r]] == (r) && htok[owner[r]] == tok[r] && !lost[owner[r]])

/* Every applied fenced write: the writer's token is current and the run has not ended. */
#define FENCED_WRITE_OK(r, t) assert(tok[r] == (t)); assert(!TERMINAL(st[r]))

/* A process's steps */
#define IDLE 0
#define A_READ 1     /* the held-key read (lock-free, then again under the advisory lock) */
#define A_INSERT 2   /* INSERT ... ON CONFLICT (admission_key) WHERE held DO NOTHING, COMMIT */
#define JOIN 3       /* joinRun -> takeOver: acquireLease, then acquireLease(ifToken) for a dead pid */
#define BOUNDARY 4   /* driver: lease lost? stop requested? else the next fenced write begins */
#define COMMIT 5     /* the fenced write itself, and COMMIT */
#define ERR 6        /* a store error other than fenced_out: a session ended, an output not written */

/* how the process came to hold its run, and what its open transaction writes */
#define ENQUEUE 1
#define REVIEW 2
#define WORKER 3
#define TX_STAGE 1
#define TX_COMPLETE 2
#define TX_FAIL 3
#define TX_UNKNOWN 4

/* A claim or takeover: one UPDATE that bumps the token (claimNext, acquireLease); driveRun then
   starts the keeper and reads the stages the ledger holds. */
inline take(r) {
  st[r] = RUNNING;
  tok[r]++;
  owner[r] = w;
  oinc[r] = inc[w];
  expired[r] = false;
  cur = r;
  mytok = tok[r];
  seen = done[r];
  held[w] = r;
  htok[w] = tok[r];
  lost[w] = false;
  cown = 0; cinc = 0; ctok = 0;
  pc = BOUNDARY
}

/* The lowest unlocked claimable row: ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED. */
inline claimNext() {
  i = 0;
  do
  :: i < nruns && CLAIMABLE(i) && rowlock[i] == NONE -> mode = WORKER; take(i); break
  :: i < nruns && !(CLAIMABLE(i) && rowlock[i] == NONE) -> i++
  :: i >= nruns -> break
  od;
  i = 0
}

inline findHeld(kk) {
  found = NONE;
  i = 0;
  do
  :: i < nruns && HK(kk, i) -> found = i; break
  :: i < nruns && !HK(kk, i) -> i++
  :: i >= nruns -> break
  od;
  i = 0
}

/* What joinRun reads of the run, each time round its loop. */
inline readRun(r) {
  if
  :: TERMINAL(st[r]) -> pc = IDLE; mode = 0; cur = NONE; cown = 0; cinc = 0; ctok = 0
  :: else -> cur = r; cown = owner[r]; cinc = oinc[r]; ctok = tok[r]; pc = JOIN
  fi
}

/* The admission answered with a run: enqueue is done, review joins it. */
inline answered(r) {
  k = 0;
  if
  :: mode == REVIEW -> readRun(r)
  :: else -> pc = IDLE; mode = 0
  fi;
  found = 0
}

inline forget() {
  held[w] = NONE; htok[w] = 0;
  pc = IDLE; mode = 0; cur = NONE; seen = 0; mytok = 0; txk = 0
}

/* The process is gone: its session ends (its transaction rolls back), a new one starts idle. */
inline restart() {
  if
  :: cur != NONE && rowlock[cur] == w -> rowlock[cur] = NONE
  :: else -> skip
  fi;
  lost[w] = false; inc[w]++; aborted = false;
  k = 0; cown = 0; cinc = 0; ctok = 0;
  forget()
}

/* PostgresStore.fenced: SELECT fencing_token, status ... FOR UPDATE, then checkFence. */
inline lockAndCheck() {
#ifndef NO_ROWLOCK
  rowlock[cur] = w;
#endif
  aborted = false;
#ifdef NO_FENCE
  pc = COMMIT
#else
  if
  :: tok[cur] == mytok && !TERMINAL(st[cur]) -> pc = COMMIT
  :: else -> /* FencedOutError: rolled back; the driver detaches, the worker's catch gives up */
     if :: rowlock[cur] == w -> rowlock[cur] = NONE :: else -> skip fi;
     forget()
  fi
#endif
}

inline unlock() {
  if :: rowlock[cur] == w -> rowlock[cur] = NONE :: else -> skip fi
}

proctype Process(byte w) {
  byte pc = IDLE, mode, k, cur = NONE, seen, txk, cown, cinc, ctok, mytok, found, i;
  bool aborted;
  do
  /* ---- faults while the process drives a run: kill -9, SIGSTOP and SIGCONT ---- */
  :: d_step { !stalled[w] && pc >= BOUNDARY && faults < MAXFAULTS -> faults++; restart() }
  :: d_step { !stalled[w] && pc >= BOUNDARY && faults < MAXFAULTS -> faults++; stalled[w] = true }
  :: d_step { stalled[w] -> stalled[w] = false }
  /* idle_in_transaction_session_timeout ends a stalled session: its transaction rolls back */
  :: d_step { stalled[w] && cur != NONE && rowlock[cur] == w -> rowlock[cur] = NONE; aborted = true }

  /* ---- admission (admit in src/loop/admission.ts, PostgresStore.admit) ---- */
  :: d_step { !stalled[w] && pc == IDLE && admits < MAXADMIT -> admits++; mode = ENQUEUE; k = 0; pc = A_READ }
  :: d_step { !stalled[w] && pc == IDLE && admits < MAXADMIT -> admits++; mode = ENQUEUE; k = 1; pc = A_READ }
  :: d_step { !stalled[w] && pc == IDLE && admits < MAXADMIT -> admits++; mode = REVIEW; k = 0; pc = A_READ }
  :: d_step { !stalled[w] && pc == IDLE && admits < MAXADMIT -> admits++; mode = REVIEW; k = 1; pc = A_READ }
  :: d_step { !stalled[w] && pc == A_READ ->
       findHeld(k);
       if
       :: found != NONE -> answered(found)
       :: else -> pc = A_INSERT; found = 0
       fi }
  :: d_step { !stalled[w] && pc == A_INSERT ->
#ifdef NO_UNIQUE
       found = NONE;
#else
       findHeld(k);
#endif
       if
       :: found != NONE -> answered(found)
       :: else ->
          assert(nruns < NR);
          st[nruns] = QUEUED; key[nruns] = k; owner[nruns] = NONE; nruns++;
          assert(KEYS_OK);
          answered(nruns - 1)
       fi }

  /* ---- the worker's lanes (runWorker: claimNext, else poll again) ---- */
  :: d_step { !stalled[w] && pc == IDLE -> claimNext() }

  /* ---- review joins its run (joinRun -> takeOver); on no lease it sleeps and reads the run
     again, or gives up at wall time + 60 s ---- */
  :: d_step { !stalled[w] && pc == JOIN && rowlock[cur] == NONE ->
       if
       :: ACTIVE(st[cur]) && (owner[cur] == NONE || EXPIRED(cur)) -> take(cur)
#ifndef NO_EXPIRY
       :: !(ACTIVE(st[cur]) && (owner[cur] == NONE || expired[cur])) &&
          cown != NONE && !(cown == w && cinc == inc[w]) && inc[cown] != cinc &&
          ACTIVE(st[cur]) && tok[cur] == ctok -> take(cur)
#endif
       :: else -> readRun(cur)
       fi }
  :: d_step { !stalled[w] && pc == JOIN -> pc = IDLE; mode = 0; cur = NONE; cown = 0; cinc = 0; ctok = 0 }

  /* ---- the driver (driveRun: walk's boundaries, each stage's fenced write, finish) ---- */
  :: d_step { !stalled[w] && pc == BOUNDARY && lost[w] -> forget() }
  /* SIGTERM: StopRequestedError at the boundary, releaseLease (its WHERE names the token, not
     the status), and the process exits */
  :: d_step { !stalled[w] && pc == BOUNDARY && !lost[w] && rowlock[cur] == NONE && faults < MAXFAULTS ->
       faults++;
       if
       :: tok[cur] == mytok -> assert(!TERMINAL(st[cur])); owner[cur] = NONE; expired[cur] = false
       :: else -> skip
       fi;
       restart() }
  :: d_step { !stalled[w] && pc == BOUNDARY && !lost[w] && rowlock[cur] == NONE && seen < STAGES ->
       txk = TX_STAGE; lockAndCheck() }
  :: d_step { !stalled[w] && pc == BOUNDARY && !lost[w] && rowlock[cur] == NONE && seen == STAGES ->
       txk = TX_COMPLETE; lockAndCheck() }
  :: d_step { !stalled[w] && pc == BOUNDARY && !lost[w] && rowlock[cur] == NONE && seen == STAGES ->
       txk = TX_FAIL; lockAndCheck() }

  :: d_step { !stalled[w] && pc == COMMIT && aborted -> pc = ERR; aborted = false }
  :: d_step { !stalled[w] && pc == COMMIT && !aborted ->
       FENCED_WRITE_OK(cur, mytok);
       if
       :: txk == TX_STAGE -> assert(done[cur] == seen); done[cur]++; seen++
       :: txk == TX_COMPLETE -> assert(done[cur] == STAGES); st[cur] = COMPLETED
       :: else -> st[cur] = FAILED
       fi;
       if
       :: txk != TX_STAGE -> owner[cur] = NONE; expired[cur] = false; assert(KEYS_OK)
       :: else -> skip
       fi;
       unlock();
       if
       :: txk == TX_STAGE -> pc = BOUNDARY; txk = 0
       :: txk == TX_UNKNOWN -> forget()
       /* finish: the record and outputs are written from the ledger, then the keeper stops */
       :: else -> forget()
       fi }
  /* ... or writing them fails: a worker error after the end */
  :: d_step { !stalled[w] && pc == COMMIT && !aborted && (txk == TX_COMPLETE || txk == TX_FAIL) &&
              faults < MAXFAULTS ->
       faults++;
       FENCED_WRITE_OK(cur, mytok);
       st[cur] = (txk == TX_COMPLETE -> COMPLETED : FAILED);
       owner[cur] = NONE; expired[cur] = false; assert(KEYS_OK);
       unlock();
       pc = ERR; txk = 0 }
  /* A store error: the keeper stops; the worker's catch ends the run `unknown` with the same
     lease, once (runWorker); review's driveRun throws to the command */
  :: d_step { !stalled[w] && pc == ERR && mode == WORKER && txk != TX_UNKNOWN && rowlock[cur] == NONE ->
       held[w] = NONE; htok[w] = 0; txk = TX_UNKNOWN; lockAndCheck() }
  :: d_step { !stalled[w] && pc == ERR && (mode != WORKER || txk == TX_UNKNOWN) -> forget() }

  /* ---- the lease keeper (keepLease): a heartbeat is a fenced UPDATE of lease_expires_at; it
     changes the ledger only once the lease has expired, or is refused (the run was taken over
     or ended), so only those heartbeats are steps ---- */
  :: d_step { !stalled[w] && held[w] != NONE && !lost[w] && rowlock[held[w]] == NONE &&
              (expired[held[w]] || !(tok[held[w]] == htok[w] && !TERMINAL(st[held[w]]))) ->
       if
#ifndef NO_FENCE
       :: !(tok[held[w]] == htok[w] && !TERMINAL(st[held[w]])) -> lost[w] = true
#endif
       :: else -> FENCED_WRITE_OK(held[w], htok[w]); expired[held[w]] = false
       fi }
  od
}

/* The database clock: a lease whose holder stopped heartbeating expires. */
active proctype Clock() {
  do
  :: d_step { st[0] == RUNNING && owner[0] != NONE && !expired[0] && !BEATING(0) -> expired[0] = true }
  :: d_step { st[1] == RUNNING && owner[1] != NONE && !expired[1] && !BEATING(1) -> expired[1] = true }
  :: d_step { st[2] == RUNNING && owner[2] != NONE && !expired[2] && !BEATING(2) -> expired[2] = true }
  od
}

init {
  byte j;
  atomic {
    j = 0;
    do
    :: j < NR -> owner[j] = NONE; rowlock[j] = NONE; j++
    :: else -> break
    od;
    j = 0;
    do
    :: j < NW -> held[j] = NONE; run Process(j); j++
    :: else -> break
    od;
    j = 0
  }
}

/* Every admitted run ends (weak fairness: ./pan -a -f). */
ltl ends {
  [] ((ACTIVE(st[0]) -> <> TERMINAL(st[0])) && (ACTIVE(st[1]) -> <> TERMINAL(st[1]))
      && (ACTIVE(st[2]) -> <> TERMINAL(st[2])))
}
