/* Times whole commands: runs each variant N times, interleaved (so drift in the
 * machine's load hits all variants alike), and prints the median and quartiles
 * in milliseconds. Usage: spawn_timer N -- name1 cmd1 args ; name2 cmd2 args ; ...
 * Each command's stdout/stderr go to /dev/null. When the command runs the
 * `stamp` program, the time until it started is reported too (launch latency):
 * output columns are name, median, q1, q3, launch median (or -). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 4 || strcmp(argv[2], "--") != 0) {
    fprintf(stderr, "usage: spawn_timer N -- name cmd args ; name cmd args ...\n");
    return 64;
  }
  int n = atoi(argv[1]);
  char **variants[16];
  const char *names[16];
  int nv = 0;
  int i = 3;
  while (i < argc && nv < 16) {
    names[nv] = argv[i++];
    variants[nv] = &argv[i];
    while (i < argc && strcmp(argv[i], ";") != 0) i++;
    if (i < argc) argv[i++] = NULL;
    nv++;
  }
  double *times = calloc((size_t)(n * nv), sizeof(double));
  double *launch = calloc((size_t)(n * nv), sizeof(double));
  char stamp_path[64];
  snprintf(stamp_path, sizeof stamp_path, "/tmp/spawn_timer.%d.stamp", (int)getpid());
  setenv("STAMP_FILE", stamp_path, 1);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  for (int r = 0; r < n; ++r) {
    for (int v = 0; v < nv; ++v) {
      pid_t pid;
      double t0 = now_ms();
      if (posix_spawnp(&pid, variants[v][0], &fa, NULL, variants[v], environ) != 0) {
        perror("posix_spawnp");
        posix_spawn_file_actions_destroy(&fa);
        free(times);
        free(launch);
        return 1;
      }
      int st;
      waitpid(pid, &st, 0);
      times[v * n + r] = now_ms() - t0;
      launch[v * n + r] = -1;
      FILE *f = fopen(stamp_path, "r");
      if (f) {
        long long ns = 0;
        if (fscanf(f, "%lld", &ns) == 1) launch[v * n + r] = (double)ns / 1e6 - t0;
        fclose(f);
        unlink(stamp_path);
      }
    }
  }
  for (int v = 0; v < nv; ++v) {
    double *t = &times[v * n];
    double *l = &launch[v * n];
    qsort(t, (size_t)n, sizeof(double), cmp);
    qsort(l, (size_t)n, sizeof(double), cmp);
    if (l[n / 2] >= 0)
      printf("%s\t%.3f\t%.3f\t%.3f\t%.3f\n", names[v], t[n / 2], t[n / 4], t[(3 * n) / 4], l[n / 2]);
    else
      printf("%s\t%.3f\t%.3f\t%.3f\t-\n", names[v], t[n / 2], t[n / 4], t[(3 * n) / 4]);
  }
  posix_spawn_file_actions_destroy(&fa);
  free(times);
  free(launch);
  return 0;
}
