/* The run directory: one sweep at a time writes it (RUN/lock names the host
 * and process that holds it), and --fresh moves the previous sweep's files
 * to RUN/old/N/. Invariant: nothing here deletes a record or a table. */
/* realpath is POSIX.1-2008's XSI part: glibc declares it under X/Open. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/rundir.h"
#include "util/grow.h"

#ifdef getpid
/* SMPI's helpers rename getpid to the simulated process's number; the lock
 * needs the operating system's, which another process can look up. */
#undef getpid
pid_t getpid(void);
#endif

#define PATH_BYTES 4096
#define HOST_BYTES 256 /* read_holder reads at most 255 */

struct rundir_lock {
    char *path;
    int fd; /* holds an fcntl write lock on the lock file while open */
};

int rundir_path(char *buf, size_t size, const char *dir, const char *name)
{
    if (snprintf(buf, size, "%s/%s", dir, name) >= (int)size) {
        fprintf(stderr, "%s: path too long\n", dir);
        return -1;
    }
    return 0;
}

/* A run directory's own files, which no command writes over (the sweep,
 * compare and predict write theirs by their own names), and what each is. */
static const struct {
    const char *name, *what;
} own_files[] = {
    {RUNDIR_JOURNAL, "journal (the only copy of its measurements)"},
    {RUNDIR_MEASUREMENTS, "measurements table"},
    {RUNDIR_OPTIMAL, "optimal-method table"},
    {RUNDIR_INFERRED, "inferred points' predictions"},
    {RUNDIR_SPEEDUP, "speedup table"},
    {RUNDIR_COMPARE, "comparison of the search strategies"},
    {RUNDIR_GRID, "comparison of the grids"},
    {RUNDIR_LOCK, "lock"},
    {RUNDIR_PROFILE, "copy of the profile it was swept for"},
    {RUNDIR_MODEL_JOURNAL,
     "calibration journal (the only copy of those measurements)"},
    {RUNDIR_MODEL, "calibration"},
    {RUNDIR_PREDICTED, "predicted times"},
};
#define N_OWN_FILES (sizeof own_files / sizeof own_files[0])

static int same_inode(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The own file named base, or -1. */
static int own_file_named(const char *base)
{
    for (size_t i = 0; i < N_OWN_FILES; i++) {
        if (strcmp(base, own_files[i].name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* 1 when dir is run itself, 2 when it is another run directory (it holds
 * a journal), else 0. */
static int run_dir_kind(const char *dir, const char *run)
{
    char journal[PATH_BYTES];
    struct stat a, b;
    if (run && stat(dir, &a) == 0 && stat(run, &b) == 0 && same_inode(&a, &b)) {
        return 1;
    }
    for (int k = 0; k < 2; k++) {
        if (rundir_path(journal, sizeof journal, dir,
                        k ? RUNDIR_MODEL_JOURNAL : RUNDIR_JOURNAL) == 0 &&
            access(journal, F_OK) == 0) {
            return 2;
        }
    }
    return 0;
}

int rundir_check_output(const char *command, const char *run, const char *path)
{
    char file[PATH_BYTES], where[PATH_BYTES], dir[PATH_BYTES];
    struct stat out, st;
    const char *owner = run;
    int hit = -1, exists = stat(path, &out) == 0;
    for (size_t i = 0; exists && run && i < N_OWN_FILES && hit < 0; i++) {
        if (rundir_path(file, sizeof file, run, own_files[i].name) == 0 &&
            stat(file, &st) == 0 && same_inode(&st, &out)) {
            hit = (int)i;
        }
    }
    /* A link to another run directory's file: that file's own name in
     * its own directory (realpath resolves every link), the same file. */
    char *real = hit < 0 && exists ? realpath(path, NULL) : NULL;
    char *real_slash = real ? strrchr(real, '/') : NULL;
    if (real_slash && own_file_named(real_slash + 1) >= 0) {
        snprintf(dir, sizeof dir, "%.*s",
                 real_slash == real ? 1 : (int)(real_slash - real), real);
        if (run_dir_kind(dir, run) > 0 && stat(real, &st) == 0 &&
            same_inode(&st, &out)) {
            hit = own_file_named(real_slash + 1);
            owner = dir;
        }
    }
    free(real);
    /* Not yet there (or another run's): its name in its directory. */
    if (hit < 0 && snprintf(where, sizeof where, "%s", path) < PATH_BYTES) {
        char *slash = strrchr(where, '/');
        const char *base = slash ? slash + 1 : where;
        snprintf(dir, sizeof dir, "%.*s",
                 slash ? (slash == where ? 1 : (int)(slash - where)) : 1,
                 slash ? where : ".");
        int i = own_file_named(base),
            kind = i >= 0 ? run_dir_kind(dir, run) : 0;
        if (kind > 0) {
            hit = i;
            owner = kind == 1 ? run : dir;
        }
    }
    if (hit < 0) {
        return 0;
    }
    fprintf(stderr,
            "autotune %s: %s: it is %s's %s; no command writes over a run "
            "directory's own files (name another output)\n",
            command, path, owner, own_files[hit].what);
    return -1;
}

static void this_host(char *host)
{
    if (gethostname(host, HOST_BYTES) != 0) {
        snprintf(host, HOST_BYTES, "?");
    }
    host[HOST_BYTES - 1] = '\0';
}

/* The holder a lock file names ("host pid"); 0 if it names one. */
static int read_holder(int fd, char *host, long *pid)
{
    char text[HOST_BYTES + 32];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0) {
        return -1;
    }
    text[n] = '\0';
    return sscanf(text, "%255s %ld", host, pid) == 2 && *pid > 0 ? 0 : -1;
}

/* An fcntl lock on the whole file: the kernel drops it when its process
 * dies, so a lock file nobody holds this way was left by a dead sweep.
 * 0 when taken or when the file system has no such locks (then only the
 * pid tells). */
static int hold_fcntl(int fd)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &fl) == 0 || errno == ENOLCK ||
        errno == EOPNOTSUPP || errno == EINVAL) {
        return 0;
    }
    return -1;
}

static int same_file(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* A zombie (killed, not yet reaped by its parent) has ended: on Linux,
 * /proc says so; elsewhere only kill() tells. */
static int is_alive(long pid)
{
    char path[64], text[512];
    if (kill((pid_t)pid, 0) != 0 && errno != EPERM) {
        return 0;
    }
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        return 1;
    }
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *state = strrchr(text, ')'); /* "pid (comm) S ..." */
    return !(state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X'));
}

/* Writes me into a new file fd, held with an fcntl lock. */
static int fill_lock(int fd, const char *me)
{
    size_t n = strlen(me);
    if (hold_fcntl(fd) != 0 || write(fd, me, n) != (ssize_t)n ||
        fsync(fd) != 0) {
        return -1;
    }
    return 0;
}

/* The lock file appears whole and already held: written and locked under a
 * name of this process's own, then linked to RUN/lock (link() fails if it
 * exists). Where the file system has no hard links, it is created with
 * O_EXCL and filled at once. 1 if it existed, 0 if created, -1 on error. */
static int create_lock(const char *path, const char *me, int *fd)
{
    char tmp[PATH_BYTES];
    int rc = -1, is_linkless = 0;
    if (snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid()) >=
        (int)sizeof tmp) {
        fprintf(stderr, "%s: path too long\n", path);
        return -1;
    }
    *fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (*fd < 0 || fill_lock(*fd, me) != 0) {
        /* The temporary is ours: the user knows RUN/lock. */
        fprintf(stderr, "%s: cannot create the lock: %s\n", path,
                strerror(errno));
    } else if (link(tmp, path) == 0) {
        rc = 0;
    } else if (errno == EEXIST) {
        rc = 1;
    } else if (errno == EPERM || errno == ENOTSUP || errno == ENOSYS) {
        is_linkless = 1;
    } else {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
    }
    unlink(tmp);
    if (rc != 0 && *fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    if (is_linkless) {
        *fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
        rc = *fd < 0 ? (errno == EEXIST ? 1 : -1) : fill_lock(*fd, me);
        if (rc < 0) {
            fprintf(stderr, "%s: %s\n", path, strerror(errno));
        }
        if (rc < 0 && *fd >= 0) {
            unlink(path);
            close(*fd);
            *fd = -1;
        }
    }
    return rc;
}

/* RUN/lock exists: refuses a live holder, takes over a dead one's lock in
 * place (the fcntl lock keeps two takers apart). 1 when the file went away
 * meanwhile (try again). */
static int take_over(const char *path, const char *me, const char *host,
                     int *fd)
{
    char holder[HOST_BYTES] = "";
    long pid = 0;
    *fd = open(path, O_RDWR);
    if (*fd < 0) {
        if (errno == ENOENT) {
            return 1;
        }
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    int is_held = hold_fcntl(*fd) != 0;
    if (!is_held && !same_file(*fd, path)) {
        close(*fd); /* released and removed between open and lock */
        return 1;
    }
    int is_named = read_holder(*fd, holder, &pid) == 0;
    int is_here = is_named && strcmp(holder, host) == 0;
    if (is_held || (is_here && pid != (long)getpid() && is_alive(pid))) {
        /* Not held but alive: a sweep on a file system without fcntl
         * locks, or another program that got the pid since. */
        fprintf(stderr,
                "autotune: the run directory is in use by process %ld on "
                "host %s (%s); wait for that sweep to end%s\n",
                pid, is_named ? holder : "?", path,
                is_held ? ""
                        : " (if that process is no sweep, remove the lock)");
    } else if (is_named && !is_here) {
        fprintf(stderr,
                "autotune: the run directory is held by process %ld on "
                "host %s (%s), which cannot be checked from here; if that "
                "sweep has ended, remove the lock\n",
                pid, holder, path);
    } else if (ftruncate(*fd, 0) != 0 ||
               pwrite(*fd, me, strlen(me), 0) != (ssize_t)strlen(me) ||
               fsync(*fd) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
    } else {
        if (is_named) {
            fprintf(stderr,
                    "autotune: %s: process %ld on %s, which held it, is "
                    "gone; taking the lock over\n",
                    path, pid, holder);
        } else {
            fprintf(stderr, "autotune: %s names no process; taking it over\n",
                    path);
        }
        return 0;
    }
    close(*fd);
    *fd = -1;
    return -1;
}

int rundir_lock_open(const char *dir, struct rundir_lock **out)
{
    char path[PATH_BYTES], host[HOST_BYTES], me[HOST_BYTES + 32];
    int fd = -1, rc = 1;
    *out = NULL;
    if (rundir_path(path, PATH_BYTES, dir, RUNDIR_LOCK) != 0) {
        return -1;
    }
    this_host(host);
    snprintf(me, sizeof me, "%s %ld\n", host, (long)getpid());
    for (int attempt = 0; attempt < 100 && rc == 1; attempt++) {
        rc = create_lock(path, me, &fd);
        if (rc == 1) {
            rc = take_over(path, me, host, &fd);
        }
    }
    if (rc == 1) {
        fprintf(stderr, "%s: appears and disappears; not taken\n", path);
    }
    struct rundir_lock *lock = rc == 0 ? malloc(sizeof *lock) : NULL;
    if (rc == 0 && (!lock || !(lock->path = strdup(path)))) {
        fprintf(stderr, "autotune: out of memory\n");
        free(lock);
        lock = NULL;
    }
    if (!lock) {
        if (fd >= 0) {
            unlink(path);
            close(fd);
        }
        return -1;
    }
    lock->fd = fd;
    *out = lock;
    return 0;
}

void rundir_lock_close(struct rundir_lock *lock)
{
    if (!lock) {
        return;
    }
    /* Removed before it is released, so that nobody takes a removed file;
     * and only if it is still ours (someone may have removed it by hand). */
    if (same_file(lock->fd, lock->path)) {
        unlink(lock->path);
    }
    close(lock->fd);
    free(lock->path);
    free(lock);
}

const char *rundir_lock_path(const struct rundir_lock *lock)
{
    return lock->path;
}

/* What --fresh moves: the files a sweep and the offline commands write in
 * the run directory (or, for `autotune model --fresh`, the model's). */
static int is_run_file(const char *name, int is_model)
{
    if (is_model) {
        return strcmp(name, RUNDIR_MODEL) == 0;
    }
    static const char *const names[] = {RUNDIR_JOURNAL, RUNDIR_MEASUREMENTS,
                                        RUNDIR_OPTIMAL, RUNDIR_INFERRED,
                                        RUNDIR_SPEEDUP, RUNDIR_COMPARE};
    static const char *const prefixes[] = {"tree.", "tree-", "quadtree-"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i]) == 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

static int add_name(char ***names, size_t *n, size_t *cap, const char *name)
{
    char **grown = grow(*names, cap, *n + 1, sizeof *grown, 16);
    if (!grown) {
        return -1;
    }
    *names = grown;
    if (!((*names)[*n] = strdup(name))) {
        return -1;
    }
    (*n)++;
    return 0;
}

/* The names of the run files in dir, the journal last (caller-frees each
 * and the array, also on failure). */
static int list_run_files(const char *dir, int is_model, char ***names,
                          size_t *n)
{
    const char *journal = is_model ? RUNDIR_MODEL_JOURNAL : RUNDIR_JOURNAL;
    DIR *d = opendir(dir);
    size_t cap = 0;
    int has_journal = 0, rc = 0;
    *names = NULL;
    *n = 0;
    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (strcmp(e->d_name, journal) == 0) {
            has_journal = 1;
        } else if (is_run_file(e->d_name, is_model)) {
            rc = add_name(names, n, &cap, e->d_name);
        }
    }
    closedir(d);
    if (rc == 0 && has_journal) {
        rc = add_name(names, n, &cap, journal);
    }
    if (rc != 0) {
        fprintf(stderr, "%s: out of memory listing the run's files\n", dir);
    }
    return rc;
}

/* Makes old/N, N one more than the highest number there. */
static int make_old_dir(const char *dir, char *old)
{
    char parent[PATH_BYTES];
    long highest = 0;
    if (rundir_path(parent, PATH_BYTES, dir, "old") != 0) {
        return -1;
    }
    if (mkdir(parent, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s\n", parent, strerror(errno));
        return -1;
    }
    DIR *d = opendir(parent);
    if (!d) {
        fprintf(stderr, "%s: %s\n", parent, strerror(errno));
        return -1;
    }
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        long k = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && k > highest) {
            highest = k;
        }
    }
    closedir(d);
    for (long k = highest + 1;; k++) {
        char name[32];
        snprintf(name, sizeof name, "%ld", k);
        if (rundir_path(old, PATH_BYTES, parent, name) != 0) {
            return -1;
        }
        if (mkdir(old, 0755) == 0) {
            return 0;
        }
        if (errno != EEXIST) {
            fprintf(stderr, "%s: %s\n", old, strerror(errno));
            return -1;
        }
    }
}

static int start_fresh(const char *dir, int is_model)
{
    char old[PATH_BYTES];
    char **names;
    size_t n;
    int rc = list_run_files(dir, is_model, &names, &n);
    if (rc == 0 && n > 0) {
        rc = make_old_dir(dir, old);
    }
    /* The journal goes last: stopped halfway, the run still has it. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        char from[PATH_BYTES], to[PATH_BYTES];
        if (rundir_path(from, PATH_BYTES, dir, names[i]) != 0 ||
            rundir_path(to, PATH_BYTES, old, names[i]) != 0) {
            rc = -1;
        } else if (rename(from, to) != 0) {
            fprintf(stderr, "%s: cannot move it to %s/: %s\n", from, old,
                    strerror(errno));
            rc = -1;
        }
    }
    if (rc == 0 && n > 0) {
        fprintf(stderr, "autotune: starting over; the previous %s are in %s/\n",
                is_model ? "calibration's journal and model.csv"
                         : "sweep's journal and tables",
                old);
    }
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    return rc;
}

int rundir_start_fresh(const char *dir)
{
    return start_fresh(dir, 0);
}

int rundir_start_fresh_model(const char *dir)
{
    return start_fresh(dir, 1);
}
