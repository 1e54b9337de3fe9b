/* Writes N MiB to stdout as fast as it can, in 64 KiB chunks of log-like text. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  long mib = argc > 1 ? atol(argv[1]) : 1024;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  static char buf[1 << 16];
  for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (i % 80 == 79) ? '\n' : (char)('a' + i % 26);
  for (long i = 0; i < mib * 16; ++i) {
    size_t off = 0;
    while (off < sizeof buf) {
      ssize_t w = write(1, buf + off, sizeof buf - off);
      if (w <= 0) return 1;
      off += (size_t)w;
    }
  }
  /* The writer's own view: how long its writes took, i.e. how much a tee slowed it. */
  clock_gettime(CLOCK_MONOTONIC, &b);
  fprintf(stderr, "writer_seconds %.3f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
  return 0;
}
