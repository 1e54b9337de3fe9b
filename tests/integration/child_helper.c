/* A real child process for the integration tests: it really exits, crashes,
 * gets killed, floods its output or waits for signals, on request. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) _exit(99);
    p += w;
    n -= (size_t)w;
  }
}

static const char *name_of(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "other";
  }
}

static void on_signal(int sig) {
  char msg[64];
  int n = snprintf(msg, sizeof msg, "got %s\n", name_of(sig));
  write_all(1, msg, (size_t)n);
  if (sig == SIGUSR1 || sig == SIGUSR2) return;
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char **argv) {
  if (argc < 2) return 64;
  const char *mode = argv[1];
  long n = argc > 2 ? atol(argv[2]) : 0;
  if (!strcmp(mode, "exit")) return (int)n;
  if (!strcmp(mode, "segv")) {
    fputs("about to dereference NULL\n", stderr);
    volatile int *p = NULL;
    return *p;
  }
  if (!strcmp(mode, "abort")) abort();
  if (!strcmp(mode, "raise")) {
    fprintf(stderr, "raising signal %ld\n", n);
    fflush(stderr);
    raise((int)n);
    return 98;
  }
  if (!strcmp(mode, "bytes") || !strcmp(mode, "garbage")) {
    /* N bytes on stdout (or stderr with a third argument "err"): a text pattern, or binary garbage with NULs. */
    int fd = (argc > 3 && !strcmp(argv[3], "err")) ? 2 : 1;
    static char buf[1 << 16];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof buf; ++i) {
      if (!strcmp(mode, "garbage")) { x = x * 1103515245u + 12345u; buf[i] = (char)(x >> 16); }
      else buf[i] = (i % 64 == 63) ? '\n' : (char)('a' + (i % 26));
    }
    while (n > 0) {
      size_t k = n < (long)sizeof buf ? (size_t)n : sizeof buf;
      write_all(fd, buf, k);
      n -= (long)k;
    }
    return 0;
  }
  if (!strcmp(mode, "longline")) {
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    while (n > 0) {
      size_t k = n < (long)sizeof buf ? (size_t)n : sizeof buf;
      write_all(1, buf, k);
      n -= (long)k;
    }
    write_all(1, "\n", 1);
    return 0;
  }
  if (!strcmp(mode, "interleave")) {
    for (long i = 0; i < n; ++i) {
      char line[64];
      int k = snprintf(line, sizeof line, "out %ld\n", i);
      write_all(1, line, (size_t)k);
      k = snprintf(line, sizeof line, "err %ld\n", i);
      write_all(2, line, (size_t)k);
    }
    return 3;
  }
  if (!strcmp(mode, "wait-signal")) {
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) signal(sigs[i], on_signal);
    write_all(1, "ready\n", 6);
    for (int i = 0; i < 300; ++i) usleep(100000);
    write_all(1, "timeout\n", 8);
    return 0;
  }
  return 64;
}
