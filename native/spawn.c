/*
 * Starts a child process with posix_spawn(3) instead of fork(2).
 *
 * Node's child_process.spawn forks the whole controller: the kernel copies
 * its page tables (the cost grows with its memory, 3 ms at 100 MB on these
 * machines) and the event loop waits until the child has exec'd. glibc's
 * posix_spawn shares the parent's memory until exec (CLONE_VM|CLONE_VFORK),
 * so a git process starts in about 0.2 ms whatever the controller's size.
 *
 * The child gets its stdin from /dev/null or a pipe, its stdout and stderr on
 * pipes, every signal at its default disposition and an empty signal mask
 * (what libuv gives a child too). Its exit is watched through a pidfd on the
 * event loop; the callback gets (exit code, signal number) once it is reaped.
 * Linux only (pidfd_open, 5.3); elsewhere the module exports nothing and the
 * caller keeps child_process.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <uv.h>

#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  uv_poll_t poll;
  int pidfd;
  pid_t pid;
  napi_env env;
  napi_ref on_exit;
  napi_async_context async;
} child_t;

static void free_child(uv_handle_t *handle) { free(handle->data); }

/* The pidfd became readable: the child has exited. Reap it and report. */
static void on_pidfd(uv_poll_t *poll, int status, int events) {
  child_t *c = poll->data;
  int wstatus = 0;
  pid_t r = waitpid(c->pid, &wstatus, WNOHANG);
  if (r == 0) return; /* not yet a zombie */
  uv_poll_stop(poll);
  close(c->pidfd);
  int code = -1, sig = 0;
  if (r > 0 && WIFEXITED(wstatus)) code = WEXITSTATUS(wstatus);
  else if (r > 0 && WIFSIGNALED(wstatus)) sig = WTERMSIG(wstatus);

  napi_env env = c->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value fn, recv, argv[2], result;
  napi_get_reference_value(env, c->on_exit, &fn);
  napi_get_global(env, &recv);
  napi_create_int32(env, code, &argv[0]);
  napi_create_int32(env, sig, &argv[1]);
  /* make_callback, not call_function: it runs the microtasks the callback queues. */
  napi_make_callback(env, c->async, recv, fn, 2, argv, &result);
  napi_delete_reference(env, c->on_exit);
  napi_async_destroy(env, c->async);
  napi_close_handle_scope(env, scope);
  uv_close((uv_handle_t *)poll, free_child);
}

static char *to_cstring(napi_env env, napi_value v) {
  size_t n = 0;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &n) != napi_ok) return NULL;
  char *s = malloc(n + 1);
  if (s) napi_get_value_string_utf8(env, v, s, n + 1, &n);
  return s;
}

static void free_strings(char **list) {
  if (!list) return;
  for (char **p = list; *p; p++) free(*p);
  free(list);
}

/* A NULL-terminated copy of a JS string array; NULL when it is not one. */
static char **to_strings(napi_env env, napi_value arr) {
  uint32_t n = 0;
  if (napi_get_array_length(env, arr, &n) != napi_ok) return NULL;
  char **out = calloc(n + 1, sizeof(char *));
  if (!out) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    napi_value e;
    napi_get_element(env, arr, i, &e);
    out[i] = to_cstring(env, e);
    if (!out[i]) {
      free_strings(out);
      return NULL;
    }
  }
  return out;
}

/* An Error whose `errno` is the positive errno value and `syscall` names the call. */
static napi_value throw_errno(napi_env env, int err, const char *syscall_name) {
  napi_value msg, code, name, e;
  napi_create_string_utf8(env, strerror(err), NAPI_AUTO_LENGTH, &msg);
  napi_create_int32(env, err, &code);
  napi_create_string_utf8(env, syscall_name, NAPI_AUTO_LENGTH, &name);
  napi_create_error(env, NULL, msg, &e);
  napi_set_named_property(env, e, "errno", code);
  napi_set_named_property(env, e, "syscall", name);
  napi_throw(env, e);
  return NULL;
}

static void close_pair(int fds[2]) {
  if (fds[0] >= 0) close(fds[0]);
  if (fds[1] >= 0) close(fds[1]);
}

/*
 * spawn(file, argv, envp, pipeStdin, onExit) -> [pid, stdinFd or -1, stdoutFd, stderrFd]
 * `file` is a path (no PATH search). The returned fds are the parent's ends,
 * close-on-exec, for the caller to wrap and close.
 */
static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value a[5];
  napi_get_cb_info(env, info, &argc, a, NULL, NULL);
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "spawn(file, argv, envp, pipeStdin, onExit)");
    return NULL;
  }
  bool pipe_stdin = false;
  napi_get_value_bool(env, a[3], &pipe_stdin);
  char *file = to_cstring(env, a[0]);
  char **argv = to_strings(env, a[1]);
  char **envp = to_strings(env, a[2]);
  if (!file || !argv || !envp) {
    free(file);
    free_strings(argv);
    free_strings(envp);
    napi_throw_type_error(env, NULL, "spawn: file must be a string, argv and envp arrays of strings");
    return NULL;
  }

  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  int e = 0;
  const char *failed = "pipe2";
  if (pipe_stdin && pipe2(in, O_CLOEXEC) != 0) e = errno;
  if (!e && pipe2(out, O_CLOEXEC) != 0) e = errno;
  if (!e && pipe2(err, O_CLOEXEC) != 0) e = errno;

  pid_t pid = -1;
  if (!e) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (pipe_stdin) posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    else posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawnattr_setsigmask(&attr, &none);
    /* Node ignores SIGPIPE; git must die of it as it would from a shell. */
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    e = posix_spawn(&pid, file, &actions, &attr, argv, envp);
    failed = "posix_spawn";
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  free(file);
  free_strings(argv);
  free_strings(envp);
  /* The child's ends: the child holds its own copies now. */
  if (in[0] >= 0) close(in[0]);
  if (out[1] >= 0) close(out[1]);
  if (err[1] >= 0) close(err[1]);
  in[0] = out[1] = err[1] = -1;
  if (e) {
    close_pair(in);
    close_pair(out);
    close_pair(err);
    return throw_errno(env, e, failed);
  }

  child_t *c = calloc(1, sizeof(child_t));
  int pidfd = c ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
  e = c ? errno : ENOMEM;
  uv_loop_t *loop = NULL;
  napi_get_uv_event_loop(env, &loop);
  if (pidfd < 0 || uv_poll_init(loop, &c->poll, pidfd) != 0) {
    /* Nothing could watch it: stop and reap it here rather than leave a zombie. */
    if (pidfd >= 0) e = EIO;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    if (pidfd >= 0) close(pidfd);
    free(c);
    close_pair(in);
    close_pair(out);
    close_pair(err);
    return throw_errno(env, e, "pidfd_open");
  }
  c->pid = pid;
  c->pidfd = pidfd;
  c->env = env;
  c->poll.data = c;
  napi_create_reference(env, a[4], 1, &c->on_exit);
  napi_value resource_name;
  napi_create_string_utf8(env, "revloop:spawn", NAPI_AUTO_LENGTH, &resource_name);
  napi_async_init(env, NULL, resource_name, &c->async);
  uv_poll_start(&c->poll, UV_READABLE, on_pidfd);

  napi_value res, v;
  napi_create_array_with_length(env, 4, &res);
  int values[4] = {pid, in[1], out[0], err[0]};
  for (uint32_t i = 0; i < 4; i++) {
    napi_create_int32(env, values[i], &v);
    napi_set_element(env, res, i, v);
  }
  return res;
}

/* Whether this kernel lets us watch a child through a pidfd (seccomp may refuse it). */
static napi_value Usable(napi_env env, napi_callback_info info) {
  int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
  if (fd >= 0) close(fd);
  napi_value r;
  napi_get_boolean(env, fd >= 0, &r);
  return r;
}
#endif

NAPI_MODULE_INIT() {
#ifdef __linux__
  napi_value fn;
  napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, Spawn, NULL, &fn);
  napi_set_named_property(env, exports, "spawn", fn);
  napi_create_function(env, "usable", NAPI_AUTO_LENGTH, Usable, NULL, &fn);
  napi_set_named_property(env, exports, "usable", fn);
#endif
  return exports;
}
