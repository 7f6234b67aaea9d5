/*
 * The in-sandbox end of the endpoint links, compiled: 127.0.0.1:<port> inside, a Unix socket out.
 *
 *     mcpbench-forwarder PORT:UNIX_SOCKET [PORT:UNIX_SOCKET ...] -- AGENT ARGV...
 *
 * It does what _forwarder.py does (and that file stays the fallback where no C compiler exists):
 * bind every loopback listener before the agent exists, so the agent's first connection cannot race
 * it; detach a relay process (double fork, so the sandbox's init reaps it); then exec the agent,
 * which keeps this process's pid, stdio and exit status. One process, one poll loop, no threads
 * (threads count against the sandbox's pids limit). Starting it costs about a millisecond where the
 * Python forwarder costs tens (interpreter start and the socket module's imports).
 *
 * Each relayed connection has two directions; a direction holds at most one chunk in flight and
 * reads again only once that chunk is written (backpressure). A direction's end of file becomes a
 * shutdown(SHUT_WR) of the other side once its pending bytes are written. At most MAX_PAIRS
 * connections are relayed at once (all endpoints together); one more is closed at once.
 *
 * The relay never dies of a peer that went away: SIGPIPE is ignored in the relay (only there: the
 * agent keeps the default) and every write is a send(MSG_NOSIGNAL). A connection whose peer closed
 * (e.g. the gateway refusing a request over its size limit) is closed on both sides, so the agent
 * sees its connection end, and the relay serves the next one.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 65536
#define MAX_PAIRS 64
#define MAX_LINKS 8

struct direction {          /* bytes read from `from`, waiting to be written to `to` */
    int from, to;
    char buf[CHUNK];
    size_t len, off;
    int eof;                /* `from` reached end of file */
};

struct pair {
    int used;
    struct direction up;    /* inside -> outside */
    struct direction down;  /* outside -> inside */
};

struct link {               /* one endpoint: a loopback listener and the Unix socket it leads to */
    int listener;
    const char *unix_path;
};

static struct pair pairs[MAX_PAIRS];
static struct link links[MAX_LINKS];
static int n_links;

static void close_pair(struct pair *p) {
    close(p->up.from);
    close(p->up.to);
    p->used = 0;
}

static void accept_one(const struct link *link) {
    int inside = accept4(link->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (inside < 0) return;
    int free_slot = -1;
    for (int i = 0; i < MAX_PAIRS && free_slot < 0; i++)
        if (!pairs[i].used) free_slot = i;
    if (free_slot < 0) {  /* too many connections at once: refuse this one */
        close(inside);
        return;
    }
    int outside = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, link->unix_path, sizeof(addr.sun_path) - 1);
    if (outside < 0 || connect(outside, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
        close(inside);
        if (outside >= 0) close(outside);
        return;
    }
    fcntl(outside, F_SETFL, fcntl(outside, F_GETFL) | O_NONBLOCK);
    struct pair *p = &pairs[free_slot];
    memset(p, 0, sizeof(*p));
    p->used = 1;
    p->up.from = inside, p->up.to = outside;
    p->down.from = outside, p->down.to = inside;
}

/* Move what can be moved in one direction; returns -1 when the connection is broken. */
static int pump(struct direction *d, short from_events, short to_events) {
    if (d->len > d->off && (to_events & (POLLOUT | POLLERR | POLLHUP))) {
        ssize_t n = send(d->to, d->buf + d->off, d->len - d->off, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EINTR) return -1;
        if (n > 0) d->off += (size_t)n;
        if (d->off == d->len) d->len = d->off = 0;
        if (d->len == 0 && d->eof) shutdown(d->to, SHUT_WR);
    }
    if (d->len == 0 && !d->eof && (from_events & (POLLIN | POLLERR | POLLHUP))) {
        ssize_t n = read(d->from, d->buf, CHUNK);
        if (n < 0 && errno != EAGAIN && errno != EINTR) return -1;
        if (n == 0) {
            d->eof = 1;
            shutdown(d->to, SHUT_WR);
        } else if (n > 0) {
            d->len = (size_t)n;
            d->off = 0;
        }
    }
    return 0;
}

static void relay(void) {
    struct pollfd fds[MAX_LINKS + 2 * MAX_PAIRS];
    int index[MAX_LINKS + 2 * MAX_PAIRS];
    signal(SIGPIPE, SIG_IGN);
    for (;;) {
        int n = 0;
        for (int l = 0; l < n_links; l++)
            fds[n].fd = links[l].listener, fds[n].events = POLLIN, index[n++] = -1;
        for (int i = 0; i < MAX_PAIRS; i++) {
            struct pair *p = &pairs[i];
            if (!p->used) continue;
            short in_ev = 0, out_ev = 0;
            if (p->up.len == 0 && !p->up.eof) in_ev |= POLLIN;
            if (p->down.len > p->down.off) in_ev |= POLLOUT;
            if (p->down.len == 0 && !p->down.eof) out_ev |= POLLIN;
            if (p->up.len > p->up.off) out_ev |= POLLOUT;
            fds[n].fd = p->up.from, fds[n].events = in_ev, index[n++] = i;
            fds[n].fd = p->up.to, fds[n].events = out_ev, index[n++] = i;
        }
        if (poll(fds, (nfds_t)n, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (int l = 0; l < n_links; l++)
            if (fds[l].revents & POLLIN) accept_one(&links[l]);
        for (int k = n_links; k < n; k += 2) {
            struct pair *p = &pairs[index[k]];
            if (!p->used) continue;
            short inside_ev = fds[k].revents, outside_ev = fds[k + 1].revents;
            if (pump(&p->up, inside_ev, outside_ev) < 0 || pump(&p->down, outside_ev, inside_ev) < 0) {
                close_pair(p);
                continue;
            }
            if (p->up.eof && p->down.eof && p->up.len == 0 && p->down.len == 0) close_pair(p);
        }
    }
}

/* Bind 127.0.0.1:PORT for one PORT:UNIX_SOCKET argument; 0 on success. */
static int open_link(char *spec) {
    char *sep = strchr(spec, ':');
    if (sep == NULL || n_links == MAX_LINKS) {
        fprintf(stderr, "mcpbench sandbox: bad or too many endpoints: '%s'\n", spec);
        return -1;
    }
    *sep = '\0';
    int port = atoi(spec);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(listener, 64) < 0) {
        fprintf(stderr, "mcpbench sandbox: cannot listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
        return -1;
    }
    links[n_links].listener = listener;
    links[n_links].unix_path = sep + 1;
    n_links++;
    return 0;
}

int main(int argc, char **argv) {
    int dashes = 1;
    while (dashes < argc && strcmp(argv[dashes], "--") != 0) dashes++;
    if (dashes == 1 || dashes + 1 >= argc) {
        fprintf(stderr, "usage: mcpbench-forwarder PORT:UNIX_SOCKET [PORT:UNIX_SOCKET ...] -- ARGV...\n");
        return 125;
    }
    for (int i = 1; i < dashes; i++)
        if (open_link(argv[i]) < 0) return 125;

    pid_t first = fork();
    if (first < 0) {
        fprintf(stderr, "mcpbench sandbox: cannot start the gateway relay: %s\n", strerror(errno));
        return 125;
    }
    if (first == 0) {
        if (fork() != 0) _exit(0);
        int devnull = open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3; fd++) dup2(devnull, fd);
        for (int l = 0; l < n_links; l++)
            fcntl(links[l].listener, F_SETFL, fcntl(links[l].listener, F_GETFL) | O_NONBLOCK);
        relay();
        _exit(0);
    }
    waitpid(first, NULL, 0);
    for (int l = 0; l < n_links; l++) close(links[l].listener);
    execvp(argv[dashes + 1], argv + dashes + 1);
    fprintf(stderr, "mcpbench sandbox: cannot start agent '%s': %s\n", argv[dashes + 1], strerror(errno));
    return 127;
}
