/* Alternating cold-start timer for bench/ratios.sh: runs each command once per round (stdout
 * and stderr to /dev/null), ROUNDS rounds, and prints each command's median wall time in
 * microseconds and its largest peak RSS in KiB (wait4's ru_maxrss); a run that exits non-zero is
 * reported on stderr (an exit-2 command is timed on purpose). Commands are given as single strings split at spaces (no shell, no quoting),
 * so that the fork+exec cost is the same for every command and only the program differs.
 * Usage: spawn_timer ROUNDS "cmd a b" "cmd c" ...   Output: one line per command: median_us max_rss_kib */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int rounds = atoi(argv[1]);
  const int n = argc - 2;
  char*** cmds = calloc(n, sizeof *cmds);
  for (int c = 0; c < n; ++c) {
    cmds[c] = calloc(64, sizeof(char*));
    int k = 0;
    for (char* t = strtok(strdup(argv[c + 2]), " "); t && k < 63; t = strtok(NULL, " ")) cmds[c][k++] = t;
  }
  double* t = calloc((size_t)n * rounds, sizeof *t);
  long* rss = calloc(n, sizeof *rss);
  const int devnull = open("/dev/null", O_WRONLY);
  for (int r = 0; r < rounds; ++r)
    for (int c = 0; c < n; ++c) {
      struct timespec a, b;
      clock_gettime(CLOCK_MONOTONIC, &a);
      const pid_t pid = fork();
      if (pid == 0) {
        dup2(devnull, 1);
        dup2(devnull, 2);
        execv(cmds[c][0], cmds[c]);
        _exit(127);
      }
      int st;
      struct rusage ru;
      wait4(pid, &st, 0, &ru);
      if (ru.ru_maxrss > rss[c]) rss[c] = ru.ru_maxrss;
      if (r == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        fprintf(stderr, "spawn_timer: '%s' exits %d\n", argv[c + 2], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      clock_gettime(CLOCK_MONOTONIC, &b);
      t[c * rounds + r] = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
    }
  for (int c = 0; c < n; ++c) {
    qsort(t + c * rounds, rounds, sizeof *t, cmp);
    printf("%.1f %ld\n", t[c * rounds + rounds / 2], rss[c]);
  }
  return 0;
}
