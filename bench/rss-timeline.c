/* Benchmark helper (issue 26): when does a run reach its peak memory?
 *
 * Preloaded into a tweetcache run, it samples the process four times a second and
 * writes a line whenever the high-water mark (VmHWM) moves, and every five seconds:
 * seconds since start, VmHWM, RssAnon, RssFile (MB), and malloc's bytes in use and
 * free inside its heaps (mallinfo2, MB). Peaks shorter than a sample show only as a
 * step of VmHWM; the line beside it says what the process held around it.
 *
 *   cc -O2 -shared -fPIC -o /tmp/rss-timeline.so bench/rss-timeline.c -lpthread
 *   RSS_TIMELINE=/tmp/run.log LD_PRELOAD=/tmp/rss-timeline.so tweetcache fetch ...
 *
 * The log is RSS_TIMELINE (default /tmp/rss-timeline.log) with the process id
 * appended: a process the run starts writes its own.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *sample(void *unused) {
    (void)unused;
    const char *base = getenv("RSS_TIMELINE");
    char path[512];
    snprintf(path, sizeof path, "%s.%d", base ? base : "/tmp/rss-timeline.log", (int)getpid());
    FILE *out = fopen(path, "w");
    if (!out) return NULL;
    long last = -1;
    for (long tick = 0;; tick++) {
        long hwm = 0, anon = 0, file = 0;
        char line[256];
        FILE *status = fopen("/proc/self/status", "r");
        while (status && fgets(line, sizeof line, status)) {
            sscanf(line, "VmHWM: %ld", &hwm);
            sscanf(line, "RssAnon: %ld", &anon);
            sscanf(line, "RssFile: %ld", &file);
        }
        if (status) fclose(status);
        if (hwm != last || tick % 20 == 0) {
            struct mallinfo2 m = mallinfo2();
            fprintf(out, "%.2f hwm=%ld anon=%ld file=%ld inuse=%zu free=%zu\n", tick / 4.0, hwm >> 10, anon >> 10,
                    file >> 10, m.uordblks >> 20, m.fordblks >> 20);
            fflush(out);
            last = hwm;
        }
        usleep(250000);
    }
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, sample, NULL) == 0) pthread_detach(thread);
}
