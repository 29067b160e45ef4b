/*
 * The floor of the launch group's 200-job instant (bench/cases/launch-floor.ts): at each given
 * instant (epoch seconds, CLOCK_REALTIME) a bare loop posix_spawns COUNT copies of the burst
 * jobs' command, `/bin/bash -c 'echo "$EPOCHREALTIME"'`, each in its own session with stdout
 * inherited (so the line shows when the command began), then reaps them before the next
 * instant. No scheduler, no messages, no bookkeeping: what is left is the machine starting 200
 * bash processes on its cores, which no daemon can beat.
 * Usage: instant-floor COUNT INSTANT_S...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s COUNT INSTANT_S...\n", argv[0]);
    return 2;
  }
  int count = atoi(argv[1]);
  char *command[] = {"/bin/bash", "-c", "echo \"$EPOCHREALTIME\"", NULL};
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  for (int i = 2; i < argc; i++) {
    struct timespec at = {.tv_sec = (time_t)atoll(argv[i]), .tv_nsec = 0};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) == EINTR) {
    }
    for (int n = 0; n < count; n++) {
      pid_t pid;
      int error = posix_spawn(&pid, command[0], NULL, &attributes, command, environ);
      if (error != 0) {
        fprintf(stderr, "posix_spawn: error %d\n", error);
        return 1;
      }
    }
    while (wait(NULL) > 0) {
    }
  }
  posix_spawnattr_destroy(&attributes);
  return 0;
}
