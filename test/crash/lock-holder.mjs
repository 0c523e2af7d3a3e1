// Holds the SQLite write lock on argv[2] until stdin closes: "another process" holding the ledger.
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]);
db.exec('BEGIN IMMEDIATE');
db.prepare('UPDATE runs SET updated_at = updated_at').run();
process.stdout.write('locked\n');
process.stdin.resume();
process.stdin.on('end', () => {
  db.exec('ROLLBACK');
  db.close();
  process.exit(0);
});
