/*
 * yacron2's native spawn helper (docs/performance.md "The spawn path"). Its messages, framing,
 * limits and errors follow the one description both sides of the channel follow,
 * docs/performance.md "The native helper's protocol"; change the protocol there first. The daemon
 * starts it once with a Node IPC channel on fd NODE_CHANNEL_FD (JSON lines) and sends it the same
 * messages it sends the Node helper (src/runner/spawn-helper-protocol.ts); this program answers
 * with the same replies, but hands the captured pipes over as held pipes (below). Why C: Node's spawn() forks its whole process on the calling thread (about 1 ms of CPU
 * even from a small Node process), while posix_spawn() here is a vfork (about 0.05 ms), so a burst
 * of launches costs the machine a fraction of the CPU and the helper's memory is a few hundred KB.
 *
 * Per launch: the pid (or the spawn error), each captured pipe's read end handed to the daemon over
 * the channel as a raw Node handle (NODE_HANDLE with SCM_RIGHTS, the framing Node's own
 * child_process uses), then the exit status. Each handle message is its own sendmsg(), so the
 * kernel never coalesces two handles into one read; a handle is resent on the daemon's NACK (at
 * most three times, then reported lost). After the daemon's ACK the helper watches its own copy of
 * the pipe and tells the daemon when there is output to read, or that the pipe ended empty
 * ("captured pipes" below). When the daemon gives a run up (`forget`), the helper drops what it
 * still holds for it. A `uid`/`gid` that is not a whole number from 0 to 4294967294 fails the
 * launch: it is never cast into another id.
 *
 * Must not: read a job's output (it only peeks); exit on SIGINT/SIGTERM (a Ctrl-C reaches the
 * whole foreground group: the daemon decides when to stop); leak its channel or its pipes into a
 * job; outlive the daemon's channel (EOF or `stop`: exit 0, the jobs run on in their own sessions);
 * drop or cut a reply.
 */
#define _GNU_SOURCE /* posix_spawn flags, signalfd, pipe2, strchrnul */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* A request line longer than this is refused (the helper exits; the daemon restarts it). */
#define MAX_LINE (64u * 1024u * 1024u)
/* Resends of a handle the daemon could not receive (Node's own limit). */
#define MAX_RETRANSMISSIONS 3

static int channel = 3;

static void die(const char *what) {
  fprintf(stderr, "yacron2 spawn helper: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void *xmalloc(size_t size) {
  void *memory = malloc(size ? size : 1);
  if (memory == NULL) die("out of memory");
  return memory;
}

static void *xrealloc(void *old, size_t size) {
  void *memory = realloc(old, size ? size : 1);
  if (memory == NULL) die("out of memory");
  return memory;
}

/* ---- JSON values (what Node's JSON.stringify writes: the parser accepts exactly JSON) ---- */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jkind;

typedef struct jvalue jvalue;
struct jvalue {
  jkind kind;
  double number;
  int boolean;
  char *string; /* NUL-terminated UTF-8; `length` bytes (it may hold a NUL from \u0000) */
  size_t length;
  size_t count; /* array items, or object members (keys[i] → items[i], in the text's order) */
  jvalue **items;
  jvalue **keys;
};

/* Every value of one message comes from this arena and is freed with it. */
typedef struct {
  char **blocks;
  size_t count;
} arena;

static void *arena_alloc(arena *a, size_t size) {
  a->blocks = xrealloc(a->blocks, (a->count + 1) * sizeof *a->blocks);
  a->blocks[a->count] = xmalloc(size);
  return a->blocks[a->count++];
}

static void arena_free(arena *a) {
  for (size_t i = 0; i < a->count; i++) free(a->blocks[i]);
  free(a->blocks);
  a->blocks = NULL;
  a->count = 0;
}

typedef struct {
  const char *at;
  const char *end;
  arena *arena;
  int depth;
} jparser;

static void skip_space(jparser *p) {
  while (p->at < p->end && (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r'))
    p->at++;
}

static jvalue *new_value(jparser *p, jkind kind) {
  jvalue *value = arena_alloc(p->arena, sizeof *value);
  memset(value, 0, sizeof *value);
  value->kind = kind;
  return value;
}

static int hex4(const char *at, unsigned *out) {
  unsigned value = 0;
  for (int i = 0; i < 4; i++) {
    char c = at[i];
    value <<= 4;
    if (c >= '0' && c <= '9') value |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') value |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') value |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = value;
  return 0;
}

static size_t put_utf8(char *out, unsigned code) {
  if (code < 0x80) {
    out[0] = (char)code;
    return 1;
  }
  if (code < 0x800) {
    out[0] = (char)(0xC0 | (code >> 6));
    out[1] = (char)(0x80 | (code & 0x3F));
    return 2;
  }
  if (code < 0x10000) {
    out[0] = (char)(0xE0 | (code >> 12));
    out[1] = (char)(0x80 | ((code >> 6) & 0x3F));
    out[2] = (char)(0x80 | (code & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (code >> 18));
  out[1] = (char)(0x80 | ((code >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((code >> 6) & 0x3F));
  out[3] = (char)(0x80 | (code & 0x3F));
  return 4;
}

static jvalue *parse_value(jparser *p);

static jvalue *parse_string(jparser *p) {
  p->at++; /* the opening quote */
  /* The decoded text is never longer than the escaped one. */
  const char *close = p->at;
  while (close < p->end && *close != '"') close += *close == '\\' ? 2 : 1;
  if (close >= p->end) return NULL;
  jvalue *value = new_value(p, J_STRING);
  char *out = arena_alloc(p->arena, (size_t)(close - p->at) + 1);
  size_t length = 0;
  while (p->at < close) {
    unsigned char c = (unsigned char)*p->at++;
    if (c < 0x20) return NULL;
    if (c != '\\') {
      out[length++] = (char)c;
      continue;
    }
    char escape = *p->at++;
    switch (escape) {
      case '"': out[length++] = '"'; break;
      case '\\': out[length++] = '\\'; break;
      case '/': out[length++] = '/'; break;
      case 'b': out[length++] = '\b'; break;
      case 'f': out[length++] = '\f'; break;
      case 'n': out[length++] = '\n'; break;
      case 'r': out[length++] = '\r'; break;
      case 't': out[length++] = '\t'; break;
      case 'u': {
        unsigned code;
        if (close - p->at < 4 || hex4(p->at, &code) != 0) return NULL;
        p->at += 4;
        if (code >= 0xD800 && code <= 0xDBFF) {
          unsigned low;
          if (close - p->at >= 6 && p->at[0] == '\\' && p->at[1] == 'u' &&
              hex4(p->at + 2, &low) == 0 && low >= 0xDC00 && low <= 0xDFFF) {
            p->at += 6;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else {
            code = 0xFFFD; /* a lone surrogate: what Node writes into a C string for it */
          }
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          code = 0xFFFD;
        }
        /* "\uXXXX" is 6 bytes and at most 3 come out; a pair is 12 and 4 come out. */
        length += put_utf8(out + length, code);
        break;
      }
      default:
        return NULL;
    }
  }
  out[length] = '\0';
  p->at = close + 1;
  value->string = out;
  value->length = length;
  return value;
}

static jvalue *parse_number(jparser *p) {
  char *stop;
  /* strtod is locale-bound for the decimal point; this program never calls setlocale. */
  double number = strtod(p->at, &stop);
  if (stop == p->at || stop > p->end) return NULL;
  p->at = stop;
  jvalue *value = new_value(p, J_NUMBER);
  value->number = number;
  return value;
}

static int literal(jparser *p, const char *word) {
  size_t length = strlen(word);
  if ((size_t)(p->end - p->at) < length || memcmp(p->at, word, length) != 0) return 0;
  p->at += length;
  return 1;
}

static jvalue *parse_container(jparser *p, int object) {
  if (++p->depth > 64) return NULL;
  p->at++;
  jvalue *value = new_value(p, object ? J_OBJECT : J_ARRAY);
  size_t capacity = 0;
  skip_space(p);
  if (p->at < p->end && *p->at == (object ? '}' : ']')) {
    p->at++;
    p->depth--;
    return value;
  }
  for (;;) {
    jvalue *key = NULL;
    if (object) {
      skip_space(p);
      if (p->at >= p->end || *p->at != '"' || (key = parse_string(p)) == NULL) return NULL;
      skip_space(p);
      if (p->at >= p->end || *p->at++ != ':') return NULL;
    }
    jvalue *item = parse_value(p);
    if (item == NULL) return NULL;
    if (value->count == capacity) {
      capacity = capacity ? capacity * 2 : 8;
      jvalue **items = arena_alloc(p->arena, capacity * sizeof *items);
      jvalue **keys = arena_alloc(p->arena, capacity * sizeof *keys);
      if (value->count) {
        memcpy(items, value->items, value->count * sizeof *items);
        memcpy(keys, value->keys, value->count * sizeof *keys);
      }
      value->items = items;
      value->keys = keys;
    }
    value->keys[value->count] = key;
    value->items[value->count++] = item;
    skip_space(p);
    if (p->at >= p->end) return NULL;
    char c = *p->at++;
    if (c == ',') continue;
    if (c != (object ? '}' : ']')) return NULL;
    p->depth--;
    return value;
  }
}

static jvalue *parse_value(jparser *p) {
  skip_space(p);
  if (p->at >= p->end) return NULL;
  switch (*p->at) {
    case '"': return parse_string(p);
    case '{': return parse_container(p, 1);
    case '[': return parse_container(p, 0);
    case 't':
    case 'f': {
      int truth = *p->at == 't';
      if (!literal(p, truth ? "true" : "false")) return NULL;
      jvalue *value = new_value(p, J_BOOL);
      value->boolean = truth;
      return value;
    }
    case 'n': return literal(p, "null") ? new_value(p, J_NULL) : NULL;
    default: return parse_number(p);
  }
}

static jvalue *member(const jvalue *object, const char *name) {
  if (object == NULL || object->kind != J_OBJECT) return NULL;
  for (size_t i = 0; i < object->count; i++)
    if (strcmp(object->keys[i]->string, name) == 0) return object->items[i];
  return NULL;
}

static const char *string_member(const jvalue *object, const char *name) {
  const jvalue *value = member(object, name);
  return value != NULL && value->kind == J_STRING ? value->string : NULL;
}

/* ---- replies ---- */

static void write_all(const char *data, size_t length) {
  while (length > 0) {
    ssize_t written = write(channel, data, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      exit(0); /* EPIPE and the like: the daemon is gone; the jobs run on */
    }
    data += written;
    length -= (size_t)written;
  }
}

/*
 * One reply line: formatted on the stack when it fits, else into a buffer of its size (a reply is
 * never cut or dropped: a lost `exit` would leave its run waiting for ever). A reply that cannot
 * be formatted at all ends the helper loudly; the daemon then restarts it.
 */
static void reply(const char *format, ...) {
  char small[512];
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int length = vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (length < 0 || length == INT_MAX) {
    va_end(again);
    die("cannot format a reply");
  }
  char *line = small;
  if ((size_t)length + 1 >= sizeof small) {
    line = xmalloc((size_t)length + 2);
    vsnprintf(line, (size_t)length + 1, format, again);
  }
  va_end(again);
  line[length++] = '\n';
  write_all(line, (size_t)length);
  if (line != small) free(line);
}

/* `text` as a JSON string (quotes included) into a malloc'd buffer. */
static char *json_string(const char *text) {
  size_t length = strlen(text);
  char *out = xmalloc(length * 6 + 3);
  size_t at = 0;
  out[at++] = '"';
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    if (*c == '"' || *c == '\\') {
      out[at++] = '\\';
      out[at++] = (char)*c;
    } else if (*c < 0x20) {
      at += (size_t)sprintf(out + at, "\\u%04x", *c);
    } else {
      out[at++] = (char)*c;
    }
  }
  out[at++] = '"';
  out[at] = '\0';
  return out;
}

/* Node's name of an errno value for a spawn error (error.code), or "E<number>". */
static const char *errno_name(int error) {
  static char other[16];
  switch (error) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOEXEC: return "ENOEXEC";
    case E2BIG: return "E2BIG";
    case ENOMEM: return "ENOMEM";
    case EAGAIN: return "EAGAIN";
    case ENOTDIR: return "ENOTDIR";
    case ELOOP: return "ELOOP";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ETXTBSY: return "ETXTBSY";
    case EISDIR: return "EISDIR";
    case EIO: return "EIO";
    case ELIBBAD: return "ELIBBAD";
    default: snprintf(other, sizeof other, "E%d", error); return other;
  }
}

/* A launch that did not start: Node's `spawn <file> <code>` message, then `: <detail>` if any. */
static void reply_failed(long long id, const char *file, const char *code, const char *detail) {
  size_t size = strlen(file) + strlen(code) + (detail != NULL ? strlen(detail) + 2 : 0) + 8;
  char *message = xmalloc(size);
  snprintf(message, size, "spawn %s %s%s%s", file, code, detail != NULL ? ": " : "",
           detail != NULL ? detail : "");
  char *quoted = json_string(message);
  reply("{\"type\":\"failed\",\"id\":%lld,\"message\":%s,\"code\":\"%s\"}", id, quoted, code);
  free(quoted);
  free(message);
}

/* Node's name of a signal that ended a run (os.constants.signals), or NULL for one it has none for. */
static const char *signal_name(int signo) {
  static const char *const names[] = {
      NULL,      "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",  "SIGTRAP", "SIGABRT", "SIGBUS",
      "SIGFPE",  "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
      "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG",
      "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};
  return signo > 0 && signo < (int)(sizeof names / sizeof *names) ? names[signo] : NULL;
}

/*
 * ---- captured pipes ----
 *
 * Each captured pipe's read end is handed to the daemon at launch as a raw handle ("net.Native":
 * Node gives the daemon the handle itself, not a `net.Socket`), and the helper keeps its own copy
 * to watch. The daemon only wraps the handle in a socket and reads it once the helper says the
 * pipe has `output`; a pipe that ends without a byte is reported `empty` (in the run's `exit`
 * when it has ended by then) and the daemon just closes its handle. Most jobs write nothing on
 * a captured stream, and a socket per pipe is most of what a launch costs the daemon. The
 * daemon holds the read end from the launch on, so a job's writes never depend on this process.
 * Watching never reads: a byte seen is left in the pipe for the daemon (recv with MSG_PEEK).
 */

typedef struct {
  int fd;
  long long id;
  const char *stream;
  int retransmissions;
  int forgotten; /* the daemon gave its run up before answering it: closed on the answer */
} sent_handle;

static sent_handle *unacked;
static size_t unacked_head, unacked_count, unacked_capacity;

/* The pipes the daemon holds and the helper watches (after the daemon's NODE_HANDLE_ACK). */
static sent_handle *watched;
static size_t watched_count, watched_capacity;
static int events = -1; /* the epoll instance: the channel, the children's signalfd, watched pipes */

static void send_handle_message(const sent_handle *handle) {
  char line[256];
  int length = snprintf(line, sizeof line,
                        "{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Native\",\"msg\":{\"type\":\"pipe\",\"id\":%lld,"
                        "\"stream\":\"%s\",\"held\":true}}\n",
                        handle->id, handle->stream);
  struct iovec iov = {.iov_base = line, .iov_len = (size_t)length};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr message = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space,
                           .msg_controllen = sizeof control.space};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&message);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &handle->fd, sizeof(int));
  ssize_t sent;
  do sent = sendmsg(channel, &message, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) exit(0); /* the daemon is gone */
  /* The fd went with the first byte: the rest of a (rare) short send is plain data. */
  if (sent < length) write_all(line + sent, (size_t)(length - sent));
}

static void send_pipe(long long id, const char *stream, int fd) {
  if (unacked_count == unacked_capacity) {
    size_t capacity = unacked_capacity ? unacked_capacity * 2 : 64;
    sent_handle *grown = xmalloc(capacity * sizeof *grown);
    for (size_t i = 0; i < unacked_count; i++)
      grown[i] = unacked[(unacked_head + i) % unacked_capacity];
    free(unacked);
    unacked = grown;
    unacked_head = 0;
    unacked_capacity = capacity;
  }
  sent_handle *handle = &unacked[(unacked_head + unacked_count++) % unacked_capacity];
  *handle = (sent_handle){.fd = fd, .id = id, .stream = stream, .retransmissions = 0};
  send_handle_message(handle);
}

/* The daemon holds the pipe now: watch it for its first byte or its end. */
static void watch(sent_handle handle) {
  if (watched_count == watched_capacity) {
    watched_capacity = watched_capacity ? watched_capacity * 2 : 64;
    watched = xrealloc(watched, watched_capacity * sizeof *watched);
  }
  struct epoll_event event = {.events = EPOLLIN, .data.fd = handle.fd};
  if (epoll_ctl(events, EPOLL_CTL_ADD, handle.fd, &event) != 0) {
    /* Cannot watch it (no memory for the watch): let the daemon read it from now on. */
    reply("{\"type\":\"output\",\"id\":%lld,\"stream\":\"%s\"}", handle.id, handle.stream);
    close(handle.fd);
    return;
  }
  watched[watched_count++] = handle;
}

/* The daemon answers handles in the order they were sent. */
static void handle_answered(int acknowledged) {
  if (unacked_count == 0) return;
  sent_handle handle = unacked[unacked_head];
  unacked_head = (unacked_head + 1) % unacked_capacity;
  unacked_count--;
  if (handle.forgotten) {
    close(handle.fd);
  } else if (acknowledged) {
    watch(handle);
  } else if (handle.retransmissions++ < MAX_RETRANSMISSIONS) {
    send_pipe(handle.id, handle.stream, handle.fd);
    unacked[(unacked_head + unacked_count - 1) % unacked_capacity].retransmissions =
        handle.retransmissions;
  } else {
    close(handle.fd);
    reply("{\"type\":\"pipe\",\"id\":%lld,\"stream\":\"%s\"}", handle.id, handle.stream);
  }
}

typedef enum { PIPE_QUIET, PIPE_OUTPUT, PIPE_EMPTY } pipe_state;

/* What a watched pipe holds, without taking it: a byte, its end with none, or nothing yet. */
static pipe_state peek(int fd) {
  char byte;
  ssize_t got;
  do got = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  while (got < 0 && errno == EINTR);
  if (got == 0) return PIPE_EMPTY;
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return PIPE_QUIET;
  return PIPE_OUTPUT; /* a byte, or an error the daemon's socket will see and report */
}

static void unwatch(size_t index) {
  epoll_ctl(events, EPOLL_CTL_DEL, watched[index].fd, NULL);
  close(watched[index].fd);
  watched[index] = watched[--watched_count];
}

/* A watched pipe woke the helper: tell the daemon to read it, or that it ended empty. */
static void pipe_ready(int fd) {
  for (size_t i = 0; i < watched_count; i++) {
    if (watched[i].fd != fd) continue;
    pipe_state state = peek(fd);
    if (state == PIPE_QUIET) return;
    reply("{\"type\":\"%s\",\"id\":%lld,\"stream\":\"%s\"}", state == PIPE_OUTPUT ? "output" : "empty",
          watched[i].id, watched[i].stream);
    unwatch(i);
    return;
  }
}

/*
 * When run `id` has exited: its watched pipes that ended empty go into its `exit` reply (their
 * names, JSON, into `list`), and those with output are announced before it.
 */
static void settle_pipes(long long id, char *list, size_t size) {
  size_t at = 0;
  list[0] = '\0';
  for (size_t i = 0; i < watched_count;) {
    if (watched[i].id != id) {
      i++;
      continue;
    }
    pipe_state state = peek(watched[i].fd);
    if (state == PIPE_QUIET) {
      i++; /* a process the job started holds it open: its end comes later */
      continue;
    }
    if (state == PIPE_OUTPUT)
      reply("{\"type\":\"output\",\"id\":%lld,\"stream\":\"%s\"}", id, watched[i].stream);
    else
      at += (size_t)snprintf(list + at, size - at, "%s\"%s\"", at ? "," : "", watched[i].stream);
    unwatch(i);
  }
}

/* ---- the environment launches are described against ---- */

typedef struct {
  char **entries; /* "KEY=VALUE" */
  size_t *key_lengths;
  size_t count;
} environment;

static environment base;

static void base_free(void) {
  for (size_t i = 0; i < base.count; i++) free(base.entries[i]);
  free(base.entries);
  free(base.key_lengths);
  memset(&base, 0, sizeof base);
}

static char *entry(const char *key, size_t key_length, const char *value) {
  size_t value_length = strlen(value);
  char *text = xmalloc(key_length + value_length + 2);
  memcpy(text, key, key_length);
  text[key_length] = '=';
  memcpy(text + key_length + 1, value, value_length + 1);
  return text;
}

/* A string that holds a NUL cannot be passed to exec (Node refuses it too). */
static int has_nul(const jvalue *value) { return value->length != strlen(value->string); }

static int set_base(const jvalue *env) {
  if (env == NULL || env->kind != J_OBJECT) return -1;
  base_free();
  base.entries = xmalloc(env->count * sizeof *base.entries);
  base.key_lengths = xmalloc(env->count * sizeof *base.key_lengths);
  for (size_t i = 0; i < env->count; i++) {
    const jvalue *key = env->keys[i], *value = env->items[i];
    if (value->kind != J_STRING || has_nul(key) || has_nul(value)) continue;
    base.key_lengths[base.count] = key->length;
    base.entries[base.count++] = entry(key->string, key->length, value->string);
  }
  return 0;
}

static const jvalue *find_key(const jvalue *object, const char *key, size_t key_length) {
  for (size_t i = 0; i < object->count; i++)
    if (object->keys[i]->length == key_length && memcmp(object->keys[i]->string, key, key_length) == 0)
      return object->items[i];
  return NULL;
}

static int in_list(const jvalue *list, const char *key, size_t key_length) {
  for (size_t i = 0; i < list->count; i++) {
    const jvalue *item = list->items[i];
    if (item->kind == J_STRING && item->length == key_length && memcmp(item->string, key, key_length) == 0)
      return 1;
  }
  return 0;
}

/*
 * The launch's environment (env-delta.ts: the base minus `unset`, `set` overriding in place or
 * appended in order; or `whole`), as a NULL-terminated array whose strings live in `a`.
 * NULL: the payload is malformed or holds a NUL byte.
 */
static char **launch_env(const jvalue *payload, arena *a) {
  const char *kind = string_member(payload, "kind");
  if (kind == NULL) return NULL;
  if (strcmp(kind, "whole") == 0) {
    const jvalue *env = member(payload, "env");
    if (env == NULL || env->kind != J_OBJECT) return NULL;
    char **out = arena_alloc(a, (env->count + 1) * sizeof *out);
    for (size_t i = 0; i < env->count; i++) {
      const jvalue *key = env->keys[i], *value = env->items[i];
      if (value->kind != J_STRING || has_nul(key) || has_nul(value)) return NULL;
      out[i] = arena_alloc(a, key->length + value->length + 2);
      sprintf(out[i], "%s=%s", key->string, value->string);
    }
    out[env->count] = NULL;
    return out;
  }
  if (strcmp(kind, "delta") != 0) return NULL;
  const jvalue *unset = member(payload, "unset"), *set = member(payload, "set");
  if (unset == NULL || unset->kind != J_ARRAY || set == NULL || set->kind != J_OBJECT) return NULL;
  char **out = arena_alloc(a, (base.count + set->count + 1) * sizeof *out);
  size_t count = 0;
  for (size_t i = 0; i < base.count; i++) {
    const char *key = base.entries[i];
    size_t key_length = base.key_lengths[i];
    if (in_list(unset, key, key_length)) continue;
    const jvalue *value = find_key(set, key, key_length);
    if (value == NULL) {
      out[count++] = base.entries[i];
      continue;
    }
    if (value->kind != J_STRING || has_nul(value)) return NULL;
    out[count] = arena_alloc(a, key_length + value->length + 2);
    memcpy(out[count], key, key_length);
    out[count][key_length] = '=';
    memcpy(out[count] + key_length + 1, value->string, value->length + 1);
    count++;
  }
  for (size_t i = 0; i < set->count; i++) {
    const jvalue *key = set->keys[i], *value = set->items[i];
    int in_base = 0;
    for (size_t j = 0; j < base.count && !in_base; j++)
      in_base = base.key_lengths[j] == key->length && memcmp(base.entries[j], key->string, key->length) == 0;
    if (in_base) continue;
    if (value->kind != J_STRING || has_nul(key) || has_nul(value)) return NULL;
    out[count] = arena_alloc(a, key->length + value->length + 2);
    sprintf(out[count], "%s=%s", key->string, value->string);
    count++;
  }
  out[count] = NULL;
  return out;
}

/*
 * The program `file` names, searched in the child's PATH (or /usr/bin:/bin without one) when it
 * has no slash, as execvp() would: the first executable regular file; else the error the search
 * ends with (EACCES when something was found but not executable, else ENOENT).
 */
static int resolve(const char *file, char *const env[], char *out, size_t size) {
  if (strchr(file, '/') != NULL) {
    if (strlen(file) >= size) return ENAMETOOLONG;
    strcpy(out, file);
    return 0;
  }
  if (*file == '\0') return ENOENT;
  const char *path = "/usr/bin:/bin";
  for (char *const *e = env; *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  int error = ENOENT;
  for (const char *dir = path;; dir++) {
    const char *colon = strchrnul(dir, ':');
    size_t length = (size_t)(colon - dir);
    int written = length == 0 ? snprintf(out, size, "%s", file)
                              : snprintf(out, size, "%.*s/%s", (int)length, dir, file);
    if (written > 0 && (size_t)written < size) {
      struct stat info;
      if (stat(out, &info) == 0 && S_ISREG(info.st_mode)) {
        if (access(out, X_OK) == 0) return 0;
        error = EACCES;
      }
    }
    if (*colon == '\0') break;
    dir = colon;
  }
  return error;
}

/* ---- runs ---- */

typedef struct {
  pid_t pid;
  long long id;
} run;

static run *runs;
static size_t run_count, run_capacity;

static void add_run(pid_t pid, long long id) {
  if (run_count == run_capacity) {
    run_capacity = run_capacity ? run_capacity * 2 : 64;
    runs = xrealloc(runs, run_capacity * sizeof *runs);
  }
  runs[run_count++] = (run){.pid = pid, .id = id};
}

static sigset_t child_mask;       /* empty: a job starts with no signal blocked */
static sigset_t default_signals;  /* every signal a job must find at its default action */

/*
 * The argv that runs `path` with /bin/sh, for a file exec() refused as ENOEXEC (a script without
 * a `#!` line): what execvp(), and so Node's spawn(), does. From `a`, or malloc'd when it is NULL
 * (in a forked child about to exec).
 */
static char **shell_argv(const char *path, char *const argv[], arena *a) {
  size_t count = 0;
  while (argv[count] != NULL) count++;
  size_t size = (count + 2) * sizeof(char *);
  char **out = a != NULL ? arena_alloc(a, size) : malloc(size);
  if (out == NULL) return (char **)argv;
  out[0] = "/bin/sh";
  out[1] = (char *)path;
  for (size_t i = 1; i <= count; i++) out[i + 1] = argv[i];
  return out;
}

/*
 * Starts one process with fork(): only for a launch that changes its user or group (posix_spawn
 * cannot). The child reports an exec failure's errno through a close-on-exec pipe.
 */
static int fork_spawn(pid_t *pid, const char *path, int out_fd, int err_fd, char *const argv[],
                      char *const envp[], long long uid, long long gid) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno;
  pid_t child = fork();
  if (child < 0) {
    int error = errno;
    close(report[0]);
    close(report[1]);
    return error;
  }
  if (child == 0) {
    int error = 0;
    for (int signo = 1; signo < NSIG; signo++)
      if (sigismember(&default_signals, signo) == 1) signal(signo, SIG_DFL);
    sigprocmask(SIG_SETMASK, &child_mask, NULL);
    if (setsid() < 0) error = errno;
    if (!error && out_fd >= 0 && dup2(out_fd, 1) < 0) error = errno;
    if (!error && err_fd >= 0 && dup2(err_fd, 2) < 0) error = errno;
    if (!error && gid >= 0 && setgroups(0, NULL) != 0 && errno != EPERM) error = errno;
    if (!error && gid >= 0 && setgid((gid_t)gid) != 0) error = errno;
    if (!error && uid >= 0 && setuid((uid_t)uid) != 0) error = errno;
    if (!error) {
      execve(path, argv, envp);
      error = errno;
      if (error == ENOEXEC) {
        execve("/bin/sh", shell_argv(path, argv, NULL), envp);
        error = errno;
      }
    }
    ssize_t ignored = write(report[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  close(report[1]);
  int error = 0;
  ssize_t got;
  do got = read(report[0], &error, sizeof error);
  while (got < 0 && errno == EINTR);
  close(report[0]);
  if (got == (ssize_t)sizeof error) {
    waitpid(child, NULL, 0);
    return error;
  }
  *pid = child;
  return 0;
}

/* The largest uid or gid a run may switch to: 4294967295 is (uid_t)-1, "leave unchanged". */
#define MAX_ID 4294967294.0

/*
 * A launch's `uid` or `gid` into `out`: -1 when it is null (no switch); else a whole number from 0
 * to MAX_ID. Anything else is refused (-1 returned, the reason in `problem`), never cast: a cast
 * would turn 2^32 into 0, root.
 */
static int read_id(const jvalue *value, const char *kind, long long *out, char *problem, size_t size) {
  *out = -1;
  if (value == NULL || value->kind == J_NULL) return 0;
  if (value->kind == J_NUMBER && value->number >= 0 && value->number <= MAX_ID &&
      (double)(long long)value->number == value->number) {
    *out = (long long)value->number;
    return 0;
  }
  if (value->kind == J_NUMBER)
    snprintf(problem, size, "%s %.17g is outside 0..4294967294: refused", kind, value->number);
  else
    snprintf(problem, size, "%s is not a number: refused", kind);
  return -1;
}

static void launch(const jvalue *request, arena *a) {
  const jvalue *id_value = member(request, "id");
  if (id_value == NULL || id_value->kind != J_NUMBER) return;
  long long id = (long long)id_value->number;
  const jvalue *file = member(request, "file"), *args = member(request, "args");
  if (file == NULL || file->kind != J_STRING || args == NULL || args->kind != J_ARRAY) {
    reply_failed(id, file != NULL && file->kind == J_STRING ? file->string : "?", "ERR_INVALID_ARG_VALUE",
                 NULL);
    return;
  }
  char **argv = arena_alloc(a, (args->count + 2) * sizeof *argv);
  argv[0] = file->string;
  int valid = !has_nul(file);
  for (size_t i = 0; i < args->count; i++) {
    const jvalue *arg = args->items[i];
    if (arg->kind != J_STRING || has_nul(arg)) valid = 0;
    argv[i + 1] = arg->string;
  }
  argv[args->count + 1] = NULL;
  char **envp = valid ? launch_env(member(request, "env"), a) : NULL;
  if (envp == NULL) {
    reply_failed(id, file->string, "ERR_INVALID_ARG_VALUE", NULL);
    return;
  }
  const jvalue *out_flag = member(request, "captureStdout"), *err_flag = member(request, "captureStderr");
  long long uid, gid;
  char id_problem[96];
  if (read_id(member(request, "uid"), "uid", &uid, id_problem, sizeof id_problem) != 0 ||
      read_id(member(request, "gid"), "gid", &gid, id_problem, sizeof id_problem) != 0) {
    reply_failed(id, file->string, "EINVAL", id_problem);
    return;
  }
  int capture_out = out_flag != NULL && out_flag->kind == J_BOOL && out_flag->boolean;
  int capture_err = err_flag != NULL && err_flag->kind == J_BOOL && err_flag->boolean;

  char path[PATH_MAX];
  int error = resolve(file->string, envp, path, sizeof path);
  if (error != 0) {
    reply_failed(id, file->string, errno_name(error), NULL);
    return;
  }
  int out_pair[2] = {-1, -1}, err_pair[2] = {-1, -1};
  if (capture_out && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out_pair) != 0) error = errno;
  if (!error && capture_err && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, err_pair) != 0)
    error = errno;
  pid_t pid = 0;
  if (!error && (uid >= 0 || gid >= 0)) {
    error = fork_spawn(&pid, path, out_pair[1], err_pair[1], argv, envp, uid, gid);
  } else if (!error) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    if (capture_out) posix_spawn_file_actions_adddup2(&actions, out_pair[1], 1);
    if (capture_err) posix_spawn_file_actions_adddup2(&actions, err_pair[1], 2);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setsigdefault(&attributes, &default_signals);
    posix_spawnattr_setsigmask(&attributes, &child_mask);
    error = posix_spawn(&pid, path, &actions, &attributes, argv, envp);
    if (error == ENOEXEC)
      error = posix_spawn(&pid, "/bin/sh", &actions, &attributes, shell_argv(path, argv, a), envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  /* The child's ends belong to the child alone (an EOF then means the job closed its output). */
  if (out_pair[1] >= 0) close(out_pair[1]);
  if (err_pair[1] >= 0) close(err_pair[1]);
  if (error != 0) {
    if (out_pair[0] >= 0) close(out_pair[0]);
    if (err_pair[0] >= 0) close(err_pair[0]);
    reply_failed(id, file->string, errno_name(error), NULL);
    return;
  }
  add_run(pid, id);
  reply("{\"type\":\"spawned\",\"id\":%lld,\"pid\":%d}", id, (int)pid);
  if (capture_out) send_pipe(id, "stdout", out_pair[0]);
  if (capture_err) send_pipe(id, "stderr", err_pair[0]);
}

static void reap(void) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (size_t i = 0; i < run_count; i++) {
      if (runs[i].pid != pid) continue;
      long long id = runs[i].id;
      runs[i] = runs[--run_count];
      char empty[32];
      settle_pipes(id, empty, sizeof empty);
      if (WIFEXITED(status)) {
        reply("{\"type\":\"exit\",\"id\":%lld,\"code\":%d,\"signal\":null,\"empty\":[%s]}", id,
              WEXITSTATUS(status), empty);
      } else {
        int signo = WTERMSIG(status);
        const char *name = signal_name(signo);
        /* A signal Node has no name for (a real-time one): the shell's 128+n, a failure. */
        if (name != NULL)
          reply("{\"type\":\"exit\",\"id\":%lld,\"code\":null,\"signal\":\"%s\",\"empty\":[%s]}", id,
                name, empty);
        else
          reply("{\"type\":\"exit\",\"id\":%lld,\"code\":%d,\"signal\":null,\"empty\":[%s]}", id,
                128 + signo, empty);
      }
      break;
    }
  }
}

/*
 * The daemon gave run `id` up (a process that left the run's group holds its output open, and the
 * daemon closed its side): drop all the helper still holds for it, so nothing of the run's stays
 * open here for as long as that process lives. Its watched pipes are closed; a handle the daemon
 * has not answered yet is closed on its answer (the answers come in order); its exit, should it
 * come, goes unreported.
 */
static void forget(long long id) {
  for (size_t i = 0; i < watched_count;) {
    if (watched[i].id == id) unwatch(i);
    else i++;
  }
  for (size_t i = 0; i < unacked_count; i++) {
    sent_handle *handle = &unacked[(unacked_head + i) % unacked_capacity];
    if (handle->id == id) handle->forgotten = 1;
  }
  for (size_t i = 0; i < run_count; i++) {
    if (runs[i].id != id) continue;
    runs[i] = runs[--run_count];
    break;
  }
}

/* One request line from the daemon. */
static void handle_line(const char *line, size_t length) {
  arena a = {0};
  jparser parser = {.at = line, .end = line + length, .arena = &a, .depth = 0};
  jvalue *message = parse_value(&parser);
  skip_space(&parser);
  if (message == NULL || parser.at != parser.end || message->kind != J_OBJECT) {
    fprintf(stderr, "yacron2 spawn helper: a request that is not a JSON object was ignored\n");
    arena_free(&a);
    return;
  }
  const char *cmd = string_member(message, "cmd");
  const char *type = string_member(message, "type");
  if (cmd != NULL) {
    /* Node's internal messages: the answers to our handles. */
    if (strcmp(cmd, "NODE_HANDLE_ACK") == 0) handle_answered(1);
    else if (strcmp(cmd, "NODE_HANDLE_NACK") == 0) handle_answered(0);
  } else if (type != NULL && strcmp(type, "spawn") == 0) {
    const jvalue *launches = member(message, "launches");
    if (launches != NULL && launches->kind == J_ARRAY)
      for (size_t i = 0; i < launches->count; i++) {
        arena per_launch = {0};
        launch(launches->items[i], &per_launch);
        arena_free(&per_launch);
      }
  } else if (type != NULL && strcmp(type, "base-env") == 0) {
    if (set_base(member(message, "env")) != 0)
      fprintf(stderr, "yacron2 spawn helper: a base-env without an env object was ignored\n");
  } else if (type != NULL && strcmp(type, "forget") == 0) {
    const jvalue *id = member(message, "id");
    /* A launch id is the daemon's counter: a safe integer (a cast of anything else is undefined). */
    if (id != NULL && id->kind == J_NUMBER && id->number >= 0 && id->number <= 9007199254740991.0)
      forget((long long)id->number);
  } else if (type != NULL && strcmp(type, "stop") == 0) {
    exit(0);
  }
  arena_free(&a);
}

/* fds 0–2 exist (a closed one would be reused by a pipe and handed to a job as its stdio). */
static void ensure_stdio(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) != -1) continue;
    int null = open("/dev/null", O_RDWR);
    if (null >= 0 && null != fd) {
      dup2(null, fd);
      close(null);
    }
  }
}

int main(void) {
  ensure_stdio();
  const char *channel_fd = getenv("NODE_CHANNEL_FD");
  if (channel_fd != NULL) channel = atoi(channel_fd);
  if (fcntl(channel, F_GETFD) == -1) {
    fprintf(stderr, "yacron2 spawn helper: no IPC channel on fd %d (start it from the daemon)\n", channel);
    return 2;
  }
  /* Never inherited by a job; blocking, so a write waits for the daemon instead of failing. */
  fcntl(channel, F_SETFD, FD_CLOEXEC);
  fcntl(channel, F_SETFL, fcntl(channel, F_GETFL) & ~O_NONBLOCK);

  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  /* A job's orphans (a background process whose parent exited) become ours instead of PID 1's,
     and reap() collects them with the jobs. Where the daemon is PID 1 (a container without an
     init) nobody else would: Node reaps only its own children, so they would stay zombies. A
     kernel without subreapers (before 3.4) leaves them to PID 1, as before. */
  (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  sigemptyset(&child_mask);
  sigfillset(&default_signals);
  sigdelset(&default_signals, SIGKILL);
  sigdelset(&default_signals, SIGSTOP);
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGCHLD);
  sigprocmask(SIG_BLOCK, &blocked, NULL);
  int children = signalfd(-1, &blocked, SFD_CLOEXEC | SFD_NONBLOCK);
  if (children < 0) die("signalfd");

  reply("{\"type\":\"ready\"}");

  events = epoll_create1(EPOLL_CLOEXEC);
  if (events < 0) die("epoll_create1");
  struct epoll_event watch_channel = {.events = EPOLLIN, .data.fd = channel};
  struct epoll_event watch_children = {.events = EPOLLIN, .data.fd = children};
  if (epoll_ctl(events, EPOLL_CTL_ADD, channel, &watch_channel) != 0 ||
      epoll_ctl(events, EPOLL_CTL_ADD, children, &watch_children) != 0)
    die("epoll_ctl");

  size_t capacity = 64 * 1024, filled = 0;
  char *buffer = xmalloc(capacity);
  for (;;) {
    struct epoll_event ready[64];
    int count = epoll_wait(events, ready, 64, -1);
    if (count < 0) {
      if (errno == EINTR) continue;
      die("epoll_wait");
    }
    /*
     * Exits first, so a pipe that ended with its run goes into the run's `exit`; then the pipes
     * (no new pipe is made before the channel is read, so no fd here is a reused one); the channel
     * last.
     */
    int channel_ready = 0, pipes_ready = 0;
    for (int i = 0; i < count; i++) {
      if (ready[i].data.fd == children) {
        struct signalfd_siginfo info;
        while (read(children, &info, sizeof info) > 0) {
        }
      } else if (ready[i].data.fd == channel) {
        channel_ready = 1;
      } else {
        pipes_ready = 1;
      }
    }
    /* A pipe's end usually comes a moment before its run's SIGCHLD: reap before answering it. */
    reap();
    if (pipes_ready)
      for (int i = 0; i < count; i++)
        if (ready[i].data.fd != children && ready[i].data.fd != channel) pipe_ready(ready[i].data.fd);
    if (channel_ready) {
      if (capacity - filled < 4096) {
        if (capacity >= MAX_LINE) {
          fprintf(stderr, "yacron2 spawn helper: a request line over %u bytes\n", MAX_LINE);
          free(buffer);
          return 1;
        }
        capacity *= 2;
        buffer = xrealloc(buffer, capacity);
      }
      ssize_t got = read(channel, buffer + filled, capacity - filled);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) { /* the daemon closed the channel (or is gone) */
        free(buffer);
        return 0;
      }
      size_t start = 0, scanned = filled;
      filled += (size_t)got;
      for (char *newline; (newline = memchr(buffer + scanned, '\n', filled - scanned)) != NULL;) {
        size_t end = (size_t)(newline - buffer);
        handle_line(buffer + start, end - start);
        start = scanned = end + 1;
      }
      memmove(buffer, buffer + start, filled - start);
      filled -= start;
    }
  }
}
