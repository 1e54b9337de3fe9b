/* Writes the CLOCK_MONOTONIC time at which it started (ns) to $STAMP_FILE:
 * how long a wrapper took to get the real program running. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  const char *path = getenv("STAMP_FILE");
  if (!path) return 1;
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  fprintf(f, "%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
  return fclose(f) == 0 ? 0 : 1;
}
