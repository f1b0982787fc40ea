/* Runs a command and writes its wall time, peak RSS and CPU time (getrusage via wait4) to a
 * file:
 *
 *   bench_run RESULT_FILE COMMAND [ARG...]
 *
 * RESULT_FILE gets "<seconds> <peak RSS KiB> <user + system CPU seconds>". On a shared
 * machine the CPU time is the steadier figure: the wall time also counts waiting for a core.
 *
 * The command is started from this small program rather than from the Python driver:
 * a child's ru_maxrss includes what it had before exec, the whole interpreter for a
 * Python fork. Here that is this program's few hundred KiB. Exits with the command's
 * status. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_run RESULT_FILE COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_run: fork");
        return 1;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("bench_run: exec");
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid) {
        perror("bench_run: wait4");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    FILE *f = fopen(argv[1], "w");
    double cpu = (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                 (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    if (!f || fprintf(f, "%.6f %ld %.6f\n", seconds, usage.ru_maxrss, cpu) < 0 || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
